// Sums of (x - centre[c])^2 over every (chunk, channel): a workgroup of 256 sums
// one chunk of CHUNK samples of one channel, 256-strided, then reduces in
// workgroup memory; the host adds the chunks' sums in float64.

struct Params {
    n: i32, chunk: i32, block0: i32, x_offset: i32,
    x_sc: i32, x_st: i32, channels: i32, _p7: i32,
    _p8: i32, _p9: i32, _p10: i32, _p11: i32,
    _p12: i32, _p13: i32, _p14: i32, _p15: i32,
}

const GROUP: i32 = 256;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<real>;
@group(0) @binding(2) var<storage, read> centre: array<real>;
@group(0) @binding(3) var<storage, read_write> sums: array<real>;

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
