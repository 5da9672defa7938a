"""Catalogue entries of the multichannel kernels: common reference, whitening, phase shift."""

import numpy as np

from dspk.operations.base import Operation, random_signal, time_axis
from dspk.plugin import Problem


def _common_reference_args(problem: Problem, rng):
    groups = (np.arange(problem.channels),)
    return random_signal(problem, rng), time_axis(problem), groups, problem.param("operator")


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


OPERATIONS = (
    Operation("common_reference", ({"operator": "median"}, {"operator": "average"}),
              _common_reference_args),
    Operation("channel_mean", ({},), _channel_mean_args),
    Operation("channel_covariance", ({},), _centred_args),
    Operation("median_of_squares", ({},), _centred_args),
    Operation("apply_channel_matrix", ({},), _apply_args),
    Operation("phase_shift", ({"margin": 2048},), _phase_shift_args),
)
