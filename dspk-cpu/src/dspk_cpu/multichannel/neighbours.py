"""The neighbour reference: each channel minus the median or mean of its own neighbours.

``neighbour_reference`` (:func:`dspk.common_reference` with ``reference="local"``
or ``"single"``) takes a padded table of neighbours, one row per channel.

- ``numba-bitwise-select`` (default): parallel over tiles of samples; for each
  channel its neighbours' values of a tile are gathered into a neighbours-by-
  samples buffer. Up to :data:`~dspk_cpu.multichannel.bitwise_select.SMALL`
  neighbours (Neuropixels' annulus holds 5 to 7), each sample's median is read
  off the values' ranks, counted branch-free with the samples as SIMD lanes;
  more take the common reference's bitwise selection
  (:func:`dspk_cpu.multichannel.bitwise_select.median_or_mean`). Both order the
  values by the same integer keys, so they pick the same values. The mean is
  summed in float64.
- ``numpy-blocks``: channels with as many neighbours gathered together,
  :func:`numpy.median` or :func:`numpy.mean` across them, block of samples by
  block, on threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from dspk_cpu import compiling
from dspk_cpu.layout import channel_major
from dspk_cpu.multichannel.bitwise_select import SMALL, TILE, median_or_mean
from dspk_cpu.multichannel.blocks import sample_blocks
from dspk_cpu.threads import on_threads, use_numba_threads

#: Elements below which another thread costs more to wake than it saves.
MIN_WORK_PER_THREAD = 1 << 15


@njit(inline="always")
def _ranked_median(values, keys, n, m, refs, middles, ranks):
    """Each of ``n`` samples' median of ``m <= SMALL`` values, into ``refs`` (float64).

    ``values`` and ``keys`` are (neighbours, samples) tiles: ``keys`` the values'
    order keys (bitwise_select's map), so the order and its ties are the bitwise
    selection's. ``refs`` holds ``2 * n`` floats, ``middles`` two rows of keys and
    ``ranks`` ``n`` integers, all scratch. A value's rank is the number of keys
    below it, ties broken by position: every rank is taken once, and the ranks
    ``m // 2`` (and ``m // 2 - 1`` for an even ``m``) are the middles. Branch-free,
    with the samples as SIMD lanes.
    """
    rank = m // 2
    upper_key, lower_key = middles[0], middles[1]
    for w in range(n):
        upper_key[w] = 0
        lower_key[w] = 0
    for i in range(m):
        for w in range(n):
            ranks[w] = 0
        for j in range(m):
            if j < i:
                for w in range(n):
                    ranks[w] += keys[j, w] <= keys[i, w]
            elif j > i:
                for w in range(n):
                    ranks[w] += keys[j, w] < keys[i, w]
        for w in range(n):
            if ranks[w] == rank:
                upper_key[w] = keys[i, w]
                refs[w] = np.float64(values[i, w])
            elif ranks[w] == rank - 1:
                lower_key[w] = keys[i, w]
                refs[n + w] = np.float64(values[i, w])
    if m % 2 == 0:
        for w in range(n):
            if lower_key[w] != upper_key[w]:
                refs[w] = (refs[w] + refs[n + w]) / 2.0


@compiling.cached_jit(parallel=True)
def _subtract_neighbours(x, y, samples_by_channels, table, counts, use_median, signed,
                         unsigned):
    """``x`` and ``y`` C-contiguous, samples by channels or channels by samples."""
    samples = x.shape[0] if samples_by_channels else x.shape[1]
    channels, width = table.shape
    shift = signed.dtype.type(8 * x.itemsize - 1)
    lowest = signed.dtype.type(1) << shift
    for item in prange((samples + TILE - 1) // TILE):
        t0 = item * TILE
        n = min(TILE, samples - t0)
        keys = np.empty((width, TILE), unsigned.dtype)
        spare = np.empty(width, unsigned.dtype)
        column = np.empty(width, x.dtype)
        column_keys = np.empty(width, unsigned.dtype)
        bits = np.empty(1, signed.dtype)
        tile = np.empty((width, TILE), x.dtype)
        refs = np.empty(2 * TILE)
        middles = np.empty((2, TILE), unsigned.dtype)
        ranks = np.empty(TILE, np.int64)
        nan = np.empty(TILE, np.bool_)
        for c in range(channels):
            m = counts[c]
            for k in range(m):
                j = table[c, k]
                for w in range(n):
                    tile[k, w] = x[t0 + w, j] if samples_by_channels else x[j, t0 + w]
            if m == 0:
                for w in range(n):
                    refs[w] = 0.0
            elif not use_median:
                for w in range(n):
                    refs[w] = 0.0
                for k in range(m):
                    for w in range(n):
                        refs[w] += tile[k, w]
                for w in range(n):
                    refs[w] /= m
            elif m <= SMALL:
                raw = tile.view(signed.dtype)
                for w in range(n):
                    nan[w] = False
                for k in range(m):
                    for w in range(n):
                        nan[w] |= tile[k, w] != tile[k, w]
                        keys[k, w] = unsigned.dtype.type(raw[k, w] ^ ((raw[k, w] >> shift)
                                                                      | lowest))
                _ranked_median(tile, keys, n, m, refs, middles, ranks)
                for w in range(n):
                    if nan[w]:
                        refs[w] = np.nan
            else:
                for w in range(n):
                    for k in range(m):
                        column[k] = tile[k, w]
                    refs[w] = median_or_mean(column[:m], True, column_keys, spare, bits)
            for w in range(n):
                if samples_by_channels:
                    y[t0 + w, c] = x[t0 + w, c] - refs[w]
                else:
                    y[c, t0 + w] = x[c, t0 + w] - refs[w]


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
