"""numba's disk cache shared by processes: kernels cached by different processes work
together in a third (each zero-phase IIR kernel calls a sweep of its own size, a symbol
of the cached code).

Three interpreters compile from nothing (about 25 s): marked exhaustive, which CI runs."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

CALL = """
import sys, json, numpy as np, scipy.signal as s, dspk
from dspk.tuning.tuner import forced_variant
x = np.random.default_rng(0).standard_normal((8, 2048)).astype(np.float32)
errors = []
for order in map(int, sys.argv[1:]):
    sos = s.butter(order, 0.1, output="sos")
    with forced_variant("sosfiltfilt", "numba-channel-blocks"):
        y = dspk.sosfiltfilt(sos, x)
    want = s.sosfiltfilt(sos, x.astype(np.float64))
    errors.append(float(np.linalg.norm(y - want) / np.linalg.norm(want)))
print(json.dumps(errors))
"""


def _run(tmp_path, *orders):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
           "DSPK_CACHE_DIR": str(tmp_path / "dspk"), "DSPK_RUNTIME": "cpu"}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(CALL), *map(str, orders)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.exhaustive
def test_zero_phase_kernels_cached_by_two_processes_run_together_in_a_third(tmp_path):
    """Two filters of different section counts, compiled in separate processes: the
    process loading both used to run one through the other's sweep (NaN, or the
    process aborted on a corrupted heap)."""
    _run(tmp_path, 8)  # four sections
    _run(tmp_path, 4)  # two sections
    errors = _run(tmp_path, 8, 4, 8)
    assert max(errors) < 1e-5, errors
