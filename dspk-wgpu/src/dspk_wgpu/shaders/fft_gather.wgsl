// Gathers the input of an FFT into a dense (rows, length) complex work array.
//
// Sample t of a row is x[x_offset + row * x_rs + (t - pad) * x_step] when
// 0 <= t - pad < x_len, else 0 (a crop or zero padding, and `pad` leading
// zeros); x is real, or complex (two reals) when `complex_in` is 1.
// mode 0: work[k] = sample k.
// mode 1: work[k] = sample 2k + i sample 2k+1 (real input packed in pairs, for
//         the real FFT through a half-length complex FFT).
// mode 2: work[k] = sample k for k <= length / 2, else conj(sample length - k)
//         (the Hermitian extension of a one-sided spectrum, odd length).

//! params mode complex_in rows length x_offset x_rs x_step x_len pad

//! include complex

//! read x: array<real>
//! read_write work: array<vec2<real>>

fn sample(row: i32, t: i32) -> vec2<real> {
    let s = t - p.pad;
    if (s < 0 || s >= p.x_len) {
        return vec2<real>(0.0, 0.0);
    }
    let e = p.x_offset + row * p.x_rs + s * p.x_step;
    if (p.complex_in != 0) {
        return vec2<real>(x[2 * e], x[2 * e + 1]);
    }
    return vec2<real>(x[e], 0.0);
}

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
    let index = i32(id.x + id.y * groups.x * 256u);
    if (index >= p.rows * p.length) {
        return;
    }
    let row = index / p.length;
    let k = index % p.length;
    var value: vec2<real>;
    switch p.mode {
        case 1: {
            value = vec2<real>(sample(row, 2 * k).x, sample(row, 2 * k + 1).x);
        }
        case 2: {
            if (2 * k <= p.length) {
                value = sample(row, k);
            } else {
                value = conj(sample(row, p.length - k));
            }
        }
        default: {
            value = sample(row, k);
        }
    }
    work[index] = value;
}
