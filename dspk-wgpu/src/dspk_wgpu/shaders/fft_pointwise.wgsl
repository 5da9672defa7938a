// Bluestein's pointwise products: out[row, k] = in[row, k] * table[k] for
// k < in_len, 0 for in_len <= k < length (a crop or zero padding of each row).

struct Params {
    rows: i32, length: i32, in_len: i32, in_rs: i32,
    _p4: i32, _p5: i32, _p6: i32, _p7: i32,
    _p8: i32, _p9: i32, _p10: i32, _p11: i32,
    _p12: i32, _p13: i32, _p14: i32, _p15: i32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> table: array<vec2<real>>;
@group(0) @binding(2) var<storage, read> src: array<vec2<real>>;
@group(0) @binding(3) var<storage, read_write> dst: array<vec2<real>>;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
    let index = i32(id.x + id.y * groups.x * 256u);
    if (index >= p.rows * p.length) {
        return;
    }
    let row = index / p.length;
    let k = index % p.length;
    var value = vec2<real>(0.0, 0.0);
    if (k < p.in_len) {
        let a = src[row * p.in_rs + k];
        let b = table[k];
        value = vec2<real>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
    }
    dst[index] = value;
}
