// atan2 in float32: WGSL's built-in.
fn atan2_real(y: f32, x: f32) -> f32 {
    return atan2(y, x);
}
