"""Direct (time-domain) full convolution of many channels with FIR taps.

Organised like :mod:`.iir`: blocks of ``block`` channels, grouped one group per thread,
each group walking through the output ``CHUNK`` samples at a time. A group's work array
``work[row, part, channel]`` holds in ``part`` 0 the input samples a chunk of a block
needs, in ``part`` 1 the block's taps and in ``part`` 2 the outputs being summed.
"""

import functools

import numba
import numpy as np
from numba import prange

from dspk_cpu import compiling
from dspk_cpu.kernels.channel_blocks import CHUNK, prepare, stage_in, stage_out


@functools.cache
def _convolve_kernel(block):
    """Compile the direct-convolution kernel for blocks of ``block`` channels."""

    @compiling.cached_jit(parallel=True, fastmath=False)
    def kernel(x, h, y, threads):
        n_channels, n = x.shape
        k = h.shape[1]
        n_blocks = (n_channels + block - 1) // block
        n_groups = min(n_blocks, threads)
        for g in prange(n_groups):
            work = np.zeros((CHUNK + k - 1, 3, block), x.dtype)
            for t0 in range(0, n + k - 1, CHUNK):
                m = min(CHUNK, n + k - 1 - t0)
                # Outputs t0 ... t0 + m - 1 read inputs lo ... hi - 1; input u is staged
                # in row u - t0 + k - 1.
                lo = max(0, t0 - k + 1)
                hi = min(n, t0 + m)
                for ib in range(g * n_blocks // n_groups, (g + 1) * n_blocks // n_groups):
                    c0 = ib * block
                    for j in range(min(block, n_channels - c0)):
                        row = 0 if h.shape[0] == 1 else c0 + j
                        for i in range(k):
                            work[i, 1, j] = h[row, i]
                    stage_in(x, c0, lo, hi - lo, work, lo - t0 + k - 1)
                    for t in range(m):
                        for j in range(block):
                            work[t, 2, j] = 0
                    for i in range(k):
                        # Output t0 + t gains tap i times input t0 + t - i, if there is one.
                        # Unsigned indices spare numba's negative-index handling, which would
                        # keep the compiler from vectorising this loop cleanly.
                        t_lo = max(0, i - t0)
                        count = max(0, min(m, n + i - t0) - t_lo)
                        t_first = np.uint64(t_lo)
                        r_first = np.uint64(t_lo - i + k - 1)
                        for d in range(np.uint64(count)):
                            for j in range(block):
                                work[t_first + d, 2, j] += (
                                    work[i, 1, j] * work[r_first + d, 0, j]
                                )
                    stage_out(work, 2, y, c0, t0, m)

    return kernel


def convolve_direct(x, h, axis, out=None, block=8):
    """Full linear convolution of every channel of ``x`` with FIR taps, in the time domain.

    Per channel, the same result as ``numpy.convolve(x_channel, h_row, mode="full")``.

    Parameters
    ----------
    x : ndarray, 2-D, float32 or float64
        Input signals, any memory layout.
    h : ndarray, shape (1, k) or (channels, k)
        Taps in ``x``'s dtype: one row for all channels, or one row per channel.
    axis : {0, 1}
        The time axis: 1 for (channels, samples), 0 for (samples, channels).
    out : ndarray, optional
        Array to write the output into, not overlapping ``x``: ``x``'s dtype and shape,
        except ``n + k - 1`` samples along ``axis``.
    block : int, optional
        Channels convolved together; each value compiles its own kernel.

    Returns
    -------
    y : ndarray
        The convolved signals, ``n + k - 1`` samples long along ``axis``: ``out`` if
        given, else a new array laid out like ``x``.
    """
    h = np.asarray(h, x.dtype)
    if h.ndim != 2 or h.shape[1] == 0:
        raise ValueError(f"h must have shape (1, k) or (channels, k), got {h.shape}")
    xc, yc, out = prepare(x, axis, out, x.shape[axis] + h.shape[1] - 1, block)
    if h.shape[0] not in (1, xc.shape[0]):
        raise ValueError(f"h must have 1 or {xc.shape[0]} rows, got {h.shape[0]}")
    compiling.run(_convolve_kernel(block), xc, h, yc, numba.get_num_threads())
    return out
