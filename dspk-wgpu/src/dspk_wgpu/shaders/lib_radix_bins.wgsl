// One pass of a radix selection in a workgroup of GROUP lanes (as
// channels_square_bins and detection_median_bins use it, with lib_keys), each
// gathering into the workgroup's 256 bins `local_bins`. The shader's Params
// name `n`, `mode`, `shift`, `word` and `block0`: `mode` 0 counts keys by
// their digit of bits shift .. shift + 8, `mode` 1 looks for the smallest
// key above a prefix, one 32-bit word (`word`) at a time.

const GROUP: i32 = 256;
const PER_LANE: i32 = 64;

var<workgroup> local_bins: array<atomic<u32>, 256>;

// Starts the workgroup's bins (at 0, or at the largest word for `mode` 1's
// minimum) and returns the samples start .. stop of the workgroup's `block`
// (block0 + block): PER_LANE chunks of GROUP samples.
fn bins_begin(lane: i32, block: i32) -> vec2<i32> {
    atomicStore(&local_bins[lane], select(0u, 0xffffffffu, p.mode == 1));
    workgroupBarrier();
    let start = (p.block0 + block) * GROUP * PER_LANE;
    return vec2<i32>(start, min(start + GROUP * PER_LANE, p.n));
}

// Gathers one key. `mode` 0: into the bin of its digit, when its bits from
// shift + 8 up equal the prefix's. `mode` 1: the smallest word `word` of the
// keys above the prefix, for word 1 among those whose high word is
// `found_high`, into bin 0.
fn bins_add(key: Key, prefix: Key, found_high: u32) {
    if (p.mode == 0) {
        if (key_agree_above(key, prefix, p.shift + 8u)) {
            atomicAdd(&local_bins[key_digit(key, p.shift, 255u)], 1u);
        }
    } else if (key_less(prefix, key)
               && (p.word == 0u || key_word(key, 0u) == found_high)) {
        atomicMin(&local_bins[0], key_word(key, p.word));
    }
}
