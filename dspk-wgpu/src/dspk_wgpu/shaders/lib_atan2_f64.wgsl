// atan2 in float64 from arithmetic and sqrt (Vulkan has no float64 arctangent).
// Two half-angle steps, atan(t) = 2 atan(t / (1 + sqrt(1 + t^2))), take |t| <= 1
// to |u| <= tan(pi / 16) < 0.2, where 12 terms of the odd series of atan reach
// float64's rounding (u^2 < 0.04, 0.04^13 / 27 < 1e-19).
const ATAN2_PI: f64 = 3.141592653589793;

fn atan_unit(t: f64) -> f64 {
    var u = t / (1.0 + sqrt(1.0 + t * t));
    u = u / (1.0 + sqrt(1.0 + u * u));
    let u2 = u * u;
    var series: f64 = 0.0;
    for (var k = 12; k >= 0; k--) {
        series = series * -u2 + 1.0 / f64(2 * k + 1);
    }
    return 4.0 * u * series;
}

// The angle of (x, y) in [-pi, pi], as atan2 (0 for the origin; pi, not -pi,
// for a negative x with y = -0).
fn atan2_real(y: f64, x: f64) -> f64 {
    if (x == 0.0 && y == 0.0) {
        return 0.0;
    }
    if (abs(y) <= abs(x)) {
        let a = atan_unit(y / x);
        if (x > 0.0) {
            return a;
        }
        return select(a - ATAN2_PI, a + ATAN2_PI, y >= 0.0);
    }
    return select(-0.5 * ATAN2_PI, 0.5 * ATAN2_PI, y > 0.0) - atan_unit(x / y);
}
