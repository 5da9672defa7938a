// Partial sums of every (chunk, channel): sum x[t] and sum x[t] * r(t), with
// r(t) = t - centre of the chunk's piece, the centred sample index.
// A workgroup of 256 sums one chunk of one row (lib_detrend_chunks), 256-strided,
// then reduces in workgroup memory.

//! params channels components chunk0 x_offset x_sc x_st

//! include detrend_chunks

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
    let span = chunk_span(chunk);
    var s0: real = 0.0;
    var s1: real = 0.0;
    for (var t = span.x + lane; t < span.y; t += GROUP) {
        let v = row_sample(channel, part, t);
        s0 += v;
        s1 += v * (0.5 * real(2 * t - span.z));
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
