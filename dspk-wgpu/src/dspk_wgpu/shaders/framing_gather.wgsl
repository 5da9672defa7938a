// istft's first step: the segments of z (channels, bins, segments; any
// strides, complex) as dense rows r - first = c * segments + s - first of
// (rows, bins), ready for a batched inverse FFT. Invocation (bin, row0 + y).

//! params bins segments first row0 rows_end z_offset z_sc z_sb z_ss

//! read z: array<vec2<real>>
//! read_write rows: array<vec2<real>>

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let b = i32(id.x);
    let row = p.row0 + i32(id.y);
    if (b >= p.bins || row >= p.rows_end) {
        return;
    }
    let c = row / p.segments;
    let s = row - c * p.segments;
    rows[(row - p.first) * p.bins + b] = z[p.z_offset + c * p.z_sc + b * p.z_sb + s * p.z_ss];
}
