// Multiplies the first `count` bins of every spectrum row (row stride `rs`,
// complex elements) in place:
// mode 0: by the analytic-signal weights of an n-point spectrum: 1 at bin 0
//         (and n / 2 when n is even), 2 below n / 2, 0 above;
// mode 1: by the real weight table[k] of bin k;
// mode 2: by a rotation exp(-2 pi i k d / L) for the row's delay of d samples
//         (a spectrum of L points): the product over the set bits j of k of
//         the row's factor j, table[2 (row n + j) + (0, 1)] (n factors a row,
//         complex; computed on the host, so no shader needs a cosine).

//! params mode rows count rs n

//! include complex

//! read table: array<real>
//! read_write spectrum: array<vec2<real>>

fn analytic_weight(k: i32) -> real {
    if (k == 0 || 2 * k == p.n) {
        return 1.0;
    }
    return select(real(0.0), real(2.0), 2 * k < p.n);
}

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
    let index = i32(id.x + id.y * groups.x * 256u);
    if (index >= p.rows * p.count) {
        return;
    }
    let row = index / p.count;
    let k = index % p.count;
    let at = row * p.rs + k;
    switch p.mode {
        case 0: {
            spectrum[at] *= analytic_weight(k);
        }
        case 1: {
            spectrum[at] *= table[k];
        }
        default: {
            var rotation = vec2<real>(1.0, 0.0);
            var bits = k;
            for (var j = 0; bits != 0; j++) {
                if ((bits & 1) != 0) {
                    let f = 2 * (row * p.n + j);
                    let w = vec2<real>(table[f], table[f + 1]);
                    rotation = cmul(rotation, w);
                }
                bits = bits >> 1u;
            }
            spectrum[at] = cmul(spectrum[at], rotation);
        }
    }
}
