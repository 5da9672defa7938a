// Stockham autosort FFT of complex rows, mixed radix 4, 2, 3 and 5.
//
// Stage rule, for a transform of length n whose first stages have combined
// `span` points (span = 1 at first): the radix is r = 4, 2, 3 or 5, the first
// that divides n / span; butterfly j < n / r reads v[i] = in[j + i n / r],
// multiplies v[i] by w^(i (j % span)) with w = exp(-+2 pi i / (span r)), takes
// the r-point DFT and writes it to out[(j / span) span r + j % span + i span].
// After the last stage `out` holds the transform in natural order.
//
// mode 0 (workgroup): a workgroup loads `per_group` whole transforms into
// workgroup memory (at most 2048 points, 16 KiB), runs every stage there and
// stores them. Transform t = outer * inner_count + inner reads element e at
// in_outer * outer + in_inner * inner + in_step * e and writes it at the same
// form with the out_* strides, optionally times table[inner * e * out_twiddle]
// (the four-step twiddle). `order` bit 0 (1) walks loads (stores) with the
// transform index fastest, so neighbouring lanes touch neighbouring addresses.
// mode 1 (global): one stage of `transforms` dense rows of length n, from `src`
// to `dst`, one butterfly per invocation.
//
// `table` holds exp(-2 pi i t / L) for t < L = n * tw_stride; `inverse` takes
// conjugates. No normalisation is applied here.

struct Params {
    n: i32, tw_stride: i32, transforms: i32, per_group: i32,
    inner_count: i32, in_outer: i32, in_inner: i32, in_step: i32,
    out_outer: i32, out_inner: i32, out_step: i32, inverse: i32,
    out_twiddle: i32, order: i32, mode: i32, span: i32,
}

const WORKGROUP: i32 = 256;
const POINTS: i32 = 2048;
const SIN_PI_3: f32 = 0.8660254037844386;
const COS_2PI_5: f32 = 0.30901699437494745;
const COS_4PI_5: f32 = -0.8090169943749475;
const SIN_2PI_5: f32 = 0.9510565162951535;
const SIN_4PI_5: f32 = 0.5877852522924731;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> table: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read> src: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read_write> dst: array<vec2<f32>>;

var<workgroup> points: array<vec2<f32>, POINTS>;

fn cmul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// exp(-+2 pi i t / L) for table index t: forward, or conjugated when inverse.
fn twiddle(t: i32) -> vec2<f32> {
    let w = table[t];
    return select(w, vec2<f32>(w.x, -w.y), p.inverse != 0);
}

// i z when inverse, -i z when forward: the rotation by the quarter turn.
fn quarter(z: vec2<f32>) -> vec2<f32> {
    return select(vec2<f32>(z.y, -z.x), vec2<f32>(-z.y, z.x), p.inverse != 0);
}

fn radix_of(remaining: i32) -> i32 {
    if (remaining % 4 == 0) { return 4; }
    if (remaining % 2 == 0) { return 2; }
    if (remaining % 3 == 0) { return 3; }
    return 5;
}

// The r-point DFT of v[0 .. r], in the transform's direction.
fn dft(r: i32, v: array<vec2<f32>, 5>) -> array<vec2<f32>, 5> {
    var out = v;
    switch r {
        case 2: {
            out[0] = v[0] + v[1];
            out[1] = v[0] - v[1];
        }
        case 3: {
            let sum = v[1] + v[2];
            let mid = v[0] - 0.5 * sum;
            let turn = quarter(SIN_PI_3 * (v[1] - v[2]));
            out[0] = v[0] + sum;
            out[1] = mid + turn;
            out[2] = mid - turn;
        }
        case 4: {
            let a = v[0] + v[2];
            let b = v[0] - v[2];
            let c = v[1] + v[3];
            let d = quarter(v[1] - v[3]);
            out[0] = a + c;
            out[1] = b + d;
            out[2] = a - c;
            out[3] = b - d;
        }
        case 5: {
            let t1 = v[1] + v[4];
            let t2 = v[2] + v[3];
            let t3 = v[1] - v[4];
            let t4 = v[2] - v[3];
            let m1 = v[0] + COS_2PI_5 * t1 + COS_4PI_5 * t2;
            let m2 = v[0] + COS_4PI_5 * t1 + COS_2PI_5 * t2;
            let n1 = quarter(SIN_2PI_5 * t3 + SIN_4PI_5 * t4);
            let n2 = quarter(SIN_4PI_5 * t3 - SIN_2PI_5 * t4);
            out[0] = v[0] + t1 + t2;
            out[1] = m1 + n1;
            out[2] = m2 + n2;
            out[3] = m2 - n2;
            out[4] = m1 - n1;
        }
        default: {}
    }
    return out;
}

// The butterfly j of a stage: its twiddled inputs' DFT.
fn butterfly(j: i32, r: i32, span: i32, inputs: array<vec2<f32>, 5>) -> array<vec2<f32>, 5> {
    var v = inputs;
    let k = j % span;
    let step = (p.n / (span * r)) * p.tw_stride;
    for (var i = 1; i < r; i++) {
        v[i] = cmul(v[i], twiddle(i * k * step));
    }
    return dft(r, v);
}

fn output_index(j: i32, r: i32, span: i32) -> i32 {
    return (j / span) * span * r + j % span;
}

fn global_stage(index: i32) {
    let r = radix_of(p.n / p.span);
    let stride = p.n / r;
    if (index >= p.transforms * stride) {
        return;
    }
    let row = (index / stride) * p.n;
    let j = index % stride;
    var v: array<vec2<f32>, 5>;
    for (var i = 0; i < r; i++) {
        v[i] = src[row + j + i * stride];
    }
    let out = butterfly(j, r, p.span, v);
    let base = row + output_index(j, r, p.span);
    for (var i = 0; i < r; i++) {
        dst[base + i * p.span] = out[i];
    }
}

// Point q of a workgroup's block: (transform within the block, element).
fn block_point(q: i32, transform_fastest: bool) -> vec2<i32> {
    if (transform_fastest) {
        return vec2<i32>(q % p.per_group, q / p.per_group);
    }
    return vec2<i32>(q / p.n, q % p.n);
}

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lane_id: u32,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
    let group = i32(wid.x + wid.y * groups.x);
    let lane = i32(lane_id);
    if (p.mode == 1) {
        global_stage(group * WORKGROUP + lane);
        return;
    }
    let count = p.per_group * p.n;
    let first = group * p.per_group;
    for (var q = lane; q < count; q += WORKGROUP) {
        let at = block_point(q, (p.order & 1) != 0);
        let t = first + at.x;
        if (t < p.transforms) {
            let outer = t / p.inner_count;
            let inner = t % p.inner_count;
            points[at.x * p.n + at.y] =
                src[p.in_outer * outer + p.in_inner * inner + p.in_step * at.y];
        }
    }
    workgroupBarrier();
    var span = 1;
    while (span < p.n) {
        let r = radix_of(p.n / span);
        let stride = p.n / r;
        let butterflies = count / r;
        // At most 13 values per lane: r * ceil(count / (r * 256)) with count <= 2048.
        var held: array<vec2<f32>, 16>;
        var m = 0;
        for (var b = lane; b < butterflies; b += WORKGROUP) {
            let base = (b / stride) * p.n;
            let j = b % stride;
            var v: array<vec2<f32>, 5>;
            for (var i = 0; i < r; i++) {
                v[i] = points[base + j + i * stride];
            }
            let out = butterfly(j, r, span, v);
            for (var i = 0; i < r; i++) {
                held[m + i] = out[i];
            }
            m += r;
        }
        workgroupBarrier();
        m = 0;
        for (var b = lane; b < butterflies; b += WORKGROUP) {
            let base = (b / stride) * p.n + output_index(b % stride, r, span);
            for (var i = 0; i < r; i++) {
                points[base + i * span] = held[m + i];
            }
            m += r;
        }
        workgroupBarrier();
        span *= r;
    }
    for (var q = lane; q < count; q += WORKGROUP) {
        let at = block_point(q, (p.order & 2) != 0);
        let t = first + at.x;
        if (t < p.transforms) {
            let outer = t / p.inner_count;
            let inner = t % p.inner_count;
            var value = points[at.x * p.n + at.y];
            if (p.out_twiddle != 0) {
                value = cmul(value, twiddle(inner * at.y * p.out_twiddle));
            }
            dst[p.out_outer * outer + p.out_inner * inner + p.out_step * at.y] = value;
        }
    }
}
