// Unwraps angles in place along frequency, as numpy.unwrap: where a step
// between neighbouring bins exceeds pi in size, later bins shift by the
// multiple of 2 pi that brings the step into [-pi, pi]. One invocation is one
// (channel, segment) line, c * segments + s; it walks bins bin_begin ..
// bin_end - 1 and carries (previous raw angle, total shift) in `carry` to the
// next dispatch.

//! params lines segments bin_begin bin_end out_sc out_sb out_ss line0

const PI: real = 3.141592653589793;

//! read_write carry: array<vec2<real>>
//! read_write out: array<real>

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let line = p.line0 + i32(id.x);
    if (line >= p.lines) {
        return;
    }
    let c = line / p.segments;
    let base = c * p.out_sc + (line - c * p.segments) * p.out_ss;
    var previous = out[base + p.bin_begin * p.out_sb];
    var shift: real = 0.0;
    var b = p.bin_begin;
    if (b == 0) {
        b = 1;
    } else {
        previous = carry[line].x;
        shift = carry[line].y;
    }
    for (; b < p.bin_end; b++) {
        let raw = out[base + b * p.out_sb];
        let step = raw - previous;
        var wrapped = step + PI - 2.0 * PI * floor((step + PI) / (2.0 * PI)) - PI;
        if (wrapped == -PI && step > 0.0) {
            wrapped = PI;
        }
        if (abs(step) >= PI) {
            shift += wrapped - step;
        }
        previous = raw;
        out[base + b * p.out_sb] = raw + shift;
    }
    carry[line] = vec2<real>(previous, shift);
}
