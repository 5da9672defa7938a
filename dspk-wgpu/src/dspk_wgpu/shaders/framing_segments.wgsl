// Segments of an extended signal, detrended, windowed and zero-padded, as rows
// of a dense (rows, nfft) work array ready for a batched FFT.
//
// Row r = row0 + workgroup holds segment s = r % segments of channel
// c = r / segments, stored at row r - first of `frames`: extended samples
// e = s * step .. s * step + nperseg - 1.
// Extended sample e is x[e - left] inside the signal; `left` samples before
// it and `right` after it follow `boundary` (0 zeros, 1 even, 2 odd,
// 3 constant); anything further is zero. Detrend 1 removes the segment's
// mean, 2 its least-squares line (about the segment's centre). Flags: bit 0
// complex input and output (vec2 pairs in the real arrays), bit 1 multiply by
// the window, bit 2 one input channel shared by every row.

//! params n left right boundary step nperseg nfft detrend segments x_offset x_sc x_st row0 flags
//! params first

const LANES: i32 = 256;

//! read x: array<real>
//! read window: array<real>
//! read_write frames: array<real>

// Per lane: (sum of v, sum of (t - centre) v), real and imaginary parts.
var<workgroup> sums: array<vec4<real>, 256>;

fn is_complex() -> bool {
    return (p.flags & 1) != 0;
}

fn load(c: i32, t: i32) -> vec2<real> {
    let i = p.x_offset + c * p.x_sc + t * p.x_st;
    if (is_complex()) {
        return vec2<real>(x[2 * i], x[2 * i + 1]);
    }
    return vec2<real>(x[i], 0.0);
}

// Sample t of channel c with the boundary extension (t may be outside 0 .. n - 1).
fn extended(c: i32, t: i32) -> vec2<real> {
    if (t >= 0 && t < p.n) {
        return load(c, t);
    }
    if (p.boundary == 0 || t < -p.left || t >= p.n + p.right) {
        return vec2<real>(0.0);
    }
    var edge = 0;
    var mirror = -t;
    if (t >= p.n) {
        edge = p.n - 1;
        mirror = 2 * (p.n - 1) - t;
    }
    if (p.boundary == 1) {
        return load(c, mirror);
    }
    if (p.boundary == 2) {
        return 2.0 * load(c, edge) - load(c, mirror);
    }
    return load(c, edge);
}

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>) {
    let lane = i32(lid.x);
    let row = p.row0 + i32(wid.x);
    let s = row % p.segments;
    let c = select(row / p.segments, 0, (p.flags & 4) != 0);
    let start = s * p.step - p.left;
    let centre = 0.5 * real(p.nperseg - 1);
    var mean = vec2<real>(0.0);
    var slope = vec2<real>(0.0);
    if (p.detrend != 0) {
        var acc = vec4<real>(0.0);
        for (var i = lane; i < p.nperseg; i += LANES) {
            let v = extended(c, start + i);
            acc += vec4<real>(v, v * (real(i) - centre));
        }
        sums[lane] = acc;
        workgroupBarrier();
        for (var width = LANES / 2; width > 0; width /= 2) {
            if (lane < width) {
                sums[lane] += sums[lane + width];
            }
            workgroupBarrier();
        }
        let total = sums[0];
        let count = real(p.nperseg);
        mean = total.xy / count;
        if (p.detrend == 2 && p.nperseg > 1) {
            slope = total.zw / (count * (count * count - 1.0) / 12.0);
        }
    }
    let base = (row - p.first) * p.nfft;
    for (var i = lane; i < p.nfft; i += LANES) {
        var v = vec2<real>(0.0);
        if (i < p.nperseg) {
            v = extended(c, start + i) - mean - slope * (real(i) - centre);
            if ((p.flags & 2) != 0) {
                v *= window[i];
            }
        }
        if (is_complex()) {
            frames[2 * (base + i)] = v.x;
            frames[2 * (base + i) + 1] = v.y;
        } else {
            frames[base + i] = v.x;
        }
    }
}
