// istft's overlap-add as a gather: output sample u of channel c (before the
// trim) sums window[u - s step] frames[c, s][u - s step] over the segments s
// that cover it, so no two invocations write one sample. Frames are rows
// r = c * segments + s (global) of length `frame_len`, held from row `first`;
// a dispatch sums only the rows row_begin .. row_end - 1. The dispatch that
// holds a sample's first segment writes it, later ones add, and the one with
// its last segment divides by divisor[u - trim]. Only u in trim .. trim +
// out_len - 1 is kept. Complex frames (complex = 1) are vec2 pairs.

//! params nperseg step segments trim out_len first row_begin row_end complex frame_len c_first
//! params u_begin

//! read frames: array<real>
//! read window: array<real>
//! read divisor: array<real>
//! read_write out: array<real>

fn frame(r: i32, i: i32) -> vec2<real> {
    let k = (r - p.first) * p.frame_len + i;
    if (p.complex != 0) {
        return vec2<real>(frames[2 * k], frames[2 * k + 1]);
    }
    return vec2<real>(frames[k], 0.0);
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let u = p.u_begin + i32(id.x);
    let c = p.c_first + i32(id.y);
    if (u < p.trim || u >= p.trim + p.out_len) {
        return;
    }
    let s_first = select(0, (u - p.nperseg) / p.step + 1, u >= p.nperseg);
    let s_last = min(p.segments - 1, u / p.step);
    let s_begin = max(s_first, p.row_begin - c * p.segments);
    let s_end = min(s_last + 1, p.row_end - c * p.segments);
    if (s_begin >= s_end) {
        return;
    }
    var acc = vec2<real>(0.0);
    for (var s = s_begin; s < s_end; s++) {
        let i = u - s * p.step;
        acc += window[i] * frame(c * p.segments + s, i);
    }
    let o = c * p.out_len + u - p.trim;
    if (s_begin > s_first) {
        if (p.complex != 0) {
            acc += vec2<real>(out[2 * o], out[2 * o + 1]);
        } else {
            acc.x += out[o];
        }
    }
    if (s_end == s_last + 1) {
        acc /= divisor[u - p.trim];
    }
    if (p.complex != 0) {
        out[2 * o] = acc.x;
        out[2 * o + 1] = acc.y;
    } else {
        out[o] = acc.x;
    }
}
