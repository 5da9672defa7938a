"""The cpu runtime: its device, fingerprint, kernel variants and thread count."""

from __future__ import annotations

import functools
import platform
from importlib.metadata import version

import numpy as np
from dspk.operations import OPERATIONS
from dspk.plugin import Backend, Problem, Variant

from dspk_cpu import numba_kernels, scipy_kernels
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


def _is_direct(problem: Problem) -> bool:
    return problem.param("method") in ("auto", "direct")


def _is_fft(problem: Problem) -> bool:
    return problem.param("method") in ("auto", "fft")


class CpuBackend(Backend):
    """The processor, through numba kernels and scipy, on all allowed cores."""

    name = "cpu"

    def __init__(self):
        self._variants = {
            "sosfilt": [numba_kernels.SOSFILT, scipy_kernels.SOSFILT],
            "lfilter": [numba_kernels.LFILTER, scipy_kernels.LFILTER],
            "sosfiltfilt": [numba_kernels.SOSFILTFILT, scipy_kernels.SOSFILTFILT],
            "filtfilt": [numba_kernels.FILTFILT, scipy_kernels.FILTFILT],
            "convolve": [
                Variant("numba-direct", numba_kernels.convolve_direct,
                        numba_kernels.SOURCE, _is_direct),
                Variant("fft-whole", scipy_kernels.convolve_fft, scipy_kernels.SOURCE, _is_fft),
                Variant("fft-overlap-add", scipy_kernels.convolve_overlap_add,
                        scipy_kernels.SOURCE, _is_fft),
            ],
        }

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
