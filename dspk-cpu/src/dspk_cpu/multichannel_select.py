"""numba kernel of the common reference: a selection across channels, vectorised over samples.

Each ``prange`` iteration takes one run of samples, ``LANES`` samples at a time. For
every group, the group's channel values at those samples are gathered into a scratch
``keys[channel, lane]`` as unsigned integers whose order is the floats' order (flip
every bit of a negative float, only the sign bit of a positive one). The median's upper
middle rank ``k = m // 2`` is then found bit by bit, from the most significant down: a
candidate prefix with the next bit set is kept when at most ``k`` keys lie below it. That
is one compare-and-count sweep of the scratch per key bit, the same work in every lane,
so the sweeps run as SIMD across the samples with no branches; it needs no sort and is
exact. For an even count, one more sweep finds the largest key below the upper middle
(the lower middle, or the upper middle again if it repeats), and the reference is the
mean of the two. A NaN among the channels makes that sample's median NaN, as
:func:`numpy.median` does. The average sums the channels in float64.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from dspk_cpu.layout import channel_major
from dspk_cpu.threads import threads

#: Samples per parallel work item, gathered into one scratch tile.
TILE = 32
#: Elements below which another thread costs more to wake than it saves.
MIN_WORK_PER_THREAD = 1 << 15


@njit(inline="always")
def _from_key(key, sign, signed):
    """The float bits (as ``signed``'s type) of an order key: inverse of the key map."""
    return signed.dtype.type(key ^ sign if key & sign else ~key)


@njit(cache=True, parallel=True)
def _subtract_references(x2, y2, members, starts, use_median, signed, unsigned):
    """``signed`` and ``unsigned`` are empty arrays of the integer types as wide as x's."""
    samples = x2.shape[1]
    n_bits = 8 * x2.itemsize
    one = unsigned.dtype.type(1)
    sign = one << unsigned.dtype.type(n_bits - 1)
    shift = signed.dtype.type(n_bits - 1)
    lowest = signed.dtype.type(1) << shift
    widest = 0
    for g in range(len(starts) - 1):
        widest = max(widest, starts[g + 1] - starts[g])
    time_major = abs(x2.strides[1]) <= abs(x2.strides[0])
    for item in prange((samples + TILE - 1) // TILE):
        t0 = item * TILE
        width = min(TILE, samples - t0)
        tile = np.empty((TILE, widest), x2.dtype)
        raw = tile.view(signed.dtype)
        keys = np.empty(widest, unsigned.dtype)
        reference = np.empty(TILE, np.float64)
        middle = np.empty(1, signed.dtype)
        middle_value = middle.view(x2.dtype)
        for g in range(len(starts) - 1):
            lo, hi = starts[g], starts[g + 1]
            m = hi - lo
            # Gather and scatter along whichever axis is contiguous.
            if time_major:
                for i in range(m):
                    for w in range(width):
                        tile[w, i] = x2[members[lo + i], t0 + w]
            else:
                for w in range(width):
                    for i in range(m):
                        tile[w, i] = x2[members[lo + i], t0 + w]
            for w in range(width):
                if not use_median:
                    total = 0.0
                    for i in range(m):
                        total += tile[w, i]
                    reference[w] = total / m
                    continue
                has_nan = False
                for i in range(m):
                    has_nan |= tile[w, i] != tile[w, i]
                # Negative floats: every bit flipped; others: the sign bit set.
                for i in range(m):
                    r = raw[w, i]
                    keys[i] = unsigned.dtype.type(r ^ ((r >> shift) | lowest))
                rank = unsigned.dtype.type(m // 2)
                upper = unsigned.dtype.type(0)
                for bit in range(n_bits - 1, -1, -1):
                    candidate = upper | (one << unsigned.dtype.type(bit))
                    below = unsigned.dtype.type(0)
                    for i in range(m):
                        below += keys[i] < candidate
                    if below <= rank:
                        upper = candidate
                middle[0] = _from_key(upper, sign, signed)
                reference[w] = middle_value[0]
                if m % 2 == 0:
                    below = unsigned.dtype.type(0)
                    lower = unsigned.dtype.type(0)
                    for i in range(m):
                        key = keys[i]
                        less = key < upper
                        below += less
                        lower = max(lower, key if less else unsigned.dtype.type(0))
                    middle[0] = _from_key(upper if below < rank else lower, sign, signed)
                    reference[w] = (reference[w] + np.float64(middle_value[0])) / 2.0
                if has_nan:
                    reference[w] = np.nan
            if time_major:
                for i in range(m):
                    c = members[lo + i]
                    for w in range(width):
                        y2[c, t0 + w] = x2[c, t0 + w] - reference[w]
            else:
                for w in range(width):
                    for i in range(m):
                        c = members[lo + i]
                        y2[c, t0 + w] = x2[c, t0 + w] - reference[w]


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
    useful = max(1, x.size // MIN_WORK_PER_THREAD)
    numba.set_num_threads(min(threads(), numba.config.NUMBA_NUM_THREADS, useful))
    members = np.concatenate(groups).astype(np.int64)
    starts = np.cumsum([0] + [len(g) for g in groups]).astype(np.int64)
    channels = x.shape[1 - axis]
    y = np.empty_like(x) if len(members) == channels else np.zeros_like(x)
    signed = np.empty(0, f"i{x.itemsize}")
    unsigned = np.empty(0, f"u{x.itemsize}")
    _subtract_references(channel_major(x, axis), channel_major(y, axis), members, starts,
                         operator == "median", signed, unsigned)
    return y
