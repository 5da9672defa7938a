// Bluestein's pointwise products: out[row, k] = in[row, k] * table[k] for
// k < in_len, 0 for in_len <= k < length (a crop or zero padding of each row).

//! params rows length in_len in_rs

//! include complex

//! read table: array<vec2<real>>
//! read src: array<vec2<real>>
//! read_write dst: array<vec2<real>>

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
        value = cmul(src[row * p.in_rs + k], table[k]);
    }
    dst[index] = value;
}
