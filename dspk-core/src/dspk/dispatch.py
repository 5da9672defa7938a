"""The path of every call: runtime, array kind, 2-D view, kernel choice, run.

An operation in :mod:`dspk.filtering` or :mod:`dspk.convolution` validates
its arguments, then uses these helpers, so that every operation treats
runtimes and array kinds the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dspk import pieces
from dspk.arrays import ArrayLibrary, owner, to_numpy
from dspk.operations import KERNELS_OF
from dspk.plugin import ArrayTooLarge, Backend, Problem, layout_of
from dspk.runtime import resolve
from dspk.tuning import tuner

_SINGLES = (np.dtype(np.float32), np.dtype(np.complex64))
_SINGLE, _DOUBLE = np.dtype(np.float32), np.dtype(np.float64)


@dataclass
class Call:
    """One call's runtime, and how to give results back in the caller's kind.

    Parameters
    ----------
    backend : dspk.plugin.Backend
        The runtime the call runs on.
    native_in : bool
        Whether the caller passed the runtime's native arrays (then results
        stay native).
    origin : dspk.arrays.ArrayLibrary or None
        Where the caller's arrays come from when the runtime does not take
        them as they are: another runtime, or another library (torch, JAX) in
        host or GPU memory; results go back there. None means NumPy.
    """

    backend: Backend
    native_in: bool
    origin: ArrayLibrary | None = None

    @classmethod
    def start(cls, runtime: str | None, x: Any, name: str, function: str | None,
              complex_coefficients: bool = False) -> tuple[Call, Any]:
        """Resolve the runtime and take the signal ``x`` as an array the checks can read.

        The default runtime is one that implements the kernel operations of
        ``function`` (a key of :data:`dspk.operations.KERNELS_OF`; None for a
        call whose kernels run through other public functions), with kernels
        that take complex data for ``complex_coefficients`` (a filter's complex
        denominators), and computes in ``x``'s precision: float32 and complex64
        data stay in single precision, other numbers compute in double. Host
        data becomes NumPy in native byte order (:func:`dspk.arrays.to_numpy`).
        """
        origin = owner(x)
        if origin is None:
            try:
                x = to_numpy(x)
            except Exception as exc:
                raise TypeError(f"{name} must be an array; got {type(x).__name__} "
                                f"({exc})") from None
        backend = resolve(runtime, _SINGLE if x.dtype in _SINGLES else _DOUBLE,
                          function or "", KERNELS_OF[function] if function else (),
                          complex_coefficients)
        if backend.is_native(x):
            return cls(backend, True), x
        if origin is not None:
            return cls(backend, False, origin), origin.take(x, backend)
        return cls(backend, False), x

    def take(self, array: Any, name: str) -> Any:
        """Another array argument: kept if native to the runtime, else as NumPy."""
        if self.backend.is_native(array):
            return array
        try:
            return to_numpy(array)
        except Exception as exc:
            raise TypeError(f"{name} must be an array; got {type(array).__name__} "
                            f"({exc})") from None

    def native(self, array: Any) -> Any:
        """An array as the runtime's native type (coefficients, signals).

        A host array above the backend's :meth:`~dspk.plugin.Backend.max_array_bytes`
        stays on the host, for :meth:`run` to process in pieces.
        """
        if array is None or self.backend.is_native(array):
            return array
        limit = self.backend.max_array_bytes()
        if limit is not None and array.nbytes > limit:
            return np.asarray(array)
        return self.backend.asarray(np.ascontiguousarray(array))

    def give_back(self, array: Any) -> Any:
        """A result in the kind of array the caller passed."""
        if array is None or self.native_in:
            return array
        if self.origin is not None:
            return self.origin.give(array, self.backend)
        return self.backend.to_numpy(array)

    def give_back_from(self, result: Any) -> Any:
        """A result of other public functions called on the taken ``x`` (the
        caller's kind already, unless the caller's arrays came from elsewhere:
        then as those)."""
        if self.native_in and not self.backend.is_native(result):
            return self.backend.asarray(np.ascontiguousarray(result))
        return result if self.origin is None else self.origin.give(result, self.backend)

    def run(self, problem: Problem, *args: Any) -> Any:
        """Run ``problem`` with the chosen kernel variant on kernel arguments ``args``.

        Host arguments too large for the backend run in pieces, with host results;
        so do host inputs whose results or work arrays turn out too large.
        """
        if pieces.too_large(self, args):
            return pieces.run_in_pieces(self, problem, args)
        try:
            return tuner.run(self.backend, problem, args)
        except ArrayTooLarge:
            if self.native_in or not pieces.can_split(problem):
                raise
        host = tuple(self.backend.to_numpy(a) if self.backend.is_native(a) else a for a in args)
        return pieces.run_in_pieces(self, problem, host)


@dataclass
class Signal2D:
    """A signal of any dimension seen as 2-D: channels by samples.

    1-D signals become one channel; 2-D signals keep their memory layout
    (no copy, no transpose); signals of more dimensions put the time axis
    last and fold the others into channels.

    Parameters
    ----------
    array : array
        The 2-D view, time along ``axis``.
    axis : int
        0 or 1.
    restore : callable
        Gives a 2-D result (time length may differ) the caller's shape back.
    other_shape : tuple
        The caller's shape without the time axis.
    """

    array: Any
    axis: int
    restore: Callable[[Any], Any]
    other_shape: tuple[int, ...]

    @classmethod
    def of(cls, x: Any, axis: int) -> Signal2D:
        """The 2-D view of ``x`` with its time axis ``axis`` (already in range)."""
        if x.ndim == 2:
            return cls(x, axis, _unchanged, (x.shape[1 - axis],))
        other = tuple(s for i, s in enumerate(x.shape) if i != axis)
        if x.ndim == 1:
            return cls(x.reshape(1, -1), 1, _flattened, other)
        order = [i for i in range(x.ndim) if i != axis] + [axis]
        back = np.argsort(order).tolist()
        folded = x.transpose(order).reshape(-1, x.shape[axis])
        return cls(folded, 1, lambda y: y.reshape(*other, y.shape[-1]).transpose(back), other)

    @property
    def channels(self) -> int:
        """Size of the non-time axis."""
        return self.array.shape[1 - self.axis]

    @property
    def samples(self) -> int:
        """Size of the time axis."""
        return self.array.shape[self.axis]

    def problem(self, op: str, **params: Any) -> Problem:
        """The tuning problem of running ``op`` on this signal.

        As :meth:`dspk.plugin.Problem.make`, the problems met kept for the next call.

        Examples
        --------
        >>> Signal2D.of(np.zeros((2, 8), np.float32), 1).problem("sosfilt", sections=3)
        Problem(op='sosfilt', dtype='float32', channels=2, samples=8, layout='channel-major',
        params=(('sections', 3),))
        """
        array, axis = self.array, self.axis
        layout = layout_of(array, axis)
        key = (op, array.dtype, array.shape, axis, layout, *params.items())
        problem = _PROBLEMS.get(key)
        if problem is None:
            if len(_PROBLEMS) >= _PROBLEMS_MAX:
                _PROBLEMS.clear()
            problem = _PROBLEMS[key] = Problem(
                op, str(array.dtype), array.shape[1 - axis], array.shape[axis], layout,
                tuple(sorted(params.items())))
        return problem


def _unchanged(y: Any) -> Any:
    """A 2-D signal's result, which needs no reshaping."""
    return y


def _flattened(y: Any) -> Any:
    """A 1-D signal's result, from its one channel."""
    return y.reshape(-1)


#: The problems met, by what they are made of (building one costs microseconds a call).
_PROBLEMS: dict[tuple, Problem] = {}
_PROBLEMS_MAX = 1024
