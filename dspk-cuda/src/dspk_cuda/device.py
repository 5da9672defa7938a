"""Opening a CuPy device: the probes of the cuda and hip runtimes, fingerprint and timer.

CuPy is imported here, only when a runtime is first used. A CUDA build of
CuPy and a ROCm build are told apart by ``cupy.cuda.runtime.is_hip``; the
cuda runtime refuses a ROCm build and the hip runtime a CUDA build, each
with a reason a user can act on.

CUDA (and ROCm) cannot be used in a child forked from a process that had
initialised it: the probe refuses there, naming the cause, rather than let
CuPy's cached device state meet a driver that did not come along.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable
from typing import Any

from dspk.plugin import DeviceUnavailable

#: The package each platform's CuPy comes from, for the refusal messages.
WHEELS = {"cuda": "cupy-cuda12x (or cupy-cuda13x)", "hip": "cupy-rocm-7-0"}

#: The process whose probe first reached the driver, when one has.
_driver_process: int | None = None


def probe(platform: str):
    """Import CuPy and check that it is ``platform``'s build and sees a device.

    Parameters
    ----------
    platform : str
        ``"cuda"`` or ``"hip"``.

    Returns
    -------
    module
        The ``cupy`` module.

    Raises
    ------
    DeviceUnavailable
        CuPy is missing, is the other platform's build, or finds no device; or
        this process was forked from one that had initialised the driver.
    """
    global _driver_process
    try:
        import cupy
    except ImportError as error:
        raise DeviceUnavailable(
            f"CuPy is not installed ({error}); install dspk[{platform}] "
            f"or {WHEELS[platform]}") from None
    runtime = cupy.cuda.runtime
    if runtime.is_hip != (platform == "hip"):
        built = "ROCm" if runtime.is_hip else "CUDA"
        raise DeviceUnavailable(
            f"the installed CuPy is a {built} build; the {platform} runtime needs "
            f"{WHEELS[platform]}")
    if _driver_process not in (None, os.getpid()):
        raise DeviceUnavailable(
            f"this process was forked from process {_driver_process} after that one had "
            f"initialised the {platform} driver, which cannot be used in a forked child; "
            f"start worker processes with the 'spawn' or 'forkserver' method to use the "
            f"{platform} runtime in them")
    _driver_process = os.getpid()
    try:
        count = runtime.getDeviceCount()
    except Exception as error:  # CUDARuntimeError: no driver, or no device
        raise DeviceUnavailable(f"no {platform} device: {error}") from None
    if count < 1:
        raise DeviceUnavailable(f"no {platform} device: the driver reports none")
    try:
        cupy.cuda.Device().use()
        cupy.empty(1)
    except Exception as error:
        raise DeviceUnavailable(f"the {platform} device cannot be used: {error}") from None
    return cupy


def properties(cupy) -> dict[str, Any]:
    """The current device's properties, as the runtime API reports them."""
    return cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)


def device_name(cupy) -> str:
    """The current device's model name."""
    name = properties(cupy)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def warp_size(cupy) -> int:
    """Threads per warp (CUDA) or wavefront (ROCm) of the current device, as it reports."""
    return int(properties(cupy)["warpSize"])


def _nvrtc_version(cupy) -> str:
    try:
        return ".".join(str(part) for part in cupy.cuda.nvrtc.getVersion())
    except Exception:  # hipRTC builds, or NVRTC missing
        return "unavailable"


def fingerprint(cupy) -> dict[str, str]:
    """What identifies the device and its software stack for the tuning cache."""
    runtime = cupy.cuda.runtime
    props = properties(cupy)
    arch = props.get("gcnArchName", b"")
    return {
        "name": device_name(cupy),
        "compute_capability": str(cupy.cuda.Device().compute_capability),
        "arch": arch.decode() if isinstance(arch, bytes) else str(arch),
        "warp_size": str(warp_size(cupy)),
        "driver": str(runtime.driverGetVersion()),
        "runtime": str(runtime.runtimeGetVersion()),
        "nvrtc": _nvrtc_version(cupy),
        "cupy": cupy.__version__,
    }


def time_events(cupy, call: Callable[[], Any], repeat: int) -> list[float]:
    """Seconds per run of ``call`` from device events, after one warm-up run.

    Each run is bracketed by two events on the current stream; the elapsed
    time between them is what the device spent, without host overhead after
    the launch queue fills.
    """
    call()
    cupy.cuda.get_current_stream().synchronize()
    seconds = []
    for _ in range(repeat):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        call()
        stop.record()
        stop.synchronize()
        seconds.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3)
    return seconds


def median_seconds(cupy, call: Callable[[], Any], repeat: int) -> float:
    """The median of :func:`time_events`."""
    return statistics.median(time_events(cupy, call, repeat))
