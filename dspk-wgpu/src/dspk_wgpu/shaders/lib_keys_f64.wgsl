// Keys that order float64 numbers as unsigned integers: two 32-bit words (high,
// low), the same functions as lib_keys_f32.wgsl. WGSL cannot reinterpret an
// f64's bits here (naga's bitcast of f64 is broken), so bits_of computes the
// IEEE-754 fields from the number: the exponent by comparisons with powers of
// two, the mantissa as an integer of at most 53 bits, which float64 holds
// exactly. Scaling by powers of two is exact; ldexp goes in two halves
// (scale2), as drivers may form 2^e as a float64 and e reaches 1074 here.
// Subnormal numbers read as zero, as on devices that flush them (lavapipe's
// ldexp mistakes them, and a scaling by constants gets folded into one
// infinite factor): the keys stay in order, subnormals tied with zero. Zero
// reads as +0 (its sign cannot be told apart without the bits).
alias Key = vec2<u32>;
const KEY_BITS: u32 = 64u;
const KEY_LOWEST: Key = vec2<u32>(0u, 0u);
const KEY_HIGHEST: Key = vec2<u32>(0xffffffffu, 0xffffffffu);
const F64_MAX: f64 = 1.7976931348623157e308;
const F64_MIN_NORMAL: f64 = 2.2250738585072014e-308;
const F32_MIN_NORMAL: f64 = 1.1754943508222875e-38;
const F32_MAX: f64 = 3.4028234663852886e38;
const TWO_32: f64 = 4294967296.0;
const TWO_52: f64 = 4503599627370496.0;

// a 2^e for normal a and a 2^e.
fn scale2(a: f64, e: i32) -> f64 {
    let half = e / 2;
    return ldexp(ldexp(a, half), e - half);
}

// floor(log2(a)) of a normal, finite a > 0.
fn exponent_of(a: f64) -> i32 {
    if (a >= F32_MIN_NORMAL && a < F32_MAX) {
        // float32's exponent, one too high where the conversion rounds up to 2^(e + 1)
        var e = i32((bitcast<u32>(f32(a)) >> 23u) & 0xffu) - 127;
        if (ldexp(f64(1.0), e) > a) {
            e -= 1;
        }
        return e;
    }
    var low = -1022;
    var high = 1024;
    while (high - low > 1) {
        let middle = (low + high) / 2;
        if (a >= ldexp(f64(1.0), middle)) {
            low = middle;
        } else {
            high = middle;
        }
    }
    return low;
}

// The words of an integer 0 <= m < 2^53.
fn split_words(m: f64) -> Key {
    let high = floor(m / TWO_32);
    return vec2<u32>(u32(high), u32(m - high * TWO_32));
}

// The number's IEEE-754 bits (NaN as the positive quiet NaN, subnormals as
// zero): the key order too for numbers that are never negative.
fn bits_of(v: f64) -> Key {
    let a = abs(v);
    var bits = vec2<u32>(0x7ff80000u, 0u);
    if (a <= F64_MAX) {
        bits = vec2<u32>(0u, 0u);
        if (a >= F64_MIN_NORMAL) {
            let e = exponent_of(a);
            bits = split_words(scale2(a, 52 - e) - TWO_52);
            bits.x |= u32(e + 1023) << 20u;
        }
    } else if (a > F64_MAX) {
        bits = vec2<u32>(0x7ff00000u, 0u);
    }
    if (v < 0.0 && a >= F64_MIN_NORMAL) {
        bits.x |= 0x80000000u;
    }
    return bits;
}

fn from_bits(b: Key) -> f64 {
    let e = i32((b.x >> 20u) & 0x7ffu);
    let m = f64(b.x & 0xfffffu) * TWO_32 + f64(b.y);
    var a: f64;
    if (e == 0) {
        a = 0.0;
    } else if (e < 2047) {
        a = scale2(m + TWO_52, e - 1075);
    } else {
        a = ldexp(f64(1.0), e - 1023);   // infinity, at run time
        if (m != 0.0) {
            a = sqrt(-a);                 // NaN (a - a would be folded to 0)
        }
    }
    return select(a, -a, (b.x & 0x80000000u) != 0u);
}

// Negative numbers reversed below positive ones.
fn key_of(v: f64) -> Key {
    let b = bits_of(v);
    return select(vec2<u32>(b.x | 0x80000000u, b.y), ~b, (b.x & 0x80000000u) != 0u);
}

fn value_of(k: Key) -> f64 {
    return from_bits(select(~k, vec2<u32>(k.x & 0x7fffffffu, k.y), (k.x & 0x80000000u) != 0u));
}

fn is_nan(v: f64) -> bool {
    let a = abs(v);
    return !(a <= F64_MAX) && !(a > F64_MAX);
}

fn nan_value() -> f64 {
    return from_bits(vec2<u32>(0x7ff80000u, 0u));
}

fn key_from_words(high: u32, low: u32) -> Key {
    return vec2<u32>(high, low);
}

fn key_word(k: Key, i: u32) -> u32 {
    return select(k.y, k.x, i == 0u);
}

fn key_less(a: Key, b: Key) -> bool {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
}

fn key_min(a: Key, b: Key) -> Key {
    return select(b, a, key_less(a, b));
}

fn key_midpoint(lo: Key, hi: Key) -> Key {
    let borrow = select(0u, 1u, hi.y < lo.y);
    let difference = vec2<u32>(hi.x - lo.x - borrow, hi.y - lo.y);
    let half = vec2<u32>(difference.x >> 1u, (difference.y >> 1u) | (difference.x << 31u));
    let low = lo.y + half.y;
    return vec2<u32>(lo.x + half.x + select(0u, 1u, low < lo.y), low);
}

fn key_next(k: Key) -> Key {
    return vec2<u32>(k.x + select(0u, 1u, k.y == 0xffffffffu), k.y + 1u);
}

fn key_digit(k: Key, shift: u32, mask: u32) -> u32 {
    if (shift >= 32u) {
        return (k.x >> (shift - 32u)) & mask;
    }
    return (k.y >> shift) & mask;
}

fn key_with_digit(k: Key, digit: u32, shift: u32) -> Key {
    if (shift >= 32u) {
        return vec2<u32>(k.x | (digit << (shift - 32u)), k.y);
    }
    return vec2<u32>(k.x, k.y | (digit << shift));
}

fn key_agree_above(a: Key, b: Key, top: u32) -> bool {
    if (top >= 64u) {
        return true;
    }
    if (top >= 32u) {
        return ((a.x ^ b.x) >> (top - 32u)) == 0u;
    }
    return a.x == b.x && ((a.y ^ b.y) >> top) == 0u;
}
