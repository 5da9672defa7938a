"""Conformance: no kernel writes its inputs, and tuning never changes a result.

Every variant of every kernel operation runs on the catalogue's example
arguments (:attr:`dspk.operations.Operation.example_args`, on the device as
the tuner times on them, with an initial state where the operation takes
one); each array argument must come out as it went in. Then a first call at a size new to the
tuning cache, which times every variant on
the caller's own arguments, must give what a later call gives on a fresh copy
of them.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from dspk.operations import OPERATIONS, variants_of
from dspk.operations.base import device_args
from dspk.plugin import Problem
from dspk.testing import TOLERANCE, not_implemented_reason, open_backend, runtimes_under_test
from dspk.tuning import tuner

# A size of its own, so that the first call of each test tunes.
CHANNELS, SAMPLES = 6, 1229


#: The shape of the initial state ``zi`` of the operations that take one, from
#: their example arguments (the calling conventions of :mod:`dspk.plugin`).
STATES = {
    "sosfilt": lambda args: (len(args[0]), CHANNELS, 2),
    "lfilter": lambda args: (CHANNELS, len(args[1]) - 1),
}


def _problem(op: str, dtype: str) -> Problem:
    params = (OPERATIONS[op].grid_params or ({},))[0]
    return Problem.make(op, dtype, CHANNELS, SAMPLES, "channel-major", **params)


def _host(backend, values) -> list:
    """Each argument as a host copy (arrays) or as it is."""
    return [np.array(backend.to_numpy(v)) if backend.is_native(v)
            else v.copy() if isinstance(v, np.ndarray) else v for v in values]


def _outputs(backend, result) -> list[np.ndarray]:
    results = result if isinstance(result, tuple) else (result,)
    return [np.asarray(backend.to_numpy(r) if backend.is_native(r) else r)
            for r in results if r is not None]


@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", sorted(OPERATIONS))
@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_kernels_leave_inputs_alone_and_tuning_changes_nothing(runtime, op, dtype, rng,
                                                               tmp_path, monkeypatch):
    backend = open_backend(runtime)
    if not variants_of(backend, op):
        pytest.skip(not_implemented_reason(runtime, op))
    if not backend.computes(np.dtype(dtype)):
        pytest.skip(f"runtime {runtime!r} does not compute {dtype}")
    problem = _problem(op, dtype)
    operation = OPERATIONS[op]
    variants = [v for v in variants_of(backend, op) if v.supports(problem)]
    given = list(OPERATIONS[op].example_args(problem, rng))
    if op in STATES:  # start from a state: a final state written into it shows
        given[-1] = rng.standard_normal(STATES[op](given)).astype(dtype)
    host = _host(backend, given)  # copies, to compare with and to call again on
    args = device_args(backend, problem.dtype, given)
    for variant in variants:
        backend.prepare(variant, problem)
        operation.call(variant, args)
        for name, now, then in zip(operation.inputs, _host(backend, args), host):
            if isinstance(then, np.ndarray) and name not in operation.writes:
                assert np.array_equal(now, then, equal_nan=then.dtype.kind in "fc"), (
                    f"variant {variant.name!r} of {op} on {runtime!r} wrote its argument "
                    f"{name!r}")

    monkeypatch.setenv("DSPK_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("DSPK_TUNING", "on")
    first = _outputs(backend, operation.call(tuner.choose(backend, problem, args), args))
    fresh = device_args(backend, problem.dtype, _host(backend, host))
    later = _outputs(backend, operation.call(tuner.choose(backend, problem, fresh), fresh))
    tolerance = TOLERANCE[np.dtype(dtype).type]
    for a, b in zip(first, later):
        scale = max(float(np.linalg.norm(b.astype(np.complex128))), 1e-30)
        assert float(np.linalg.norm((a - b).astype(np.complex128))) <= tolerance * scale, (
            f"{op} on {runtime!r}: the first (tuning) call differs from a later one")


@pytest.mark.parametrize("op", sorted(OPERATIONS))
@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_kernels_take_their_arguments_by_name(runtime, op):
    """Kernels are called by keyword, with the names of the operation's signature."""
    backend = open_backend(runtime)
    if not variants_of(backend, op):
        pytest.skip(not_implemented_reason(runtime, op))
    names = dict.fromkeys(OPERATIONS[op].inputs)
    for variant in variants_of(backend, op):
        try:
            inspect.signature(variant.run).bind(**names)
        except TypeError as error:
            pytest.fail(f"variant {variant.name!r} of {op} on {runtime!r} does not take the "
                        f"arguments {', '.join(names)} by name: {error}")
