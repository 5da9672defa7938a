"""Shared fixtures: the runtimes under test, and a private tuning cache.

Every installed runtime is tested. One that cannot open a device here is
skipped with the probe's reason, unless ``DSPK_REQUIRE_RUNTIMES`` (a
comma-separated list) names it: then the test fails.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import dspk
from dspk.plugin import Problem
from dspk.registry import registry


# The test plugins are installed by test_plugins.py into temporary folders;
# importing them from the source tree would make them visible to every test.
collect_ignore = ["plugins"]


def required_runtimes() -> list[str]:
    return [n.strip() for n in os.environ.get("DSPK_REQUIRE_RUNTIMES", "").split(",") if n.strip()]


def runtimes_under_test() -> list[str]:
    return list(dict.fromkeys(dspk.runtime.available() + required_runtimes()))


def open_backend(name: str):
    """The runtime's backend, or a skip (a failure when required) with the reason."""
    if name not in dspk.runtime.available():
        pytest.fail(f"DSPK_REQUIRE_RUNTIMES names {name!r}, which is not installed")
    opened = registry().probe(name)
    if opened.backend is None:
        if name in required_runtimes():
            pytest.fail(f"required runtime {name!r} cannot open a device: {opened.reason}")
        pytest.skip(f"runtime {name!r} cannot open a device here: {opened.reason}")
    return opened.backend


def variant_params(op: str, **problem_params) -> list:
    """(runtime, variant) pairs for every variant of ``op`` on every runtime under test.

    With ``problem_params`` (such as ``method="fft"``), only the variants that
    support a problem with those parameters.
    """
    problem = Problem.make(op, "float64", 1, 1, "channel-major", **problem_params)
    params = []
    for name in runtimes_under_test():
        opened = registry().probe(name) if name in dspk.runtime.available() else None
        if opened is None or opened.backend is None:
            params.append(pytest.param(name, None, id=f"{name}"))
            continue
        for variant in opened.backend.variants(op):
            if problem_params and not variant.supports(problem):
                continue
            params.append(pytest.param(name, variant.name, id=f"{name}-{variant.name}"))
    return params


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Each test session tunes into its own cache directory, never the user's."""
    monkeypatch.setenv("DSPK_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "dspk-cache"))


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def rel_l2(actual, expected) -> float:
    """Relative L2 error of ``actual`` against the float64 ``expected``."""
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert np.all(np.isfinite(actual)), "non-finite output"
    return float(np.linalg.norm(actual - expected) / max(np.linalg.norm(expected), 1e-300))


#: Relative L2 error allowed against scipy in float64.
TOLERANCE = {np.float32: 1e-4, np.float64: 1e-10}
