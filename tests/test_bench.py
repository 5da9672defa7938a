"""``dspk bench``: runs every operation beside its peer and writes what it measured."""

from __future__ import annotations

import json
import subprocess
import sys

from dspk import bench


def test_bench_writes_a_row_per_operation_and_size(tmp_path):
    output = tmp_path / "bench.json"
    result = subprocess.run(
        [sys.executable, "-m", "dspk", "bench", "--shape", "3x2048", "4x1000", "--repeat", "1",
         "--dtype", "float32", "float64", "--runtime", "cpu", "--json", str(output)],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    rows = json.loads(output.read_text())["rows"]
    assert len(rows) == 2 * 2 * len(bench.case_names())
    for row in rows:
        assert row["dspk_ms"] > 0 and row["peer_ms"] > 0
        assert abs(row["ratio"] - row["peer_ms"] / row["dspk_ms"]) < 1e-9
        assert 0 < row["copy_fraction"]
    assert "| sosfilt | cpu | 3x2048 | float32 |" in result.stdout


def test_bench_refuses_unknown_operations():
    result = subprocess.run([sys.executable, "-m", "dspk", "bench", "--ops", "nonesuch"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "unknown operations ['nonesuch']" in result.stderr
