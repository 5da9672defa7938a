"""Every cuda variant's host code, run on the CPU against a stand-in CuPy.

The stand-in is NumPy and scipy.fft under CuPy's names, with a
``RawModule`` that parses the kernel sources: a launch checks the grid and
block sizes against CUDA's limits and every argument against the kernel's
parameter list (pointers must be arrays of the pointee's dtype, ``index_t``
an int64, ``int`` an int32, ``T`` a scalar of the instance's dtype), and
computes nothing. So each variant runs its real argument preparation,
geometry, transition matrices and launches on the catalogue's example
inputs in both dtypes and layouts; a variant that launched no kernel (the
cuFFT, cuBLAS and reduction variants) is compared with the cpu runtime's
result, and every output is checked for shape and dtype against it.
"""

from __future__ import annotations

import importlib
import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from scipy import fft as scipy_fft

sys.path.insert(0, str(Path(__file__).parents[1] / "dspk-cuda" / "src"))

from dspk.operations import OPERATIONS  # noqa: E402
from dspk.plugin import Problem  # noqa: E402

SCALARS = {"index_t": np.int64, "long long": np.int64, "int": np.int32}
C_DTYPES = {"float": np.float32, "double": np.float64}
PARAMETER = re.compile(r"^(?:const\s+)?(?P<base>[\w ]+?)\s*(?P<pointer>\*?)\s*\w+$")
KERNEL = re.compile(r"template\s*<(?P<template>[^>]*)>\s*__global__\s+void\s+"
                    r"(?:__launch_bounds__\((?P<bounds>\w+)\)\s+)?(?P<name>\w+)\s*"
                    r"\((?P<params>[^)]*)\)", re.S)


class StandInKernel:
    """A launch that checks its configuration and arguments, and runs nothing."""

    def __init__(self, name, parameters, bounds, launches):
        self.name, self.parameters, self.bounds, self.launches = name, parameters, bounds, launches

    def __call__(self, grid, block, args, shared_mem=0):
        assert len(grid) <= 3 and len(block) <= 3
        assert all(isinstance(g, int) and g >= 1 for g in grid), grid
        assert grid[0] < 2 ** 31 and all(g <= 65535 for g in grid[1:]), grid
        assert 1 <= int(np.prod(block)) <= (self.bounds or 1024), block
        assert 0 <= shared_mem <= 48 * 1024, shared_mem
        assert len(args) == len(self.parameters), (self.name, len(args), len(self.parameters))
        for arg, (base, pointer, dtype) in zip(args, self.parameters):
            if pointer:
                assert isinstance(arg, np.ndarray), (self.name, base, type(arg))
                assert arg.dtype == dtype, (self.name, base, arg.dtype, dtype)
            else:
                assert type(arg) is np.dtype(dtype).type, (self.name, base, type(arg), dtype)
        self.launches.append(self.name)


class StandInModule:
    """``cupy.RawModule``: template kernels found in the code, instances by name expression."""

    launches: list[str] = []

    def __init__(self, code, options=(), name_expressions=()):
        self.kernels = {m["name"]: m for m in KERNEL.finditer(code)}
        self.expressions = set(name_expressions)
        self.defines = dict(re.findall(r"#define (\w+) (\d+)", code))

    def get_function(self, expression):
        assert expression in self.expressions, expression
        name, arguments = re.fullmatch(r"(\w+)<(.*)>", expression).groups()
        found = self.kernels[name]
        names = [p.split()[-1] for p in found["template"].split(",")]
        values = dict(zip(names, (a.strip() for a in arguments.split(","))))
        parameters = []
        for text in found["params"].split(","):
            match = PARAMETER.match(" ".join(text.split()))
            base = match["base"]
            dtype = (C_DTYPES[values[base]] if base in values
                     else C_DTYPES.get(base) or SCALARS[base])
            parameters.append((base, bool(match["pointer"]), dtype))
        bounds = found["bounds"]
        bounds = int(self.defines.get(bounds, bounds)) if bounds else None
        return StandInKernel(name, parameters, bounds, StandInModule.launches)


def _stand_in_cupy() -> types.ModuleType:
    cupy = types.ModuleType("cupy")
    cupy.__dict__.update({k: getattr(np, k) for k in dir(np) if not k.startswith("_")})
    cupy.fft = types.SimpleNamespace(rfft=scipy_fft.rfft, irfft=scipy_fft.irfft,
                                     fft=scipy_fft.fft, ifft=scipy_fft.ifft)
    cupy.asnumpy = np.asarray
    cupy.RawModule = StandInModule
    cupy.__version__ = "stand-in"
    return cupy


FAMILIES = ("iir", "fir", "spectral", "framing", "resampling", "multichannel")


@pytest.fixture(scope="module")
def variants():
    """Every cuda variant by operation, its modules imported against the stand-in."""
    saved = {name: sys.modules.get(name) for name in ["cupy"] + [f"dspk_cuda.{f}" for f in
                                                                 FAMILIES + ("sources",)]}
    sys.modules["cupy"] = _stand_in_cupy()
    for name in saved:
        if name != "cupy":
            sys.modules.pop(name, None)
    found = {}
    for family in FAMILIES:
        found.update(importlib.import_module(f"dspk_cuda.{family}").VARIANTS)
    yield found
    for name, module in saved.items():
        if module is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = module


def _cpu_variants():
    from dspk_cpu.backend import CpuBackend

    return CpuBackend()


def _cases():
    for op in OPERATIONS.values():
        for params in op.grid_params:
            for dtype in ("float32", "float64"):
                for layout in ("channel-major", "sample-major"):
                    yield pytest.param(op.name, params, dtype, layout,
                                       id=f"{op.name}-{dtype}-{layout}-{params}")


def _outputs(result):
    return result if isinstance(result, tuple) else (result,)


@pytest.mark.parametrize(("op", "params", "dtype", "layout"), list(_cases()))
def test_variant_host_code(variants, op, params, dtype, layout):
    # Long enough for several IIR blocks and FIR tiles, short enough for the CPU.
    problem = Problem.make(op, dtype, 3, 5003, layout, **params)
    example = OPERATIONS[op].example_args(problem, np.random.default_rng(0))
    reference = _cpu_variants().variants(op)[0].run(*example)
    assert variants.get(op), f"cuda has no variant of {op}"
    for variant in variants[op]:
        if not variant.supports(problem):
            continue
        StandInModule.launches.clear()
        got = variant.run(*example)
        for g, want in zip(_outputs(got), _outputs(reference)):
            if want is None:
                assert g is None
                continue
            g, want = np.asarray(g), np.asarray(want)
            assert g.shape == want.shape, variant.name
            assert g.dtype == want.dtype, variant.name
            if not StandInModule.launches:
                tolerance = 1e-4 if dtype == "float32" else 1e-10
                error = np.linalg.norm(g - want) / max(np.linalg.norm(want), 1e-300)
                assert error <= tolerance, (variant.name, error)
