"""stft, csd and istft on the GPU: framing shaders around the runtime's batched FFT.

Every segment of every channel is one row ``r = c * segments + s`` of a
*segment table*. The kernels walk that table in blocks of rows small enough
for one storage binding (:func:`block_rows`) and, per block:

1. ``framing_segments.wgsl`` builds the rows in one pass: the boundary
   extension, the zero padding, the segment's mean or least-squares line
   removed (a workgroup reduction per row), the window, zeros up to ``nfft``;
2. the runtime's FFT (:func:`dspk_wgpu.fft.plan`) transforms all rows at once
   (``rfft`` for one-sided real input, ``fft`` otherwise);
3. one shader finishes: ``framing_values.wgsl`` (stft: weights and the value
   transform, written frequencies by segments), ``framing_mean.wgsl`` (csd's
   mean: each (channel, bin) sums its segments, adding to the block before)
   or ``framing_median.wgsl`` (csd's median: 33 bisection passes on the
   values' order-preserving 32-bit keys, 65 on 64-bit keys in float64, whole
   channels per block);
   ``framing_unwrap.wgsl`` then unwraps stft's "phase" along frequency.

istft reverses it: ``framing_gather.wgsl`` copies each segment's bins into a
row, the inverse FFT transforms the block, and ``framing_overlap_add.wgsl``
lets each output sample sum the windowed segments that cover it (a gather,
so no atomics), dividing by the overlap-added squared window at the end.
Each block is one command buffer. Loops stay within
:data:`~dspk_wgpu.gpu.LOOP_BUDGET` by cutting the segments a dispatch sums
into chunks.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

from dspk.kernel_support import segments as segment_support
from dspk.plugin import Variant, source_hash
from dspk_wgpu import fft, layout
from dspk_wgpu.arrays import WgpuArray
from dspk_wgpu.gpu import LOOP_BUDGET, REAL_BYTES, Dispatch, Gpu, real_dtype, shader_source

#: Invocations per workgroup of the one-invocation-per-element shaders.
WORKGROUP = 64

#: Most bytes of one block's work array (also capped by the device's binding size).
WORK_BYTES = 1 << 27

#: Shader codes of the boundary extensions and detrends.
BOUNDARIES = {None: 0, "zeros": 0, "even": 1, "odd": 2, "constant": 3}
DETRENDS = {None: 0, "constant": 1, "linear": 2}

#: Shader codes of stft's values ("phase" is "angle", then unwrapped).
VALUES = {"complex": 0, "power": 1, "magnitude": 2, "angle": 3, "phase": 3}

#: Bisection passes of the median over its keys (32 bits in float32, 64 in float64),
#: plus the final pass.
MEDIAN_PASSES = {"f32": 33, "f64": 65}

#: State words of the median per (channel, bin) (``SLOT`` in ``framing_median.wgsl``).
MEDIAN_STATE_WORDS = 14


@dataclass(frozen=True)
class Segmentation:
    """How rows of a segment table are cut from a signal.

    Parameters
    ----------
    segments : int
        Segments per channel.
    step, nperseg, nfft : int
        Hop between segment starts, samples per segment, row length.
    left, right : int
        Samples of boundary extension before and after the signal; the
        extended signal is zero beyond them.
    boundary : str or None
        A key of :data:`BOUNDARIES`.
    detrend : str or None
        A key of :data:`DETRENDS`.
    """

    segments: int
    step: int
    nperseg: int
    nfft: int
    left: int = 0
    right: int = 0
    boundary: str | None = None
    detrend: str | None = None


def block_rows(gpu: Gpu, row_elements: int, real: str) -> int:
    """Rows of ``row_elements`` complex values of precision ``real`` that one block's work
    array holds."""
    limit = min(WORK_BYTES, gpu.device.limits["max-storage-buffer-binding-size"])
    return max(1, limit // (2 * REAL_BYTES[real] * max(row_elements, 1)))


def row_blocks(total: int, size: int):
    """``(first, end)`` row ranges of at most ``size`` rows covering ``total``."""
    for first in range(0, total, size):
        yield first, min(first + size, total)


def transformed(rows: WgpuArray, kind: str, n: int) -> tuple[WgpuArray, list[Dispatch]]:
    """A new array for ``kind`` of ``n`` points of each row of 2-D ``rows``, and the
    dispatches of :func:`dspk_wgpu.fft.plan` (unnormalised forward) that fill it."""
    result = WgpuArray.empty(rows.gpu, (rows.shape[0], fft.output_length(kind, n)),
                             real_dtype(layout.precision_of(rows), kind != "irfft"))
    dispatches = fft.plan(rows.gpu, "workgroup", kind, n, "backward", rows.shape[0],
                          fft.View.of(rows, 1), fft.View.of(result, 1))
    return result, dispatches


def frame_rows(x: WgpuArray, axis: int, window: WgpuArray | None, plan: Segmentation,
               first: int, end: int) -> tuple[WgpuArray, list[Dispatch]]:
    """Rows ``first .. end - 1`` of ``x``'s segment table, dense ``(end - first, nfft)``,
    and the dispatches that build them.

    Complex ``x`` gives complex rows. A one-channel ``x`` serves every
    channel's rows. ``window`` None leaves the segments unwindowed.
    """
    real = layout.precision_of(x, window)
    complex_input = x.dtype.kind == "c"
    frames = WgpuArray.empty(x.gpu, (end - first, plan.nfft), x.dtype)
    offset, channel_stride, time_stride = layout.addressing(x, axis)
    flags = int(complex_input) | (2 if window is not None else 0) | (4 if x.shape[1 - axis] == 1
                                                                        else 0)
    window_buffer = x.buffer if window is None else layout.dense(window).buffer
    dispatches = [
        Dispatch("framing_segments", real,
                 (x.shape[axis], plan.left, plan.right, BOUNDARIES[plan.boundary], plan.step,
                  plan.nperseg, plan.nfft, DETRENDS[plan.detrend], plan.segments, offset,
                  channel_stride, time_stride, first + row0, flags, first),
                 (x.buffer, window_buffer, frames.buffer), (count, 1, 1))
        for row0, count in layout.batches(end - first)]
    return frames, dispatches


def spectra(x: WgpuArray, axis: int, window: WgpuArray, plan: Segmentation, sides: str,
            first: int, end: int) -> tuple[WgpuArray, list[Dispatch]]:
    """FFTs of rows ``first .. end - 1`` of the segment table, ``(end - first, bins)``
    complex, and the dispatches that frame and transform them."""
    frames, framing = frame_rows(x, axis, window, plan, first, end)
    spectrum, transform = transformed(frames, "rfft" if sides == "onesided" else "fft",
                                      plan.nfft)
    return spectrum, framing + transform


def element_grid(count: int, rows: int):
    """Dispatch grids of ``count`` elements (x, in workgroups of 64) by ``rows`` (y, batched)."""
    for row0, batch in layout.batches(rows):
        yield row0, (math.ceil(count / WORKGROUP), batch, 1)


# -- stft ---------------------------------------------------------------------------------

def stft_fused(x, axis, window, step, nfft, detrend, sides, boundary, pad, weights, value):
    """stft kernel: fused framing, batched FFT, weights and value, in blocks of segments."""
    real = layout.precision_of(x, window, weights)
    gpu = x.gpu
    nperseg = window.shape[0]
    channels, samples = x.shape[1 - axis], x.shape[axis]
    edge, segments = segment_support.stft_extent(samples, nperseg, step, boundary, pad)
    plan = Segmentation(segments, step, nperseg, nfft, edge, edge, boundary, detrend)
    bins = segment_support.bin_count(nfft, sides)
    shape = (channels, bins, segments) if axis == 1 else (bins, channels, segments)
    z = WgpuArray.empty(gpu, shape, real_dtype(real, value == "complex"))
    out_sc, out_sb, out_ss = (z.element_strides if axis == 1 else
                              (z.element_strides[1], z.element_strides[0], 1))
    weights = layout.dense(weights)
    total = channels * segments
    for first, end in row_blocks(total, block_rows(gpu, nfft, real)):
        spectrum, dispatches = spectra(x, axis, window, plan, sides, first, end)
        z_offset, z_sr, z_sb = layout.addressing(spectrum, 1)
        finish = [Dispatch("framing_values", real,
                           (bins, segments, first, first + row0, end, VALUES[value], out_sc,
                            out_sb, out_ss, z_offset, z_sr, z_sb,
                            nfft if sides == "onesided" else 0),
                           (spectrum.buffer, weights.buffer, z.buffer), grid)
                  for row0, grid in element_grid(bins, end - first)]
        gpu.run(dispatches + finish)
    if value == "phase":
        _unwrap(z, total, segments, bins, (out_sc, out_sb, out_ss))
    return z


def _unwrap(z: WgpuArray, lines: int, segments: int, bins: int, strides) -> None:
    """numpy.unwrap of the angles in ``z`` along frequency, in place."""
    real = layout.precision_of(z)
    carry = z.gpu.zeros(2 * REAL_BYTES[real] * lines)
    dispatches = []
    for bin_begin in range(0, bins, LOOP_BUDGET):
        for line0, count in layout.batches(math.ceil(lines / WORKGROUP)):
            dispatches.append(Dispatch(
                "framing_unwrap", real,
                (lines, segments, bin_begin, min(bins, bin_begin + LOOP_BUDGET), *strides,
                 line0 * WORKGROUP),
                (carry, z.buffer), (count, 1, 1)))
    z.gpu.run(dispatches)


# -- csd ----------------------------------------------------------------------------------

def _csd_plan(x, y, axis, window, step, nfft, detrend) -> Segmentation:
    """The segments of the longer signal; the shorter reads as zeros past its end."""
    samples = x.shape[axis] if y is None else max(x.shape[axis], y.shape[axis])
    nperseg = window.shape[0]
    return Segmentation(segment_support.segment_count(samples, nperseg, step), step, nperseg,
                        nfft, detrend=detrend)


def csd_fused(x, y, axis, window, step, nfft, detrend, sides, weights, average):
    """csd kernel: fused framing, batched FFT and a mean or median over segments.

    The mean walks the segment table in blocks of rows; the median in blocks
    of whole channels.
    """
    real = layout.precision_of(x, y, window, weights)
    gpu = x.gpu
    plan = _csd_plan(x, y, axis, window, step, nfft, detrend)
    channels = max(x.shape[1 - axis], 1 if y is None else y.shape[1 - axis])
    bins = segment_support.bin_count(nfft, sides)
    cross = y is not None
    shape = (channels, bins) if axis == 1 else (bins, channels)
    p = WgpuArray.empty(gpu, shape, real_dtype(real, cross))
    out_sc, out_sb = p.element_strides if axis == 1 else p.element_strides[::-1]
    weights = layout.dense(weights)
    reduce = _mean_dispatches if average == "mean" else _median_dispatches
    per_block = block_rows(gpu, nfft, real)
    if average == "median":
        per_block = plan.segments * max(1, per_block // plan.segments)
    for first, end in row_blocks(channels * plan.segments, per_block):
        xs, dispatches = spectra(x, axis, window, plan, sides, first, end)
        ys = None
        if y is not None:
            ys, y_dispatches = spectra(y, axis, window, plan, sides, first, end)
            dispatches += y_dispatches
        gpu.run(dispatches + reduce(xs, ys, weights, p, plan.segments, bins, first, end,
                                    (out_sc, out_sb)))
    return p


def _operands(xs, ys, weights):
    """Buffers and addressing shared by the mean and median shaders (``xs`` stands in for
    an absent ``ys``)."""
    ys = xs if ys is None else ys
    return ((xs.buffer, ys.buffer, weights.buffer),
            (*layout.addressing(xs, 1), *layout.addressing(ys, 1)))


def _mean_dispatches(xs, ys, weights, p, segments, bins, first, end, out_strides):
    buffers, addressing = _operands(xs, ys, weights)
    dispatches = []
    for row_begin, row_end in row_blocks(end - first, LOOP_BUDGET):
        row_begin, row_end = first + row_begin, first + row_end
        c_begin, c_end = row_begin // segments, (row_end - 1) // segments + 1
        for c0, grid in element_grid(bins, c_end - c_begin):
            dispatches.append(Dispatch(
                "framing_mean", layout.precision_of(p),
                (bins, segments, first, row_begin, row_end, int(ys is not None), *out_strides,
                 c_begin + c0, *addressing),
                (*buffers, p.buffer), grid))
    return dispatches


def _median_dispatches(xs, ys, weights, p, segments, bins, first, end, out_strides):
    buffers, addressing = _operands(xs, ys, weights)
    real = layout.precision_of(p)
    c_begin, c_end = first // segments, end // segments
    state = p.gpu.zeros(4 * MEDIAN_STATE_WORDS * (c_end - c_begin) * bins)
    dispatches = []
    for step in range(MEDIAN_PASSES[real]):
        for seg_begin, seg_end in row_blocks(segments, LOOP_BUDGET):
            for c0, grid in element_grid(bins, c_end - c_begin):
                if c0:
                    raise ValueError("csd median: more than 65535 channels in one block")
                dispatches.append(Dispatch(
                    "framing_median", real,
                    (bins, segments, c_begin, step, seg_begin, seg_end, int(ys is not None),
                     *out_strides, *addressing),
                    (*buffers, state, p.buffer), grid))
    return dispatches


# -- istft --------------------------------------------------------------------------------

def istft_overlap_add(z, window, step, nfft, sides, divisor, trim):
    """istft kernel: gather, batched inverse FFT, and overlap-add as a gather per sample."""
    real = layout.precision_of(z, window, divisor)
    gpu = z.gpu
    channels, bins, segments = z.shape
    nperseg = window.shape[0]
    out_len = divisor.shape[0]
    onesided = sides == "onesided"
    x = WgpuArray.empty(gpu, (channels, out_len), real_dtype(real, not onesided))
    window, divisor = layout.dense(window), layout.dense(divisor)
    z_sc, z_sb, z_ss = z.element_strides
    for first, end in row_blocks(channels * segments, block_rows(gpu, max(bins, nfft), real)):
        rows = WgpuArray.empty(gpu, (end - first, bins), real_dtype(real, True))
        gather = [Dispatch("framing_gather", real,
                           (bins, segments, first, first + row0, end, z.offset, z_sc, z_sb, z_ss),
                           (z.buffer, rows.buffer), grid)
                  for row0, grid in element_grid(bins, end - first)]
        frames, inverse = transformed(rows, "irfft" if onesided else "ifft", nfft)
        gpu.run(gather + inverse + _overlap_add_dispatches(
            frames, window, divisor, x, segments, step, trim, first, end, nperseg, not onesided))
    return x


def _overlap_add_dispatches(frames, window, divisor, x, segments, step, trim, first, end,
                            nperseg, complex_frames):
    out_len = divisor.shape[0]
    c_begin, c_end = first // segments, (end - 1) // segments + 1
    if c_end - c_begin > 1:
        u_begin, u_end = trim, trim + out_len
    else:
        s_begin, s_end = first - c_begin * segments, end - c_begin * segments
        u_begin = max(trim, s_begin * step)
        u_end = min(trim + out_len, (s_end - 1) * step + nperseg)
    return [Dispatch("framing_overlap_add", layout.precision_of(frames, x),
                     (nperseg, step, segments, trim, out_len, first, first, end,
                      int(complex_frames), frames.shape[1], c_begin + c0, u_begin),
                     (frames.buffer, window.buffer, divisor.buffer, x.buffer), grid)
            for c0, grid in element_grid(max(0, u_end - u_begin), c_end - c_begin)]


SOURCE = source_hash(sys.modules[__name__], segment_support,
                     *(shader_source(f"framing_{name}") for name in
                       ("segments", "values", "unwrap", "mean", "median", "gather",
                        "overlap_add")))

VARIANTS = {
    "stft": [Variant("wgsl-fused-frames", stft_fused, SOURCE)],
    "csd": [Variant("wgsl-fused-frames", csd_fused, SOURCE)],
    "istft": [Variant("wgsl-overlap-gather", istft_overlap_add, SOURCE)],
}
