"""The wgpu runtime's own tests: its kernels, shaders and arrays, on any adapter here.

The operations themselves are checked on every runtime by the conformance kit
(:mod:`dspk.testing.conformance`); these tests reach into the runtime's pieces.
"""

import pytest

from dspk.plugin import DeviceUnavailable


@pytest.fixture(scope="session")
def wgpu_backend():
    """The wgpu backend on any adapter here, software ones allowed, outputs poisoned with NaN.

    Skipped when wgpu-py is not installed or no adapter opens.
    """
    pytest.importorskip("wgpu", reason="wgpu-py is not installed")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DSPK_WGPU_ALLOW_CPU", "1")
        try:
            from dspk_wgpu.backend import WgpuBackend
            opened = WgpuBackend()
        except DeviceUnavailable as exc:
            pytest.skip(f"wgpu cannot open a device here: {exc}")
    opened.gpu.poison_outputs = True
    return opened
