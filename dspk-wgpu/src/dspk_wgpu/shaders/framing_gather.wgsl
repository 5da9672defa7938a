// istft's first step: the segments of z (channels, bins, segments; any
// strides, complex) as dense rows r - first = c * segments + s - first of
// (rows, bins), ready for a batched inverse FFT. Invocation (bin, row0 + y).

struct Params {
    bins: i32, segments: i32, first: i32, row0: i32,
    rows_end: i32, z_offset: i32, z_sc: i32, z_sb: i32,
    z_ss: i32, _p9: i32, _p10: i32, _p11: i32,
    _p12: i32, _p13: i32, _p14: i32, _p15: i32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> z: array<vec2<real>>;
@group(0) @binding(2) var<storage, read_write> rows: array<vec2<real>>;

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
