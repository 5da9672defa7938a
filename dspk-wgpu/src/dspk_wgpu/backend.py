"""The wgpu runtime: its adapter, fingerprint, device arrays, timer and variants."""

from __future__ import annotations

import time
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import numpy as np

from dspk.plugin import Backend
from dspk_wgpu.adapter import describe, open_device, select_adapter
from dspk_wgpu.arrays import supported


class WgpuBackend(Backend):
    """A GPU through WebGPU: WGSL compute shaders on float32 device arrays, and float64
    ones where the adapter offers 64-bit floats in shaders (``shader-f64``).

    Raises
    ------
    dspk.plugin.DeviceUnavailable
        When wgpu-py cannot be imported, there is no adapter, or the only one
        is a software adapter that was not asked for (see :mod:`dspk_wgpu.adapter`).
    """

    name = "wgpu"

    def __init__(self):
        adapter = select_adapter()
        # Imported after the probe: these need wgpu-py, which the probe checked.
        from dspk_wgpu import (
            detection,
            detrend,
            fft,
            filtfilt,
            fir,
            fourier,
            framing,
            iir,
            multichannel,
            resampling,
        )
        from dspk_wgpu.arrays import WgpuArray
        from dspk_wgpu.gpu import Gpu
        from dspk_wgpu.launch import on_device

        self.gpu = Gpu(adapter, open_device(adapter))
        self._array_type = WgpuArray
        limits = self.gpu.device.limits
        self._variants = {}
        for family in (iir, filtfilt, fir, fft, fourier, framing, detrend, resampling,
                       multichannel, detection):
            self._variants.update({op: [on_device(v, limits) for v in variants]
                                   for op, variants in family.VARIANTS.items()})

    def device(self) -> str:
        return describe(self.gpu.adapter)

    def fingerprint(self):
        info = self.gpu.adapter.info
        return {"vendor": str(info.get("vendor", "")), "vendor_id": str(info.get("vendor_id", "")),
                "device": str(info.get("device", "")), "device_id": str(info.get("device_id", "")),
                "backend": str(info.get("backend_type", "")),
                "driver": str(info.get("description", "")),
                "wgpu-py": version("wgpu"), "dspk-wgpu": version("dspk-wgpu")}

    def variants(self, op: str):
        """The operation's kernels, the default first. A tuned launch the device's limits
        do not hold (:func:`dspk_wgpu.launch.on_device`) supports no problem."""
        return self._variants.get(op, [])

    def asarray(self, x: np.ndarray) -> Any:
        """Copy a host array to the device: float32 or complex64, and float64 or complex128
        where the device has ``shader-f64``; other dtypes raise TypeError."""
        return self._array_type.from_numpy(self.gpu, np.asarray(x))

    def computes(self, dtype: Any) -> bool:
        """float32 and complex64; float64 and complex128 too where the device has
        ``shader-f64`` (every kernel then computes them; see
        :func:`dspk_wgpu.arrays.check_dtype`)."""
        return np.dtype(dtype) in supported(self.gpu)

    def max_array_bytes(self) -> int:
        """The device's largest storage-buffer binding (``Gpu.max_binding``)."""
        return self.gpu.max_binding

    def to_numpy(self, x: Any) -> np.ndarray:
        return x.to_numpy() if self.is_native(x) else np.asarray(x)

    def is_native(self, x: Any) -> bool:
        return isinstance(x, self._array_type) and x.gpu is self.gpu

    def wait(self) -> None:
        """Block until the submitted command buffers are done."""
        self.gpu.wait()

    def time(self, call: Callable[[], Any], repeat: int) -> list[float]:
        """Device time from timestamp queries where the adapter has them, else wall time
        around submission and completion; after one warm-up."""
        call()
        self.gpu.wait()
        if self.gpu.timestamps:
            return [self.gpu.timed(call) for _ in range(repeat)]
        seconds = []
        for _ in range(repeat):
            start = time.perf_counter()
            call()
            self.gpu.wait()
            seconds.append(time.perf_counter() - start)
        return seconds
