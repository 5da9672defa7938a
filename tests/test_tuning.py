"""The tuning cache: first-call tuning, reuse, rejection of bad entries, modes, concurrency."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest

import dspk
from dspk import operations
from dspk.plugin import Problem, waiting_for_kernels
from dspk.registry import registry
from dspk.tuning import tuner
from dspk.tuning.store import TuningCacheWarning, TuningStore


@pytest.fixture(autouse=True)
def _kernels_built():
    """Tuning waits for every kernel it times: on a cold numba cache a first call would
    otherwise time only the ready variants and keep nothing (dspk_cpu/tests/test_deferred_builds.py
    checks that behaviour)."""
    with waiting_for_kernels():
        yield


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DSPK_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("DSPK_TUNING_BUDGET", "5")
    monkeypatch.delenv("DSPK_TUNING", raising=False)
    tuner.forget()
    yield tmp_path
    tuner.forget()


@pytest.fixture
def cpu():
    return registry().open("cpu")


PROBLEM = Problem.make("sosfilt", "float32", 8, 2048, "channel-major", sections=4)


def _entry(cpu, problem=PROBLEM):
    return json.loads(TuningStore("cpu", cpu.fingerprint()).path(problem).read_text())


def test_first_call_times_every_variant_and_keeps_the_winner(cache, cpu):
    chosen = tuner.choose(cpu, PROBLEM)
    entry = _entry(cpu)
    names = {v.name for v in cpu.variants("sosfilt")}
    assert set(entry["timings"]) == names
    assert all(t["seconds"] > 0 for t in entry["timings"].values())
    assert entry["winner"] == chosen.name
    assert entry["problem"] == PROBLEM.as_dict()
    assert json.loads((cache / "tune" / "v1" / "cpu").glob("*/fingerprint.json").__next__()
                      .read_text()) == cpu.fingerprint()


def test_a_cached_entry_is_reused_without_timing(cache, cpu, monkeypatch):
    tuner.choose(cpu, PROBLEM)
    tuner.forget()
    monkeypatch.setattr(tuner, "_measure", lambda *a, **k: pytest.fail("timed again"))
    assert tuner.choose(cpu, PROBLEM).name == _entry(cpu)["winner"]


@pytest.mark.parametrize("damage", ["{not json", json.dumps({"format": 99}),
                                    json.dumps([1, 2, 3])])
def test_a_corrupt_entry_is_ignored_with_a_warning_and_tuned_again(cache, cpu, damage):
    path = TuningStore("cpu", cpu.fingerprint()).path(PROBLEM)
    path.parent.mkdir(parents=True)
    path.write_text(damage)
    with pytest.warns(TuningCacheWarning, match="ignoring tuning-cache entry"):
        tuner.choose(cpu, PROBLEM)
    assert _entry(cpu)["format"] == 1


def test_a_foreign_entry_is_ignored(cache, cpu):
    tuner.choose(cpu, PROBLEM)
    path = TuningStore("cpu", cpu.fingerprint()).path(PROBLEM)
    entry = json.loads(path.read_text())
    entry["fingerprint"] = {"processor": "another machine"}
    path.write_text(json.dumps(entry))
    tuner.forget()
    with pytest.warns(TuningCacheWarning, match="another device"):
        tuner.choose(cpu, PROBLEM)
    assert _entry(cpu)["fingerprint"] == cpu.fingerprint()


def test_a_changed_kernel_invalidates_only_its_own_timing(cache, cpu, monkeypatch):
    tuner.choose(cpu, PROBLEM)
    before = _entry(cpu)["timings"]
    first, second = cpu.variants("sosfilt")[:2]
    changed = replace(second, source="0123456789abcdef")
    monkeypatch.setattr(cpu, "_variants", {**cpu._variants, "sosfilt": [first, changed]})
    monkeypatch.setattr(operations, "_variants", {})  # the core's built variants
    tuner.forget()
    tuner.choose(cpu, PROBLEM)
    after = _entry(cpu)["timings"]
    assert after[first.name] == before[first.name], "the unchanged kernel keeps its timing"
    assert after[second.name]["source"] == "0123456789abcdef"
    assert after[second.name]["seconds"] != before[second.name]["seconds"]


def test_an_off_grid_size_starts_from_its_nearest_neighbour(cache, cpu, monkeypatch):
    tuner.choose(cpu, PROBLEM)
    near = replace(PROBLEM, samples=3000)
    order = []
    real = tuner._measure

    def spy(backend, problem, variants, args, budget, **options):
        order.extend(v.name for v in variants)
        return real(backend, problem, variants, args, budget, **options)

    monkeypatch.setattr(tuner, "_measure", spy)
    tuner.choose(cpu, near)
    timings = _entry(cpu)["timings"]
    assert order[0] == min(timings, key=lambda n: timings[n]["seconds"])
    assert _entry(cpu, near)["winner"] in timings


def test_tuning_off_uses_the_default_and_writes_nothing(cache, cpu, monkeypatch):
    monkeypatch.setenv("DSPK_TUNING", "off")
    assert tuner.choose(cpu, PROBLEM) == cpu.variants("sosfilt")[0]
    assert not (cache / "tune").exists()


def test_tuning_readonly_reads_but_never_writes(cache, cpu, monkeypatch):
    monkeypatch.setenv("DSPK_TUNING", "readonly")
    assert tuner.choose(cpu, PROBLEM) == cpu.variants("sosfilt")[0]
    assert not list(cache.rglob("*.json"))
    monkeypatch.setenv("DSPK_TUNING", "on")
    winner = tuner.choose(cpu, PROBLEM).name
    tuner.forget()
    monkeypatch.setenv("DSPK_TUNING", "readonly")
    assert tuner.choose(cpu, PROBLEM).name == winner


@pytest.mark.parametrize(("name", "value"), [("DSPK_TUNING", "sometimes"),
                                             ("DSPK_TUNING_BUDGET", "-1")])
def test_bad_tuning_settings_are_refused(cache, cpu, monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=name):
        tuner.choose(cpu, PROBLEM)


def test_two_processes_tuning_one_key_leave_one_valid_entry(cache, cpu):
    # Each waits for its kernels, as the tests here do: on a cold numba cache a process
    # timing while they compile keeps nothing (and the test found no entry).
    code = ("import dspk, numpy as np, scipy.signal as s\n"
            "from dspk.plugin import waiting_for_kernels\n"
            "x = np.random.default_rng(0).standard_normal((8, 2048)).astype(np.float32)\n"
            "with waiting_for_kernels():\n"
            "    dspk.sosfilt(s.butter(8, 0.2, output='sos'), x, runtime='cpu')")
    env = {**os.environ, "DSPK_CACHE_DIR": str(cache), "DSPK_TUNING_BUDGET": "5"}
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    for proc in procs:
        assert proc.wait(timeout=300) == 0, proc.stderr.read()
    files = sorted(p.name for p in cache.rglob("*") if p.is_file() and p.parent.name != "builds")
    assert files == ["8x2048.json", "fingerprint.json"], files  # (builds/: cpu kernels' locks)
    entry = _entry(cpu)
    assert entry["winner"] in entry["timings"]


@pytest.mark.exhaustive  # builds every cpu kernel of the grid: ~100 s from nothing, 2 cores
def test_autotune_fills_the_cache_and_counts_its_sizes(cache, cpu):
    result = dspk.runtime.autotune(channels=[4], samples=[512], runtime="cpu")
    assert set(result) == {"cpu"}
    assert result["cpu"]["seconds"] > 0
    problems = tuner.grid(cpu, [4], [512])
    assert result["cpu"]["sizes"] == len(problems)
    store = TuningStore("cpu", cpu.fingerprint())
    choices = [p for p in problems if len(tuner.valid_variants(cpu, p)) > 1]
    entries = list((cache / "tune" / "v1" / "cpu").rglob("4x512.json"))
    assert sorted(map(str, entries)) == sorted(str(store.path(p)) for p in choices)
    for path in entries:
        entry = json.loads(path.read_text())
        assert all(t["seconds"] is not None for t in entry["timings"].values())


class _ScriptedBackend:
    """Times each variant by a script of seconds, counting the runs it was asked for."""

    name = "scripted"

    def __init__(self, script):
        self.script = {name: list(times) for name, times in script.items()}
        self.runs = {name: 0 for name in script}

    def prepare(self, variant, problem):
        pass

    def time(self, call, repeat):
        name = call()
        self.runs[name] += repeat
        return [self.script[name].pop(0) for _ in range(repeat)]


def _variants(names):
    from dspk.plugin import Variant
    return [Variant(name, lambda name=name: name, "s") for name in names]


def test_clear_losers_are_timed_once_and_contenders_until_settled():
    backend = _ScriptedBackend({"fast": [1.0] * 9, "close": [1.1, 1.4, 1.5] + [1.0] * 6,
                                "slow": [3.0] * 9})
    timings = tuner._measure(backend, PROBLEM, _variants(["fast", "close", "slow"]), (), 60)
    assert backend.runs == {"fast": 4, "close": 3, "slow": 1}  # fast, first: once more
    assert timings["fast"]["seconds"] == 1.0 and timings["slow"]["seconds"] == 3.0


def test_the_first_variant_is_timed_again_after_meeting_the_process_cold():
    # Its first run paid for the process's warm-up (thread pools, fresh pages): by that
    # run alone it would be a clear loser, never repeated, and "warm" would win.
    backend = _ScriptedBackend({"cold": [3.0] + [1.0] * 9, "warm": [1.2] * 9})
    timings = tuner._measure(backend, PROBLEM, _variants(["cold", "warm"]), (), 60)
    assert timings["cold"]["seconds"] == 1.0 and timings["warm"]["seconds"] == 1.2
    assert tuner._winner(timings, _variants(["cold", "warm"]), None) == "cold"


def test_a_grid_size_after_a_clear_winner_times_only_the_two_best(cache):
    store = TuningStore("scripted", {"device": "scripted"})
    smaller = replace(PROBLEM, samples=PROBLEM.samples // 2)
    variants = _variants(["c", "b", "a"])

    def plan(a, b, c):
        store.save(smaller, {"a": {"source": "s", "seconds": a},
                             "b": {"source": "s", "seconds": b},
                             "c": {"source": "s", "seconds": c}}, "a", "0")
        taken, pruned, _ = tuner._grid_plan(store, PROBLEM, variants)
        return taken, [v.name for v in pruned]

    # Cheap to time (under EXTRAPOLATE_ABOVE once scaled to this size): timed.
    assert plan(0.001, 0.002, 0.005) == (None, ["c"])   # clear: the two best
    assert plan(0.001, 0.0011, 0.005) == (None, [])     # close: all of them
    # Costly: a clear winner is taken untimed, a close ranking times its two best.
    assert plan(1.0, 2.0, 5.0) == (("a", f"{smaller.channels}x{smaller.samples}"), [])
    assert plan(1.0, 1.1, 5.0) == (None, ["c"])

def _winner_made_a_list(entry):
    entry["winner"] = [entry["winner"]]
    return json.dumps(entry).encode()


@pytest.mark.parametrize("damage", [
    pytest.param(lambda entry: b"\xff\xfe\x00not utf-8", id="not-utf-8"),
    pytest.param(_winner_made_a_list, id="winner-not-a-string"),
    pytest.param(lambda entry: b"[" * 100_000 + b"]" * 100_000, id="nested-too-deep"),
    pytest.param(lambda entry: json.dumps({**entry, "timings": {
        name: {"source": t["source"]} for name, t in entry["timings"].items()}}).encode(),
        id="timing-without-seconds"),
    pytest.param(None, id="a-folder"),
])
def test_an_unreadable_entry_is_ignored_with_one_warning_and_replaced(cache, cpu, damage):
    tuner.choose(cpu, PROBLEM)
    path = TuningStore("cpu", cpu.fingerprint()).path(PROBLEM)
    entry = json.loads(path.read_text())
    if damage is None:
        path.unlink()
        path.mkdir()
    else:
        path.write_bytes(damage(entry))
    tuner.forget()
    with pytest.warns(TuningCacheWarning) as caught:
        assert tuner.choose(cpu, PROBLEM).name in entry["timings"]
    messages = [str(w.message) for w in caught if issubclass(w.category, TuningCacheWarning)]
    assert len(messages) == 1 and messages[0].startswith(
        f"dspk: ignoring tuning-cache entry {path}: "), messages
    assert _entry(cpu)["winner"] in entry["timings"], "replaced by a valid entry"


@pytest.mark.parametrize("root", ["a-file", "/dev/null"])
def test_a_cache_that_cannot_be_written_tunes_in_memory_with_one_warning(
        cache, cpu, monkeypatch, root):
    if root == "a-file":
        root = cache / "a-file"
        root.write_text("not a folder")
    monkeypatch.setenv("DSPK_CACHE_DIR", str(root))
    with pytest.warns(TuningCacheWarning) as caught:
        first = tuner.choose(cpu, PROBLEM)
        tuner.choose(cpu, replace(PROBLEM, samples=4096))
        assert tuner.choose(cpu, PROBLEM) == first  # remembered in this process
    messages = [str(w.message) for w in caught if issubclass(w.category, TuningCacheWarning)]
    assert len(messages) == 1, messages
    assert messages[0].startswith(f"dspk: the tuning cache under {root} cannot be written (")
    assert messages[0].endswith("); this process tunes in memory only")


def test_tuning_times_variants_on_copies_of_the_callers_arrays(cache, cpu, monkeypatch):
    """A first call tunes on its own arguments; a variant that wrongly writes them
    (here: zeroes the signal) must not change what the call then computes."""
    import numpy as np

    first, *_ = cpu.variants("sosfilt")

    def writes_its_signal(sos, x, axis, zi):
        x[...] = 0
        return first.run(sos=sos, x=x, axis=axis, zi=zi)

    writer = replace(first, name="writer", run=writes_its_signal, source="0" * 16)
    monkeypatch.setattr(cpu, "_variants", {**cpu._variants, "sosfilt": [first, writer]})
    monkeypatch.setattr(operations, "_variants", {})
    args = operations.OPERATIONS["sosfilt"].device_args(cpu, PROBLEM, np.random.default_rng(3))
    signal = args[1].copy()
    tuner.choose(cpu, PROBLEM, args)
    assert "writer" in _entry(cpu)["timings"]
    assert np.array_equal(args[1], signal)
