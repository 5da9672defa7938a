"""What the spectral operations share: dtypes, problems, host results in the caller's kind."""

from __future__ import annotations

from typing import Any

import numpy as np

from dspk.dispatch import Call, Signal2D
from dspk.plugin import Problem, UnsupportedDtype, layout_of


def real_dtype(dtype: np.dtype) -> np.dtype:
    """The real dtype of ``dtype``'s precision: float32 for complex64."""
    return np.finfo(dtype).dtype


def complex_dtype(dtype: np.dtype) -> np.dtype:
    """The complex dtype of ``dtype``'s precision: complex64 for float32."""
    return np.result_type(dtype, np.complex64)


def like_input(call: Call, array: np.ndarray) -> Any:
    """A host-computed result (frequencies, times) in the kind of array the caller passed.

    A device without float64 arrays (wgpu) gets these axes in float32.
    """
    if not call.native_in:
        return array
    try:
        return call.native(array)
    except UnsupportedDtype:
        return call.native(array.astype(np.float32))


def problem_of(op: str, view: Signal2D, dtype: np.dtype, samples: int | None = None,
             **params: Any) -> Problem:
    return Problem.make(op, real_dtype(dtype), view.channels,
                        view.samples if samples is None else samples,
                        layout_of(view.array, view.axis), **params)
