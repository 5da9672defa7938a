"""Multichannel variants: common reference, whitening's pieces (cuBLAS) and phase shift (cuFFT).

The common median reference runs ``kernels/reference.cu``: one thread per
sample selects the median of its group's values (Wirth's selection in the
thread's own array), so no channel-sorted copy is made; groups larger than
the largest compiled capacity, and the mean, use CuPy reductions. The
neighbour reference runs one thread per sample and channel over the channel's
own neighbours (medians of more neighbours than the largest capacity by
CuPy). Channel means and the median of squares are CuPy reductions; the
covariance and the channel-matrix product are cuBLAS matrix products
(float64 blocks of samples for the covariance). The phase shift is one batched real FFT of the
zero-padded channels, a phase ramp per channel built in float64, and the
inverse.
"""

from __future__ import annotations

import math
import sys

import cupy as cp

from dspk.plugin import Variant, source_hash
from dspk_cuda import layout, sources
from dspk_cuda.layout import THREADS, blocks_for, i32, i64

#: Elements of a float64 block of samples in the covariance and phase ramps.
BLOCK_ELEMENTS = 1 << 24


def _median_capacity(count: int) -> int | None:
    return next((c for c in sources.MEDIAN_CAPACITIES if c >= count), None)


def common_reference(x, axis, groups, operator):
    """Each group's channels less the group's per-sample median (selection kernel) or mean."""
    covered = sum(len(g) for g in groups) == x.shape[1 - axis]
    y = layout.output_like(cp, x, axis, x.shape[axis])
    if not covered:
        y[...] = 0
    xc, yc = layout.channel_major(x, axis), layout.channel_major(y, axis)
    x_cs, x_ts = layout.element_strides(xc)
    y_cs, y_ts = layout.element_strides(yc)
    samples = xc.shape[1]
    for members in groups:
        rows = cp.asarray(members, dtype=cp.int64)
        capacity = _median_capacity(rows.size)
        if operator == "median" and capacity is not None:
            run = sources.kernel("reference", x.dtype, f"median_reference<{{t}}, {capacity}>")
            run((blocks_for(samples),), (THREADS,),
                (xc, i64(x_cs), i64(x_ts), yc, i64(y_cs), i64(y_ts), rows, i32(rows.size),
                 i64(samples)))
            continue
        values = xc[rows]
        reference = cp.median(values, axis=0) if operator == "median" else values.mean(axis=0)
        yc[rows] = values - reference
    return y


def neighbour_reference(x, axis, neighbours, operator):
    """Each channel less its neighbours' per-sample median or mean (one thread per sample
    and channel); medians of more neighbours than the largest capacity by CuPy."""
    width = neighbours.shape[1]
    capacity = _median_capacity(width) or sources.MEDIAN_CAPACITIES[0]
    y = layout.output_like(cp, x, axis, x.shape[axis])
    xc, yc = layout.channel_major(x, axis), layout.channel_major(y, axis)
    x_cs, x_ts = layout.element_strides(xc)
    y_cs, y_ts = layout.element_strides(yc)
    channels, samples = xc.shape
    table = cp.asarray(neighbours, dtype=cp.int64)
    run = sources.kernel("reference", x.dtype, f"neighbour_reference<{{t}}, {capacity}>")
    run((blocks_for(samples), channels), (THREADS,),
        (xc, i64(x_cs), i64(x_ts), yc, i64(y_cs), i64(y_ts), table, i32(width), i32(channels),
         i32(operator == "median"), i64(samples)))
    if operator == "median" and _median_capacity(width) is None:
        for c, row in enumerate(neighbours):
            members = row[row >= 0]
            if len(members) > capacity:
                yc[c] = xc[c] - cp.median(xc[cp.asarray(members)], axis=0)
    return y


def channel_mean(x, axis):
    """Per-channel mean, float64."""
    return layout.channel_major(x, axis).mean(axis=1, dtype=cp.float64)


def _centred(block, mean):
    return block if mean is None else block - cp.asarray(mean).astype(block.dtype)[:, None]


def channel_covariance(x, axis, mean):
    """``Xc Xc.T / n`` in float64, one cuBLAS product per block of samples."""
    xc = layout.channel_major(x, axis)
    channels, samples = xc.shape
    step = max(1, BLOCK_ELEMENTS // channels)
    total = cp.zeros((channels, channels), cp.float64)
    for first in range(0, samples, step):
        block = _centred(xc[:, first:first + step].astype(cp.float64), mean)
        total += block @ block.T
    return total / samples


def median_of_squares(x, axis, mean):
    """The median of ``(x - mean) ** 2`` over every channel and sample, in the signal's dtype."""
    centred = _centred(layout.channel_major(x, axis), mean)
    return float(cp.median(cp.square(centred).ravel()))


def apply_channel_matrix(W, x, axis, mean):
    """``W @ (x - mean)`` on channels by samples, one cuBLAS product."""
    y = W @ _centred(layout.channel_major(x, axis), mean)
    return layout.channel_major(y, axis)


def phase_shift(x, axis, shifts, margin):
    """Fractional delays: rfft of the zero-padded channels, a phase ramp each, irfft."""
    v = layout.channel_major(x, axis)
    channels, samples = v.shape
    length = samples + 2 * margin
    padded = cp.zeros((channels, length), x.dtype)
    padded[:, margin:margin + samples] = v
    spectrum = cp.fft.rfft(padded, axis=-1)
    bins = cp.arange(spectrum.shape[1], dtype=cp.float64)
    delays = cp.asarray(shifts, dtype=cp.float64)
    step = max(1, BLOCK_ELEMENTS // spectrum.shape[1])
    for first in range(0, channels, step):
        angle = (-2 * math.pi / length) * delays[first:first + step, None] * bins
        spectrum[first:first + step] *= cp.exp(1j * angle).astype(spectrum.dtype)
    shifted = cp.fft.irfft(spectrum, length, axis=-1)[:, margin:margin + samples]
    y = layout.output_like(cp, x, axis, samples)
    layout.channel_major(y, axis)[...] = shifted
    return y


SOURCE = source_hash(sys.modules[__name__], sources.text("reference"))
VARIANTS = {
    "common_reference": [Variant("cuda-select", common_reference, SOURCE)],
    "neighbour_reference": [Variant("cuda-select", neighbour_reference, SOURCE)],
    "channel_mean": [Variant("cupy-reduce", channel_mean, SOURCE)],
    "channel_covariance": [Variant("cublas-float64-blocks", channel_covariance, SOURCE)],
    "median_of_squares": [Variant("cupy-median", median_of_squares, SOURCE)],
    "apply_channel_matrix": [Variant("cublas", apply_channel_matrix, SOURCE)],
    "phase_shift": [Variant("cufft", phase_shift, SOURCE)],
}
