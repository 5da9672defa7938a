// One pass of a radix selection per channel, as channels_square_bins does over
// all squares: the values are x (centred 0, keyed by key_of: negative numbers
// below positive ones) or |x - centre[c]| (centred 1, keyed by their bits,
// bits_of), and every channel has its own prefix (words prefixes[3 c], [3 c + 1])
// and 256 bins (bins[256 c ..]). `mode` 0: count the keys whose bits from
// `shift + 8` up equal the channel's prefix into the bins of bits shift ..
// shift + 8. `mode` 1: the smallest key above the prefix, one 32-bit word at a
// time: word 0 (the high word), or for `word` 1 the low word of those whose
// high word is prefixes[3 c + 2]; into the channel's bins[0]. `mode` 2: count
// the channel's NaNs into its bins[0]. A workgroup of 256 covers 64 chunks of
// 256 samples of one channel, gathers in workgroup memory, and adds to the
// global bins with atomics.

//! params n mode shift:u32 centred block0 x_offset x_sc x_st word:u32

//! include keys
//! include radix_bins

//! read x: array<real>
//! read centre: array<real>
//! read prefixes: array<u32>
//! read_write bins: array<atomic<u32>>

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>) {
    let lane = i32(lid.x);
    let c = i32(wid.y);
    let span = bins_begin(lane, i32(wid.x));
    let prefix = key_from_words(prefixes[3 * c], prefixes[3 * c + 1]);
    let found_high = prefixes[3 * c + 2];
    let m = centre[c];
    for (var t = span.x + lane; t < span.y; t += GROUP) {
        let v = x[p.x_offset + c * p.x_sc + t * p.x_st];
        if (p.mode == 2) {
            if (is_nan(v)) {
                atomicAdd(&local_bins[0], 1u);
            }
            continue;
        }
        var key: Key;
        if (p.centred != 0) {
            key = bits_of(abs(v - m));
        } else {
            key = key_of(v);
        }
        bins_add(key, prefix, found_high);
    }
    workgroupBarrier();
    let mine = atomicLoad(&local_bins[lane]);
    let at = 256 * c + lane;
    if (p.mode == 0) {
        if (mine != 0u) {
            atomicAdd(&bins[at], mine);
        }
    } else if (lane == 0) {
        if (p.mode == 1) {
            atomicMin(&bins[at], mine);
        } else {
            atomicAdd(&bins[at], mine);
        }
    }
}
