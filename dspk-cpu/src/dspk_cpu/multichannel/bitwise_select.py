"""numba kernel of the common reference: a bitwise selection across channels, per sample.

For each sample, a group's channel values are mapped to unsigned integers whose order
is the floats' order (flip every bit of a negative float, only the sign bit of a
positive one). The median's upper middle rank ``k = m // 2`` is then found bit by bit,
from the most significant down: a candidate prefix with the next bit set is kept when
at most ``k`` keys lie below it. Each bit costs one branch-free compare-and-count sweep,
which runs as SIMD across the channels. Once the keys that share the prefix found so
far are at most a quarter of those swept, they are compacted, and the later bits sweep
only them; once at most :data:`SMALL` are left, they are sorted and the rank read off.
For floats spread over several octaves (a filtered recording), the sign and exponent
bits leave a handful of candidates, so a sample costs about seven sweeps instead of 32
(64 in float64). The selection is exact. For an even count, one more sweep finds the
largest key below the upper middle (the lower middle, or the upper middle again if it
repeats), and the reference is the mean of the two. A NaN among the channels makes that
sample's median NaN, as :func:`numpy.median` does. The average sums the channels in
float64.

The kernel reads the signal in memory order. Samples by channels (a raw recording):
each sample's channels are contiguous and are used in place when a group is a
contiguous run of channels. Channels by samples: :data:`TILE` samples of every channel
are copied into a transposed tile first (by vector transposes of whole cache lines,
:func:`~dspk_cpu.kernels.tiles.transpose_tile`, for a run of channels).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from dspk_cpu import compiling, memory
from dspk_cpu.kernels.tiles import LINE, transpose_tile
from dspk_cpu.threads import use_numba_threads

#: Samples per parallel work item (and per transposed tile of a channels-by-samples signal).
TILE = 64
#: Elements below which another thread costs more to wake than it saves.
MIN_WORK_PER_THREAD = 1 << 15
#: Candidates are compacted once at most 1 / COMPACT of those swept share the prefix.
COMPACT = 4
#: At most this many candidates are sorted instead of swept.
SMALL = 16


@njit(inline="always")
def _count_below(keys, n, bound):
    below = keys.dtype.type(0)
    for i in range(n):
        below += keys.dtype.type(keys[i] < bound)
    return below


@njit(inline="always")
def _upper_middle(keys, spare, m):
    """The key of rank ``m // 2`` among ``keys[:m]``, and how many keys lie below it.

    ``keys`` is kept; ``spare`` (as long) receives the compacted candidates.
    """
    u = keys.dtype.type
    rank = m // 2
    upper, below_upper, below_end = u(0), 0, m
    base, swept, n = 0, keys, m
    for bit in range(8 * keys.itemsize - 1, -1, -1):
        if n <= SMALL:
            break
        candidate = upper | (u(1) << u(bit))
        below = base + _count_below(swept, n, candidate)
        if below <= rank:
            upper, below_upper = candidate, below
        else:
            below_end = below
        # Keys sharing the prefix found so far (bits >= bit): below_end - below_upper.
        if COMPACT * (below_end - below_upper) <= n:
            kept, prefix = 0, upper >> u(bit)
            for i in range(n):
                key = swept[i]
                spare[kept] = key
                kept += (key >> u(bit)) == prefix
            swept, n, base = spare, kept, below_upper
    else:
        return upper, below_upper
    # A few candidates left: sort them (insertion) and read off the rank.
    for i in range(1, n):
        key, j = swept[i], i
        while j > 0 and swept[j - 1] > key:
            swept[j] = swept[j - 1]
            j -= 1
        swept[j] = key
    upper = swept[rank - base]
    below = rank - base
    while below > 0 and swept[below - 1] == upper:
        below -= 1
    return upper, base + below


@njit(inline="always")
def _float_of_key(key, bits, values):
    """The float (as float64) whose order key is ``key``: inverse of the key map.

    ``bits`` is a one-element array of the signed integers as wide as ``values``.
    """
    sign = bits.dtype.type(1) << bits.dtype.type(8 * values.itemsize - 1)
    bits[0] = bits.dtype.type(key)
    bits[0] = bits[0] ^ sign if bits[0] < 0 else ~bits[0]
    return np.float64(bits.view(values.dtype)[0])


@njit(inline="always")
def median_or_mean(values, use_median, keys, spare, bits):
    """The median (or mean) of the contiguous ``values``, as float64.

    ``keys`` and ``spare`` are scratch arrays of unsigned integers as wide as the
    values, at least as long; ``bits`` one of one signed integer.
    """
    m = len(values)
    if not use_median:
        total = 0.0
        for i in range(m):
            total += values[i]
        return total / m
    shift = bits.dtype.type(8 * values.itemsize - 1)
    lowest = bits.dtype.type(1) << shift
    raw = values.view(bits.dtype)
    has_nan = False
    for i in range(m):
        has_nan |= values[i] != values[i]
        keys[i] = keys.dtype.type(raw[i] ^ ((raw[i] >> shift) | lowest))
    if has_nan:
        return np.nan
    upper, below = _upper_middle(keys, spare, m)
    middle = _float_of_key(upper, bits, values)
    if m % 2 == 1 or below < m // 2:  # odd, or the lower middle repeats the upper
        return middle
    lower, none = keys.dtype.type(0), keys.dtype.type(0)
    for i in range(m):
        key = keys[i]
        lower = max(lower, key & (none - keys.dtype.type(key < upper)))  # branch-free
    return (middle + _float_of_key(lower, bits, values)) / 2.0


@compiling.cached_jit(parallel=True)
def _subtract_references(x, y, samples_by_channels, members, starts, contiguous, use_median,
                         signed, unsigned):
    """``x`` and ``y`` are C-contiguous, samples by channels or channels by samples.

    ``signed`` and ``unsigned`` are empty arrays of the integer types as wide as x's;
    ``contiguous[g]`` says group ``g``'s members run on from ``members[starts[g]]``.
    """
    samples = x.shape[0] if samples_by_channels else x.shape[1]
    widest = 0
    for g in range(len(starts) - 1):
        widest = max(widest, starts[g + 1] - starts[g])
    for item in prange((samples + TILE - 1) // TILE):
        t0 = item * TILE
        width = min(TILE, samples - t0)
        keys = np.empty(widest, unsigned.dtype)
        spare = np.empty(widest, unsigned.dtype)
        bits = np.empty(1, signed.dtype)
        tile = np.empty((TILE, widest), x.dtype)
        reference = np.empty(TILE, np.float64)
        for g in range(len(starts) - 1):
            lo, hi = starts[g], starts[g + 1]
            m, first = hi - lo, members[lo]
            if samples_by_channels and contiguous[g]:
                for t in range(t0, t0 + width):
                    values, out = x[t, first:first + m], y[t, first:first + m]
                    ref = median_or_mean(values, use_median, keys, spare, bits)
                    for i in range(m):
                        out[i] = values[i] - ref
                continue
            # Gather the group's values into a tile, samples by channels.
            if samples_by_channels:
                for w in range(width):
                    for i in range(m):
                        tile[w, i] = x[t0 + w, members[lo + i]]
            else:
                # Whole cache lines of a run of channels go through vector transposes.
                lanes = LINE // x.itemsize
                whole = m - m % lanes if contiguous[g] and width == TILE else 0
                for i0 in range(0, whole, lanes):
                    for w0 in range(0, TILE, lanes):
                        transpose_tile(x, first + i0, t0 + w0, tile, w0, i0)
                for i in range(whole, m):
                    row = x[members[lo + i]]
                    for w in range(width):
                        tile[w, i] = row[t0 + w]
            for w in range(width):
                reference[w] = median_or_mean(tile[w, :m], use_median, keys, spare, bits)
            if samples_by_channels:
                for w in range(width):
                    for i in range(m):
                        c = members[lo + i]
                        y[t0 + w, c] = x[t0 + w, c] - reference[w]
            else:
                for i in range(m):
                    row, out = x[members[lo + i]], y[members[lo + i]]
                    for w in range(width):
                        out[t0 + w] = row[t0 + w] - reference[w]


def common_reference(x, axis, groups, operator):
    """Subtract each group's median (bitwise selection) or mean, in parallel over samples.

    Channels in no group come out as zeros (see :func:`dspk.common_reference`).

    Examples
    --------
    >>> x = np.array([[1.0, 5.0], [2.0, 0.0], [4.0, 1.0]])
    >>> common_reference(x, 1, (np.arange(3),), "median")
    array([[-1.,  4.],
           [ 0., -1.],
           [ 2.,  0.]])
    """
    use_numba_threads(at_most=max(1, x.size // MIN_WORK_PER_THREAD))
    # Samples by channels when the time axis is the slower one in memory.
    samples_by_channels = abs(x.strides[axis]) >= abs(x.strides[1 - axis])
    rows = x if samples_by_channels == (axis == 0) else x.T
    rows = np.ascontiguousarray(rows)
    members = np.concatenate(groups).astype(np.int64)
    starts = np.cumsum([0] + [len(g) for g in groups]).astype(np.int64)
    contiguous = np.array([np.array_equal(g, np.arange(g[0], g[0] + len(g))) if len(g) else True
                           for g in groups])
    channels = x.shape[1 - axis]
    y = memory.populate(np.empty_like(rows) if len(members) == channels
                         else np.zeros_like(rows))
    compiling.run(_subtract_references, rows, y, samples_by_channels, members, starts,
                  contiguous, operator == "median", np.empty(0, f"i{x.itemsize}"),
                  np.empty(0, f"u{x.itemsize}"))
    return y if samples_by_channels == (axis == 0) else y.T
