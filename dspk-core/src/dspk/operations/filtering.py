"""Catalogue entries of the filtering and convolution kernels."""

import numpy as np
from scipy import signal

from dspk.operations.base import OTHER, Operation, Pieces, random_signal, time_axis
from dspk.plugin import Problem


def _sos(problem: Problem) -> np.ndarray:
    order = 2 * problem.param("sections")
    return signal.butter(order, 0.2, output="sos").astype(problem.dtype)


def _ba(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    b, a = signal.butter(problem.param("order"), 0.2)
    return b.astype(problem.dtype), a.astype(problem.dtype)


def _sosfilt_args(problem, rng):
    return _sos(problem), random_signal(problem, rng), time_axis(problem), None


def _lfilter_args(problem, rng):
    b, a = _ba(problem)
    return b, a, random_signal(problem, rng), time_axis(problem), None


def _sosfiltfilt_args(problem, rng):
    sos = _sos(problem)
    zi = signal.sosfilt_zi(sos).astype(problem.dtype)
    return sos, random_signal(problem, rng), time_axis(problem), "odd", 3 * (2 * len(sos) + 1), zi


def _filtfilt_args(problem, rng):
    b, a = _ba(problem)
    zi = signal.lfilter_zi(b, a).astype(problem.dtype)
    return b, a, random_signal(problem, rng), time_axis(problem), "odd", 3 * len(b), zi


def _convolve_args(problem, rng):
    rows = problem.channels if problem.param("per_channel") else 1
    h = rng.standard_normal((rows, problem.param("taps"))).astype(problem.dtype)
    return random_signal(problem, rng), h, time_axis(problem)


OPERATIONS = (
    Operation("sosfilt", ({"sections": 4},), _sosfilt_args,
              Pieces("channels", {1: OTHER}, 2, {3: 1}, (OTHER, 1), carries_state=3),
              signature="sos, x, axis, zi -> y, zf",
              description=('``zi`` is None or ``(n_sections, C, 2)``; ``zf`` is None when ``zi`` '
                           'is.')),
    Operation("lfilter", ({"order": 4},), _lfilter_args,
              Pieces("channels", {2: OTHER}, 3, {4: 0}, (OTHER, 0), carries_state=4),
              signature="b, a, x, axis, zi -> y, zf",
              description='``zi`` is None or ``(C, K - 1)``.'),
    Operation("sosfiltfilt", ({"sections": 4},), _sosfiltfilt_args,
              Pieces("channels", {1: OTHER}, 2),
              signature="sos, x, axis, padtype, padlen, zi -> y",
              description=('``zi`` is ``sosfilt_zi(sos)``, shape ``(n_sections, 2)``; ``padtype`` '
                           'is ``"odd"``, ``"even"``, ``"constant"`` or None; ``padlen`` is '
                           'checked to be below the signal length.')),
    Operation("filtfilt", ({"order": 4},), _filtfilt_args, Pieces("channels", {2: OTHER}, 3),
              signature="b, a, x, axis, padtype, padlen, zi -> y",
              description='``zi`` is ``lfilter_zi(b, a)``, shape ``(K - 1,)``.'),
    Operation("convolve", tuple({"taps": taps, "per_channel": False, "method": "auto"}
                                for taps in (16, 128, 1024)), _convolve_args,
              Pieces("channels", {0: OTHER}, 2, {1: 0}),
              signature="x, h, axis -> y",
              description=('The full convolution of every channel with its row of ``h``, shape '
                           "``(1 or C, k)``; ``y`` has ``n + k - 1`` samples and ``x``'s layout.")),
)
