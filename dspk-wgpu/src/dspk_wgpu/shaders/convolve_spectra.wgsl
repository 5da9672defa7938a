// Overlap-save's product of spectra: row r - first of X (rows r = c * blocks +
// j, global) times row c (or row 0 of a single-row H), in place.
// Invocation (bin, row0 + y).

struct Params {
    bins: i32, blocks: i32, first: i32, row0: i32,
    rows_end: i32, h_rows: i32, x_offset: i32, x_sr: i32,
    h_offset: i32, h_sr: i32, _p10: i32, _p11: i32,
    _p12: i32, _p13: i32, _p14: i32, _p15: i32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> h: array<vec2<real>>;
@group(0) @binding(2) var<storage, read_write> x: array<vec2<real>>;

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let b = i32(id.x);
    let row = p.row0 + i32(id.y);
    if (b >= p.bins || row >= p.rows_end) {
        return;
    }
    let c = select(0, row / p.blocks, p.h_rows > 1);
    let k = p.x_offset + (row - p.first) * p.x_sr + b;
    let u = x[k];
    let v = h[p.h_offset + c * p.h_sr + b];
    x[k] = vec2<real>(u.x * v.x - u.y * v.y, u.x * v.y + u.y * v.x);
}
