"""Polyphase upfirdn in numba: each output sample from its phase's taps, in parallel.

Output ``k`` of upfirdn is ``sum_j h[j] * u[k * down - j]`` where ``u`` is the
signal upsampled by ``up`` with zeros. Only every ``up``-th tap meets a
non-zero sample, so with ``t = k * down`` the output is the dot product of
phase ``t % up``'s taps with the input samples ending at ``t // up``. The
upsampled signal is never formed. Samples before the signal come from
``left``, after it from ``right`` (the core's extension).

Without upsampling (``up == 1``, as in decimation), channels by samples take a
faster path: a block of outputs reads every ``down``-th input sample from tap
to tap, so the block's inputs are first dealt into ``down`` contiguous streams;
then each tap adds its multiple of one stream to all the block's outputs at
once, a loop the compiler vectorises.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from dspk.plugin import layout_of
from dspk_cpu import compiling
from dspk_cpu.threads import use_numba_threads

#: Output samples per parallel work item along a channel.
BLOCK = 2048
#: Output samples per work item of the decimating kernel (its scratch stays in L1/L2).
DECIMATION_BLOCK = 1024


def phases(h: np.ndarray, up: int) -> np.ndarray:
    """The taps by phase: row ``r`` holds ``h[r], h[r + up], ...`` reversed and zero-padded.

    Column ``j`` of a row multiplies input sample ``t // up - M + 1 + j``, where
    ``M`` is the number of columns, so the dot product runs forward in memory.

    Examples
    --------
    >>> phases(np.arange(1.0, 6.0), 2)
    array([[5., 3., 1.],
           [0., 4., 2.]])
    """
    width = -(-len(h) // up)
    padded = np.zeros(width * up, h.dtype)
    padded[:len(h)] = h
    return np.ascontiguousarray(padded.reshape(width, up).T[:, ::-1])


@compiling.cached_jit(parallel=True, fastmath={"reassoc", "contract"})
def _along_time(taps, x, left, right, up, down, start, y):
    """Channels by samples, time contiguous: one channel's block of outputs per work item.

    The dot products may be reassociated, so that they vectorise; NaN and
    infinity still propagate.
    """
    channels, n = x.shape
    count = y.shape[1]
    width = taps.shape[1]
    edge = left.shape[1]
    blocks = (count + BLOCK - 1) // BLOCK
    for item in prange(channels * blocks):
        c = item // blocks
        for k in range((item % blocks) * BLOCK, min(count, (item % blocks + 1) * BLOCK)):
            t = (start + k) * down
            phase = t % up
            first = t // up - width + 1
            acc = y[c, k]
            if first >= 0 and first + width <= n:
                for j in range(width):
                    acc += taps[phase, j] * x[c, first + j]
            else:
                for j in range(width):
                    i = first + j
                    if i < 0:
                        acc += taps[phase, j] * left[c, edge + i]
                    elif i >= n:
                        acc += taps[phase, j] * right[c, i - n]
                    else:
                        acc += taps[phase, j] * x[c, i]
            y[c, k] = acc


@compiling.cached_jit(parallel=True)
def _decimating_along_time(taps, x, left, right, down, start, y):
    """Channels by samples, ``up == 1``: blocks of outputs from ``down`` dealt streams.

    ``taps`` is the single phase's row; output ``k`` is the dot product of the taps
    with inputs ``(start + k) * down - width + 1`` onward.
    """
    channels, n = x.shape
    count = y.shape[1]
    width = taps.shape[0]
    edge = left.shape[1]
    extra = right.shape[1]
    reach = (width - 1) // down + 1
    blocks = (count + DECIMATION_BLOCK - 1) // DECIMATION_BLOCK
    for item in prange(channels * blocks):
        c = item // blocks
        k0 = (item % blocks) * DECIMATION_BLOCK
        m = min(DECIMATION_BLOCK, count - k0)
        span = m + reach
        streams = np.empty((down, span), x.dtype)
        base = (start + k0) * down - width + 1
        if base >= 0 and base + span * down <= n:
            for r in range(down):
                for i in range(span):
                    streams[r, i] = x[c, base + i * down + r]
        else:
            for r in range(down):
                for i in range(span):
                    t = base + i * down + r
                    if 0 <= t < n:
                        streams[r, i] = x[c, t]
                    elif -edge <= t < 0:
                        streams[r, i] = left[c, edge + t]
                    elif n <= t < n + extra:
                        streams[r, i] = right[c, t - n]
                    else:
                        streams[r, i] = 0
        acc = np.zeros(m, y.dtype)
        for j in range(width):
            w = taps[j]
            stream = streams[j % down]
            offset = j // down
            for b in range(m):
                acc[b] += w * stream[offset + b]
        for b in range(m):
            y[c, k0 + b] = acc[b]


@compiling.cached_jit(parallel=True, fastmath=False)
def _across_channels(taps, x, left, right, up, down, start, y):
    """Samples by channels, channels contiguous: one output row per work item."""
    n, channels = x.shape
    width = taps.shape[1]
    edge = left.shape[0]
    for k in prange(y.shape[0]):
        t = (start + k) * down
        phase = t % up
        first = t // up - width + 1
        for j in range(width):
            w = taps[phase, j]
            i = first + j
            if i < 0:
                for c in range(channels):
                    y[k, c] += w * left[edge + i, c]
            elif i >= n:
                for c in range(channels):
                    y[k, c] += w * right[i - n, c]
            else:
                for c in range(channels):
                    y[k, c] += w * x[i, c]


def upfirdn(h, x, axis, up, down, left, right, start, stop):
    """The ``upfirdn`` kernel: outputs ``start`` to ``stop``, laid out like ``x``."""
    use_numba_threads()
    taps = phases(h, up)
    rows = x if axis == 1 else x.T  # channels by samples, a view
    if left is None:
        left = right = np.zeros((rows.shape[0], taps.shape[1]), x.dtype)
    else:
        left, right = (left, right) if axis == 1 else (left.T, right.T)
    if layout_of(x, axis) == "channel-major":
        y = np.zeros((rows.shape[0], stop - start), x.dtype)
        if up == 1:
            compiling.run(_decimating_along_time, taps[0], rows, left, right, down, start, y)
        else:
            compiling.run(_along_time, taps, rows, left, right, up, down, start, y)
        return y if axis == 1 else y.T
    y = np.zeros((stop - start, rows.shape[0]), x.dtype)
    compiling.run(_across_channels, taps, rows.T, left.T, right.T, up, down, start, y)
    return y.T if axis == 1 else y
