"""Choosing and opening the GPU adapter: the runtime's probe.

The high-performance adapter is used unless ``DSPK_WGPU_ADAPTER`` (a
case-insensitive substring of the adapter's name, vendor, description or
backend) selects another. A software adapter (llvmpipe, SwiftShader, WARP) is
slower than the cpu runtime, so it is refused unless ``DSPK_WGPU_ADAPTER``
selects it or ``DSPK_WGPU_ALLOW_CPU=1`` is set: installing dspk-wgpu on a
machine without a GPU must not make every call slower.

Finding that the only adapter is a software one costs a second or more (wgpu-py
loads its native library and the Vulkan loader starts every driver), and the
default runtime choice asks in every new process. On Linux the verdict is
remembered in the cache directory (:func:`dspk.tuning.store.cache_root`,
``wgpu-probe.json``) with the drivers it was found with: the Vulkan driver
manifests, the GPU device nodes, wgpu-py's version and the ``VK_*`` variables
that choose drivers. While they are the same, a new process is refused at once
with the remembered reason; a driver installed or removed, or a GPU appearing,
changes them, and the adapters are asked again (:func:`remembered_refusal`).

WebGPU's driver state belongs to the process that opened it: a child forked
from that process refuses to open an adapter (:func:`fork_reason`), and the
parent's devices refuse to work there, rather than hang in a driver whose
threads did not come along.
"""

from __future__ import annotations

import glob
import hashlib
import importlib.metadata
import json
import os
import sys
from typing import Any

from dspk.plugin import DeviceUnavailable
from dspk.tuning.store import cache_root

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


#: Where Linux keeps what decides which adapters WebGPU finds: the Vulkan loader's
#: driver manifests and the GPUs' device nodes.
_DRIVER_PLACES = ("/usr/share/vulkan/icd.d/*", "/etc/vulkan/icd.d/*",
                  "/usr/local/share/vulkan/icd.d/*", "~/.local/share/vulkan/icd.d/*",
                  "/dev/dri/*", "/dev/nvidia*", "/dev/kfd")

#: The file, under the cache directory, of the remembered software-only verdict.
PROBE_FILE = "wgpu-probe.json"


def drivers_key() -> str | None:
    """A hash of what decides which adapters this process would find, or None where it
    cannot be told (outside Linux): the files of :data:`_DRIVER_PLACES` with their
    modification times, wgpu-py's version and the ``VK_*`` environment variables."""
    if not sys.platform.startswith("linux"):
        return None
    files = []
    for place in _DRIVER_PLACES:
        for path in sorted(glob.glob(os.path.expanduser(place))):
            try:
                files.append(f"{path}:{os.stat(path).st_mtime_ns}")
            except OSError:
                files.append(path)
    try:
        version = importlib.metadata.version("wgpu")
    except importlib.metadata.PackageNotFoundError:
        version = "none"
    variables = sorted(f"{k}={v}" for k, v in os.environ.items() if k.startswith("VK_"))
    text = "\n".join([version, *variables, *files])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def remembered_refusal() -> str | None:
    """The reason remembered for refusing the adapters with today's drivers, if any."""
    key = drivers_key()
    if key is None:
        return None
    try:
        entry = json.loads((cache_root() / PROBE_FILE).read_text())
        return entry["reason"] if entry["drivers"] == key else None
    except (OSError, ValueError, TypeError, KeyError):
        return None


def remember_refusal(reason: str) -> None:
    """Keep ``reason`` as the verdict for today's drivers (nothing where it cannot be
    written, or outside Linux)."""
    key = drivers_key()
    if key is None:
        return
    try:
        root = cache_root()
        root.mkdir(parents=True, exist_ok=True)
        temporary = root / f".{PROBE_FILE}.{os.getpid()}"
        temporary.write_text(json.dumps({"drivers": key, "reason": reason}))
        os.replace(temporary, root / PROBE_FILE)
    except OSError:
        pass


def select_adapter() -> Any:
    """The adapter to open, by the policy above, or :class:`DeviceUnavailable`."""
    global _opened_in
    allow_cpu = os.environ.get("DSPK_WGPU_ALLOW_CPU", "") == "1"
    wanted = os.environ.get("DSPK_WGPU_ADAPTER", "").strip()
    remembered = not (allow_cpu or wanted) and remembered_refusal()
    if remembered:
        raise DeviceUnavailable(f"{remembered} (remembered for these drivers)")
    wgpu = _import_wgpu()
    reason = _opened_in and fork_reason(_opened_in)
    if reason:
        raise DeviceUnavailable(reason)
    _opened_in = os.getpid()
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
    if is_software(adapter) and not allow_cpu:
        reason = (f"the only adapter is {describe(adapter)}, a software (CPU) adapter slower "
                  "than the cpu runtime; set DSPK_WGPU_ALLOW_CPU=1, or DSPK_WGPU_ADAPTER to a "
                  "part of its name, to use it anyway")
        remember_refusal(reason)
        raise DeviceUnavailable(reason)
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
