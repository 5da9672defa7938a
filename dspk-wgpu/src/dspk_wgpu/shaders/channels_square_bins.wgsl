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

const GROUP: i32 = 256;
const PER_LANE: i32 = 64;

//! include keys

//! read x: array<real>
//! read mean: array<real>
//! read_write bins: array<atomic<u32>>

var<workgroup> local_bins: array<atomic<u32>, 256>;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>) {
    let lane = i32(lid.x);
    let c = i32(wid.y);
    atomicStore(&local_bins[lane], select(0u, 0xffffffffu, p.mode == 1));
    workgroupBarrier();
    let start = (p.block0 + i32(wid.x)) * GROUP * PER_LANE;
    let stop = min(start + GROUP * PER_LANE, p.n);
    let prefix = key_from_words(p.prefix, p.prefix_low);
    let m = mean[c];
    for (var t = start + lane; t < stop; t += GROUP) {
        let d = x[p.x_offset + c * p.x_sc + t * p.x_st] - m;
        let key = bits_of(d * d);
        if (p.mode == 0) {
            if (key_agree_above(key, prefix, p.shift + 8u)) {
                atomicAdd(&local_bins[key_digit(key, p.shift, 255u)], 1u);
            }
        } else if (key_less(prefix, key)
                   && (p.word == 0u || key_word(key, 0u) == p.found_high)) {
            atomicMin(&local_bins[0], key_word(key, p.word));
        }
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
