"""Resampling kernels built on scipy.signal.upfirdn and scipy.fft.

``upfirdn`` runs scipy's polyphase filter on one slice of channels per
thread. ``resample`` has two forms: one batched FFT of the whole array on
all threads, and one FFT per channel slice per thread, which keeps each
slice's spectrum in cache.
"""

from __future__ import annotations

import numpy as np
from scipy import fft, signal

from dspk_cpu import memory
from dspk_cpu.layout import channels_index, samples_index
from dspk_cpu.threads import by_channel_slices, fft_workers, on_channel_slices


def _empty(x: np.ndarray, axis: int, samples: int) -> np.ndarray:
    shape = list(x.shape)
    shape[axis] = samples
    return memory.empty(shape, x.dtype)


def upfirdn(h, x, axis, up, down, left, right, start, stop):
    """The ``upfirdn`` kernel: scipy.signal.upfirdn over channel slices, on threads.

    With extension samples, each slice is joined to its ``left`` and
    ``right`` and the output shifted by ``len(left) * up / down``, which the
    kernel convention makes whole.
    """
    y = _empty(x, axis, stop - start)
    shift = 0 if left is None else left.shape[axis] * up // down
    keep = samples_index(axis, slice(start + shift, stop + shift))

    def work(part):
        piece = x[channels_index(axis, part)]
        if left is not None:
            index = channels_index(axis, part)
            piece = np.concatenate([left[index], piece, right[index]], axis=axis)
        y[channels_index(axis, part)] = signal.upfirdn(h, piece, up, down, axis=axis)[keep]

    on_channel_slices(work, x.shape[1 - axis])
    return y


def _spectral(x: np.ndarray, axis: int, num: int, weights: np.ndarray,
              workers: int) -> np.ndarray:
    """``irfft(rfft(x)[:len(weights)] * weights, num)`` along ``axis``."""
    spectrum = fft.rfft(x, axis=axis, workers=workers)[samples_index(axis, slice(0, len(weights)))]
    spectrum *= weights.reshape((1, -1) if axis == 1 else (-1, 1))
    return fft.irfft(spectrum, num, axis=axis, overwrite_x=True, workers=workers)


def resample_whole(x, axis, num, weights):
    """The ``resample`` kernel: one batched FFT of all channels, on all threads (one for a
    small signal)."""
    return _spectral(x, axis, num, weights, fft_workers(x.nbytes))


def resample_slices(x, axis, num, weights):
    """The ``resample`` kernel: one FFT per channel slice per thread."""
    return by_channel_slices(lambda part: _spectral(part, axis, num, weights, 1), x, axis, num,
                             x.dtype)
