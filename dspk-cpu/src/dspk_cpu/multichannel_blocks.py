"""Blocks of samples: how the multichannel variants split their work.

The multichannel kernels reduce across channels, so they split the work along
time (blocks of samples) rather than across channels.
"""

from __future__ import annotations

#: Elements of one block of samples (all channels): big enough for BLAS and
#: the FFT to run at full speed, small enough for temporaries to stay in cache.
BLOCK_ELEMENTS = 1 << 18


def sample_blocks(samples: int, channels: int) -> list[slice]:
    """Consecutive slices of the time axis of about :data:`BLOCK_ELEMENTS` elements each.

    Examples
    --------
    >>> sample_blocks(5, 1 << 17)
    [slice(0, 2, None), slice(2, 4, None), slice(4, 5, None)]
    """
    size = max(2, BLOCK_ELEMENTS // max(channels, 1))
    return [slice(start, min(start + size, samples)) for start in range(0, samples, size)]
