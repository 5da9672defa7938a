"""The ``fft`` kernel on scipy.fft (pocketfft).

Variants: the whole array in one call, pocketfft's own threads sharing out
its rows; one slice of channels per thread; one thread (small arrays); and,
for real FFTs of even length, the first two through complex FFTs of half the
length (:mod:`dspk_cpu.spectral_halfsize`), other transforms as the first two.
"""

from __future__ import annotations

import sys

import numpy as np
from dspk.plugin import Variant, source_hash
from scipy import fft

from dspk.plugin import layout_of

from dspk_cpu import spectral_halfsize, spectral_slices
from dspk_cpu.spectral_slices import by_channel_slices
from dspk_cpu.threads import threads

_TRANSFORMS = {"rfft": fft.rfft, "irfft": fft.irfft, "fft": fft.fft, "ifft": fft.ifft}


def transform(x, axis, n, kind, norm, workers=None):
    """One of scipy.fft's transforms along ``axis``; ``workers`` defaults to all threads."""
    return _TRANSFORMS[kind](x, n, axis=axis, norm=norm, workers=workers or threads())


def transform_one_thread(x, axis, n, kind, norm):
    """:func:`transform` on the calling thread: for small arrays, where starting
    pocketfft's threads costs more than they save."""
    return transform(x, axis, n, kind, norm, workers=1)


def transform_channel_threads(x, axis, n, kind, norm):
    """:func:`transform` on one slice of channels per thread."""
    samples = n // 2 + 1 if kind == "rfft" else n
    dtype = np.result_type(x.dtype, np.complex64)
    if kind == "irfft":
        dtype = np.finfo(dtype).dtype
    return by_channel_slices(lambda part: transform(part, axis, n, kind, norm, 1), x, axis,
                             samples, dtype)


def _halfsize_rfft(x, axis, n, norm, workers):
    """:func:`spectral_halfsize.rfft`, looping along time when time is contiguous."""
    if axis == 0 and layout_of(x, axis) == "channel-major":
        return spectral_halfsize.rfft(x.T, 1, n, norm, workers).T
    return spectral_halfsize.rfft(x, axis, n, norm, workers)


def transform_halfsize(x, axis, n, kind, norm):
    """Even-length real FFTs through half-length complex FFTs on all threads."""
    if kind != "rfft" or n % 2:
        return transform(x, axis, n, kind, norm)
    return _halfsize_rfft(x, axis, n, norm, threads())


def transform_halfsize_channel_threads(x, axis, n, kind, norm):
    """:func:`transform_halfsize` on one slice of channels per thread."""
    if kind != "rfft" or n % 2:
        return transform_channel_threads(x, axis, n, kind, norm)
    return by_channel_slices(lambda part: _halfsize_rfft(part, axis, n, norm, 1), x, axis,
                             n // 2 + 1, np.result_type(x.dtype, np.complex64))


SOURCE = source_hash(sys.modules[__name__], spectral_slices, spectral_halfsize)
#: The first is what an untimed size runs: pocketfft's own threads, which
#: allocate only the result (the half-length variants allocate the packed
#: spectrum too, and fresh pages cost as much as the transform at 384 x 524288).
FFT = [
    Variant("whole-array", transform, SOURCE),
    Variant("half-length", transform_halfsize, SOURCE),
    Variant("half-length-channel-threads", transform_halfsize_channel_threads, SOURCE),
    Variant("channel-threads", transform_channel_threads, SOURCE),
    Variant("one-thread", transform_one_thread, SOURCE),
]
