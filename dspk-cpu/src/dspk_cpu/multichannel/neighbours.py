"""The neighbour reference: each channel minus the median or mean of its own neighbours.

``neighbour_reference`` (:func:`dspk.common_reference` with ``reference="local"``
or ``"single"``) takes a padded table of neighbours, one row per channel.

- ``numba-bitwise-select`` (default): parallel over tiles of samples; for each
  channel its neighbours' values of a tile are gathered into a samples-by-
  neighbours buffer, and each sample's median comes from the common reference's
  bitwise selection (:func:`dspk_cpu.multichannel.bitwise_select._reference`),
  its mean summed in float64.
- ``numpy-blocks``: channels with as many neighbours gathered together,
  :func:`numpy.median` or :func:`numpy.mean` across them, block of samples by
  block, on threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from dspk_cpu import compiling
from dspk_cpu.layout import channel_major
from dspk_cpu.multichannel.bitwise_select import TILE, _reference
from dspk_cpu.multichannel.blocks import sample_blocks
from dspk_cpu.threads import on_threads, use_numba_threads

#: Elements below which another thread costs more to wake than it saves.
MIN_WORK_PER_THREAD = 1 << 15


@njit(cache=True, parallel=True)
def _subtract_neighbours(x, y, samples_by_channels, table, counts, use_median, signed,
                         unsigned):
    """``x`` and ``y`` C-contiguous, samples by channels or channels by samples."""
    samples = x.shape[0] if samples_by_channels else x.shape[1]
    channels, width = table.shape
    for item in prange((samples + TILE - 1) // TILE):
        t0 = item * TILE
        n = min(TILE, samples - t0)
        keys = np.empty(width, unsigned.dtype)
        spare = np.empty(width, unsigned.dtype)
        bits = np.empty(1, signed.dtype)
        tile = np.empty((TILE, width), x.dtype)
        for c in range(channels):
            m = counts[c]
            for k in range(m):
                j = table[c, k]
                for w in range(n):
                    tile[w, k] = x[t0 + w, j] if samples_by_channels else x[j, t0 + w]
            for w in range(n):
                ref = _reference(tile[w, :m], use_median, keys, spare, bits) if m else 0.0
                if samples_by_channels:
                    y[t0 + w, c] = x[t0 + w, c] - ref
                else:
                    y[c, t0 + w] = x[c, t0 + w] - ref


def _counts(neighbours: np.ndarray) -> np.ndarray:
    """Each row's neighbours (its entries before the -1 padding)."""
    return (neighbours >= 0).sum(axis=1).astype(np.int64)


def neighbour_reference(x, axis, neighbours, operator):
    """Each channel minus its neighbours' median (bitwise selection) or mean.

    Examples
    --------
    >>> x = np.array([[1.0, 5.0], [2.0, 0.0], [4.0, 1.0]])
    >>> neighbour_reference(x, 1, np.array([[1, 2], [0, -1], [-1, -1]]), "median")
    array([[-2. ,  4.5],
           [ 1. , -5. ],
           [ 4. ,  1. ]])
    """
    use_numba_threads(at_most=max(1, x.size // MIN_WORK_PER_THREAD))
    samples_by_channels = abs(x.strides[axis]) >= abs(x.strides[1 - axis])
    rows = x if samples_by_channels == (axis == 0) else x.T
    rows = np.ascontiguousarray(rows)
    y = np.empty_like(rows)
    table = np.ascontiguousarray(neighbours, dtype=np.int64)
    compiling.run(_subtract_neighbours, rows, y, samples_by_channels, table, _counts(table),
                  operator == "median", np.empty(0, f"i{x.itemsize}"),
                  np.empty(0, f"u{x.itemsize}"))
    return y if samples_by_channels == (axis == 0) else y.T


def neighbour_reference_blocks(x, axis, neighbours, operator):
    """Each channel minus its neighbours' :func:`numpy.median` or mean, channels with as
    many neighbours together, by blocks of samples on threads.

    Examples
    --------
    >>> x = np.array([[1.0, 5.0], [2.0, 0.0], [4.0, 1.0]])
    >>> neighbour_reference_blocks(x, 1, np.array([[1, 2], [0, -1], [-1, -1]]), "average")
    array([[-2. ,  4.5],
           [ 1. , -5. ],
           [ 4. ,  1. ]])
    """
    reduce = np.median if operator == "median" else np.mean
    x2 = channel_major(x, axis)
    y = np.empty_like(x)
    y2 = channel_major(y, axis)
    counts = _counts(neighbours)
    sets = [(np.flatnonzero(counts == m), m) for m in np.unique(counts)]

    def work(part):
        for rows, m in sets:
            if m == 0:
                y2[rows, part] = x2[rows, part]
                continue
            values = x2[:, part][neighbours[rows, :m]]  # (rows, m, samples)
            y2[rows, part] = x2[rows, part] - reduce(values, axis=1)

    on_threads(work, sample_blocks(x2.shape[1], x2.shape[0] * max(1, neighbours.shape[1])))
    return y
