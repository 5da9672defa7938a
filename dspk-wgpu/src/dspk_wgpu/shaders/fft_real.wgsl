// The real FFT of even length n through a complex FFT of length h = n / 2.
//
// With z = x[2k] + i x[2k+1] and Z its h-point FFT (Z[h] = Z[0]), the
// one-sided spectrum is, for k <= h, with w = exp(-2 pi i k / n) = table[k]:
//     X[k] = (Z[k] + conj Z[h-k]) / 2 - i w (Z[k] - conj Z[h-k]) / 2.
// mode 0 (after rfft's FFT): writes X[k], times `scale` (the sum of the three
//     float32 numbers whose bits are scale, scale_mid and scale_lo), to `outv`.
// mode 1 (before irfft's inverse FFT): from X[k] (k < x_len, else 0; the
//     imaginary parts of X[0] and X[h] ignored) forms
//     Z[k] = (X[k] + conj X[h-k]) + i conj(w) (X[k] - conj X[h-k]),  k < h,
//     whose unnormalised inverse FFT holds n x[2j] + i n x[2j+1].
// Views count complex elements: offset, row stride, step.

//! params mode rows half scale in_offset in_rs in_step x_len out_offset out_rs out_step scale_mid
//! params scale_lo

//! include complex

//! read table: array<vec2<real>>
//! read inv: array<vec2<real>>
//! read_write outv: array<vec2<real>>

fn spectrum(row: i32, k: i32) -> vec2<real> {
    if (k >= p.x_len) {
        return vec2<real>(0.0, 0.0);
    }
    let value = inv[p.in_offset + row * p.in_rs + k * p.in_step];
    if (k == 0 || k == p.half) {
        return vec2<real>(value.x, 0.0);
    }
    return value;
}

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
    let index = i32(id.x + id.y * groups.x * 256u);
    let width = select(p.half, p.half + 1, p.mode == 0);
    if (index >= p.rows * width) {
        return;
    }
    let row = index / width;
    let k = index % width;
    let w = table[k];
    if (p.mode == 0) {
        let a = inv[p.in_offset + row * p.in_rs + (k % p.half) * p.in_step];
        let b = conj(inv[p.in_offset + row * p.in_rs + ((p.half - k) % p.half) * p.in_step]);
        let odd = cmul(w, a - b);
        let value = 0.5 * (a + b + vec2<real>(odd.y, -odd.x));
        let scale = real(bitcast<f32>(p.scale)) + real(bitcast<f32>(p.scale_mid))
                    + real(bitcast<f32>(p.scale_lo));
        outv[p.out_offset + row * p.out_rs + k * p.out_step] = scale * value;
    } else {
        let a = spectrum(row, k);
        let b = conj(spectrum(row, p.half - k));
        let odd = cmul(conj(w), a - b);
        outv[p.out_offset + row * p.out_rs + k * p.out_step] = a + b + vec2<real>(-odd.y, odd.x);
    }
}
