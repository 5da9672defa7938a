"""convolve variants: a direct kernel (``kernels/fir.cu``) and FFT overlap-save through cuFFT.

The direct kernel keeps taps and the input window of a tile of outputs in
shared memory and several outputs per thread in registers; its cost grows
with the tap count. Overlap-save cuts every channel into blocks of ``F``
samples overlapping by ``taps - 1`` (a strided view, copied once by the
FFT), multiplies their real FFTs by the taps' and keeps the last
``F - taps + 1`` samples of each inverse; ``F`` is a power of two about
eight times the taps. cuFFT plans are reused through CuPy's plan cache. The
tuner chooses between them per tap bucket and length.
"""

from __future__ import annotations

import sys

import cupy as cp

from dspk.plugin import Problem, Variant, source_hash
from dspk_cuda import layout, sources
from dspk_cuda.layout import i32, i64

#: As FIR_THREADS and FIR_TILE in fir.cu.
FIR_THREADS, FIR_TILE = 256, 1024

#: Largest tap count the direct kernel is offered for under method "auto".
DIRECT_MAX_TAPS = 1024


def convolve_direct(x, h, axis):
    """Full convolution of every channel with its row of ``h``, taps in shared memory."""
    channels, samples = x.shape[1 - axis], x.shape[axis]
    taps = h.shape[1]
    out_samples = samples + taps - 1
    h = cp.ascontiguousarray(h)
    y = layout.output_like(cp, x, axis, out_samples)
    x_cs, x_ts = layout.addressing(x, axis)
    y_cs, y_ts = layout.addressing(y, axis)
    run = sources.kernel("fir", x.dtype, "convolve_direct<{t}>")
    grid = (layout.blocks_for(out_samples, FIR_TILE), min(channels, 65535))
    run(grid, (FIR_THREADS,),
        (x, i64(x_cs), i64(x_ts), i64(samples), h, i64(taps if h.shape[0] > 1 else 0),
         i32(taps), y, i64(y_cs), i64(y_ts), i64(out_samples), i64(channels)))
    return y


def block_length(taps: int) -> int:
    """Overlap-save FFT length: a power of two of at least eight times the taps, 4096 or more."""
    return max(4096, 1 << (8 * taps - 1).bit_length())


def convolve_overlap_save(x, h, axis):
    """Full convolution by overlap-save: batched real FFTs of overlapping blocks."""
    channels, samples = x.shape[1 - axis], x.shape[axis]
    taps = h.shape[1]
    out_samples = samples + taps - 1
    size = block_length(taps)
    hop = size - taps + 1
    blocks = -(-out_samples // hop)
    # Zeros before (the taps' history) and after (the last block's tail).
    padded = cp.zeros((channels, (blocks - 1) * hop + size), x.dtype)
    padded[:, taps - 1:taps - 1 + samples] = layout.channel_major(x, axis)
    item = padded.itemsize
    frames = cp.lib.stride_tricks.as_strided(
        padded, (channels, blocks, size), (padded.strides[0], hop * item, item))
    spectrum = cp.fft.rfft(frames, axis=-1)
    spectrum *= cp.fft.rfft(h, size, axis=-1)[:, None, :]
    kept = cp.fft.irfft(spectrum, size, axis=-1)[:, :, taps - 1:]
    y = kept.reshape(channels, blocks * hop)[:, :out_samples]
    out = layout.output_like(cp, x, axis, out_samples)
    layout.channel_major(out, axis)[...] = y
    return out


def _direct_suits(problem: Problem) -> bool:
    method = problem.param("method")
    return method == "direct" or (method == "auto" and problem.param("taps", 0) <= DIRECT_MAX_TAPS)


def _fft_suits(problem: Problem) -> bool:
    return problem.param("method") in ("auto", "fft")


SOURCE = source_hash(sys.modules[__name__], sources.text("fir"))
VARIANTS = {"convolve": [
    Variant("cuda-direct", convolve_direct, SOURCE, _direct_suits),
    Variant("cufft-overlap-save", convolve_overlap_save, SOURCE, _fft_suits),
]}
