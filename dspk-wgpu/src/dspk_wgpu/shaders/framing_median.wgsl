// The median over segments of conj(X) Y (cross = 1, real and imaginary parts
// apart) or |X|^2 (cross = 0), times weights, by bisection on the values'
// order-preserving keys (lib_keys: KEY_BITS = 32 in float32, 64 in float64):
// no sorting and no per-invocation arrays.
//
// One invocation is one (channel, bin); spectra rows are r = c * segments + s
// counted from the block's first channel `c0`. Pass `step` 0 .. KEY_BITS - 1
// halves the key range [lo, hi] that holds the k-th smallest value (k =
// (segments - 1) / 2) by counting the values with key <= mid; pass KEY_BITS
// counts the values with key <= lo and finds the smallest key above it, which
// gives the (k + 1)-th value that an even count averages with the k-th. A
// pass may be cut into chunks of segments (seg_begin .. seg_end); counts carry
// between them in `state`: per (channel, bin) SLOT words, lo, hi and the
// smallest key above (two words each, for both parts) and the two counts.

//! params bins segments c0 step seg_begin seg_end cross out_sc out_sb x_offset x_sr x_sb y_offset
//! params y_sr y_sb

const SLOT: i32 = 14;

//! include keys

//! read xs: array<vec2<real>>
//! read ys: array<vec2<real>>
//! read weights: array<real>
//! read_write state: array<u32>
//! read_write out: array<real>

// Segment s's product, both parts (the imaginary part is 0 without cross).
fn product(r: i32, b: i32) -> vec2<real> {
    let u = xs[p.x_offset + r * p.x_sr + b * p.x_sb];
    if (p.cross != 0) {
        let v = ys[p.y_offset + r * p.y_sr + b * p.y_sb];
        return vec2<real>(u.x * v.x + u.y * v.y, u.x * v.y - u.y * v.x);
    }
    return vec2<real>(dot(u, u), 0.0);
}

fn load_key(at: i32) -> Key {
    return key_from_words(state[at], state[at + 1]);
}

fn store_key(at: i32, k: Key) {
    state[at] = key_word(k, 0u);
    state[at + 1] = key_word(k, 1u);
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let b = i32(id.x);
    let c = p.c0 + i32(id.y);
    if (b >= p.bins) {
        return;
    }
    // words: lo re, hi re, lo im, hi im, above re, above im (two each), counts re, im
    let slot = SLOT * (i32(id.y) * p.bins + b);
    var lo_re = KEY_LOWEST;
    var hi_re = KEY_HIGHEST;
    var lo_im = KEY_LOWEST;
    var hi_im = KEY_HIGHEST;
    if (p.seg_begin != 0 || p.step != 0) {
        lo_re = load_key(slot);
        hi_re = load_key(slot + 2);
        lo_im = load_key(slot + 4);
        hi_im = load_key(slot + 6);
    }
    var above_re = KEY_HIGHEST;
    var above_im = KEY_HIGHEST;
    var count_re = 0u;
    var count_im = 0u;
    if (p.seg_begin != 0) {
        above_re = load_key(slot + 8);
        above_im = load_key(slot + 10);
        count_re = state[slot + 12];
        count_im = state[slot + 13];
    }
    let final_pass = p.step == i32(KEY_BITS);
    let mid_re = select(key_midpoint(lo_re, hi_re), lo_re, final_pass);
    let mid_im = select(key_midpoint(lo_im, hi_im), lo_im, final_pass);
    for (var s = p.seg_begin; s < p.seg_end; s++) {
        let v = product((c - p.c0) * p.segments + s, b);
        let key_re = key_of(v.x);
        let key_im = key_of(v.y);
        if (key_less(mid_re, key_re)) {
            above_re = key_min(above_re, key_re);
        } else {
            count_re += 1u;
        }
        if (key_less(mid_im, key_im)) {
            above_im = key_min(above_im, key_im);
        } else {
            count_im += 1u;
        }
    }
    let k = u32((p.segments - 1) / 2);
    if (p.seg_end == p.segments && !final_pass) {
        let enough_re = count_re >= k + 1u;
        let enough_im = count_im >= k + 1u;
        hi_re = select(hi_re, mid_re, enough_re);
        lo_re = select(key_next(mid_re), lo_re, enough_re);
        hi_im = select(hi_im, mid_im, enough_im);
        lo_im = select(key_next(mid_im), lo_im, enough_im);
    }
    if (p.seg_end < p.segments || !final_pass) {
        store_key(slot, lo_re);
        store_key(slot + 2, hi_re);
        store_key(slot + 4, lo_im);
        store_key(slot + 6, hi_im);
        store_key(slot + 8, above_re);
        store_key(slot + 10, above_im);
        state[slot + 12] = count_re;
        state[slot + 13] = count_im;
        return;
    }
    var median = vec2<real>(value_of(lo_re), value_of(lo_im));
    if (p.segments % 2 == 0) {
        // The (k + 1)-th value is the k-th again when it repeats, else the next key up.
        let next = vec2<real>(select(value_of(above_re), median.x, count_re >= k + 2u),
                              select(value_of(above_im), median.y, count_im >= k + 2u));
        median = 0.5 * (median + next);
    }
    median *= weights[b];
    let o = c * p.out_sc + b * p.out_sb;
    if (p.cross != 0) {
        out[2 * o] = median.x;
        out[2 * o + 1] = median.y;
    } else {
        out[o] = median.x;
    }
}
