"""The pytest plugin of the conformance suite.

Load it with ``-p dspk.testing.pytest_plugin`` (or ``pytest_plugins`` in a root
``conftest.py``). It adds the option ``--dspk-runtime NAME``, which restricts
the runtimes under test, the suite's fixtures (``rng``, and a private tuning
cache for every test), and turns a call of an operation that a runtime does
not implement into a skip that names both, listed again at the end of the run.
A call with data of a dtype the runtime does not compute in
(:class:`dspk.plugin.UnsupportedDtype`) is skipped with the runtime's reason.
"""

from __future__ import annotations

import numpy as np
import pytest

from dspk import testing
from dspk.plugin import UnsupportedDtype


def pytest_addoption(parser):
    parser.getgroup("dspk").addoption(
        "--dspk-runtime", action="append", default=[], metavar="NAME",
        help="test only this dspk runtime (repeatable); it must open a device here")


def pytest_configure(config):
    testing.select(config.getoption("dspk_runtime"))


def pytest_unconfigure(config):
    testing.select([])


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
