"""The ``fft`` and ``hilbert`` kernels on scipy.fft (pocketfft).

Each has two variants: the whole array in one call, pocketfft's own threads
sharing out its rows, and one slice of channels per thread.
"""

from __future__ import annotations

import sys

import numpy as np
from dspk.plugin import Variant, source_hash
from scipy import fft

from dspk_cpu import spectral_slices
from dspk_cpu.spectral_slices import by_channel_slices
from dspk_cpu.layout import samples_index
from dspk_cpu.threads import threads

_TRANSFORMS = {"rfft": fft.rfft, "irfft": fft.irfft, "fft": fft.fft, "ifft": fft.ifft}


def transform(x, axis, n, kind, norm, workers=None):
    """One of scipy.fft's transforms along ``axis``; ``workers`` defaults to all threads."""
    return _TRANSFORMS[kind](x, n, axis=axis, norm=norm, workers=workers or threads())


def transform_channel_threads(x, axis, n, kind, norm):
    """:func:`transform` on one slice of channels per thread."""
    samples = n // 2 + 1 if kind == "rfft" else n
    dtype = np.result_type(x.dtype, np.complex64)
    if kind == "irfft":
        dtype = np.finfo(dtype).dtype
    return by_channel_slices(lambda part: transform(part, axis, n, kind, norm, 1), x, axis,
                             samples, dtype)


def analytic(x, axis, n, workers=None):
    """The analytic signal of real channels: the real FFT's positive half, doubled, inverted."""
    half = fft.rfft(x, n, axis=axis, workers=workers or threads())
    full = np.zeros(x.shape[:axis] + (n,) + x.shape[axis + 1:], half.dtype)
    full[samples_index(axis, slice(0, half.shape[axis]))] = half
    full[samples_index(axis, slice(1, (n + 1) // 2))] *= 2
    return fft.ifft(full, axis=axis, overwrite_x=True, workers=workers or threads())


def analytic_channel_threads(x, axis, n):
    """:func:`analytic` on one slice of channels per thread."""
    dtype = np.result_type(x.dtype, np.complex64)
    return by_channel_slices(lambda part: analytic(part, axis, n, 1), x, axis, n, dtype)


SOURCE = source_hash(sys.modules[__name__], spectral_slices)
FFT = [
    Variant("whole-array", transform, SOURCE),
    Variant("channel-threads", transform_channel_threads, SOURCE),
]
HILBERT = [
    Variant("whole-array", analytic, SOURCE),
    Variant("channel-threads", analytic_channel_threads, SOURCE),
]
