"""Threshold peak detection in NumPy: the window comparisons on the threshold's candidates.

The samples that cross the threshold are gathered first (a few in a hundred of
a band-passed recording at 5 noise levels, fewer at realistic thresholds);
each window offset and neighbour then costs one gather and one comparison
over the candidates only. The cpu runtime's variant where numba's parallel
layer cannot run, and a plain statement of the rule: any comparison with NaN
is false.
"""

from __future__ import annotations

import numpy as np

from dspk_cpu.layout import channel_major


def _survivors(x2, channels, samples, levels, exclude, neighbours, negative):
    """Which candidates ``(channels, samples)`` are the extremum of their window."""
    v = x2[channels, samples]
    keep = np.ones(len(v), bool)
    n = x2.shape[1]
    rows = [channels] + ([] if neighbours is None else list(neighbours[channels].T))
    for k, row in enumerate(rows):
        present = row >= 0
        for d in range(-exclude, exclude + 1):
            if k == 0 and d == 0:
                continue
            u = samples + d
            inside = present & (u >= 0) & (u < n)
            w = x2[np.where(inside, row, 0), np.clip(u, 0, n - 1)]
            if negative:
                beats = v < w if d < 0 else v <= w
            else:
                beats = v > w if d < 0 else v >= w
            keep &= beats | ~inside
    return keep


def detect_peaks(x, axis, levels, sign, exclude, neighbours):
    """Threshold peaks of ``x`` (see :func:`dspk.detect_peaks`), sorted by sample then channel.

    Examples
    --------
    >>> x = np.array([[0.0, -3.0, -1.0, -4.0, 0.0], [0.0, -5.0, 0.0, 0.0, 0.0]])
    >>> detect_peaks(x, 1, np.array([2.0, 2.0]), "neg", 1, np.array([[1], [0]]))
    (array([1, 3]), array([1, 0]), array([-5., -4.]))
    """
    x2 = channel_major(x, axis)
    level = levels.astype(x.dtype)[:, None]
    found = []
    for negative in [s == "neg" for s in (("neg", "pos") if sign == "both" else (sign,))]:
        crossing = x2 < -level if negative else x2 > level
        channels, samples = np.nonzero(crossing)
        keep = _survivors(x2, channels, samples, levels, exclude, neighbours, negative)
        found.append((samples[keep], channels[keep]))
    samples = np.concatenate([s for s, _ in found]).astype(np.int64)
    channels = np.concatenate([c for _, c in found]).astype(np.int64)
    order = np.lexsort((channels, samples))
    samples, channels = samples[order], channels[order]
    return samples, channels, x2[channels, samples]
