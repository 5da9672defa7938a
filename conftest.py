"""Settings for every test this repository runs: tests, modules' doctests, docs pages.

Tests and examples that name no runtime run on ``cpu``: the automatic choice
would pick wgpu wherever it opens, on CI's software Vulkan device (lavapipe)
too, and spend minutes there on orchestration (recording files, the command
line, the guides' examples) that is the same on every runtime. Every runtime
is still tested: the conformance suite and the per-runtime tests name each one
in ``runtime=``, and tests of the automatic choice set ``DSPK_RUNTIME``
themselves.

A test that checks warnings (``pytest.warns``, ``recwarn``) starts once no cpu
kernel is compiling in the background: numba swaps the process-wide warning
filters while it compiles, which would let the warning escape the check (see
:mod:`dspk_cpu.compiling`). Other tests go on while kernels compile.
"""

import pytest

from dspk_cpu.compiling import wait_for_builds


@pytest.fixture(autouse=True)
def _cpu_unless_named(monkeypatch):
    monkeypatch.setenv("DSPK_RUNTIME", "cpu")


def pytest_runtest_setup(item):
    function = getattr(item, "function", None)
    checks_warnings = "recwarn" in getattr(item, "fixturenames", ()) or (
        function is not None and "warns" in function.__code__.co_names)
    if checks_warnings:
        wait_for_builds()
