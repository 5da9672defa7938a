"""convolve on the GPU: direct tiles, and FFT overlap-save for long filters.

Two methods; ``method="direct"`` and ``"fft"`` pick one, ``"auto"`` lets the
tuner time both (the direct tiles are the default when it does not):

``wgsl-direct-tiled-w<W>`` (``W = 256`` the default)
    A workgroup of ``W`` invocations (a tile) computes ``W`` consecutive
    outputs of one channel. Taps go through workgroup memory ``W`` at a time,
    beside the ``2 W - 1`` input samples they meet, so each input sample and
    tap is read from the storage buffer once per tile. A dispatch covers at
    most :data:`TAPS_PER_DISPATCH` taps (its loop stays within the loop
    budget); later dispatches add to the output. Work per output is one
    multiply-add per tap with no setup and one dispatch per 4096 taps: the
    faster for short filters (up to some hundred taps on a GPU, where the
    block FFTs below cost more per output). The tuner chooses the tile among
    :data:`DIRECT`: a larger tile reads the storage buffer less per
    multiply-add (``3 W`` numbers for ``W**2`` of them), a smaller one leaves
    fewer invocations idle past the end of short signals. A tile above the
    device's workgroup limits is not offered.
``wgsl-fft-overlap-save``
    Each channel is cut into blocks of ``N`` samples (a power of two of about
    four times the taps, see :func:`block_length`) that overlap by
    ``taps - 1``; the framing shader of :mod:`dspk_wgpu.framing` builds them
    as rows (the signal preceded by ``taps - 1`` zeros), the runtime's FFT
    transforms all rows at once, ``convolve_spectra`` multiplies each by
    the taps' spectrum (computed once per call), the inverse FFT returns to
    samples, and ``convolve_keep`` writes each block's last
    ``N - taps + 1`` samples, those free of circular wrap-around. Work per
    output grows with ``log N`` rather than the taps, in five passes over
    the data: the faster for long filters (hundreds of taps and more).

Both compute in the signal's precision (signal and taps share it): float32, or
float64 where the device has ``shader-f64``.
"""

from __future__ import annotations

import math

from dspk.plugin import Problem, Variant, source_hash
from dspk_wgpu import fft, framing, layout
from dspk_wgpu.gpu import Dispatch, shader_source
from dspk_wgpu.launch import Launch, tuned_variants


def _tile(size: int) -> Launch:
    """The direct convolution's launch with tiles of ``size`` outputs: a workgroup of
    ``size`` invocations holding ``size`` taps and ``2 size`` samples."""
    return Launch(size, shared=3 * size)


#: The direct convolution's tiles the tuner times (outputs per workgroup, and taps
#: per pass through workgroup memory), the default first.
DIRECT = (_tile(256), _tile(64), _tile(128), _tile(512))

#: Taps one dispatch covers: 4096 loop iterations, a whole number of any tile.
TAPS_PER_DISPATCH = 4096

#: Shortest overlap-save block, and block length over tap count (about).
MIN_BLOCK = 1024
BLOCK_OVER_TAPS = 4


def convolve_direct(x, h, axis, launch):
    """convolve kernel: full convolution of each channel with its row of ``h``, in tiles
    of ``launch.workgroup`` outputs."""
    real = layout.precision_of(x, h)
    samples, channels = x.shape[axis], x.shape[1 - axis]
    rows, taps = h.shape
    out_len = samples + taps - 1
    y = layout.output_like(x, axis, out_len)
    x_offset, x_sc, x_st = layout.addressing(x, axis)
    _, y_sc, y_st = layout.addressing(y, axis)
    h_offset, h_sr, h_st = layout.addressing(h, 1)
    dispatches = []
    for tap0 in range(0, taps, TAPS_PER_DISPATCH):
        tap_count = min(TAPS_PER_DISPATCH, taps - tap0)
        for tile0, tiles in layout.batches(math.ceil(out_len / launch.workgroup)):
            params = (samples, taps, rows, out_len, tap0, tap_count, int(tap0 > 0), x_offset,
                      x_sc, x_st, y_sc, y_st, h_offset, h_sr, h_st, tile0)
            dispatches.append(Dispatch("convolve_direct", real, params,
                                       (x.buffer, h.buffer, y.buffer), (tiles, channels, 1),
                                       launch.constants))
    x.gpu.run(dispatches)
    return y


def block_length(taps: int, out_len: int) -> int:
    """Overlap-save's FFT length: a power of two near ``4 taps`` (at least 1024), no
    longer than one block holding the whole output needs.

    Examples
    --------
    >>> block_length(129, 65536 + 128), block_length(7, 20)
    (1024, 32)
    """
    def power_of_two(n):
        return 1 << (n - 1).bit_length()
    wanted = max(MIN_BLOCK, power_of_two(BLOCK_OVER_TAPS * taps))
    return min(wanted, power_of_two(out_len + taps - 1))


def convolve_overlap_save(x, h, axis):
    """convolve kernel: FFT overlap-save of each channel with its row of ``h``."""
    real = layout.precision_of(x, h)
    gpu = x.gpu
    samples, channels = x.shape[axis], x.shape[1 - axis]
    taps = h.shape[1]
    out_len = samples + taps - 1
    n = block_length(taps, out_len)
    keep = n - taps + 1
    plan = framing.Segmentation(math.ceil(out_len / keep), keep, n, n, left=taps - 1,
                                boundary="zeros")
    taps_spectrum = fft.transform(h, 1, n, "rfft")
    y = layout.output_like(x, axis, out_len)
    for first, end in framing.row_blocks(channels * plan.segments,
                                         framing.block_rows(gpu, n, real)):
        frames, framing_passes = framing.frame_rows(x, axis, None, plan, first, end)
        spectrum, forward = framing.transformed(frames, "rfft", n)
        blocks, inverse = framing.transformed(spectrum, "irfft", n)
        gpu.run(framing_passes + forward + _multiply(spectrum, taps_spectrum, plan.segments,
                                                     first, end)
                + inverse + _keep(blocks, y, axis, taps, plan.segments, keep, first, end))
    return y


def _multiply(spectrum, taps_spectrum, blocks, first, end):
    """Dispatches: rows ``first .. end - 1`` of block spectra times their channel's taps
    spectrum, in place."""
    bins = spectrum.shape[1]
    x_offset, x_sr, _ = layout.addressing(spectrum, 1)
    h_offset, h_sr, _ = layout.addressing(taps_spectrum, 1)
    return [
        Dispatch("convolve_spectra", layout.precision_of(spectrum, taps_spectrum),
                 (bins, blocks, first, first + row0, end, taps_spectrum.shape[0], x_offset, x_sr,
                  h_offset, h_sr),
                 (taps_spectrum.buffer, spectrum.buffer), grid)
        for row0, grid in framing.element_grid(bins, end - first)]


def _keep(frames, y, axis, taps, blocks, keep, first, end):
    """Dispatches: the wrap-free samples of block rows ``first .. end - 1`` into ``y``."""
    out_len = y.shape[axis]
    c_begin, c_end = first // blocks, (end - 1) // blocks + 1
    if c_end - c_begin > 1:
        t_begin, t_end = 0, out_len
    else:
        t_begin = (first - c_begin * blocks) * keep
        t_end = min(out_len, (end - c_begin * blocks) * keep)
    _, y_sc, y_st = layout.addressing(y, axis)
    return [
        Dispatch("convolve_keep", layout.precision_of(frames, y),
                 (keep, taps, blocks, out_len, first, first, end, frames.shape[1], frames.offset,
                  y_sc, y_st, c_begin + c0, t_begin),
                 (frames.buffer, y.buffer), grid)
        for c0, grid in framing.element_grid(t_end - t_begin, c_end - c_begin)]


def _is_direct(problem: Problem) -> bool:
    return problem.param("method") in ("auto", "direct")


def _is_fft(problem: Problem) -> bool:
    return problem.param("method") in ("auto", "fft")


DIRECT_SOURCE = source_hash(_tile, convolve_direct, shader_source("convolve_direct"))
FFT_SOURCE = source_hash(block_length, convolve_overlap_save, _multiply, _keep,
                         shader_source("convolve_spectra"), shader_source("convolve_keep"),
                         framing.SOURCE, fft.SOURCE)

VARIANTS = {"convolve": [
    *tuned_variants("wgsl-direct-tiled", convolve_direct, DIRECT_SOURCE, DIRECT, _is_direct),
    Variant("wgsl-fft-overlap-save", convolve_overlap_save, FFT_SOURCE, _is_fft),
]}
