"""How many threads the cpu runtime runs on, and work split across them by channels.

A forked child starts with none of its parent's threads: it gets a pool of
its own on first use, and, where the parent had started numba's GNU OpenMP
threads (which do not survive fork: numba terminates a child that uses
them), :func:`numba_parallel` tells the runtime to run its other kernels.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from dspk import environment
from dspk_cpu import memory
from dspk_cpu.layout import channels_index


def threads() -> int:
    """Worker threads: ``DSPK_NUM_THREADS``, else the cores this process may run on.

    Examples
    --------
    >>> threads() >= 1
    True
    """
    text = environment.get("DSPK_NUM_THREADS")
    if text:
        if not text.isdigit() or int(text) < 1:
            raise ValueError(f"DSPK_NUM_THREADS={text!r} is not a positive integer")
        return int(text)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


#: Input bytes from which pocketfft's threads pay for starting: below about this, a
#: transform of all rows on the calling thread is faster (measured on two cores:
#: 32x1024 float32 takes 36 us on one thread, 84 us on two; 32x4096 float64, 323 us
#: against 224 us).
FFT_THREADS_FROM = 1 << 19


def fft_workers(nbytes: int) -> int:
    """pocketfft threads for a transform of ``nbytes`` of input: one below
    :data:`FFT_THREADS_FROM`, else :func:`threads`. The count never changes a result.

    Examples
    --------
    >>> fft_workers(1000)
    1
    """
    return 1 if nbytes < FFT_THREADS_FROM else threads()


def use_numba_threads(at_most: int | None = None) -> int:
    """Set how many threads numba's next parallel kernels run on, and return it:
    :func:`threads`, no more than numba's pool (``NUMBA_NUM_THREADS``) or ``at_most``."""
    import numba

    count = min(threads(), numba.config.NUMBA_NUM_THREADS)
    if at_most is not None:
        count = min(count, at_most)
    if getattr(_numba_count, "value", None) != count:  # setting costs a microsecond
        numba.set_num_threads(count)
        _numba_count.value = count
    return count


#: The count :func:`use_numba_threads` last set, per thread (numba's own is per thread).
_numba_count = threading.local()


def channel_slices(channels: int) -> list[slice]:
    """One contiguous slice of the channels per thread (fewer when there are fewer channels).

    Examples
    --------
    >>> channel_slices(1)
    [slice(0, 1, None)]
    """
    edges = np.linspace(0, channels, min(threads(), channels) + 1).astype(int).tolist()
    return [slice(lo, hi) for lo, hi in zip(edges[:-1], edges[1:]) if hi > lo]


_in_worker = threading.local()


def _mark_worker() -> None:
    _in_worker.active = True


@functools.cache
def _pool(workers: int) -> ThreadPoolExecutor:
    """One pool per thread count for the whole process: starting threads on every
    call costs more than a small problem's work."""
    return ThreadPoolExecutor(workers, thread_name_prefix="dspk-cpu", initializer=_mark_worker)


def _numba_threads_survive_fork() -> bool:
    """Whether a child forked now could run numba's parallel kernels: True unless numba's
    threading layer has started on GNU OpenMP (``tbb`` and ``workqueue`` survive fork)."""
    numba = sys.modules.get("numba")
    if numba is None:
        return True
    try:
        layer = numba.threading_layer()
    except ValueError:  # no parallel kernel has run: a child starts the layer itself
        return True
    if layer != "omp":
        return True
    from numba.np.ufunc import omppool

    return omppool.openmp_vendor != "GNU"


_numba_parallel = True


def numba_parallel() -> bool:
    """Whether numba's parallel kernels can run in this process.

    False in a process forked (at any depth) from one whose numba threads ran
    on GNU OpenMP.

    Examples
    --------
    >>> numba_parallel()
    True
    """
    return _numba_parallel


def _after_fork_in_child() -> None:
    global _numba_parallel
    _pool.cache_clear()  # the parent's pool, whose threads did not come along
    _numba_parallel = _numba_parallel and _numba_threads_survive_fork()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_after_fork_in_child)


def on_threads(work: Callable[[slice], object], parts: list[slice]) -> list:
    """``work(part)`` for every part, on up to :func:`threads` threads; the results in order.

    Work that itself calls this from a worker thread runs serially there, so
    that the shared pool cannot deadlock.

    Examples
    --------
    >>> on_threads(lambda part: part.stop - part.start, channel_slices(10))[0] > 0
    True
    """
    workers = min(threads(), len(parts))
    if workers == 1 or getattr(_in_worker, "active", False):
        return [work(part) for part in parts]
    return list(_pool(workers).map(work, parts))


def on_channel_slices(work: Callable[[slice], None], channels: int) -> None:
    """Call ``work(part)`` for one slice of the channels per thread."""
    on_threads(work, channel_slices(channels))


def by_channel_slices(compute: Callable[[np.ndarray], np.ndarray], x: np.ndarray, axis: int,
                      samples: int, dtype: np.dtype) -> np.ndarray:
    """``compute`` on each thread's slice of channels of ``x``, gathered into one array.

    ``compute`` maps a 2-D slice with time along ``axis`` to ``samples``
    samples along ``axis``; the result is C-ordered with ``x``'s axes.

    Examples
    --------
    >>> x = np.arange(6.0).reshape(2, 3)
    >>> by_channel_slices(lambda v: v[:, :2] * 2, x, 1, 2, x.dtype)
    array([[0., 2.],
           [6., 8.]])
    """
    channels = x.shape[1 - axis]
    y = memory.empty((channels, samples) if axis == 1 else (samples, channels), dtype)

    def work(part):
        y[channels_index(axis, part)] = compute(x[channels_index(axis, part)])

    on_channel_slices(work, channels)
    return y
