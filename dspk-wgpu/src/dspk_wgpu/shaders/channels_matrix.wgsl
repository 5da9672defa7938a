// y = W (x - mean) on channels by samples, in tiles: a workgroup of 16 x 16
// computes 16 output channels by 64 samples (4 per lane). The 16 x 16 tiles
// of W and the 16 channels x 64 samples of x they meet pass through workgroup
// memory, 16 input channels at a time.

//! params channels n tile0 x_offset x_sc x_st y_sc y_st

const TILE: i32 = 16;
const WIDE: i32 = 64;

//! read w: array<real>
//! read x: array<real>
//! read mean: array<real>
//! read_write y: array<real>

var<workgroup> w_tile: array<array<real, 16>, 16>;
var<workgroup> x_tile: array<array<real, 64>, 16>;

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>) {
    let tx = i32(lid.x);
    let ty = i32(lid.y);
    let t0 = (p.tile0 + i32(wid.x)) * WIDE;
    let i = i32(wid.y) * TILE + ty;
    var acc = vec4<real>(0.0);
    for (var k0 = 0; k0 < p.channels; k0 += TILE) {
        let k = k0 + tx;
        var weight: real = 0.0;
        if (i < p.channels && k < p.channels) {
            weight = w[i * p.channels + k];
        }
        w_tile[ty][tx] = weight;
        let row = k0 + ty;
        for (var q = 0; q < 4; q++) {
            let t = t0 + tx + TILE * q;
            var v: real = 0.0;
            if (row < p.channels && t < p.n) {
                v = x[p.x_offset + row * p.x_sc + t * p.x_st] - mean[row];
            }
            x_tile[ty][tx + TILE * q] = v;
        }
        workgroupBarrier();
        for (var u = 0; u < TILE; u++) {
            let wu = w_tile[ty][u];
            acc += wu * vec4<real>(x_tile[u][tx], x_tile[u][tx + 16], x_tile[u][tx + 32],
                                  x_tile[u][tx + 48]);
        }
        workgroupBarrier();
    }
    if (i >= p.channels) {
        return;
    }
    for (var q = 0; q < 4; q++) {
        let t = t0 + tx + TILE * q;
        if (t < p.n) {
            y[i * p.y_sc + t * p.y_st] = acc[q];
        }
    }
}
