"""Chains of operations on device arrays stay on the device and equal the NumPy chain.

``dspk.asarray(x, runtime=...)`` gives a runtime's device array; every
operation takes it and gives one back, so a chain never passes through the
host. The test forbids device-to-host copies of signal-sized arrays while the
chain runs, then brings the result back with ``dspk.to_numpy`` (and
``numpy.asarray``, where the runtime's arrays allow it) and compares it with the same chain on
NumPy arrays on the
cpu runtime.
"""

import numpy as np
import pytest
from scipy import signal

import dspk
from dspk.testing import TOLERANCE, open_backend, rel_l2, runtimes_under_test

GPU_RUNTIMES = [name for name in runtimes_under_test() if name in ("wgpu", "cuda", "hip")]

SOS = signal.butter(3, [0.02, 0.3], "bandpass", output="sos")

CHAINS = {
    "sosfiltfilt-common_reference-welch": lambda x, r: dspk.welch(
        dspk.common_reference(dspk.sosfiltfilt(SOS, x, runtime=r), runtime=r),
        nperseg=256, runtime=r)[1],
    "sosfilt-decimate-hilbert": lambda x, r: dspk.hilbert(
        dspk.decimate(dspk.sosfilt(SOS, x, runtime=r), 3, runtime=r), runtime=r),
    "lfilter-resample_poly-rfft-irfft": lambda x, r: dspk.irfft(dspk.rfft(dspk.resample_poly(
        dspk.lfilter(*signal.butter(2, 0.3), x, runtime=r), 2, 3, runtime=r), runtime=r),
        runtime=r),
    "phase_shift-whiten-stft-istft": lambda x, r: dspk.istft(dspk.stft(
        dspk.whiten(dspk.phase_shift(x, np.linspace(0, 0.9, x.shape[0]), runtime=r),
                    runtime=r)[0], nperseg=128, runtime=r)[2], nperseg=128, runtime=r)[1],
    "oaconvolve-detrend-filtfilt": lambda x, r: dspk.filtfilt(
        *signal.butter(2, 0.2), dspk.detrend(dspk.oaconvolve(
            x, np.hanning(31)[None, :], axes=-1, runtime=r), runtime=r), runtime=r),
}


@pytest.fixture
def host_reads_forbidden(monkeypatch):
    """Device-to-host reads above 4 KiB fail while the fixture is active."""
    def patch(backend):
        original = backend.to_numpy

        def guarded(x):
            out = original(x)
            assert out.nbytes <= 4096, f"a {out.shape} array went back to the host mid-chain"
            return out
        monkeypatch.setattr(backend, "to_numpy", guarded)
        return lambda: monkeypatch.setattr(backend, "to_numpy", original)
    return patch


@pytest.mark.parametrize("runtime", GPU_RUNTIMES)
@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_chain_stays_on_the_device(runtime, chain, rng, host_reads_forbidden):
    backend = open_backend(runtime)
    host = rng.standard_normal((6, 4000)).astype(np.float32)
    x = dspk.asarray(host, runtime=runtime)
    assert backend.is_native(x)
    allow_reads = host_reads_forbidden(backend)
    y = CHAINS[chain](x, runtime)
    allow_reads()
    assert backend.is_native(y), f"{chain} returned {type(y).__name__}"
    expected = CHAINS[chain](host.astype(np.float64), "cpu")
    # numpy.asarray too on wgpu, whose arrays allow it (CuPy's refuse by design).
    backs = [dspk.to_numpy(y)] + ([np.asarray(y)] if runtime == "wgpu" else [])
    for back in backs:
        assert isinstance(back, np.ndarray)
        assert rel_l2(back, expected) <= 10 * TOLERANCE[np.float32]


@pytest.mark.parametrize("runtime", GPU_RUNTIMES)
def test_a_device_array_on_the_cpu_runtime_comes_back_as_its_runtimes(runtime, rng):
    """Another runtime's array is read on the host and the result, frequencies included,
    goes back to that runtime."""
    backend = open_backend(runtime)
    host = rng.standard_normal((3, 600)).astype(np.float32)
    native = dspk.asarray(host, runtime=runtime)
    y = dspk.sosfilt(SOS, native, runtime="cpu")
    f, pxx = dspk.welch(native, nperseg=128, runtime="cpu")
    assert all(backend.is_native(result) for result in (y, f, pxx))
    assert rel_l2(dspk.to_numpy(y), signal.sosfilt(SOS, host.astype(np.float64))) <= \
        TOLERANCE[np.float32]
    np.testing.assert_allclose(dspk.to_numpy(f), signal.welch(host, nperseg=128)[0], rtol=1e-6)


#: The runtimes that take another library's GPU tensors over their memory.
DLPACK_RUNTIMES = [name for name in GPU_RUNTIMES if name in ("cuda", "hip")] or [pytest.param(
    None, marks=pytest.mark.skip(reason="no cuda or hip runtime opens here "
                                        "(tests/cuda_standin/conformance.sh runs one)"))]


@pytest.mark.parametrize("runtime", DLPACK_RUNTIMES)
def test_a_gpu_tensor_of_another_library_stays_on_the_device(runtime, rng, host_reads_forbidden):
    """A torch CUDA tensor's double (``tests/cuda_standin/tensors.py``, over the
    runtime's own device arrays): its platform's runtime takes it and gives one back
    with no signal-sized copy to the host; the cpu runtime reads a host copy through
    that runtime and sends its result back to the device."""
    from cuda_standin.tensors import Tensor

    backend = open_backend(runtime)
    host = rng.standard_normal((4, 3000)).astype(np.float32)
    tensor = Tensor(backend.asarray(host))
    allow_reads = host_reads_forbidden(backend)
    y = dspk.sosfiltfilt(SOS, tensor, runtime=runtime)
    allow_reads()
    expected = signal.sosfiltfilt(SOS, host.astype(np.float64))
    z = dspk.sosfiltfilt(SOS, tensor, runtime="cpu")
    for result in (y, z):
        assert isinstance(result, Tensor) and backend.is_native(result.storage)
        assert rel_l2(backend.to_numpy(result.storage), expected) <= TOLERANCE[np.float32]


@pytest.mark.parametrize("runtime", GPU_RUNTIMES)
@pytest.mark.parametrize("padtype", ["mean", "median", "minimum", "maximum"])
def test_resample_poly_backgrounds_of_a_device_array(runtime, padtype, rng):
    """The background padtypes are computed on the host (a runtime's arrays need no
    arithmetic); the result is still the runtime's array, equal to scipy's."""
    open_backend(runtime)
    host = rng.standard_normal((3, 500)).astype(np.float32)
    y = dspk.resample_poly(dspk.asarray(host, runtime=runtime), 2, 3, axis=-1,
                           padtype=padtype, runtime=runtime)
    assert type(y) is type(dspk.asarray(host, runtime=runtime))
    want = signal.resample_poly(host.astype(np.float64), 2, 3, axis=-1, padtype=padtype)
    assert rel_l2(dspk.to_numpy(y), want) < TOLERANCE[np.float32]


@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_native_arrays_have_what_the_core_uses(runtime):
    from dspk.plugin import NativeArray

    backend = open_backend(runtime)
    assert isinstance(backend.asarray(np.ones((2, 3), np.float32)), NativeArray)


@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_complex_native_arrays_come_back_as_native_arrays(runtime, rng):
    """A runtime's own complex arrays (a wgpu array has no ``real`` to split: its parts are
    read on the host) through the filters, convolutions and resampling: the same kind
    back, scipy's values."""
    open_backend(runtime)
    x = (rng.standard_normal((3, 400)) + 1j * rng.standard_normal((3, 400))).astype(np.complex64)
    native = dspk.asarray(x, runtime=runtime)
    h = np.hanning(9)[None, :].astype(np.complex64) * (1 - 0.5j)
    for got, want in [
            (dspk.sosfilt(SOS, native, runtime=runtime), signal.sosfilt(SOS, x)),
            (dspk.fftconvolve(native, h, axes=-1, runtime=runtime),
             signal.fftconvolve(x, h, axes=-1)),
            (dspk.resample_poly(native, 2, 3, axis=-1, runtime=runtime),
             signal.resample_poly(x, 2, 3, axis=-1))]:
        assert type(got) is type(native)
        assert rel_l2(dspk.to_numpy(got), want) < TOLERANCE[np.float32]
