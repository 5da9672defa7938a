"""Third-party runtimes come in through the same door as dspk's own.

The plugin packages under ``tests/plugins`` are installed into temporary
folders, and each check runs in a fresh interpreter that sees them on its
path, so that discovery happens as it would for a user.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PLUGINS = Path(__file__).parent / "plugins"


def _install(package: str, target: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    "--no-build-isolation", "--target", str(target), str(PLUGINS / package)],
                   check=True, capture_output=True)
    return target


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    return _install("dspk-toy", tmp_path_factory.mktemp("toy"))


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    return _install("dspk-broken", tmp_path_factory.mktemp("broken"))


def _python(code: str, *paths: Path, **env: str) -> subprocess.CompletedProcess:
    return _run(["-c", code], *paths, **env)


def _run(arguments: list[str], *paths: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("DSPK_RUNTIME", "DSPK_STRICT_RUNTIMES")}
    environment["PYTHONPATH"] = os.pathsep.join(str(p) for p in paths)
    environment.update(env)
    return subprocess.run([sys.executable, *arguments], capture_output=True, text=True,
                          env=environment)


def _json(result: subprocess.CompletedProcess):
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_third_party_runtime_is_seen_everywhere(toy, tmp_path):
    code = """
import json, numpy as np, scipy.signal as s, dspk
sos = s.butter(2, 0.2, output="sos")
x = np.random.default_rng(0).standard_normal((3, 200))
want = s.sosfilt(sos, x)
by_argument = dspk.sosfilt(sos, x, runtime="toy")
dspk.runtime.set("toy")
by_set = dspk.sosfilt(sos, x)
current = dspk.runtime.current()
dspk.runtime.set(None)
tuned = dspk.runtime.autotune(channels=[4], samples=[512], runtime="toy")
opens = [r["name"] for r in dspk.runtime.info() if r["device"] is not None]
print(json.dumps({"available": dspk.runtime.available(), "current": current,
                  "default": dspk.runtime.current(), "opens": opens,
                  "errors": [float(abs(y - want).max()) for y in (by_argument, by_set)],
                  "tuned": tuned}))
"""
    result = _json(_python(code, toy, DSPK_CACHE_DIR=str(tmp_path)))
    assert result["available"][-2:] == ["toy", "cpu"]
    assert result["current"] == "toy"
    # The default is the first runtime that opens a device (wgpu may be installed
    # without one, e.g. where its only adapter is a CPU one).
    assert result["default"] == [r for r in result["available"] if r in result["opens"]][0]
    assert max(result["errors"]) < 1e-12
    # sosfilt and rfft (the fft grid), each in two dtypes and two layouts at one size:
    # the operations toy has.
    assert result["tuned"]["toy"]["sizes"] == 8
    entries = list((tmp_path / "tune" / "v1" / "toy").rglob("4x512.json"))
    assert len(entries) == 8


def test_environment_selects_a_third_party_runtime(toy):
    result = _json(_python("import json, dspk; print(json.dumps(dspk.runtime.current()))", toy,
                           DSPK_RUNTIME="toy"))
    assert result == "toy"


def test_broken_plugins_are_skipped_with_one_warning_each(broken):
    code = """
import json, warnings, dspk
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    names = dspk.runtime.available()
print(json.dumps({"names": names, "warnings": [str(w.message) for w in caught]}))
"""
    result = _json(_python(code, broken))
    assert result["names"][-3:] == ["cpu", "unloadable", "misnamed"]  # by priority: 100, 3, 2
    assert "nodevice" in result["names"]
    text = "\n".join(result["warnings"])
    assert len(result["warnings"]) == 8, text
    assert "plugin 'missing'" in text and "failed to load" in text
    assert "plugin 'raising' raised while registering" in text
    # Not Exceptions: sys.exit() on import, a BaseException from the hook.
    assert "plugin 'exiting' (dspk_broken.exits) failed to load: SystemExit: 3" in text
    assert "plugin 'aborting' raised while registering: Abort: registration aborted" in text
    assert "runtime 'cpu', which plugin 'cpu' already declared" in text
    assert "runtime name 'Bad Name'" in text
    assert "plugin API version 0" in text
    assert "plugin 'unmarked' (dspk_broken.plugins:unmarked) has no dspk_register_runtimes " \
        "marked with @dspk.plugin.hookimpl" in text


def test_strict_mode_refuses_a_broken_plugin(broken):
    result = _python("import dspk; dspk.runtime.available()", broken, DSPK_STRICT_RUNTIMES="1")
    assert result.returncode != 0
    assert "PluginError" in result.stderr and "DSPK_STRICT_RUNTIMES=1" in result.stderr


def test_a_plugin_that_exits_does_not_end_its_host(broken):
    """sys.exit() in a plugin's import or backend is one more broken plugin, not exit 3."""
    code = """
import json, warnings, numpy as np, dspk
warnings.simplefilter("ignore")
out = {"sum": float(dspk.sosfilt([1, 0, 0, 1, 0, 0], np.ones(3), runtime="cpu").sum())}
try:
    dspk.sosfilt([1, 0, 0, 1, 0, 0], np.ones(3), runtime="quitter")
except RuntimeError as exc:
    out["explicit"] = str(exc)
print(json.dumps(out))
"""
    result = _json(_python(code, broken))
    assert result["sum"] == 3.0
    assert result["explicit"].startswith("runtime 'quitter' cannot open a device: SystemExit: 4.")
    strict = _python("import dspk; dspk.runtime.available()", broken, DSPK_STRICT_RUNTIMES="1")
    assert strict.returncode == 1 and "PluginError" in strict.stderr, strict.stderr


def test_a_runtime_without_a_device(broken):
    code = """
import json, warnings, numpy as np, dspk
warnings.simplefilter("ignore")
out = {"default": dspk.runtime.current()}
try:
    dspk.sosfilt([1, 0, 0, 1, 0, 0], np.ones(3), runtime="nodevice")
except RuntimeError as exc:
    out["explicit"] = str(exc)
out["info"] = [r for r in dspk.runtime.info() if r["name"] == "nodevice"][0]
out["open"] = [r["name"] for r in dspk.runtime.info() if r["device"] is not None]
print(json.dumps(out))
"""
    result = _json(_python(code, broken))
    assert "nodevice" not in result["open"] and "cpu" in result["open"]
    assert result["default"] == result["open"][0], \
        "the default passes over a runtime with no device"
    assert result["explicit"] == ("runtime 'nodevice' cannot open a device: no toy GPU in this "
                                  "machine. Runtimes that can run here: "
                                  f"{', '.join(result['open'])}.")
    assert result["info"]["reason"] == "no toy GPU in this machine"
    assert result["info"]["device"] is None


def test_the_conformance_kit_passes_the_third_party_runtime(toy):
    """``python -m dspk.testing toy``: what toy implements passes; the rest is reported."""
    result = _run(["-m", "dspk.testing", "toy", "-q", "-rs"], toy)
    summary = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr
    assert " passed" in summary and "failed" not in summary and "error" not in summary
    assert "runtime 'toy' does not implement lfilter" in result.stdout
    missing = next(line for line in result.stdout.splitlines()
                   if line.startswith("dspk: runtime 'toy' does not implement: "))
    not_implemented = missing.split(": ", 2)[2].split(", ")
    assert "lfilter" in not_implemented and "stft" in not_implemented
    assert "sosfilt" not in not_implemented and "fft" not in not_implemented


def test_a_partial_runtime_changes_nothing_for_what_it_lacks(toy):
    """toy (sosfilt and the FFTs only) outranks cpu; welch still runs by default,
    and runs nowhere it was not asked to when toy is chosen by name."""
    code = """
import json, numpy as np, scipy.signal as s, dspk
x = np.random.default_rng(1).standard_normal((3, 1000))
f, p = dspk.welch(x)
errors = {}
for how in ("argument", "using"):
    try:
        if how == "argument":
            dspk.welch(x, runtime="toy")
        else:
            with dspk.runtime.using("toy"):
                dspk.welch(x)
    except dspk.runtime.OperationNotImplemented as e:
        errors[how] = [str(e), e.runtime, e.function, list(e.missing), e.alternatives,
                       isinstance(e, NotImplementedError)]
print(json.dumps({"welch": float(abs(p - s.welch(x)[1]).max() / abs(p).max()),
                  "errors": errors}))
"""
    result = _json(_python(code, toy))
    assert result["welch"] < 1e-12
    for how in ("argument", "using"):
        text, runtime, function, missing, alternatives, typed = result["errors"][how]
        assert (runtime, function, missing, typed) == ("toy", "welch", ["csd"], True)
        assert "cpu" in alternatives and "toy" not in alternatives
        assert text.startswith("runtime 'toy' does not implement welch (it has no kernel for csd)")


def test_complex_sections_pass_over_a_runtime_whose_kernels_take_real_data(toy):
    """toy outranks cpu and implements sosfilt, with real data only (its takes_complex is
    the default False): complex sections run on cpu by default, and raise by name."""
    code = """
import json, numpy as np, scipy.signal as s, dspk
sos = np.array([[1.0, 0.5j, 0.0, 1.0, -0.5 + 0.3j, 0.0]])
x = np.random.default_rng(1).standard_normal((3, 200))
y = dspk.sosfilt(sos, x)
try:
    dspk.sosfilt(sos, x, runtime="toy")
except dspk.runtime.OperationNotImplemented as e:
    error = [str(e), e.alternatives]
real = np.ascontiguousarray(sos.real)
print(json.dumps({"error": float(abs(y - s.sosfilt(sos, x)).max()), "raised": error,
                  "real": float(abs(dspk.sosfilt(real, x) - s.sosfilt(real, x)).max())}))
"""
    result = _json(_python(code, toy))
    assert result["error"] < 1e-12 and result["real"] < 1e-12
    text, alternatives = result["raised"]
    assert text.startswith("runtime 'toy' does not implement sosfilt (it has no kernel for "
                           "sosfilt with complex coefficients)")
    assert alternatives[0] == "cpu" and "toy" not in alternatives


def test_bench_skips_the_rows_a_partial_runtime_lacks(toy):
    result = _run(["-m", "dspk", "bench", "--runtime", "toy", "--shape", "4x512", "--repeat", "1",
                   "--ops", "welch", "sosfilt"], toy)
    assert result.returncode == 0, result.stderr
    assert "| sosfilt | toy | 4x512 |" in result.stdout
    assert "(runtime 'toy' does not implement welch" in result.stdout
    assert "| welch |" not in result.stdout


def test_the_kit_refuses_a_runtime_that_is_not_installed():
    result = _run(["-m", "dspk.testing", "nosuch", "-q"])
    assert result.returncode == 2
    assert "'nosuch' is not an installed runtime; installed: " in result.stderr
    assert "cpu" in result.stderr and "passed" not in result.stdout


def test_kernels_of_a_version_1_plugin_are_called_by_position(monkeypatch):
    """API version 2 calls kernels by keyword; a version-1 runtime's kernels, whose
    parameter names may differ, are still called by position for one release."""
    import numpy as np

    from dspk.operations import OPERATIONS, variants_of
    from dspk.plugin import Backend, RuntimeSpec, Variant
    from dspk.registry import registry

    class Old(Backend):
        name = "old"

        def device(self):
            return "old"

        def fingerprint(self):
            return {}

        def variants(self, op):
            whole = Variant("old-fft", lambda a, b, c, d, e: np.fft.rfft(a, n=c, axis=b), "1")
            return [whole] if op == "fft" else []

    spec = RuntimeSpec(name="old", priority=1, is_gpu=False, load="old:Old", api_version=1)
    monkeypatch.setattr(registry(), "specs", [*registry().specs, spec])
    x = np.random.default_rng(0).standard_normal((2, 16))
    (variant,) = variants_of(Old(), "fft")
    y = OPERATIONS["fft"].call(variant, (x, 1, 16, "rfft", "backward"))
    assert np.allclose(y, np.fft.rfft(x, axis=1))


def test_a_runtime_that_fails_to_load_is_a_plugin_problem_not_a_missing_device(broken):
    """A load error warns (an error under strict), where a missing device is only a
    reason; a backend named otherwise than its spec is renamed, with a warning."""
    code = """
import json, warnings, dspk
from dspk.registry import registry
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    rows = {r["name"]: r["reason"] for r in dspk.runtime.info()}
print(json.dumps({"reasons": rows, "misnamed": registry().open("misnamed").name,
                  "warnings": [str(w.message) for w in caught]}))
"""
    result = _json(_python(code, broken))
    reason = result["reasons"]["unloadable"]
    assert reason.startswith("ModuleNotFoundError")
    warned = [w for w in result["warnings"] if "runtime 'unloadable'" in w]
    assert warned == [f"dspk: runtime 'unloadable' failed to load "
                      f"(dspk_broken.no_such_module:Backend): {reason}; it is skipped"]
    assert result["reasons"]["misnamed"] is None and result["misnamed"] == "misnamed"
    assert any("calls itself 'toy'; it is named 'misnamed', as its RuntimeSpec" in w
               for w in result["warnings"])
    assert result["reasons"]["nodevice"] == "no toy GPU in this machine"
    assert not any("'nodevice'" in w for w in result["warnings"])


def test_under_strict_a_runtime_that_fails_to_load_is_an_error(monkeypatch):
    from dspk.plugin import RuntimeSpec
    from dspk.registry import PluginError, _load

    monkeypatch.setenv("DSPK_STRICT_RUNTIMES", "1")
    with pytest.raises(PluginError, match="runtime 'gone' failed to load"):
        _load(RuntimeSpec("gone", 1, False, "dspk_no_such_module:Backend"))


def test_an_entry_point_named_as_anothers_is_reported_and_never_wins(tmp_path_factory):
    twin = _install("dspk-twin", tmp_path_factory.mktemp("twin"))
    code = """
import json, warnings, numpy as np, dspk
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    names = dspk.runtime.available()
y = dspk.sosfilt([1, 0, 0, 1, 0, 0], np.ones(3), runtime="cpu")
print(json.dumps({"names": names, "sum": float(y.sum()),
                  "warnings": [str(w.message) for w in caught]}))
"""
    result = _json(_python(code, twin))
    assert result["names"][-1] == "cpu" and result["sum"] == 3.0
    (warning,) = [w for w in result["warnings"] if "declared by" in w]
    assert "plugin 'cpu' is declared by dspk-cpu (dspk_cpu.plugin) and by dspk-twin " \
        "(dspk_twin); dspk-cpu (dspk_cpu.plugin)'s is kept" in warning
