"""The stand-in's device arrays: host memory behind a type that NumPy code cannot read.

CuPy's arrays live on the GPU. CuPy refuses arithmetic that mixes them with
NumPy arrays (``TypeError: Unsupported type``), refuses implicit conversion
(``numpy.asarray`` raises), takes no NumPy array in its functions
(``cupy.ascontiguousarray`` included), and fills a basic slice from a scalar
only. :class:`ndarray` does the same over host memory, so that host code
that mixes the two kinds fails here as it fails on a GPU. Its operations run
NumPy on that memory and give device arrays back (a reduction gives a 0-d
array, as CuPy's do); NumPy functions called on it dispatch to them, as they
do to CuPy's. Arrays from ``empty`` are filled with 0xFF bytes (NaN in
floating point), so an output a kernel leaves unwritten shows.
"""

from __future__ import annotations

import functools
import numbers
import types

import numpy as np
import scipy.fft

_IMPLICIT = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
             "construct a NumPy array explicitly.")


def _refuse(value) -> TypeError:
    return TypeError(f"Unsupported type {type(value)} (the CuPy stand-in refuses a host array "
                     "where CuPy needs a device array; move it with cupy.asarray)")


def _device(value):
    """An argument of a device operation as NumPy: device arrays unwrapped, host arrays refused."""
    if isinstance(value, ndarray):
        return value._host
    if isinstance(value, np.ndarray):
        raise _refuse(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_device(v) for v in value)
    return value


def _operand(value):
    """A ufunc operand: a device array or a scalar, as CuPy's elementwise kernels take."""
    if isinstance(value, ndarray):
        return value._host
    if isinstance(value, (numbers.Number, np.generic)):
        return value
    raise _refuse(value)


def _wrap(result):
    """A NumPy result as the device's: arrays and NumPy scalars become device arrays."""
    if isinstance(result, np.ndarray):
        return ndarray(result)
    if isinstance(result, np.generic):
        return ndarray(np.array(result))
    if isinstance(result, (list, tuple)):
        return type(result)(_wrap(r) for r in result)
    return result


def _index(key):
    """An index with device arrays unwrapped (CuPy also takes host index arrays)."""
    if isinstance(key, tuple):
        return tuple(_index(k) for k in key)
    return key._host if isinstance(key, ndarray) else key


def _advanced(key) -> bool:
    keys = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, (np.ndarray, list)) for k in keys)


#: DLPack's device type of the device's memory: kDLCUDA (2), or kDLROCM (10) once
#: :func:`cuda_standin.make` has made the hip stand-in.
DLPACK_DEVICE_TYPE = 2


class _HostMemory:
    """A DLPack producer of the stand-in's device memory, shown to NumPy as the host
    memory it is."""

    def __init__(self, producer):
        self.producer = producer

    def __dlpack__(self, **kwargs):
        return self.producer.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (1, 0)


def _poisoned(host: np.ndarray) -> np.ndarray:
    if host.dtype.kind in "fciu" and host.size:
        host.reshape(-1, order="A").view(np.uint8)[...] = 0xFF
    return host


class ndarray(np.lib.mixins.NDArrayOperatorsMixin):  # noqa: N801  (CuPy's name)
    """A device array of the stand-in: host memory that only the stand-in's operations read.

    Made by the stand-in's functions (``cupy.asarray``, ``cupy.empty``, ...),
    never by NumPy. ``get()`` and ``cupy.asnumpy`` copy it to the host.
    """

    __slots__ = ("_host",)

    def __init__(self, host: np.ndarray):
        self._host = host

    shape = property(lambda self: self._host.shape)
    dtype = property(lambda self: self._host.dtype)
    ndim = property(lambda self: self._host.ndim)
    size = property(lambda self: self._host.size)
    nbytes = property(lambda self: self._host.nbytes)
    itemsize = property(lambda self: self._host.itemsize)
    strides = property(lambda self: self._host.strides)
    flags = property(lambda self: self._host.flags)
    T = property(lambda self: ndarray(self._host.T))
    mT = property(lambda self: ndarray(self._host.mT))
    real = property(lambda self: ndarray(self._host.real),
                    lambda self, value: setattr(self._host, "real", _operand(value)))
    imag = property(lambda self: ndarray(self._host.imag),
                    lambda self, value: setattr(self._host, "imag", _operand(value)))
    data = property(lambda self: types.SimpleNamespace(ptr=self._host.ctypes.data))

    def __array__(self, dtype=None, copy=None):
        raise TypeError(_IMPLICIT)

    def __dlpack__(self, **kwargs):
        return self._host.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (DLPACK_DEVICE_TYPE, 0)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.get("out")
        if out is not None:
            if not all(isinstance(o, ndarray) for o in out):
                raise _refuse(next(o for o in out if not isinstance(o, ndarray)))
            kwargs["out"] = tuple(o._host for o in out)
        result = getattr(ufunc, method)(*(_operand(v) for v in inputs), **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _wrap(result)

    def __array_function__(self, func, types_, args, kwargs):
        return _wrap(func(*_device(args), **{k: _device(v) for k, v in kwargs.items()}))

    def __getitem__(self, key):
        return _wrap(self._host[_index(key)])

    def __setitem__(self, key, value):
        key = _index(key)
        if isinstance(value, ndarray):
            value = value._host
        elif isinstance(value, np.ndarray) and value.ndim and not _advanced(key):
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        self._host[key] = value

    def __len__(self):
        return len(self._host)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __bool__(self):
        return bool(self._host)

    def __int__(self):
        return int(self._host)

    def __float__(self):
        return float(self._host)

    def __complex__(self):
        return complex(self._host)

    def __repr__(self):
        return repr(self._host)

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def astype(self, dtype, order="K", casting=None, subok=None, copy=True):
        host = self._host.astype(dtype, order=order, copy=copy)
        return self if host is self._host else ndarray(host)

    def get(self, stream=None, order="C", out=None, blocking=True):
        """A host copy."""
        if out is not None:
            out[...] = self._host
            return out
        return np.array(self._host, order=order, copy=True)

    def set(self, arr, stream=None):
        """Copy the host array ``arr`` in."""
        self._host[...] = arr

    def fill(self, value):
        if isinstance(value, np.ndarray) and value.shape != ():
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        self._host.fill(value)


def _method(name: str):
    def method(self, *args, **kwargs):
        return _wrap(getattr(self._host, name)(*_device(args),
                                               **{k: _device(v) for k, v in kwargs.items()}))

    method.__name__ = method.__qualname__ = name
    return method


for _name in ("all", "any", "argmax", "argmin", "argpartition", "argsort", "choose", "clip",
              "compress", "conj", "conjugate", "copy", "cumprod", "cumsum", "diagonal", "dot",
              "flatten", "item", "max", "mean", "min", "nonzero", "partition", "prod", "put",
              "ravel", "repeat", "reshape", "round", "searchsorted", "sort", "squeeze", "std",
              "sum", "swapaxes", "take", "tolist", "trace", "transpose", "var", "view"):
    setattr(ndarray, _name, _method(_name))


def _function(func):
    """A NumPy function as a device function: device arrays in and out, host arrays refused."""
    @functools.wraps(func)
    def device_function(*args, **kwargs):
        return _wrap(func(*_device(args), **{k: _device(v) for k, v in kwargs.items()}))

    return device_function


def asarray(a, dtype=None, order=None, *, copy=None, blocking=False):
    """``a`` on the device: device arrays as they are (cast if asked), host data copied."""
    if isinstance(a, ndarray):
        return a if dtype is None else a.astype(dtype, copy=False)
    host = np.array(a, dtype=dtype, order=order or "K", copy=True)
    if not host.dtype.isnative:  # as CuPy, which swaps to the GPU's byte order
        host = host.astype(host.dtype.newbyteorder("="))
    return ndarray(host)


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *, blocking=False):
    """A new device array from ``obj``."""
    if isinstance(obj, ndarray):
        return ndarray(np.array(obj._host, dtype=dtype, order=order, copy=True, ndmin=ndmin))
    return asarray(np.array(obj, dtype=dtype, order=order, ndmin=ndmin))


def ascontiguousarray(a, dtype=None):
    """``a`` C-contiguous; like CuPy's, it takes device arrays only."""
    if not isinstance(a, ndarray):
        raise TypeError(f"Argument 'a' has incorrect type (expected cupy.ndarray, got "
                        f"{type(a).__name__})")
    host = np.ascontiguousarray(a._host, dtype=dtype)
    return a if host is a._host else ndarray(host)


def asnumpy(a, stream=None, order="C", out=None, blocking=True):
    """A host copy of a device array; anything else through :func:`numpy.asarray`."""
    if isinstance(a, ndarray):
        return a.get(order=order, out=out)
    return np.asarray(a, order=order)


def from_dlpack(x):
    """Another library's array in the device's memory, over the same memory, as CuPy's
    ``from_dlpack``; an array in any other memory is refused, as CuPy refuses it."""
    device_type = x.__dlpack_device__()[0]
    if device_type != DLPACK_DEVICE_TYPE:
        raise BufferError(f"the array is in DLPack device type {device_type}, not this "
                          f"device's ({DLPACK_DEVICE_TYPE})")
    return ndarray(np.from_dlpack(_HostMemory(x)))


def empty(shape, dtype=float, order="C"):
    """A new device array filled with 0xFF bytes."""
    return ndarray(_poisoned(np.empty(shape, dtype, order)))


def empty_like(prototype, dtype=None, order="K", subok=None, shape=None):
    """A new device array like ``prototype``, filled with 0xFF bytes."""
    return ndarray(_poisoned(np.empty_like(_device(prototype), dtype, order, shape=shape)))


def result_type(*arrays_and_dtypes):
    return np.result_type(*(a._host if isinstance(a, ndarray) else a for a in arrays_and_dtypes))


def as_strided(x, shape=None, strides=None):
    """A strided view of a device array's memory."""
    return ndarray(np.lib.stride_tricks.as_strided(_device(x), shape, strides))


FFT = types.SimpleNamespace(**{name: _function(getattr(scipy.fft, name)) for name in (
    "fft", "ifft", "rfft", "irfft", "fftn", "ifftn", "rfftn", "irfftn", "fftfreq", "rfftfreq",
    "fftshift", "ifftshift")})

#: What the stand-in defines itself; any other NumPy name becomes a device function.
OWN = {"ndarray": ndarray, "asarray": asarray, "asanyarray": asarray, "array": array,
       "ascontiguousarray": ascontiguousarray, "asnumpy": asnumpy, "from_dlpack": from_dlpack,
       "empty": empty,
       "empty_like": empty_like, "result_type": result_type, "fft": FFT,
       "lib": types.SimpleNamespace(stride_tricks=types.SimpleNamespace(as_strided=as_strided))}


@functools.cache
def numpy_name(name: str):
    """NumPy's ``name`` as the stand-in's: types and constants as they are, functions
    on device arrays."""
    value = getattr(np, name)
    if isinstance(value, np.ufunc) or (callable(value) and not isinstance(value, type)):
        return _function(value)
    return value
