"""The cuda and hip probes refuse the other platform's CuPy, and a CuPy without a device.

A stand-in ``cupy`` module (its runtime's ``is_hip`` flag and device count
set per case) replaces the real one, so this runs without CuPy or a GPU.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "dspk-cuda" / "src"))

from dspk.plugin import DeviceUnavailable  # noqa: E402
from dspk_cuda import device  # noqa: E402


def _stand_in(is_hip: bool, devices: int | Exception):
    def count():
        if isinstance(devices, Exception):
            raise devices
        return devices

    runtime = types.SimpleNamespace(is_hip=is_hip, getDeviceCount=count)
    cuda = types.SimpleNamespace(runtime=runtime, Device=lambda: types.SimpleNamespace(
        use=lambda: None))
    return types.SimpleNamespace(cuda=cuda, empty=lambda n: None)


@pytest.mark.parametrize(("platform", "is_hip", "built"), [("cuda", True, "ROCm"),
                                                           ("hip", False, "CUDA")])
def test_probe_refuses_the_other_build(monkeypatch, platform, is_hip, built):
    monkeypatch.setitem(sys.modules, "cupy", _stand_in(is_hip, 1))
    with pytest.raises(DeviceUnavailable, match=f"{built} build; the {platform} runtime"):
        device.probe(platform)


@pytest.mark.parametrize("platform", ["cuda", "hip"])
@pytest.mark.parametrize("devices", [0, RuntimeError("cudaErrorNoDevice")])
def test_probe_reports_no_device(monkeypatch, platform, devices):
    monkeypatch.setitem(sys.modules, "cupy", _stand_in(platform == "hip", devices))
    with pytest.raises(DeviceUnavailable, match=f"no {platform} device"):
        device.probe(platform)


@pytest.mark.parametrize("platform", ["cuda", "hip"])
def test_probe_accepts_its_own_build(monkeypatch, platform):
    stand_in = _stand_in(platform == "hip", 2)
    monkeypatch.setitem(sys.modules, "cupy", stand_in)
    assert device.probe(platform) is stand_in


def test_probe_without_cupy_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy raises ImportError
    with pytest.raises(DeviceUnavailable, match=r"CuPy is not installed.*dspk\[hip\]"):
        device.probe("hip")
