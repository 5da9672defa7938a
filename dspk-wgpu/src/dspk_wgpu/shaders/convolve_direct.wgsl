// Full direct convolution, y[c, t] = sum_j h[row, j] x[c, t - j], in tiles:
// a workgroup of TILE invocations (WORKGROUP, a pipeline-overridable constant)
// computes TILE outputs of one channel; taps `tap0 .. tap0 + tap_count` pass
// through workgroup memory TILE at a time beside the 2 TILE - 1 input samples
// they meet. A dispatch covers a bounded range of taps; later ranges add to `y`.

//! params n taps h_rows out_len tap0 tap_count accumulate x_offset x_sc x_st y_sc y_st h_offset
//! params h_sr h_st tile0

override WORKGROUP: u32;
override TILE: i32 = i32(WORKGROUP);
override SPAN: u32 = 2u * WORKGROUP;

//! read x: array<real>
//! read h: array<real>
//! read_write y: array<real>

var<workgroup> taps_tile: array<real, WORKGROUP>;
var<workgroup> x_tile: array<real, SPAN>;

fn sample(c: i32, t: i32) -> real {
    if (t < 0 || t >= p.n) {
        return 0.0;
    }
    return x[p.x_offset + c * p.x_sc + t * p.x_st];
}

@compute @workgroup_size(WORKGROUP, 1, 1)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>) {
    let lane = i32(lid.x);
    let c = i32(wid.y);
    let t0 = (p.tile0 + i32(wid.x)) * TILE;
    let t = t0 + lane;
    let row = select(0, c, p.h_rows > 1);
    let tap_end = p.tap0 + p.tap_count;
    var acc: real = 0.0;
    for (var j0 = p.tap0; j0 < tap_end; j0 += TILE) {
        let j = j0 + lane;
        var tap: real = 0.0;
        if (j < tap_end) {
            tap = h[p.h_offset + row * p.h_sr + j * p.h_st];
        }
        taps_tile[lane] = tap;
        let base = t0 - j0 - (TILE - 1);
        x_tile[lane] = sample(c, base + lane);
        x_tile[lane + TILE] = sample(c, base + lane + TILE);
        workgroupBarrier();
        let count = min(TILE, tap_end - j0);
        for (var m = 0; m < count; m++) {
            acc += taps_tile[m] * x_tile[lane + TILE - 1 - m];
        }
        workgroupBarrier();
    }
    if (t < p.out_len) {
        let k = c * p.y_sc + t * p.y_st;
        if (p.accumulate != 0) {
            y[k] += acc;
        } else {
            y[k] = acc;
        }
    }
}
