"""Moving arrays between the host and a runtime's native array type."""

from __future__ import annotations

from typing import Any

import numpy as np

from dspk.plugin import Backend
from dspk.registry import registry
from dspk.runtime import resolve

__all__ = ["asarray", "to_numpy"]


def owner(x: Any) -> Backend | HostLibrary | None:
    """Where ``x``'s array type comes from, if not NumPy: a runtime, or a host library.

    Host data (NumPy, lists, scalars) opens no runtime; another library's
    array asks the runtimes already opened, then opens the others in turn. An
    array in host memory that no runtime takes but that speaks DLPack (a torch
    CPU tensor, a JAX array on the CPU) belongs to its :class:`HostLibrary`.

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
    return HostLibrary.of(x)


class HostLibrary:
    """Arrays of a library other than NumPy in host memory: torch CPU tensors, JAX
    arrays on the CPU, any array-API array that speaks DLPack.

    An operation reads them as NumPy arrays over the same memory and gives its
    results back as the library's arrays, over the result's memory where the
    library allows (torch) and as a copy where it keeps its own (JAX).

    Parameters
    ----------
    namespace : module
        The library's array-API namespace (from ``array_api_compat``).
    """

    #: DLPack's device type of host memory.
    _CPU = 1

    def __init__(self, namespace: Any):
        self.namespace = namespace

    @classmethod
    def of(cls, x: Any) -> HostLibrary | None:
        """The library of ``x``, if it is an array in host memory that speaks DLPack."""
        device = getattr(x, "__dlpack_device__", None)
        if device is None or not hasattr(x, "__dlpack__"):
            return None
        try:
            on_host = device()[0] == cls._CPU
        except Exception:  # a producer that cannot say: not one of these
            return None
        if not on_host:
            return None
        import array_api_compat

        try:
            return cls(array_api_compat.array_namespace(x))
        except TypeError:  # an array type without an array-API namespace
            return None

    def to_numpy(self, x: Any) -> np.ndarray:
        """``x`` as a NumPy array over the same memory (a copy where the library
        does not lend it, as for a tensor that requires grad: its error says so)."""
        try:
            return np.from_dlpack(x)
        except (BufferError, TypeError, RuntimeError):
            return np.asarray(x)

    def asarray(self, host: np.ndarray) -> Any:
        """A NumPy result as the library's array."""
        try:
            return self.namespace.from_dlpack(host)
        except (BufferError, TypeError, RuntimeError, AttributeError):
            return self.namespace.asarray(host)


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
