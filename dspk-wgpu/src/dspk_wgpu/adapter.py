"""Choosing and opening the GPU adapter: the runtime's probe.

The high-performance adapter is used unless ``DSPK_WGPU_ADAPTER`` (a
case-insensitive substring of the adapter's name, vendor, description or
backend) selects another. A software adapter (llvmpipe, SwiftShader, WARP) is
slower than the cpu runtime, so it is refused unless ``DSPK_WGPU_ADAPTER``
selects it or ``DSPK_WGPU_ALLOW_CPU=1`` is set: installing dspk-wgpu on a
machine without a GPU must not make every call slower.

WebGPU's driver state belongs to the process that opened it: a child forked
from that process refuses to open an adapter (:func:`fork_reason`), and the
parent's devices refuse to work there, rather than hang in a driver whose
threads did not come along.
"""

from __future__ import annotations

import os
from typing import Any

from dspk.plugin import DeviceUnavailable

_SOFTWARE_NAMES = ("llvmpipe", "lavapipe", "swiftshader", "warp", "basic render")


def describe(adapter: Any) -> str:
    """One line naming an adapter: device, description, backend and type."""
    info = adapter.info
    return (f"{info['device']} ({info.get('description', '')}) via {info['backend_type']}, "
            f"type {info.get('adapter_type', 'unknown')}")


def is_software(adapter: Any) -> bool:
    """Whether an adapter runs on the CPU (a software rasteriser)."""
    info = adapter.info
    text = f"{info['device']} {info.get('vendor', '')} {info.get('description', '')}".lower()
    return info.get("adapter_type") == "CPU" or any(name in text for name in _SOFTWARE_NAMES)


def _matches(adapter: Any, wanted: str) -> bool:
    info = adapter.info
    text = " ".join(str(info.get(key, "")) for key in
                    ("device", "vendor", "description", "backend_type"))
    return wanted.lower() in text.lower()


def _import_wgpu() -> Any:
    try:
        import wgpu
    except Exception as exc:  # noqa: BLE001 (no wheel here, or no native library)
        raise DeviceUnavailable(f"wgpu-py cannot be imported: {type(exc).__name__}: {exc}") \
            from None
    return wgpu


#: The process that first asked for an adapter, when one has.
_opened_in: int | None = None


def fork_reason(owner: int) -> str | None:
    """None in process ``owner``, which opened WebGPU; in a process forked from it,
    why WebGPU cannot be used there."""
    if owner == os.getpid():
        return None
    return (f"this process was forked from process {owner} after that one had opened "
            "WebGPU, whose driver state does not survive fork; start worker processes with "
            "the 'spawn' or 'forkserver' method to use the wgpu runtime in them")


def select_adapter() -> Any:
    """The adapter to open, by the policy above, or :class:`DeviceUnavailable`."""
    global _opened_in
    wgpu = _import_wgpu()
    reason = _opened_in and fork_reason(_opened_in)
    if reason:
        raise DeviceUnavailable(reason)
    _opened_in = os.getpid()
    wanted = os.environ.get("DSPK_WGPU_ADAPTER", "").strip()
    try:
        if wanted:
            adapters = wgpu.gpu.enumerate_adapters_sync()
            chosen = [a for a in adapters if _matches(a, wanted)]
            if not chosen:
                names = "; ".join(describe(a) for a in adapters) or "none"
                raise DeviceUnavailable(f"DSPK_WGPU_ADAPTER={wanted!r} matches no adapter "
                                        f"(adapters: {names})")
            return chosen[0]
        adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    except DeviceUnavailable:
        raise
    except Exception as exc:  # noqa: BLE001 (a driver failing to load reads as no device)
        raise DeviceUnavailable(f"no WebGPU adapter: {type(exc).__name__}: {exc}") from None
    if adapter is None:
        raise DeviceUnavailable("no WebGPU adapter (no Vulkan, Metal or D3D12 driver found)")
    if is_software(adapter) and os.environ.get("DSPK_WGPU_ALLOW_CPU", "") != "1":
        raise DeviceUnavailable(
            f"the only adapter is {describe(adapter)}, a software (CPU) adapter slower than "
            "the cpu runtime; set DSPK_WGPU_ALLOW_CPU=1, or DSPK_WGPU_ADAPTER to a part of "
            "its name, to use it anyway")
    return adapter


#: Optional features the device is opened with where the adapter offers them:
#: timestamps for the tuner, and 64-bit floats in shaders for float64 kernels.
FEATURES = ("timestamp-query", "shader-f64")


#: Limits the device is opened with at the adapter's values, above WebGPU's defaults:
#: storage buffers, and workgroups (their size and memory) for the tuned launches
#: (:mod:`dspk_wgpu.launch`).
LIMITS = ("max-storage-buffer-binding-size", "max-buffer-size",
          "max-compute-workgroup-storage-size", "max-compute-invocations-per-workgroup",
          "max-compute-workgroup-size-x")


def open_device(adapter: Any) -> Any:
    """A device with the adapter's :data:`LIMITS` and the :data:`FEATURES` it offers."""
    limits = adapter.limits
    wanted = {key: limits[key] for key in LIMITS if key in limits}
    features = [name for name in FEATURES if name in adapter.features]
    try:
        return adapter.request_device_sync(required_limits=wanted, required_features=features)
    except Exception as exc:  # noqa: BLE001 (any refusal means no device)
        raise DeviceUnavailable(f"{describe(adapter)} cannot open a device: "
                                f"{type(exc).__name__}: {exc}") from None
