"""The phase shift: a fractional delay per channel by the FFT of the zero-padded signal.

Each channel is padded with ``margin`` zeros at both ends (length
``L = n + 2 * margin``), transformed with a real FFT of exactly that length,
multiplied by ``exp(-2j * pi * k / L * shift)`` at bin ``k`` and transformed
back; the middle ``n`` samples are the result. The padded buffer is channels by
samples whatever the signal's layout, so that every FFT runs along a contiguous
line (a sample-major block's strided FFTs took 1.8 times as long); the copies in
and out of it go in cache-sized blocks (:mod:`dspk.kernel_support.copies`).
"""

from __future__ import annotations

import numpy as np
from scipy import fft

from dspk.kernel_support.copies import copy_in_blocks
from dspk_cpu import memory
from dspk_cpu.layout import channel_major, channels_index
from dspk_cpu.threads import channel_slices, on_threads, threads


def _phase_ramp(theta, count):
    """``exp(-1j * theta * k)`` for ``k < count``, from about ``2 * sqrt(count)`` exponentials.

    With ``k = a * step + b``, each value is a product of a coarse and a fine
    rotation, ``exp(-1j * theta * step * a) * exp(-1j * theta * b)``.

    Examples
    --------
    >>> bool(np.allclose(_phase_ramp(0.3, 10), np.exp(-0.3j * np.arange(10)), atol=1e-15))
    True
    """
    step = int(np.ceil(np.sqrt(count)))
    coarse = np.exp((-1j * theta * step) * np.arange(-(-count // step)))
    fine = np.exp((-1j * theta) * np.arange(step))
    return np.multiply.outer(coarse, fine).ravel()[:count]


def _shifted(x, axis, shifts, margin, workers):
    """The phase shift of every channel of ``x``, channels by samples (a view of a new
    array whose time axis is contiguous: the FFTs run along it as lines, not strides)."""
    channels, samples = x.shape[1 - axis], x.shape[axis]
    length = samples + 2 * margin
    padded = np.zeros((channels, length), x.dtype)
    copy_in_blocks(padded[:, margin:margin + samples], channel_major(x, axis))
    spectrum = fft.rfft(padded, axis=1, workers=workers, overwrite_x=True)
    for channel, shift in enumerate(shifts):
        spectrum[channel] *= _phase_ramp(2 * np.pi * shift / length, spectrum.shape[1])
    return fft.irfft(spectrum, length, axis=1, workers=workers,
                     overwrite_x=True)[:, margin:margin + samples]


def phase_shift_whole(x, axis, shifts, margin):
    """All channels in one batch of FFTs, each FFT on all threads.

    Examples
    --------
    >>> y = phase_shift_whole(np.array([[1.0, 2.0, 3.0, 4.0]]), 1, np.array([1.0]), 2)
    >>> np.round(y, 12) + 0.0
    array([[0., 1., 2., 3.]])
    """
    y = memory.empty_like(x)
    copy_in_blocks(channel_major(y, axis), _shifted(x, axis, shifts, margin, threads()))
    return y


def phase_shift_channel_slices(x, axis, shifts, margin):
    """One slice of channels per thread, each with single-threaded FFTs.

    Examples
    --------
    >>> y = phase_shift_channel_slices(np.array([[1.0], [2.0], [3.0]]), 0, np.array([-1.0]), 3)
    >>> np.round(y, 12) + 0.0
    array([[2.],
           [3.],
           [0.]])
    """
    y = memory.empty_like(x)

    def work(part):
        channels = channels_index(axis, part)
        copy_in_blocks(channel_major(y[channels], axis),
                       _shifted(x[channels], axis, shifts[part], margin, 1))

    on_threads(work, channel_slices(x.shape[1 - axis]))
    return y
