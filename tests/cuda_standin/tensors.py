"""Another library's GPU tensors, as dspk meets a torch CUDA tensor: DLPack from the
device's memory and an array-API namespace, and no way to NumPy but a runtime.

A :class:`Tensor` keeps its data in ``storage``, any DLPack producer of the
device's memory (the stand-in's device arrays, or CuPy's on a GPU), and
reports that memory as its own. Like a torch build without DLPack 1.0, it
makes no host copy for a consumer that asks for one (``dl_device``), and it
refuses implicit conversion to NumPy, so a reader must go through a runtime.
Its namespace gives results back over the runtime's memory
(``from_dlpack``) or copies host data to the device (``asarray``): this module is the
library's array-API namespace.
"""

from __future__ import annotations

import sys


class Tensor:
    """A tensor over ``storage``, a DLPack producer of GPU memory."""

    def __init__(self, storage):
        self.storage = storage

    shape = property(lambda self: self.storage.shape)
    dtype = property(lambda self: self.storage.dtype)
    ndim = property(lambda self: self.storage.ndim)
    device = property(lambda self: ("gpu", self.storage.__dlpack_device__()[1]))

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("this tensor makes no copy to another device")
        if copy:
            raise BufferError("this tensor lends its memory only")
        return self.storage.__dlpack__()

    def __dlpack_device__(self):
        return self.storage.__dlpack_device__()

    def __array__(self, dtype=None, copy=None):
        raise TypeError("a GPU tensor cannot be converted to NumPy: copy it to the host first")

    def __array_namespace__(self, api_version=None):
        return sys.modules[__name__]


def from_dlpack(x):
    """A tensor over ``x``'s memory (a runtime's device array)."""
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"{type(x).__name__} does not speak DLPack")
    return Tensor(x)


def asarray(host, device=None):
    """Host data copied to the device (the stand-in's or CuPy's, whichever is ``cupy``)."""
    import cupy

    return Tensor(cupy.asarray(host))
