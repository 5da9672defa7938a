// y = x - mean - slope * r(t) over one chunk of one channel, per workgroup.
// The first lane adds up the partial sums of the chunk's piece (from
// detrend_sums) into its mean and least-squares slope on the centred index
// r(t), whose squares sum to L (L^2 - 1) / 12; the slope is 0 for `linear` 0.

//! params channels components chunk0 x_offset x_sc x_st y_sc y_st linear

//! include detrend_chunks

//! read chunks: array<i32>
//! read sums: array<real>
//! read x: array<real>
//! read_write y: array<real>

var<workgroup> trend: vec2<real>;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>) {
    let lane = i32(lid.x);
    let chunk = p.chunk0 + i32(wid.x);
    let k = i32(wid.y);
    let channel = k / p.components;
    let part = k % p.components;
    let span = chunk_span(chunk);
    let length = chunks[chunk * 6 + 5];
    if (lane == 0) {
        let first = chunks[chunk * 6 + 2];
        let count = chunks[chunk * 6 + 3];
        var s0: real = 0.0;
        var s1: real = 0.0;
        for (var c = first; c < first + count; c++) {
            s0 += sums[(c * p.channels + k) * 2];
            s1 += sums[(c * p.channels + k) * 2 + 1];
        }
        let n = real(length);
        var slope: real = 0.0;
        if (p.linear != 0 && length > 1) {
            slope = s1 / (n * (n * n - 1.0) / 12.0);
        }
        trend = vec2<real>(s0 / n, slope);
    }
    workgroupBarrier();
    let fit = trend;
    for (var t = span.x + lane; t < span.y; t += GROUP) {
        let v = row_sample(channel, part, t);
        let r = 0.5 * real(2 * t - span.z);
        y[(channel * p.y_sc + t * p.y_st) * p.components + part] = v - fit.x - fit.y * r;
    }
}
