"""stft, csd and istft: fused framing kernels around batched cuFFT (``kernels/framing.cu``).

``frame_segments`` reads every segment straight from the signal (boundary
extension and trailing zeros by index, no padded copy), removes its mean or
line, multiplies by the window and zero-pads it to ``nfft``, all in one
pass; one batched real (or complex) FFT transforms all segments. csd
reduces the product spectra over segments in float64 per batch of segments
(mean) or per batch of channels (median), so memory stays bounded. istft
runs one batched inverse FFT and a gather-form overlap-add kernel, each
output sample summing the segments that cover it (no atomics).
"""

from __future__ import annotations

import sys

import cupy as cp
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

#: What stft returns of the weighted spectra ``z`` (frequency last).
VALUES = {
    "complex": lambda z: z,
    "power": lambda z: z.real ** 2 + z.imag ** 2,
    "magnitude": cp.abs,
    "angle": cp.angle,
    "phase": lambda z: cp.unwrap(cp.angle(z), axis=-1),
}


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


def segment_count(samples: int, nperseg: int, step: int) -> int:
    """Segments of ``nperseg`` samples, ``step`` apart, in ``samples``."""
    return (samples - nperseg) // step + 1


def stft(x, axis, window, step, nfft, detrend, sides, boundary, pad, weights, value):
    """stft kernel: one framing launch, one batched FFT, weights and the value asked for."""
    v = layout.channel_major(x, axis)
    edge = window.size // 2 if boundary is not None else 0
    count = segment_count(v.shape[1] + 2 * edge + pad, window.size, step)
    z = _spectra(frames(v, 0, count, window, step, nfft, detrend, edge, boundary), sides)
    z *= weights
    out = VALUES[value](z)
    return out.transpose(0, 2, 1) if axis == 1 else out.transpose(2, 0, 1)


def _rows(v, rows: slice):
    """Channels ``rows`` of ``v``; a one-channel signal is shared by all channels."""
    return v if v is None or v.shape[0] == 1 else v[rows]


def _product(vx, vy, first, count, window, step, nfft, detrend, sides):
    """conj(X) Y (|X|^2 without ``vy``) of segments ``first .. first + count``."""
    fx = _spectra(frames(vx, first, count, window, step, nfft, detrend), sides)
    if vy is None:
        return fx.real ** 2 + fx.imag ** 2
    return fx.conj() * _spectra(frames(vy, first, count, window, step, nfft, detrend), sides)


def _median(p):
    """The median over segments (axis 1), of real and imaginary parts apart."""
    if p.dtype.kind == "c":
        return cp.median(p.real, axis=1) + 1j * cp.median(p.imag, axis=1)
    return cp.median(p, axis=1)


def csd(x, y, axis, window, step, nfft, detrend, sides, weights, average):
    """csd kernel: framed product spectra, averaged (mean or median) over segments."""
    vx = layout.channel_major(x, axis)
    vy = None if y is None else layout.channel_major(y, axis)
    samples = vx.shape[1] if vy is None else max(vx.shape[1], vy.shape[1])
    count = segment_count(samples, window.size, step)
    channels = vx.shape[0] if vy is None else max(vx.shape[0], vy.shape[0])
    spectral = (window, step, nfft, detrend, sides)
    if average == "mean":
        accumulate = cp.float64 if vy is None else cp.complex128
        per_batch = max(1, BATCH_ELEMENTS // (channels * nfft))
        total = 0
        for first in range(0, count, per_batch):
            size = min(per_batch, count - first)
            total = total + _product(vx, vy, first, size, *spectral).sum(axis=1, dtype=accumulate)
        p = total / count
    else:
        per_batch = max(1, BATCH_ELEMENTS // (count * nfft))
        p = cp.concatenate([
            _median(_product(_rows(vx, rows), _rows(vy, rows), 0, count, *spectral))
            for rows in (slice(first, first + per_batch) for first in range(0, channels, per_batch))])
    dtype = weights.dtype if vy is None else cp.result_type(weights.dtype, cp.complex64)
    return layout.channel_major((p * weights).astype(dtype, copy=False), axis)


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


SOURCE = source_hash(sys.modules[__name__], sources.text("framing"))
VARIANTS = {
    "stft": [Variant("cuda-fused-framing", stft, SOURCE)],
    "csd": [Variant("cuda-fused-framing", csd, SOURCE)],
    "istft": [Variant("cuda-fused-framing", istft, SOURCE)],
}
