// Scatters FFT results from a complex work array (rows, row stride work_rs) to
// an output view, times `scale` (the sum of three float32 numbers, whose bits are
// scale, scale_mid and scale_lo: exact in float64): output sample j of a row comes
// from work position j + skip.
// mode 0: complex output.
// mode 1: the real part, as real output.
// mode 2: real output unpacked from pairs: real sample s = j + skip is the
//         real (s even) or imaginary (s odd) part of work[s / 2].

//! params mode rows length work_rs skip y_offset y_rs y_step scale scale_mid scale_lo

//! read work: array<vec2<real>>
//! read_write y: array<real>

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
    let index = i32(id.x + id.y * groups.x * 256u);
    if (index >= p.rows * p.length) {
        return;
    }
    let row = index / p.length;
    let s = index % p.length + p.skip;
    let scale = real(bitcast<f32>(p.scale)) + real(bitcast<f32>(p.scale_mid))
                + real(bitcast<f32>(p.scale_lo));
    let e = p.y_offset + row * p.y_rs + (index % p.length) * p.y_step;
    switch p.mode {
        case 0: {
            let value = scale * work[row * p.work_rs + s];
            y[2 * e] = value.x;
            y[2 * e + 1] = value.y;
        }
        case 1: {
            y[e] = scale * work[row * p.work_rs + s].x;
        }
        default: {
            let pair = work[row * p.work_rs + s / 2];
            y[e] = scale * select(pair.y, pair.x, s % 2 == 0);
        }
    }
}
