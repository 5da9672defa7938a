"""Trend removal, and segment spectra: the extended signal, its overlapping segments and
their detrended, windowed FFTs.

The ``detrend`` kernel takes 2-D signals with time along ``axis``; the segment
functions take channel-major 2-D views (channels by samples). Work on segments
is cut into blocks of about :data:`BLOCK_ELEMENTS` segment samples, so that
memory stays bounded however long the signal.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from scipy import fft

from dspk.operations.spectral import BOUNDARY_PADDING
from dspk_cpu.layout import channel_major
from dspk_cpu.threads import by_channel_slices

#: Segment samples (channels x segments x FFT length) per block of work.
BLOCK_ELEMENTS = 1 << 21


def detrended(v: np.ndarray, kind: str) -> np.ndarray:
    """``v`` less its mean or least-squares line (``kind`` "constant", "linear"), per last axis.

    The line is fitted to the centred sample index, so that mean and slope
    are independent sums.

    Always a new array of ``v``'s dtype (real or complex).

    Examples
    --------
    >>> detrended(np.array([1.0, 2.0, 4.0]), "linear")
    array([ 0.16666667, -0.33333333,  0.16666667])
    """
    mean = v.mean(axis=-1, keepdims=True)
    n = v.shape[-1]
    if kind == "constant" or n < 2:
        return v - mean
    ramp = np.arange(n, dtype=mean.real.dtype) - (n - 1) / 2
    slope = (v @ ramp) / (n * (n * n - 1) / 12)  # the sum of ramp ** 2
    return v - mean - slope[..., None] * ramp


def detrend_whole(x, axis, kind, bp):
    """Each piece between break points ``bp`` of every channel, vectorised over all channels."""
    v = channel_major(x, axis)
    y = np.empty_like(v)
    for lo, hi in zip(bp[:-1], bp[1:]):
        y[:, lo:hi] = detrended(v[:, lo:hi], kind)
    return channel_major(y, axis)


def detrend_channel_threads(x, axis, kind, bp):
    """:func:`detrend_whole` on one slice of channels per thread."""
    return by_channel_slices(lambda part: detrend_whole(part, axis, kind, bp), x, axis,
                             x.shape[axis], x.dtype)


def extended(v: np.ndarray, edge: int, boundary: str | None, pad: int) -> np.ndarray:
    """``v`` extended by ``edge`` samples at both ends as ``boundary`` says, then ``pad`` zeros.

    Examples
    --------
    >>> extended(np.array([[1.0, 2.0, 3.0]]), 1, "odd", 2)
    array([[0., 1., 2., 3., 4., 0., 0.]])
    """
    if boundary is not None and edge:
        v = np.pad(v, ((0, 0), (edge, edge)), **BOUNDARY_PADDING[boundary])
    if pad:
        v = np.pad(v, ((0, 0), (0, pad)))
    return v


def blocks(total: int, size: int) -> Iterator[slice]:
    """``range(total)`` in consecutive slices of at most ``size``.

    Examples
    --------
    >>> list(blocks(5, 2))
    [slice(0, 2, None), slice(2, 4, None), slice(4, 5, None)]
    """
    for start in range(0, total, size):
        yield slice(start, min(start + size, total))


def block_size(elements_per_item: int) -> int:
    """Items per block so that a block holds about :data:`BLOCK_ELEMENTS` elements."""
    return max(1, BLOCK_ELEMENTS // max(elements_per_item, 1))


def spectra(v, segments, window, step, nfft, detrend, sides, workers):
    """FFTs of the detrended, windowed segments ``segments`` (a slice) of ``v``.

    Parameters
    ----------
    v : ndarray
        Channels by samples, real or complex.
    segments : slice
        Which segments, counted from the start of ``v``.
    window : ndarray
        Of ``nperseg`` samples, in ``v``'s real dtype.
    step : int
        Samples from one segment's start to the next.
    nfft : int
        FFT length (segments are zero-padded to it).
    detrend : str or None
        ``"constant"``, ``"linear"`` or None, applied to each segment.
    sides : str
        ``"onesided"`` (a real FFT) or ``"twosided"``.
    workers : int
        pocketfft threads.

    Returns
    -------
    ndarray
        Complex, channels by segments by frequencies.
    """
    nperseg = len(window)
    start = segments.start * step
    span = v[:, start:start + (segments.stop - segments.start - 1) * step + nperseg]
    pieces = sliding_window_view(span, nperseg, axis=-1)[:, ::step]
    if detrend is None:
        windowed = pieces * window
    else:
        windowed = detrended(pieces, detrend)
        windowed *= window
    if sides == "onesided":
        return fft.rfft(windowed, nfft, axis=-1, workers=workers)
    return fft.fft(windowed, nfft, axis=-1, workers=workers)
