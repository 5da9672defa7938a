// Sums of (x - centre[c])^2 over every (chunk, channel): a workgroup of 256 sums
// one chunk of CHUNK samples of one channel, 256-strided, then reduces in
// workgroup memory; the host adds the chunks' sums in float64.

//! params n chunk block0 x_offset x_sc x_st channels

const GROUP: i32 = 256;

//! read x: array<real>
//! read centre: array<real>
//! read_write sums: array<real>

var<workgroup> partial: array<real, 256>;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>) {
    let lane = i32(lid.x);
    let chunk = p.block0 + i32(wid.x);
    let c = i32(wid.y);
    let start = chunk * p.chunk;
    let stop = min(start + p.chunk, p.n);
    let m = centre[c];
    var s: real = 0.0;
    for (var t = start + lane; t < stop; t += GROUP) {
        let d = x[p.x_offset + c * p.x_sc + t * p.x_st] - m;
        s += d * d;
    }
    partial[lane] = s;
    workgroupBarrier();
    for (var half = GROUP / 2; half > 0; half /= 2) {
        if (lane < half) {
            partial[lane] += partial[lane + half];
        }
        workgroupBarrier();
    }
    if (lane == 0) {
        sums[chunk * p.channels + c] = partial[0];
    }
}
