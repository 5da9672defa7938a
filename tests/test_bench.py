"""``dspk bench``: runs every operation beside its peer and writes what it measured.

The command runs in this process: by default on one tiny case, in the
exhaustive set on every case at two shapes and both dtypes.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from scipy.signal import sosfilt as scipy_sosfilt

from dspk import bench, cli


@pytest.mark.parametrize(("ops", "shapes", "dtypes"), [
    (["--ops", "sosfilt"], ["2x256"], ["float32"]),
    pytest.param([], ["3x2048", "4x1000"], ["float32", "float64"], marks=pytest.mark.exhaustive),
], ids=["one-tiny-case", "every-case"])
def test_bench_writes_a_row_per_operation_and_size(ops, shapes, dtypes, tmp_path, capsys):
    output = tmp_path / "bench.json"
    status = cli.main(["bench", *ops, "--shape", *shapes, "--repeat", "1", "--dtype", *dtypes,
                       "--runtime", "cpu", "--json", str(output)])
    printed = capsys.readouterr()
    assert status == 0, printed.err
    rows = json.loads(output.read_text())["rows"]
    assert len(rows) == len(shapes) * len(dtypes) * len(ops[1:] or bench.case_names())
    for row in rows:
        assert row["dspk_ms"] > 0 and row["peer_ms"] > 0
        assert abs(row["ratio"] - row["peer_ms"] / row["dspk_ms"]) < 1e-9
        assert 0 < row["copy_fraction"]
    assert f"| sosfilt | cpu | {shapes[0]} | float32 | scipy |" in printed.out
    assert {row["peer"] for row in rows} == {"scipy"}


def test_bench_refuses_unknown_operations(capsys):
    assert cli.main(["bench", "--ops", "nonesuch"]) == 2
    assert "unknown operations ['nonesuch']" in capsys.readouterr().err


def test_a_runtime_supplies_its_own_peer_and_device_copy(tmp_path, monkeypatch):
    """A backend's bench_peers replaces scipy for its cases; bench_copy sets the floor."""
    from scipy import signal

    from dspk.registry import registry

    backend = registry().open("cpu")
    seen, events = [], []

    def toy_sosfilt(x):
        seen.append(x)
        events.append("peer")
        return signal.sosfilt(bench.design().sos, x)

    def copy(x):
        events.append("copy")
        return x.copy()

    monkeypatch.setattr(backend, "bench_peers", lambda: {"sosfilt": ("toy-peer", toy_sosfilt)})
    monkeypatch.setattr(backend, "bench_copy", copy)
    monkeypatch.setattr(backend, "wait", lambda: events.append("wait"))
    monkeypatch.setattr(bench, "BATCH_SECONDS", 0.0)
    output = tmp_path / "bench.json"
    rows = bench.run(["sosfilt", "lfilter"], ["cpu"], [(3, 2048, "float32")], 2,
                     str(output), progress=False)

    assert [(r.op, r.peer) for r in rows] == [("sosfilt", "toy-peer"), ("lfilter", "scipy")]
    # warm-up, the call that sets the loop's length (one call: BATCH_SECONDS is 0) and two
    # timed runs, on the very array dspk ran on
    assert len(seen) == 1 + 1 + 2
    assert all(x.shape == (3, 2048) and x.dtype == np.float32 for x in seen)
    # Every call of the peer and of the copy is followed by the device wait.
    for i, event in enumerate(events):
        if event in ("peer", "copy"):
            assert events[i + 1] == "wait"
    assert events.count("copy") == 1 + 5  # measured once per runtime and size
    saved = json.loads(output.read_text())
    assert [row["peer"] for row in saved["rows"]] == ["toy-peer", "scipy"]
    device = saved["device_copy_bandwidth_gb_per_s"]["cpu"][str(3 * 2048 * 4)]
    for row in saved["rows"]:
        # "of copy" is against the device copy, not the host's.
        assert abs(row["copy_fraction"] - row["gb_per_s"] / device) < 1e-9 * row["copy_fraction"]
    assert "| sosfilt | cpu | 3x2048 | float32 | toy-peer |" in bench.table(rows)


def test_a_failing_runtime_peer_is_a_row_that_says_so(tmp_path, monkeypatch):
    from dspk.registry import registry

    def broken(x):
        raise RuntimeError("no such kernel")

    monkeypatch.setattr(registry().open("cpu"), "bench_peers",
                        lambda: {"welch": ("toy-peer", broken)})
    output = tmp_path / "bench.json"
    (row,) = bench.run(["welch"], ["cpu"], [(2, 512, "float64")], 1, str(output),
                       progress=False)
    assert row.peer == "toy-peer (failed: RuntimeError)" and np.isnan(row.peer_ms)
    saved = json.loads(output.read_text())["rows"][0]
    assert saved["peer_ms"] is None and saved["ratio"] is None and saved["dspk_ms"] > 0


def test_the_cuda_peers_are_bench_cases_computing_what_scipy_computes(monkeypatch):
    """dspk_cuda's peers, on a stand-in CuPy (NumPy) and cupyx (scipy): the cases' results."""
    from scipy import fft, signal

    cupy = types.ModuleType("cupy")
    cupy.asarray, cupy.median, cupy.fft = np.asarray, np.median, fft
    cupy.ndarray = type("ndarray", (), {})  # scipy asks; nothing here is a CuPy array
    cupyx, cupyx_scipy = types.ModuleType("cupyx"), types.ModuleType("cupyx.scipy")
    cupyx.scipy, cupyx_scipy.signal = cupyx_scipy, signal
    for name, module in (("cupy", cupy), ("cupyx", cupyx), ("cupyx.scipy", cupyx_scipy),
                         ("cupyx.scipy.signal", signal)):
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.syspath_prepend(str(Path(__file__).parents[1] / "dspk-cuda" / "src"))
    # The peers module binds the stand-in cupyx: imported afresh here, dropped afterwards.
    monkeypatch.setitem(sys.modules, "dspk_cuda.peers", None)
    del sys.modules["dspk_cuda.peers"]
    from dspk_cuda.backend import CupyBackend

    backend = CupyBackend.__new__(CupyBackend)  # no probe: the stand-in has no device
    backend.cupy = cupy
    peers = backend.bench_peers()
    cases = {case.name: case for case in bench._cases()}
    assert set(peers) <= set(cases)
    assert {"sosfilt", "sosfiltfilt", "oaconvolve-129", "welch"} <= set(peers)
    x = np.random.default_rng(1).standard_normal((3, 2048)).astype(np.float32)
    for name, (label, peer) in peers.items():
        assert label in ("cupyx", "cupy")
        data = np.ascontiguousarray(x.T) if cases[name].layout == "sample-major" else x
        ours, theirs = peer(data), cases[name].peer(data)
        for got, want in zip(*(v if isinstance(v, tuple) else (v,) for v in (ours, theirs))):
            assert np.allclose(got, want, rtol=1e-3, atol=1e-3 * np.abs(want).max()), name
    copy = backend.bench_copy(x)
    assert copy is not x and np.array_equal(copy, x)


def test_short_calls_are_timed_in_loops(monkeypatch):
    """A call shorter than BATCH_SECONDS runs many times a timing; the stream case keeps
    one stream per shape, dtype and runtime, as a real-time loop does."""
    calls = []
    case = bench.Case("count", lambda x, r: calls.append("ours"),
                      lambda x: calls.append("peer"))
    bench.measure(case, "cpu", 2, 8, "float32", 2, 1e9)
    assert calls.count("ours") > 1 + 1 + 2 and calls.count("peer") > 1 + 1 + 2
    stream = next(c for c in bench._cases() if c.name == "SosfiltStream.push")
    x = np.random.default_rng(0).standard_normal((3, 40))
    y = np.concatenate([stream.ours(x[:, :20].copy(), "cpu"), stream.ours(x[:, 20:].copy(),
                                                                          "cpu")], axis=1)
    np.testing.assert_allclose(y, scipy_sosfilt(bench.design().sos, x), atol=1e-12)
