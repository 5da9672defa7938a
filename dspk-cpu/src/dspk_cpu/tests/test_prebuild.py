"""dspk autotune's first phase: the kernels built in worker processes, into numba's cache.

Two workers compile from nothing (about 15 s): marked exhaustive, which CI runs."""

import numpy as np
import pytest

from dspk.plugin import Problem
from dspk_cpu import prebuild
from dspk_cpu.backend import CpuBackend


def _pairs(backend):
    problems = [Problem.make("lfilter", dtype, 4, 512, "channel-major", order=2)
                for dtype in ("float32", "float64")]
    return [(variant, problem) for problem in problems
            for variant in backend.variants("lfilter") if variant.supports(problem)]


@pytest.mark.exhaustive
def test_workers_build_every_kernel_into_the_cache_and_count_each(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # the workers' numba reads it
    backend = CpuBackend()
    pairs = _pairs(backend)
    counted = []
    prebuild.build(pairs, counted.append, workers=2)
    assert counted == [1] * len(pairs)
    indexes = [p.name for p in tmp_path.rglob("*.nbi")]
    assert any("iir" in name for name in indexes), indexes  # the numba lfilter's kernel


def test_a_worker_that_cannot_start_its_work_leaves_it_to_the_tuning(monkeypatch):
    """A worker that dies at once (here: not dspk_cpu.prebuild at all) counts nothing and
    raises nothing: the tuning's own prepare builds what the cache lacks."""
    monkeypatch.setattr(prebuild.sys, "executable", "false")
    counted = []
    prebuild.build(_pairs(CpuBackend()), counted.append, workers=2)
    assert counted == []


def test_the_default_prepares_each_pair_in_turn_and_counts_it():
    class Recording(CpuBackend):
        def prepare(self, variant, problem):
            prepared.append((variant.name, problem.dtype))

    prepared, counted = [], []
    backend = Recording()
    pairs = _pairs(backend)
    super(CpuBackend, backend).prepare_all(pairs, counted.append)  # the core's default
    assert prepared == [(v.name, p.dtype) for v, p in pairs]
    assert counted == [1] * len(pairs)
    assert np.unique([dtype for _, dtype in prepared]).tolist() == ["float32", "float64"]
