"""Catalogue entries of the multichannel kernels: common reference, whitening, phase shift."""

import numpy as np

from dspk.operations.base import OTHER, Operation, Pieces, random_signal, time_axis
from dspk.plugin import Problem


def _common_reference_args(problem: Problem, rng):
    groups = (np.arange(problem.channels),)
    return random_signal(problem, rng), time_axis(problem), groups, problem.param("operator")


def neighbour_table(channels: int, width: int, rng) -> np.ndarray:
    """A random ``(channels, width)`` neighbour table: distinct channels per row, the
    rows of uneven length (padded with -1), one row empty when there are several.

    Examples
    --------
    >>> neighbour_table(3, 2, np.random.default_rng(0)).shape
    (3, 2)
    """
    table = np.full((channels, width), -1, np.int64)
    for c in range(channels):
        count = min(channels, width, 1 + (c * 7) % width)
        table[c, :count] = rng.choice(channels, count, replace=False)
    if channels > 1:
        table[channels // 2] = -1
    return table


def _neighbour_reference_args(problem: Problem, rng):
    table = neighbour_table(problem.channels, problem.param("neighbours"), rng)
    return random_signal(problem, rng), time_axis(problem), table, problem.param("operator")


def _mean(problem: Problem, rng) -> np.ndarray:
    return rng.standard_normal(problem.channels)


def _channel_mean_args(problem, rng):
    return random_signal(problem, rng), time_axis(problem)


def _centred_args(problem, rng):
    return random_signal(problem, rng), time_axis(problem), _mean(problem, rng)


def _apply_args(problem, rng):
    W = rng.standard_normal((problem.channels, problem.channels)).astype(problem.dtype)
    return W, random_signal(problem, rng), time_axis(problem), _mean(problem, rng)


def _phase_shift_args(problem, rng):
    shifts = rng.uniform(0.0, 1.0, problem.channels)
    return random_signal(problem, rng), time_axis(problem), shifts, problem.param("margin")


def _median_of_squares_on_host(x: np.ndarray, axis: int, mean: np.ndarray | None) -> float:
    """The ``median_of_squares`` kernel's result with NumPy, for inputs in pieces."""
    centred = x if mean is None else x - np.expand_dims(mean, axis)
    return float(np.median(np.square(centred, dtype=np.float64)))


#: A signal first, its time axis second; results joined along time.
_EACH_SAMPLE = Pieces("time", {0: OTHER}, 1, results=("time",))

#: A signal first, its time axis second; a statistic per channel or pair.
_STATISTIC = Pieces("time", {0: OTHER}, 1, results=("weighted-mean",))

OPERATIONS = (
    Operation("common_reference", ({"operator": "median"}, {"operator": "average"}),
              _common_reference_args, _EACH_SAMPLE,
              signature="x, axis, groups, operator -> y",
              description=("Each group's channels minus the group's per-sample median or mean "
                           '(``operator``); ``groups`` is a tuple of disjoint int64 host arrays '
                           'of channel indices; channels in no group are 0.')),
    Operation("neighbour_reference",
              ({"operator": "median", "neighbours": 8}, {"operator": "average", "neighbours": 8}),
              _neighbour_reference_args, _EACH_SAMPLE,
              signature="x, axis, neighbours, operator -> y",
              description=("Each channel ``c`` minus the per-sample median or mean "
                           "(``operator``) of the channels ``neighbours[c]`` (a channel may "
                           "be its own neighbour); ``neighbours`` is an int64 host ``(C, K)`` "
                           "table, each row distinct channel indices padded with -1 at the "
                           "end; a row of -1 only leaves its channel as it is.")),
    Operation("channel_mean", ({},), _channel_mean_args, _STATISTIC,
              signature="x, axis -> mean",
              description='Float64, shape ``(C,)``.'),
    Operation("channel_covariance", ({},), _centred_args, _STATISTIC,
              signature="x, axis, mean -> cov",
              description=('Float64 ``(C, C)``, ``Xc Xc.T / n`` with ``Xc = x - mean`` (``mean`` '
                           'None or float64).')),
    Operation("median_of_squares", ({},), _centred_args,
              Pieces("host", {0: OTHER}, 1, on_host=_median_of_squares_on_host),
              signature="x, axis, mean -> m",
              description='The median of ``(x - mean) ** 2`` over every channel and sample.'),
    Operation("apply_channel_matrix", ({},), _apply_args,
              Pieces("time", {1: OTHER}, 2, results=("time",)),
              signature="W, x, axis, mean -> y",
              description=('``W @ (x - mean)`` on channels by samples; ``W`` is ``(C, C)`` in '
                           "``x``'s dtype.")),
    Operation("phase_shift", ({"margin": 2048},), _phase_shift_args,
              Pieces("channels", {0: OTHER}, 1, {2: 0}),
              signature="x, axis, shifts, margin -> y",
              description=('Pad each channel with ``margin`` zeros at both ends (``L = n + 2 '
                           'margin``), rfft of length ``L``, times ``exp(-2j pi k shift / L)``, '
                           'irfft, the middle ``n`` samples; ``shifts`` float64 host ``(C,)``.')),
)
