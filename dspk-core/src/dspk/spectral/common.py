"""What the spectral operations share: dtypes, problems, host results in the caller's kind."""

from __future__ import annotations

from typing import Any

import numpy as np

from dspk.dispatch import Call, Signal2D
from dspk.plugin import Problem, UnsupportedDtype, layout_of

#: The real and complex dtype of each precision, by a dtype of it: looked up, as
#: ``np.finfo`` and ``np.result_type`` cost microseconds a call.
_REAL = {np.dtype(t): np.dtype(r) for t, r in [
    (np.float32, np.float32), (np.complex64, np.float32),
    (np.float64, np.float64), (np.complex128, np.float64)]}
_COMPLEX = {np.dtype(t): np.dtype(c) for t, c in [
    (np.float32, np.complex64), (np.complex64, np.complex64),
    (np.float64, np.complex128), (np.complex128, np.complex128)]}
#: ``str(dtype)`` of the real dtypes, which costs microseconds a call.
_NAMES = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64"}


def real_dtype(dtype: np.dtype) -> np.dtype:
    """The real dtype of ``dtype``'s precision: float32 for complex64."""
    return _REAL.get(dtype) or np.finfo(dtype).dtype


def complex_dtype(dtype: np.dtype) -> np.dtype:
    """The complex dtype of ``dtype``'s precision: complex64 for float32."""
    return _COMPLEX.get(dtype) or np.result_type(dtype, np.complex64)


def like_input(call: Call, array: np.ndarray) -> Any:
    """A host-computed result (frequencies, times) in the kind of array the caller passed.

    A device without float64 arrays (wgpu) gets these axes in float32.
    """
    if call.native_in:
        target = call.native
    elif call.origin is not None:  # another runtime's arrays, or a host library's
        target = call.origin.asarray
    else:
        return array
    try:
        return target(array)
    except UnsupportedDtype:
        return target(array.astype(np.float32))


def problem_of(op: str, view: Signal2D, dtype: np.dtype, samples: int | None = None,
             **params: Any) -> Problem:
    """As :meth:`dspk.plugin.Problem.make` for ``view`` in ``dtype``'s precision, with
    ``samples`` for the view's own when given; the dtype's name looked up."""
    real = real_dtype(dtype)
    return Problem(op, _NAMES.get(real) or str(real), view.channels,
                   view.samples if samples is None else int(samples),
                   layout_of(view.array, view.axis), tuple(sorted(params.items())))
