// The fused second-order-section cascade over blocks of samples.
// One invocation filters one block of one channel: it starts from the state in
// slot `block * slot_step` (or from zeros), writes the outputs when `write_y`
// is set, and stores its final state in slot `block * slot_step + write_shift`
// when that slot exists. States are laid out (slot, section, channel, 2), so a
// slot is exactly scipy's zi/zf of shape (n_sections, channels, 2).

struct Params {
    n: i32, channels: i32, sections: i32, block_len: i32,
    block0: i32, nblocks: i32, slot_step: i32, write_shift: i32,
    slots: i32, zero_init: i32, write_y: i32, x_offset: i32,
    x_sc: i32, x_st: i32, y_sc: i32, y_st: i32,
}

const MAX_SECTIONS: i32 = 32;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> sos: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<storage, read_write> state: array<f32>;

fn state_index(slot: i32, section: i32, channel: i32) -> i32 {
    return ((slot * p.sections + section) * p.channels + channel) * 2;
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = i32(id.x);
    let local_block = i32(id.y);
    if (c >= p.channels || local_block >= p.nblocks) {
        return;
    }
    let block = p.block0 + local_block;
    let start = block * p.block_len;
    if (start >= p.n) {
        return;
    }
    let stop = min(start + p.block_len, p.n);
    let read_slot = block * p.slot_step;
    var z: array<f32, 64>;
    for (var s = 0; s < p.sections; s++) {
        if (p.zero_init != 0) {
            z[2 * s] = 0.0;
            z[2 * s + 1] = 0.0;
        } else {
            let k = state_index(read_slot, s, c);
            z[2 * s] = state[k];
            z[2 * s + 1] = state[k + 1];
        }
    }
    for (var t = start; t < stop; t++) {
        var v = x[p.x_offset + c * p.x_sc + t * p.x_st];
        for (var s = 0; s < p.sections; s++) {
            let out = sos[6 * s] * v + z[2 * s];
            z[2 * s] = sos[6 * s + 1] * v - sos[6 * s + 4] * out + z[2 * s + 1];
            z[2 * s + 1] = sos[6 * s + 2] * v - sos[6 * s + 5] * out;
            v = out;
        }
        if (p.write_y != 0) {
            y[c * p.y_sc + t * p.y_st] = v;
        }
    }
    let write_slot = read_slot + p.write_shift;
    if (write_slot < p.slots) {
        for (var s = 0; s < p.sections; s++) {
            let k = state_index(write_slot, s, c);
            state[k] = z[2 * s];
            state[k + 1] = z[2 * s + 1];
        }
    }
}
