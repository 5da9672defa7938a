"""The cpu runtime: its device, fingerprint and kernel variants."""

from __future__ import annotations

import functools
import platform
from importlib.metadata import version

import numpy as np
from dspk.operations import OPERATIONS
from dspk.plugin import Backend, Problem, Variant

from dspk_cpu import filtering, multichannel, resampling, spectral
from dspk_cpu.threads import threads


@functools.cache
def _processor() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


class CpuBackend(Backend):
    """The processor, through numba kernels and scipy, on all allowed cores."""

    name = "cpu"

    def __init__(self):
        self._variants = {}
        for family in (filtering, spectral, resampling, multichannel):
            self._variants.update(family.VARIANTS)

    def device(self) -> str:
        return f"{_processor()}, {threads()} threads"

    def fingerprint(self):
        return {"processor": _processor(), "machine": platform.machine(),
                "threads": str(threads()), "numpy": np.__version__,
                "numba": version("numba"), "scipy": version("scipy"),
                "dspk-cpu": version("dspk-cpu")}

    def variants(self, op: str):
        return self._variants.get(op, [])

    def prepare(self, variant: Variant, problem: Problem) -> None:
        """Compile a variant for the problem's dtype and layout on a small input."""
        small = Problem(problem.op, problem.dtype, min(problem.channels, 2), 1024,
                        problem.layout, problem.params)
        variant.run(*OPERATIONS[problem.op].example_args(small, np.random.default_rng(0)))
