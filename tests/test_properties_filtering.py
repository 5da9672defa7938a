"""Property tests: sosfilt and convolution against scipy over random shapes and parameters."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import signal

import dspk
from conftest import TOLERANCE, open_backend, rel_l2

RUNTIMES = dspk.runtime.available()


@st.composite
def signals(draw, max_channels=6, max_samples=600):
    """A random 2-D signal, its time axis, memory order and dtype."""
    channels = draw(st.integers(1, max_channels))
    samples = draw(st.integers(1, max_samples))
    axis = draw(st.sampled_from([0, 1]))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    order = draw(st.sampled_from(["C", "F"]))
    seed = draw(st.integers(0, 2**32 - 1))
    x = np.random.default_rng(seed).standard_normal((channels, samples))
    if axis == 0:
        x = x.T
    return np.asarray(x.astype(dtype), order=order), x, axis, dtype


@pytest.mark.parametrize("runtime", RUNTIMES)
@given(data=signals(), order=st.integers(1, 8), band=st.tuples(
    st.floats(0.02, 0.45), st.floats(0.05, 0.45)), with_zi=st.booleans())
def test_sosfilt_matches_scipy(runtime, data, order, band, with_zi):
    open_backend(runtime)
    x, x64, axis, dtype = data
    low, width = band
    sos = signal.butter(order, [low, min(low + width, 0.95)], "bandpass", output="sos")
    if with_zi:
        shape = list(x.shape)
        shape[axis] = 2
        zi = np.random.default_rng(order).standard_normal((len(sos), *shape))
        got, zf = dspk.sosfilt(sos, x, axis=axis, zi=zi, runtime=runtime)
        want, want_zf = signal.sosfilt(sos, x64, axis=axis, zi=zi)
        assert rel_l2(zf, want_zf) <= TOLERANCE[dtype]
    else:
        got = dspk.sosfilt(sos, x, axis=axis, runtime=runtime)
        want = signal.sosfilt(sos, x64, axis=axis)
    assert got.dtype == dtype
    assert rel_l2(got, want) <= TOLERANCE[dtype]


@pytest.mark.parametrize("runtime", RUNTIMES)
@given(data=signals(), taps=st.integers(1, 300), per_channel=st.booleans(),
       mode=st.sampled_from(["full", "same", "valid"]),
       function=st.sampled_from(["fftconvolve", "oaconvolve"]))
def test_batched_convolution_matches_scipy(runtime, data, taps, per_channel, mode, function):
    open_backend(runtime)
    x, x64, axis, dtype = data
    rows = x.shape[1 - axis] if per_channel else 1
    h = np.random.default_rng(taps).standard_normal((rows, taps))
    if axis == 0:
        h = h.T
    got = getattr(dspk, function)(x, h, mode=mode, axes=axis, runtime=runtime)
    want = getattr(signal, function)(x64, h, mode=mode, axes=axis)
    assert got.dtype == dtype
    assert rel_l2(got, want) <= TOLERANCE[dtype]


@pytest.mark.parametrize("runtime", RUNTIMES)
@given(n=st.integers(1, 400), k=st.integers(1, 400),
       mode=st.sampled_from(["full", "same", "valid"]),
       method=st.sampled_from(["auto", "direct", "fft"]), seed=st.integers(0, 2**32 - 1))
def test_convolve_and_correlate_1d_match_scipy(runtime, n, k, mode, method, seed):
    open_backend(runtime)
    rng = np.random.default_rng(seed)
    a, v = rng.standard_normal(n), rng.standard_normal(k)
    for name in ("convolve", "correlate"):
        got = getattr(dspk, name)(a, v, mode=mode, method=method, runtime=runtime)
        want = getattr(signal, name)(a, v, mode=mode, method=method)
        assert rel_l2(got, want) <= TOLERANCE[np.float64]
