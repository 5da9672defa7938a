// A dense copy of a strided view of up to 4 dimensions, counted in 32-bit words:
//     dst[i] = src[offset + sum_k index_k(i) * stride_k],
// with index_3 varying fastest. Elements of several words (complex64, float64,
// complex128) arrive with a last dimension of their words, of stride 1. Words
// are copied as u32, bit for bit, whatever the dtype.

//! params total offset first _p3 shape0 shape1 shape2 shape3 stride0 stride1 stride2 stride3

//! read src: array<u32>
//! read_write dst: array<u32>

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = p.first + i32(id.x);
    if (i >= p.total) {
        return;
    }
    var rest = i;
    let i3 = rest % p.shape3;
    rest = rest / p.shape3;
    let i2 = rest % p.shape2;
    rest = rest / p.shape2;
    let i1 = rest % p.shape1;
    let i0 = rest / p.shape1;
    dst[i] = src[p.offset + i0 * p.stride0 + i1 * p.stride1 + i2 * p.stride2 + i3 * p.stride3];
}
