// One step of a Kogge-Stone scan of the block-to-block state recurrence
//     s[b] = T s[b - 1] + g[b]
// over slots laid out (slot, section, channel, delay), as sos_blocks.wgsl
// writes them, for a cascade of `sections` sections of order `order`. Step
// `distance` d computes, for the slots slot0 .. slot0 + grid y - 1,
//     dst[b] = src[b] + T^d src[b - d]   (b >= d),   dst[b] = src[b]   (b < d),
// with T^d the `power`-th (sections x order)-square matrix of `powers`. A
// workgroup holds WORKGROUP channels (a pipeline-overridable constant).

//! params channels sections order slots distance power slot0

override WORKGROUP: u32;

//! read powers: array<real>
//! read src: array<real>
//! read_write dst: array<real>

// Component i (section i / order, delay i % order) of channel c in slot b.
fn index(slot: i32, i: i32, channel: i32) -> i32 {
    return ((slot * p.sections + i / p.order) * p.channels + channel) * p.order + i % p.order;
}

@compute @workgroup_size(WORKGROUP, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = i32(id.x);
    let b = p.slot0 + i32(id.y);
    if (c >= p.channels || b >= p.slots) {
        return;
    }
    let dim = p.sections * p.order;
    let matrix = p.power * dim * dim;
    for (var i = 0; i < dim; i++) {
        var acc = src[index(b, i, c)];
        if (b >= p.distance) {
            for (var j = 0; j < dim; j++) {
                acc += powers[matrix + i * dim + j] * src[index(b - p.distance, j, c)];
            }
        }
        dst[index(b, i, c)] = acc;
    }
}
