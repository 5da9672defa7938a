// Each chunk's share of the channel covariance sum_t xc[i, t] xc[j, t],
// xc = x - mean, for the 16 x 16 tiles on and above the diagonal: workgroup
// (tile column, tile row, chunk), the chunk's samples 16 at a time of both
// channel blocks passing through workgroup memory. Chunk z of the dispatch
// (chunk `chunk0 + z` of the signal) writes its (channels x channels) slab z
// of `partial`.

//! params channels n chunk_len chunk0 x_offset x_sc x_st

const TILE: i32 = 16;

//! read x: array<real>
//! read mean: array<real>
//! read_write partial: array<real>

var<workgroup> rows_i: array<array<real, 16>, 16>;
var<workgroup> rows_j: array<array<real, 16>, 16>;

fn centred(c: i32, t: i32, stop: i32) -> real {
    if (c >= p.channels || t >= stop) {
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
    let start = (p.chunk0 + i32(wid.z)) * p.chunk_len;
    let stop = min(start + p.chunk_len, p.n);
    var acc: real = 0.0;
    for (var s = start; s < stop; s += TILE) {
        rows_i[ty][tx] = centred(i0 + ty, s + tx, stop);
        rows_j[ty][tx] = centred(j0 + ty, s + tx, stop);
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
    partial[(i32(wid.z) * p.channels + i) * p.channels + j] = acc;
}
