"""Finds runtime plugins through entry points and opens their backends lazily.

Discovery imports each plugin's small registration module and collects the
:class:`~dspk.plugin.RuntimeSpec` objects it declares; no runtime's heavy
dependencies are imported until :meth:`Registry.open` first needs them.

A plugin that fails in any way, ``sys.exit()`` included, is reported as
broken; only a ``KeyboardInterrupt`` goes on. A forked child opens every
runtime that its parent had opened afresh: the parent's backends are kept,
never used nor released there, and each runtime's probe decides whether its
device can open in the child.
"""

from __future__ import annotations

import importlib
import os
import re
import threading
import warnings
from dataclasses import dataclass
from importlib.metadata import entry_points

import pluggy

from dspk import hookspec
from dspk.plugin import API_VERSIONS, Backend, DeviceUnavailable, RuntimeSpec

ENTRY_POINT_GROUP = "dspk.runtimes"
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class PluginError(RuntimeError):
    """A runtime plugin could not be loaded or declared something invalid."""


class PluginWarning(RuntimeWarning):
    """A runtime plugin was skipped; ``DSPK_STRICT_RUNTIMES=1`` makes it an error."""


class RuntimeUnavailableError(RuntimeError):
    """A runtime that was asked for cannot open a device here."""


@dataclass
class _Opened:
    backend: Backend | None
    reason: str | None


class Registry:
    """The runtimes this process knows, in preference order.

    Parameters
    ----------
    specs : list of RuntimeSpec
        Valid, uniquely named runtimes.
    problems : list of str
        Why each skipped plugin or declaration was skipped.
    """

    def __init__(self, specs: list[RuntimeSpec], problems: list[str]):
        self.specs = sorted(specs, key=lambda s: (not s.is_gpu, -s.priority, s.name))
        self.problems = problems
        self._opened: dict[str, _Opened] = {}
        self._lock = threading.Lock()

    def names(self) -> list[str]:
        """Runtime names: GPUs first, then by priority (highest first), then by name.

        Examples
        --------
        >>> spec = lambda name, priority, gpu: RuntimeSpec(name, priority, gpu, "m:f")
        >>> Registry([spec("cpu", 100, False), spec("fast_cpu", 120, False),
        ...           spec("small_gpu", 50, True)], []).names()
        ['small_gpu', 'fast_cpu', 'cpu']
        """
        return [spec.name for spec in self.specs]

    def opened(self) -> list[Backend]:
        """The backends opened so far in this process, in preference order."""
        with self._lock:
            return [self._opened[name].backend for name in self.names()
                    if name in self._opened and self._opened[name].backend is not None]

    def spec(self, name: str) -> RuntimeSpec:
        """The declaration of one runtime."""
        return next(spec for spec in self.specs if spec.name == name)

    def probe(self, name: str) -> _Opened:
        """Open a runtime once per process; remember its backend or reason."""
        with self._lock:
            if name not in self._opened:
                self._opened[name] = _load(self.spec(name))
            return self._opened[name]

    def open(self, name: str) -> Backend:
        """The backend of ``name``, or an error that says why there is none."""
        opened = self.probe(name)
        if opened.backend is None:
            usable = [n for n in self.names() if n != name and self.probe(n).backend]
            raise RuntimeUnavailableError(
                f"runtime {name!r} cannot open a device: {opened.reason}. "
                f"Runtimes that can run here: {', '.join(usable) or 'none'}.")
        return opened.backend


def _load(spec: RuntimeSpec) -> _Opened:
    """Import the backend factory and call it: a backend, no device, or a load error
    (a :class:`PluginWarning`, a :class:`PluginError` under ``DSPK_STRICT_RUNTIMES=1``)."""
    module_name, _, attribute = spec.load.partition(":")
    try:
        backend = getattr(importlib.import_module(module_name), attribute)()
    except DeviceUnavailable as exc:
        return _Opened(None, str(exc))
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # a broken runtime, sys.exit() included, must not end its host
        reason = f"{type(exc).__name__}: {exc}"
        _report(f"runtime {spec.name!r} failed to load ({spec.load}): {reason}")
        return _Opened(None, reason)
    if getattr(backend, "name", None) != spec.name:
        if hasattr(backend, "name"):
            _report(f"runtime {spec.name!r}'s backend ({spec.load}) calls itself "
                    f"{backend.name!r}; it is named {spec.name!r}, as its RuntimeSpec", skipped="")
        backend.name = spec.name  # the tuning cache files its results under this name
    return _Opened(backend, None)


def _report(problem: str, skipped: str = "; it is skipped") -> None:
    """Warn of a plugin's problem, or raise it under ``DSPK_STRICT_RUNTIMES=1``."""
    if os.environ.get("DSPK_STRICT_RUNTIMES", "") == "1":
        raise PluginError(f"dspk: {problem} (DSPK_STRICT_RUNTIMES=1)")
    warnings.warn(f"dspk: {problem}{skipped}", PluginWarning, stacklevel=3)


def _spec_problem(spec: object, taken: dict[str, str], plugin: str) -> str | None:
    if not isinstance(spec, RuntimeSpec):
        return f"plugin {plugin!r} registered {spec!r}, which is not a RuntimeSpec"
    if not isinstance(spec.name, str) or not _NAME.match(spec.name):
        return (f"plugin {plugin!r} declared the runtime name {spec.name!r}; "
                "names are lower-case letters, digits and '_', starting with a letter")
    if spec.name in taken:
        return (f"plugin {plugin!r} declared the runtime {spec.name!r}, "
                f"which plugin {taken[spec.name]!r} already declared")
    if spec.api_version not in API_VERSIONS:
        return (f"plugin {plugin!r} declared runtime {spec.name!r} for plugin API "
                f"version {spec.api_version!r}; this dspk speaks versions "
                f"{', '.join(map(str, API_VERSIONS))}")
    if type(spec.priority) is not int or type(spec.is_gpu) is not bool:
        return (f"plugin {plugin!r} declared runtime {spec.name!r} with priority "
                f"{spec.priority!r} and is_gpu {spec.is_gpu!r}; they must be int and bool")
    if not isinstance(spec.load, str) or ":" not in spec.load:
        return (f"plugin {plugin!r} declared runtime {spec.name!r} with load "
                f"{spec.load!r}; it must read 'module:attribute'")
    return None


def discover() -> Registry:
    """Collect the runtimes of every installed plugin.

    A plugin that fails to import, raises from its hook or declares an
    invalid runtime is skipped with a :class:`PluginWarning`, or raises
    :class:`PluginError` when ``DSPK_STRICT_RUNTIMES=1``.
    """
    manager = pluggy.PluginManager("dspk")
    manager.add_hookspecs(hookspec)
    problems: list[str] = []
    owners: dict[str, str] = {}
    # In a fixed order, whatever the order of the installed distributions.
    for entry in sorted(entry_points(group=ENTRY_POINT_GROUP),
                        key=lambda e: (e.name, _distribution(e), e.value)):
        if entry.name in owners:
            problems.append(f"plugin {entry.name!r} is declared by {owners[entry.name]} and "
                            f"by {_distribution(entry)} ({entry.value}); {owners[entry.name]}'s "
                            f"is kept")
            continue
        owners[entry.name] = f"{_distribution(entry)} ({entry.value})"
        try:
            module = entry.load()
            manager.register(module, name=entry.name)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # sys.exit() in a plugin must not end its host
            problems.append(f"plugin {entry.name!r} ({entry.value}) failed to load: "
                            f"{type(exc).__name__}: {exc}")
            continue
        if not manager.get_hookcallers(module):  # pluggy ignores unmarked functions
            problems.append(f"plugin {entry.name!r} ({entry.value}) has no "
                            f"dspk_register_runtimes marked with @dspk.plugin.hookimpl")
    declared: list[tuple[str, object]] = []
    for impl in manager.hook.dspk_register_runtimes.get_hookimpls():
        found: list[object] = []
        try:
            impl.function(register=found.append)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            problems.append(f"plugin {impl.plugin_name!r} raised while registering: "
                            f"{type(exc).__name__}: {exc}")
            continue
        declared.extend((impl.plugin_name, spec) for spec in found)
    # On a name clash the plugin whose entry point bears the runtime's name
    # keeps it, then the first plugin by name: never an accident of order.
    declared.sort(key=lambda item: (getattr(item[1], "name", None) != item[0], item[0]))
    specs: list[RuntimeSpec] = []
    taken: dict[str, str] = {}
    for plugin, spec in declared:
        problem = _spec_problem(spec, taken, plugin)
        if problem:
            problems.append(problem)
        else:
            taken[spec.name] = plugin
            specs.append(spec)
    for problem in problems:
        _report(problem)
    return Registry(specs, problems)


def _distribution(entry) -> str:
    """The name of the distribution that declares an entry point."""
    if getattr(entry, "dist", None) is None:
        return "an unknown distribution"
    return entry.dist.name


_registry: Registry | None = None
_registry_lock = threading.Lock()
#: Backends a forked child inherited: referenced so that their device handles, which
#: are its parent's, are never released from the child.
_inherited: list[Backend] = []


def _after_fork_in_child() -> None:
    global _registry_lock
    _registry_lock = threading.Lock()  # another thread may have held it at the fork
    if _registry is not None:
        opened = _registry._opened
        _inherited.extend(o.backend for o in opened.values() if o.backend is not None)
        # Reasons stay; backends are opened again, where their runtime's probe allows.
        _registry._opened = {name: o for name, o in opened.items() if o.backend is None}
        _registry._lock = threading.Lock()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_after_fork_in_child)


def registry() -> Registry:
    """The process's registry, discovered on first call."""
    global _registry
    found = _registry  # every call asks: no lock once it exists (a name read is atomic)
    if found is not None:
        return found
    with _registry_lock:
        if _registry is None:
            _registry = discover()
        return _registry
