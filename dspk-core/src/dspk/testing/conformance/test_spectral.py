"""Conformance: spectral operations on every runtime and kernel variant, against scipy.

References are scipy.fft and scipy.signal in float64 (complex128) on random
data; the error measure is :func:`dspk.testing.rel_l2`, bounded by
:data:`dspk.testing.TOLERANCE`. Frequencies and times are compared exactly.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import fft as scipy_fft
from scipy import signal

import dspk
from dspk.testing import TOLERANCE, open_backend, rel_l2, runtimes_under_test, variant_params
from dspk.tuning.tuner import forced_variant

DTYPES = [np.float32, np.float64]

# (shape, axis, order): 1-D, one channel, several channels with odd and prime
# lengths in both memory orders, samples x channels (axis 0), and 3-D.
SIGNALS = [
    ((600,), -1, "C"),
    ((1, 517), -1, "C"),
    ((5, 1031), -1, "C"),
    ((5, 1031), -1, "F"),
    ((1031, 4), 0, "C"),
    ((1031, 4), 0, "F"),
    ((3, 2, 257), -1, "C"),
    ((257, 2, 3), 0, "F"),
]
SIGNAL_IDS = [f"{'x'.join(map(str, s))}-axis{a}-{o}" for s, a, o in SIGNALS]


def complex_of(dtype):
    return np.result_type(dtype, np.complex64)


def make_signal(rng, shape, dtype, order, complex_input=False):
    """The signal in ``dtype`` (complex of its precision when asked) and order, and in float64."""
    x64 = rng.standard_normal(shape)
    if complex_input:
        x64 = x64 + 1j * rng.standard_normal(shape)
        dtype = complex_of(dtype)
    return np.asarray(x64.astype(dtype), order=order), x64


def assert_matches(got, want, dtype):
    """``got`` is a NumPy array of ``dtype``'s kind (complex when ``want`` is) close to ``want``."""
    assert isinstance(got, np.ndarray)
    if not np.iscomplexobj(want):
        assert got.dtype == dtype, (got.dtype, dtype)
        assert rel_l2(got, want) <= TOLERANCE[dtype]
        return
    assert got.dtype == complex_of(dtype), (got.dtype, dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert np.all(np.isfinite(got)), "non-finite output"
    error = np.linalg.norm(got - want) / np.linalg.norm(want)
    assert error <= TOLERANCE[dtype], error


signals = pytest.mark.parametrize(("shape", "axis", "order"), SIGNALS, ids=SIGNAL_IDS)
dtypes = pytest.mark.parametrize("dtype", DTYPES)


# --- FFTs --------------------------------------------------------------------------------

FFT_CASES = [  # (function, n, norm, complex input)
    ("rfft", None, None, False),
    ("rfft", 100, "ortho", False),
    ("irfft", None, None, True),
    ("irfft", 301, "forward", True),
    ("fft", None, "backward", True),
    ("fft", 700, "ortho", False),
    ("ifft", None, "forward", True),
    ("ifft", 64, None, False),
]


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("fft"))
@dtypes
@signals
@pytest.mark.parametrize(("name", "n", "norm", "complex_input"), FFT_CASES)
def test_fft(runtime, variant, dtype, shape, axis, order, name, n, norm, complex_input, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, shape, dtype, order, complex_input)
    with forced_variant("fft", variant):
        got = getattr(dspk, name)(x, n=n, axis=axis, norm=norm, runtime=runtime)
    want = getattr(scipy_fft, name)(x64, n=n, axis=axis, norm=norm)
    assert_matches(got, want, dtype)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("hilbert"))
@dtypes
@signals
@pytest.mark.parametrize("n", [None, 301])
def test_hilbert(runtime, variant, dtype, shape, axis, order, n, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, shape, dtype, order)
    with forced_variant("hilbert", variant):
        got = dspk.hilbert(x, N=n, axis=axis, runtime=runtime)
    assert_matches(got, signal.hilbert(x64, N=n, axis=axis), dtype)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("detrend"))
@dtypes
@signals
@pytest.mark.parametrize(("kind", "bp", "complex_input"), [
    ("linear", 0, False), ("constant", 0, False), ("l", [40, 41, 200], False),
    ("linear", [100], True)])
def test_detrend(runtime, variant, dtype, shape, axis, order, kind, bp, complex_input, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, shape, dtype, order, complex_input)
    ramp = np.expand_dims(np.linspace(0, 30, shape[axis]),
                          [i for i in range(len(shape)) if i != axis % len(shape)])
    x64 = x64 + ramp
    x = np.asarray(x64.astype(x.dtype), order=order)
    with forced_variant("detrend", variant):
        got = dspk.detrend(x, axis=axis, type=kind, bp=bp, runtime=runtime)
    assert_matches(got, signal.detrend(x64, axis=axis, type=kind, bp=bp), dtype)


# --- averaged spectra --------------------------------------------------------------------

WELCH_CASES = [
    {},
    {"nperseg": 100, "noverlap": 30, "nfft": 131, "scaling": "spectrum"},
    {"nperseg": 64, "detrend": "linear", "average": "median"},
    {"window": ("kaiser", 5.0), "nperseg": 77, "return_onesided": False, "detrend": False},
    {"window": np.hamming(99), "noverlap": 0, "fs": 30000.0},
]
WELCH_IDS = ["defaults", "nfft-spectrum", "linear-median", "kaiser-twosided", "array-window"]


def assert_frequencies(got, want):
    assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("csd"))
@dtypes
@signals
@pytest.mark.parametrize("options", WELCH_CASES, ids=WELCH_IDS)
def test_welch(runtime, variant, dtype, shape, axis, order, options, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, shape, dtype, order)
    with forced_variant("csd", variant):
        f, pxx = dspk.welch(x, axis=axis, runtime=runtime, **options)
    f_want, pxx_want = signal.welch(x64, axis=axis, **options)
    assert_frequencies(f, f_want)
    assert_matches(pxx, pxx_want, dtype)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("csd"))
@dtypes
@signals
@pytest.mark.parametrize("options", WELCH_CASES[:3], ids=WELCH_IDS[:3])
def test_csd(runtime, variant, dtype, shape, axis, order, options, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, shape, dtype, order)
    y, y64 = make_signal(rng, shape, dtype, order)
    with forced_variant("csd", variant):
        f, pxy = dspk.csd(x, y, axis=axis, runtime=runtime, **options)
    f_want, pxy_want = signal.csd(x64, y64, axis=axis, **options)
    assert_frequencies(f, f_want)
    assert_matches(pxy, pxy_want, dtype)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("csd"))
@pytest.mark.parametrize(("x_shape", "y_shape", "axis"), [
    ((3, 700), (700,), -1),
    ((3, 700), (1, 700), -1),
    ((700,), (2, 700), -1),
    ((700, 3), (700, 1), 0),
    ((2, 3, 400), (3, 400), -1),
    ((2, 1, 400), (3, 400), -1),
    ((3, 700), (3, 650), -1),
    ((650, 3), (700, 3), 0),
])
@pytest.mark.parametrize("average", ["mean", "median"])
def test_csd_broadcasts_and_pads(runtime, variant, x_shape, y_shape, axis, average, rng):
    open_backend(runtime)
    x, y = rng.standard_normal(x_shape), rng.standard_normal(y_shape)
    with forced_variant("csd", variant):
        f, pxy = dspk.csd(x, y, nperseg=128, axis=axis, average=average, runtime=runtime)
    assert_matches(pxy, signal.csd(x, y, nperseg=128, axis=axis, average=average)[1], np.float64)


@pytest.mark.parametrize(("runtime", "variant"), variant_params("csd"))
@dtypes
def test_same_object_csd_is_real_welch(runtime, variant, dtype, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, (3, 900), dtype, "C")
    with forced_variant("csd", variant):
        _, pxx = dspk.csd(x, x, nperseg=100, runtime=runtime)
    assert_matches(pxx, signal.csd(x64, x64, nperseg=100)[1], dtype)


@pytest.mark.parametrize(("runtime", "variant"), variant_params("csd"))
@dtypes
@pytest.mark.parametrize("average", ["mean", "median"])
def test_welch_and_csd_of_complex_signals_have_two_sides(runtime, variant, dtype, average, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, (2, 800), dtype, "C", complex_input=True)
    y, y64 = make_signal(rng, (2, 800), dtype, "C", complex_input=True)
    with forced_variant("csd", variant), warnings.catch_warnings():
        warnings.simplefilter("error")
        f, pxx = dspk.welch(x, nperseg=100, average=average, runtime=runtime)
        _, pxy = dspk.csd(x, y, nperseg=100, average=average, runtime=runtime)
    f_want, pxx_want = signal.welch(x64, nperseg=100, average=average)
    assert_frequencies(f, f_want)
    assert_matches(pxx, pxx_want, dtype)
    assert_matches(pxy, signal.csd(x64, y64, nperseg=100, average=average)[1], dtype)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("csd"))
@dtypes
@signals
@pytest.mark.parametrize("options", [
    {}, {"window": "hann", "nfft": 2000, "scaling": "spectrum"}, {"nfft": 200},
    {"window": None, "detrend": "linear", "return_onesided": False}])
def test_periodogram(runtime, variant, dtype, shape, axis, order, options, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, shape, dtype, order)
    with forced_variant("csd", variant):
        f, pxx = dspk.periodogram(x, axis=axis, runtime=runtime, **options)
    f_want, pxx_want = signal.periodogram(x64, axis=axis, **options)
    assert_frequencies(f, f_want)
    assert_matches(pxx, pxx_want, dtype)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("csd"))
@dtypes
@signals
def test_coherence(runtime, variant, dtype, shape, axis, order, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, shape, dtype, order)
    y, y64 = make_signal(rng, shape, dtype, order)
    y, y64 = x + y, x64 + y64
    with forced_variant("csd", variant):
        f, cxy = dspk.coherence(x, y, nperseg=64, axis=axis, runtime=runtime)
    f_want, cxy_want = signal.coherence(x64, y64, nperseg=64, axis=axis)
    assert_frequencies(f, f_want)
    assert_matches(cxy, cxy_want, dtype)


def segment_mean(d):
    return d - d.mean(axis=-1, keepdims=True)


@pytest.mark.parametrize(("runtime", "variant"), variant_params("csd"))
@pytest.mark.parametrize(("shape", "axis"), [((700,), -1), ((3, 700), -1), ((700, 3), 0)])
def test_welch_and_csd_call_a_detrend_callable_on_each_segment(runtime, variant, shape, axis,
                                                               rng):
    open_backend(runtime)
    x, y = rng.standard_normal(shape), rng.standard_normal(shape)
    seen = []

    def detrend(d):
        seen.append(d.shape)
        return segment_mean(d)

    with forced_variant("csd", variant):
        _, pxx = dspk.welch(x, nperseg=100, detrend=detrend, axis=axis, runtime=runtime)
        _, pxy = dspk.csd(x, y, nperseg=100, detrend=detrend, axis=axis, runtime=runtime)
    ours = list(seen)
    seen.clear()
    want_pxx = signal.welch(x, nperseg=100, detrend=detrend, axis=axis)[1]
    want_pxy = signal.csd(x, y, nperseg=100, detrend=detrend, axis=axis)[1]
    assert_matches(pxx, want_pxx, np.float64)
    assert_matches(pxy, want_pxy, np.float64)
    assert ours == seen


# --- every segment's spectrum ------------------------------------------------------------

STFT_CASES = [
    {"nperseg": 100},
    {"nperseg": 64, "noverlap": 10, "nfft": 100, "boundary": "even", "padded": False},
    {"nperseg": 33, "boundary": "odd", "detrend": "linear", "scaling": "psd"},
    {"nperseg": 40, "boundary": "constant", "return_onesided": False, "window": "blackman"},
    {"nperseg": 50, "boundary": None, "detrend": "constant"},
]
STFT_IDS = ["nperseg100", "even-unpadded", "odd-linear-psd", "constant-twosided", "no-boundary"]


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("stft"))
@dtypes
@signals
@pytest.mark.parametrize("options", STFT_CASES, ids=STFT_IDS)
def test_stft(runtime, variant, dtype, shape, axis, order, options, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, shape, dtype, order)
    with forced_variant("stft", variant):
        f, t, z = dspk.stft(x, axis=axis, runtime=runtime, **options)
    f_want, t_want, z_want = signal.stft(x64, axis=axis, **options)
    assert_frequencies(f, f_want)
    assert_frequencies(t, t_want)
    assert_matches(z, z_want, dtype)


SPECTROGRAM_CASES = [{}, {"nperseg": 100, "return_onesided": False, "detrend": "linear"},
                     {"nperseg": 51, "nfft": 64, "scaling": "spectrum", "noverlap": 20}]


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("stft"))
@dtypes
@pytest.mark.parametrize(("shape", "axis", "order"), SIGNALS[2:6], ids=SIGNAL_IDS[2:6])
@pytest.mark.parametrize("mode", ["psd", "complex", "magnitude", "angle", "phase"])
@pytest.mark.parametrize("options", SPECTROGRAM_CASES, ids=["defaults", "twosided", "nfft"])
def test_spectrogram(runtime, variant, dtype, shape, axis, order, mode, options, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, shape, dtype, order)
    with forced_variant("stft", variant):
        f, t, sxx = dspk.spectrogram(x, axis=axis, mode=mode, runtime=runtime, **options)
    f_want, t_want, sxx_want = signal.spectrogram(x64, axis=axis, mode=mode, **options)
    assert_frequencies(f, f_want)
    assert_frequencies(t, t_want)
    if mode == "phase":  # unwrapped along frequency
        assert np.abs(np.diff(sxx, axis=axis % len(shape))).max() <= np.pi + 1e-3
    if mode in ("angle", "phase"):  # angles match up to whole turns
        assert sxx.dtype == dtype
        sxx, sxx_want = np.exp(1j * sxx), np.exp(1j * sxx_want)
    assert_matches(sxx, sxx_want, dtype)


@pytest.mark.parametrize(("runtime", "variant"), variant_params("stft"))
@pytest.mark.parametrize("mode", ["psd", "complex"])
def test_spectrogram_and_stft_call_a_detrend_callable_once(runtime, variant, mode, rng):
    open_backend(runtime)
    x = rng.standard_normal((700, 3))
    with forced_variant("stft", variant):
        got = dspk.spectrogram(x, nperseg=64, detrend=segment_mean, axis=0, mode=mode,
                               runtime=runtime)[2]
        z = dspk.stft(x, nperseg=64, detrend=segment_mean, axis=0, boundary="odd",
                      runtime=runtime)[2]
    want = signal.spectrogram(x, nperseg=64, detrend=segment_mean, axis=0, mode=mode)[2]
    assert_matches(got, want, np.float64)
    assert_matches(z, signal.stft(x, nperseg=64, detrend=segment_mean, axis=0,
                                 boundary="odd")[2], np.float64)


@pytest.mark.parametrize(("runtime", "variant"), variant_params("stft"))
@dtypes
def test_stft_of_complex_input_warns_and_has_two_sides(runtime, variant, dtype, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, (2, 500), dtype, "C", complex_input=True)
    with forced_variant("stft", variant), pytest.warns(UserWarning, match="complex"):
        f, t, z = dspk.stft(x, nperseg=64, runtime=runtime)
    with pytest.warns(UserWarning, match="complex"):
        f_want, _, z_want = signal.stft(x64, nperseg=64)
    assert_frequencies(f, f_want)
    assert_matches(z, z_want, dtype)


ISTFT_CASES = [
    {"nperseg": 100},
    {"nperseg": 64, "noverlap": 48, "nfft": 80},
    {"nperseg": 65, "window": "hamming", "scaling": "psd"},
]


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("istft"))
@dtypes
@pytest.mark.parametrize("options", ISTFT_CASES, ids=["nperseg100", "nfft", "odd-psd"])
@pytest.mark.parametrize("onesided", [True, False])
@pytest.mark.parametrize(("layout", "time_axis", "freq_axis"), [
    ("channels-freq-time", -1, -2), ("freq-time", -1, -2), ("freq-time-channels", 1, 0),
    ("time-channels-freq", 0, 2)])
def test_istft(runtime, variant, dtype, options, onesided, layout, time_axis, freq_axis, rng):
    open_backend(runtime)
    x = rng.standard_normal((3, 700)) + (0 if onesided else 1j * rng.standard_normal((3, 700)))
    z64 = signal.stft(x, return_onesided=onesided, **options)[2]
    z64 = {"channels-freq-time": z64, "freq-time": z64[0],
           "freq-time-channels": z64.transpose(1, 2, 0),
           "time-channels-freq": z64.transpose(2, 0, 1)}[layout]
    z = z64.astype(complex_of(dtype))
    with forced_variant("istft", variant):
        t, y = dspk.istft(z, input_onesided=onesided, time_axis=time_axis, freq_axis=freq_axis,
                          runtime=runtime, **options)
    t_want, y_want = signal.istft(z64, input_onesided=onesided, time_axis=time_axis,
                                  freq_axis=freq_axis, **options)
    assert_matches(y, y_want, dtype)
    t_index, f_index = time_axis % z.ndim, freq_axis % z.ndim
    assert np.array_equal(t, np.arange(y.shape[t_index - (f_index < t_index)]) / 1.0)
    if y.ndim == 1:
        assert_frequencies(t, t_want)


@pytest.mark.parametrize(("runtime", "variant"), variant_params("istft"))
def test_istft_warns_when_nola_fails(runtime, variant, rng):
    open_backend(runtime)
    z = signal.stft(rng.standard_normal(500), nperseg=64, window="boxcar", noverlap=0)[2]
    with forced_variant("istft", variant), pytest.warns(UserWarning, match="NOLA"):
        dspk.istft(z, nperseg=64, noverlap=0, window=np.r_[np.ones(63), 0.0], runtime=runtime)


# --- dtypes and defaults -----------------------------------------------------------------

@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_integer_input_is_computed_in_float64(runtime, rng):
    open_backend(runtime)
    x = rng.integers(-1000, 1000, size=(3, 600)).astype(np.int16)
    x64 = x.astype(np.float64)  # scipy's welch gives float32 for 8- and 16-bit integers
    assert_matches(dspk.welch(x, runtime=runtime)[1], signal.welch(x64)[1], np.float64)
    assert_matches(dspk.rfft(x, runtime=runtime), scipy_fft.rfft(x), np.float64)
    assert_matches(dspk.detrend(x, runtime=runtime), signal.detrend(x), np.float64)
    assert_matches(dspk.hilbert(x, runtime=runtime), signal.hilbert(x), np.float64)


@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("function", [dspk.welch, dspk.spectrogram])
def test_default_nperseg_shrinks_to_a_short_signal_without_a_warning(runtime, function, rng):
    open_backend(runtime)
    x = rng.standard_normal((2, 200))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = function(x, runtime=runtime)
    with pytest.warns(UserWarning, match="nperseg"):
        want = getattr(signal, function.__name__)(x)
    for g, w in zip(got, want):
        assert_matches(g, w, np.float64)


@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_stft_round_trip_restores_the_signal(runtime, rng):
    open_backend(runtime)
    x = rng.standard_normal((4, 1000)).astype(np.float32)
    _, _, z = dspk.stft(x, nperseg=128, runtime=runtime)
    _, y = dspk.istft(z, nperseg=128, runtime=runtime)
    assert y.dtype == np.float32
    assert rel_l2(y[:, :1000], x) <= 1e-5


# --- bad input ---------------------------------------------------------------------------

X = np.random.default_rng(0).standard_normal((3, 200))
Z = signal.stft(X, nperseg=64)[2]


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: dspk.rfft(X, n=0), ValueError, "n must be an integer >= 1; got 0"),
    (lambda: dspk.fft(X, n=-4), ValueError, "n must be an integer >= 1"),
    (lambda: dspk.ifft(X, n=2.5), TypeError, "n must be an integer"),
    (lambda: dspk.irfft(X[:, :1]), ValueError, "n: irfft of 1 point"),
    (lambda: dspk.rfft(X + 1j), TypeError, "x must be real for rfft"),
    (lambda: dspk.fft(X, norm="unitary"), ValueError, "norm='unitary'"),
    (lambda: dspk.fft(X, workers=0), ValueError, "workers must not be zero"),
    (lambda: dspk.fft(X, plan=object()), NotImplementedError, "plan"),
    (lambda: dspk.fft(np.zeros((3, 0))), ValueError, "x is empty"),
    (lambda: dspk.fft(X, axis=2), ValueError, "axis=2 is out of range"),
    (lambda: dspk.fft(X.astype(np.clongdouble)), TypeError, "complex64 or complex128"),
    (lambda: dspk.hilbert(X + 1j), ValueError, "x must be real"),
    (lambda: dspk.hilbert(X, N=0), ValueError, "N must be an integer >= 1"),
    (lambda: dspk.detrend(X, type="quadratic"), ValueError, "type='quadratic'"),
    (lambda: dspk.detrend(X, bp=[-1]), ValueError, "bp must lie between 0 and 200"),
    (lambda: dspk.detrend(X, bp=[201]), ValueError, "bp must lie between"),
    (lambda: dspk.detrend(X, bp=[1.5]), TypeError, "bp must be an integer"),
    (lambda: dspk.detrend(np.zeros(0)), ValueError, "data is empty"),
    (lambda: dspk.welch(X, nperseg=300), ValueError, "nperseg=300 is larger than the signal"),
    (lambda: dspk.welch(X, nperseg=0), ValueError, "nperseg must be an integer >= 1"),
    (lambda: dspk.welch(X, nperseg=64.0), TypeError, "nperseg must be an integer"),
    (lambda: dspk.welch(X, nperseg=100, noverlap=100), ValueError,
     "noverlap=100 must be less than nperseg=100"),
    (lambda: dspk.welch(X, nperseg=100, nfft=50), ValueError,
     "nfft=50 must be at least nperseg=100"),
    (lambda: dspk.welch(X, window="nonesuch"), ValueError, "window='nonesuch' is not a window"),
    (lambda: dspk.welch(X, window=np.ones((2, 8))), ValueError, "window must be a string"),
    (lambda: dspk.welch(X, window=np.ones(300)), ValueError, "window has 300 samples, more than"),
    (lambda: dspk.welch(X, window=np.ones(64), nperseg=32), ValueError,
     "nperseg=32 differs from the window's length, 64"),
    (lambda: dspk.welch(X, window=np.r_[np.ones(63), np.nan]), ValueError,
     "window has non-finite"),
    (lambda: dspk.welch(X, window=np.zeros(64)), ValueError, "window: a window that sums to zero"),
    (lambda: dspk.welch(X, scaling="power"), ValueError, "scaling='power'"),
    (lambda: dspk.welch(X, average="mode"), ValueError, "average='mode'"),
    (lambda: dspk.welch(X, detrend="quadratic"), ValueError, "detrend='quadratic'"),
    (lambda: dspk.welch(X, detrend=True), ValueError, "detrend=True"),
    (lambda: dspk.welch(X, fs=0), ValueError, "fs=0 must be a positive"),
    (lambda: dspk.welch(X, fs="fast"), TypeError, "fs must be a number"),
    (lambda: dspk.welch(np.zeros((3, 0))), ValueError, "x is empty"),
    (lambda: dspk.welch(X, detrend=lambda d: d[..., 1:]), ValueError, "detrend returned shape"),
    (lambda: dspk.csd(X, X[:2]), ValueError, "x and y cannot be broadcast together"),
    (lambda: dspk.csd(X, np.zeros(0)), ValueError, "y is empty"),
    (lambda: dspk.coherence(X, X, nperseg=100, noverlap=-1.5), TypeError,
     "noverlap must be an integer"),
    (lambda: dspk.periodogram(X, window=np.ones(100)), ValueError,
     "window must have 200 samples"),
    (lambda: dspk.periodogram(X, nfft=0), ValueError, "nfft must be an integer >= 1"),
    (lambda: dspk.stft(X), ValueError, "nperseg=256 is larger than the signal"),
    (lambda: dspk.stft(X, nperseg=64, boundary="wrap"), ValueError, "boundary='wrap'"),
    (lambda: dspk.stft(X, nperseg=64, scaling="density"), ValueError, "scaling='density'"),
    (lambda: dspk.spectrogram(X, mode="power"), ValueError, "mode='power'"),
    (lambda: dspk.istft(Z[0, :, 0]), ValueError, "Zxx must have at least 2 dimensions"),
    (lambda: dspk.istft(Z, time_axis=1, freq_axis=-2), ValueError,
     "time_axis and freq_axis must differ"),
    (lambda: dspk.istft(Z, freq_axis=3), ValueError, "freq_axis=3 is out of range"),
    (lambda: dspk.istft(Z, nperseg=64, nfft=32), ValueError, "nfft=32 must be at least"),
    (lambda: dspk.istft(Z, nperseg=80), ValueError, "nfft=64 must be at least nperseg=80"),
    (lambda: dspk.istft(Z, noverlap=64), ValueError, "noverlap=64 must be less than"),
    (lambda: dspk.istft(Z, window=np.ones(32)), ValueError, "nperseg=64 differs from the window"),
    (lambda: dspk.istft(Z, scaling="density"), ValueError, "scaling='density'"),
    (lambda: dspk.istft(Z[:, :1]), ValueError, "nperseg: Zxx has 1 frequency"),
    (lambda: dspk.istft(Z[..., :1]), ValueError, "too few to leave any sample"),
    (lambda: dspk.istft(np.zeros((3, 0, 4))), ValueError, "Zxx is empty"),
    (lambda: dspk.welch(X, runtime="nonesuch"), ValueError, "not a runtime of this build"),
])
def test_bad_input_names_the_problem(call, error, message):
    with pytest.raises(error, match=message):
        call()
