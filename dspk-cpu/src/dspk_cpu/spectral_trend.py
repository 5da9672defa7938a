"""Trend removal: the ``detrend`` kernel, and the detrend of every segment of a spectrum."""

from __future__ import annotations

import sys

import numpy as np
from dspk.plugin import Variant, source_hash

from dspk_cpu import spectral_slices
from dspk_cpu.layout import channel_major
from dspk_cpu.spectral_slices import by_channel_slices


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


SOURCE = source_hash(sys.modules[__name__], spectral_slices)
DETREND = [
    Variant("whole-array", detrend_whole, SOURCE),
    Variant("channel-threads", detrend_channel_threads, SOURCE),
]
