"""New output arrays whose pages are mapped before the kernels' threads write them.

A large new array's pages are mapped on first touch. When several threads touch
fresh pages at once (every parallel kernel writing its output), the faults serialise
in the kernel, and under a hypervisor, with NumPy's transparent huge pages, they
can cost far more than the writes: a 50 MB output took 65 ms to fill from two
threads on the development machine, against 9 ms when its pages were mapped first
by one ``madvise(MADV_POPULATE_WRITE)`` (Linux 5.14 and later). The one thread that
maps them costs more than it saves for the largest outputs (a 384 x 524288 float32
sosfilt: 170 ms with, 131 ms without), so only outputs from
:data:`POPULATE_FROM_BYTES` up to :data:`POPULATE_BELOW_BYTES` are mapped first.
Elsewhere :func:`empty` is :func:`numpy.empty`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys

import numpy as np

#: Arrays smaller than this, or as large as the next, are left to fault on first touch.
POPULATE_FROM_BYTES = 1 << 22
POPULATE_BELOW_BYTES = 1 << 28
#: ``MADV_POPULATE_WRITE`` from ``<sys/mman.h>``.
MADV_POPULATE_WRITE = 23
_PAGE = 4096


@functools.cache
def _madvise():
    """libc's ``madvise``, or None where there is none to call."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    except OSError:
        return None
    madvise = libc.madvise
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madvise.restype = ctypes.c_int
    return madvise


def populate(a: np.ndarray) -> np.ndarray:
    """Map the pages of ``a``'s memory for writing now, if the system can; return ``a``.

    A kernel that refuses the request (before Linux 5.14) leaves the pages to fault
    on first touch, as they would have.

    Examples
    --------
    >>> populate(np.empty(10)).shape
    (10,)
    """
    madvise = _madvise()
    if madvise is not None and POPULATE_FROM_BYTES <= a.nbytes < POPULATE_BELOW_BYTES:
        start = a.ctypes.data - a.ctypes.data % _PAGE
        madvise(start, a.ctypes.data + a.nbytes - start, MADV_POPULATE_WRITE)
    return a


def empty(shape, dtype, order: str = "C") -> np.ndarray:
    """:func:`numpy.empty`, with the pages mapped first when it is large.

    Examples
    --------
    >>> empty((2, 3), np.float32, order="F").flags.f_contiguous
    True
    """
    return populate(np.empty(shape, dtype, order=order))


def empty_like(a: np.ndarray) -> np.ndarray:
    """:func:`numpy.empty_like`, with the pages mapped first when it is large."""
    return populate(np.empty_like(a))
