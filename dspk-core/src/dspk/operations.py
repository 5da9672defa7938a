"""The catalogue of kernel operations: what the tuner needs to know of each.

For every operation a runtime may implement, this gives the problem key a
call builds, the parameter sets tuned ahead of time, and representative
arguments (in the kernel calling convention of :mod:`dspk.plugin`) to time
kernels on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import signal

from dspk.plugin import Problem


def bucket(n: int) -> int:
    """The power of two at or above ``n``: sizes that tune alike share a key.

    Examples
    --------
    >>> [bucket(n) for n in (1, 3, 4, 129)]
    [1, 4, 4, 256]
    """
    return 1 << max(int(n) - 1, 0).bit_length()


def random_signal(problem: Problem, rng: np.random.Generator) -> np.ndarray:
    """A random 2-D signal of the problem's size, dtype and layout (time axis 1 or 0).

    Examples
    --------
    >>> p = Problem.make("sosfilt", "float32", 3, 10, "sample-major")
    >>> random_signal(p, np.random.default_rng(0)).shape
    (10, 3)
    """
    x = rng.standard_normal((problem.channels, problem.samples)).astype(problem.dtype)
    return np.ascontiguousarray(x.T) if problem.layout == "sample-major" else x


def time_axis(problem: Problem) -> int:
    """The time axis of :func:`random_signal`'s array."""
    return 0 if problem.layout == "sample-major" else 1


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


@dataclass(frozen=True)
class Operation:
    """A kernel operation as the tuner sees it.

    Parameters
    ----------
    name : str
        As in the kernel calling conventions of :mod:`dspk.plugin`.
    grid_params : tuple of dict
        The parameter sets that :func:`dspk.runtime.autotune` tunes.
    example_args : callable
        ``example_args(problem, rng)``: NumPy arguments to time kernels on.
    """

    name: str
    grid_params: tuple[dict, ...]
    example_args: Callable[[Problem, np.random.Generator], tuple]


OPERATIONS: dict[str, Operation] = {op.name: op for op in (
    Operation("sosfilt", ({"sections": 4},), _sosfilt_args),
    Operation("lfilter", ({"order": 4},), _lfilter_args),
    Operation("sosfiltfilt", ({"sections": 4},), _sosfiltfilt_args),
    Operation("filtfilt", ({"order": 4},), _filtfilt_args),
    Operation("convolve", tuple({"taps": taps, "per_channel": False, "method": "auto"}
                                for taps in (16, 128, 1024)), _convolve_args),
)}
