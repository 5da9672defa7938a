"""What the catalogue is made of: :class:`Operation` and helpers for example inputs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dspk.pieces import Pieces, on_device
from dspk.plugin import Problem


def bucket(n: int) -> int:
    """The power of two at or above ``n``: sizes that tune alike share a key.

    Examples
    --------
    >>> [bucket(n) for n in (1, 3, 4, 129)]
    [1, 4, 4, 256]
    """
    return 1 << max(int(n) - 1, 0).bit_length()


_last_signal: dict[tuple, np.ndarray] = {}


def random_signal(problem: Problem, rng: np.random.Generator) -> np.ndarray:
    """A random 2-D signal of the problem's size, dtype and layout (time axis 1 or 0).

    The last two drawn are kept and given again for the same size, dtype and
    layout: tuning every operation at one size draws the data once, although
    compiling each variant (``Backend.prepare``) draws a small one in between.
    Kernels never write their inputs.

    Examples
    --------
    >>> p = Problem.make("sosfilt", "float32", 3, 10, "sample-major")
    >>> random_signal(p, np.random.default_rng(0)).shape
    (10, 3)
    """
    key = (problem.channels, problem.samples, problem.dtype, problem.layout)
    if key in _last_signal:
        _last_signal[key] = _last_signal.pop(key)  # the most recent
    else:
        while len(_last_signal) >= 2:
            del _last_signal[next(iter(_last_signal))]
        shape = ((problem.samples, problem.channels) if problem.layout == "sample-major"
                 else (problem.channels, problem.samples))
        # Drawn in its own dtype and layout: seconds less at the grid's largest sizes.
        _last_signal[key] = rng.standard_normal(shape, dtype=np.dtype(problem.dtype))
    return _last_signal[key]


def time_axis(problem: Problem) -> int:
    """The time axis of :func:`random_signal`'s array."""
    return 0 if problem.layout == "sample-major" else 1


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
        ``example_args(problem, rng)``: NumPy arguments to time kernels on;
        arrays of the problem's dtype are data, float64 arrays are parameters
        that calls keep on the host (means, shifts).
    pieces : dspk.pieces.Pieces or None
        How a call on an input too large for a device splits into calls on
        smaller ones; None when it cannot.
    """

    name: str
    grid_params: tuple[dict, ...]
    example_args: Callable[[Problem, np.random.Generator], tuple]
    pieces: Pieces | None = None

    def device_args(self, backend, problem: Problem, rng: np.random.Generator) -> tuple:
        """:attr:`example_args` as calls pass them to ``backend``: data as its native
        arrays, float64 parameters and everything else as they are.

        Examples
        --------
        >>> from dspk.operations import OPERATIONS
        >>> from dspk.registry import registry
        >>> cpu = registry().probe("cpu").backend
        >>> p = Problem.make("sosfilt", "float32", 2, 64, "channel-major", sections=2)
        >>> [type(a).__name__ for a in OPERATIONS["sosfilt"].device_args(
        ...     cpu, p, np.random.default_rng(0))]
        ['ndarray', 'ndarray', 'int', 'NoneType']
        """
        return tuple(on_device(backend, problem.dtype, self.example_args(problem, rng)))
