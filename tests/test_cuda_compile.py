"""Every CUDA kernel source compiles for sm_80 and sm_90, float and double, without a warning.

The text compiled is exactly what the runtime hands NVRTC
(:func:`dspk_cuda.sources.text`), followed by a line that takes the address
of every template instance the runtime asks for, so that each instance is
compiled; the resulting cubin must define each of them. nvcc treats every
warning as an error. Needs nvcc, not a GPU.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "dspk-cuda" / "src"))

from dspk_cuda import sources  # noqa: E402

NVCC = shutil.which("nvcc")
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc is not installed: the CUDA "
                                "compile check needs the CUDA toolkit (no GPU)")


def _translation_unit(name: str) -> str:
    instances = [f"(void*)&{expression}" for c_type in sources.C_TYPES.values()
                 for expression in sources.INSTANCES[name](c_type)]
    return (sources.text(name) + "\nvoid* dspk_instances[] = {" + ", ".join(instances)
            + "};\n")


def _mangled_base(expression: str) -> str:
    base = expression.split("<")[0]
    return f"{len(base)}{base}I"


# sm_90 (H100, H200) by default; sm_80 (A100) in the exhaustive set
@pytest.mark.parametrize("arch", [pytest.param("sm_80", marks=pytest.mark.exhaustive), "sm_90"])
@pytest.mark.parametrize("name", sorted(sources.INSTANCES))
def test_source_compiles_without_warnings(name, arch, tmp_path):
    unit = tmp_path / f"{name}.cu"
    unit.write_text(_translation_unit(name))
    cubin = tmp_path / f"{name}.cubin"
    result = subprocess.run([NVCC, "-std=c++14", "-cubin", f"-arch={arch}", "-Werror",
                             "all-warnings", "-o", str(cubin), str(unit)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert not result.stderr.strip(), result.stderr
    symbols = set(re.findall(rb"_Z\w+", cubin.read_bytes()))
    for c_type, letter in (("float", "f"), ("double", "d")):
        for expression in sources.INSTANCES[name](c_type):
            prefix = (_mangled_base(expression) + letter).encode()
            assert any(prefix in s for s in symbols), f"{expression} is missing from the cubin"


def test_every_kernel_source_is_listed():
    kernels = Path(sources.__file__).parent / "kernels"
    assert {p.stem for p in kernels.glob("*.cu")} == set(sources.INSTANCES)
