"""IIR filters over many channels: cascaded second-order sections and transfer functions.

Channels are filtered in blocks of ``block``, the innermost loops running across a
block's channels so that they vectorise. ``block`` is compiled into each kernel as a
constant, which lets those loops unroll (one kernel per block size). The blocks are split
into one contiguous group per thread; a group walks through time ``CHUNK`` samples at a
time, and within a chunk through its blocks, so the rows of ``x`` and ``y`` it touches
stay in cache whether time or channels is the contiguous axis.

A group's state lives in one work array, ``work[row, part, channel]``: ``part`` 0 holds
the chunk of samples being filtered (row = sample), ``part`` 1 the filter state of the
group's blocks. Being one array, at offsets that differ modulo a row, samples and state
are provably disjoint to the compiler, which lets it vectorise across channels.

No ``prange`` body takes a view (slice) of an array: numba then declares the kernel's
array arguments free of aliasing, which the copies between them and the work array need
to vectorise; it is also why ``out`` may not overlap ``x``.
"""

import functools

import numba
import numpy as np
from numba import njit, prange

CHUNK = 256
"""Samples of a block staged in a work array at a time."""


def _prepare(x, axis, out, n_out, block):
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
        out = np.empty(shape, x.dtype, order=order)
    elif out.shape != shape or out.dtype != x.dtype:
        raise ValueError(f"out must have shape {shape} and dtype {x.dtype}")
    elif np.may_share_memory(out, x):
        raise ValueError("out must not overlap x")
    if axis == 1:
        return x, out, out
    return x.T, out.T, out


def _initial_state(zi, shape, dtype):
    """Return ``zi`` checked and cast to ``dtype``, or zeros of ``shape`` if None."""
    if zi is None:
        return np.zeros(shape, dtype)
    zi = np.asarray(zi, dtype)
    if zi.shape != shape:
        raise ValueError(f"zi must have shape {shape}, got {zi.shape}")
    return zi


@njit(inline="always")
def _time_major(a):
    """Whether consecutive samples of a (channels, samples) array are closer than channels."""
    return abs(a.strides[1]) <= abs(a.strides[0])


@njit(inline="always")
def _stage_in(x, c0, t0, m, work, row0):
    """Copy ``x[c0:c0 + block, t0:t0 + m]`` into ``work[row0:row0 + m, 0, :]``.

    Lanes past the last channel of ``x`` are set to zero.
    """
    block = work.shape[2]
    nb = min(block, x.shape[0] - c0)
    if nb < block:
        for t in range(m):
            for j in range(nb, block):
                work[row0 + t, 0, j] = 0
    if _time_major(x):  # one channel's run of samples after another
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
def _stage_out(work, part, y, c0, t0, m):
    """Copy ``work[:m, part, :]`` into ``y[c0:c0 + block, t0:t0 + m]``.

    Lanes past the last channel of ``y`` are left out.
    """
    block = work.shape[2]
    nb = min(block, y.shape[0] - c0)
    if _time_major(y):
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


@functools.cache
def _sosfilt_kernel(block):
    """Compile the cascaded-biquad kernel for blocks of ``block`` channels."""

    @njit(cache=True, parallel=True, fastmath=False)
    def kernel(sos, x, y, zi, zf, threads):
        n_sections = sos.shape[0]
        n_channels, n_samples = x.shape
        n_blocks = (n_channels + block - 1) // block
        n_groups = min(n_blocks, threads)
        for g in prange(n_groups):
            first = g * n_blocks // n_groups
            stop = (g + 1) * n_blocks // n_groups
            # The delays of section s of the group's block i are in part 1,
            # rows 2 * (i * n_sections + s) and the next.
            rows = max(CHUNK, 2 * n_sections * (stop - first))
            work = np.zeros((rows, 2, block), x.dtype)
            for ib in range(first, stop):
                c0 = ib * block
                for s in range(n_sections):
                    r = 2 * ((ib - first) * n_sections + s)
                    for j in range(min(block, n_channels - c0)):
                        work[r, 1, j] = zi[s, c0 + j, 0]
                        work[r + 1, 1, j] = zi[s, c0 + j, 1]
            for t0 in range(0, n_samples, CHUNK):
                m = min(CHUNK, n_samples - t0)
                for ib in range(first, stop):
                    _stage_in(x, ib * block, t0, m, work, 0)
                    for t in range(m):
                        for s in range(n_sections):
                            b0, b1, b2 = sos[s, 0], sos[s, 1], sos[s, 2]
                            a1, a2 = sos[s, 4], sos[s, 5]
                            r = 2 * ((ib - first) * n_sections + s)
                            for j in range(block):
                                v = work[t, 0, j]
                                w = b0 * v + work[r, 1, j]
                                work[r, 1, j] = b1 * v - a1 * w + work[r + 1, 1, j]
                                work[r + 1, 1, j] = b2 * v - a2 * w
                                work[t, 0, j] = w
                    _stage_out(work, 0, y, ib * block, t0, m)
            for ib in range(first, stop):
                c0 = ib * block
                for s in range(n_sections):
                    r = 2 * ((ib - first) * n_sections + s)
                    for j in range(min(block, n_channels - c0)):
                        zf[s, c0 + j, 0] = work[r, 1, j]
                        zf[s, c0 + j, 1] = work[r + 1, 1, j]

    return kernel


def sosfilt(sos, x, axis, zi=None, out=None, block=8):
    """Filter every channel of ``x`` with a cascade of second-order sections.

    Same result as ``scipy.signal.sosfilt``: each section is a transposed direct form II
    biquad, and every sample passes through all sections before the next one is read.

    Parameters
    ----------
    sos : ndarray, shape (n_sections, 6)
        Section coefficients ``[b0, b1, b2, 1, a1, a2]`` (normalised, ``sos[:, 3] == 1``),
        in ``x``'s dtype.
    x : ndarray, 2-D, float32 or float64
        Input signals, any memory layout.
    axis : {0, 1}
        The time axis: 1 for (channels, samples), 0 for (samples, channels).
    zi : ndarray, shape (n_sections, channels, 2), optional
        Initial delays of each section and channel; zero if None.
    out : ndarray, optional
        Array of ``x``'s shape and dtype, not overlapping ``x``, to write the output into.
    block : int, optional
        Channels filtered together; each value compiles its own kernel.

    Returns
    -------
    y : ndarray
        The filtered signals: ``out`` if given, else a new array laid out like ``x``.
    zf : ndarray or None
        Final delays, shaped like ``zi``; None if ``zi`` is None.
    """
    xc, yc, out = _prepare(x, axis, out, x.shape[axis], block)
    sos = np.asarray(sos, x.dtype)
    if sos.ndim != 2 or sos.shape[1] != 6:
        raise ValueError(f"sos must have shape (n_sections, 6), got {sos.shape}")
    state = _initial_state(zi, (sos.shape[0], xc.shape[0], 2), x.dtype)
    zf = np.empty_like(state)
    _sosfilt_kernel(block)(sos, xc, yc, state, zf, numba.get_num_threads())
    return out, (None if zi is None else zf)


@functools.cache
def _lfilter_kernel(block):
    """Compile the transfer-function kernel for blocks of ``block`` channels."""

    @njit(cache=True, parallel=True, fastmath=False)
    def kernel(b, a, x, y, zi, zf, threads):
        order = b.shape[0] - 1
        n_channels, n_samples = x.shape
        n_blocks = (n_channels + block - 1) // block
        n_groups = min(n_blocks, threads)
        for g in prange(n_groups):
            first = g * n_blocks // n_groups
            stop = (g + 1) * n_blocks // n_groups
            # The group's block i owns part 1, rows r = i * (order + 2) onwards: row r holds
            # the current output sample, rows r + 1 ... r + order the delays, and row
            # r + order + 1 a delay that stays zero, so that all delays update alike.
            work = np.zeros((max(CHUNK, (order + 2) * (stop - first)), 2, block), x.dtype)
            for ib in range(first, stop):
                c0 = ib * block
                r = (ib - first) * (order + 2)
                for k in range(order):
                    for j in range(min(block, n_channels - c0)):
                        work[r + 1 + k, 1, j] = zi[c0 + j, k]
            for t0 in range(0, n_samples, CHUNK):
                m = min(CHUNK, n_samples - t0)
                for ib in range(first, stop):
                    _stage_in(x, ib * block, t0, m, work, 0)
                    r = (ib - first) * (order + 2)
                    for t in range(m):
                        for j in range(block):
                            work[r, 1, j] = b[0] * work[t, 0, j] + work[r + 1, 1, j]
                        for k in range(1, order + 1):
                            bk, ak = b[k], a[k]
                            for j in range(block):
                                work[r + k, 1, j] = (
                                    bk * work[t, 0, j] - ak * work[r, 1, j] + work[r + k + 1, 1, j]
                                )
                        for j in range(block):
                            work[t, 0, j] = work[r, 1, j]
                    _stage_out(work, 0, y, ib * block, t0, m)
            for ib in range(first, stop):
                c0 = ib * block
                r = (ib - first) * (order + 2)
                for k in range(order):
                    for j in range(min(block, n_channels - c0)):
                        zf[c0 + j, k] = work[r + 1 + k, 1, j]

    return kernel


def lfilter(b, a, x, axis, zi=None, out=None, block=8):
    """Filter every channel of ``x`` with the rational transfer function ``b / a``.

    Same result as ``scipy.signal.lfilter`` (transposed direct form II).

    Parameters
    ----------
    b, a : ndarray, shape (K,)
        Numerator and denominator coefficients, in ``x``'s dtype, of equal length
        (pad the shorter with zeros) and with ``a[0] == 1``.
    x : ndarray, 2-D, float32 or float64
        Input signals, any memory layout.
    axis : {0, 1}
        The time axis: 1 for (channels, samples), 0 for (samples, channels).
    zi : ndarray, shape (channels, K - 1), optional
        Initial delays of each channel; zero if None.
    out : ndarray, optional
        Array of ``x``'s shape and dtype, not overlapping ``x``, to write the output into.
    block : int, optional
        Channels filtered together; each value compiles its own kernel.

    Returns
    -------
    y : ndarray
        The filtered signals: ``out`` if given, else a new array laid out like ``x``.
    zf : ndarray or None
        Final delays, shaped like ``zi``; None if ``zi`` is None.
    """
    xc, yc, out = _prepare(x, axis, out, x.shape[axis], block)
    b = np.asarray(b, x.dtype)
    a = np.asarray(a, x.dtype)
    if b.ndim != 1 or b.shape != a.shape or b.size == 0:
        raise ValueError("b and a must be non-empty 1-D arrays of equal length")
    state = _initial_state(zi, (xc.shape[0], b.size - 1), x.dtype)
    zf = np.empty_like(state)
    _lfilter_kernel(block)(b, a, xc, yc, state, zf, numba.get_num_threads())
    return out, (None if zi is None else zf)
