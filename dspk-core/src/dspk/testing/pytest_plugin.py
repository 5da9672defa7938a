"""The pytest plugin of the conformance suite.

Load it with ``-p dspk.testing.pytest_plugin`` (or ``pytest_plugins`` in a root
``conftest.py``). It adds the option ``--dspk-runtime NAME``, which restricts
the runtimes under test, the suite's fixtures (``rng``, and a private tuning
cache for every test), and turns a call of an operation that a runtime does
not implement into a skip that names both, listed again at the end of the run.
A call with data of a dtype the runtime does not compute in
(:class:`dspk.plugin.UnsupportedDtype`) is skipped with the runtime's reason.

It registers the markers ``pairwise`` and ``exhaustive`` and adds the option
``--exhaustive``: of a test marked ``pairwise``, the combinations of its
parameters outside a pairwise selection (:func:`dspk.testing.pairwise`) are
marked ``exhaustive``; tests marked ``exhaustive`` are deselected unless
``--exhaustive`` is given or ``-m`` names the marker (``-m exhaustive``: only
them).
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest

from dspk import testing
from dspk.plugin import UnsupportedDtype


def pytest_addoption(parser):
    group = parser.getgroup("dspk")
    group.addoption(
        "--dspk-runtime", action="append", default=[], metavar="NAME",
        help="test only this dspk runtime (repeatable); it must open a device here")
    group.addoption(
        "--exhaustive", action="store_true",
        help="run every combination of the tests marked pairwise, and the tests marked "
             "exhaustive (-m exhaustive: only those the default run leaves out)")


def pytest_configure(config):
    testing.select(config.getoption("dspk_runtime"))
    config.addinivalue_line(
        "markers", "pairwise: by default, run a pairwise selection of the combinations of "
                   "this test's parameters; the others are marked exhaustive")
    config.addinivalue_line(
        "markers", "exhaustive: run only with --exhaustive or -m exhaustive")


def pytest_unconfigure(config):
    testing.select([])


def _combination(item) -> tuple:
    """``item``'s values, one entry per parameter list (parametrize mark or fixture params).

    Values are told apart by identity: each test of a parametrized function
    gets the very objects of the parameter lists.
    """
    lists, named = [], set()
    for mark in item.iter_markers("parametrize"):
        argnames = mark.args[0] if mark.args else mark.kwargs["argnames"]
        if isinstance(argnames, str):
            argnames = [name.strip() for name in argnames.split(",") if name.strip()]
        lists.append(tuple(argnames))
        named.update(argnames)
    lists += [(name,) for name in item.callspec.params if name not in named]
    return tuple(tuple(id(item.callspec.params[name]) for name in names) for names in lists)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    products = defaultdict(list)
    for item in items:
        if item.get_closest_marker("pairwise") and hasattr(item, "callspec"):
            products[item.nodeid.partition("[")[0]].append(item)
    for combinations in products.values():
        rows = [_combination(item) for item in combinations]
        if len(rows) < math.prod(len(set(column)) for column in zip(*rows)):
            continue  # some combinations picked by name: run those
        chosen = set(testing.pairwise(rows))
        for index, item in enumerate(combinations):
            if index not in chosen:
                item.add_marker(pytest.mark.exhaustive)
    if config.getoption("exhaustive") or "exhaustive" in (config.getoption("markexpr") or ""):
        return
    left = [item for item in items if item.get_closest_marker("exhaustive")]
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = [item for item in items if not item.get_closest_marker("exhaustive")]


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Each test session tunes into its own cache directory, never the user's."""
    monkeypatch.setenv("DSPK_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "dspk-cache"))


@pytest.fixture
def rng():
    """A NumPy generator with a fixed seed."""
    return np.random.default_rng(12345)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    try:
        return (yield)
    except UnsupportedDtype as error:
        pytest.skip(str(error))
    except NotImplementedError as error:
        reason = testing.unimplemented(error)
        if reason is None:
            raise
        pytest.skip(reason)


def pytest_terminal_summary(terminalreporter):
    missing: dict[str, set[str]] = {}
    for report in terminalreporter.stats.get("skipped", []):
        found = testing.NOT_IMPLEMENTED.search(str(report.longrepr))
        if found:
            missing.setdefault(found["runtime"], set()).add(found["op"])
    for name, ops in missing.items():
        terminalreporter.write_line(
            f"dspk: runtime {name!r} does not implement: {', '.join(sorted(ops))}")
