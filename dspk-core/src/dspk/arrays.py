"""Moving arrays between the host and a runtime's native array type."""

from __future__ import annotations

from typing import Any

import numpy as np

from dspk.plugin import Backend
from dspk.registry import registry
from dspk.runtime import resolve

__all__ = ["asarray", "to_numpy"]


def owner(x: Any) -> ArrayLibrary | None:
    """Where ``x``'s array type comes from, if not NumPy: a runtime, or another library.

    Host data (NumPy, lists, scalars) opens no runtime; another library's
    array asks the runtimes already opened, then opens the others in turn: a
    runtime's native array belongs to its :class:`RuntimeArrays`. An array
    that no runtime takes but that speaks DLPack belongs to its
    :class:`HostLibrary` in host memory (a torch CPU tensor, a JAX array on the
    CPU) or its :class:`DeviceLibrary` in GPU memory (a torch CUDA tensor).

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
            return RuntimeArrays(backend)
    return HostLibrary.of(x) or DeviceLibrary.of(x)


#: DLPack's device type of host memory.
DLPACK_CPU = 1
#: DLPack's device types of GPU memory (kDLCUDA, kDLROCM), by the platform of the
#: runtimes that take them (:attr:`dspk_cuda.backend.CupyBackend.platform`).
DLPACK_GPUS = {2: "cuda", 10: "hip"}


def _dlpack_device(x: Any) -> tuple[int, int] | None:
    """DLPack's (device type, device number) of ``x``; None if it does not speak DLPack."""
    device = getattr(x, "__dlpack_device__", None)
    if device is None or not hasattr(x, "__dlpack__"):
        return None
    try:
        kind, number = device()
        return int(kind), int(number)
    except Exception:  # a producer that cannot say: not one of these
        return None


def _namespace(x: Any) -> Any:
    """The array-API namespace of ``x`` (``array_api_compat``), or None."""
    import array_api_compat

    try:
        return array_api_compat.array_namespace(x)
    except TypeError:  # an array type without an array-API namespace
        return None


class ArrayLibrary:
    """Arrays other than NumPy's, whoever makes them: how a call on a runtime that does
    not take them as they are takes them, and gives its results back as theirs."""

    def to_numpy(self, x: Any) -> np.ndarray:
        """``x`` as a NumPy array."""
        raise NotImplementedError

    def asarray(self, host: np.ndarray) -> Any:
        """A NumPy result as the library's array."""
        raise NotImplementedError

    def take(self, x: Any, backend: Backend) -> Any:
        """``x`` as the array ``backend`` computes on: NumPy, unless the subclass says."""
        return self.to_numpy(x)

    def give(self, array: Any, backend: Backend) -> Any:
        """A result of ``backend`` (native or NumPy) as the library's array."""
        return self.asarray(backend.to_numpy(array) if backend.is_native(array) else array)


class RuntimeArrays(ArrayLibrary):
    """A runtime's native arrays (CuPy's, on a call that runs on cpu): read on the host
    and results sent back to that runtime.

    Parameters
    ----------
    backend : dspk.plugin.Backend
        The runtime whose native arrays these are.
    """

    def __init__(self, backend: Backend):
        self.backend = backend

    def to_numpy(self, x: Any) -> np.ndarray:
        """A host copy of the runtime's array ``x``."""
        return self.backend.to_numpy(x)

    def asarray(self, host: np.ndarray) -> Any:
        """A NumPy result as the runtime's array."""
        return self.backend.asarray(host)


class HostLibrary(ArrayLibrary):
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

    def __init__(self, namespace: Any):
        self.namespace = namespace

    @classmethod
    def of(cls, x: Any) -> HostLibrary | None:
        """The library of ``x``, if it is an array in host memory that speaks DLPack."""
        device = _dlpack_device(x)
        if device is None or device[0] != DLPACK_CPU:
            return None
        namespace = _namespace(x)
        return None if namespace is None else cls(namespace)

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


class DeviceLibrary(ArrayLibrary):
    """Arrays of a library other than the runtimes' own in GPU memory: torch CUDA
    tensors, JAX arrays on a GPU, any array-API array that speaks DLPack from CUDA or
    ROCm memory.

    A runtime of the array's platform (``cuda`` for CUDA memory, ``hip`` for ROCm)
    takes it over the same memory (:meth:`dspk.plugin.Backend.from_dlpack`) and its
    results go back the same way: the data never passes through host memory. Any
    other runtime reads a host copy, and its results go back to the array's device.

    Parameters
    ----------
    namespace : module
        The library's array-API namespace (from ``array_api_compat``).
    platform : str
        The platform of the array's memory: ``"cuda"`` or ``"hip"``.
    device : object
        The array's device, as its library names it.
    """

    def __init__(self, namespace: Any, platform: str, device: Any):
        self.namespace, self.platform, self.device = namespace, platform, device

    @classmethod
    def of(cls, x: Any) -> DeviceLibrary | None:
        """The library of ``x``, if it is an array in CUDA or ROCm memory that speaks DLPack."""
        device = _dlpack_device(x)
        if device is None or device[0] not in DLPACK_GPUS:
            return None
        namespace = _namespace(x)
        if namespace is None:
            return None
        import array_api_compat

        return cls(namespace, DLPACK_GPUS[device[0]], array_api_compat.device(x))

    def _runtime_array(self, x: Any) -> tuple[Backend, Any] | None:
        """A runtime of this platform that can open its device, and ``x`` as its array."""
        reg = registry()
        backend = reg.probe(self.platform).backend if self.platform in reg.names() else None
        native = None if backend is None else backend.from_dlpack(x)
        return None if native is None else (backend, native)

    def take(self, x: Any, backend: Backend) -> Any:
        """``x`` over the same memory where ``backend`` takes it, else a host copy."""
        native = backend.from_dlpack(x)
        return self.to_numpy(x) if native is None else native

    def to_numpy(self, x: Any) -> np.ndarray:
        """A host copy of ``x``: through the producer's own copy to the CPU where it makes
        one (DLPack 1.0), else through a runtime of its platform.

        Raises
        ------
        TypeError
            Where neither can: no runtime of the array's platform is installed.
        """
        try:
            return np.from_dlpack(x, device="cpu", copy=True)
        except (BufferError, TypeError, RuntimeError, ValueError):
            pass
        found = self._runtime_array(x)
        if found is None:
            raise TypeError(f"this {type(x).__name__} is in {self.platform.upper()} GPU "
                            f"memory, which dspk reads through its {self.platform} runtime: "
                            f"install it (pip install dspk[{self.platform}]) or move the "
                            "array to the host first") from None
        backend, native = found
        return backend.to_numpy(native)

    def asarray(self, host: np.ndarray) -> Any:
        """A NumPy result as the library's array, on the array's device."""
        return self.namespace.asarray(host, device=self.device)

    def give(self, array: Any, backend: Backend) -> Any:
        """A result of ``backend`` as the library's array: over the same memory when it is
        in this platform's GPU memory, else copied to the device."""
        device = _dlpack_device(array)
        if device is not None and DLPACK_GPUS.get(device[0]) == self.platform:
            return self.namespace.from_dlpack(array)
        return super().give(array, backend)


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
