"""The device the stand-in pretends to be: each platform's limits, and ``cupy.cuda``.

:data:`PLATFORMS` holds what a launch is checked against on each platform:
CUDA's limits as an H100/H200 reports them without opting in to larger
shared memory, and HIP's as an AMD Instinct GPU reports them (64-wide
wavefronts, 64 KiB of shared memory per block, and no dimension of
``gridDim * blockDim`` work-items reaching 2**32). :func:`cuda_namespace`
builds the ``cupy.cuda`` the runtimes' probe, fingerprint and timer use.
"""

from __future__ import annotations

import time
import types
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """A platform's launch limits and identity."""

    platform: str
    name: str
    warp_size: int
    #: Static and dynamic shared memory of one block together, in bytes.
    shared_bytes: int
    threads_per_block: int
    block_dims: tuple[int, int, int]
    grid_dims: tuple[int, int, int]
    #: The most work-items (``gridDim * blockDim``) along one dimension, or None.
    work_items: int | None
    compute_capability: str
    arch: str


PLATFORMS = {
    "cuda": Limits("cuda", "CUDA stand-in on the host CPU", 32, 48 * 1024, 1024,
                   (1024, 1024, 64), (2 ** 31 - 1, 65535, 65535), None, "90", ""),
    "hip": Limits("hip", "HIP stand-in on the host CPU", 64, 64 * 1024, 1024,
                  (1024, 1024, 1024), (2 ** 31 - 1, 65535, 65535), 2 ** 32 - 1, "942",
                  "gfx942 (stand-in)"),
}


class _Event:
    """A stream event: the host clock when recorded (launches are synchronous here)."""

    def __init__(self):
        self.at = None

    def record(self, stream=None):
        self.at = time.perf_counter()

    def synchronize(self):
        pass


class _Stream:
    def synchronize(self):
        pass


def cuda_namespace(limits: Limits) -> types.SimpleNamespace:
    """``cupy.cuda`` for ``limits``: one device, its properties, streams and events."""
    properties = {"name": limits.name.encode(), "warpSize": limits.warp_size,
                  "sharedMemPerBlock": limits.shared_bytes,
                  "maxThreadsPerBlock": limits.threads_per_block,
                  "maxThreadsDim": limits.block_dims, "maxGridSize": limits.grid_dims,
                  "gcnArchName": limits.arch.encode()}

    def device_properties(device_id):
        if device_id != 0:
            raise RuntimeError(f"cudaErrorInvalidDevice: the stand-in has one device, not "
                               f"{device_id}")
        return dict(properties)

    def nvrtc_version():
        if limits.platform == "hip":
            raise RuntimeError("hipRTC has no NVRTC version")
        return (12, 8)

    runtime = types.SimpleNamespace(
        is_hip=limits.platform == "hip", getDeviceCount=lambda: 1,
        getDeviceProperties=device_properties, driverGetVersion=lambda: 12080,
        runtimeGetVersion=lambda: 12080)
    device = types.SimpleNamespace(id=0, compute_capability=limits.compute_capability,
                                   use=lambda: None)
    stream = _Stream()
    return types.SimpleNamespace(
        runtime=runtime, Device=lambda device_id=0: device, Event=_Event,
        get_current_stream=lambda: stream,
        get_elapsed_time=lambda start, stop: (stop.at - start.at) * 1e3,
        nvrtc=types.SimpleNamespace(getVersion=nvrtc_version))
