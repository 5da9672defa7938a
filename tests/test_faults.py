"""Faults of the process and its surroundings: fork after use, a tuning cache that
cannot be written, a lock file left behind.

A regression here hangs rather than fails, so each check runs its code in a
fresh interpreter, in a session of its own, that must end within a time limit;
one that does not is killed with everything it forked, and the test fails.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

#: Seconds a check may take: generous for numba compiling its kernels on a cold
#: cache, a few seconds otherwise. Only a hang reaches it.
LIMIT = 300

#: Every operation on small float32 signals, the results as arrays.
EVERY_OPERATION = """
import numpy as np, scipy.signal as s, dspk
x = np.random.default_rng(0).standard_normal((8, 4096)).astype(np.float32)
sos = s.butter(4, 0.1, output="sos")
b, a = s.butter(3, 0.2)

def every_operation(_=None):
    z = dspk.stft(x, nperseg=256)[2]
    return [np.asarray(r) for r in (
        dspk.sosfilt(sos, x), dspk.lfilter(b, a, x), dspk.sosfiltfilt(sos, x),
        dspk.filtfilt(b, a, x), dspk.convolve(x, np.ones((1, 31), np.float32)),
        dspk.fftconvolve(x, np.ones((1, 300), np.float32)), dspk.rfft(x), dspk.fft(x),
        dspk.irfft(dspk.rfft(x)), dspk.hilbert(x), dspk.detrend(x), dspk.welch(x)[1],
        dspk.csd(x, x[::-1])[1], dspk.periodogram(x)[1], dspk.coherence(x, x[::-1])[1],
        dspk.spectrogram(x)[2], z, dspk.istft(z, nperseg=256)[1],
        dspk.upfirdn([1, 2, 1], x, 2, 3), dspk.resample_poly(x, 3, 2), dspk.resample(x, 3000),
        dspk.decimate(x, 4), dspk.common_reference(x),
        dspk.common_reference(x, operator="average"), dspk.whiten(x)[0],
        dspk.phase_shift(x, np.linspace(0, 0.5, 8)))]
"""


def _run(code: str, *arguments: str, **env: str) -> dict:
    """Run ``code`` in a new interpreter within :data:`LIMIT` seconds; the JSON object
    that its last line of output prints."""
    environment = {**os.environ, **env}
    command = [sys.executable, "-c", textwrap.dedent(code), *arguments]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=environment, start_new_session=True) as process:
        try:
            out, err = process.communicate(timeout=LIMIT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            pytest.fail(f"still running after {LIMIT} s, a hang; its output:\n{err[-3000:]}")
    assert process.returncode == 0, err[-5000:]
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture
def env(tmp_path):
    """A private tuning cache, a small budget, the default runtime cpu."""
    return {"DSPK_CACHE_DIR": str(tmp_path / "cache"), "DSPK_TUNING_BUDGET": "0.5",
            "DSPK_RUNTIME": "cpu"}


# -- fork -------------------------------------------------------------------------------------

def test_a_forked_child_runs_what_its_parent_ran(env):
    """The issue's case: welch in the parent, then in a forked child (it hung in the
    parent's thread pool, whose threads the child did not inherit)."""
    code = """
    import json, os, numpy as np, dspk
    x = np.ones((64, 20000), np.float32)
    want = dspk.welch(x)[1]
    pid = os.fork()
    if pid == 0:
        os._exit(0 if np.array_equal(dspk.welch(x)[1], want) else 1)
    print(json.dumps({"child": os.waitpid(pid, 0)[1]}))
    """
    assert _run(code, **env) == {"child": 0}


def test_a_fork_pool_runs_every_operation_after_the_parent_did(env):
    """Two forked workers compute what the parent did, numba's threading layer and the
    thread pool having started in the parent (on GNU OpenMP, which numba terminates a
    child for using, the children run the cpu runtime's other kernels)."""
    code = EVERY_OPERATION + textwrap.dedent("""
    import json, multiprocessing, numba
    from dspk_cpu.threads import numba_parallel
    want = every_operation()
    layer = numba.threading_layer()  # raises unless a parallel kernel ran
    if layer == "omp":
        from numba.np.ufunc import omppool
        layer += " " + omppool.openmp_vendor
    def job(_):
        return numba_parallel(), every_operation()
    with multiprocessing.get_context("fork").Pool(2) as pool:
        done = pool.map(job, range(2))
    errors = [max(float(np.linalg.norm(g - w) / (np.linalg.norm(w) or 1))
                  for g, w in zip(got, want)) for _, got in done]
    print(json.dumps({"layer": layer, "numba in children": [n for n, _ in done],
                      "errors": errors}))
    """)
    result = _run(code, **env, DSPK_TUNING="off")
    assert max(result["errors"]) < 1e-4, result
    gnu = result["layer"] == "omp GNU"
    assert result["numba in children"] == [not gnu] * 2, result


def test_a_stream_goes_on_in_a_forked_child(env):
    """A stream whose chunks ran on the cpu runtime's kept filter (numba's parallel
    kernel, holding the state) in the parent goes on in a forked child, exactly: on
    GNU OpenMP, which a child may not use, through scipy's kernel instead."""
    code = """
    import json, os, numpy as np, scipy.signal as s
    from dspk.streaming import SosfiltStream
    sos = s.butter(4, [0.02, 0.3], "bandpass", output="sos")
    x = np.random.default_rng(0).standard_normal((16, 3000))
    stream = SosfiltStream(sos)
    first = [stream.push(x[:, :1000]), stream.push(x[:, 1000:1500])]
    kept = stream._kept is not None
    pid = os.fork()
    if pid == 0:
        y = np.concatenate(first + [stream.push(x[:, 1500:]), stream.finish()], axis=-1)
        want = s.sosfilt(sos, x)
        os._exit(0 if np.linalg.norm(y - want) <= 1e-12 * np.linalg.norm(want) else 1)
    print(json.dumps({"kept in the parent": kept, "child": os.waitpid(pid, 0)[1]}))
    """
    assert _run(code, **env) == {"kept in the parent": True, "child": 0}


def test_a_forked_child_refuses_the_parents_wgpu_device_with_a_reason(env):
    code = """
    import json, os, warnings, numpy as np, dspk
    from dspk.registry import registry
    warnings.simplefilter("ignore")
    if registry().probe("wgpu").backend is None:
        print(json.dumps(None)); raise SystemExit
    x = np.ones((4, 1000), np.float32)
    on_device = dspk.asarray(x, runtime="wgpu")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        out = {"default": dspk.runtime.current(), "sum": float(dspk.rfft(x).real.sum())}
        for name, call in (("explicit", lambda: dspk.rfft(x, runtime="wgpu")),
                           ("array", lambda: dspk.to_numpy(on_device))):
            try:
                call()
            except RuntimeError as exc:
                out[name] = str(exc)
        os.write(write, json.dumps(out).encode()); os._exit(0)
    os.close(write)
    text = os.read(read, 1 << 16).decode()
    os.waitpid(pid, 0)
    print(text)
    """
    result = _run(code, **{**env, "DSPK_RUNTIME": "", "DSPK_WGPU_ALLOW_CPU": "1"})
    if result is None:
        pytest.skip("wgpu cannot open a device here")
    forked = "was forked from process"
    assert result["default"] != "wgpu" and result["sum"] == 4000.0
    assert result["explicit"].startswith("runtime 'wgpu' cannot open a device: this process")
    assert forked in result["explicit"] and "'spawn' or 'forkserver'" in result["explicit"]
    assert forked in result["array"]


def test_a_forked_child_refuses_the_parents_cuda_driver_with_a_reason():
    """A stand-in CuPy: the probe opens in the parent and refuses in its forked child."""
    code = """
    import json, os, sys, types
    sys.path.insert(0, sys.argv[1])
    runtime = types.SimpleNamespace(is_hip=False, getDeviceCount=lambda: 1)
    cuda = types.SimpleNamespace(runtime=runtime,
                                 Device=lambda: types.SimpleNamespace(use=lambda: None))
    sys.modules["cupy"] = types.SimpleNamespace(cuda=cuda, empty=lambda n: None)
    from dspk.plugin import DeviceUnavailable
    from dspk_cuda import device
    device.probe("cuda")
    read, write = os.pipe()
    if os.fork() == 0:
        try:
            device.probe("cuda")
            reason = None
        except DeviceUnavailable as exc:
            reason = str(exc)
        os.write(write, json.dumps(reason).encode()); os._exit(0)
    os.close(write)
    print(os.read(read, 1 << 16).decode())
    """
    reason = _run(code, str(Path(__file__).parents[1] / "dspk-cuda" / "src"))
    assert reason.startswith("this process was forked from process ")
    assert "initialised the cuda driver" in reason and "'spawn' or 'forkserver'" in reason


# -- a tuning cache that cannot be written ------------------------------------------------------

CALLS_AND_WARNINGS = """
import json, sys, warnings, numpy as np, scipy.signal as s, dspk
from dspk.tuning.store import TuningCacheWarning
x = np.random.default_rng(0).standard_normal((8, 2048)).astype(np.float32)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    y = dspk.sosfilt(s.butter(4, 0.1, output="sos"), x)
    dspk.welch(x); dspk.rfft(x)
print(json.dumps({"ok": bool(np.isfinite(y).all()),
                  "warnings": [str(w.message) for w in caught
                               if issubclass(w.category, TuningCacheWarning)]}))
"""


def _cannot_write(result: dict, root: str) -> None:
    assert result["ok"]
    assert len(result["warnings"]) == 1, result["warnings"]
    assert result["warnings"][0].startswith(f"dspk: the tuning cache under {root} cannot be "
                                            "written (")


@pytest.mark.parametrize("root", ["/dev/null", "a-file"])
def test_calls_compute_where_the_cache_cannot_be_written(env, tmp_path, root):
    if root == "a-file":
        root = str(tmp_path / "a-file")
        Path(root).write_text("not a folder")
    _cannot_write(_run(CALLS_AND_WARNINGS, **{**env, "DSPK_CACHE_DIR": root,
                                              "DSPK_TUNING_BUDGET": "inf"}), root)


def test_calls_compute_on_a_read_only_mount(env, tmp_path):
    """EROFS on the lock file: the cache's folders are there, the mount is read-only."""
    if shutil.which("unshare") is None or subprocess.run(
            ["unshare", "-rm", "true"], capture_output=True, timeout=30).returncode:
        pytest.skip("unshare cannot make a mount namespace here")
    root = tmp_path / "mount"
    root.mkdir()
    script = tmp_path / "calls.py"
    script.write_text(CALLS_AND_WARNINGS)
    # Fill the cache on a writable tmpfs, remove its entries, remount it read-only.
    shell = (f"mount -t tmpfs none {root} && {sys.executable} {script} >/dev/null && "
             f"find {root} -name '*.json' ! -name fingerprint.json -delete && "
             f"mount -o remount,ro {root} && exec {sys.executable} {script}")
    code = f"import os; os.execvp('unshare', ['unshare', '-rm', 'sh', '-c', {shell!r}])"
    _cannot_write(_run(code, **{**env, "DSPK_CACHE_DIR": str(root)}), str(root))


def test_dspk_filter_runs_where_the_cache_cannot_be_written(env, tmp_path):
    np.save(tmp_path / "in.npy", np.random.default_rng(0).integers(
        -1000, 1000, (30000, 16), dtype=np.int16))
    code = """
    import json, subprocess, sys
    done = subprocess.run([sys.executable, "-m", "dspk", "filter", sys.argv[1], sys.argv[2],
                           "--fs", "30000", "--bandpass", "300", "6000", "--quiet"],
                          capture_output=True, text=True)
    print(json.dumps({"code": done.returncode, "stderr": done.stderr}))
    """
    result = _run(code, str(tmp_path / "in.npy"), str(tmp_path / "out.npy"),
                  **{**env, "DSPK_CACHE_DIR": "/dev/null"})
    assert result["code"] == 0, result["stderr"]
    assert result["stderr"].count("TuningCacheWarning") == 1, result["stderr"]
    assert np.load(tmp_path / "out.npy").shape == (30000, 16)


# -- a lock file left behind -------------------------------------------------------------------

LEFT_LOCK = """
import json, os, sys, time, numpy as np, scipy.signal as s, dspk
from dspk.plugin import Problem, waiting_for_kernels
from dspk.registry import registry
from dspk.tuning import store
store.LOCK_WAIT = 1.0  # the cap on waiting, lowered to keep the test short
problem = Problem.make("sosfilt", "float32", 8, 2048, "channel-major", sections=4)
entry = store.TuningStore("cpu", registry().open("cpu").fingerprint()).path(problem)
lock = entry.with_name(entry.name + ".lock")
lock.parent.mkdir(parents=True)
lock.touch()  # as a process killed while tuning leaves it
age = float(sys.argv[1])
os.utime(lock, (time.time() - age, time.time() - age))
x = np.random.default_rng(0).standard_normal((8, 2048)).astype(np.float32)
with waiting_for_kernels():  # compiled first: the time is the lock's, the entry written
    dspk.sosfilt(s.butter(8, 0.2, output="sos"), x[:, :1024].copy())
    start = time.perf_counter()
    dspk.sosfilt(s.butter(8, 0.2, output="sos"), x)
print(json.dumps({"seconds": time.perf_counter() - start, "lock left": lock.exists(),
                  "entry": entry.exists()}))
"""


def test_an_expired_lock_is_removed(env):
    result = _run(LEFT_LOCK, "3600", **{**env, "DSPK_TUNING_BUDGET": "inf"})
    assert result["entry"] and not result["lock left"], result


def test_nobody_waits_for_a_lock_for_ever(env):
    """With an unlimited budget too: the wait is capped at LOCK_WAIT."""
    result = _run(LEFT_LOCK, "0", **{**env, "DSPK_TUNING_BUDGET": "inf"})
    assert result["entry"] and result["lock left"], result
    assert 1.0 <= result["seconds"] < 30, result
