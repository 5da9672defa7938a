"""Addressing 2-D device signals whose time axis is 0 or 1, and kernel argument types.

Kernels take a signal as a data pointer (CuPy passes a view's first element)
and two signed element strides, so any strided or reversed view runs without
a copy. Kernel scalars are passed as NumPy scalars of the exact C type.
"""

from __future__ import annotations

import numpy as np

from dspk.plugin import layout_of

#: Threads per block of the one-dimensional launches: a multiple of every
#: warp and wavefront size (32 or 64).
THREADS = 256


def i64(value) -> np.int64:
    """A kernel's ``long long`` (``index_t``) argument."""
    return np.int64(value)


def i32(value) -> np.int32:
    """A kernel's ``int`` argument."""
    return np.int32(value)


def element_strides(a) -> tuple[int, ...]:
    """The strides of a device array in elements of its dtype (not bytes).

    Examples
    --------
    >>> element_strides(np.zeros((3, 4), np.float32))
    (4, 1)
    """
    return tuple(s // a.itemsize for s in a.strides)


def addressing(a, axis: int) -> tuple[int, int]:
    """``(channel_stride, time_stride)`` of a 2-D array whose time axis is ``axis``.

    Examples
    --------
    >>> addressing(np.zeros((3, 4)), 0)
    (1, 4)
    """
    strides = element_strides(a)
    return strides[1 - axis], strides[axis]


def channel_major(a, axis: int):
    """The channels-by-samples view of a 2-D array with time along ``axis``."""
    return a if axis == 1 else a.T


def output_like(xp, x, axis: int, samples: int, dtype=None):
    """A new array of ``x``'s layout (same contiguous axis) with ``samples`` along ``axis``.

    Examples
    --------
    >>> y = output_like(np, np.zeros((5, 3)), 0, 7)
    >>> y.shape, y.flags.c_contiguous
    ((7, 3), True)
    """
    channels = x.shape[1 - axis]
    dtype = x.dtype if dtype is None else dtype
    if layout_of(x, axis) == "channel-major":
        y = xp.empty((channels, samples), dtype)
        return y if axis == 1 else y.T
    y = xp.empty((samples, channels), dtype)
    return y if axis == 0 else y.T


def blocks_for(count: int, threads: int = THREADS) -> int:
    """Thread blocks of ``threads`` that cover ``count`` items."""
    return max(1, -(-int(count) // threads))
