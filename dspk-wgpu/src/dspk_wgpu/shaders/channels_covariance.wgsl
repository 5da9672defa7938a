// One chunk of samples' share of the channel covariance sum_t xc[i, t] xc[j, t],
// xc = x - mean, for the 16 x 16 tiles on and above the diagonal. The tiles'
// 16 samples at a time of both channel blocks pass through workgroup memory.
// The first chunk writes `sums`; later ones add to it with Kahan's
// compensation (in `carry`), so that many chunks lose no accuracy.

struct Params {
    channels: i32, n: i32, sample0: i32, sample_count: i32,
    first: i32, x_offset: i32, x_sc: i32, x_st: i32,
    _p8: i32, _p9: i32, _p10: i32, _p11: i32,
    _p12: i32, _p13: i32, _p14: i32, _p15: i32,
}

const TILE: i32 = 16;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> mean: array<f32>;
@group(0) @binding(3) var<storage, read_write> sums: array<f32>;
@group(0) @binding(4) var<storage, read_write> carry: array<f32>;

var<workgroup> rows_i: array<array<f32, 16>, 16>;
var<workgroup> rows_j: array<array<f32, 16>, 16>;

fn centred(c: i32, t: i32) -> f32 {
    if (c >= p.channels || t >= p.sample0 + p.sample_count) {
        return 0.0;
    }
    return x[p.x_offset + c * p.x_sc + t * p.x_st] - mean[c];
}

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>) {
    if (wid.y > wid.x) {
        return;
    }
    let tx = i32(lid.x);
    let ty = i32(lid.y);
    let i0 = i32(wid.y) * TILE;
    let j0 = i32(wid.x) * TILE;
    var acc = 0.0;
    for (var s = p.sample0; s < p.sample0 + p.sample_count; s += TILE) {
        rows_i[ty][tx] = centred(i0 + ty, s + tx);
        rows_j[ty][tx] = centred(j0 + ty, s + tx);
        workgroupBarrier();
        for (var u = 0; u < TILE; u++) {
            acc += rows_i[ty][u] * rows_j[tx][u];
        }
        workgroupBarrier();
    }
    let i = i0 + ty;
    let j = j0 + tx;
    if (i >= p.channels || j >= p.channels) {
        return;
    }
    let at = i * p.channels + j;
    if (p.first != 0) {
        sums[at] = acc;
        carry[at] = 0.0;
    } else {
        let term = acc - carry[at];
        let total = sums[at] + term;
        carry[at] = (total - sums[at]) - term;
        sums[at] = total;
    }
}
