"""How many threads the cpu runtime runs on, and work split across them by channels."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np


def threads() -> int:
    """Worker threads: ``DSPK_NUM_THREADS``, else the cores this process may run on.

    Examples
    --------
    >>> threads() >= 1
    True
    """
    text = os.environ.get("DSPK_NUM_THREADS")
    if text:
        if not text.isdigit() or int(text) < 1:
            raise ValueError(f"DSPK_NUM_THREADS={text!r} is not a positive integer")
        return int(text)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def channels_index(axis: int, part: slice) -> tuple[slice, slice]:
    """Index of a range of channels in a 2-D signal with time along ``axis``."""
    return (slice(None), part) if axis == 0 else (part, slice(None))


def samples_index(axis: int, part: slice) -> tuple[slice, slice]:
    """Index of a range of samples in a 2-D signal with time along ``axis``."""
    return channels_index(1 - axis, part)


def on_channel_slices(work: Callable[[slice], None], channels: int) -> None:
    """Call ``work(part)`` for one contiguous slice of the channels per thread.

    Examples
    --------
    >>> parts = []
    >>> on_channel_slices(parts.append, 1)
    >>> parts
    [slice(0, 1, None)]
    """
    edges = np.linspace(0, channels, min(threads(), channels) + 1).astype(int).tolist()
    slices = [slice(lo, hi) for lo, hi in zip(edges[:-1], edges[1:]) if hi > lo]
    if len(slices) == 1:
        work(slices[0])
        return
    with ThreadPoolExecutor(len(slices)) as pool:
        list(pool.map(work, slices))
