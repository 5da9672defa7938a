"""A CPU stand-in for CuPy and a GPU: the cuda and hip runtimes, kernels included, without either.

:func:`make` builds a ``cupy`` module for a platform (``"cuda"`` or
``"hip"``, :data:`cuda_standin.device.PLATFORMS`): device arrays that host
code cannot mix with NumPy's (:mod:`cuda_standin.arrays`), ``cupy.cuda``
with the platform's device properties (:mod:`cuda_standin.device`), and a
``RawModule`` that compiles the runtime's kernel text for the host and runs
each launch in CUDA's execution model, checked as a GPU checks it
(:mod:`cuda_standin.emulation`). :func:`installed` puts it in
``sys.modules`` for a while (tests/test_cuda_launches.py); the pytest plugin
:mod:`cuda_standin.plugin` installs it for a whole run, so that the runtime
opens on it through dspk's registry (``conformance.sh`` runs the
conformance kit so, under AddressSanitizer).

It proves the kernels' logic, their launches and the host code's use of
CuPy; not speed, and not what only a GPU compiler or library decides
(NVRTC's or hipRTC's acceptance of the text, cuFFT's and cuBLAS's results).
"""

from __future__ import annotations

import contextlib
import functools
import sys
import types

import numpy as np

from cuda_standin import arrays, device, emulation
from dspk.arrays import DLPACK_GPUS


def make(platform: str = "cuda") -> types.ModuleType:
    """The stand-in ``cupy`` module for ``platform``."""
    limits = device.PLATFORMS[platform]
    arrays.DLPACK_DEVICE_TYPE = next(kind for kind, name in DLPACK_GPUS.items()
                                     if name == platform)
    cupy = types.ModuleType("cupy", f"CuPy's stand-in on the host CPU ({platform})")
    cupy.__dict__.update(arrays.OWN)
    cupy.__getattr__ = arrays.numpy_name  # any other NumPy name, on device arrays
    cupy.__version__ = f"stand-in ({platform})"
    cupy.cuda = device.cuda_namespace(limits)
    cupy.RawModule = functools.partial(emulation.EmulatedModule, limits=limits)
    cupy.get_array_module = lambda *args: (
        cupy if any(isinstance(a, arrays.ndarray) for a in args) else np)
    return cupy


def _bound_to_cupy(name: str) -> bool:
    return name == "cupy" or name.split(".")[0] in ("dspk_cuda", "dspk_hip")


@contextlib.contextmanager
def installed(platform: str = "cuda"):
    """The stand-in as ``cupy`` in ``sys.modules``, with dspk-cuda and dspk-hip imported afresh."""
    saved = {name: sys.modules.pop(name) for name in list(sys.modules) if _bound_to_cupy(name)}
    sys.modules["cupy"] = cupy = make(platform)
    try:
        yield cupy
    finally:
        for name in [n for n in sys.modules if _bound_to_cupy(n)]:
            del sys.modules[name]
        sys.modules.update(saved)
