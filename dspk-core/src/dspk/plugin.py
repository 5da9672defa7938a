"""What a runtime plugin implements: the whole surface a runtime author learns.

A runtime package imports this module, and :mod:`dspk.operations` for the
calling conventions and example inputs, and nothing else of dspk. It declares
itself with a :class:`RuntimeSpec` from the ``dspk_register_runtimes`` hook
(see :mod:`dspk.hookspec`), and its ``load`` target returns a :class:`Backend`.

Kernel calling conventions
--------------------------
Each kernel operation's calling convention is its
:class:`dspk.operations.Operation` (``dspk.operations.OPERATIONS[name]``):
the arguments' names, in order, the results, what they hold, and the
convention's own version. Kernels are called by keyword with those names,
and never write their arguments. The reference page of the kernel operations
lists them all.
"""

from __future__ import annotations

import abc
import ast
import contextlib
import contextvars
import functools
import hashlib
import importlib.util
import inspect
import re
import time
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pluggy

#: Version of the plugin interface. It rises when a hook, the way kernels are
#: called or a :class:`Backend` method changes incompatibly; a single
#: operation's calling convention has its own version
#: (:attr:`dspk.operations.Operation.version`). Version 2 calls kernels by
#: keyword; version 1 called them by position.
API_VERSION = 2

#: The versions the core takes: a plugin that declares another is refused.
#: The kernels of a version-1 plugin are called by position, for one more
#: release.
API_VERSIONS = (1, 2)

#: Marks a plugin's hook implementations (see :mod:`dspk.hookspec`).
hookimpl = pluggy.HookimplMarker("dspk")

#: Memory layouts of a 2-D signal, by which axis is contiguous.
LAYOUTS = ("channel-major", "sample-major")


class DeviceUnavailable(RuntimeError):
    """Raised by a backend's constructor when it cannot open a device.

    Its message is the probe's reason, shown to users as it is.
    """


class UnsupportedDtype(TypeError):
    """Raised by a backend given data of a dtype its kernels do not compute in.

    Its message says which dtypes the runtime has and what to do instead.
    The conformance kit reports such a test as skipped, with that message.
    """


class OperationNotImplemented(NotImplementedError):
    """A runtime that was asked for by name lacks a kernel operation a function needs.

    Parameters
    ----------
    runtime : str
        The runtime asked for.
    function : str
        The public function called, such as ``"welch"``.
    missing : tuple of str
        The kernel operations the runtime lacks, such as ``("csd",)``.
    alternatives : list of str
        The runtimes that open a device here and implement them all.

    Examples
    --------
    >>> str(OperationNotImplemented("toy", "welch", ("csd",), ["cpu"]))
    "runtime 'toy' does not implement welch (it has no kernel for csd); runtimes that can run it
    here: cpu"
    """

    def __init__(self, runtime: str, function: str, missing: tuple[str, ...],
                 alternatives: list[str]):
        self.runtime, self.function = runtime, function
        self.missing, self.alternatives = tuple(missing), list(alternatives)
        super().__init__(
            f"runtime {runtime!r} does not implement {function} (it has no kernel for "
            f"{', '.join(missing)}); runtimes that can run it here: "
            f"{', '.join(alternatives) or 'none'}")


class ArrayTooLarge(ValueError):
    """Raised by a backend asked to hold an array above :meth:`Backend.max_array_bytes`.

    The core then runs the kernel in pieces (see :mod:`dspk.pieces`); a user
    sees it only when no piece is small enough, with a message that says why.
    """


class KernelNotReady(RuntimeError):
    """Raised by a variant whose kernel is still being built for its arguments.

    A variant may raise it, instead of building (compiling) its kernel on the
    spot, only where :func:`may_defer` is true: the core then runs the call with
    another variant, and the tuner times this one once it is built. Raise it
    before writing anything.
    """


_deferring: contextvars.ContextVar[bool] = contextvars.ContextVar("dspk_deferring",
                                                                  default=False)


_waiting: contextvars.ContextVar[bool] = contextvars.ContextVar("dspk_waiting", default=False)


def may_defer() -> bool:
    """Whether a variant may raise :class:`KernelNotReady` rather than build its
    kernel now: true inside :func:`deferring`, unless inside :func:`waiting_for_kernels`.

    Examples
    --------
    >>> may_defer()
    False
    >>> with deferring():
    ...     may_defer()
    True
    >>> with waiting_for_kernels(), deferring():
    ...     may_defer()
    False
    """
    return _deferring.get() and not _waiting.get()


class deferring:  # noqa: N801 (a context manager used as a function; a class costs a
    # third of a generator-based one, and every call enters it)
    """Let variants called in this block answer :class:`KernelNotReady` (with
    ``allowed`` False: build their kernels now). The core's tuner and dispatcher
    use it; a variant forced by name never defers.

    Parameters
    ----------
    allowed : bool, optional
        What :func:`may_defer` answers inside the block. Default True.
    """

    __slots__ = ("_allowed", "_token")

    def __init__(self, allowed: bool = True):
        self._allowed = allowed

    def __enter__(self) -> None:
        self._token = _deferring.set(self._allowed)

    def __exit__(self, *exc_info: object) -> None:
        _deferring.reset(self._token)


@contextlib.contextmanager
def waiting_for_kernels():
    """Make calls in this block wait for their kernels to be built: none runs
    another variant meanwhile.

    Outside it, a call that meets a kernel still compiling runs the next ready
    variant (usually scipy's), whose result agrees within floating-point
    tolerance but not bit for bit. Wait where that matters: a benchmark that
    times the compiled kernel, or results compared exactly between calls.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> from dspk.plugin import waiting_for_kernels
    >>> sos = scipy.signal.butter(3, 0.1, output="sos")
    >>> x = np.random.default_rng(0).standard_normal((4, 1000)).astype(np.float32)
    >>> with waiting_for_kernels():
    ...     y = dspk.sosfiltfilt(sos, x, runtime="cpu")
    >>> y.dtype
    dtype('float32')
    """
    token = _waiting.set(True)
    try:
        yield
    finally:
        _waiting.reset(token)


@dataclass(frozen=True)
class RuntimeSpec:
    """A runtime as its plugin declares it, before anything heavy is imported.

    Parameters
    ----------
    name : str
        Lower-case identifier, such as ``"cuda"``.
    priority : int
        Higher runs first in :func:`dspk.runtime.available`. dspk's own use
        cuda 400, hip 300, wgpu 200, cpu 100.
    is_gpu : bool
        Whether the runtime computes on a GPU.
    load : str
        ``"module:attribute"`` of a callable that imports the runtime's
        heavy dependencies, probes its device and returns a :class:`Backend`,
        or raises :class:`DeviceUnavailable` with the reason.
    api_version : int
        The :data:`API_VERSION` the plugin was written against.

    Examples
    --------
    >>> RuntimeSpec("toy", priority=50, is_gpu=False, load="toy:Backend").name
    'toy'
    """

    name: str
    priority: int
    is_gpu: bool
    load: str
    api_version: int = API_VERSION


@dataclass(frozen=True)
class Problem:
    """What a kernel choice depends on: the tuning cache's key.

    Parameters
    ----------
    op : str
        Operation name, such as ``"sosfilt"``.
    dtype : str
        ``"float32"`` or ``"float64"``.
    channels, samples : int
        Size of the non-time axis and of the time axis.
    layout : str
        One of :data:`LAYOUTS`.
    params : tuple of (str, object)
        Sorted extra parameters that change which variants are valid or
        which is fastest (section count, tap bucket, method).

    Examples
    --------
    >>> p = Problem.make("sosfilt", "float32", 4, 512, "channel-major", sections=3)
    >>> p.param("sections")
    3
    """

    op: str
    dtype: str
    channels: int
    samples: int
    layout: str
    params: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def make(cls, op, dtype, channels, samples, layout, **params) -> Problem:
        """Build a problem with its parameters sorted by name.

        Parameters
        ----------
        op : str
            Operation name, such as ``"sosfilt"``.
        dtype : str or numpy.dtype
            The data's dtype; kept as its name.
        channels, samples : int
            Size of the non-time axis and of the time axis.
        layout : str
            One of :data:`LAYOUTS`.
        **params
            The extra parameters, by name.
        """
        return cls(op, str(np.dtype(dtype)), int(channels), int(samples), layout,
                   tuple(sorted(params.items())))

    def param(self, name: str, default: Any = None) -> Any:
        """The value of one extra parameter.

        Parameters
        ----------
        name : str
            The parameter's name.
        default : object, optional
            What is returned when the problem has no such parameter.
        """
        return dict(self.params).get(name, default)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready description."""
        return {"op": self.op, "dtype": self.dtype, "channels": self.channels,
                "samples": self.samples, "layout": self.layout,
                "params": dict(self.params)}


def _always(problem: Problem) -> bool:
    return True


@dataclass(frozen=True)
class Variant:
    """One kernel that computes an operation.

    Parameters
    ----------
    name : str
        Unique within the operation, such as ``"numba-channel-blocks"``.
    run : callable
        Follows the operation's kernel calling convention (its
        :class:`dspk.operations.Operation`), and is called by keyword.
    source : str
        Identifies the kernel's code (see :func:`source_hash`): when it
        changes, only this variant's tuning results are measured again.
    supports : callable
        ``supports(problem) -> bool``; a variant that returns False is never
        chosen for that problem.
    version : int
        The version of the operation's calling convention ``run`` follows
        (:attr:`dspk.operations.Operation.version`); a variant of another
        version is passed over, with a warning.
    """

    name: str
    run: Callable[..., Any]
    source: str
    supports: Callable[[Problem], bool] = field(default=_always, compare=False)
    version: int = 1


def source_hash(*parts: Any) -> str:
    """A short hash of kernel code: functions, modules or strings.

    Parameters
    ----------
    *parts : str, module, class or function
        The code: strings as they are, anything else by its source.

    Examples
    --------
    >>> len(source_hash("kernel text"))
    16
    """
    digest = hashlib.sha256()
    for part in parts:
        text = part if isinstance(part, str) else inspect.getsource(part)
        digest.update(text.encode())
    return digest.hexdigest()[:16]


def package_source_hash(code: Any) -> str:
    """A short hash of a module's source and of every module of its top-level package
    that it imports, directly or through those modules.

    ``code`` is a module, or a function or class, which stands for its module.
    Imports are read from the source with :mod:`ast`, wherever they stand in it;
    ``import package.module`` counts that module alone, and ``from package import
    name`` the module ``package.name`` where there is one, else ``package``: a
    package's ``__init__`` counts only where a name that is not a module is
    imported from it. Modules of other packages are left out, except the host-side
    algorithms runtimes share (:data:`SHARED_HOST_CODE`), which are kernel code too.

    Parameters
    ----------
    code : module, class or function
        The module, or an object of it.

    Examples
    --------
    >>> import dspk.plugin
    >>> package_source_hash(dspk.plugin) == package_source_hash(dspk.plugin.layout_of)
    True
    >>> len(package_source_hash(dspk.plugin))
    16
    """
    first = code.__name__ if inspect.ismodule(code) else code.__module__
    top = first.partition(".")[0]
    sources, pending = {}, [first]
    while pending:
        name = pending.pop()
        if name in sources:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None:  # named by a string's line that reads as an import
            continue
        sources[name] = _source(spec)
        pending += _imports_within(sources[name], spec.parent, top)
    return source_hash(*(sources[name] for name in sorted(sources)))


def _source(spec) -> str:
    """A module's source text: its loader's, else its file's (a loader such as pytest's
    assertion rewriter, which imports the modules pytest collects, gives none)."""
    get_source = getattr(spec.loader, "get_source", None)
    if get_source is not None:
        return get_source(spec.name)
    with open(spec.origin, "rb") as file:
        return importlib.util.decode_source(file.read())


#: The core package of host-side algorithms runtimes share (:func:`package_source_hash`
#: follows a runtime's imports into it).
SHARED_HOST_CODE = "dspk.kernel_support"


def _hashed(module: str, top: str) -> bool:
    """Whether :func:`package_source_hash` follows an import of ``module``."""
    return (module.partition(".")[0] == top or module == SHARED_HOST_CODE
            or module.startswith(SHARED_HOST_CODE + "."))


#: An import statement at the start of a line, indented or not, its parenthesised
#: names running over lines.
_IMPORT = re.compile(r"^[ \t]*((?:from[ \t]+[\w.]+[ \t]+)?import[ \t]+(?:\([^)]*\)|[^\n]*))",
                     re.MULTILINE)


def _import_statements(source: str) -> ast.AST:
    """The import statements of ``source``, parsed: only they, as parsing a whole module
    takes milliseconds and the runtimes hash their variants at import. A string's line
    that reads as an import counts too (more modules hashed, never fewer). Where the
    lines taken do not parse (an import continued by a backslash), the whole source."""
    try:
        return ast.parse("\n".join(m.group(1) for m in _IMPORT.finditer(source)))
    except SyntaxError:
        return ast.parse(source)


@functools.lru_cache(maxsize=1024)
def _imports_within(source: str, package: str, top: str) -> tuple[str, ...]:
    """The modules of the top-level package ``top`` (or of :data:`SHARED_HOST_CODE`) that
    ``source`` imports, its relative imports taken from ``package``; remembered by the
    source's text, as many variants are hashed through the same modules."""
    found = []
    for node in ast.walk(_import_statements(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if _hashed(alias.name, top)]
        elif isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            if _hashed(base, top):
                found += [_module_or_base(base, alias.name) for alias in node.names]
    return tuple(found)


def _module_or_base(base: str, name: str) -> str:
    """The module ``base.name`` where there is one (``base`` a package), else ``base``."""
    spec = importlib.util.find_spec(base)
    if spec is None or spec.submodule_search_locations is None:
        return base
    return f"{base}.{name}" if importlib.util.find_spec(f"{base}.{name}") else base


def layout_of(x: Any, axis: int) -> str:
    """The layout of a 2-D array with time axis ``axis``, from its strides.

    Parameters
    ----------
    x : NativeArray
        A 2-D array (anything with NumPy's ``strides``).
    axis : int
        Its time axis, 0 or 1.

    Examples
    --------
    >>> layout_of(np.zeros((3, 8)), axis=1)
    'channel-major'
    >>> layout_of(np.zeros((3, 8)), axis=0)
    'sample-major'
    """
    other = 1 - axis
    if abs(x.strides[axis]) <= abs(x.strides[other]):
        return "channel-major"
    return "sample-major"


@typing.runtime_checkable
class NativeArray(typing.Protocol):
    """What the core uses of a runtime's native arrays (NumPy's, CuPy's, wgpu's).

    The core reads a native array's geometry, takes views (the 2-D view of
    :class:`dspk.dispatch.Signal2D`, slices of pieces), changes its dtype,
    copies it and hands it to kernels; arithmetic and reductions belong to the
    runtime's kernels, or run on host copies (:meth:`Backend.to_numpy`). A
    backend whose arrays have these members works with every public function.

    Examples
    --------
    >>> isinstance(np.ones((2, 3), np.float32), NativeArray)
    True
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    ndim: int
    size: int
    nbytes: int
    #: In bytes, as NumPy's; they give the layout (:func:`layout_of`).
    strides: tuple[int, ...]

    def astype(self, dtype: Any, copy: bool = True) -> Any: ...
    def copy(self) -> Any: ...
    def reshape(self, *shape: Any) -> Any: ...
    def transpose(self, *axes: Any) -> Any: ...
    def __getitem__(self, index: Any) -> Any: ...


class CausalFilter(typing.Protocol):
    """A filter over successive chunks of the same channels that carries its state
    (:meth:`Backend.causal_filter`). A call that raises :class:`KernelNotReady` has
    changed nothing."""

    def __call__(self, x: Any, axis: int) -> Any:
        """The next samples filtered, the state carried to the next call.

        Parameters
        ----------
        x : native array
            2-D, of the working dtype, of the channels the filter was made for.
        axis : {0, 1}
            The time axis of ``x``.
        """

    def zf(self) -> Any:
        """The state after the last call, in the layout of ``zi``: a new array."""


class Backend(abc.ABC):
    """A runtime opened on its device: kernels, a timer and array conversion.

    A backend is created once per process, on first use, by the
    :class:`RuntimeSpec`'s ``load`` target; creating it may import heavy
    libraries and must raise :class:`DeviceUnavailable` when there is no
    device.
    """

    #: The runtime's name, as in its :class:`RuntimeSpec`.
    name: str

    @abc.abstractmethod
    def device(self) -> str:
        """A one-line description of the device, for ``dspk info``."""

    @abc.abstractmethod
    def fingerprint(self) -> Mapping[str, str]:
        """What identifies the device for the tuning cache.

        Model, driver and library versions; never a device index, so that a
        cache stays valid when devices are renumbered.
        """

    @abc.abstractmethod
    def variants(self, op: str) -> Sequence[Variant]:
        """The kernels of an operation, the default (used untuned) first.

        An empty sequence means the runtime does not implement ``op``.

        Parameters
        ----------
        op : str
            The operation's name, such as ``"sosfilt"``.
        """

    def asarray(self, x: np.ndarray) -> Any:
        """Move a NumPy array to the runtime's native array type.

        Parameters
        ----------
        x : ndarray
            The array on the host.
        """
        return x

    def max_array_bytes(self) -> int | None:
        """The largest array one kernel call takes, in bytes; None for no limit.

        The core cuts larger host inputs into pieces (see :mod:`dspk.pieces`)
        and never calls :meth:`asarray` on them whole.
        """
        return None

    def takes_complex(self, op: str) -> bool:
        """Whether ``op``'s kernels take complex signals: a complex64 or complex128 ``x``
        (and ``zi``), its coefficients in ``x``'s dtype with zero imaginary parts, its
        results complex. False by default: the core then filters the real and imaginary
        parts as twice the channels (:mod:`dspk.complex_signals`), and only runtimes
        whose kernels gain from reading complex data themselves say True (the core
        asks it of ``"sosfilt"`` and ``"lfilter"``, and of ``"sosfiltfilt"`` and
        ``"filtfilt"`` for complex coefficients only: a complex signal with real ones is
        filtered by its parts). A variant that cannot multiply by complex coefficients
        refuses the problems marked ``coefficients="complex"`` (``Variant.supports``).

        Parameters
        ----------
        op : str
            The operation's name, such as ``"sosfilt"``.
        """
        return False

    def causal_filter(self, op: str, coefficients: tuple, zi: Any,
                      variant: str) -> CausalFilter | None:
        """A one-pass filter that keeps its state between calls, for the causal streams
        (:class:`dspk.streaming.SosfiltStream`, :class:`dspk.streaming.LfilterStream`);
        None by default, and the streams then call ``op`` with ``zi`` for each chunk.

        A stream pushes chunks of a few samples in real-time loops, where checking
        the arguments, choosing a variant and laying the state out again for each
        chunk cost more than filtering it: a runtime may hand the stream a filter that
        skips all three (the cpu runtime's keeps its numba kernel's state layout).
        Its results are those of ``op`` over the whole signal.

        Parameters
        ----------
        op : str
            ``"sosfilt"`` or ``"lfilter"``.
        coefficients : tuple of native arrays
            ``(sos,)`` or ``(b, a)``, normalised (``a[0] == 1``, ``b`` and ``a`` of one
            length), of the working dtype, real.
        zi : native array
            The state to start from, of the working dtype, as the operation's
            variants take it: ``(n_sections, channels, 2)`` or ``(channels, order)``.
        variant : str
            The name of the variant the operation's tuner chose for the stream's
            first chunk: the kept filter computes as that variant does, so that
            the stream's results are the operation's (None where it has no such
            filter).

        Returns
        -------
        CausalFilter or None
        """
        return None

    def computes(self, dtype: Any) -> bool:
        """Whether the kernels compute in ``dtype`` (float32 and float64, and complex64
        and complex128 for the FFTs, by default).

        A call whose runtime comes from the default order passes over a runtime
        that does not compute its input's dtype (see :func:`dspk.runtime.current`).

        Parameters
        ----------
        dtype : numpy.dtype
            The dtype asked about.
        """
        return True

    def to_numpy(self, x: Any) -> np.ndarray:
        """Bring a native array back to NumPy.

        Parameters
        ----------
        x : native array
            The array on the device.
        """
        return np.asarray(x)

    def is_native(self, x: Any) -> bool:
        """Whether ``x`` is already the runtime's native array type.

        Parameters
        ----------
        x : object
            The array asked about.
        """
        return isinstance(x, np.ndarray)

    def from_dlpack(self, x: Any) -> Any | None:
        """Another library's array in this runtime's device memory (a torch CUDA tensor
        on a CUDA runtime) as a native array over the same memory; None, the default,
        where the runtime cannot take it so: the call then reads a host copy.

        Parameters
        ----------
        x : object
            An array that speaks DLPack (``__dlpack__`` and ``__dlpack_device__``).
        """
        return None

    def prepare(self, variant: Variant, problem: Problem) -> None:
        """Compile or warm up a kernel ahead of timing.

        By default, calls it once on a small input of the problem's dtype,
        layout and parameters (at most 2 channels of 1024 samples, the
        catalogue's example arguments as native arrays), then :meth:`wait`.

        Parameters
        ----------
        variant : Variant
            The kernel to prepare.
        problem : Problem
            The problem it is about to be timed on.
        """
        from dspk.operations import OPERATIONS

        operation = OPERATIONS[problem.op]
        small = Problem(problem.op, problem.dtype, min(problem.channels, 2), 1024,
                        problem.layout, problem.params)
        operation.call(variant, operation.device_args(self, small, np.random.default_rng(0)))
        self.wait()

    def prepare_all(self, pairs: Sequence[tuple[Variant, Problem]],
                    advance: Callable[[int], Any]) -> None:
        """Prepare many kernels: ``dspk autotune``'s first phase, before any timing.

        By default :meth:`prepare` on each pair in turn. A runtime whose builds can
        run side by side overrides it (the cpu runtime builds its numba kernels in
        one process per core).

        Parameters
        ----------
        pairs : sequence of (Variant, Problem)
            The kernels and the problems they are about to be timed on.
        advance : callable
            Called with the number of pairs prepared since its last call (the
            progress bar's update).
        """
        for variant, problem in pairs:
            self.prepare(variant, problem)
            advance(1)

    def wait(self) -> None:  # noqa: B027 (a no-op default that runtimes may override)
        """Block until the work submitted to the device is done; nothing by default.

        ``dspk bench`` calls it after each timed call of an operation, of a
        runtime's peer (:meth:`bench_peers`) and of a device copy
        (:meth:`bench_copy`).
        """

    def bench_peers(self) -> Mapping[str, tuple[str, Callable[[Any], Any]]]:
        """The runtime's own peers for ``dspk bench``, by bench case; none by default.

        ``dspk bench`` times each operation beside a *peer*, the call a user
        would otherwise make. Without a peer from the runtime it is the
        scipy.signal (or scipy.fft) call on a host copy of the input. A GPU
        runtime supplies the library its users would otherwise call on the
        device (cupyx.scipy.signal for cuda); the bench then times that peer
        on the same native array as dspk, calling :meth:`wait` after each
        call, and labels the row with the peer's name.

        Returns
        -------
        mapping of str to (str, callable)
            Bench case name (see ``dspk.bench.case_names()``, such as
            ``"sosfilt"`` or ``"oaconvolve-129"``) to ``(label, peer)``:
            ``label`` names the peer in the table (such as ``"cupyx"``) and
            ``peer(x)`` computes the case on ``x``, the native channels x
            samples array (samples x channels for ``"sosfilt-axis0"``),
            returning its result on the device. The cases' coefficients
            are ``dspk.bench.design()``, welch's segment length
            ``dspk.bench.segment(x)``.

        Examples
        --------
        >>> class Toy(Backend):
        ...     def device(self): return "toy"
        ...     def fingerprint(self): return {}
        ...     def variants(self, op): return []
        >>> Toy().bench_peers()
        {}
        """
        return {}

    def bench_copy(self, x: Any) -> Any:
        """Copy a native array on the device, for ``dspk bench``'s floor; None by default.

        ``dspk bench`` reports dspk's bandwidth as a fraction of a memory copy
        of the same size. A runtime that returns a copy here has that floor
        measured on its device (the copy timed with :meth:`wait` after each
        call); with None, the default, the bench uses the host's copy
        bandwidth.

        Parameters
        ----------
        x : native array
            The bench's input, as :meth:`asarray` returned it.

        Returns
        -------
        native array or None
            A copy of ``x`` made on the device, or None when the runtime
            has no device copy to measure.
        """
        return None

    def time(self, call: Callable[[], Any], repeat: int) -> list[float]:
        """Seconds per run of ``call``, ``repeat`` times, after one warm-up.

        The default uses :func:`time.perf_counter`; a GPU backend overrides
        it to synchronise the device or read events.

        Parameters
        ----------
        call : callable
            Runs the kernel once, without arguments.
        repeat : int
            How many timed runs.
        """
        call()
        seconds = []
        for _ in range(repeat):
            start = time.perf_counter()
            call()
            seconds.append(time.perf_counter() - start)
        return seconds
