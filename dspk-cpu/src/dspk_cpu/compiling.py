"""numba kernels built on first use: in a background thread where the caller allows it.

A kernel met with new argument types (a new specialisation: dtype, memory layout,
filter order class) is built by ``dispatcher.compile``, which loads it from numba's
disk cache when it is there. Inside :func:`dspk.plugin.deferring` the build runs in a
background thread: when it finishes within :data:`WAIT` seconds (a load from the
cache) the kernel runs; otherwise :class:`dspk.plugin.KernelNotReady` is raised, the
core runs the call with another variant (scipy's), and later calls take the kernel
once it is built. Outside :func:`~dspk.plugin.deferring` (a variant forced by name,
``dspk autotune``) the call waits for the build.

A kernel marked with :func:`any_layout` is built once per dtype and dimension, for
arrays of any memory layout (numba's layout ``"A"``), instead of once per layout met
(C, Fortran, strided): it reads its arrays through their strides, as the IIR kernels'
tile loads do, and the builds it saves are several seconds each.

Processes building the same specialisation take turns (a lock file per specialisation
in dspk's cache directory, released by the system if its holder dies): the first
builds it into numba's disk cache and the others load it from there, so a pool of
workers started together on a cold machine builds each kernel once, not once per
worker. A process waits at most :data:`BUILD_LOCK_WAIT` seconds for another's build,
then builds its own; without a writable cache directory there is no lock.

The builds share one daemon thread, so a process that exits does not wait for one.
A child forked while a build ran cannot build (numba's compiler lock stayed with
the parent's thread): its kernels that are not built answer ``KernelNotReady``, or
raise :class:`RuntimeError` where the caller cannot defer.

While numba compiles it swaps Python's process-wide warning filters
(``warnings.catch_warnings`` is not thread-safe before Python 3.14), so a
warning raised in another thread meanwhile may be shown late, from the build
thread, and escape a ``pytest.warns`` block: tests that check warnings call
:func:`wait_for_builds` first.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import queue
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future, TimeoutError
from pathlib import Path
from typing import Any

import filelock
from numba import njit
from numba._dispatcher import compute_fingerprint
from numba.core import types

from dspk.plugin import KernelNotReady, may_defer, package_source_hash
from dspk.tuning import store

WAIT = 0.5
"""Seconds a deferrable call waits for a build it starts (enough for a cache load)."""

BUILD_LOCK_WAIT = 300.0
"""Seconds a build waits for another process building the same specialisation."""

_ready: dict[tuple, Callable[..., Any]] = {}
_builds: dict[tuple, Future] = {}
_any_layout: set[Any] = set()
_jobs: queue.SimpleQueue = queue.SimpleQueue()
_lock = threading.Lock()
_worker: threading.Thread | None = None
_forked_mid_build = False


def _key(kernel: Any, args: tuple) -> tuple:
    """What ``kernel``'s specialisation for ``args`` (arrays and numbers) depends on: their
    type fingerprints, which numba's dispatcher keys its own lookups on (an array's dtype,
    dimensions, contiguity and write access, not its alignment, which an
    :func:`any_layout` kernel reads past), in a third of the time of reading those
    attributes from Python."""
    return (kernel, *map(compute_fingerprint, args))


def any_layout(kernel: Any) -> Any:
    """Mark the numba dispatcher ``kernel`` to be built for arrays of any layout; returns it.

    Examples
    --------
    >>> import numba, numpy as np
    >>> total = any_layout(numba.njit(lambda a: a.sum()))
    >>> float(run(total, np.ones((2, 3)))) + float(run(total, np.ones((3, 2)).T))
    12.0
    >>> [str(signature[0]) for signature in total.signatures]
    ['array(float64, 2d, A)']
    """
    _any_layout.add(kernel)
    return kernel


def cached_jit(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit(cache=True, **options)``, the cache files named by the kernel's sources.

    numba checks a cached kernel against its own module's file alone, so a kernel
    whose helpers live in other modules (the tile transposes, the channel blocks)
    would load the machine code built from their old source after they changed.
    With a hash of its module and of every module of its package that it imports
    (:func:`dspk.plugin.package_source_hash`) in its qualified name, which names
    the cache files, a kernel built from other sources has other files.

    Examples
    --------
    >>> from dspk_cpu.spectral import halfsize
    >>> halfsize._pack.py_func.__qualname__ == f"_pack_{package_source_hash(halfsize)}"
    True
    """
    def build(function: Callable[..., Any]) -> Any:
        function.__qualname__ = f"{function.__qualname__}_{_sources(function.__module__)}"
        return njit(cache=True, **options)(function)

    return build


@functools.cache
def _sources(module: str) -> str:
    """:func:`dspk.plugin.package_source_hash` of the module named ``module``."""
    return package_source_hash(sys.modules[module])


def run(kernel: Any, *args: Any) -> Any:
    """Call the numba dispatcher ``kernel`` on ``args``, building its specialisation first.

    Examples
    --------
    >>> import numba, numpy as np
    >>> total = numba.njit(lambda a: a.sum())
    >>> float(run(total, np.arange(4.0)))
    6.0
    """
    return runner(kernel, *args)(*args)


def runner(kernel: Any, *args: Any) -> Callable[..., Any]:
    """What runs the numba dispatcher ``kernel``'s specialisation for ``args``, built
    first (:func:`run` without the call): for a caller that keeps it for later
    arguments of the same types.

    Examples
    --------
    >>> import numba, numpy as np
    >>> total = numba.njit(lambda a: a.sum())
    >>> float(runner(total, np.arange(4.0))(np.arange(3.0)))
    3.0
    """
    key = _key(kernel, args)
    compiled = _ready.get(key)
    if compiled is None:
        compiled = _ready[key] = _build(kernel, key, args)
    return compiled


def _build(kernel: Any, key: tuple, args: tuple) -> Callable[..., Any]:
    """Build ``kernel``'s specialisation for ``args`` and return it, or raise
    KernelNotReady."""
    defer = may_defer()
    with _lock:
        future = _builds.get(key)
        fresh = future is None
        if fresh:
            signature = tuple(kernel.typeof_pyval(a) for a in args)
            if kernel in _any_layout:
                signature = tuple(t.copy(layout="A") if isinstance(t, types.Array) else t
                                  for t in signature)
            if signature in kernel.overloads:
                return _runner(kernel, signature)
            if _forked_mid_build:
                if defer:
                    raise KernelNotReady("numba cannot compile in a process forked "
                                         "while it compiled")
                raise RuntimeError(f"dspk: numba kernel {kernel.__name__} is not compiled "
                                   "in this process, which was forked while numba "
                                   "compiled, so it cannot compile here")
            future = _builds[key] = _submit(_compile, kernel, signature)
    try:
        return future.result(timeout=(WAIT if fresh else 0) if defer else None)
    except TimeoutError:
        raise KernelNotReady(f"numba kernel {kernel.__name__} is compiling") from None


def _compile(kernel: Any, signature: tuple) -> Callable[..., Any]:
    """Build ``signature`` of ``kernel`` (or load it from numba's disk cache, where another
    process may just have built it); its :func:`_runner`."""
    with _turn_to_build(kernel, signature):
        kernel.compile(signature)
    return _runner(kernel, signature)


@contextlib.contextmanager
def _turn_to_build(kernel: Any, signature: tuple):
    """Hold the lock of ``kernel``'s ``signature`` shared by the processes of this cache
    directory (see the module's notes); none where it cannot be made or waited for."""
    path = build_lock_path(kernel, signature)
    lock = filelock.FileLock(str(path), timeout=BUILD_LOCK_WAIT)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock.acquire()
    except (filelock.Timeout, OSError):  # held too long elsewhere, or no writable cache
        lock = None
    try:
        yield
    finally:
        if lock is not None:
            lock.release()


def build_lock_path(kernel: Any, signature: tuple) -> Path:
    """The lock file of building ``kernel``'s ``signature``: named by the kernel's module,
    name and closure values (which tell apart the kernels one factory makes) and the
    signature."""
    function = kernel.py_func
    closure = tuple(cell.cell_contents for cell in function.__closure__ or ())
    name = hashlib.sha256(repr((function.__module__, function.__qualname__, closure,
                                signature)).encode()).hexdigest()[:32]
    return store.cache_root() / "builds" / f"{name}.lock"


def _runner(kernel: Any, signature: tuple) -> Callable[..., Any]:
    """What runs ``kernel``'s built ``signature``: the dispatcher, which finds it among its
    specialisations, or for :func:`any_layout` kernels the specialisation itself (the
    dispatcher would build one for the arguments' own layout)."""
    return kernel.overloads[signature].entry_point if kernel in _any_layout else kernel


def wait_for_builds() -> None:
    """Block until every build started so far has finished (successfully or not).

    Examples
    --------
    >>> wait_for_builds()  # nothing in flight: returns at once
    """
    with _lock:
        pending = list(_builds.values())
    for future in pending:
        future.exception()  # waits; a failed build is the caller's to meet


def _submit(function: Callable[..., Any], *args: Any) -> Future:
    """Run ``function(*args)`` on the build thread (started on first use)."""
    global _worker
    future: Future = Future()
    _jobs.put((future, function, args))
    if _worker is None:
        _worker = threading.Thread(target=_work, name="dspk-cpu-build", daemon=True)
        _worker.start()
    return future


def _work() -> None:
    while True:
        future, function, args = _jobs.get()
        if not future.set_running_or_notify_cancel():
            continue
        try:
            future.set_result(function(*args))
        except BaseException as exc:  # handed to the caller that waits for the build
            future.set_exception(exc)


def _after_fork_in_child() -> None:
    global _worker, _jobs, _lock, _forked_mid_build
    _forked_mid_build = _forked_mid_build or any(not f.done() for f in _builds.values())
    _builds.clear()
    _worker, _jobs, _lock = None, queue.SimpleQueue(), threading.Lock()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_after_fork_in_child)
