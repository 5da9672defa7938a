"""dspk-cuda and dspk-hip install, register, and report "no device" cleanly without a GPU.

Both packages are installed into a temporary folder (no dependencies, no
index), and each check runs in a fresh interpreter that sees them, so that
discovery happens as it would for a user. On a machine with CuPy and a GPU
these checks do not apply and skip.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]

pytestmark = pytest.mark.skipif(importlib.util.find_spec("cupy") is not None,
                                reason="CuPy is installed: the no-device checks need a "
                                       "machine without it")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    target = tmp_path_factory.mktemp("gpu-runtimes")
    for package in ("dspk-cuda", "dspk-hip"):
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                        "--no-index", "--no-build-isolation", "--target", str(target),
                        str(ROOT / package)], check=True, capture_output=True)
    return target


def _json(code: str, path: Path) -> dict:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("DSPK_RUNTIME", "DSPK_STRICT_RUNTIMES")}
    environment["PYTHONPATH"] = str(path)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**environment, "DSPK_STRICT_RUNTIMES": "1"})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_both_register_and_report_no_device(installed):
    code = """
import json, sys, dspk
info = {i["name"]: i for i in dspk.runtime.info()}
print(json.dumps({"available": dspk.runtime.available(), "info": info,
                  "cupy": "cupy" in sys.modules, "current": dspk.runtime.current()}))
"""
    result = _json(code, installed)
    assert result["available"][:2] == ["cuda", "hip"]
    for name in ("cuda", "hip"):
        reason = result["info"][name]["reason"]
        assert reason and "CuPy is not installed" in reason, result["info"][name]
    assert result["current"] not in ("cuda", "hip")


def test_explicit_choice_raises_the_probe_reason(installed):
    code = """
import json, numpy as np, dspk
try:
    dspk.rfft(np.zeros(8), runtime="cuda")
except Exception as error:
    print(json.dumps({"type": type(error).__name__, "message": str(error)}))
"""
    result = _json(code, installed)
    assert result["type"] == "RuntimeUnavailableError"
    assert "CuPy is not installed" in result["message"]
    assert "dspk[cuda]" in result["message"]


def test_kernel_sources_are_installed_as_package_data(installed):
    kernels = installed / "dspk_cuda" / "kernels"
    assert {p.name for p in kernels.iterdir()} >= {"common.cuh", "iir.cu", "fir.cu",
                                                   "framing.cu", "upfirdn.cu", "reference.cu"}
    assert not (installed / "dspk_hip" / "kernels").exists()
