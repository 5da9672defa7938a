// Keys that order float32 numbers as unsigned integers: one 32-bit word. The
// same functions as lib_keys_f64.wgsl, over its two-word keys, so that a
// selection is written once for both precisions.
alias Key = u32;
const KEY_BITS: u32 = 32u;
const KEY_LOWEST: Key = 0u;
const KEY_HIGHEST: Key = 0xffffffffu;

// The number's bits: the key order too for numbers that are never negative.
fn bits_of(v: f32) -> Key {
    return bitcast<u32>(v);
}

// Negative numbers reversed below positive ones.
fn key_of(v: f32) -> Key {
    let u = bitcast<u32>(v);
    return select(u | 0x80000000u, ~u, (u & 0x80000000u) != 0u);
}

fn value_of(k: Key) -> f32 {
    return bitcast<f32>(select(~k, k & 0x7fffffffu, (k & 0x80000000u) != 0u));
}

fn is_nan(v: f32) -> bool {
    return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}

fn nan_value() -> f32 {
    return bitcast<f32>(0x7fc00000u);
}

// The key of words `high`, `low` (the low word is not used) and word `i` (0: the key).
fn key_from_words(high: u32, low: u32) -> Key {
    return high;
}

fn key_word(k: Key, i: u32) -> u32 {
    return select(0u, k, i == 0u);
}

fn key_less(a: Key, b: Key) -> bool {
    return a < b;
}

fn key_min(a: Key, b: Key) -> Key {
    return min(a, b);
}

// lo + (hi - lo) / 2, for lo <= hi.
fn key_midpoint(lo: Key, hi: Key) -> Key {
    return lo + (hi - lo) / 2u;
}

fn key_next(k: Key) -> Key {
    return k + 1u;
}

// The digit at bits shift .. shift + width - 1 (mask = 2^width - 1; width divides 32).
fn key_digit(k: Key, shift: u32, mask: u32) -> u32 {
    return (k >> shift) & mask;
}

// k with `digit` or-ed in at bit `shift`.
fn key_with_digit(k: Key, digit: u32, shift: u32) -> Key {
    return k | (digit << shift);
}

// Whether a and b have the same bits from bit `top` up (always, from KEY_BITS).
fn key_agree_above(a: Key, b: Key, top: u32) -> bool {
    if (top >= 32u) {
        return true;
    }
    return ((a ^ b) >> top) == 0u;
}
