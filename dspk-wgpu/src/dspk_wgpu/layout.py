"""How kernels address 2-D views: element offset, channel stride, time stride."""

from __future__ import annotations

from dspk_wgpu.arrays import WgpuArray
from dspk_wgpu.gpu import precision


def precision_of(x: WgpuArray, *others: WgpuArray | None) -> str:
    """The shader precision of ``x`` (``"f32"`` or ``"f64"``), which ``others`` (None
    skipped) must share: kernels never mix precisions, nor cast silently.

    Raises
    ------
    TypeError
        When an array of ``others`` has the other precision.
    """
    real = precision(x.dtype)
    for other in others:
        if other is not None and precision(other.dtype) != real:
            raise TypeError(f"a wgpu kernel got {x.dtype} and {other.dtype} arrays together; "
                            "its arrays share one precision")
    return real


def addressing(a: WgpuArray, axis: int) -> tuple[int, int, int]:
    """``(offset, channel_stride, time_stride)`` in elements of a 2-D view, time along ``axis``."""
    return a.offset, a.element_strides[1 - axis], a.element_strides[axis]


def output_like(x: WgpuArray, axis: int, samples: int, dtype=None) -> WgpuArray:
    """A new C-contiguous result with ``x``'s channels and orientation and ``samples`` samples.

    Its dtype is ``x``'s unless ``dtype`` is given.
    """
    channels = x.shape[1 - axis]
    shape = (channels, samples) if axis == 1 else (samples, channels)
    return WgpuArray.empty(x.gpu, shape, x.dtype if dtype is None else dtype)


def dense(a: WgpuArray) -> WgpuArray:
    """``a`` as a C-contiguous array starting at element 0 (copied only when needed)."""
    return a if a.offset == 0 and a.is_contiguous() else a.copy()


def batches(count: int, limit: int = 65535):
    """``(first, size)`` ranges of at most ``limit`` workgroups covering ``count``."""
    for first in range(0, count, limit):
        yield first, min(limit, count - first)
