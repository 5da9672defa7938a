"""The cuda runtime's backend: device, fingerprint, timer, arrays and the variants of every family.

:class:`CupyBackend` holds everything that does not depend on the GPU
vendor; :class:`CudaBackend` opens it on a CUDA build of CuPy, and dspk-hip
subclasses it for ROCm. The variant modules import CuPy at their top, so
they are imported only after the probe has found a device.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version

import numpy as np

from dspk.arrays import DLPACK_GPUS
from dspk.plugin import Backend, Problem, Variant
from dspk_cuda import device, sources

#: The modules whose ``VARIANTS`` make up the runtime, one per family.
FAMILIES = ("iir", "fir", "spectral", "framing", "resampling", "multichannel", "detection")


def _version(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "source tree"


class CupyBackend(Backend):
    """A CuPy device, on the platform named by ``platform`` ("cuda" or "hip")."""

    name = "cupy"
    platform = "cuda"
    distribution = "dspk-cuda"

    def __init__(self):
        self.cupy = device.probe(self.platform)
        self.warp_size = device.warp_size(self.cupy)
        self._variants: dict[str, list[Variant]] = {}
        for family in FAMILIES:
            module = importlib.import_module(f"dspk_cuda.{family}")
            self._variants.update(module.VARIANTS)

    def device(self) -> str:
        fp = device.fingerprint(self.cupy)
        arch = fp["arch"] or f"compute capability {fp['compute_capability']}"
        return f"{fp['name']} ({arch}, warp {fp['warp_size']}), CuPy {fp['cupy']}"

    def fingerprint(self):
        return {**device.fingerprint(self.cupy), self.distribution: _version(self.distribution)}

    def variants(self, op: str):
        return self._variants.get(op, [])

    def asarray(self, x: np.ndarray):
        return self.cupy.asarray(x)

    def to_numpy(self, x) -> np.ndarray:
        return self.cupy.asnumpy(x)

    def is_native(self, x) -> bool:
        return isinstance(x, self.cupy.ndarray)

    def from_dlpack(self, x):
        """An array of another library in this platform's GPU memory (DLPack), as a CuPy
        array over the same memory (:meth:`dspk.plugin.Backend.from_dlpack`)."""
        if DLPACK_GPUS.get(x.__dlpack_device__()[0]) != self.platform:
            return None
        return self.cupy.from_dlpack(x)

    def prepare(self, variant: Variant, problem: Problem) -> None:
        """Compile every kernel source, then run the variant once on a small input
        (:meth:`dspk.plugin.Backend.prepare`)."""
        sources.compile_all()
        super().prepare(variant, problem)

    def wait(self) -> None:
        """Block until the current stream's work is done."""
        self.cupy.cuda.get_current_stream().synchronize()

    def bench_peers(self):
        """cupyx.scipy.signal, or cupy, for each bench case (see :mod:`dspk_cuda.peers`)."""
        from dspk_cuda import peers

        return peers.peers(self.cupy)

    def bench_copy(self, x):
        """A device copy of ``x``: the floor of the bench's "of copy"."""
        return x.copy()

    def time(self, call, repeat: int) -> list[float]:
        """Seconds per run from device events, after one warm-up run.

        The tuner takes the median.
        """
        return device.time_events(self.cupy, call, repeat)


class CudaBackend(CupyBackend):
    """NVIDIA GPUs through a CUDA build of CuPy; refuses a ROCm build."""

    name = "cuda"
    platform = "cuda"
    distribution = "dspk-cuda"
