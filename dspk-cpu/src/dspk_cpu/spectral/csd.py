"""The ``csd`` kernel: cross (or auto) spectral densities averaged over segments.

The segments x frequencies array of all channels is never formed: the mean
sums blocks of segments, the median takes all segments of a block of
channels at a time (:func:`dspk.kernel_support.segments.averaged_products`,
in blocks of :data:`.segments.BLOCK_ELEMENTS`).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from dspk.kernel_support.segments import averaged_products, channel_rows, weighted
from dspk_cpu.layout import channel_major
from dspk_cpu.spectral.segments import BLOCK_ELEMENTS, spectra
from dspk_cpu.threads import fft_workers, on_channel_slices


def _same_length(vx: np.ndarray, vy: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """``vx`` and ``vy``, the shorter zero-padded at its end."""
    if vy is None or vx.shape[1] == vy.shape[1]:
        return vx, vy
    n = max(vx.shape[1], vy.shape[1])
    return tuple(np.pad(v, ((0, 0), (0, n - v.shape[1]))) for v in (vx, vy))


def _averaged(vx, vy, window, step, nfft, detrend, sides, average, workers):
    """The average over segments of channel-major ``vx`` and ``vy`` (of the same length)."""
    segment_spectra = partial(spectra, window=window, step=step, nfft=nfft, detrend=detrend,
                              sides=sides, workers=workers)
    return averaged_products(np, segment_spectra, vx, vy, len(window), step, nfft, average,
                             BLOCK_ELEMENTS)


def csd_frame_blocks(x, y, axis, window, step, nfft, detrend, sides, weights, average):
    """All channels at once, pocketfft on all threads (one for a small signal); blocks of
    segments (mean) or channels."""
    vx, vy = _same_length(channel_major(x, axis), None if y is None else channel_major(y, axis))
    workers = fft_workers(vx.nbytes + (0 if vy is None else vy.nbytes))
    p = _averaged(vx, vy, window, step, nfft, detrend, sides, average, workers)
    return channel_major(weighted(np, p, weights, y is not None), axis)


def csd_channel_threads(x, y, axis, window, step, nfft, detrend, sides, weights, average):
    """One slice of channels per thread, each averaged as :func:`csd_frame_blocks` does."""
    vx, vy = _same_length(channel_major(x, axis), None if y is None else channel_major(y, axis))
    channels = max(vx.shape[0], 1 if vy is None else vy.shape[0])
    p = np.empty((channels, len(weights)), np.float64 if y is None else np.complex128)

    def work(part):
        p[part] = _averaged(channel_rows(vx, part), channel_rows(vy, part), window, step, nfft,
                            detrend, sides, average, 1)

    on_channel_slices(work, channels)
    return channel_major(weighted(np, p, weights, y is not None), axis)
