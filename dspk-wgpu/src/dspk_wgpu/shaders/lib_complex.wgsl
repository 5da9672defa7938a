// Complex numbers as vec2<real> (real part x, imaginary part y), the same in
// both precisions.

fn cmul(a: vec2<real>, b: vec2<real>) -> vec2<real> {
    return vec2<real>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

fn conj(a: vec2<real>) -> vec2<real> {
    return vec2<real>(a.x, -a.y);
}
