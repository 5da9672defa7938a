"""IIR filters over many channels: cascaded second-order sections and transfer functions.

Each kernel walks one block of channels per ``prange`` iteration. A block's samples are
staged, ``CHUNK`` at a time, in a small work array whose rows hold one sample of every
channel in the block, so the innermost loops run across the block's channels and
vectorise. ``block`` is compiled into the kernel as a constant, which lets those loops
unroll; each block size gets its own kernel.

Work-array layout, ``work[row, part, channel]``: ``part`` 0 holds the staged samples
(row = sample), ``part`` 1 the filter state. Keeping both in one array, at offsets that
differ modulo a row, lets the compiler prove that samples and state never overlap.
"""

import functools

import numpy as np
from numba import njit, prange

CHUNK = 256
"""Samples per channel staged in a block's work array at a time."""


def _prepare(x, axis, out, n_out):
    """Check ``x`` and ``out`` and return channels-first views of both.

    Parameters
    ----------
    x : ndarray
        2-D float32 or float64 input.
    axis : {0, 1}
        The time axis of ``x``.
    out : ndarray or None
        Array to write into, of ``x``'s dtype and shape except ``n_out`` samples along
        ``axis``; allocated in ``x``'s memory layout (C for non-contiguous ``x``) if None.
    n_out : int
        Number of output samples.

    Returns
    -------
    xc, yc : ndarray
        Views of ``x`` and ``out`` shaped (channels, samples).
    out : ndarray
        The output array, laid out like ``x``.
    """
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D, got {x.ndim}-D")
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x must be float32 or float64, got {x.dtype}")
    if axis not in (0, 1):
        raise ValueError(f"axis must be 0 or 1, got {axis}")
    shape = (x.shape[0], n_out) if axis == 1 else (n_out, x.shape[1])
    if out is None:
        order = "F" if x.flags.f_contiguous and not x.flags.c_contiguous else "C"
        out = np.empty(shape, x.dtype, order=order)
    elif out.shape != shape or out.dtype != x.dtype:
        raise ValueError(f"out must have shape {shape} and dtype {x.dtype}")
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


@functools.cache
def _sosfilt_kernel(block):
    """Compile the cascaded-biquad kernel for blocks of ``block`` channels."""

    @njit(cache=True, parallel=True, fastmath=False)
    def kernel(sos, x, y, zi, zf):
        n_sections = sos.shape[0]
        n_channels, n_samples = x.shape
        for first in prange((n_channels + block - 1) // block):
            c0 = first * block
            nb = min(block, n_channels - c0)
            # Section s keeps its two delays in rows 2s and 2s + 1 of part 1.
            work = np.zeros((max(CHUNK, 2 * n_sections), 2, block), x.dtype)
            for s in range(n_sections):
                for j in range(nb):
                    work[2 * s, 1, j] = zi[s, c0 + j, 0]
                    work[2 * s + 1, 1, j] = zi[s, c0 + j, 1]
            for t0 in range(0, n_samples, CHUNK):
                m = min(CHUNK, n_samples - t0)
                for j in range(nb):
                    for t in range(m):
                        work[t, 0, j] = x[c0 + j, t0 + t]
                for t in range(m):
                    for s in range(n_sections):
                        b0, b1, b2 = sos[s, 0], sos[s, 1], sos[s, 2]
                        a1, a2 = sos[s, 4], sos[s, 5]
                        for j in range(block):
                            v = work[t, 0, j]
                            w = b0 * v + work[2 * s, 1, j]
                            work[2 * s, 1, j] = b1 * v - a1 * w + work[2 * s + 1, 1, j]
                            work[2 * s + 1, 1, j] = b2 * v - a2 * w
                            work[t, 0, j] = w
                for j in range(nb):
                    for t in range(m):
                        y[c0 + j, t0 + t] = work[t, 0, j]
            for s in range(n_sections):
                for j in range(nb):
                    zf[s, c0 + j, 0] = work[2 * s, 1, j]
                    zf[s, c0 + j, 1] = work[2 * s + 1, 1, j]

    return kernel


def sosfilt(sos, x, axis, zi=None, out=None, block=8):
    """Filter every channel of ``x`` with a cascade of second-order sections.

    Same result as ``scipy.signal.sosfilt``: each section is a transposed direct form II
    biquad, and all sections are applied to a sample before the next sample is read.

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
        Array of ``x``'s shape and dtype to write the output into; may be ``x`` itself.
    block : int, optional
        Channels filtered together by one thread; each value compiles its own kernel.

    Returns
    -------
    y : ndarray
        The filtered signals, ``out`` if given, else a new array laid out like ``x``.
    zf : ndarray or None
        Final delays, shaped like ``zi``; None if ``zi`` is None.
    """
    sos = np.asarray(sos, x.dtype)
    if sos.ndim != 2 or sos.shape[1] != 6:
        raise ValueError(f"sos must have shape (n_sections, 6), got {sos.shape}")
    xc, yc, out = _prepare(x, axis, out, x.shape[axis])
    state = _initial_state(zi, (sos.shape[0], xc.shape[0], 2), x.dtype)
    zf = np.empty_like(state)
    _sosfilt_kernel(block)(sos, xc, yc, state, zf)
    return out, (None if zi is None else zf)


@functools.cache
def _lfilter_kernel(block):
    """Compile the transfer-function kernel for blocks of ``block`` channels."""

    @njit(cache=True, parallel=True, fastmath=False)
    def kernel(b, a, x, y, zi, zf):
        order = b.shape[0] - 1
        n_channels, n_samples = x.shape
        for first in prange((n_channels + block - 1) // block):
            c0 = first * block
            nb = min(block, n_channels - c0)
            # Part 1: row 0 holds the current output sample, rows 1..order the delays,
            # and row order + 1 a delay that stays zero, so every delay updates alike.
            work = np.zeros((max(CHUNK, order + 2), 2, block), x.dtype)
            for k in range(order):
                for j in range(nb):
                    work[k + 1, 1, j] = zi[c0 + j, k]
            for t0 in range(0, n_samples, CHUNK):
                m = min(CHUNK, n_samples - t0)
                for j in range(nb):
                    for t in range(m):
                        work[t, 0, j] = x[c0 + j, t0 + t]
                for t in range(m):
                    for j in range(block):
                        work[0, 1, j] = b[0] * work[t, 0, j] + work[1, 1, j]
                    for k in range(1, order + 1):
                        bk, ak = b[k], a[k]
                        for j in range(block):
                            work[k, 1, j] = (
                                bk * work[t, 0, j] - ak * work[0, 1, j] + work[k + 1, 1, j]
                            )
                    for j in range(block):
                        work[t, 0, j] = work[0, 1, j]
                for j in range(nb):
                    for t in range(m):
                        y[c0 + j, t0 + t] = work[t, 0, j]
            for k in range(order):
                for j in range(nb):
                    zf[c0 + j, k] = work[k + 1, 1, j]

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
        Array of ``x``'s shape and dtype to write the output into; may be ``x`` itself.
    block : int, optional
        Channels filtered together by one thread; each value compiles its own kernel.

    Returns
    -------
    y : ndarray
        The filtered signals, ``out`` if given, else a new array laid out like ``x``.
    zf : ndarray or None
        Final delays, shaped like ``zi``; None if ``zi`` is None.
    """
    b = np.asarray(b, x.dtype)
    a = np.asarray(a, x.dtype)
    if b.ndim != 1 or b.shape != a.shape or b.size == 0:
        raise ValueError("b and a must be non-empty 1-D arrays of equal length")
    xc, yc, out = _prepare(x, axis, out, x.shape[axis])
    state = _initial_state(zi, (xc.shape[0], b.size - 1), x.dtype)
    zf = np.empty_like(state)
    _lfilter_kernel(block)(b, a, xc, yc, state, zf)
    return out, (None if zi is None else zf)
