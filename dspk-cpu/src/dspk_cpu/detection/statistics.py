"""Per-channel statistics of noise levels: medians by NumPy's partition, mean squares by blocks.

``channel_median`` selects each channel's middle value(s) with one
:func:`numpy.partition` per slice of channels, the slices on threads
(NumPy releases the GIL while it partitions); the two middle values of an even
count are averaged in float64, and a NaN makes its channel's median NaN, as
:func:`numpy.median`. ``channel_mean_square`` adds squares in float64, block
of samples by block (all channels at once), blocks on threads.
"""

from __future__ import annotations

import numpy as np

from dspk_cpu.layout import channel_major
from dspk_cpu.multichannel.blocks import sample_blocks
from dspk_cpu.threads import channel_slices, on_threads


def _median_rows(values: np.ndarray) -> np.ndarray:
    """The median of each row of ``values`` (NaN where a row holds one), float64.

    Examples
    --------
    >>> _median_rows(np.array([[3.0, 1.0, 2.0, 10.0], [1.0, np.nan, 0.0, 0.0]]))
    array([2.5, nan])
    """
    n = values.shape[1]
    lower, upper = (n - 1) // 2, n // 2
    part = np.partition(values, (lower, upper), axis=1)
    median = (part[:, lower].astype(np.float64) + part[:, upper]) / 2
    median[np.isnan(values).any(axis=1)] = np.nan
    return median


def channel_median(x, axis, centre):
    """Each channel's median over time of ``x``, or of ``abs(x - centre)``, float64.

    Examples
    --------
    >>> x = np.array([[1.0, 5.0, 2.0], [0.0, -4.0, 4.0]])
    >>> channel_median(x, 1, None), channel_median(x, 1, np.array([2.0, 0.0]))
    (array([2., 0.]), array([1., 4.]))
    """
    x2 = channel_major(x, axis)
    median = np.empty(x2.shape[0])
    shift = None if centre is None else np.asarray(centre).astype(x.dtype)[:, None]

    def work(part):
        values = x2[part] if shift is None else np.abs(x2[part] - shift[part])
        median[part] = _median_rows(values)

    on_threads(work, channel_slices(x2.shape[0]))
    return median


def channel_mean_square(x, axis, centre):
    """Each channel's mean over time of ``(x - centre) ** 2``, in float64.

    Examples
    --------
    >>> channel_mean_square(np.array([[1.0, 3.0], [2.0, 2.0]], np.float32), 0, None)
    array([2.5, 6.5])
    """
    x2 = channel_major(x, axis)
    channels, samples = x2.shape
    shift = np.zeros((channels, 1)) if centre is None else np.asarray(centre, np.float64)[:, None]

    def work(part):
        d = x2[:, part].astype(np.float64) - shift
        return np.einsum("ct,ct->c", d, d)

    return np.sum(on_threads(work, sample_blocks(samples, channels)), axis=0) / samples
