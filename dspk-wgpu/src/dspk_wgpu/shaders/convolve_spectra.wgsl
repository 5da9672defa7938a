// Overlap-save's product of spectra: row r - first of X (rows r = c * blocks +
// j, global) times row c (or row 0 of a single-row H), in place.
// Invocation (bin, row0 + y).

//! params bins blocks first row0 rows_end h_rows x_offset x_sr h_offset h_sr

//! include complex

//! read h: array<vec2<real>>
//! read_write x: array<vec2<real>>

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let b = i32(id.x);
    let row = p.row0 + i32(id.y);
    if (b >= p.bins || row >= p.rows_end) {
        return;
    }
    let c = select(0, row / p.blocks, p.h_rows > 1);
    let k = p.x_offset + (row - p.first) * p.x_sr + b;
    x[k] = cmul(x[k], h[p.h_offset + c * p.h_sr + b]);
}
