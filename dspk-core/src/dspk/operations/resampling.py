"""Catalogue entries of the resampling kernels: polyphase upfirdn and FFT resample."""

import numpy as np

from dspk.operations.base import OTHER, Operation, Pieces, random_signal, time_axis
from dspk.plugin import Problem


def _upfirdn_args(problem: Problem, rng: np.random.Generator) -> tuple:
    up, down = problem.param("up"), problem.param("down")
    taps = problem.param("phase_taps") * up
    h = rng.standard_normal(taps).astype(problem.dtype)
    full = ((problem.samples - 1) * up + taps - 1) // down + 1
    return h, random_signal(problem, rng), time_axis(problem), up, down, None, None, 0, full


def _resample_args(problem: Problem, rng: np.random.Generator) -> tuple:
    num = problem.param("num")
    weights = np.full(min(num, problem.samples) // 2 + 1, num / problem.samples, problem.dtype)
    return random_signal(problem, rng), time_axis(problem), num, weights


OPERATIONS = (
    # Decimation by 4 with resample_poly's filter, and upsampling by 4.
    Operation("upfirdn", ({"phase_taps": 128, "up": 1, "down": 4},
                          {"phase_taps": 32, "up": 4, "down": 1}), _upfirdn_args,
              Pieces("channels", {1: OTHER}, 2, {5: OTHER, 6: OTHER}),
              signature="h, x, axis, up, down, left, right, start, stop -> y",
              description=('Samples ``start:stop`` of ``y[k] = sum_j h[j] u[k down - j]``, ``u`` '
                           'being ``x`` extended by ``left``/``right`` (None: zeros; else ``E`` '
                           'samples along ``axis``) and upsampled by ``up`` with zeros, never '
                           'formed.')),
    Operation("resample", ({"num": 4096}, {"num": 65536}), _resample_args,
              Pieces("channels", {0: OTHER}, 1),
              signature="x, axis, num, weights -> y",
              description=('``irfft(rfft(x)[:m] * weights, num)`` along ``axis``, with ``m = '
                           'min(n, num) // 2 + 1``.')),
)
