"""FFT-based variants through cuFFT (cupy.fft): fft, hilbert, resample, and detrend.

Every transform runs batched along the time axis as it lies in memory;
cupy.fft reuses cuFFT plans from its plan cache. float32 stays in single
precision (complex64), float64 in double.
"""

from __future__ import annotations

import sys

import cupy as cp

from dspk.plugin import Variant, source_hash
from dspk_cuda import layout

_TRANSFORMS = {"rfft": cp.fft.rfft, "irfft": cp.fft.irfft, "fft": cp.fft.fft,
               "ifft": cp.fft.ifft}


def _time_slice(axis: int, part: slice) -> tuple:
    return (part, slice(None)) if axis == 0 else (slice(None), part)


def transform(x, axis, n, kind, norm):
    """One of rfft, irfft, fft, ifft along ``axis``, as cupy.fft computes it."""
    return _TRANSFORMS[kind](x, n, axis=axis, norm=norm)


def analytic(x, axis, n):
    """The analytic signal: the real FFT's positive half doubled, then a complex inverse."""
    half = cp.fft.rfft(x, n, axis=axis)
    shape = list(x.shape)
    shape[axis] = n
    full = cp.zeros(shape, half.dtype)
    full[_time_slice(axis, slice(0, half.shape[axis]))] = half
    full[_time_slice(axis, slice(1, (n + 1) // 2))] *= 2
    return cp.fft.ifft(full, axis=axis)


def resample(x, axis, num, weights):
    """``irfft(rfft(x)[:m] * weights, num)`` along ``axis``."""
    spectrum = cp.fft.rfft(x, axis=axis)[_time_slice(axis, slice(0, weights.size))]
    spectrum *= weights.reshape((1, -1) if axis == 1 else (-1, 1))
    return cp.fft.irfft(spectrum, num, axis=axis)


def detrended(v, kind: str):
    """``v`` less its mean, or its least-squares line, along the last axis (any leading shape).

    The line is fitted against the centred sample index, so that its
    intercept is the mean and its slope one more sum.
    """
    mean = v.mean(axis=-1, keepdims=True)
    n = v.shape[-1]
    if kind == "constant" or n < 2:
        return v - mean
    ramp = cp.arange(n, dtype=mean.real.dtype) - (n - 1) / 2
    slope = (v * ramp).sum(axis=-1, keepdims=True) / (n * (n * n - 1) / 12)
    return v - mean - slope * ramp


def detrend(x, axis, kind, bp):
    """Each piece between break points ``bp`` of every channel, all channels at once."""
    v = layout.channel_major(x, axis)
    y = layout.output_like(cp, x, axis, x.shape[axis])
    out = layout.channel_major(y, axis)
    for lo, hi in zip(bp[:-1], bp[1:]):
        out[:, lo:hi] = detrended(v[:, lo:hi], kind)
    return y


SOURCE = source_hash(sys.modules[__name__])
VARIANTS = {
    "fft": [Variant("cufft", transform, SOURCE)],
    "hilbert": [Variant("cufft", analytic, SOURCE)],
    "resample": [Variant("cufft", resample, SOURCE)],
    "detrend": [Variant("cupy-sums", detrend, SOURCE)],
}
