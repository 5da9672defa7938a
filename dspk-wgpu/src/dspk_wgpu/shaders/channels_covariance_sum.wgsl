// Adds the `chunks` slabs of `partial` (from channels_covariance) into the
// covariance sums on and above the diagonal, with Kahan's compensation kept in
// `carry`, so that many chunks lose no accuracy. `first` starts the sums at 0.
// One invocation per element (row i = workgroup y).

//! params channels chunks first

//! read partial: array<real>
//! read_write sums: array<real>
//! read_write carry: array<real>

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = i32(id.y);
    let j = i32(id.x);
    if (j >= p.channels || j < i) {
        return;
    }
    let at = i * p.channels + j;
    var total: real = 0.0;
    var compensation: real = 0.0;
    if (p.first == 0) {
        total = sums[at];
        compensation = carry[at];
    }
    let slab = p.channels * p.channels;
    for (var z = 0; z < p.chunks; z++) {
        let term = partial[z * slab + at] - compensation;
        let next = total + term;
        compensation = (next - total) - term;
        total = next;
    }
    sums[at] = total;
    carry[at] = compensation;
}
