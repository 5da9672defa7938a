"""The common reference with numpy: np.median or np.mean across channels, per block of samples.

Blocks of samples run on threads (numpy's partition and reductions release
the GIL); within a block each group's channels are gathered, reduced along
the channel axis and subtracted.
"""

from __future__ import annotations

import numpy as np

from dspk_cpu.layout import channel_major
from dspk_cpu.multichannel_blocks import sample_blocks
from dspk_cpu.threads import on_threads

_REDUCERS = {"median": np.median, "average": np.mean}


def common_reference(x, axis, groups, operator):
    """Subtract each group's median or mean, block of samples by block, on threads.

    Channels in no group come out as zeros (see :func:`dspk.common_reference`).

    Examples
    --------
    >>> x = np.array([[1.0, 5.0], [2.0, 0.0], [4.0, 3.0]])
    >>> common_reference(x, 1, (np.array([0, 2]),), "average")
    array([[-1.5,  1. ],
           [ 0. ,  0. ],
           [ 1.5, -1. ]])
    """
    reduce = _REDUCERS[operator]
    x2 = channel_major(x, axis)
    channels, samples = x2.shape
    y = np.empty_like(x) if sum(len(g) for g in groups) == channels else np.zeros_like(x)
    y2 = channel_major(y, axis)

    def work(part):
        block = x2[:, part]
        for members in groups:
            values = block[members]
            y2[members, part] = values - reduce(values, axis=0, keepdims=True)

    on_threads(work, sample_blocks(samples, channels))
    return y
