"""Kernels still being built: the call runs another variant, the tuner waits to time them.

The cpu runtime builds a numba specialisation met for the first time in a background
thread when the caller may defer (dspk_cpu.compiling); the core's tuner and dispatcher
run the call with another variant meanwhile (dspk.tuning.tuner.run).
"""

from __future__ import annotations

import json
import threading

import filelock
import numba
import numpy as np
import pytest
from scipy import signal

import dspk
from dspk import operations
from dspk.plugin import KernelNotReady, Problem, deferring, may_defer, waiting_for_kernels
from dspk.registry import registry
from dspk.tuning import tuner
from dspk.tuning.store import TuningStore
from dspk_cpu import compiling


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DSPK_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("DSPK_TUNING", raising=False)
    tuner.forget()
    yield tmp_path
    tuner.forget()


@pytest.fixture
def cpu():
    return registry().open("cpu")


def _kernel():
    """A numba kernel of its own (never compiled, in memory or on disk)."""
    @numba.njit
    def scaled(x, factor):
        return x * factor
    return scaled


def test_a_deferrable_call_is_not_kept_waiting_by_a_build(monkeypatch):
    monkeypatch.setattr(compiling, "WAIT", 0.0)
    kernel, x = _kernel(), np.arange(5.0)
    with deferring():
        with pytest.raises(KernelNotReady, match="compiling"):
            compiling.run(kernel, x, 2.0)
    np.testing.assert_array_equal(compiling.run(kernel, x, 2.0), 2 * x)  # waits
    with deferring():
        np.testing.assert_array_equal(compiling.run(kernel, x, 3.0), 3 * x)  # built


def test_a_call_that_cannot_defer_waits_for_its_build():
    kernel, x = _kernel(), np.arange(3, dtype=np.float32)
    assert not may_defer()
    np.testing.assert_array_equal(compiling.run(kernel, x, np.float32(2)), 2 * x)


def test_a_build_error_reaches_the_caller():
    @numba.njit
    def broken(x):
        return x.no_such_attribute

    with pytest.raises(numba.core.errors.TypingError):
        compiling.run(broken, np.arange(3.0))


def test_a_child_forked_mid_build_cannot_build(monkeypatch):
    monkeypatch.setattr(compiling, "_forked_mid_build", True)
    kernel, x = _kernel(), np.arange(3.0)
    with deferring(), pytest.raises(KernelNotReady):
        compiling.run(kernel, x, 1.0)
    with pytest.raises(RuntimeError, match="forked"):
        compiling.run(kernel, x, 1.0)


class _Building:
    """A variant whose kernel is being built until ``built`` is set."""

    def __init__(self, run):
        self.built = threading.Event()
        self.runs = 0
        self._run = run

    def __call__(self, **kwargs):
        if may_defer() and not self.built.is_set():
            raise KernelNotReady("building")
        self.runs += 1
        return self._run(**kwargs)


@pytest.fixture
def building_first(cpu, monkeypatch):
    """cpu's sosfilt variants, the first one still being built."""
    first, *others = cpu.variants("sosfilt")
    slow = _Building(first.run)
    variant = type(first)(first.name, slow, first.source, first.supports, first.version)
    monkeypatch.setattr(cpu, "_variants", {**cpu._variants, "sosfilt": [variant, *others]})
    monkeypatch.setattr(operations, "_variants", {})
    return slow


def test_a_call_runs_a_ready_variant_while_the_chosen_one_builds(cache, cpu, building_first):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 3000))
    sos = signal.butter(4, 0.1, output="sos")
    with dspk.runtime.using("cpu"):
        y = dspk.sosfilt(sos, x)
    np.testing.assert_allclose(y, signal.sosfilt(sos, x), rtol=1e-10, atol=1e-12)
    assert building_first.runs == 0
    problem = Problem.make("sosfilt", "float64", 6, 3000, "channel-major", sections=2)
    path = TuningStore("cpu", cpu.fingerprint()).path(problem)
    timed = json.loads(path.read_text())["timings"] if path.exists() else {}
    assert building_first not in timed and not tuner._chosen, "not final while building"

    compiling.wait_for_builds()  # the other variants' real kernels, on a cold numba cache
    with waiting_for_kernels():  # and the first one's, which its stand-in never started
        building_first._run(sos=sos, x=x, axis=1, zi=None)
    building_first.built.set()
    with dspk.runtime.using("cpu"):
        y = dspk.sosfilt(sos, x)
    np.testing.assert_allclose(y, signal.sosfilt(sos, x), rtol=1e-10, atol=1e-12)
    timings = json.loads(path.read_text())["timings"]
    assert {v.name for v in cpu.variants("sosfilt")} <= set(timings)
    assert all(t["seconds"] > 0 for t in timings.values())
    assert tuner._chosen, "final once every variant is built"


def test_a_forced_variant_never_defers(cache, cpu, building_first):
    x = np.random.default_rng(4).standard_normal((3, 500))
    sos = signal.butter(2, 0.3, output="sos")
    name = cpu.variants("sosfilt")[0].name
    with dspk.runtime.using("cpu"), tuner.forced_variant("sosfilt", name):
        y = dspk.sosfilt(sos, x)
    assert building_first.runs == 1
    np.testing.assert_allclose(y, signal.sosfilt(sos, x), rtol=1e-10, atol=1e-12)


def _signature(kernel, *args):
    return tuple(kernel.typeof_pyval(a) for a in args)


def _build_in_thread(kernel, signature) -> threading.Thread:
    thread = threading.Thread(target=compiling._compile, args=(kernel, signature))
    thread.start()
    return thread


def test_a_build_waits_for_another_process_building_the_same_kernel(cache):
    """The lock is a file lock: held here through a second handle, as another process
    holds it; the build starts once it is released."""
    import filelock

    kernel = _kernel()
    signature = _signature(kernel, np.ones(3), 2.0)
    path = compiling.build_lock_path(kernel, signature)
    path.parent.mkdir(parents=True)
    other = filelock.FileLock(str(path))
    other.acquire()
    thread = _build_in_thread(kernel, signature)
    thread.join(1.0)
    assert thread.is_alive() and signature not in kernel.overloads
    other.release()
    thread.join(60)
    assert not thread.is_alive() and signature in kernel.overloads


def test_a_build_lock_held_too_long_or_not_writable_is_built_without(cache, monkeypatch):
    monkeypatch.setattr(compiling, "BUILD_LOCK_WAIT", 0.2)
    kernel = _kernel()
    signature = _signature(kernel, np.ones(3), 2.0)
    path = compiling.build_lock_path(kernel, signature)
    path.parent.mkdir(parents=True)
    with filelock.FileLock(str(path)):
        _build_in_thread(kernel, signature).join(60)
        assert signature in kernel.overloads
    (cache / "file").write_text("")
    monkeypatch.setenv("DSPK_CACHE_DIR", str(cache / "file"))  # no directory can be made here
    signature = _signature(kernel, np.ones(3, np.float32), 2.0)
    _build_in_thread(kernel, signature).join(60)
    assert signature in kernel.overloads


def test_the_kernels_of_one_factory_have_their_own_locks():
    from dspk_cpu.kernels import iir

    one, other = iir._kernels("sos", 1, 8)[0], iir._kernels("sos", 2, 8)[0]
    signature = ()
    assert compiling.build_lock_path(one, signature) != compiling.build_lock_path(other, signature)
