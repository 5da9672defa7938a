// The mean over segments of conj(X) Y (cross = 1) or |X|^2 (cross = 0), times
// weights, for spectra held in rows r = c * segments + s (global row numbers;
// the spectra buffers hold rows from `first`). One invocation is one
// (channel, bin) and sums the rows row_begin .. row_end - 1 of its channel.
// A channel's segments may span several dispatches: the dispatch holding its
// segment 0 writes, later ones add, and the one holding its last segment
// scales by weight / segments. `out` is real (cross = 0) or complex pairs.

//! params bins segments first row_begin row_end cross out_sc out_sb c_first x_offset x_sr x_sb
//! params y_offset y_sr y_sb

//! read xs: array<vec2<real>>
//! read ys: array<vec2<real>>
//! read weights: array<real>
//! read_write out: array<real>

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let b = i32(id.x);
    let c = p.c_first + i32(id.y);
    if (b >= p.bins) {
        return;
    }
    let s_begin = max(p.row_begin - c * p.segments, 0);
    let s_end = min(p.row_end - c * p.segments, p.segments);
    var acc = vec2<real>(0.0);
    for (var s = s_begin; s < s_end; s++) {
        let r = c * p.segments + s - p.first;
        let u = xs[p.x_offset + r * p.x_sr + b * p.x_sb];
        if (p.cross != 0) {
            let v = ys[p.y_offset + r * p.y_sr + b * p.y_sb];
            acc += vec2<real>(u.x * v.x + u.y * v.y, u.x * v.y - u.y * v.x);
        } else {
            acc.x += dot(u, u);
        }
    }
    let o = c * p.out_sc + b * p.out_sb;
    if (p.cross != 0) {
        if (s_begin > 0) {
            acc += vec2<real>(out[2 * o], out[2 * o + 1]);
        }
        if (s_end == p.segments) {
            acc *= weights[b] / real(p.segments);
        }
        out[2 * o] = acc.x;
        out[2 * o + 1] = acc.y;
    } else {
        if (s_begin > 0) {
            acc.x += out[o];
        }
        if (s_end == p.segments) {
            acc.x *= weights[b] / real(p.segments);
        }
        out[o] = acc.x;
    }
}
