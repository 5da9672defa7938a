"""Compute runtime choice.

Every call that runs on a device uses, in order: its ``runtime=`` argument,
the runtime chosen with :func:`using` or :func:`set`, the ``DSPK_RUNTIME``
environment variable, the first compiled-in runtime (GPUs first).

"Compiled in" means installed: a runtime package whose plugin registered.
A runtime that was asked for by name, through any of the first three, never
falls back: when it cannot open a device, the call raises
:class:`RuntimeUnavailableError` with the probe's reason. Only the last
step, the default, passes over an installed runtime that has no device here,
with a warning that says why, and, for one call, over a runtime whose kernels
do not compute that call's dtype (:meth:`dspk.plugin.Backend.computes`; the
wgpu runtime and float64 data) or that lacks a kernel operation the call
needs (a partial third-party runtime): such a call runs on the next runtime
that does, where a named runtime would raise (:class:`UnsupportedDtype`,
:class:`OperationNotImplemented`).
"""

from __future__ import annotations

import builtins
import contextlib
import contextvars
import os
import time
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from dspk import environment
from dspk.operations import variants_of
from dspk.plugin import Backend, OperationNotImplemented, UnsupportedDtype
from dspk.registry import RuntimeUnavailableError, registry

__all__ = ["autotune", "available", "current", "set", "using", "info",
           "OperationNotImplemented", "RuntimeUnavailableError", "UnsupportedDtype"]

_chosen: str | None = None
_scoped: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "dspk_runtime", default=None)
_warned_default: builtins.set[str] = builtins.set()


def available() -> list[str]:
    """Names of the runtimes compiled into this build, in preference order (GPUs first).

    Returns
    -------
    list of str
        Runtime names, such as ``["cuda", "wgpu", "cpu"]``.

    Examples
    --------
    >>> import dspk
    >>> names = dspk.runtime.available()
    """
    return registry().names()


def validate_name(name: object, what: str = "runtime") -> str:
    """``name`` if it is a runtime of this build, else a ValueError that lists them."""
    names = available()
    if name not in names:
        raise ValueError(f"{what} {name!r} is not a runtime of this build; "
                         f"available runtimes: {', '.join(names) or 'none'}")
    return name  # type: ignore[return-value]


def _explicit() -> str | None:
    """The runtime named by using(), set() or DSPK_RUNTIME, if any."""
    scoped = _scoped.get()
    if scoped is not None:
        return scoped
    if _chosen is not None:
        return _chosen
    env = environment.get("DSPK_RUNTIME") or None
    if env is not None:
        return validate_name(env, "DSPK_RUNTIME")
    return None


def _lacks(backend: Backend, kernels: Sequence[str],
           complex_coefficients: bool = False) -> tuple[str, ...]:
    """The kernel operations of ``kernels`` that ``backend`` has no variant of, and with
    ``complex_coefficients``, those whose kernels do not take complex data
    (:meth:`~dspk.plugin.Backend.takes_complex`), as ``"<op> with complex coefficients"``."""
    missing = tuple(op for op in kernels if not variants_of(backend, op))
    if complex_coefficients:
        missing += tuple(f"{op} with complex coefficients" for op in kernels
                         if op not in missing and not backend.takes_complex(op))
    return missing


def _able(kernels: Sequence[str], complex_coefficients: bool = False) -> list[str]:
    """The runtimes that open a device here and implement every one of ``kernels``."""
    reg = registry()
    return [name for name in reg.names() if reg.probe(name).backend is not None
            and not _lacks(reg.probe(name).backend, kernels, complex_coefficients)]


def _default(dtype: Any = None, kernels: Sequence[str] = (), function: str = "",
             complex_coefficients: bool = False) -> str:
    """The first runtime that opens a device here, implements ``kernels`` (for complex
    coefficients where asked) and, when ``dtype`` is given, computes in it; else the
    first that opens and implements them (its kernels then raise their dtype error)."""
    reg = registry()
    first = None
    for name in reg.names():
        opened = reg.probe(name)
        if opened.backend is not None:
            if _lacks(opened.backend, kernels, complex_coefficients):
                continue
            if dtype is None or opened.backend.computes(dtype):
                return name
            first = first or name
            continue
        if name not in _warned_default:
            _warned_default.add(name)
            warnings.warn(f"dspk: runtime {name!r} is installed but cannot open a "
                          f"device ({opened.reason}); the default passes over it",
                          RuntimeWarning, stacklevel=4)
    if first is not None:
        return first
    opened = [name for name in reg.names() if reg.probe(name).backend is not None]
    if opened:
        backend = reg.probe(opened[0]).backend
        raise OperationNotImplemented(opened[0], function,
                                      _lacks(backend, kernels, complex_coefficients), [])
    raise RuntimeUnavailableError(
        "no installed dspk runtime can open a device here: "
        + "; ".join(f"{n}: {reg.probe(n).reason}" for n in reg.names()))


def current() -> str:
    """The runtime calls use when they are not given runtime=.

    The one chosen with :func:`using` or :func:`set`, else the
    ``DSPK_RUNTIME`` environment variable, else the first of
    :func:`available` that can open a device here.

    Returns
    -------
    str
        A runtime name.

    Raises
    ------
    ValueError
        When ``DSPK_RUNTIME`` names a runtime that is unknown or not compiled in.
    """
    return _explicit() or _default()


def set(name: str | None) -> None:
    """Chooses the runtime of every later call that is not given runtime=.

    Parameters
    ----------
    name : str or None
        A runtime from :func:`available` (``"cuda"``, ``"hip"``, ``"wgpu"``,
        ``"cpu"``), or None to go back to the default (``DSPK_RUNTIME``, else
        the first available).

    Raises
    ------
    ValueError
        When ``name`` is unknown or not compiled into this build.

    Examples
    --------
    >>> import dspk
    >>> dspk.runtime.set("cpu")
    >>> dspk.runtime.current()
    'cpu'
    >>> dspk.runtime.set(None)
    """
    global _chosen
    _chosen = None if name is None else validate_name(name, "runtime")


@contextlib.contextmanager
def using(name: str) -> Iterator[str]:
    """Run the calls in a ``with`` block on one runtime.

    The choice lives in a :mod:`contextvars` variable, so it stays within
    the thread or asyncio task that made it, and it takes precedence over
    :func:`set` there.

    Parameters
    ----------
    name : str
        A runtime from :func:`available`.

    Raises
    ------
    ValueError
        When ``name`` is unknown or not compiled into this build.

    Examples
    --------
    >>> import dspk
    >>> with dspk.runtime.using("cpu"):
    ...     dspk.runtime.current()
    'cpu'
    """
    token = _scoped.set(validate_name(name, "runtime"))
    try:
        yield name
    finally:
        _scoped.reset(token)


def selection() -> tuple[str | None, str | None]:
    """The runtimes chosen outside a call's arguments: by :func:`using`, by :func:`set`.

    For :mod:`dspk.plans`, whose plans hold for one selection.

    Examples
    --------
    >>> with using("cpu"):
    ...     selection()[0]
    'cpu'
    """
    return _scoped.get(), _chosen


#: Runtime names :func:`resolve` chose, by everything the choice depends on: the
#: registry, the ``runtime=`` argument, :func:`using`, :func:`set`, ``DSPK_RUNTIME``
#: (read on each call), the dtype and the kernels. Cleared in a forked child, whose
#: devices may not open.
_resolved: dict[tuple, str] = {}
_RESOLVED_MAX = 256

if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_resolved.clear)


def resolve(runtime: str | None = None, dtype: Any = None, function: str = "",
            kernels: Sequence[str] = (), complex_coefficients: bool = False) -> Backend:
    """The backend a call runs on, following the documented order.

    The runtime's name is remembered for the same arguments and the same
    :func:`using`, :func:`set` and ``DSPK_RUNTIME`` choices; the backend is
    opened anew from the registry on every call.

    Parameters
    ----------
    runtime : str or None
        A call's ``runtime=`` argument.
    dtype : numpy.dtype, optional
        The dtype the call computes in: the default order passes over runtimes
        that do not compute in it.
    function : str, optional
        The public function called, for the error of a runtime that lacks ``kernels``.
    kernels : sequence of str, optional
        The kernel operations the call runs: the default order passes over
        runtimes that lack one, a runtime chosen by name raises.
    complex_coefficients : bool, optional
        Whether the call filters with complex denominators or sections: then
        ``kernels`` must take complex data (:meth:`dspk.plugin.Backend.takes_complex`),
        with the same consequences.

    Returns
    -------
    dspk.plugin.Backend

    Raises
    ------
    OperationNotImplemented
        When the runtime chosen by name lacks one of ``kernels``.
    """
    if runtime is not None and not isinstance(runtime, str):
        validate_name(runtime, "runtime")  # raises: no runtime is named so
    reg = registry()
    scoped = _scoped.get()
    named = runtime is not None or scoped is not None or _chosen is not None
    key = (reg, runtime, scoped, _chosen, None if named else environment.get("DSPK_RUNTIME"),
           dtype, function, tuple(kernels), complex_coefficients)
    name = _resolved.get(key)
    if name is not None:
        return reg.open(name)
    name = validate_name(runtime, "runtime") if runtime is not None else _explicit()
    if name is None:
        name = _default(dtype, kernels, function, complex_coefficients)
        backend = reg.open(name)
    else:
        backend = reg.open(name)
        missing = _lacks(backend, kernels, complex_coefficients)
        if missing:
            raise OperationNotImplemented(name, function, missing,
                                          _able(kernels, complex_coefficients))
    if len(_resolved) >= _RESOLVED_MAX:
        _resolved.clear()
    _resolved[key] = name
    return backend


def info() -> list[dict]:
    """Each installed runtime with its device, or the reason it has none.

    Opening a runtime imports its libraries and probes its device.

    Returns
    -------
    list of dict
        One per runtime, in preference order, with keys ``name``,
        ``priority``, ``is_gpu``, ``device`` (None when unavailable) and
        ``reason`` (None when available).

    Examples
    --------
    >>> import dspk
    >>> [row["device"] is not None for row in dspk.runtime.info() if row["name"] == "cpu"]
    [True]
    """
    reg = registry()
    rows = []
    for spec in reg.specs:
        opened = reg.probe(spec.name)
        rows.append({"name": spec.name, "priority": spec.priority,
                     "is_gpu": spec.is_gpu,
                     "device": opened.backend.device() if opened.backend else None,
                     "reason": opened.reason})
    return rows


def autotune(runtime: str | None = None,
             channels: Sequence[int] = (32, 64, 128, 384),
             samples: Sequence[int] = (8192, 32768, 131072, 524288),
             ) -> dict[str, dict[str, float]]:
    """Tunes the operations on this machine's devices ahead of time, and compiles their kernels.

    An operation benchmarks its kernels the first time it meets a device and
    problem size, which can stall a first run. This does that work now, over
    a grid of common sizes, and saves the results for every later process. A
    size off the grid still tunes when it is first met.

    Parameters
    ----------
    runtime : str, default None
        One runtime to tune; by default every runtime compiled in that can
        open a device here.
    channels : list of int, default [32, 64, 128, 384]
        Channel counts to tune.
    samples : list of int, default [8192, 32768, 131072, 524288]
        Samples per channel to tune.

    Returns
    -------
    dict
        Per runtime tuned, ``{"sizes": int, "seconds": float}``. ``sizes``
        counts the tuning-cache entries the run made sure of: one per
        operation, dtype, layout, operation parameter set (such as a section
        count or tap count) and grid point that the runtime supports, whether
        it was measured now or already cached.

    Raises
    ------
    ValueError
        When ``runtime`` is not one of this build's runtimes.

    Examples
    --------
    >>> import dspk
    >>> dspk.runtime.autotune(channels=[4], samples=[512], runtime="cpu")  # doctest: +ELLIPSIS
    {'cpu': {'sizes': ..., 'seconds': ...}}
    """
    from dspk.tuning.tuner import tune_grid

    reg = registry()
    if runtime is not None:
        targets = [(validate_name(runtime, "runtime"), reg.open(runtime))]
    else:
        targets = [(name, reg.probe(name).backend) for name in reg.names()]
        targets = [(name, backend) for name, backend in targets if backend is not None]
    results = {}
    for name, backend in targets:
        start = time.perf_counter()
        sizes = tune_grid(backend, list(channels), list(samples))
        results[name] = {"sizes": sizes, "seconds": time.perf_counter() - start}
    return results
