"""WgpuArray: a float32 or complex64 array (float64 or complex128 where the device has
64-bit floats in shaders) in a GPU storage buffer, as the core sees arrays.

A WgpuArray is a strided view of one buffer (an element offset, a shape and
element strides), so ``reshape`` of contiguous data, ``transpose`` and basic
slicing cost nothing; kernels read any such view through its offset and
strides, and :meth:`WgpuArray.copy` makes any view dense on the device. ``numpy.asarray`` and
:meth:`WgpuArray.to_numpy` bring it back.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dspk.plugin import UnsupportedDtype
from dspk_wgpu.gpu import Dispatch, Gpu

#: The dtypes the kernels compute in on every device: complex64 is two
#: interleaved float32 (``vec2<f32>`` in WGSL), and its strides and offsets
#: count complex elements.
SUPPORTED = (np.dtype(np.float32), np.dtype(np.complex64))

#: The dtypes the kernels also compute in where the device has ``shader-f64``
#: (:attr:`dspk_wgpu.gpu.Gpu.f64`): float64, and complex128 (``vec2<f64>``).
SUPPORTED_F64 = (np.dtype(np.float64), np.dtype(np.complex128))


def supported(gpu: Gpu) -> tuple[np.dtype, ...]:
    """The dtypes the kernels compute in on ``gpu``'s device."""
    return SUPPORTED + (SUPPORTED_F64 if gpu.f64 else ())


def check_dtype(dtype: Any, gpu: Gpu) -> np.dtype:
    """``dtype`` if the kernels compute in it on ``gpu``, else a :class:`TypeError` that
    says why (:class:`dspk.plugin.UnsupportedDtype`)."""
    dtype = np.dtype(dtype)
    if dtype in supported(gpu):
        return dtype
    if dtype in SUPPORTED_F64:
        raise UnsupportedDtype(
            f"the wgpu runtime computes {dtype} only where the adapter offers 64-bit floats "
            "in shaders (the shader-f64 feature), and this one does not; it never "
            "downcasts silently. Pass float32 data, or use runtime='cpu' for float64")
    raise UnsupportedDtype(f"the wgpu runtime holds float32 and complex64 arrays (float64 and "
                           f"complex128 with shader-f64); got dtype {dtype}")


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


#: Invocations per workgroup and workgroups per dispatch of ``copy_strided``.
_COPY_GROUP, _COPY_GROUPS = 256, 65535


def _strided_copy(view: WgpuArray, out: WgpuArray) -> list[Dispatch]:
    """Dispatches copying ``view`` (up to 4 dimensions, 3 for elements of several 32-bit
    words) densely into ``out``, word by word."""
    words = view.dtype.itemsize // 4
    shape = list(view.shape) + ([words] if words > 1 else [])
    strides = [s * words for s in view.element_strides] + ([1] if words > 1 else [])
    if len(shape) > 4:
        raise ValueError(f"WgpuArray copies views of up to {4 - (words > 1)} dimensions "
                         f"of {view.dtype}; got {view.ndim}")
    shape = [1] * (4 - len(shape)) + shape
    strides = [0] * (4 - len(strides)) + strides
    total = math.prod(shape)
    per_dispatch = _COPY_GROUP * _COPY_GROUPS
    return [Dispatch("copy_strided", "f32",
                     (total, view.offset * words, first, 0, *shape, *strides),
                     (view.buffer, out.buffer),
                     (math.ceil(min(per_dispatch, total - first) / _COPY_GROUP), 1, 1))
            for first in range(0, total, per_dispatch)]


class WgpuArray:
    """A strided view of a storage buffer of one of the dtypes of :func:`supported`, on the
    wgpu runtime's device.

    Parameters
    ----------
    gpu : Gpu
        The device the buffer lives on.
    buffer : GPUBuffer
        The storage buffer.
    shape : tuple of int
        The view's shape.
    dtype : numpy.dtype
        float32 or complex64; float64 or complex128 where the device has ``shader-f64``.
    strides : tuple of int, optional
        Element (not byte) strides; C-contiguous by default.
    offset : int, optional
        The first element's index in the buffer.
    """

    __array_priority__ = 10

    def __init__(self, gpu: Gpu, buffer: Any, shape: tuple[int, ...], dtype: Any,
                 strides: tuple[int, ...] | None = None, offset: int = 0):
        self.gpu = gpu
        self.buffer = buffer
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.element_strides = (_contiguous_strides(self.shape) if strides is None
                                else tuple(int(s) for s in strides))
        self.offset = int(offset)

    @classmethod
    def from_numpy(cls, gpu: Gpu, x: np.ndarray) -> WgpuArray:
        """Copy a host array of a supported dtype (see :func:`check_dtype`) to the device."""
        dtype = check_dtype(x.dtype, gpu)
        host = np.ascontiguousarray(x, dtype=dtype)
        return cls(gpu, gpu.upload(host), host.shape, dtype)

    @classmethod
    def empty(cls, gpu: Gpu, shape: tuple[int, ...], dtype: Any = np.float32) -> WgpuArray:
        """A new C-contiguous result array (NaN-filled when the device poisons outputs)."""
        dtype = np.dtype(dtype)
        return cls(gpu, gpu.empty(math.prod(shape) * dtype.itemsize), shape, dtype)

    # -- the array protocol the core reads --------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def strides(self) -> tuple[int, ...]:
        """Byte strides, as NumPy's."""
        return tuple(s * self.dtype.itemsize for s in self.element_strides)

    @property
    def T(self) -> WgpuArray:
        return self.transpose()

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        return f"WgpuArray(shape={self.shape}, dtype={self.dtype})"

    def is_contiguous(self) -> bool:
        """Whether the view is C-contiguous (size-1 axes ignored)."""
        expected = _contiguous_strides(self.shape)
        return all(n == 1 or s == e for n, s, e in
                   zip(self.shape, self.element_strides, expected))

    def _view(self, shape, strides, offset=None) -> WgpuArray:
        return WgpuArray(self.gpu, self.buffer, shape, self.dtype, strides,
                         self.offset if offset is None else offset)

    def astype(self, dtype: Any, copy: bool = True) -> WgpuArray | np.ndarray:
        """The same data as ``dtype``: a WgpuArray for a dtype of :func:`supported`; a
        NumPy array for an integer or boolean dtype, which the device does not hold
        (as the core's integer results, after :meth:`round`). Other dtypes raise
        :class:`~dspk.plugin.UnsupportedDtype`."""
        if np.dtype(dtype).kind in "biu":
            return self.to_numpy().astype(dtype)
        dtype = check_dtype(dtype, self.gpu)
        if dtype != self.dtype:
            return WgpuArray.from_numpy(self.gpu, self.to_numpy().astype(dtype))
        return self.copy() if copy else self

    def round(self) -> WgpuArray:
        """The values rounded to integers (half to even, as NumPy), through the host."""
        return WgpuArray.from_numpy(self.gpu, np.round(self.to_numpy()))

    def copy(self, order: str = "C") -> WgpuArray:
        """A C-contiguous copy on the device (``order`` is accepted for NumPy's sake)."""
        out = WgpuArray.empty(self.gpu, self.shape, self.dtype)
        if self.size == 0:
            return out
        if self.is_contiguous():
            size = self.dtype.itemsize
            self.gpu.run([], copies_after=((self.buffer, self.offset * size, out.buffer, 0,
                                            max(4, self.nbytes)),))
            return out
        self.gpu.run(_strided_copy(self, out))
        return out

    def reshape(self, *shape: Any) -> WgpuArray:
        """A view of new shape; free for C-contiguous data, else through a copy."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = [int(s) for s in shape]
        if -1 in shape:
            known = math.prod(s for s in shape if s != -1)
            shape[shape.index(-1)] = self.size // known if known else 0
        if math.prod(shape) != self.size:
            raise ValueError(f"cannot reshape an array of size {self.size} into {tuple(shape)}")
        source = self if self.is_contiguous() else self.copy()
        return source._view(tuple(shape), None, source.offset)

    def repeat(self, repeats: int, axis: int) -> WgpuArray:
        """Repeat along ``axis``: a free stride-0 view when that axis has size 1."""
        axis = int(axis) % self.ndim
        if self.shape[axis] != 1:
            return WgpuArray.from_numpy(self.gpu, self.to_numpy().repeat(repeats, axis))
        shape = list(self.shape)
        strides = list(self.element_strides)
        shape[axis], strides[axis] = int(repeats), 0
        return self._view(tuple(shape), tuple(strides))

    def transpose(self, *axes: Any) -> WgpuArray:
        """A view with the axes permuted (reversed by default)."""
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        axes = tuple(int(a) % self.ndim for a in axes) or tuple(reversed(range(self.ndim)))
        return self._view(tuple(self.shape[a] for a in axes),
                          tuple(self.element_strides[a] for a in axes))

    def __getitem__(self, index: Any) -> WgpuArray:
        """Basic slicing: integers and slices of any step, as views."""
        index = index if isinstance(index, tuple) else (index,)
        if len(index) > self.ndim or any(not isinstance(i, (int, slice, np.integer))
                                         for i in index):
            raise IndexError("WgpuArray supports integers and slices only")
        shape, strides, offset = [], [], self.offset
        for axis, (size, stride) in enumerate(zip(self.shape, self.element_strides)):
            item = index[axis] if axis < len(index) else slice(None)
            if isinstance(item, slice):
                start, _, step = item.indices(size)
                count = len(range(*item.indices(size)))
                offset += start * stride if count else 0
                shape.append(count)
                strides.append(stride * step)
            else:
                position = int(item) + size if item < 0 else int(item)
                if not 0 <= position < size:
                    raise IndexError(f"index {item} is out of bounds for size {size}")
                offset += position * stride
        return self._view(tuple(shape), tuple(strides), offset)

    # -- back to the host ---------------------------------------------------
    def to_numpy(self) -> np.ndarray:
        """A new NumPy array with this view's values."""
        if self.size == 0:
            return np.zeros(self.shape, self.dtype)
        itemsize = self.dtype.itemsize
        reach = [(n - 1) * s for n, s in zip(self.shape, self.element_strides)]
        high = self.offset + sum(r for r in reach if r > 0) + 1
        raw = np.frombuffer(self.gpu.read(self.buffer, -(-high * itemsize // 4) * 4), self.dtype)
        # A valid view never reaches below element 0, whatever its strides' signs.
        return np.array(np.lib.stride_tricks.as_strided(raw[self.offset:], self.shape,
                                                        self.strides))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        host = self.to_numpy()
        return host if dtype is None else host.astype(dtype, copy=False)
