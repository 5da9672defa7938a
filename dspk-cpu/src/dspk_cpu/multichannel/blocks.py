"""The multichannel kernels on numpy and BLAS, by blocks of samples: the common reference
(the median or mean across channels, taken and subtracted in float64 and rounded once, as
the numba kernel does, so every variant gives the same result) and the kernels of whitening
(channel means, the
channel covariance, the median of squares for the default regularisation, and the
product with a channels-by-channels matrix).

These kernels reduce across channels, so they split the work along time (blocks of
samples) rather than across channels. Everything runs on the channels-by-samples view
of the signal (a transpose view for time axis 0, never a copy); blocks run on threads
where numpy releases the GIL (partition, reductions), and the matrix products are BLAS
calls, which use the cores themselves.
"""

from __future__ import annotations

import numpy as np

from dspk_cpu.layout import channel_major
from dspk_cpu.threads import on_threads

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
    x2 = channel_major(x, axis)
    channels, samples = x2.shape
    y = np.empty_like(x) if sum(len(g) for g in groups) == channels else np.zeros_like(x)
    y2 = channel_major(y, axis)

    def work(part):
        block = x2[:, part]
        for members in groups:
            values = block[members]
            y2[members, part] = values - _reference(values, operator)

    on_threads(work, sample_blocks(samples, channels))
    return y


def _median_across(values):
    """The median of ``values`` across its rows (axis 0), kept as one row in float64: as
    :func:`numpy.median` (a NaN makes its column's median NaN), by one partition.

    Examples
    --------
    >>> _median_across(np.array([[1.0, 5.0], [2.0, np.nan], [4.0, 3.0], [0.0, 1.0]]))
    array([[1.5, nan]])
    """
    n = values.shape[0]
    half = n // 2
    columns = values.T.copy(order="C")  # a copy, each column contiguous: 1.4x faster to partition
    columns.partition((half - 1, half, n - 1) if n % 2 == 0 else (half, n - 1), axis=1)
    upper = columns[:, half].astype(np.float64)
    middle = upper if n % 2 else (columns[:, half - 1] + upper) * 0.5
    last = columns[:, -1].astype(np.float64)
    nan = np.isnan(last)
    return (np.where(nan, last, middle) if nan.any() else middle)[None, :]


def common_reference_whole(x, axis, groups, operator):
    """Subtract each group's median (one partition) or mean (summed in float64) over the
    whole array on the calling thread: for small arrays, where blocks on threads and
    :func:`numpy.median`'s own argument handling cost more than the work.

    Examples
    --------
    >>> x = np.array([[1.0, 5.0], [2.0, 0.0], [4.0, 3.0]])
    >>> common_reference_whole(x, 1, (np.arange(3),), "median")
    array([[-1.,  2.],
           [ 0., -3.],
           [ 2.,  0.]])
    """
    x2 = channel_major(x, axis)
    if len(groups) == 1 and len(groups[0]) == x2.shape[0]:  # every channel: no gathers
        reference = _reference(x2, operator)
        return (x - (reference if axis == 1 else reference.T)).astype(x.dtype, copy=False)
    y = np.zeros_like(x)
    y2 = channel_major(y, axis)
    for members in groups:
        values = x2[members]
        y2[members] = values - _reference(values, operator)
    return y


def _reference(values, operator):
    """One row: the median or mean of ``values`` across its rows, in float64."""
    if operator == "median":
        return _median_across(values)
    return values.mean(axis=0, keepdims=True, dtype=np.float64)


def channel_mean_whole(x, axis):
    """Per-channel mean in float64, as one numpy reduction.

    Examples
    --------
    >>> channel_mean_whole(np.array([[1.0, 3.0], [2.0, 5.0]], np.float32), axis=0)
    array([1.5, 4. ])
    """
    return channel_major(x, axis).mean(axis=1, dtype=np.float64)


def channel_mean_blocks(x, axis):
    """Per-channel mean in float64, from partial sums of blocks of samples on threads.

    Examples
    --------
    >>> channel_mean_blocks(np.array([[1.0, 2.0], [3.0, 5.0]], np.float32), axis=1)
    array([1.5, 4. ])
    """
    x2 = channel_major(x, axis)
    channels, samples = x2.shape
    partial = on_threads(lambda part: x2[:, part].sum(axis=1, dtype=np.float64),
                         sample_blocks(samples, channels))
    return np.sum(partial, axis=0) / samples


def _centred(block, mean):
    """A block of the channels-by-samples view minus the mean, in the block's dtype."""
    if mean is None:
        return block
    return block - mean.astype(block.dtype)[:, None]


def covariance_float64(x, axis, mean):
    """``Xc @ Xc.T / n`` accumulated block by block in float64 (float32 blocks are widened).

    Examples
    --------
    >>> covariance_float64(np.array([[1.0, -1.0], [2.0, 0.0]]), 1, None)
    array([[1., 1.],
           [1., 2.]])
    """
    return _covariance_by_blocks(channel_major(x, axis), mean, np.float64)


def covariance_native(x, axis, mean):
    """``Xc @ Xc.T / n``: each block's product in the signal's dtype, the sum of blocks in float64.

    Examples
    --------
    >>> x = np.array([[1.0, 3.0], [2.0, 0.0]], np.float32)
    >>> covariance_native(x, 1, np.array([2.0, 1.0]))
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    return _covariance_by_blocks(channel_major(x, axis), mean, x.dtype)


def _covariance_by_blocks(x2, mean, dtype):
    channels, samples = x2.shape
    cov = np.zeros((channels, channels))
    for part in sample_blocks(samples, channels):
        block = _centred(x2[:, part].astype(dtype, copy=False), mean)
        cov += block @ block.T
    return cov / samples


def covariance_whole(x, axis, mean):
    """``Xc @ Xc.T / n`` as one product over the whole signal (float64 signals).

    Examples
    --------
    >>> covariance_whole(np.array([[1.0, -1.0], [2.0, 0.0]]), 0, None)
    array([[ 2.5, -0.5],
           [-0.5,  0.5]])
    """
    centred = _centred(channel_major(x, axis), mean)
    return centred @ centred.T / centred.shape[1]


def median_of_squares_partition(x, axis, mean):
    """The median of ``(x - mean) ** 2`` over every channel and sample, in the signal's dtype.

    Examples
    --------
    >>> median_of_squares_partition(np.array([[1.0, -3.0, 2.0]]), 1, None)
    4.0
    """
    squares = np.square(_centred(channel_major(x, axis), mean))
    return float(np.median(squares.ravel(order="K"), overwrite_input=True))


def _product_into(W, block, out):
    """``out = W @ block``, written so that BLAS can store into ``out``'s memory order."""
    if out.strides[0] >= out.strides[1]:
        np.matmul(W, block, out=out)
    else:
        np.matmul(block.T, W.T, out=out.T)


def apply_blocks(W, x, axis, mean):
    """``W @ (x - mean)`` one block of samples at a time, the centred block kept in cache.

    Examples
    --------
    >>> apply_blocks(np.array([[0.0, 1.0], [2.0, 0.0]]), np.ones((3, 2)), 0, None)
    array([[1., 2.],
           [1., 2.],
           [1., 2.]])
    """
    y = np.empty_like(x)
    x2, y2 = channel_major(x, axis), channel_major(y, axis)
    channels, samples = x2.shape
    for part in sample_blocks(samples, channels):
        _product_into(W, _centred(x2[:, part], mean), y2[:, part])
    return y


def apply_whole(W, x, axis, mean):
    """``W @ (x - mean)`` as one matrix product over the whole signal.

    Examples
    --------
    >>> apply_whole(np.eye(2), np.array([[1.0, 3.0], [2.0, 6.0]]), 1, np.array([2.0, 4.0]))
    array([[-1.,  1.],
           [-2.,  2.]])
    """
    y = np.empty_like(x)
    _product_into(W, _centred(channel_major(x, axis), mean), channel_major(y, axis))
    return y
