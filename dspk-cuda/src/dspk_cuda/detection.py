"""Detection variants: per-channel medians and mean squares (CuPy), threshold peaks
(``kernels/peaks.cu``).

``channel_median`` partitions each channel (``cupy.partition``) and averages the two
middle values in float64; a NaN makes its channel's median NaN. ``channel_mean_square``
is a float64 CuPy reduction by blocks of channels. ``detect_peaks`` runs one thread per
(sample, channel) into an int32 mask laid out samples by channels, whose nonzero entries
(``cupy.nonzero``, on the device) are the peaks in the result's order.
"""

from __future__ import annotations

import sys

import cupy as cp
import numpy as np

from dspk.plugin import Variant, source_hash
from dspk_cuda import layout, sources
from dspk_cuda.layout import THREADS, blocks_for, i32, i64

#: Elements of a float64 block of channels in the mean square.
BLOCK_ELEMENTS = 1 << 24


def channel_median(x, axis, centre):
    """Each channel's median over time of ``x``, or of ``abs(x - centre)``, float64 (device)."""
    values = layout.channel_major(x, axis)
    if centre is not None:
        values = cp.abs(values - cp.asarray(centre).astype(x.dtype)[:, None])
    n = values.shape[1]
    lower, upper = (n - 1) // 2, n // 2
    part = cp.partition(values, upper, axis=1)
    high = part[:, upper].astype(cp.float64)
    low = high if lower == upper else part[:, :upper].max(axis=1).astype(cp.float64)
    median = (low + high) / 2
    return cp.where(cp.isnan(values).any(axis=1), cp.nan, median)


def channel_mean_square(x, axis, centre):
    """Each channel's mean over time of ``(x - centre) ** 2``, in float64 (device)."""
    xc = layout.channel_major(x, axis)
    channels, samples = xc.shape
    shift = None if centre is None else cp.asarray(centre).astype(cp.float64)
    step = max(1, BLOCK_ELEMENTS // samples)
    parts = []
    for first in range(0, channels, step):
        block = xc[first:first + step].astype(cp.float64)
        if shift is not None:
            block = block - shift[first:first + step, None]
        parts.append((block * block).sum(axis=1))
    return cp.concatenate(parts) / samples


def detect_peaks(x, axis, levels, sign, exclude, neighbours):
    """Threshold peaks: a mask kernel, then its nonzero entries on the device."""
    xc = layout.channel_major(x, axis)
    channels, samples = xc.shape
    x_cs, x_ts = layout.element_strides(xc)
    table = np.full((channels, 1), -1, np.int64) if neighbours is None else neighbours
    mask = cp.empty((samples, channels), cp.int32)
    run = sources.kernel("peaks", x.dtype, "peak_mask<{t}>")
    run((blocks_for(samples), channels), (THREADS,),
        (xc, i64(x_cs), i64(x_ts), cp.asarray(levels).astype(x.dtype),
         cp.asarray(np.ascontiguousarray(table, np.int64)), i32(table.shape[1]),
         i32(exclude), i32(sign != "pos"), i32(sign != "neg"), i64(samples), i32(channels),
         mask))
    t, c = cp.nonzero(mask)
    return t.astype(cp.int64), c.astype(cp.int64), xc[c, t]


SOURCE = source_hash(sys.modules[__name__], sources.text("peaks"))
VARIANTS = {
    "channel_median": [Variant("cupy-partition", channel_median, SOURCE)],
    "channel_mean_square": [Variant("cupy-reduce", channel_mean_square, SOURCE)],
    "detect_peaks": [Variant("cuda-mask", detect_peaks, SOURCE)],
}
