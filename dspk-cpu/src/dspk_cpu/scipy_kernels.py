"""Variants built on scipy.signal and scipy.fft, run on several threads.

scipy filters one channel at a time; these split the channels into one slice
per thread (scipy releases the GIL inside its filter loops and FFTs).
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from dspk.plugin import Variant, source_hash
from scipy import fft, signal

from dspk_cpu import forward_backward as fb
from dspk_cpu.threads import threads


def _channel_slices(channels: int) -> list[slice]:
    edges = np.linspace(0, channels, min(threads(), channels) + 1).astype(int)
    return [slice(lo, hi) for lo, hi in zip(edges[:-1], edges[1:]) if hi > lo]


def _on_threads(work, channels: int) -> None:
    slices = _channel_slices(channels)
    if len(slices) == 1:
        work(slices[0])
        return
    with ThreadPoolExecutor(len(slices)) as pool:
        list(pool.map(work, slices))


def _cut(axis: int, part: slice) -> tuple[slice, slice]:
    """Index of a slice of channels in a 2-D signal with time along ``axis``."""
    return (slice(None), part) if axis == 0 else (part, slice(None))


def sosfilt(sos, x, axis, zi):
    """scipy.signal.sosfilt over channel slices; ``zi`` as (n_sections, C, 2)."""
    y = np.empty_like(x)
    zf = None if zi is None else np.empty_like(zi)

    def work(part):
        if zi is None:
            y[_cut(axis, part)] = signal.sosfilt(sos, x[_cut(axis, part)], axis=axis)
            return
        state = zi[:, part, :] if axis == 1 else zi[:, part, :].transpose(0, 2, 1)
        y[_cut(axis, part)], out = signal.sosfilt(sos, x[_cut(axis, part)], axis=axis,
                                                  zi=state)
        zf[:, part, :] = out if axis == 1 else out.transpose(0, 2, 1)

    _on_threads(work, x.shape[1 - axis])
    return y, zf


def lfilter(b, a, x, axis, zi):
    """scipy.signal.lfilter over channel slices; ``zi`` as (C, K - 1)."""
    y = np.empty_like(x)
    zf = None if zi is None else np.empty_like(zi)

    def work(part):
        if zi is None:
            y[_cut(axis, part)] = signal.lfilter(b, a, x[_cut(axis, part)], axis=axis)
            return
        state = zi[part] if axis == 1 else zi[part].T
        y[_cut(axis, part)], out = signal.lfilter(b, a, x[_cut(axis, part)], axis=axis,
                                                  zi=state)
        zf[part] = out if axis == 1 else out.T

    _on_threads(work, x.shape[1 - axis])
    return y, zf


def sosfiltfilt(sos, x, axis, padtype, padlen, zi):
    """Forward-backward scipy sosfilt, started from the steady state."""
    return fb.forward_backward(lambda v, ax, z: sosfilt(sos, v, ax, z), x, axis, padtype,
                               padlen, lambda edge: zi[:, None, :] * edge[None, :, None])


def filtfilt(b, a, x, axis, padtype, padlen, zi):
    """Forward-backward scipy lfilter, started from the steady state."""
    return fb.forward_backward(lambda v, ax, z: lfilter(b, a, v, ax, z), x, axis, padtype,
                               padlen, lambda edge: edge[:, None] * zi[None, :])


def convolve_fft(x, h, axis):
    """Full convolution by one real FFT of a fast length, on all threads."""
    length = x.shape[axis] + h.shape[1] - 1
    size = fft.next_fast_len(length, real=True)
    taps = h if axis == 1 else h.T
    spectrum = (fft.rfft(x, size, axis=axis, workers=threads())
                * fft.rfft(taps, size, axis=axis, workers=threads()))
    y = fft.irfft(spectrum, size, axis=axis, workers=threads())
    return y[_cut(1 - axis, slice(0, length))]


def convolve_overlap_add(x, h, axis):
    """Full convolution by scipy's overlap-add, in blocks sized to the taps."""
    return signal.oaconvolve(x, h if axis == 1 else h.T, mode="full", axes=axis)


SOURCE = source_hash(sys.modules[__name__], fb)
SOSFILT = Variant("scipy-threads", sosfilt, SOURCE)
LFILTER = Variant("scipy-threads", lfilter, SOURCE)
SOSFILTFILT = Variant("scipy-threads", sosfiltfilt, SOURCE)
FILTFILT = Variant("scipy-threads", filtfilt, SOURCE)
