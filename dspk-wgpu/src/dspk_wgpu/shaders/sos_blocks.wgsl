// A cascade of IIR sections over blocks of samples, in transposed direct form II.
// Every section has the same order M: second-order sections (M = 2) for sosfilt,
// one section of order K - 1 for lfilter. Section s's coefficients are the row
// [b0 .. bM, a0 .. aM] (a0 = 1), so sos rows are read as they are.
//
// One invocation filters one block of one channel. Its start state is the
// pass's initial state for block 0, else zeros (the carry pass) or slot
// `block` of `state` (the fix-up and sequential passes). The carry and
// sequential passes store the final state in slot `block + 1`; the fix-up pass
// only for the last block (that slot is zf). States are laid out
// (slot, section, channel, delay): a slot is scipy's zi of shape
// (n_sections, channels, 2) for sosfilt and (channels, K - 1) for lfilter.
//
// The input is sample t of `x` through its offset and strides, or, with an
// extension, of `x` extended by `edge_len` samples at both ends (odd, even or
// constant), read through an index function so the extension is never stored.
// With `edges` = CROP the input is plain and only samples
// edge_len <= t < n - edge_len are written. A negative time stride reads or
// writes backwards (filtfilt's backward pass).
//
// A workgroup holds WORKGROUP channels of one block (the tuner's choice, a
// pipeline-overridable constant).

//! params n channels sections order block_len block0 pass_kind initial edges edge_len x_offset x_sc
//! params x_st y_offset y_sc y_st

override WORKGROUP: u32;
const MAX_STATE: i32 = 64;
// pass_kind
const CARRY: i32 = 0;
const FIX_UP: i32 = 1;
// initial: ZERO_START = 0, then
const STATE_PER_CHANNEL: i32 = 1;
const STEADY_STATE: i32 = 2;
// edges: PLAIN = 0, then
const ODD: i32 = 1;
const CONSTANT: i32 = 3;
const CROP: i32 = 4;

// The parameters as the shader reads them: `p` plus the (always zero) z
// invocation index. lavapipe (Mesa 22) folds uniforms that steer branches and
// loops into the code and compiles the shader again at every dispatch, about
// 15 ms each (measured); values it cannot know at compile time avoid that.
var<private> q: Params;
//! read coefficients: array<real>
//! read x: array<real>
//! read_write y: array<real>
//! read_write state: array<real>
// STATE_PER_CHANNEL: laid out as one slot; STEADY_STATE: (section, delay),
// scaled by the channel's first input sample.
//! read zi: array<real>

fn state_index(slot: i32, section: i32, channel: i32) -> i32 {
    return ((slot * q.sections + section) * q.channels + channel) * q.order;
}

// Sample t of the pass's input for channel c.
fn source(c: i32, t: i32) -> real {
    let base = q.x_offset + c * q.x_sc;
    if (q.edges == 0 || q.edges == CROP) {
        return x[base + t * q.x_st];
    }
    let m = q.n - 2 * q.edge_len;
    let j = t - q.edge_len;
    if (j >= 0 && j < m) {
        return x[base + j * q.x_st];
    }
    let end = x[base + select(m - 1, 0, j < 0) * q.x_st];
    if (q.edges == CONSTANT) {
        return end;
    }
    let mirrored = x[base + select(2 * (m - 1) - j, -j, j < 0) * q.x_st];
    if (q.edges == ODD) {
        return 2.0 * end - mirrored;
    }
    return mirrored;
}

@compute @workgroup_size(WORKGROUP, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let z0 = i32(id.z);
    q = Params(p.n + z0, p.channels + z0, p.sections + z0, p.order + z0,
               p.block_len + z0, p.block0 + z0, p.pass_kind + z0, p.initial + z0,
               p.edges + z0, p.edge_len + z0, p.x_offset + z0, p.x_sc + z0,
               p.x_st + z0, p.y_offset + z0, p.y_sc + z0, p.y_st + z0);
    let c = i32(id.x);
    if (c >= q.channels) {
        return;
    }
    let block = q.block0 + i32(id.y);
    let start = block * q.block_len;
    if (start >= q.n) {
        return;
    }
    let stop = min(start + q.block_len, q.n);
    let m = q.order;
    var z: array<real, MAX_STATE>;
    var scale: real = 0.0;
    if (block == 0 && q.initial == STEADY_STATE) {
        scale = source(c, 0);
    }
    for (var s = 0; s < q.sections; s++) {
        let k = state_index(block, s, c);
        let k0 = state_index(0, s, c);
        for (var d = 0; d < m; d++) {
            var v: real = 0.0;
            if (block == 0) {
                if (q.initial == STATE_PER_CHANNEL) {
                    v = zi[k0 + d];
                } else if (q.initial == STEADY_STATE) {
                    v = zi[s * m + d] * scale;
                }
            } else if (q.pass_kind != CARRY) {
                v = state[k + d];
            }
            z[s * m + d] = v;
        }
    }
    let row = 2 * (m + 1);
    let write_y = q.pass_kind != CARRY;
    for (var t = start; t < stop; t++) {
        var v = source(c, t);
        for (var s = 0; s < q.sections; s++) {
            let b = s * row;
            let a = b + m + 1;
            let zs = s * m;
            let out = coefficients[b] * v + z[zs];
            if (m == 2) {   // second-order sections without the inner loop
                z[zs] = coefficients[b + 1] * v - coefficients[a + 1] * out + z[zs + 1];
            } else {
                for (var d = 0; d < m - 1; d++) {
                    z[zs + d] = coefficients[b + d + 1] * v - coefficients[a + d + 1] * out
                                + z[zs + d + 1];
                }
            }
            z[zs + m - 1] = coefficients[b + m] * v - coefficients[a + m] * out;
            v = out;
        }
        if (write_y && (q.edges != CROP || (t >= q.edge_len && t < q.n - q.edge_len))) {
            y[q.y_offset + c * q.y_sc + t * q.y_st] = v;
        }
    }
    if (q.pass_kind != FIX_UP || stop == q.n) {
        for (var s = 0; s < q.sections; s++) {
            let k = state_index(block + 1, s, c);
            for (var d = 0; d < m; d++) {
                state[k + d] = z[s * m + d];
            }
        }
    }
}
