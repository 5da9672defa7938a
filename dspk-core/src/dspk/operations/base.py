"""What the catalogue is made of: :class:`Operation`, :class:`Pieces` and helpers for
example inputs and kernel arguments."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from dspk.plugin import Backend, Problem, Variant


def bucket(n: int) -> int:
    """The power of two at or above ``n``: sizes that tune alike share a key.

    Examples
    --------
    >>> [bucket(n) for n in (1, 3, 4, 129)]
    [1, 4, 4, 256]
    """
    return 1 << max(int(n) - 1, 0).bit_length()


_last_signal: dict[tuple, np.ndarray] = {}


def random_signal(problem: Problem, rng: np.random.Generator) -> np.ndarray:
    """A random 2-D signal of the problem's size, dtype and layout (time axis 1 or 0).

    The last two drawn are kept and given again for the same size, dtype and
    layout: tuning every operation at one size draws the data once, although
    compiling each variant (``Backend.prepare``) draws a small one in between.
    Kernels never write their inputs.

    Examples
    --------
    >>> p = Problem.make("sosfilt", "float32", 3, 10, "sample-major")
    >>> random_signal(p, np.random.default_rng(0)).shape
    (10, 3)
    """
    key = (problem.channels, problem.samples, problem.dtype, problem.layout)
    if key in _last_signal:
        _last_signal[key] = _last_signal.pop(key)  # the most recent
    else:
        while len(_last_signal) >= 2:
            del _last_signal[next(iter(_last_signal))]
        shape = ((problem.samples, problem.channels) if problem.layout == "sample-major"
                 else (problem.channels, problem.samples))
        # Drawn in its own dtype and layout: seconds less at the grid's largest sizes (a
        # complex signal as pairs of its real dtype).
        dtype = np.dtype(problem.dtype)
        if dtype.kind == "c":
            pairs = rng.standard_normal((*shape, 2), dtype=np.finfo(dtype).dtype)
            _last_signal[key] = pairs.view(dtype)[..., 0]
        else:
            _last_signal[key] = rng.standard_normal(shape, dtype=dtype)
    return _last_signal[key]


def time_axis(problem: Problem) -> int:
    """The time axis of :func:`random_signal`'s array."""
    return 0 if problem.layout == "sample-major" else 1


def device_args(backend: Backend, dtype: Any, args: Any) -> list:
    """Kernel arguments as calls pass them: host arrays of the problem's ``dtype`` (or
    its complex counterpart), the data, as the backend's arrays; float64 parameters
    (means, shifts) and everything else as they are."""
    data = (np.dtype(dtype), np.result_type(dtype, np.complex64))
    return [backend.asarray(np.ascontiguousarray(a)) if isinstance(a, np.ndarray)
            and a.dtype in data and not backend.is_native(a) else a for a in args]


#: The channel axis of a 2-D signal (or of the first two axes of a 3-D result
#: that mirrors it): the axis that is not the time axis.
OTHER = "other"


@dataclass(frozen=True)
class Pieces:
    """How one kernel operation splits into calls on smaller arrays (see :mod:`dspk.pieces`).

    Parameters
    ----------
    along : str
        ``"channels"``, ``"time"`` or ``"host"``.
    signals : mapping of int to int or str
        Positions of the signal arguments, each with its channel axis
        (:data:`OTHER` for ``1 - axis``); the first is the one measured.
    axis : int or None
        Position of the time-axis argument (None: the signals are
        channel-major 3-D stacks, channels first).
    per_channel : mapping of int to int or str
        Other arguments with a channel axis (None values pass as they are;
        an axis of size 1 is broadcast and passes whole).
    results : tuple of int, str
        For each result: its channel axis (along channels), ``"time"`` (joined
        along the time axis) or ``"weighted-mean"`` (along time).
    carries_state : int or None
        Position of ``zi`` when the kernel returns ``(y, zf)`` and a long
        channel may be cut along time with the state carried.
    on_host : callable or None
        For ``along="host"``: the kernel's result from its host arguments.
    """

    along: str
    signals: Mapping[int, Any]
    axis: int | None
    per_channel: Mapping[int, Any] = field(default_factory=dict)
    results: tuple = (OTHER,)
    carries_state: int | None = None
    on_host: Callable[..., Any] | None = None


@dataclass(frozen=True)
class Operation:
    """A kernel operation: its calling convention, and what the tuner needs of it.

    Kernels are called by keyword, with the names of ``signature``. The core
    has checked and normalised every argument before, so a kernel sees only
    well-formed input: ``x`` is a 2-D native array whose time axis is
    ``axis`` (0 or 1, either memory order, maybe strided); coefficients are
    native arrays of ``x``'s dtype; ``sos[:, 3] == 1`` and ``a[0] == 1``;
    ``b`` and ``a`` have one length ``K``; ``C`` is the size of the non-time
    axis.

    Parameters
    ----------
    name : str
        Such as ``"sosfilt"``.
    grid_params : tuple of dict
        The parameter sets that :func:`dspk.runtime.autotune` tunes.
    example_args : callable
        ``example_args(problem, rng)``: NumPy arguments to time kernels on,
        in the order of ``signature``; arrays of the problem's dtype are data,
        float64 arrays are parameters that calls keep on the host (means,
        shifts).
    pieces : Pieces or None
        How a call on an input too large for a device splits into calls on
        smaller ones; None when it cannot.
    signature : str
        ``"inputs -> results"``, such as ``"sos, x, axis, zi -> y, zf"``.
    description : str
        What a kernel computes and what its arguments hold, beyond the
        normalisation above.
    writes : tuple of str
        The arguments a kernel may write; none (kernels never write their
        inputs, and the conformance kit checks it).
    version : int
        The version of this calling convention; it rises when the convention
        changes, and a :class:`~dspk.plugin.Variant` of another version is
        passed over, for this operation only.
    """

    name: str
    grid_params: tuple[dict, ...]
    example_args: Callable[[Problem, np.random.Generator], tuple]
    pieces: Pieces | None = None
    signature: str = field(kw_only=True)
    description: str = field(kw_only=True)
    writes: tuple[str, ...] = field(default=(), kw_only=True)
    version: int = field(default=1, kw_only=True)

    @cached_property
    def inputs(self) -> tuple[str, ...]:
        """The argument names, in calling order (parsed once: every call reads them).

        Examples
        --------
        >>> from dspk.operations import OPERATIONS
        >>> OPERATIONS["sosfilt"].inputs
        ('sos', 'x', 'axis', 'zi')
        """
        return tuple(self.signature.split(" -> ")[0].split(", "))

    @property
    def results(self) -> tuple[str, ...]:
        """The result names: one, or a tuple's."""
        return tuple(self.signature.split(" -> ")[1].split(", "))

    def call(self, variant: Variant, args: Sequence[Any]) -> Any:
        """Run ``variant`` on ``args`` (in calling order), by keyword.

        Parameters
        ----------
        variant : dspk.plugin.Variant
            A kernel of this operation.
        args : sequence
            The arguments, in the order of :attr:`inputs`.

        Returns
        -------
        object
            What the kernel returns.
        """
        return variant.run(**dict(zip(self.inputs, args)))

    def caller(self, variant: Variant) -> Callable[..., Any]:
        """``variant``'s kernel as a function of the arguments in calling order.

        The kernel itself where its parameters come in that order (a call by
        position costs a microsecond less than one by keyword), else a function
        that calls it by keyword.

        Parameters
        ----------
        variant : dspk.plugin.Variant
            A kernel of this operation.

        Returns
        -------
        callable
            ``f(*args)``, the arguments in the order of :attr:`inputs`.

        Examples
        --------
        >>> from dspk.operations import OPERATIONS
        >>> kernel = lambda sos, x, axis, zi: "ran"
        >>> OPERATIONS["sosfilt"].caller(Variant("v", kernel, "0")) is kernel
        True
        """
        try:
            parameters = list(inspect.signature(variant.run).parameters.values())
        except (TypeError, ValueError):  # a builtin without a signature
            parameters = []
        if ([p.name for p in parameters[:len(self.inputs)]] == list(self.inputs)
                and all(p.kind is p.POSITIONAL_OR_KEYWORD for p in parameters[:len(self.inputs)])
                and all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                        for p in parameters[len(self.inputs):])):
            return variant.run
        return lambda *args: self.call(variant, args)

    def device_args(self, backend, problem: Problem, rng: np.random.Generator) -> tuple:
        """:attr:`example_args` as calls pass them to ``backend``: data as its native
        arrays, float64 parameters and everything else as they are.

        Parameters
        ----------
        backend : dspk.plugin.Backend
            The backend whose arrays the data become.
        problem : dspk.plugin.Problem
            The problem to make example arguments for.
        rng : numpy.random.Generator
            The source of the example data.

        Examples
        --------
        >>> from dspk.operations import OPERATIONS
        >>> from dspk.registry import registry
        >>> cpu = registry().probe("cpu").backend
        >>> p = Problem.make("sosfilt", "float32", 2, 64, "channel-major", sections=2)
        >>> [type(a).__name__ for a in OPERATIONS["sosfilt"].device_args(
        ...     cpu, p, np.random.default_rng(0))]
        ['ndarray', 'ndarray', 'int', 'NoneType']
        """
        return tuple(device_args(backend, problem.dtype, self.example_args(problem, rng)))
