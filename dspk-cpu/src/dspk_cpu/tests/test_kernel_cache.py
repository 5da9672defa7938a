"""numba's disk cache shared by processes: kernels cached by different processes work
together in a third (each zero-phase IIR kernel calls a sweep of its own size, a symbol
of the cached code), and a kernel is built again when a module it imports changes.

Three interpreters compile the IIR kernels from nothing (about 25 s): marked exhaustive,
which CI runs."""

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


HELPER = """
from numba import njit

@njit(inline="always")
def step(v):
    return v * {factor}
"""

KERNEL = """
import numpy as np
from dspk_cpu import compiling
from kernels_of_a_test.helper import step

@compiling.cached_jit(nogil=True)
def scaled(a):
    out = np.empty_like(a)
    for i in range(a.size):
        out[i] = step(a[i])
    return out
"""


def test_a_cached_kernel_is_built_again_when_a_helper_module_changes(tmp_path):
    """numba checks a cached kernel against its own file only: a helper changed in
    another module must not leave the old machine code in use (``cached_jit``)."""
    package = tmp_path / "kernels_of_a_test"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "kernel.py").write_text(KERNEL)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    call = ("import numpy as np; from kernels_of_a_test.kernel import scaled; "
            "print(scaled(np.arange(3.0)).tolist())")
    for factor in (2.0, 3.0):
        (package / "helper.py").write_text(HELPER.format(factor=factor))
        done = subprocess.run([sys.executable, "-c", call], capture_output=True, text=True,
                              env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        assert json.loads(done.stdout.strip()) == [0.0, factor, 2 * factor]
