"""Channel blocks staged through one work array: the helpers of the direct FIR kernel;
the IIR kernels share its chunk length and layout test.

Channels are processed in blocks of ``block``, the innermost loops running across a
block's channels so that they vectorise; a kernel walks through time ``CHUNK`` samples
at a time, staging each chunk of a block into a work array ``work[row, part, channel]``.
Being one array, at offsets that differ modulo a row, the parts are provably disjoint to
the compiler, which lets it vectorise across channels.
"""

import numpy as np
from numba import njit

from dspk_cpu import memory

CHUNK = 256
"""Samples of a block staged in a work array at a time."""


def prepare(x, axis, out, n_out, block):
    """Check the arguments common to all kernels; return channels-first views of x and out.

    Parameters
    ----------
    x : ndarray
        2-D float32 or float64 input.
    axis : {0, 1}
        The time axis of ``x``.
    out : ndarray or None
        Array to write into: ``x``'s dtype and shape, except ``n_out`` samples along
        ``axis``, and not overlapping ``x``. If None, one is allocated in ``x``'s memory
        layout (C if ``x`` is neither C- nor F-contiguous).
    n_out : int
        Number of output samples.
    block : int
        Channels per block, at least 1.

    Returns
    -------
    xc, yc : ndarray
        Views of ``x`` and ``out`` shaped (channels, samples).
    out : ndarray
        The output array.
    """
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D, got {x.ndim}-D")
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x must be float32 or float64, got {x.dtype}")
    if axis not in (0, 1):
        raise ValueError(f"axis must be 0 or 1, got {axis}")
    if block < 1:
        raise ValueError(f"block must be at least 1, got {block}")
    shape = (x.shape[0], n_out) if axis == 1 else (n_out, x.shape[1])
    if out is None:
        order = "F" if x.flags.f_contiguous and not x.flags.c_contiguous else "C"
        out = memory.empty(shape, x.dtype, order=order)
    elif out.shape != shape or out.dtype != x.dtype:
        raise ValueError(f"out must have shape {shape} and dtype {x.dtype}")
    elif np.may_share_memory(out, x):
        raise ValueError("out must not overlap x")
    if axis == 1:
        return x, out, out
    return x.T, out.T, out


@njit(inline="always")
def is_time_major(a):
    """Whether consecutive samples of a (channels, samples) array are closer than channels."""
    return abs(a.strides[1]) <= abs(a.strides[0])


@njit(inline="always")
def stage_in(x, c0, t0, m, work, row0):
    """Copy ``x[c0:c0 + block, t0:t0 + m]`` into ``work[row0:row0 + m, 0, :]``.

    Lanes past the last channel of ``x`` are set to zero.
    """
    block = work.shape[2]
    nb = min(block, x.shape[0] - c0)
    if nb < block:
        for t in range(m):
            for j in range(nb, block):
                work[row0 + t, 0, j] = 0
    if is_time_major(x):  # one channel's run of samples after another
        for j in range(nb):
            for t in range(m):
                work[row0 + t, 0, j] = x[c0 + j, t0 + t]
    elif nb == block:  # sample by sample; a constant-length copy becomes one vector move
        for t in range(m):
            for j in range(block):
                work[row0 + t, 0, j] = x[c0 + j, t0 + t]
    else:
        for t in range(m):
            for j in range(nb):
                work[row0 + t, 0, j] = x[c0 + j, t0 + t]


@njit(inline="always")
def stage_out(work, part, y, c0, t0, m):
    """Copy ``work[:m, part, :]`` into ``y[c0:c0 + block, t0:t0 + m]``.

    Lanes past the last channel of ``y`` are left out.
    """
    block = work.shape[2]
    nb = min(block, y.shape[0] - c0)
    if is_time_major(y):
        for j in range(nb):
            for t in range(m):
                y[c0 + j, t0 + t] = work[t, part, j]
    elif nb == block:
        for t in range(m):
            for j in range(block):
                y[c0 + j, t0 + t] = work[t, part, j]
    else:
        for t in range(m):
            for j in range(nb):
                y[c0 + j, t0 + t] = work[t, part, j]
