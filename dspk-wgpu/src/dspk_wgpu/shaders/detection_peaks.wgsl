// Threshold peaks (see dspk.detect_peaks): one invocation per (sample, channel)
// tests the sample against its threshold, then against every sample within
// `exclude` on its channel and its neighbours (neighbours[c * width ..], -1
// ends a row): strictly against earlier samples, non-strictly against the
// same and later ones. A NaN is never a peak and a NaN in the window
// suppresses one (tested on the bits: WGSL does not promise IEEE comparisons
// with NaN). A peak takes the next slot of `count` and, below `capacity`,
// writes its sample, channel and value there; the host sorts them.

//! params n negative positive exclude width x_offset x_sc x_st block0 capacity:u32

//! include keys

//! read x: array<real>
//! read levels: array<real>
//! read neighbours: array<i32>
//! read_write count: array<atomic<u32>>
//! read_write found: array<i32>
//! read_write amplitudes: array<real>

fn at(c: i32, t: i32) -> real {
    return x[p.x_offset + c * p.x_sc + t * p.x_st];
}

// Whether v stays the extremum against w (NaN: never).
fn beats(v: real, w: real, before: bool, negative: bool) -> bool {
    if (is_nan(w)) {
        return false;
    }
    if (negative) {
        return select(v <= w, v < w, before);
    }
    return select(v >= w, v > w, before);
}

fn extremum(c: i32, t: i32, v: real, negative: bool) -> bool {
    let lo = max(t - p.exclude, 0);
    let hi = min(t + p.exclude, p.n - 1);
    for (var k = -1; k < p.width; k++) {
        var m = c;
        if (k >= 0) {
            m = neighbours[c * p.width + k];
            if (m < 0) {
                break;
            }
        }
        for (var u = lo; u <= hi; u++) {
            if ((k >= 0 || u != t) && !beats(v, at(m, u), u < t, negative)) {
                return false;
            }
        }
    }
    return true;
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let t = (p.block0 + i32(wid.x)) * 64 + i32(lid.x);
    let c = i32(id.y);
    if (t >= p.n) {
        return;
    }
    let v = at(c, t);
    if (is_nan(v)) {
        return;
    }
    let level = levels[c];
    var peak = false;
    if (p.negative != 0 && v < -level) {
        peak = extremum(c, t, v, true);
    } else if (p.positive != 0 && v > level) {
        peak = extremum(c, t, v, false);
    }
    if (peak) {
        let slot = atomicAdd(&count[0], 1u);
        if (slot < p.capacity) {
            found[2u * slot] = t;
            found[2u * slot + 1u] = c;
            amplitudes[slot] = v;
        }
    }
}
