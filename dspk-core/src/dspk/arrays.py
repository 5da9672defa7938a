"""Moving arrays between the host and a runtime's native array type."""

from __future__ import annotations

from typing import Any

import numpy as np

from dspk.plugin import Backend
from dspk.registry import registry
from dspk.runtime import resolve

__all__ = ["asarray", "to_numpy"]


def owner(x: Any) -> Backend | None:
    """The runtime whose native array type ``x`` is, if any (NumPy excluded).

    Host data (NumPy, lists, scalars) opens no runtime; another library's
    array asks the runtimes already opened, then opens the others in turn.

    Examples
    --------
    >>> owner([1.0, 2.0]) is None
    True
    """
    if isinstance(x, (np.ndarray, np.generic)) or type(x).__module__ == "builtins":
        return None
    reg = registry()
    opened = reg.opened()
    for backend in opened + [reg.probe(name).backend for name in reg.names()]:
        if backend is not None and backend.is_native(x):
            return backend
    return None


def to_numpy(x: Any) -> np.ndarray:
    """An array as a NumPy array in the machine's byte order, whichever runtime it lives on.

    Every operation takes its host arrays through here, so big-endian data
    (FITS, MATLAB, some acquisition formats) is computed as its native-order
    dtype: ``'>f4'`` as float32, ``'>i2'`` as int16.

    Parameters
    ----------
    x : array_like
        A NumPy array, a runtime's native array, or anything
        :func:`numpy.asarray` takes.

    Returns
    -------
    numpy.ndarray
        ``x`` itself when it is already one in native byte order; otherwise
        a converted copy.

    Examples
    --------
    >>> import numpy as np, dspk
    >>> dspk.to_numpy([1.0, 2.0])
    array([1., 2.])
    >>> dspk.to_numpy(np.arange(3, dtype=">i2")).dtype
    dtype('int16')
    """
    if not isinstance(x, np.ndarray):
        backend = owner(x)
        x = backend.to_numpy(x) if backend is not None else np.asarray(x)
    return x if x.dtype.isnative else x.astype(x.dtype.newbyteorder("="))


def asarray(x: Any, dtype: Any = None, *, runtime: str | None = None) -> Any:
    """An array as the native array type of a runtime, for chains of operations.

    Every operation accepts and returns the native arrays of the runtime it
    runs on, so data moved once stays on the device.

    Parameters
    ----------
    x : array_like
        Data on the host or on any runtime.
    dtype : data-type, optional
        The dtype to convert to on the way.
    runtime : str, optional
        The runtime (see :mod:`dspk.runtime`); the current one by default.

    Returns
    -------
    array
        A NumPy array on ``cpu``; a device array on a GPU runtime.

    Examples
    --------
    >>> import dspk
    >>> dspk.asarray([1, 2, 3], "float32", runtime="cpu")
    array([1., 2., 3.], dtype=float32)
    """
    backend = resolve(runtime)
    if backend.is_native(x):
        return x if dtype is None else x.astype(dtype, copy=False)
    return backend.asarray(np.ascontiguousarray(to_numpy(x), dtype=dtype))
