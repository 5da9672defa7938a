// Common reference: each group's channels minus the group's per-sample median
// (`use_median` 1) or mean (0). One invocation per (sample, group), a workgroup
// holding WORKGROUP samples (a pipeline-overridable constant). `table`
// holds the groups' start positions (groups + 1 of them, absolute indices
// into `table`) followed by their channels. The group `zero_group` (channels
// in no group, or -1) is written as zeros.
//
// The median is a radix selection on the keys that order numbers as unsigned
// integers (lib_keys: 32 bits in float32, 64 in float64): KEY_BITS / 4 passes
// over the group's values, each counting the values that share the key's
// upper digits into 16 bins of the next 4-bit digit and keeping the bin that
// holds the rank. An even count averages the two middle values; the upper one
// is the lower one again when that key repeats, else the smallest key above it
// (one more pass). A NaN anywhere in the group makes that sample's reference
// NaN, as numpy.median.
//
// With `local` 1 (the neighbour reference), group c holds the neighbours of
// channel c and only channel c is written: it less its group's reference, or
// as it is when the group is empty.

//! params n groups use_median zero_group block0 x_offset x_sc x_st y_sc y_st local

//! include keys

override WORKGROUP: u32;

//! read table: array<i32>
//! read x: array<real>
//! read_write y: array<real>

fn value(c: i32, t: i32) -> real {
    return x[p.x_offset + c * p.x_sc + t * p.x_st];
}

fn median(first: i32, stop: i32, t: i32) -> real {
    let count = stop - first;
    var rank = u32((count - 1) / 2);
    var prefix = KEY_LOWEST;
    var equal = 0u;
    var nan = false;
    for (var round = 0u; round < KEY_BITS / 4u; round++) {
        let shift = KEY_BITS - 4u - 4u * round;
        var bins = array<u32, 16>();
        for (var i = first; i < stop; i++) {
            let v = value(table[i], t);
            nan = nan || is_nan(v);
            let key = key_of(v);
            // the key bits above this pass's digit are the prefix's
            if (key_agree_above(key, prefix, shift + 4u)) {
                bins[key_digit(key, shift, 15u)] += 1u;
            }
        }
        var digit = 0u;
        while (rank >= bins[digit]) {
            rank -= bins[digit];
            digit++;
        }
        prefix = key_with_digit(prefix, digit, shift);
        equal = bins[digit];
    }
    if (nan) {
        return nan_value();
    }
    let lower = value_of(prefix);
    if (count % 2 == 1 || rank + 1u < equal) {
        return lower;
    }
    var above = KEY_HIGHEST;
    for (var i = first; i < stop; i++) {
        let key = key_of(value(table[i], t));
        if (key_less(prefix, key)) {
            above = key_min(above, key);
        }
    }
    return 0.5 * lower + 0.5 * value_of(above);
}

fn mean(first: i32, stop: i32, t: i32) -> real {
    var sum: real = 0.0;
    for (var i = first; i < stop; i++) {
        sum += value(table[i], t);
    }
    return sum / real(stop - first);
}

@compute @workgroup_size(WORKGROUP, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let t = p.block0 * i32(WORKGROUP) + i32(id.x);
    let group = i32(id.y);
    if (t >= p.n || group >= p.groups) {
        return;
    }
    let first = table[group];
    let stop = table[group + 1];
    if (p.local != 0) {
        var local_reference: real = 0.0;
        if (stop > first) {
            if (p.use_median != 0) {
                local_reference = median(first, stop, t);
            } else {
                local_reference = mean(first, stop, t);
            }
        }
        y[group * p.y_sc + t * p.y_st] = value(group, t) - local_reference;
        return;
    }
    var reference: real = 0.0;
    if (group != p.zero_group) {
        if (p.use_median != 0) {
            reference = median(first, stop, t);
        } else {
            reference = mean(first, stop, t);
        }
    }
    for (var i = first; i < stop; i++) {
        let c = table[i];
        var out: real = 0.0;
        if (group != p.zero_group) {
            out = value(c, t) - reference;
        }
        y[c * p.y_sc + t * p.y_st] = out;
    }
}
