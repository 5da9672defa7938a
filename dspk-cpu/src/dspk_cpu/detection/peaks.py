"""numba kernel of threshold peak detection: blocks of samples in parallel, two passes.

A first pass counts each block's peaks, a second writes them from the block's
offset on, so the output is allocated once at its size. Within a block, samples
are visited in the signal's memory order: sample by sample (channels inner) for
samples by channels, which gives the peaks sorted by sample then channel;
channel by channel for channels by samples, sorted afterwards. Candidates
fail fast on the threshold, so the window comparisons run on the few samples
that cross it. The comparisons are those of :func:`dspk.detect_peaks`; any
comparison with NaN is false.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from dspk_cpu import compiling
from dspk_cpu.layout import channel_major
from dspk_cpu.threads import use_numba_threads

#: Samples per parallel work item.
BLOCK = 4096


@njit(inline="always")
def _beats(v, w, before, negative):
    """Whether ``v`` stays the extremum against ``w``: strictly against earlier samples."""
    if negative:
        return v < w if before else v <= w
    return v > w if before else v >= w


@njit(inline="always")
def _extremum(x, c, t, v, lo, hi, negative, neighbours):
    for u in range(lo, hi + 1):
        if u != t and not _beats(v, x[c, u], u < t, negative):
            return False
    for k in range(neighbours.shape[1]):
        m = neighbours[c, k]
        if m < 0:
            break
        for u in range(lo, hi + 1):
            if not _beats(v, x[m, u], u < t, negative):
                return False
    return True


@njit(inline="always")
def _is_peak(x, c, t, levels, negative, positive, exclude, neighbours):
    v = x[c, t]
    lo, hi = max(t - exclude, 0), min(t + exclude, x.shape[1] - 1)
    if negative and v < -levels[c]:
        return _extremum(x, c, t, v, lo, hi, True, neighbours)
    if positive and v > levels[c]:
        return _extremum(x, c, t, v, lo, hi, False, neighbours)
    return False


@compiling.cached_jit(parallel=True)
def _scan(x, levels, negative, positive, exclude, neighbours, time_inner, counts, offsets,
          samples, channels, amplitudes):
    """Count each block's peaks into ``counts`` (``samples`` empty), or write them."""
    n_channels, n = x.shape
    counting = samples.size == 0
    for b in prange(counts.shape[0]):
        start, stop = b * BLOCK, min((b + 1) * BLOCK, n)
        found, at = 0, offsets[b]
        for outer in range(n_channels if time_inner else stop - start):
            for inner in range(stop - start if time_inner else n_channels):
                c = outer if time_inner else inner
                t = start + (inner if time_inner else outer)
                if _is_peak(x, c, t, levels, negative, positive, exclude, neighbours):
                    if not counting:
                        samples[at] = t
                        channels[at] = c
                        amplitudes[at] = x[c, t]
                        at += 1
                    found += 1
        if counting:
            counts[b] = found


def detect_peaks(x, axis, levels, sign, exclude, neighbours):
    """Threshold peaks of ``x`` (see :func:`dspk.detect_peaks`), sorted by sample then channel.

    Examples
    --------
    >>> x = np.array([[0.0, -3.0, -1.0, -4.0, 0.0], [0.0, -5.0, 0.0, 0.0, 0.0]])
    >>> detect_peaks(x, 1, np.array([2.0, 2.0]), "neg", 1, None)
    (array([1, 1, 3]), array([0, 1, 0]), array([-3., -5., -4.]))
    """
    x2 = channel_major(x, axis)
    blocks = -(-x2.shape[1] // BLOCK)
    use_numba_threads(at_most=blocks)
    table = np.zeros((x2.shape[0], 0), np.int64) if neighbours is None else neighbours
    time_inner = x2.strides[1] < x2.strides[0]
    options = (levels.astype(x.dtype), sign != "pos", sign != "neg", exclude, table, time_inner)
    counts = np.zeros(blocks, np.int64)
    nothing = np.zeros(0, np.int64)
    compiling.run(_scan, x2, *options, counts, counts, nothing, nothing, np.zeros(0, x.dtype))
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    total = int(counts.sum())
    samples, channels = np.empty(total, np.int64), np.empty(total, np.int64)
    amplitudes = np.empty(total, x.dtype)
    compiling.run(_scan, x2, *options, counts, offsets, samples, channels, amplitudes)
    if time_inner:
        order = np.lexsort((channels, samples))
        samples, channels, amplitudes = samples[order], channels[order], amplitudes[order]
    return samples, channels, amplitudes
