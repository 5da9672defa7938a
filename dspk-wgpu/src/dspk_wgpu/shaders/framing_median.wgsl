// The median over segments of conj(X) Y (cross = 1, real and imaginary parts
// apart) or |X|^2 (cross = 0), times weights, by bisection on the values'
// order-preserving 32-bit keys: no sorting and no per-invocation arrays.
//
// One invocation is one (channel, bin); spectra rows are r = c * segments + s
// counted from the block's first channel `c0`. Pass `step` 0 .. 31 halves the
// key range [lo, hi] that holds the k-th smallest value (k = (segments - 1) / 2)
// by counting the values with key <= mid; pass 32 counts the values with key
// <= lo and finds the smallest key above it, which gives the (k + 1)-th value
// that an even count averages with the k-th. A pass may be cut into chunks
// of segments (seg_begin .. seg_end); counts carry between them in `state`:
// per (channel, bin) lo, hi, count and smallest key above, for both parts.

struct Params {
    bins: i32, segments: i32, c0: i32, step: i32,
    seg_begin: i32, seg_end: i32, cross: i32, out_sc: i32,
    out_sb: i32, x_offset: i32, x_sr: i32, x_sb: i32,
    y_offset: i32, y_sr: i32, y_sb: i32, _p15: i32,
}

const FINAL: i32 = 32;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> xs: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read> ys: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read> weights: array<f32>;
@group(0) @binding(4) var<storage, read_write> state: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;

fn key(v: f32) -> u32 {
    let bits = bitcast<u32>(v);
    return select(bits | 0x80000000u, ~bits, (bits & 0x80000000u) != 0u);
}

fn value(k: u32) -> f32 {
    return bitcast<f32>(select(~k, k & 0x7fffffffu, (k & 0x80000000u) != 0u));
}

// Segment s's product, both parts (the imaginary part is 0 without cross).
fn product(r: i32, b: i32) -> vec2<f32> {
    let u = xs[p.x_offset + r * p.x_sr + b * p.x_sb];
    if (p.cross != 0) {
        let v = ys[p.y_offset + r * p.y_sr + b * p.y_sb];
        return vec2<f32>(u.x * v.x + u.y * v.y, u.x * v.y - u.y * v.x);
    }
    return vec2<f32>(dot(u, u), 0.0);
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let b = i32(id.x);
    let c = p.c0 + i32(id.y);
    if (b >= p.bins) {
        return;
    }
    let slot = 2 * (i32(id.y) * p.bins + b);
    // bounds: (lo_re, hi_re, lo_im, hi_im); tally: (count_re, count_im, above_re, above_im)
    var bounds = state[slot];
    var tally = state[slot + 1];
    if (p.seg_begin == 0) {
        if (p.step == 0) {
            bounds = vec4<u32>(0u, 0xffffffffu, 0u, 0xffffffffu);
        }
        tally = vec4<u32>(0u, 0u, 0xffffffffu, 0xffffffffu);
    }
    var mid = bounds.xz + (bounds.yw - bounds.xz) / 2u;
    if (p.step == FINAL) {
        mid = bounds.xz;
    }
    for (var s = p.seg_begin; s < p.seg_end; s++) {
        let v = product((c - p.c0) * p.segments + s, b);
        let keys = vec2<u32>(key(v.x), key(v.y));
        tally.x += u32(keys.x <= mid.x);
        tally.y += u32(keys.y <= mid.y);
        if (keys.x > mid.x) {
            tally.z = min(tally.z, keys.x);
        }
        if (keys.y > mid.y) {
            tally.w = min(tally.w, keys.y);
        }
    }
    if (p.seg_end < p.segments) {
        state[slot] = bounds;
        state[slot + 1] = tally;
        return;
    }
    let k = u32((p.segments - 1) / 2);
    if (p.step < FINAL) {
        let enough = tally.xy >= vec2<u32>(k + 1u);
        bounds = vec4<u32>(select(mid.x + 1u, bounds.x, enough.x),
                           select(bounds.y, mid.x, enough.x),
                           select(mid.y + 1u, bounds.z, enough.y),
                           select(bounds.w, mid.y, enough.y));
        state[slot] = bounds;
        state[slot + 1] = tally;
        return;
    }
    var median = vec2<f32>(value(bounds.x), value(bounds.z));
    if (p.segments % 2 == 0) {
        // The (k + 1)-th value is the k-th again when it repeats, else the next key up.
        let repeats = tally.xy >= vec2<u32>(k + 2u);
        let next = vec2<f32>(select(value(tally.z), median.x, repeats.x),
                             select(value(tally.w), median.y, repeats.y));
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
