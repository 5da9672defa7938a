// Partial sums of every (chunk, channel): sum x[t] and sum x[t] * r(t), with
// r(t) = t - centre of the chunk's piece, the centred sample index.
// A workgroup of 256 sums one chunk of one channel, 256-strided, then reduces
// in workgroup memory. `chunks` holds 6 integers per chunk: start, stop, the
// piece's first chunk, its chunk count, its first sample and its length.
// Complex data (`components` 2) is real data with twice the channels: channel
// k is component k % 2 of complex channel k / 2.

//! params channels components chunk0 x_offset x_sc x_st

const GROUP: i32 = 256;

//! read chunks: array<i32>
//! read x: array<real>
//! read_write sums: array<real>

var<workgroup> plain: array<real, 256>;
var<workgroup> ramped: array<real, 256>;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>) {
    let lane = i32(lid.x);
    let chunk = p.chunk0 + i32(wid.x);
    let k = i32(wid.y);
    let channel = k / p.components;
    let part = k % p.components;
    let start = chunks[chunk * 6];
    let stop = chunks[chunk * 6 + 1];
    // twice the piece's centre, so that r(t) = (2 t - centre2) / 2 exactly
    let centre2 = 2 * chunks[chunk * 6 + 4] + chunks[chunk * 6 + 5] - 1;
    var s0: real = 0.0;
    var s1: real = 0.0;
    for (var t = start + lane; t < stop; t += GROUP) {
        let v = x[(p.x_offset + channel * p.x_sc + t * p.x_st) * p.components + part];
        s0 += v;
        s1 += v * (0.5 * real(2 * t - centre2));
    }
    plain[lane] = s0;
    ramped[lane] = s1;
    workgroupBarrier();
    for (var half = GROUP / 2; half > 0; half /= 2) {
        if (lane < half) {
            plain[lane] += plain[lane + half];
            ramped[lane] += ramped[lane + half];
        }
        workgroupBarrier();
    }
    if (lane == 0) {
        let at = (chunk * p.channels + k) * 2;
        sums[at] = plain[0];
        sums[at + 1] = ramped[0];
    }
}
