"""The ``csd`` kernel: cross (or auto) spectral densities averaged over segments.

The segments x frequencies array of all channels is never formed: the mean
sums blocks of segments, the median takes all segments of a block of
channels at a time (:mod:`.segments` sizes the blocks).
"""

from __future__ import annotations

import numpy as np

from dspk_cpu.layout import channel_major
from dspk_cpu.spectral.segments import block_size, blocks, segment_count, spectra
from dspk_cpu.threads import on_channel_slices, threads


def _rows(v: np.ndarray | None, part: slice) -> np.ndarray | None:
    """Channels ``part`` of ``v``; a one-channel signal is shared by all channels."""
    return v if v is None or v.shape[0] == 1 else v[part]


def _same_length(vx: np.ndarray, vy: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """``vx`` and ``vy``, the shorter zero-padded at its end."""
    if vy is None or vx.shape[1] == vy.shape[1]:
        return vx, vy
    n = max(vx.shape[1], vy.shape[1])
    return tuple(np.pad(v, ((0, 0), (0, n - v.shape[1]))) for v in (vx, vy))


class _Averager:
    """Averages of conj(X)·Y (|X|² without ``y``) over the segments of channel-major signals."""

    def __init__(self, window, step, nfft, detrend, sides, workers):
        self.segment = (window, step, nfft, detrend, sides, workers)
        self.nperseg, self.step, self.nfft = len(window), step, nfft

    def product(self, vx, vy, segments):
        """conj(X)·Y, or |X|², of the segments ``segments``: channels x segments x bins."""
        fx = spectra(vx, segments, *self.segment)
        if vy is None:
            return fx.real ** 2 + fx.imag ** 2
        return fx.conj() * spectra(vy, segments, *self.segment)

    def mean(self, vx, vy):
        """The mean over segments, summed in blocks of segments (in double precision)."""
        count = segment_count(vx.shape[1], self.nperseg, self.step)
        channels = max(vx.shape[0], 1 if vy is None else vy.shape[0])
        accumulator = np.float64 if vy is None else np.complex128
        total = sum(self.product(vx, vy, part).sum(axis=1, dtype=accumulator)
                    for part in blocks(count, block_size(channels * self.nfft)))
        return total / count

    def median(self, vx, vy):
        """The median over segments (of real and imaginary parts apart), in blocks of channels."""
        count = segment_count(vx.shape[1], self.nperseg, self.step)
        channels = max(vx.shape[0], 1 if vy is None else vy.shape[0])
        parts = blocks(channels, block_size(count * self.nfft))
        return np.concatenate([self._median(self.product(_rows(vx, part), _rows(vy, part),
                                                         slice(0, count)))
                               for part in parts])

    @staticmethod
    def _median(p):
        if np.iscomplexobj(p):
            return np.median(p.real, axis=1) + 1j * np.median(p.imag, axis=1)
        return np.median(p, axis=1)


def _finish(p, y, axis, weights):
    """Weighted, in the weights' precision (complex with ``y``), with frequency along ``axis``."""
    dtype = weights.dtype if y is None else np.result_type(weights.dtype, np.complex64)
    return channel_major((p * weights).astype(dtype, copy=False), axis)


def csd_frame_blocks(x, y, axis, window, step, nfft, detrend, sides, weights, average):
    """All channels at once, pocketfft on all threads; blocks of segments (mean) or channels."""
    vx, vy = _same_length(channel_major(x, axis), None if y is None else channel_major(y, axis))
    averager = _Averager(window, step, nfft, detrend, sides, threads())
    return _finish(getattr(averager, average)(vx, vy), y, axis, weights)


def csd_channel_threads(x, y, axis, window, step, nfft, detrend, sides, weights, average):
    """One slice of channels per thread, each averaged as :func:`csd_frame_blocks` does."""
    vx, vy = _same_length(channel_major(x, axis), None if y is None else channel_major(y, axis))
    averager = _Averager(window, step, nfft, detrend, sides, 1)
    channels = max(vx.shape[0], 1 if vy is None else vy.shape[0])
    p = np.empty((channels, len(weights)), np.float64 if y is None else np.complex128)

    def work(part):
        p[part] = getattr(averager, average)(_rows(vx, part), _rows(vy, part))

    on_channel_slices(work, channels)
    return _finish(p, y, axis, weights)
