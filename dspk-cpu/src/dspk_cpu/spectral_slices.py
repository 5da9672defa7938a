"""Running a kernel on one slice of channels per thread, into one output array."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dspk_cpu import memory
from dspk_cpu.layout import channels_index
from dspk_cpu.threads import on_channel_slices

__all__ = ["by_channel_slices"]


def by_channel_slices(compute: Callable[[np.ndarray], np.ndarray], x: np.ndarray, axis: int,
                      samples: int, dtype: np.dtype) -> np.ndarray:
    """``compute`` on each thread's slice of channels of ``x``, gathered into one array.

    ``compute`` maps a 2-D slice with time along ``axis`` to ``samples``
    samples along ``axis``; the result is C-ordered with ``x``'s axes.

    Examples
    --------
    >>> x = np.arange(6.0).reshape(2, 3)
    >>> by_channel_slices(lambda v: v[:, :2] * 2, x, 1, 2, x.dtype)
    array([[0., 2.],
           [6., 8.]])
    """
    channels = x.shape[1 - axis]
    y = memory.empty((channels, samples) if axis == 1 else (samples, channels), dtype)

    def work(part):
        y[channels_index(axis, part)] = compute(x[channels_index(axis, part)])

    on_channel_slices(work, channels)
    return y
