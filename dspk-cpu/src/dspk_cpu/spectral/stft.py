"""The ``stft`` and ``istft`` kernels: every segment's spectrum, and back by overlap-add."""

from __future__ import annotations

import numpy as np
from scipy import fft

from dspk.kernel_support import segments
from dspk.kernel_support.segments import bin_count, segment_count
from dspk_cpu.layout import channel_major
from dspk_cpu.spectral.segments import extended, spectra
from dspk_cpu.threads import fft_workers, on_channel_slices


def _segment_values(v, window, step, nfft, detrend, sides, boundary, pad, weights, value,
                    workers):
    """Channels x segments x bins of channel-major ``v``."""
    v = extended(v, len(window) // 2, boundary, pad)
    everything = slice(0, segment_count(v.shape[1], len(window), step))
    z = spectra(v, everything, window, step, nfft, detrend, sides, workers)
    z *= weights
    return segments.VALUES[value](np, z)


def _frequency_along(out, axis):
    """Channels x segments x bins as frequency along ``axis``, segments last."""
    return out.transpose(0, 2, 1) if axis == 1 else out.transpose(2, 0, 1)


def stft_whole(x, axis, window, step, nfft, detrend, sides, boundary, pad, weights, value):
    """All channels at once, pocketfft on all threads (one for a small signal)."""
    out = _segment_values(channel_major(x, axis), window, step, nfft, detrend, sides,
                          boundary, pad, weights, value, fft_workers(x.nbytes))
    return _frequency_along(out, axis)


def stft_channel_threads(x, axis, window, step, nfft, detrend, sides, boundary, pad, weights,
                         value):
    """One slice of channels per thread."""
    v = channel_major(x, axis)
    samples = v.shape[1] + (2 * (len(window) // 2) if boundary else 0) + pad
    dtype = np.result_type(weights.dtype, np.complex64)
    out = np.empty((v.shape[0], segment_count(samples, len(window), step),
                    bin_count(nfft, sides)), dtype if value == "complex" else weights.dtype)

    def work(part):
        out[part] = _segment_values(v[part], window, step, nfft, detrend, sides, boundary,
                                    pad, weights, value, 1)

    on_channel_slices(work, v.shape[0])
    return _frequency_along(out, axis)


def _overlap_add(pieces, step, trim, divisor):
    """Channels x segments x samples, each segment ``step`` after the last, summed.

    The sum is cut to ``len(divisor)`` samples from sample ``trim`` and divided
    by ``divisor``. Segments are cut into ``ceil(nperseg / step)`` blocks of
    ``step`` samples, so that each block adds to all segments at once.
    """
    channels, count, nperseg = pieces.shape
    per_segment = -(-nperseg // step)
    padded = np.zeros((channels, count, per_segment * step), pieces.dtype)
    padded[..., :nperseg] = pieces
    padded = padded.reshape(channels, count, per_segment, step)
    total = np.zeros((channels, count + per_segment - 1, step), pieces.dtype)
    for block in range(per_segment):
        total[:, block:block + count] += padded[:, :, block]
    return total.reshape(channels, -1)[:, trim:trim + len(divisor)] / divisor


def _inverse(z, window, step, nfft, sides, divisor, trim, workers):
    inverse = fft.irfft if sides == "onesided" else fft.ifft
    pieces = inverse(z, nfft, axis=1, workers=workers)[:, :len(window)]
    return _overlap_add(pieces.transpose(0, 2, 1) * window, step, trim, divisor)


def istft_whole(z, window, step, nfft, sides, divisor, trim):
    """All channels at once, pocketfft on all threads (one for a small signal)."""
    return _inverse(z, window, step, nfft, sides, divisor, trim, fft_workers(z.nbytes))


def istft_channel_threads(z, window, step, nfft, sides, divisor, trim):
    """One slice of channels per thread."""
    dtype = np.finfo(z.dtype).dtype if sides == "onesided" else z.dtype
    out = np.empty((z.shape[0], len(divisor)), dtype)

    def work(part):
        out[part] = _inverse(z[part], window, step, nfft, sides, divisor, trim, 1)

    on_channel_slices(work, z.shape[0])
    return out
