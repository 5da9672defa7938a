// Overlap-save's last step: output t of channel c is sample
// t - j * keep + taps - 1 of the inverse-transformed block j = t / keep, row
// r = c * blocks + j (global, held from row `first`); blocks overlap by
// taps - 1 samples, whose circular wrap-around is dropped. Invocation
// (t_begin + x, c_first + y) writes it if its row is in row_begin .. row_end - 1.

//! params keep taps blocks out_len first row_begin row_end frame_len frame_offset y_sc y_st c_first
//! params t_begin

//! read frames: array<real>
//! read_write y: array<real>

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let t = p.t_begin + i32(id.x);
    let c = p.c_first + i32(id.y);
    if (t >= p.out_len) {
        return;
    }
    let j = t / p.keep;
    let row = c * p.blocks + j;
    if (row < p.row_begin || row >= p.row_end) {
        return;
    }
    let i = t - j * p.keep + p.taps - 1;
    y[c * p.y_sc + t * p.y_st] = frames[p.frame_offset + (row - p.first) * p.frame_len + i];
}
