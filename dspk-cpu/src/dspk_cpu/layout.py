"""Indexing 2-D signals whose time axis is 0 or 1, without copies."""

from __future__ import annotations

import numpy as np


def channel_major(x: np.ndarray, axis: int) -> np.ndarray:
    """The channels-by-samples view of a 2-D array whose time axis is ``axis``.

    Examples
    --------
    >>> channel_major(np.zeros((10, 3)), axis=0).shape
    (3, 10)
    """
    return x if axis == 1 else x.T


def samples_index(axis: int, part: slice | int) -> tuple:
    """Index of ``part`` of the time axis ``axis`` of a 2-D signal.

    Examples
    --------
    >>> samples_index(0, slice(2, 4))
    (slice(2, 4, None), slice(None, None, None))
    """
    return (part, slice(None)) if axis == 0 else (slice(None), part)


def channels_index(axis: int, part: slice | int) -> tuple:
    """Index of ``part`` of the channels of a 2-D signal with time along ``axis``."""
    return samples_index(1 - axis, part)
