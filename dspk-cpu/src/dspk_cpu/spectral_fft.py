"""The ``fft`` kernel on scipy.fft (pocketfft).

Two variants: the whole array in one call, pocketfft's own threads sharing
out its rows, and one slice of channels per thread.
"""

from __future__ import annotations

import sys

import numpy as np
from dspk.plugin import Variant, source_hash
from scipy import fft

from dspk_cpu import spectral_slices
from dspk_cpu.spectral_slices import by_channel_slices
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


SOURCE = source_hash(sys.modules[__name__], spectral_slices)
FFT = [
    Variant("whole-array", transform, SOURCE),
    Variant("channel-threads", transform_channel_threads, SOURCE),
]
