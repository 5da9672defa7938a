"""numba kernel: the median of ``(x - mean) ** 2`` over a whole signal, by a bracketing selection.

A strided sample of the squares (every channel, about :data:`SAMPLE`
values) gives two values that bracket the middle rank with near certainty.
One parallel pass counts the squares below and inside the bracket; a second
gathers those inside (about ``2 * MARGIN`` of the signal), and
:func:`numpy.partition` selects the middle rank(s) among them. When the counts
show that the bracket missed, it widens to every value: still exact, only
slower. The signal is read, never copied whole; squares are computed in the
signal's dtype, as ``numpy.square(x - mean)`` would.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from dspk_cpu import compiling
from dspk_cpu.layout import channel_major
from dspk_cpu.threads import use_numba_threads

#: About this many squares go into the sample that sets the bracket.
SAMPLE = 1 << 16
#: The bracket spans the sample's quantiles ``0.5 - MARGIN`` to ``0.5 + MARGIN``.
MARGIN = 0.01
#: Elements below which another thread costs more to wake than it saves.
MIN_WORK_PER_PART = 1 << 16


@compiling.cached_jit(parallel=True)
def _scan(a, row_mean, col_mean, low, high, counts, offsets, out):
    """Count the squares below and inside ``[low, high]`` per part (``out`` empty), or
    gather those inside into ``out`` from ``offsets[part]`` on.

    Part ``p`` of ``counts.shape[0]`` takes elements ``p * size // parts`` up
    to the next part's first, in ``a``'s row-major order.
    """
    parts = counts.shape[0]
    cols = a.shape[1]
    counting = out.size == 0
    for part in prange(parts):
        start, stop = part * a.size // parts, (part + 1) * a.size // parts
        below, inside, n = 0, 0, offsets[part]
        for r in range(start // cols, (stop + cols - 1) // cols):
            for c in range(max(start - r * cols, 0), min(stop - r * cols, cols)):
                d = a[r, c] - row_mean[r] - col_mean[c]
                square = d * d
                if square < low:
                    below += 1
                elif square <= high:
                    if counting:
                        inside += 1
                    else:
                        out[n] = square
                        n += 1
        if counting:
            counts[part, 0] = below
            counts[part, 1] = inside


def _bracket(x2, centre):
    """Two squares, from a strided sample of every channel, around the median of all."""
    step = max(1, x2.size // SAMPLE)
    sample = np.square(x2[:, ::step] - centre[:, None])
    return np.quantile(sample, [0.5 - MARGIN, 0.5 + MARGIN])


def median_of_squares(x, axis, mean):
    """The median of ``(x - mean) ** 2`` over every channel and sample (``x`` finite).

    Examples
    --------
    >>> median_of_squares(np.array([[1.0, -3.0, 2.0, 0.5]]), 1, np.array([0.5]))
    1.25
    """
    threads = use_numba_threads()
    x2 = channel_major(x, axis)
    centre = np.zeros(len(x2), x.dtype) if mean is None else mean.astype(x.dtype)
    # Scan in memory order: rows along contiguous memory, the mean by row or by column.
    rows_are_channels = x2.strides[0] >= x2.strides[1]
    a = x2 if rows_are_channels else x2.T
    zeros = np.zeros(x2.shape[1], x.dtype)
    row_mean, col_mean = (centre, zeros) if rows_are_channels else (zeros, centre)
    parts = max(1, min(threads, x.size // MIN_WORK_PER_PART))
    ranks = np.array([(x.size - 1) // 2, x.size // 2])
    no_offsets, nothing = np.zeros(parts, np.int64), np.zeros(0, x.dtype)
    for low, high in (_bracket(x2, centre), (-np.inf, np.inf)):
        low, high = x.dtype.type(low), x.dtype.type(high)
        counts = np.zeros((parts, 2), np.int64)
        compiling.run(_scan, a, row_mean, col_mean, low, high, counts, no_offsets, nothing)
        below = counts[:, 0].sum()
        if below <= ranks[0] and ranks[1] < below + counts[:, 1].sum():
            break
    offsets = np.concatenate([[0], np.cumsum(counts[:, 1])[:-1]]).astype(np.int64)
    out = np.empty(int(counts[:, 1].sum()), x.dtype)
    compiling.run(_scan, a, row_mean, col_mean, low, high, counts, offsets, out)
    lower, upper = np.partition(out, ranks - below)[ranks - below]
    return (float(lower) + float(upper)) / 2
