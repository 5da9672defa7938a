"""Copies between memory layouts, in blocks that stay in cache."""

from __future__ import annotations

import numpy as np

#: Samples (last axis) per block of :func:`copy_in_blocks`: the source lines of a block
#: of 384 float32 channels stay in L2 until every one of their channels is copied.
BLOCK = 256


def copy_in_blocks(target: np.ndarray, source: np.ndarray) -> None:
    """``target[...] = source``, :data:`BLOCK` elements of the last axis at a time.

    A transposing copy (one array channel-major, the other sample-major) made at
    once reads every cache line of the source once per channel; in blocks, once:
    for 384 float32 channels a quarter of the time. Any other copy is as fast
    either way.

    Examples
    --------
    >>> source = np.arange(12.0).reshape(4, 3).T      # sample-major, seen channels by samples
    >>> target = np.empty((3, 4))
    >>> copy_in_blocks(target, source)
    >>> bool((target == source).all())
    True
    """
    for start in range(0, source.shape[-1], BLOCK):
        target[..., start:start + BLOCK] = source[..., start:start + BLOCK]
