"""stft, csd and istft: fused framing kernels around batched cuFFT (``kernels/framing.cu``).

``frame_segments`` reads every segment straight from the signal (boundary
extension and trailing zeros by index, no padded copy), removes its mean or
line, multiplies by the window and zero-pads it to ``nfft``, all in one
pass; one batched real (or complex) FFT transforms all segments. csd
reduces the product spectra over segments in float64 per batch of segments
(mean) or per batch of channels (median), so memory stays bounded
(:func:`dspk.kernel_support.segments.averaged_products`). istft
runs one batched inverse FFT and a gather-form overlap-add kernel, each
output sample summing the segments that cover it (no atomics).
"""

from __future__ import annotations

import sys

import cupy as cp

from dspk.kernel_support import segments
from dspk.plugin import Variant, source_hash
from dspk_cuda import layout, sources
from dspk_cuda.layout import THREADS, blocks_for, i32, i64

#: As FRAME_THREADS in framing.cu.
FRAME_THREADS = 256

#: Detrend codes of frame_segments.
DETRENDS = {None: 0, "constant": 1, "linear": 2}

#: Boundary extensions, as ``Extension`` in common.cuh.
BOUNDARIES = {None: 0, "odd": 1, "even": 2, "constant": 3, "zeros": 4}

#: Framed samples per batch of csd's reduction (a few hundred MB).
BATCH_ELEMENTS = 1 << 26

#: Most thread blocks of one framing launch (the kernel strides over the rest).
MAX_GRID = 1 << 20


def _real_parts(a):
    """``a`` itself if real, else its real and imaginary views."""
    return (a,) if a.dtype.kind != "c" else (a.real, a.imag)


def frames(v, first, count, window, step, nfft, detrend, edge=0, boundary=None):
    """Segments ``first .. first + count`` of channel-major ``v``: detrended, windowed, padded.

    Returns
    -------
    cupy.ndarray
        Channels x segments x ``nfft``, contiguous, of ``v``'s dtype.
    """
    channels, samples = v.shape
    out = cp.empty((channels, count, nfft), v.dtype)
    window = cp.ascontiguousarray(window, dtype=_real_parts(v)[0].dtype)
    run = sources.kernel("framing", window.dtype, "frame_segments<{t}>")
    for part, target in zip(_real_parts(v), _real_parts(out)):
        x_cs, x_ts = layout.element_strides(part)
        o_cs, o_ss, o_ts = layout.element_strides(target)
        run((min(channels * count, MAX_GRID),), (FRAME_THREADS,),
            (part, i64(x_cs), i64(x_ts), i64(samples), i64(edge), i32(BOUNDARIES[boundary]),
             i64(channels), i64(first), i64(count), i64(step), i32(window.size), window,
             i32(DETRENDS[detrend]), target, i64(o_cs), i64(o_ss), i64(o_ts), i32(nfft)))
    return out


def _spectra(frames_, sides):
    return cp.fft.rfft(frames_, axis=-1) if sides == "onesided" else cp.fft.fft(frames_, axis=-1)


def stft(x, axis, window, step, nfft, detrend, sides, boundary, pad, weights, value):
    """stft kernel: one framing launch, one batched FFT, weights and the value asked for."""
    v = layout.channel_major(x, axis)
    edge, count = segments.stft_extent(v.shape[1], window.size, step, boundary, pad)
    z = _spectra(frames(v, 0, count, window, step, nfft, detrend, edge, boundary), sides)
    z *= weights
    out = segments.VALUES[value](cp, z)
    return out.transpose(0, 2, 1) if axis == 1 else out.transpose(2, 0, 1)


def csd(x, y, axis, window, step, nfft, detrend, sides, weights, average):
    """csd kernel: framed product spectra, averaged (mean or median) over segments."""
    vx = layout.channel_major(x, axis)
    vy = None if y is None else layout.channel_major(y, axis)

    def spectra(v, part):
        return _spectra(frames(v, part.start, part.stop - part.start, window, step, nfft,
                               detrend), sides)

    p = segments.averaged_products(cp, spectra, vx, vy, window.size, step, nfft, average,
                                   BATCH_ELEMENTS)
    return layout.channel_major(segments.weighted(cp, p, weights, y is not None), axis)


def istft(z, window, step, nfft, sides, divisor, trim):
    """istft kernel: one batched inverse FFT, then the gather-form overlap-add."""
    channels, _, count = z.shape
    spectra = cp.ascontiguousarray(z.transpose(0, 2, 1))  # channels x segments x bins
    inverse = cp.fft.irfft if sides == "onesided" else cp.fft.ifft
    pieces = inverse(spectra, nfft, axis=-1)
    real = _real_parts(pieces)[0].dtype
    window = cp.ascontiguousarray(window, dtype=real)
    divisor = cp.ascontiguousarray(divisor, dtype=real)
    out = cp.empty((channels, divisor.size), pieces.dtype)
    run = sources.kernel("framing", real, "overlap_add<{t}>")
    for part, target in zip(_real_parts(pieces), _real_parts(out)):
        p_cs, p_ss, p_ts = layout.element_strides(part)
        o_cs, o_ts = layout.element_strides(target)
        run((blocks_for(channels * divisor.size),), (THREADS,),
            (part, i64(p_cs), i64(p_ss), i64(p_ts), i64(count), i64(step), i32(window.size),
             window, divisor, i64(trim), target, i64(o_cs), i64(o_ts), i64(divisor.size),
             i64(channels)))
    return out


SOURCE = source_hash(sys.modules[__name__], segments, sources.text("framing"))
VARIANTS = {
    "stft": [Variant("cuda-fused-framing", stft, SOURCE)],
    "csd": [Variant("cuda-fused-framing", csd, SOURCE)],
    "istft": [Variant("cuda-fused-framing", istft, SOURCE)],
}
