"""Running a kernel on one slice of channels per thread, into one output array."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dspk_cpu.scipy_kernels import _cut, _on_threads

__all__ = ["along", "by_channel_slices", "channel_major", "in_slices"]


def along(axis: int, part: slice) -> tuple[slice, slice]:
    """Index of a range of samples in a 2-D signal with time along ``axis``."""
    return _cut(1 - axis, part)


def channel_major(x: np.ndarray, axis: int) -> np.ndarray:
    """A 2-D signal as channels by samples: a view, never a copy."""
    return x if axis == 1 else x.T


def in_slices(work: Callable[[slice], None], channels: int) -> None:
    """Call ``work(part)`` for one slice of the channels per thread."""
    _on_threads(work, channels)


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
    y = np.empty((channels, samples) if axis == 1 else (samples, channels), dtype)

    def work(part):
        y[_cut(axis, part)] = compute(x[_cut(axis, part)])

    in_slices(work, channels)
    return y
