"""Conformance: highpass_spatial_filter (IBL destriping) on every runtime.

The reference is NumPy and scipy in float64, written here from the IBL's
``kfilt`` as SpikeInterface implements it; where SpikeInterface is installed,
its own function is compared too. The function composes fftconvolve and
sosfiltfilt, so it runs on each runtime's default variants.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import signal

import dspk
from dspk.testing import TOLERANCE, open_backend, rel_l2, runtimes_under_test

DTYPES = [np.float32, np.float64]
FS = 30000.0


@pytest.fixture
def default_variants(monkeypatch):
    """Destriping composes several kernel operations: run each on its default variant."""
    monkeypatch.setenv("DSPK_TUNING", "off")


def probe(columns, rows):
    return np.array([[11.0 + 16 * (i % columns), 20.0 * (i // columns)]
                     for i in range(columns * rows)])


def stripes(rng, channels, samples):
    """Stripes (a signal common to all channels, its amplitude changing with depth) and noise."""
    common = rng.standard_normal(samples) * np.linspace(1, 3, channels)[:, None]
    return common + rng.standard_normal((channels, samples))


def taper(n, width):
    """IBL's fcn_cosine([0, width]) * (1 - fcn_cosine([n - width, n])) at 0 .. n - 1."""
    def ramp(i, a, b):
        values = (1 - np.cos((i - a) / (b - a) * np.pi)) / 2
        return np.where(i < a, 0.0, np.where(i > b, 1.0, values))
    i = np.arange(n, dtype=float)
    return ramp(i, 0, width) * (1 - ramp(i, n - width, n))


def reference(x64, order, pad, width, agc, wn=0.01, butter_order=3, window_s=0.1,
              epsilon=0.003):
    x = x64[order]
    if agc:
        window = np.hanning(int(np.round(window_s * FS / 2) * 2 + 1))
        gain = signal.fftconvolve(np.abs(x), window[None] / window.sum(), mode="same", axes=1)
        rms = np.sqrt(np.mean(x ** 2, axis=1))
        x = x / np.maximum(epsilon * rms[:, None], gain)
    x = np.pad(x, ((pad, pad), (0, 0)), mode="symmetric")
    if width:
        x = x * taper(len(x), width)[:, None]
    sos = signal.butter(butter_order, wn, "highpass", output="sos")
    y = signal.sosfiltfilt(sos, x, axis=0)[pad:pad + len(x64)]
    if agc:
        y = y * gain
    out = np.empty_like(y)
    out[order] = y
    return out


@pytest.mark.pairwise
@pytest.mark.usefixtures("default_variants")
@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [-1, 0])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize(("columns", "rows", "samples"), [(2, 24, 3001), (4, 10, 700),
                                                          (1, 30, 1000)])
@pytest.mark.parametrize(("pad", "width", "agc"), [(60, 0, True), (10, None, True),
                                                   (0, 8, False), (None, 0, False)])
@pytest.mark.parametrize("shuffled", [False, True])
def test_highpass_spatial_filter(runtime, dtype, axis, order, columns, rows, samples, pad,
                                 width, agc, shuffled, rng):
    open_backend(runtime)
    positions = probe(columns, rows)
    channels = len(positions)
    pad = min(pad, channels) if pad is not None else None
    if shuffled:
        positions = positions[rng.permutation(channels)]
    x64 = stripes(rng, channels, samples)
    x = np.asarray((x64 if axis == -1 else x64.T).astype(dtype), order=order)
    before = x.copy()
    got = dspk.highpass_spatial_filter(x, FS, positions=positions, n_channel_pad=pad,
                                       n_channel_taper=width, apply_agc=agc, axis=axis,
                                       runtime=runtime)
    assert got.dtype == dtype and got.shape == x.shape
    depth = np.lexsort((positions[:, 0], positions[:, 1]))
    pad = pad or 0
    want = reference(x64, depth, pad, pad if width is None else width, agc)
    assert rel_l2(got if axis == -1 else got.T, want) <= TOLERANCE[dtype]
    np.testing.assert_array_equal(x, before)


@pytest.mark.usefixtures("default_variants")
@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_highpass_spatial_filter_options(runtime, rng):
    """Filter order and cut-off, window, epsilon and given RMS; a channel of zeros stays zeros;
    integers give float64; positions in depth order are not re-sorted."""
    open_backend(runtime)
    x64 = stripes(rng, 40, 2000)
    x64[7] = 0
    got = dspk.highpass_spatial_filter(x64, FS, highpass_butter_order=2, highpass_butter_wn=0.05,
                                       agc_window_length_s=0.01, epsilon=0.5,
                                       n_channel_pad=20, runtime=runtime)
    # epsilon=0.5 of the RMS floors many gains; channel 7's floor is zero (its RMS is)
    window = np.hanning(int(np.round(0.01 * FS / 2) * 2 + 1))
    gain = signal.fftconvolve(np.abs(x64), window[None] / window.sum(), mode="same", axes=1)
    rms = np.sqrt(np.mean(x64 ** 2, axis=1))
    floor = np.maximum(0.5 * rms[:, None], gain)
    floor[7] = 1
    padded = np.pad(x64 / floor, ((20, 20), (0, 0)), mode="symmetric")
    sos = signal.butter(2, 0.05, "highpass", output="sos")
    want = signal.sosfiltfilt(sos, padded, axis=0)[20:60] * gain
    assert rel_l2(got, want) <= TOLERANCE[np.float64]
    assert not got[7].any()
    given = dspk.highpass_spatial_filter(x64, FS, rms_values=rms * 2, epsilon=0.25,
                                         highpass_butter_order=2, highpass_butter_wn=0.05,
                                         agc_window_length_s=0.01, n_channel_pad=20,
                                         runtime=runtime)
    assert rel_l2(given, want) <= TOLERANCE[np.float64]
    staggered = probe(2, 20)
    staggered[::2, 0] += 32  # ties in depth, x not ascending: the channel order is kept
    kept = dspk.highpass_spatial_filter(x64, FS, positions=staggered, n_channel_pad=20,
                                        highpass_butter_order=2, highpass_butter_wn=0.05,
                                        agc_window_length_s=0.01, epsilon=0.5, runtime=runtime)
    np.testing.assert_array_equal(kept, got)
    ints = rng.integers(-100, 100, (64, 500)).astype(np.int16)
    assert dspk.highpass_spatial_filter(ints, FS, runtime=runtime).dtype == np.float64


@pytest.mark.usefixtures("default_variants")
@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("options", [{}, {"n_channel_taper": None}, {"apply_agc": False},
                                     {"n_channel_pad": 0, "n_channel_taper": 10}])
def test_highpass_spatial_filter_as_spikeinterface(runtime, options, rng):
    """Within 1e-5 (relative L2; measured 2e-7): SpikeInterface computes the gains in float32."""
    open_backend(runtime)
    core = pytest.importorskip("spikeinterface.core")
    preprocessing = pytest.importorskip("spikeinterface.preprocessing")
    probeinterface = pytest.importorskip("probeinterface")
    positions = probe(2, 32)[rng.permutation(64)]
    x = stripes(rng, 64, 3000).astype(np.float32)
    rec = core.NumpyRecording(x.T.copy(), FS)
    probe_ = probeinterface.Probe(ndim=2)
    probe_.set_contacts(positions, shapes="circle", shape_params={"radius": 5})
    probe_.set_device_channel_indices(np.arange(64))
    rec = rec.set_probe(probe_) or rec  # in place (returns None) since SpikeInterface 0.103
    rms = np.sqrt(np.mean(x.astype(np.float64) ** 2, axis=1))
    want = preprocessing.highpass_spatial_filter(rec, rms_values=rms, **options).get_traces().T
    got = dspk.highpass_spatial_filter(x, FS, positions=positions, runtime=runtime, **options)
    assert rel_l2(got, want) <= 1e-5


X = np.random.default_rng(0).standard_normal((64, 500))


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: dspk.highpass_spatial_filter(X, 0), ValueError, "fs=0 must be a positive"),
    (lambda: dspk.highpass_spatial_filter(X, 30000, positions=np.zeros((19, 2))), ValueError,
     r"positions has 19 row\(s\); the signal has 64 channel\(s\)"),
    (lambda: dspk.highpass_spatial_filter(X, 30000, n_channel_pad=65), ValueError,
     "n_channel_pad=65 is more than the signal's 64 channel"),
    (lambda: dspk.highpass_spatial_filter(X, 30000, n_channel_pad=-1), ValueError,
     "n_channel_pad must be an integer >= 0"),
    (lambda: dspk.highpass_spatial_filter(X, 30000, n_channel_taper=70), ValueError,
     "n_channel_taper=70"),
    (lambda: dspk.highpass_spatial_filter(X[:5], 30000, n_channel_pad=0), ValueError,
     r"x has 5 channel\(s\), 5 with n_channel_pad=0 at each end; .* needs more than 12"),
    (lambda: dspk.highpass_spatial_filter(X, 30000, direction="z"), ValueError, "direction='z'"),
    (lambda: dspk.highpass_spatial_filter(X, 30000, apply_agc=1), TypeError,
     "apply_agc must be True or False"),
    (lambda: dspk.highpass_spatial_filter(X, 30000, agc_window_length_s=0), ValueError,
     "agc_window_length_s must be a number > 0"),
    (lambda: dspk.highpass_spatial_filter(X, 30000, highpass_butter_wn=1.0), ValueError,
     "highpass_butter_wn must be a number > 0 and < 1"),
    (lambda: dspk.highpass_spatial_filter(X, 30000, highpass_butter_order=0), ValueError,
     "highpass_butter_order must be an integer >= 1"),
    (lambda: dspk.highpass_spatial_filter(X, 30000, epsilon=-1), ValueError,
     "epsilon must be a finite number >= 0"),
    (lambda: dspk.highpass_spatial_filter(X, 30000, rms_values=np.ones(3)), ValueError,
     r"rms_values has shape \(3,\); x has 64 channel\(s\)"),
    (lambda: dspk.highpass_spatial_filter(X[0], 30000), ValueError, "x must be 2-D"),
])
def test_bad_input_names_the_problem(call, error, message):
    with pytest.raises(error, match=message):
        call()
