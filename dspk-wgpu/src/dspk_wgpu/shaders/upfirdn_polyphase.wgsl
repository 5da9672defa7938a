// Polyphase upfirdn: output k is sum_m h[ph + up m] u[q - m], where
// t = (start + k) down, q = t / up and ph = t % up: the taps of one phase meet
// the input samples ending at q, and the upsampled signal is never formed.
// u is x, continued by `left` before it and `right` after it (dense, laid out
// like x with `edge` samples along the time axis; zeros when `edge` is 0).
// A dispatch covers the phase columns m0 .. m0 + m_count; later ones add to y.
// One invocation per output sample; `channels_fast` puts neighbouring
// invocations on neighbouring channels (sample-major data).

//! params n channels up down start count taps m0 m_count accumulate x_offset x_sc x_st edge axis
//! params channels_fast

//! read h: array<real>
//! read x: array<real>
//! read left: array<real>
//! read right: array<real>
//! read_write y: array<real>

// Sample e of channel c of a dense edge array of `edge` samples.
fn edge_index(c: i32, e: i32) -> i32 {
    if (p.axis == 1) {
        return c * p.edge + e;
    }
    return e * p.channels + c;
}

fn sample(c: i32, i: i32) -> real {
    if (i >= 0 && i < p.n) {
        return x[p.x_offset + c * p.x_sc + i * p.x_st];
    }
    if (i < 0 && i >= -p.edge) {
        return left[edge_index(c, p.edge + i)];
    }
    if (i >= p.n && i < p.n + p.edge) {
        return right[edge_index(c, i - p.n)];
    }
    return 0.0;
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
    let g = (i32(wid.x) + i32(wid.y) * i32(groups.x)) * 64 + i32(lid.x);
    if (g >= p.channels * p.count) {
        return;
    }
    var c = g / p.count;
    var k = g % p.count;
    if (p.channels_fast != 0) {
        c = g % p.channels;
        k = g / p.channels;
    }
    let t = (p.start + k) * p.down;
    let q = t / p.up;
    let phase = t % p.up;
    let m_stop = min(p.m0 + p.m_count, (p.taps - phase + p.up - 1) / p.up);
    var acc: real = 0.0;
    if (q - m_stop + 1 >= 0 && q - p.m0 < p.n) {
        // inside the signal: no edge tests
        let base = p.x_offset + c * p.x_sc + q * p.x_st;
        for (var m = p.m0; m < m_stop; m++) {
            acc += h[phase + p.up * m] * x[base - m * p.x_st];
        }
    } else {
        for (var m = p.m0; m < m_stop; m++) {
            acc += h[phase + p.up * m] * sample(c, q - m);
        }
    }
    var at = c * p.count + k;
    if (p.axis == 0) {
        at = k * p.channels + c;
    }
    if (p.accumulate != 0) {
        acc += y[at];
    }
    y[at] = acc;
}
