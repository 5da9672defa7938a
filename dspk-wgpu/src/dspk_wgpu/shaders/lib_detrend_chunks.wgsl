// What detrend_sums and detrend_apply share, the same in both precisions.
// `chunks` holds 6 integers per chunk: start, stop, the piece's first chunk,
// its chunk count, its first sample and its length. Row k of the data is
// component k % components of channel k / components (complex data,
// `components` 2, is real data with twice the channels). A workgroup of GROUP
// lanes covers one chunk of one row.

const GROUP: i32 = 256;

// Samples start .. stop (x, y) of chunk `chunk`, and (z) twice the centre of
// its piece, so that the centred index r(t) = (2 t - z) / 2 exactly.
fn chunk_span(chunk: i32) -> vec3<i32> {
    let at = chunk * 6;
    return vec3<i32>(chunks[at], chunks[at + 1], 2 * chunks[at + 4] + chunks[at + 5] - 1);
}

// Sample t of row k = channel * components + part of x.
fn row_sample(channel: i32, part: i32, t: i32) -> real {
    return x[(p.x_offset + channel * p.x_sc + t * p.x_st) * p.components + part];
}
