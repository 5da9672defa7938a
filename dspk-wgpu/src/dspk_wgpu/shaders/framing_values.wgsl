// stft's last step: each segment's spectrum times `weights` per bin, as
// `value` says (0 complex, 1 power, 2 magnitude, 3 angle), written with
// frequencies along one axis and segments along another of `out`.
// Spectra rows are r = c * segments + s (global), held from row `first`;
// invocation (bin, row0 + y) handles one bin of one row. A one-sided spectrum
// (onesided_nfft > 0, the FFT length) of real data is real at frequency 0 and
// at Nyquist: those imaginary parts, rounding noise, are set to 0 so that
// their angle is 0 or pi exactly.

//! params bins segments first row0 rows_end value out_sc out_sb out_ss z_offset z_sr z_sb
//! params onesided_nfft

//! include atan2

//! read spectra: array<vec2<real>>
//! read weights: array<real>
//! read_write out: array<real>

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let b = i32(id.x);
    let row = p.row0 + i32(id.y);
    if (b >= p.bins || row >= p.rows_end) {
        return;
    }
    var z = spectra[p.z_offset + (row - p.first) * p.z_sr + b * p.z_sb] * weights[b];
    if (p.onesided_nfft > 0 && (b == 0 || 2 * b == p.onesided_nfft)) {
        z.y = 0.0;
    }
    let c = row / p.segments;
    let o = c * p.out_sc + b * p.out_sb + (row - c * p.segments) * p.out_ss;
    switch p.value {
        case 0: {
            out[2 * o] = z.x;
            out[2 * o + 1] = z.y;
        }
        case 1: {
            out[o] = dot(z, z);
        }
        case 2: {
            out[o] = length(z);
        }
        default: {
            out[o] = atan2_real(z.y, z.x);
        }
    }
}
