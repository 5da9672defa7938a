"""Variants built on scipy.signal and scipy.fft, run on several threads.

scipy filters one channel at a time; these split the channels into one slice
per thread (scipy releases the GIL inside its filter loops and FFTs).
"""

from __future__ import annotations

import sys

import numpy as np
from dspk.plugin import Variant, source_hash
from scipy import fft, signal

from dspk_cpu import memory
from dspk_cpu import forward_backward as fb
from dspk_cpu.layout import channels_index
from dspk_cpu.threads import on_channel_slices, threads


def sosfilt(sos, x, axis, zi):
    """scipy.signal.sosfilt over channel slices; ``zi`` as (n_sections, C, 2)."""
    y = memory.empty_like(x)
    zf = None if zi is None else np.empty_like(zi)

    def work(part):
        if zi is None:
            y[channels_index(axis, part)] = signal.sosfilt(sos, x[channels_index(axis, part)], axis=axis)
            return
        state = zi[:, part, :] if axis == 1 else zi[:, part, :].transpose(0, 2, 1)
        y[channels_index(axis, part)], out = signal.sosfilt(sos, x[channels_index(axis, part)], axis=axis,
                                                  zi=state)
        zf[:, part, :] = out if axis == 1 else out.transpose(0, 2, 1)

    on_channel_slices(work, x.shape[1 - axis])
    return y, zf


def lfilter(b, a, x, axis, zi):
    """scipy.signal.lfilter over channel slices; ``zi`` as (C, K - 1)."""
    y = memory.empty_like(x)
    zf = None if zi is None else np.empty_like(zi)

    def work(part):
        if zi is None:
            y[channels_index(axis, part)] = signal.lfilter(b, a, x[channels_index(axis, part)], axis=axis)
            return
        state = zi[part] if axis == 1 else zi[part].T
        y[channels_index(axis, part)], out = signal.lfilter(b, a, x[channels_index(axis, part)], axis=axis,
                                                  zi=state)
        zf[part] = out if axis == 1 else out.T

    on_channel_slices(work, x.shape[1 - axis])
    return y, zf


sosfiltfilt = fb.sosfiltfilt_with(sosfilt)
filtfilt = fb.filtfilt_with(lfilter)


def convolve_fft(x, h, axis):
    """Full convolution by one real FFT of a fast length, on all threads."""
    length = x.shape[axis] + h.shape[1] - 1
    size = fft.next_fast_len(length, real=True)
    taps = h if axis == 1 else h.T
    spectrum = (fft.rfft(x, size, axis=axis, workers=threads())
                * fft.rfft(taps, size, axis=axis, workers=threads()))
    y = fft.irfft(spectrum, size, axis=axis, workers=threads())
    return y[channels_index(1 - axis, slice(0, length))]


def convolve_overlap_add(x, h, axis):
    """Full convolution by scipy's overlap-add, in blocks sized to the taps."""
    return signal.oaconvolve(x, h if axis == 1 else h.T, mode="full", axes=axis)


SOURCE = source_hash(sys.modules[__name__], fb)
SOSFILT = Variant("scipy-threads", sosfilt, SOURCE)
LFILTER = Variant("scipy-threads", lfilter, SOURCE)
SOSFILTFILT = Variant("scipy-threads", sosfiltfilt, SOURCE)
FILTFILT = Variant("scipy-threads", filtfilt, SOURCE)
