"""The ``fft`` kernel on scipy.fft (pocketfft).

Variants: the whole array in one call, pocketfft's own threads sharing out
its rows; one slice of channels per thread; one thread (small arrays); and,
for real FFTs of even length, the first two through complex FFTs of half the
length (:mod:`.halfsize`), other transforms as the first two.
"""

from __future__ import annotations

import numpy as np
from scipy import fft
from scipy.fft import _pocketfft

from dspk.plugin import layout_of
from dspk_cpu.spectral import halfsize
from dspk_cpu.threads import by_channel_slices, threads

_TRANSFORMS = {"rfft": fft.rfft, "irfft": fft.irfft, "fft": fft.fft, "ifft": fft.ifft}
#: pocketfft's own functions, without scipy.fft's backend dispatch (1.4 us a call).
_POCKETFFT = {"rfft": _pocketfft.rfft, "irfft": _pocketfft.irfft, "fft": _pocketfft.fft,
              "ifft": _pocketfft.ifft}
#: pocketfft's scaling code of a forward transform for each ``norm``.
_FORWARD_SCALING = {"backward": 0, "ortho": 1, "forward": 2}


def transform(x, axis, n, kind, norm, workers=None):
    """One of scipy.fft's transforms along ``axis``; ``workers`` defaults to all threads."""
    return _TRANSFORMS[kind](x, n, axis=axis, norm=norm, workers=workers or threads())


def transform_one_thread(x, axis, n, kind, norm):
    """:func:`transform` on the calling thread: for small arrays, where starting
    pocketfft's threads costs more than they save, called without scipy.fft's
    backend dispatch (and a real FFT of the signal's own length without its
    argument handling: the core has checked the arguments)."""
    if kind == "rfft" and n == x.shape[axis]:
        return _pocketfft.pypocketfft.r2c(x, (axis,), True, _FORWARD_SCALING[norm], None, 1)
    return _POCKETFFT[kind](x, n, axis, norm, False, 1)


def transform_channel_threads(x, axis, n, kind, norm):
    """:func:`transform` on one slice of channels per thread."""
    samples = n // 2 + 1 if kind == "rfft" else n
    dtype = np.result_type(x.dtype, np.complex64)
    if kind == "irfft":
        dtype = np.finfo(dtype).dtype
    return by_channel_slices(lambda part: transform(part, axis, n, kind, norm, 1), x, axis,
                             samples, dtype)


def _halfsize_rfft(x, axis, n, norm, workers):
    """:func:`.halfsize.rfft`, looping along time when time is contiguous."""
    if axis == 0 and layout_of(x, axis) == "channel-major":
        return halfsize.rfft(x.T, 1, n, norm, workers).T
    return halfsize.rfft(x, axis, n, norm, workers)


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
