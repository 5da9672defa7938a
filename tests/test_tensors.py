"""Tensors in, tensors out: torch CPU tensors and JAX arrays through every operation.

An array of a host library that speaks DLPack is read over its own memory and
the result comes back as the library's array, equal to the NumPy call's.
torch and JAX are not in the test extra (each is hundreds of MB): these tests
skip without them, and CI installs both before its exhaustive run.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import signal
from test_input_faults import CALLS

import dspk
from conftest import TOLERANCE, rel_l2
from dspk.plugin import waiting_for_kernels


def _torch():
    torch = pytest.importorskip("torch", reason="torch is not installed (CI installs it)")
    return torch.from_numpy, torch.Tensor, lambda t: t.numpy()


def _jax():
    jnp = pytest.importorskip("jax.numpy", reason="JAX is not installed (CI installs it)")
    import jax

    return jnp.asarray, jax.Array, np.asarray


LIBRARIES = {"torch": _torch, "jax": _jax}


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_operation_gives_the_library_its_own_arrays(library, dtype, name, rng):
    to_library, array_type, back = LIBRARIES[library]()
    if library == "jax" and dtype == np.float64:
        pytest.importorskip("jax").config.update("jax_enable_x64", True)
    call, _ = CALLS[name]
    x = rng.standard_normal((3, 600)).astype(dtype)
    with waiting_for_kernels():
        expected = call(x, lambda a: a)
        y = call(to_library(x), to_library)
    assert isinstance(y, array_type), f"{name} gave {type(y).__name__}"
    got = back(y)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert rel_l2(got, expected) <= TOLERANCE[dtype]


@pytest.mark.parametrize("library", LIBRARIES)
def test_frequencies_come_back_as_the_library_arrays_too(library, rng):
    to_library, array_type, back = LIBRARIES[library]()
    x = rng.standard_normal((3, 2048)).astype(np.float32)
    f, pxx = dspk.welch(to_library(x), fs=1000.0, nperseg=256)
    assert isinstance(f, array_type) and isinstance(pxx, array_type)
    np.testing.assert_allclose(back(f), signal.welch(x, fs=1000.0, nperseg=256)[0], rtol=1e-6)


@pytest.mark.parametrize("library", LIBRARIES)
def test_complex_results_keep_the_precision(library, rng):
    to_library, array_type, back = LIBRARIES[library]()
    x = rng.standard_normal((4, 300)).astype(np.float32)
    y = dspk.hilbert(to_library(x))
    assert isinstance(y, array_type) and back(y).dtype == np.complex64


def test_a_tensor_that_requires_grad_is_refused_with_torch_own_advice():
    torch = pytest.importorskip("torch", reason="torch is not installed (CI installs it)")
    x = torch.randn(2, 100, requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        dspk.sosfilt([[1.0, 0.0, 0.0, 1.0, -0.5, 0.0]], x)


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_stream_gives_the_library_its_own_arrays(library, rng):
    to_library, array_type, back = LIBRARIES[library]()
    sos = signal.butter(3, 0.2, output="sos")
    x = rng.standard_normal((3, 900)).astype(np.float32)
    stream = dspk.SosfiltStream(sos)
    parts = [stream.push(to_library(x[:, :400])), stream.push(to_library(x[:, 400:])),
             stream.finish()]
    assert all(isinstance(part, array_type) for part in parts)
    y = np.concatenate([back(part) for part in parts], axis=-1)
    assert rel_l2(y, signal.sosfilt(sos, x)) <= TOLERANCE[np.float32]


POSITIONS = np.c_[np.tile([0.0, 32.0], 6), np.repeat(np.arange(6) * 20.0, 2)]

#: Operations beyond the input-faults catalogue, on a (12, 2048) signal: each gives back
#: one array or a tuple whose array parts come back as the library's.
MORE = {
    "whiten": lambda x: dspk.whiten(x)[0],
    "whiten-local": lambda x: dspk.whiten(x, mode="local", neighbours=4, positions=POSITIONS)[0],
    "common_reference-local": lambda x: dspk.common_reference(
        x, reference="local", positions=POSITIONS, radius=(0.0, 60.0), min_neighbours=1),
    "interpolate_bad_channels": lambda x: dspk.interpolate_bad_channels(x, [3], POSITIONS),
    "highpass_spatial_filter": lambda x: dspk.highpass_spatial_filter(
        x, 30000.0, positions=POSITIONS, n_channel_pad=4),
    "filtfilt": lambda x: dspk.filtfilt(*signal.butter(3, 0.2), x),
    "fftconvolve": lambda x: dspk.fftconvolve(x, np.hanning(51)[None, :], axes=-1),
    "correlate": lambda x: dspk.correlate(x, np.hanning(9)[None, :]),
    "resample": lambda x: dspk.resample(x, 1000, axis=-1),
    "fft-ifft": lambda x: dspk.ifft(dspk.fft(x)),
    "irfft": lambda x: dspk.irfft(dspk.rfft(x)),
    "periodogram": lambda x: dspk.periodogram(x, fs=1000.0)[1],
    "spectrogram": lambda x: dspk.spectrogram(x, nperseg=128)[2],
    "coherence": lambda x: dspk.coherence(
        x, dspk.sosfilt(signal.butter(2, 0.3, output="sos"), x), nperseg=128)[1],
    "istft": lambda x: dspk.istft(dspk.stft(x, nperseg=128)[2], nperseg=128)[1],
}


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("name", sorted(MORE))
def test_more_operations_give_the_library_its_own_arrays(library, name, rng):
    to_library, array_type, back = LIBRARIES[library]()
    x = rng.standard_normal((12, 2048)).astype(np.float32)
    with waiting_for_kernels():
        expected = MORE[name](x)
        y = MORE[name](to_library(x))
    assert isinstance(y, array_type), f"{name} gave {type(y).__name__}"
    got = back(y)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert rel_l2(got, expected) <= TOLERANCE[np.float32]
