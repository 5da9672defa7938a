"""Catalogue entries of the detection kernels: per-channel medians and mean squares (noise
levels) and threshold peak detection."""

import numpy as np

from dspk.operations.base import OTHER, Operation, Pieces, random_signal, time_axis
from dspk.plugin import Problem

#: The peak signs a ``detect_peaks`` kernel takes.
SIGNS = ("neg", "pos", "both")


def _centre(problem: Problem, rng) -> np.ndarray | None:
    return rng.standard_normal(problem.channels) if problem.param("centred") else None


def _statistic_args(problem: Problem, rng):
    return random_signal(problem, rng), time_axis(problem), _centre(problem, rng)


def neighbour_table(neighbours: list[np.ndarray], channels: int) -> np.ndarray:
    """Each channel's neighbours (itself left out) as one int64 ``(C, K)`` table, padded with -1.

    Examples
    --------
    >>> neighbour_table([np.array([0, 1]), np.array([1, 0, 2]), np.array([2])], 3).tolist()
    [[1, -1], [0, 2], [-1, -1]]
    """
    others = [[int(n) for n in row if n != c] for c, row in enumerate(neighbours)]
    width = max([len(row) for row in others] + [1])
    table = np.full((channels, width), -1, np.int64)
    for c, row in enumerate(others):
        table[c, :len(row)] = row
    return table


def _detect_args(problem: Problem, rng):
    x = random_signal(problem, rng)
    levels = np.full(problem.channels, 2.5)  # a few percent of the samples cross
    neighbours = None
    if problem.param("neighbours"):  # a linear probe: two channels either side
        channels = np.arange(problem.channels)
        neighbours = neighbour_table([channels[max(c - 2, 0):c + 3] for c in channels],
                                     problem.channels)
    return (x, time_axis(problem), levels, problem.param("sign"), problem.param("exclude"),
            neighbours)


#: Noise levels and peaks: not split into pieces along time (a median, and peaks near
#: the cuts, need the whole channel); medians split by channels.
OPERATIONS = (
    Operation("channel_median", ({"centred": False}, {"centred": True}), _statistic_args,
              Pieces("channels", {0: OTHER}, 1, {2: 0}, results=(0,)),
              signature="x, axis, centre -> m",
              description=("Float64 ``(C,)``: each channel's median over time of ``x`` (``centre`` "
                           "None) or of ``abs(x - centre)`` (``centre`` a float64 host ``(C,)``, "
                           "rounded to ``x``'s dtype; the difference in ``x``'s dtype, as NumPy "
                           "computes it). An even count averages the two middle values in "
                           "float64; a NaN on a channel makes its median NaN.")),
    Operation("channel_mean_square", ({"centred": False}, {"centred": True}), _statistic_args,
              Pieces("time", {0: OTHER}, 1, results=("weighted-mean",)),
              signature="x, axis, centre -> ms",
              description=("Float64 ``(C,)``: each channel's mean over time of ``(x - centre) ** "
                           "2`` (``centre`` None for 0, or a float64 host ``(C,)``), summed in "
                           "float64 (a GPU may first sum chunks of samples in ``x``'s "
                           "precision).")),
    Operation("detect_peaks",
              ({"sign": "neg", "exclude": 8, "neighbours": False},
               {"sign": "both", "exclude": 8, "neighbours": True}),
              _detect_args, None,
              signature="x, axis, levels, sign, exclude, neighbours -> samples, channels, "
                        "amplitudes",
              description=(
                  "Threshold peaks, sorted by sample then channel: ``samples`` and ``channels`` "
                  "int64, ``amplitudes`` in ``x``'s dtype (native or host arrays). ``levels`` "
                  "is a float64 host ``(C,)`` of thresholds ``>= 0``, compared after rounding "
                  "to ``x``'s dtype; ``sign`` one of " + ", ".join(f"``{s!r}``" for s in SIGNS)
                  + "; ``exclude >= 0`` samples; ``neighbours`` None or an int64 host "
                  "``(C, K)`` table of each channel's neighbours, itself left out, padded "
                  "with -1. For ``'neg'``, sample ``t`` of channel ``c`` is a peak when ``v = "
                  "x[c, t] < -levels[c]``, ``v < x[n, u]`` for ``t - exclude <= u < t`` and "
                  "``v <= x[n, u]`` for ``t < u <= t + exclude`` on ``c`` and its neighbours, "
                  "and ``v <= x[n, t]`` on its neighbours (samples beyond the ends are not "
                  "compared; any comparison with NaN is false); ``'pos'`` mirrors it; "
                  "``'both'`` is either.")),
)
