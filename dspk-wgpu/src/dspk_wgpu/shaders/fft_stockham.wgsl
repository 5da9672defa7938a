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
// workgroup memory (at most POINTS points, ping-ponged between two halves),
// runs every stage there and stores them. Transform t = outer * inner_count +
// inner reads element e at in_outer * outer + in_inner * inner + in_step * e
// and writes it at the same form with the out_* strides, optionally times
// table[inner * e * out_twiddle] (the four-step twiddle). `order` bit 0 (1)
// walks loads (stores) with the transform index fastest, so neighbouring lanes
// touch neighbouring addresses.
// mode 1 (global): one stage of `transforms` dense rows of length n, from `src`
// to `dst`, one butterfly per invocation.
//
// `table` holds exp(-2 pi i t / L) for t < L = n * tw_stride; `inverse` takes
// conjugates. No normalisation is applied here. Butterflies name their values
// rather than index arrays, which keeps them in registers.

//! params n tw_stride transforms per_group inner_count in_outer in_inner in_step out_outer
//! params out_inner out_step inverse out_twiddle order mode span

const WORKGROUP: i32 = 256;
// Points per workgroup-memory half: 1024, fewer on devices with little
// workgroup memory (set by the loader, as dspk_wgpu.gpu.Gpu.local_points says).
const POINTS: i32 = FFT_POINTS;
const SIN_PI_3: real = 0.8660254037844386;
const COS_2PI_5: real = 0.30901699437494745;
const COS_4PI_5: real = -0.8090169943749475;
const SIN_2PI_5: real = 0.9510565162951535;
const SIN_4PI_5: real = 0.5877852522924731;

//! include complex

//! read table: array<vec2<real>>
//! read src: array<vec2<real>>
//! read_write dst: array<vec2<real>>

// Two halves, the stages' input and output in turn.
var<workgroup> points: array<vec2<real>, 2 * POINTS>;

// exp(-+2 pi i t / L) for table index t: forward, or conjugated when inverse.
fn twiddle(t: i32) -> vec2<real> {
    let w = table[t];
    return select(w, vec2<real>(w.x, -w.y), p.inverse != 0);
}

// i z when inverse, -i z when forward: the rotation by the quarter turn.
fn quarter(z: vec2<real>) -> vec2<real> {
    return select(vec2<real>(z.y, -z.x), vec2<real>(-z.y, z.x), p.inverse != 0);
}

// a / d and a % d for a >= 0, d > 0: a shift and a mask when d is a power of two.
fn divide(a: i32, d: i32) -> vec2<i32> {
    if ((d & (d - 1)) == 0) {
        return vec2<i32>(a >> countTrailingZeros(u32(d)), a & (d - 1));
    }
    return vec2<i32>(a / d, a % d);
}

fn radix_of(remaining: i32) -> i32 {
    if (remaining % 4 == 0) { return 4; }
    if (remaining % 2 == 0) { return 2; }
    if (remaining % 3 == 0) { return 3; }
    return 5;
}

// Element i of a stage's input: `src` (global mode) or workgroup half `side`.
fn fetch(side: i32, i: i32) -> vec2<real> {
    if (p.mode == 1) {
        return src[i];
    }
    return points[side * POINTS + i];
}

// Element i of a stage's output: `dst` (global mode) or workgroup half `side`.
fn put(side: i32, i: i32, value: vec2<real>) {
    if (p.mode == 1) {
        dst[i] = value;
    } else {
        points[side * POINTS + i] = value;
    }
}

// Butterfly j of a radix-r stage on the transform at `base`: reads side
// `side`, twiddles, takes the r-point DFT and writes the other side.
fn butterfly(r: i32, j: i32, span: i32, base: i32, side: i32) {
    let stride = p.n / r;
    let split = divide(j, span);
    let k = split.y;
    let t = k * (stride / span) * p.tw_stride;
    let out = base + split.x * span * r + k;
    let to = 1 - side;
    let a0 = fetch(side, base + j);
    let a1 = cmul(fetch(side, base + j + stride), twiddle(t));
    if (r == 2) {
        put(to, out, a0 + a1);
        put(to, out + span, a0 - a1);
        return;
    }
    let a2 = cmul(fetch(side, base + j + 2 * stride), twiddle(2 * t));
    if (r == 3) {
        let sum = a1 + a2;
        let mid = a0 - 0.5 * sum;
        let turn = quarter(SIN_PI_3 * (a1 - a2));
        put(to, out, a0 + sum);
        put(to, out + span, mid + turn);
        put(to, out + 2 * span, mid - turn);
        return;
    }
    let a3 = cmul(fetch(side, base + j + 3 * stride), twiddle(3 * t));
    if (r == 4) {
        let even_sum = a0 + a2;
        let even_diff = a0 - a2;
        let odd_sum = a1 + a3;
        let odd_diff = quarter(a1 - a3);
        put(to, out, even_sum + odd_sum);
        put(to, out + span, even_diff + odd_diff);
        put(to, out + 2 * span, even_sum - odd_sum);
        put(to, out + 3 * span, even_diff - odd_diff);
        return;
    }
    let a4 = cmul(fetch(side, base + j + 4 * stride), twiddle(4 * t));
    let t1 = a1 + a4;
    let t2 = a2 + a3;
    let t3 = a1 - a4;
    let t4 = a2 - a3;
    let m1 = a0 + COS_2PI_5 * t1 + COS_4PI_5 * t2;
    let m2 = a0 + COS_4PI_5 * t1 + COS_2PI_5 * t2;
    let n1 = quarter(SIN_2PI_5 * t3 + SIN_4PI_5 * t4);
    let n2 = quarter(SIN_4PI_5 * t3 - SIN_2PI_5 * t4);
    put(to, out, a0 + t1 + t2);
    put(to, out + span, m1 + n1);
    put(to, out + 2 * span, m2 + n2);
    put(to, out + 3 * span, m2 - n2);
    put(to, out + 4 * span, m1 - n1);
}

// Point q of a workgroup's block: (transform within the block, element).
fn block_point(q: i32, transform_fastest: bool) -> vec2<i32> {
    if (transform_fastest) {
        return divide(q, p.per_group).yx;
    }
    return divide(q, p.n);
}

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_index) lane_id: u32,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
    let group = i32(wid.x + wid.y * groups.x);
    let lane = i32(lane_id);
    if (p.mode == 1) {
        let r = radix_of(p.n / p.span);
        let j = group * WORKGROUP + lane;
        if (j < p.transforms * (p.n / r)) {
            let split = divide(j, p.n / r);
            butterfly(r, split.y, p.span, split.x * p.n, 0);
        }
        return;
    }
    let count = p.per_group * p.n;
    let first = group * p.per_group;
    for (var q = lane; q < count; q += WORKGROUP) {
        let at = block_point(q, (p.order & 1) != 0);
        let t = first + at.x;
        if (t < p.transforms) {
            let place = divide(t, p.inner_count);
            points[at.x * p.n + at.y] =
                src[p.in_outer * place.x + p.in_inner * place.y + p.in_step * at.y];
        }
    }
    workgroupBarrier();
    var side = 0;
    var span = 1;
    while (span < p.n) {
        let r = radix_of(p.n / span);
        let stride = p.n / r;
        for (var b = lane; b < count / r; b += WORKGROUP) {
            let split = divide(b, stride);
            butterfly(r, split.y, span, split.x * p.n, side);
        }
        workgroupBarrier();
        side = 1 - side;
        span *= r;
    }
    for (var q = lane; q < count; q += WORKGROUP) {
        let at = block_point(q, (p.order & 2) != 0);
        let t = first + at.x;
        if (t < p.transforms) {
            let place = divide(t, p.inner_count);
            var value = fetch(side, at.x * p.n + at.y);
            if (p.out_twiddle != 0) {
                value = cmul(value, twiddle(place.y * at.y * p.out_twiddle));
            }
            dst[p.out_outer * place.x + p.out_inner * place.y + p.out_step * at.y] = value;
        }
    }
}
