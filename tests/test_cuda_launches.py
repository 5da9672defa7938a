"""Every cuda variant, kernels included, run on the CPU against a stand-in CuPy.

The stand-in is NumPy and scipy.fft under CuPy's names, and a ``RawModule``
that compiles the very kernel text the runtime hands NVRTC with the host
C++ compiler: a small header maps CUDA's dialect onto OpenMP (one OpenMP
thread per CUDA thread, a team per thread block run one block after
another, ``__syncthreads`` an OpenMP barrier, ``__shared__`` a static
variable). A launch checks grid and block sizes against CUDA's limits and
every argument against the kernel's parameter list (pointers must be arrays
of the pointee's dtype, ``index_t`` an int64, ``int`` an int32, ``T`` a
scalar of the instance's dtype) before it runs. Each variant then runs on
the catalogue's example inputs (float32 channel-major, float64
sample-major) and must match
the cpu runtime. This checks the kernels' logic and the host code; it says
nothing of speed, and the GPU run (tests/gpu/run.sh) remains the final word.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib
import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from scipy import fft as scipy_fft

sys.path.insert(0, str(Path(__file__).parents[1] / "dspk-cuda" / "src"))

from dspk.operations import OPERATIONS  # noqa: E402
from dspk.plugin import Problem  # noqa: E402

CXX = shutil.which("g++")
pytestmark = pytest.mark.skipif(CXX is None, reason="g++ is not installed: the CPU "
                                "emulation of the CUDA kernels needs a C++ compiler with OpenMP")

EMULATION_HEADER = r"""
#include <omp.h>
struct dspk_uint3 { unsigned int x, y, z; };
static thread_local dspk_uint3 threadIdx;
static dspk_uint3 blockIdx, blockDim, gridDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(n)
#define __align__(n)
alignas(16) unsigned char shared_bytes[1 << 16];
inline void __syncthreads() {
#pragma omp barrier
}
template <typename F>
void dspk_emulate(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                  F body) {
    omp_set_dynamic(0);
    gridDim = {gx, gy, gz};
    blockDim = {bx, by, bz};
    for (unsigned z = 0; z < gz; ++z)
        for (unsigned y = 0; y < gy; ++y)
            for (unsigned x = 0; x < gx; ++x) {
                blockIdx = {x, y, z};
#pragma omp parallel num_threads(bx * by * bz)
                {
                    unsigned t = omp_get_thread_num();
                    threadIdx = {t % bx, (t / bx) % by, t / (bx * by)};
                    body();
                }
            }
}
"""

SCALARS = {"index_t": ("long long", ctypes.c_longlong, np.int64),
           "long long": ("long long", ctypes.c_longlong, np.int64),
           "int": ("int", ctypes.c_int, np.int32),
           "float": ("float", ctypes.c_float, np.float32),
           "double": ("double", ctypes.c_double, np.float64)}
PARAMETER = re.compile(r"^(?P<const>const\s+)?(?P<base>[\w ]+?)\s*(?P<pointer>\*?)\s*\w+$")
KERNEL = re.compile(r"template\s*<(?P<template>[^>]*)>\s*__global__\s+void\s+"
                    r"(?:__launch_bounds__\((?P<bounds>\w+)\)\s+)?(?P<name>\w+)\s*"
                    r"\((?P<params>[^)]*)\)", re.S)


def _parameters(found, values):
    """(C type, is pointer, NumPy dtype, ctypes type) of each kernel parameter."""
    parameters = []
    for text in found["params"].split(","):
        match = PARAMETER.match(" ".join(text.split()))
        base = values.get(match["base"], match["base"])
        c_type, c_scalar, dtype = SCALARS[base]
        if match["pointer"]:
            const = "const " if match["const"] else ""
            parameters.append((f"{const}{c_type}*", True, dtype, ctypes.c_void_p))
        else:
            parameters.append((c_type, False, dtype, c_scalar))
    return parameters


class EmulatedModule:
    """``cupy.RawModule``: the code compiled for the host, one launcher per name expression."""

    def __init__(self, code, options=(), name_expressions=(), build=None):
        kernels = {m["name"]: m for m in KERNEL.finditer(code)}
        defines = dict(re.findall(r"#define (\w+) (\d+)", code))
        self.instances, launchers = {}, []
        for index, expression in enumerate(name_expressions):
            name, arguments = re.fullmatch(r"(\w+)<(.*)>", expression).groups()
            found = kernels[name]
            names = [p.split()[-1] for p in found["template"].split(",")]
            parameters = _parameters(found, dict(zip(names, (a.strip() for a in
                                                             arguments.split(",")))))
            declared = ", ".join(f"{'void*' if p[1] else p[0]} a{i}"
                                 for i, p in enumerate(parameters))
            passed = ", ".join(f"({p[0]})a{i}" if p[1] else f"a{i}"
                               for i, p in enumerate(parameters))
            launchers.append(
                f'extern "C" void launch_{index}(unsigned gx, unsigned gy, unsigned gz, '
                f"unsigned bx, unsigned by, unsigned bz, {declared}) {{ dspk_emulate(gx, gy, gz, "
                f"bx, by, bz, [&]() {{ {expression}({passed}); }}); }}")
            bounds = found["bounds"]
            self.instances[expression] = (index, parameters,
                                          int(defines.get(bounds, bounds)) if bounds else 1024)
        text = (EMULATION_HEADER + code.replace("extern __shared__", "extern") + "\n"
                + "\n".join(launchers) + "\n")
        library = EmulatedModule.build / f"{hashlib.sha1(text.encode()).hexdigest()[:16]}.so"
        if not library.exists():
            source = library.with_suffix(".cpp")
            source.write_text(text)
            subprocess.run([CXX, "-std=c++17", "-O1", "-fopenmp", "-shared", "-fPIC", "-o",
                            str(library), str(source)], check=True, capture_output=True)
        self.library = ctypes.CDLL(str(library))

    def get_function(self, expression):
        index, parameters, bounds = self.instances[expression]
        function = getattr(self.library, f"launch_{index}")
        function.argtypes = [ctypes.c_uint] * 6 + [p[3] for p in parameters]

        def launch(grid, block, args, shared_mem=0):
            grid, block = tuple(grid) + (1,) * (3 - len(grid)), tuple(block) + (1,) * (3 - len(block))
            assert all(isinstance(g, int) and g >= 1 for g in grid + block), (grid, block)
            assert grid[0] < 2 ** 31 and max(grid[1:]) <= 65535, grid
            assert int(np.prod(block)) <= bounds, (expression, block)
            assert 0 <= shared_mem <= 48 * 1024, shared_mem
            assert len(args) == len(parameters), (expression, len(args), len(parameters))
            values = []
            for arg, (c_type, pointer, dtype, _) in zip(args, parameters):
                if pointer:
                    assert isinstance(arg, np.ndarray) and arg.dtype == dtype, \
                        (expression, c_type, type(arg), getattr(arg, "dtype", None))
                    values.append(arg.ctypes.data)
                else:
                    assert type(arg) is np.dtype(dtype).type, (expression, c_type, type(arg))
                    values.append(arg.item())
            function(*grid, *block, *values)

        return launch


def _stand_in_cupy() -> types.ModuleType:
    cupy = types.ModuleType("cupy")
    cupy.__dict__.update({k: getattr(np, k) for k in dir(np) if not k.startswith("_")})
    cupy.fft = types.SimpleNamespace(rfft=scipy_fft.rfft, irfft=scipy_fft.irfft,
                                     fft=scipy_fft.fft, ifft=scipy_fft.ifft)
    cupy.asnumpy = np.asarray
    cupy.RawModule = EmulatedModule
    cupy.__version__ = "stand-in"
    return cupy


FAMILIES = ("iir", "fir", "spectral", "framing", "resampling", "multichannel")


@pytest.fixture(scope="module")
def variants(tmp_path_factory):
    """Every cuda variant by operation, its modules imported against the stand-in."""
    EmulatedModule.build = tmp_path_factory.mktemp("emulated-kernels")
    # Barrier waits yield the core (read when OpenMP first loads): threads
    # outnumber cores by far in the emulation.
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    names = ["cupy"] + [f"dspk_cuda.{f}" for f in FAMILIES + ("sources",)]
    saved = {name: sys.modules.pop(name, None) for name in names}
    sys.modules["cupy"] = _stand_in_cupy()
    found = {}
    for family in FAMILIES:
        found.update(importlib.import_module(f"dspk_cuda.{family}").VARIANTS)
    yield found
    for name, module in saved.items():
        sys.modules.pop(name, None)
        if module is not None:
            sys.modules[name] = module


@pytest.fixture(scope="module")
def cpu():
    from dspk_cpu.backend import CpuBackend

    return CpuBackend()


def _cases():
    for op in OPERATIONS.values():
        for params in op.grid_params:
            # Both dtypes and both layouts, in two runs (the emulation is slow).
            for dtype, layout in (("float32", "channel-major"), ("float64", "sample-major")):
                yield pytest.param(op.name, params, dtype, layout,
                                   id=f"{op.name}-{dtype}-{layout}-{params}")


def _outputs(result):
    return result if isinstance(result, tuple) else (result,)


@pytest.mark.parametrize(("op", "params", "dtype", "layout"), list(_cases()))
def test_variant_matches_cpu(variants, cpu, op, params, dtype, layout):
    # 1531 samples: several IIR blocks (a scan of 8 threads), FIR tiles and segments.
    problem = Problem.make(op, dtype, 3, 1531, layout, **params)
    example = OPERATIONS[op].example_args(problem, np.random.default_rng(0))
    reference = cpu.variants(op)[0].run(*example)
    assert variants.get(op), f"cuda has no variant of {op}"
    tolerance = 1e-4 if dtype == "float32" else 1e-10
    for variant in variants[op]:
        if not variant.supports(problem):
            continue
        got = variant.run(*example)
        for g, want in zip(_outputs(got), _outputs(reference)):
            if want is None:
                assert g is None
                continue
            g, want = np.asarray(g), np.asarray(want)
            assert g.shape == want.shape, variant.name
            assert g.dtype == want.dtype, variant.name
            error = np.linalg.norm(g - want) / max(np.linalg.norm(want), 1e-300)
            assert error <= tolerance, (variant.name, error)
