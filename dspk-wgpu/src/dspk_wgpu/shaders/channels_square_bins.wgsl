// One pass of a radix selection over the squares (x - mean)^2 of every channel
// and sample. Squares are never negative, so their bits (bits_of, lib_keys:
// 32 of them in float32, 64 in float64) order them as unsigned integers; the
// prefix is the key of words (prefix, prefix_low). `mode` 0: count the keys
// whose bits from `shift + 8` up equal the prefix's into 256 bins of bits
// shift .. shift + 8. `mode` 1: the smallest key above the prefix, one 32-bit
// word at a time: word 0 (the high word) of those keys, or, for `word` 1, the
// low word of those whose high word is `found_high`; into bins[0]. A
// workgroup of 256 covers 64 chunks of 256 samples of one channel, gathers in
// workgroup memory, and adds to the global bins with atomics.

//! params n mode shift:u32 prefix:u32 block0 x_offset x_sc x_st prefix_low:u32 word:u32
//! params found_high:u32

//! include keys
//! include radix_bins

//! read x: array<real>
//! read mean: array<real>
//! read_write bins: array<atomic<u32>>

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>) {
    let lane = i32(lid.x);
    let c = i32(wid.y);
    let span = bins_begin(lane, i32(wid.x));
    let prefix = key_from_words(p.prefix, p.prefix_low);
    let m = mean[c];
    for (var t = span.x + lane; t < span.y; t += GROUP) {
        let d = x[p.x_offset + c * p.x_sc + t * p.x_st] - m;
        bins_add(bits_of(d * d), prefix, p.found_high);
    }
    workgroupBarrier();
    let mine = atomicLoad(&local_bins[lane]);
    if (p.mode == 0) {
        if (mine != 0u) {
            atomicAdd(&bins[lane], mine);
        }
    } else if (lane == 0) {
        atomicMin(&bins[0], mine);
    }
}
