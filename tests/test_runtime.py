"""dspk.runtime: the contract of the seed page, using(), info() and the command line."""

from __future__ import annotations

import subprocess
import sys
import threading

import numpy as np
import pytest

import dspk
from dspk.registry import RuntimeUnavailableError, registry
from dspk.runtime import resolve


@pytest.fixture(autouse=True)
def _reset_choice():
    dspk.runtime.set(None)
    yield
    dspk.runtime.set(None)


def test_cpu_is_installed_and_last():
    names = dspk.runtime.available()
    assert names[-1] == "cpu"
    gpu = [registry().spec(n).is_gpu for n in names]
    assert gpu == sorted(gpu, reverse=True), "GPU runtimes come first"


def test_current_follows_set_then_environment_then_default(monkeypatch):
    monkeypatch.delenv("DSPK_RUNTIME", raising=False)
    default = dspk.runtime.current()
    assert default in dspk.runtime.available()
    monkeypatch.setenv("DSPK_RUNTIME", "cpu")
    assert dspk.runtime.current() == "cpu"
    dspk.runtime.set("cpu")
    monkeypatch.setenv("DSPK_RUNTIME", "nonesuch")
    assert dspk.runtime.current() == "cpu", "set() wins over DSPK_RUNTIME"
    dspk.runtime.set(None)
    with pytest.raises(ValueError, match="DSPK_RUNTIME 'nonesuch' is not a runtime"):
        dspk.runtime.current()


def test_environment_is_read_when_a_call_resolves(monkeypatch):
    monkeypatch.setenv("DSPK_RUNTIME", "nonesuch")
    with pytest.raises(ValueError, match="DSPK_RUNTIME"):
        dspk.sosfilt([1, 0, 0, 1, 0, 0], np.ones(4))
    monkeypatch.setenv("DSPK_RUNTIME", "cpu")
    np.testing.assert_allclose(dspk.sosfilt([1, 0, 0, 1, 0, 0], np.arange(4.0)), np.arange(4.0))


@pytest.mark.parametrize("bad", ["nonesuch", "CPU", "", 3])
def test_set_refuses_unknown_names(bad):
    with pytest.raises(ValueError, match="is not a runtime of this build"):
        dspk.runtime.set(bad)


def test_autotune_refuses_unknown_runtime():
    with pytest.raises(ValueError, match="not a runtime of this build"):
        dspk.runtime.autotune(runtime="nonesuch")


def test_using_is_scoped_to_its_thread(monkeypatch):
    monkeypatch.delenv("DSPK_RUNTIME", raising=False)
    default = dspk.runtime.current()
    seen = {}
    inside = threading.Event()
    release = threading.Event()

    def worker():
        with dspk.runtime.using("cpu"):
            seen["worker"] = dspk.runtime.current()
            inside.set()
            release.wait(5)

    thread = threading.Thread(target=worker)
    thread.start()
    inside.wait(5)
    seen["main"] = dspk.runtime.current()
    release.set()
    thread.join()
    assert seen == {"worker": "cpu", "main": default}


def test_using_wins_over_set_and_restores():
    dspk.runtime.set("cpu")
    with dspk.runtime.using("cpu") as name:
        assert name == "cpu" == dspk.runtime.current()
    assert dspk.runtime.current() == "cpu"
    with pytest.raises(ValueError):
        with dspk.runtime.using("nonesuch"):
            pass


def test_an_explicit_runtime_without_a_device_does_not_fall_back(monkeypatch):
    reg = registry()
    monkeypatch.setattr(reg, "_opened", {"cpu": type(reg.probe("cpu"))(None, "no cores today")})
    with pytest.raises(RuntimeUnavailableError,
                       match=r"runtime 'cpu' cannot open a device: no cores today\. "
                             r"Runtimes that can run here: "):
        dspk.sosfilt([1, 0, 0, 1, 0, 0], np.ones(4), runtime="cpu")


def test_info_lists_devices():
    rows = {row["name"]: row for row in dspk.runtime.info()}
    assert rows["cpu"]["device"] and rows["cpu"]["reason"] is None


def test_only_cpu_prints_as_the_issue_says():
    if dspk.runtime.available() != ["cpu"]:
        pytest.skip("other runtimes are installed")
    out = subprocess.run([sys.executable, "-c", "import dspk; print(dspk.runtime.available(), "
                          "dspk.runtime.current())"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['cpu'] cpu"


def test_discovery_imports_no_kernels_or_gpu_libraries():
    code = ("import sys, dspk; dspk.runtime.available(); "
            "print(sorted(m for m in ('numba', 'cupy', 'wgpu', 'dspk_cpu.backend') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_command_line_info():
    out = subprocess.run([sys.executable, "-m", "dspk", "info"], capture_output=True, text=True,
                         check=True)
    assert "cpu" in out.stdout and "current runtime:" in out.stdout


def test_command_line_reports_errors_without_traceback():
    out = subprocess.run([sys.executable, "-m", "dspk", "autotune", "--runtime", "nonesuch"],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert "is not a runtime of this build" in out.stderr and "Traceback" not in out.stderr


def test_host_data_opens_no_runtime():
    """A list or NumPy input asks no runtime whether it is native: none is opened
    (importing wgpu and probing adapters costs about a second)."""
    code = ("import json, numpy as np, dspk\n"
            "from dspk.registry import registry\n"
            "dspk.sosfilt([[1, 0, 0, 1, 0, 0]], [1.0, 2.0, 3.0], runtime='cpu')\n"
            "dspk.to_numpy([1.0]); dspk.to_numpy(np.ones(2, '>f4'))\n"
            "print(json.dumps([b.name for b in registry().opened()]))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ['["cpu"]']


def _resolved_name(runtime=None):
    """The runtime a sosfilt call resolves to, or why it has none."""
    try:
        return resolve(runtime, np.dtype(np.float64), "sosfilt", ("sosfilt",)).name
    except RuntimeUnavailableError:
        return "unavailable"


@pytest.fixture
def other_runtime():
    """A runtime of this build other than cpu (it need not open a device here)."""
    others = [name for name in dspk.runtime.available() if name != "cpu"]
    if not others:
        pytest.skip("only cpu is installed")
    return others[0]


def test_a_remembered_resolution_follows_set_using_and_the_environment(monkeypatch,
                                                                      other_runtime):
    """resolve remembers its choice; set(), using() and DSPK_RUNTIME still change it."""
    monkeypatch.setenv("DSPK_RUNTIME", "cpu")
    for _ in range(2):  # the second call is served from the memo
        assert _resolved_name() == "cpu"
    expected = _resolved_name(other_runtime)
    assert expected in (other_runtime, "unavailable")
    dspk.runtime.set(other_runtime)
    assert _resolved_name() == expected
    dspk.runtime.set("cpu")
    assert _resolved_name() == "cpu"
    with dspk.runtime.using(other_runtime):
        assert _resolved_name() == expected
    assert _resolved_name() == "cpu"
    dspk.runtime.set(None)
    monkeypatch.setenv("DSPK_RUNTIME", other_runtime)
    assert _resolved_name() == expected
    monkeypatch.setenv("DSPK_RUNTIME", "cpu")
    assert _resolved_name() == "cpu"
    assert _resolved_name("cpu") == "cpu"


def test_a_remembered_resolution_still_asks_the_registry(monkeypatch):
    """A runtime that stops opening (a fork, a test) is refused even after a memoised call."""
    assert _resolved_name("cpu") == "cpu"
    reg = registry()
    monkeypatch.setattr(reg, "_opened", {"cpu": type(reg.probe("cpu"))(None, "gone")})
    assert _resolved_name("cpu") == "unavailable"


def test_a_memoised_runtime_argument_of_the_wrong_type_is_still_refused():
    with pytest.raises(ValueError, match="is not a runtime of this build"):
        dspk.sosfilt([1, 0, 0, 1, 0, 0], np.ones(4), runtime=["cpu"])
