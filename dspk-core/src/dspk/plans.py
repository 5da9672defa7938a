"""Call plans: what a repeat call with the same arguments' kind skips.

A small call spends most of its time deciding, not computing: checking its
arguments, resolving its runtime, casting coefficients, choosing a kernel
variant. For a signal of the same type, dtype, shape and strides, the same
other arguments (coefficients by value) and the same context (the registry,
:func:`dspk.runtime.using` and :func:`dspk.runtime.set`, the variables that
choose a runtime, the tuning mode and its cache), every one of those decisions
comes out the same, so an operation keeps them in a :class:`Plan` and the next
such call runs its kernel at once.

Only NumPy signals up to :data:`MAX_BYTES` have plans: a larger call's
decisions are a small part of its time, and it may run in pieces. A call under
:func:`dspk.tuning.tuner.forced_variant` has none. Plans are forgotten in a
forked child, whose devices may not open, and when the tuner forgets a choice.

Examples
--------
>>> import numpy as np, dspk
>>> x = np.random.default_rng(0).standard_normal((4, 64))
>>> key("sosfilt", x, -1, [[1.0, 0.0, 0.0, 1.0, -0.5, 0.0]]) is not None
True
>>> key("sosfilt", x.astype(">f8"), -1, [[1.0, 0.0, 0.0, 1.0, -0.5, 0.0]]) is None
True
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from dspk import environment, runtime
from dspk.dispatch import Call
from dspk.operations import OPERATIONS
from dspk.plugin import KernelNotReady, Problem, deferring
from dspk.registry import registry
from dspk.tuning import tuner

#: The largest signal, in bytes, whose calls keep a plan.
MAX_BYTES = 1 << 20
#: Plans kept at most; past it they are all forgotten and made again as met.
MAX_PLANS = 512
#: The variables a call's runtime and kernel choice read.
VARIABLES = ("DSPK_RUNTIME", "DSPK_TUNING", "DSPK_CACHE_DIR", "XDG_CACHE_HOME", "HOME")
_variables = environment.reader(VARIABLES)


class Plan:
    """One kind of call's decisions: its runtime, kernel problem and settings.

    Parameters
    ----------
    call : dspk.dispatch.Call
        The call's runtime and how results go back.
    problem : dspk.plugin.Problem
        The kernel problem the call runs.
    settings : tuple
        What the operation's checks decided, in the operation's own order.
    as_is : bool
        Whether the kernel takes the call's signal as it came and its result goes back
        as it is (:func:`as_is`): a repeat call may then skip the views and casts.
    """

    __slots__ = ("call", "problem", "settings", "as_is", "_kernel", "_ran")

    def __init__(self, call: Call, problem: Problem, settings: tuple, as_is: bool = False):
        self.call, self.problem, self.settings, self.as_is = call, problem, settings, as_is
        #: The tuner's settled variant as a function of the kernel arguments in
        #: calling order, once a run has shown it (None before).
        self._kernel: Callable[..., Any] | None = None
        #: Whether that kernel has run: built, it can no longer be not ready.
        self._ran = False

    def run(self, *args: Any) -> Any:
        """Run the kernel on ``args``: the settled variant at once, where there is one.

        Otherwise, and when that variant's kernel is not ready, the call goes
        through :meth:`dspk.dispatch.Call.run` (the tuner's choice).
        """
        kernel = self._kernel
        if kernel is not None:
            if self._ran:
                return kernel(*args)
            with deferring():
                try:
                    result = kernel(*args)
                except KernelNotReady:
                    self._kernel = None
                else:
                    self._ran = True
                    return result
        result = self.call.run(self.problem, *args)
        variant = tuner.settled(self.call.backend, self.problem)
        if variant is not None:
            self._kernel = OPERATIONS[self.problem.op].caller(variant)
        return result


def as_is(call: Call, x: Any, taken: Any, *dtypes: np.dtype) -> bool:
    """Whether a call's signal ``x`` is its kernel's signal and the kernel's result is the
    caller's: ``x`` taken as it came, 2-D, native to the runtime, and of each of
    ``dtypes`` (the kernel's, the result's where the operation casts it).

    Examples
    --------
    >>> x = np.zeros((2, 8), np.float32)
    >>> call, taken = Call.start("cpu", x, "x", "sosfilt")
    >>> as_is(call, x, taken, x.dtype), as_is(call, x, taken, x.dtype, np.float64)
    (True, False)
    """
    return (taken is x and call.native_in and x.ndim == 2
            and all(x.dtype == dtype for dtype in dtypes))


_plans: dict[tuple, Plan] = {}
if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_plans.clear)


def key(name: str, x: Any, *arguments: Any) -> tuple | None:
    """The plan key of a call of ``name`` on signal ``x`` with other ``arguments``.

    Arrays among ``arguments`` (coefficients) count by value. None where the
    call cannot have a plan: ``x`` is not a NumPy array in native byte order up
    to :data:`MAX_BYTES`, an argument is not plain data, or a variant is forced.
    """
    if type(x) is not np.ndarray or tuner.forcing():  # (flags.num below: alignment and
        # write access, which kernels may be compiled for)
        return None
    dtype = x.dtype
    if x.nbytes > MAX_BYTES or not dtype.isnative:
        return None
    parts = [name, dtype, x.shape, x.strides, x.flags.num, registry(), runtime.selection(),
             tuner.generation(), _variables()]
    # One loop, no helper per argument, appends rather than tuples (a small call's
    # microseconds). Each argument adds a type and its value, or an array's dtype (not a
    # type), shape and bytes: unambiguous.
    append = parts.append
    for argument in arguments:
        kind = type(argument)
        if kind in _SCALARS:
            append(kind)  # with the type, as 1, 1.0 and True are equal
            append(argument)
            continue
        if kind is not np.ndarray:
            if kind not in (list, tuple):
                return None
            try:
                argument = np.asarray(argument)
            except (TypeError, ValueError):
                return None
        values = argument.dtype
        if values.kind not in "biuf":
            return None
        append(values)
        append(argument.shape)
        append(argument.tobytes())
    return tuple(parts)


#: The argument types that count in a key as they are.
_SCALARS = frozenset({int, float, bool, str, type(None), type, *(
    type(np.dtype(name)) for name in ("float32", "float64", "int16"))})


def find(plan_key: tuple | None) -> Plan | None:
    """The plan kept under ``plan_key``, if any."""
    return None if plan_key is None else _plans.get(plan_key)


def keep(plan_key: tuple | None, plan: Plan, taken: bool) -> Plan:
    """Keep ``plan`` under ``plan_key`` where the call took its signal as it came
    (``taken``: no conversion a repeat call would have to make again)."""
    if plan_key is not None and taken:
        if len(_plans) >= MAX_PLANS:
            _plans.clear()
        _plans[plan_key] = plan
    return plan
