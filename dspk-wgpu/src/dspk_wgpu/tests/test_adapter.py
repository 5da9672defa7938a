"""The probe's remembered software-only verdict: kept with the drivers it was found
with, used while they stay the same, and never in the way of a choice made by hand."""

import sys
from types import SimpleNamespace

import pytest

from dspk.plugin import DeviceUnavailable
from dspk_wgpu import adapter

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the verdict is remembered on Linux only")

SOFTWARE = {"device": "llvmpipe (LLVM 15)", "vendor": "", "description": "Mesa",
            "backend_type": "Vulkan", "adapter_type": "CPU"}


class FakeWgpu:
    """wgpu-py as far as the probe uses it, finding one software adapter; counts the
    probes."""

    def __init__(self):
        self.probes = 0
        self.gpu = SimpleNamespace(request_adapter_sync=self._request)

    def _request(self, **options):
        self.probes += 1
        return SimpleNamespace(info=SOFTWARE)


@pytest.fixture
def fake(monkeypatch, tmp_path):
    monkeypatch.setenv("DSPK_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("DSPK_WGPU_ALLOW_CPU", raising=False)
    monkeypatch.delenv("DSPK_WGPU_ADAPTER", raising=False)
    wgpu = FakeWgpu()
    monkeypatch.setattr(adapter, "_import_wgpu", lambda: wgpu)
    return wgpu


def test_a_software_only_verdict_is_remembered_for_the_next_process(fake, tmp_path):
    with pytest.raises(DeviceUnavailable, match="software") as first:
        adapter.select_adapter()
    assert fake.probes == 1 and (tmp_path / adapter.PROBE_FILE).is_file()
    with pytest.raises(DeviceUnavailable, match="remembered for these drivers") as second:
        adapter.select_adapter()
    assert fake.probes == 1
    assert str(second.value).startswith(str(first.value))


def test_changed_drivers_are_probed_again(fake, monkeypatch):
    with pytest.raises(DeviceUnavailable):
        adapter.select_adapter()
    monkeypatch.setattr(adapter, "drivers_key", lambda: "a new driver")
    with pytest.raises(DeviceUnavailable, match="software"):
        adapter.select_adapter()
    assert fake.probes == 2


def test_a_driver_manifest_appearing_changes_the_key(monkeypatch, tmp_path):
    monkeypatch.setattr(adapter, "_DRIVER_PLACES", (str(tmp_path / "*"),))
    before = adapter.drivers_key()
    (tmp_path / "nvidia_icd.json").write_text("{}")
    assert adapter.drivers_key() != before
    monkeypatch.setenv("VK_ICD_FILENAMES", "/somewhere/else.json")
    assert len({before, adapter.drivers_key()}) == 2


@pytest.mark.parametrize("variable, value", [("DSPK_WGPU_ALLOW_CPU", "1"),
                                             ("DSPK_WGPU_ADAPTER", "llvmpipe")])
def test_a_choice_made_by_hand_always_probes(fake, monkeypatch, variable, value):
    with pytest.raises(DeviceUnavailable):
        adapter.select_adapter()
    monkeypatch.setenv(variable, value)
    monkeypatch.setattr(fake.gpu, "enumerate_adapters_sync",
                        lambda: [SimpleNamespace(info=SOFTWARE)], raising=False)
    adapter.select_adapter()


@pytest.mark.parametrize("damage", ["not json", '{"drivers": 1}', "[]", '{"reason": "x"}'])
def test_a_damaged_verdict_is_probed_again(fake, tmp_path, damage):
    (tmp_path / adapter.PROBE_FILE).write_text(damage)
    with pytest.raises(DeviceUnavailable, match="software"):
        adapter.select_adapter()
    assert fake.probes == 1


def test_an_unwritable_cache_still_refuses(fake, monkeypatch):
    monkeypatch.setenv("DSPK_CACHE_DIR", "/dev/null")
    for probes in (1, 2):
        with pytest.raises(DeviceUnavailable, match="software"):
            adapter.select_adapter()
        assert fake.probes == probes
