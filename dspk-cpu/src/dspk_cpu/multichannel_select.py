"""numba kernel of the common reference: a selection (not a sort) across channels per sample.

Each ``prange`` iteration takes one block of samples. For every sample and
group it gathers the group's channels into a small buffer and finds the
median by quickselect (the two middle values for an even count), or sums
them in float64 for the average, then subtracts the reference from the
group's channels. A NaN among the channels makes that sample's median NaN,
as :func:`numpy.median` does.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from dspk_cpu.layout import channel_major
from dspk_cpu.threads import threads

#: Samples per parallel work item.
BLOCK = 256
#: Elements below which another thread costs more to wake than it saves.
MIN_WORK_PER_THREAD = 1 << 15


@njit(cache=True)
def _select(buf, n, k):
    """Reorder ``buf[:n]`` so that ``buf[k]`` is its k-th smallest, smaller values before it."""
    lo, hi = 0, n - 1
    while lo < hi:
        pivot = buf[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while buf[i] < pivot:
                i += 1
            while pivot < buf[j]:
                j -= 1
            if i <= j:
                buf[i], buf[j] = buf[j], buf[i]
                i += 1
                j -= 1
        # Now buf[lo..j] <= pivot <= buf[i..hi], and everything between equals the pivot.
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break
    return buf[k]


@njit(cache=True)
def _median(buf, n):
    """The median of ``buf[:n]`` (reordering it), in float64."""
    k = n // 2
    upper = np.float64(_select(buf, n, k))
    if n % 2 == 1:
        return upper
    lower = buf[0]
    for i in range(1, k):
        lower = max(lower, buf[i])
    return (np.float64(lower) + upper) / 2.0


@njit(cache=True)
def _reference(x2, members, lo, hi, t, buf, use_median):
    """The median or mean of the channels ``members[lo:hi]`` at sample ``t``."""
    m = hi - lo
    if use_median:
        has_nan = False
        for j in range(m):
            v = x2[members[lo + j], t]
            buf[j] = v
            has_nan |= v != v
        return np.nan if has_nan else _median(buf, m)
    total = 0.0
    for j in range(m):
        total += x2[members[lo + j], t]
    return total / m


@njit(cache=True, parallel=True)
def _subtract_references(x2, y2, members, starts, use_median):
    samples = x2.shape[1]
    widest = 0
    for g in range(len(starts) - 1):
        widest = max(widest, starts[g + 1] - starts[g])
    for block in prange((samples + BLOCK - 1) // BLOCK):
        buf = np.empty(widest, x2.dtype)
        for t in range(block * BLOCK, min(samples, (block + 1) * BLOCK)):
            for g in range(len(starts) - 1):
                lo, hi = starts[g], starts[g + 1]
                ref = _reference(x2, members, lo, hi, t, buf, use_median)
                for j in range(lo, hi):
                    c = members[j]
                    y2[c, t] = x2[c, t] - ref


def common_reference(x, axis, groups, operator):
    """Subtract each group's median (quickselect) or mean, sample by sample, in parallel.

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
    _subtract_references(channel_major(x, axis), channel_major(y, axis), members, starts,
                         operator == "median")
    return y
