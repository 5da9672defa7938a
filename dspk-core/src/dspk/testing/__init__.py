"""The conformance kit: dspk's shared test suite, for any runtime.

Every runtime, dspk's own and third-party ones, must give scipy's results.
The suite in :mod:`dspk.testing.conformance` checks every operation on every
kernel variant of the runtimes under test, against scipy.signal (or a NumPy
reference) in float64, within :data:`TOLERANCE`. A runtime's author runs it
against their runtime from their own tests or CI::

    python -m dspk.testing toy            # or, in Python: dspk.testing.run("toy")
    pytest --pyargs dspk.testing.conformance -p dspk.testing.pytest_plugin --dspk-runtime toy

An operation the runtime does not implement (its ``Backend.variants(op)`` is
empty) has its tests skipped with a reason that names the runtime and the
operation, and the run ends with a list of them. The suite needs pytest.

Which runtimes are under test
-----------------------------
By default every installed runtime (:func:`dspk.runtime.available`). The
pytest option ``--dspk-runtime NAME`` (repeatable) restricts the run to the
runtimes named; other runtimes are never opened. A runtime that cannot open a
device here has its tests skipped with the probe's reason, unless it is
required: named by ``--dspk-runtime`` or by the environment variable
``DSPK_REQUIRE_RUNTIMES`` (comma-separated), when its tests fail instead.

The default set and the exhaustive set
--------------------------------------
A test marked ``pairwise`` is a product of parameter lists (runtime and
variant, dtype, shapes and axes, memory order, options). By default only a
subset of its combinations runs, chosen by :func:`pairwise`: every value of
every parameter, and every pair of values of two parameters, appears in at
least one test that runs. The other combinations are marked ``exhaustive``
and deselected; ``--exhaustive`` runs them too, and ``-m exhaustive`` runs
only them. A test marked ``exhaustive`` by hand runs only with those options.

Examples
--------
>>> import numpy as np
>>> from dspk.testing import TOLERANCE, rel_l2
>>> rel_l2(np.float32([1.0, 2.0]), [1.0, 2.0]) <= TOLERANCE[np.float32]
True
"""

from __future__ import annotations

import itertools
import os
import re
import sys
from collections import defaultdict
from collections.abc import Hashable, Sequence

import numpy as np
import pytest

import dspk
from dspk.operations import OPERATIONS, variants_of
from dspk.plugin import Backend, OperationNotImplemented, Problem
from dspk.registry import registry

__all__ = ["NOT_IMPLEMENTED", "PYTEST_PLUGIN", "TOLERANCE", "assert_variants_agree",
           "not_implemented_reason", "open_backend", "pairwise", "rel_l2", "required_runtimes",
           "run", "runtimes_under_test", "select", "unimplemented", "variant_params"]

#: Relative L2 error allowed against the float64 reference, by the input's dtype.
TOLERANCE = {np.float32: 1e-4, np.float64: 1e-10}

#: The pytest plugin that adds ``--dspk-runtime`` and the suite's fixtures.
PYTEST_PLUGIN = "dspk.testing.pytest_plugin"

_selected: list[str] = []


def select(names) -> None:
    """Restrict the runtimes under test to ``names``; an empty list tests every one.

    The pytest plugin calls this with the ``--dspk-runtime`` options.

    Parameters
    ----------
    names : iterable of str
        Runtime names; repeats are dropped.
    """
    _selected[:] = list(dict.fromkeys(names))


def required_runtimes() -> list[str]:
    """Runtimes whose tests fail, not skip, when they cannot open a device.

    Those named by ``--dspk-runtime`` and by ``DSPK_REQUIRE_RUNTIMES``.
    """
    from_environment = os.environ.get("DSPK_REQUIRE_RUNTIMES", "").split(",")
    return list(dict.fromkeys(_selected + [n.strip() for n in from_environment if n.strip()]))


def runtimes_under_test() -> list[str]:
    """The runtimes named by ``--dspk-runtime``, else every installed and required one."""
    if _selected:
        return list(_selected)
    return list(dict.fromkeys(dspk.runtime.available() + required_runtimes()))


def open_backend(name: str) -> Backend:
    """The runtime's backend, or a skip (a failure when required) that says why not.

    Parameters
    ----------
    name : str
        The runtime's name.

    Returns
    -------
    Backend
        The runtime's opened backend.
    """
    if name not in dspk.runtime.available():
        pytest.fail(f"runtime {name!r} is under test but not installed "
                    f"(installed: {', '.join(dspk.runtime.available())})")
    opened = registry().probe(name)
    if opened.backend is None:
        if name in required_runtimes():
            pytest.fail(f"required runtime {name!r} cannot open a device: {opened.reason}")
        pytest.skip(f"runtime {name!r} cannot open a device here: {opened.reason}")
    return opened.backend


#: Matches :func:`not_implemented_reason`'s text, with groups ``runtime`` and ``op``.
NOT_IMPLEMENTED = re.compile(
    r"runtime '(?P<runtime>[a-z][a-z0-9_]*)' does not implement (?P<op>\w+)")


def not_implemented_reason(name: str, op: str) -> str:
    """The skip reason of a test of ``op`` on a runtime without it.

    Parameters
    ----------
    name : str
        The runtime's name.
    op : str
        The kernel operation's name.

    Examples
    --------
    >>> not_implemented_reason("toy", "lfilter")
    "runtime 'toy' does not implement lfilter"
    """
    return f"runtime {name!r} does not implement {op}"


def variant_params(op: str, **problem_params) -> list:
    """``(runtime, variant)`` pytest parameters.

    Every variant of ``op`` on every runtime under test.

    With ``problem_params`` (such as ``method="fft"``), only the variants that
    support a problem with those parameters. A runtime that cannot open a
    device gives ``(runtime, None)``, for :func:`open_backend` to skip or fail;
    one without the operation gives a skipped parameter that says so.

    Parameters
    ----------
    op : str
        The kernel operation's name.
    **problem_params
        Extra parameters of a :class:`~dspk.plugin.Problem` that the
        variants must support.
    """
    problem = Problem.make(op, "float64", 1, 1, "channel-major", **problem_params)
    params = []
    for name in runtimes_under_test():
        opened = registry().probe(name) if name in dspk.runtime.available() else None
        if opened is None or opened.backend is None:
            params.append(pytest.param(name, None, id=name))
            continue
        variants = variants_of(opened.backend, op)
        if not variants:
            params.append(pytest.param(name, None, id=f"{name}-not-implemented", marks=(
                pytest.mark.skip(reason=not_implemented_reason(name, op)))))
        for variant in variants:
            if problem_params and not variant.supports(problem):
                continue
            params.append(pytest.param(name, variant.name, id=f"{name}-{variant.name}"))
    return params


_NO_KERNEL = re.compile(r"runtime '([a-z][a-z0-9_]*)' has no kernel for (\w+)")


def unimplemented(error: NotImplementedError) -> str | None:
    """The skip reason when ``error`` comes of calling an operation a runtime lacks.

    None when the error has another cause, such as a variant that does not
    support a problem: that remains a failure.

    Parameters
    ----------
    error : NotImplementedError
        The error a call raised.
    """
    if isinstance(error, OperationNotImplemented):
        name, op = error.runtime, error.missing[0]
    elif match := _NO_KERNEL.match(str(error)):
        name, op = match.groups()
    else:
        return None
    opened = registry().probe(name)
    if opened.backend is None or variants_of(opened.backend, op):
        return None
    return not_implemented_reason(name, op)


def rel_l2(actual, expected) -> float:
    """Relative L2 error of ``actual`` against the float64 (or complex128) ``expected``.

    Fails the test when the shapes differ, ``actual`` is not finite, or one
    of the two is complex and the other is not.

    Parameters
    ----------
    actual : array_like
        The result checked.
    expected : array_like
        The reference.

    Examples
    --------
    >>> rel_l2([1.0, 2.0], [1.0, 2.0])
    0.0
    >>> rel_l2([1j, 2.0], [0j, 2.0]) > 0.4
    True
    """
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert np.iscomplexobj(actual) == np.iscomplexobj(expected), (actual.dtype, expected.dtype)
    precise = np.complex128 if np.iscomplexobj(expected) else np.float64
    actual, expected = actual.astype(precise), expected.astype(precise)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert np.all(np.isfinite(actual)), "non-finite output"
    return float(np.linalg.norm(actual - expected) / max(np.linalg.norm(expected), 1e-300))


def assert_variants_agree(backend: Backend, op: str, problem: Problem) -> list[str]:
    """Prepare every variant of ``op`` for ``problem`` and check that all give one result.

    What the tuner does before timing: :meth:`~dspk.plugin.Backend.prepare`
    each variant that supports ``problem``. Then each runs on the same example
    arguments (the catalogue's, seeded, as the backend's native arrays), and
    each of its results must be within :data:`TOLERANCE` of the first
    variant's (relative L2 error).

    Parameters
    ----------
    backend : Backend
        The runtime's opened backend.
    op : str
        The kernel operation's name.
    problem : Problem
        The problem to run the variants on.

    Returns
    -------
    list of str
        The names of the variants checked. The test is skipped when the
        runtime lacks ``op`` or does not compute the problem's dtype, and
        fails when none of its variants supports ``problem``.

    Examples
    --------
    >>> from dspk.registry import registry
    >>> cpu = registry().probe("cpu").backend
    >>> problem = Problem.make("common_reference", "float32", 3, 50, "channel-major",
    ...                        operator="median")
    >>> names = assert_variants_agree(cpu, "common_reference", problem)
    >>> names == [variant.name for variant in cpu.variants("common_reference")]
    True
    """
    if not variants_of(backend, op):
        pytest.skip(not_implemented_reason(backend.name, op))
    if not backend.computes(np.dtype(problem.dtype)):
        pytest.skip(f"runtime {backend.name!r} does not compute {problem.dtype}")
    operation = OPERATIONS[op]
    args = operation.device_args(backend, problem, np.random.default_rng(0))
    results = {}
    for variant in variants_of(backend, op):
        if variant.supports(problem):
            backend.prepare(variant, problem)
            got = operation.call(variant, args)
            results[variant.name] = [dspk.to_numpy(r) for r in
                                     (got if isinstance(got, tuple) else (got,)) if r is not None]
    assert results, f"no variant of {op} on {backend.name!r} supports {problem}"
    first, *others = results.items()
    tolerance = TOLERANCE[np.dtype(problem.dtype).type]
    for name, got in others:
        assert len(got) == len(first[1]), (name, first[0])
        for a, b in zip(got, first[1]):
            assert rel_l2(a, b) <= tolerance, f"{op}: variant {name!r} differs from {first[0]!r}"
    return list(results)


def pairwise(rows: Sequence[Sequence[Hashable]]) -> list[int]:
    """Indices of a subset of ``rows`` holding every value and every pair of values they hold.

    Each row gives one value per parameter, in the same order. A pair is the
    values of two parameters in one row. The subset is chosen greedily and
    deterministically: each step takes the first row that adds the most
    values and pairs not yet held.

    Parameters
    ----------
    rows : sequence of sequences
        The combinations, such as the full product of the parameter lists.

    Returns
    -------
    list of int
        The chosen rows' indices, in increasing order.

    Examples
    --------
    >>> import itertools
    >>> rows = list(itertools.product(range(4), "abc", "xy"))
    >>> chosen = pairwise(rows)
    >>> len(rows), len(chosen)
    (24, 12)
    >>> all({(r[i], r[j]) for r in (rows[c] for c in chosen)}
    ...     == {(r[i], r[j]) for r in rows} for i, j in itertools.combinations(range(3), 2))
    True
    """
    held = [{tuple(c) for size in (1, 2) for c in itertools.combinations(enumerate(row), size)}
            for row in rows]
    holders = defaultdict(list)
    for index, features in enumerate(held):
        for feature in features:
            holders[feature].append(index)
    gain = [len(features) for features in held]
    missing = set(holders)
    chosen = []
    while missing:
        best = max(range(len(rows)), key=gain.__getitem__)
        chosen.append(best)
        for feature in held[best] & missing:
            missing.remove(feature)
            for index in holders[feature]:
                gain[index] -= 1
    return sorted(chosen)


def run(runtime: str, *pytest_args: str) -> int:
    """Run the conformance suite on one runtime with pytest; return pytest's exit code.

    Parameters
    ----------
    runtime : str
        The runtime under test, as :func:`dspk.runtime.available` names it.
        It is required: if it cannot open a device, its tests fail.
    *pytest_args : str
        More pytest options, such as ``"-q"``, ``"-x"`` or ``"-k", "sosfilt"``.

    Returns
    -------
    int
        0 when every test passed or was skipped as not implemented.

    Notes
    -----
    Call it from a script or a subprocess, not from inside a running pytest
    session: the suite's modules are imported by the run.
    """
    return int(pytest.main(["--pyargs", "dspk.testing.conformance", "-p", PYTEST_PLUGIN,
                            "-p", "no:cacheprovider", "--dspk-runtime", runtime,
                            *pytest_args]))


def _main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print("usage: python -m dspk.testing RUNTIME [pytest options]", file=sys.stderr)
        return 2
    if argv[0] not in dspk.runtime.available():
        print(f"python -m dspk.testing: {argv[0]!r} is not an installed runtime; installed: "
              f"{', '.join(dspk.runtime.available())}", file=sys.stderr)
        return 2
    return run(argv[0], *argv[1:])
