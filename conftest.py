"""Settings for every test this repository runs: tests, modules' doctests, docs pages.

Tests and examples that name no runtime run on ``cpu``: the automatic choice
would pick wgpu wherever it opens, on CI's software Vulkan device (lavapipe)
too, and spend minutes there on orchestration (recording files, the command
line, the guides' examples) that is the same on every runtime. Every runtime
is still tested: the conformance suite and the per-runtime tests name each one
in ``runtime=``, and tests of the automatic choice set ``DSPK_RUNTIME``
themselves.
"""

import pytest


@pytest.fixture(autouse=True)
def _cpu_unless_named(monkeypatch):
    monkeypatch.setenv("DSPK_RUNTIME", "cpu")
