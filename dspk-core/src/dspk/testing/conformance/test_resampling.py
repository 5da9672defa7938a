"""Conformance: upfirdn, resample_poly, resample and decimate against scipy.signal.

Every runtime and kernel variant; random data; references are scipy.signal in
float64; the error measure is :func:`dspk.testing.rel_l2`, bounded by
:data:`dspk.testing.TOLERANCE`. Bad input is checked at the end.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import signal

import dspk
from dspk.testing import TOLERANCE, open_backend, rel_l2, runtimes_under_test, variant_params
from dspk.tuning.tuner import forced_variant

DTYPES = [np.float32, np.float64]

# (shape, axis, memory order): 1-D, one channel, channels x samples with odd
# and prime lengths, samples x channels (axis 0), 3-D; C and F order.
SIGNALS = [
    ((1000,), -1, "C"),
    ((1, 777), -1, "F"),
    ((5, 1023), -1, "C"),
    ((5, 1023), -1, "F"),
    ((1031, 6), 0, "C"),
    ((1031, 6), 0, "F"),
    ((3, 4, 257), -1, "C"),
    ((129, 2, 3), 0, "F"),
]
# (up, down): identity, up, down, and rational ratios in both directions.
RATES = [(1, 1), (3, 1), (1, 4), (3, 2), (2, 7)]
MODES = ["constant", "wrap", "edge", "smooth", "symmetric", "reflect", "antisymmetric",
         "antireflect", "line"]


def make_signal(rng, shape, dtype, order="C"):
    x = rng.standard_normal(shape)
    return np.asarray(x.astype(dtype), order=order), x


def check(got, want, dtype):
    assert isinstance(got, np.ndarray)
    assert got.dtype == dtype
    assert rel_l2(got, want) <= TOLERANCE[dtype]


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("upfirdn"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "axis", "order"), SIGNALS)
@pytest.mark.parametrize(("up", "down"), RATES)
@pytest.mark.parametrize("taps", [1, 31])
def test_upfirdn(runtime, variant, dtype, shape, axis, order, up, down, taps, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, shape, dtype, order)
    h = rng.standard_normal(taps)
    with forced_variant("upfirdn", variant):
        got = dspk.upfirdn(h, x, up, down, axis=axis, runtime=runtime)
    check(got, signal.upfirdn(h, x64, up, down, axis=axis), dtype)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("upfirdn"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("shape", "axis", "taps"), [
    ((4, 301), -1, 25),
    ((301, 4), 0, 25),
    ((2, 3), -1, 40),  # the taps reach past several reflections of the signal
    ((2, 2), 1, 9),
])
def test_upfirdn_modes(runtime, variant, dtype, mode, shape, axis, taps, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, shape, dtype)
    h = rng.standard_normal(taps)
    with forced_variant("upfirdn", variant):
        got = dspk.upfirdn(h, x, 3, 2, axis=axis, mode=mode, cval=0.75, runtime=runtime)
    check(got, signal.upfirdn(h, x64, 3, 2, axis=axis, mode=mode, cval=0.75), dtype)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("upfirdn"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "axis", "order"), SIGNALS)
@pytest.mark.parametrize(("up", "down"), [(3, 1), (1, 4), (3, 2), (2, 7), (6, 4)])
def test_resample_poly(runtime, variant, dtype, shape, axis, order, up, down, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, shape, dtype, order)
    with forced_variant("upfirdn", variant):
        got = dspk.resample_poly(x, up, down, axis=axis, runtime=runtime)
    check(got, signal.resample_poly(x64, up, down, axis=axis), dtype)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("upfirdn"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("padtype", ["constant", "mean", "median", "minimum", "maximum",
                                     "line", "reflect", "wrap", "edge"])
@pytest.mark.parametrize(("shape", "axis"), [((3, 500), -1), ((500, 3), 0)])
def test_resample_poly_padtypes(runtime, variant, dtype, padtype, shape, axis, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, shape, dtype)
    x, x64 = x + 2, x64 + 2  # a background to remove
    cval = 1.5 if padtype == "constant" else None
    with forced_variant("upfirdn", variant):
        got = dspk.resample_poly(x, 5, 3, axis=axis, padtype=padtype, cval=cval,
                                 runtime=runtime)
    check(got, signal.resample_poly(x64, 5, 3, axis=axis, padtype=padtype, cval=cval), dtype)


@pytest.mark.parametrize(("runtime", "variant"), variant_params("upfirdn"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("window", [("kaiser", 2.5), "hamming", "taps"])
def test_resample_poly_windows(runtime, variant, dtype, window, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, (4, 600), dtype)
    if window == "taps":
        window = signal.firwin(30, 0.2)  # even length: scipy's half length rounds down
    with forced_variant("upfirdn", variant):
        got = dspk.resample_poly(x, 2, 5, axis=1, window=window, runtime=runtime)
    check(got, signal.resample_poly(x64, 2, 5, axis=1, window=window), dtype)


def test_resample_poly_identity_and_integers(rng):
    x = rng.integers(-100, 100, (3, 50))
    same = dspk.resample_poly(x, 4, 4, axis=1)
    assert same.dtype == np.float64 and np.array_equal(same, x)
    got = dspk.resample_poly(x, 3, 2, axis=1)
    assert got.dtype == np.float64
    assert rel_l2(got, signal.resample_poly(x, 3, 2, axis=1)) <= TOLERANCE[np.float64]


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("resample"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "axis", "order"), SIGNALS)
@pytest.mark.parametrize("change", ["down-even", "down-odd", "up-even", "up-odd", "same"])
def test_resample(runtime, variant, dtype, shape, axis, order, change, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, shape, dtype, order)
    n = shape[axis]
    num = {"down-even": n // 3 * 2, "down-odd": n // 3 * 2 + 1, "up-even": 2 * n,
           "up-odd": 2 * n + 1, "same": n}[change]
    with forced_variant("resample", variant):
        got = dspk.resample(x, num, axis=axis, runtime=runtime)
    check(got, signal.resample(x64, num, axis=axis), dtype)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("resample"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("window", ["hann", ("tukey", 0.3), "callable", "array"])
@pytest.mark.parametrize(("n", "num"), [(400, 250), (401, 250), (401, 1000)])
def test_resample_windows(runtime, variant, dtype, window, n, num, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, (3, n), dtype)
    if window == "callable":
        window = lambda f: 1 / (1 + (4 * f) ** 2)  # noqa: E731
    elif window == "array":
        window = rng.uniform(0.5, 1.0, n)
    with forced_variant("resample", variant):
        got = dspk.resample(x, num, axis=1, window=window, runtime=runtime)
    check(got, signal.resample(x64, num, axis=1, window=window), dtype)


def test_resample_timestamps(rng):
    x = rng.standard_normal(64)
    t = 0.25 + 0.01 * np.arange(64)
    got_x, got_t = dspk.resample(x, 48, t=t)
    want_x, want_t = signal.resample(x, 48, t=t)
    assert rel_l2(got_x, want_x) <= TOLERANCE[np.float64]
    np.testing.assert_allclose(got_t, want_t, rtol=1e-15)


@pytest.fixture
def default_variants(monkeypatch):
    """decimate composes several kernel operations: run each on its default variant."""
    monkeypatch.setenv("DSPK_TUNING", "off")


DECIMATION_FILTERS = {
    "iir": "iir",
    "fir": "fir",
    "dlti-real-poles": signal.dlti([0.2, 0.3], [1.0, -0.9, 0.2]),
    "dlti-complex-poles": signal.ZerosPolesGain(*signal.cheby1(4, 0.5, 0.3, output="zpk"),
                                                dt=True),
    "dlti-fir": signal.dlti(signal.firwin(20, 0.3), [1.0]),
}


@pytest.mark.pairwise
@pytest.mark.usefixtures("default_variants")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "axis", "q"), [((1000,), -1, 2), ((5, 1023), -1, 5),
                                                  ((1031, 6), 0, 3), ((3, 2, 257), -1, 2)])
@pytest.mark.parametrize("ftype", list(DECIMATION_FILTERS))
@pytest.mark.parametrize("zero_phase", [True, False])
def test_decimate(dtype, shape, axis, q, ftype, zero_phase, rng):
    x, x64 = make_signal(rng, shape, dtype)
    kind = DECIMATION_FILTERS[ftype]
    got = dspk.decimate(x, q, ftype=kind, axis=axis, zero_phase=zero_phase)
    check(got, signal.decimate(x64, q, ftype=kind, axis=axis, zero_phase=zero_phase), dtype)


@pytest.mark.usefixtures("default_variants")
@pytest.mark.parametrize(("ftype", "n"), [("iir", 4), ("fir", 11)])
def test_decimate_order(ftype, n, rng):
    x = rng.standard_normal((2, 500))
    want = signal.decimate(x, 3, n=n, ftype=ftype)
    assert rel_l2(dspk.decimate(x, 3, n=n, ftype=ftype), want) <= TOLERANCE[np.float64]


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda x: dspk.upfirdn([1.0], x, up=0), ValueError, "up must be an integer >= 1"),
    (lambda x: dspk.upfirdn([1.0], x, down=-2), ValueError, "down must be an integer >= 1"),
    (lambda x: dspk.upfirdn([1.0], x, up=1.5), TypeError, "up must be an integer"),
    (lambda x: dspk.upfirdn([], x), ValueError, "h must be a non-empty 1-D array"),
    (lambda x: dspk.upfirdn([[1.0]], x), ValueError, "h must be a non-empty 1-D array"),
    (lambda x: dspk.upfirdn([1.0, np.nan], x), ValueError, "h has non-finite"),
    (lambda x: dspk.upfirdn([1.0], np.zeros((3, 0))), ValueError, "x is empty"),
    (lambda x: dspk.upfirdn([1.0], x, mode="mirror"), ValueError, "mode='mirror'"),
    (lambda x: dspk.upfirdn([1.0], x[:, :1], mode="reflect"), ValueError,
     "needs at least 2 samples"),
    (lambda x: dspk.upfirdn([1.0], x, cval=1j), TypeError, "cval must be a real number"),
    (lambda x: dspk.upfirdn(np.array(["1.0"]), x), TypeError, "h must hold real numbers"),
    (lambda x: dspk.upfirdn([1.0], x, axis=2), ValueError, "axis=2 is out of range"),
    (lambda x: dspk.resample_poly(x, 0, 2), ValueError, "up must be an integer >= 1"),
    (lambda x: dspk.resample_poly(x, 2, 0), ValueError, "down must be an integer >= 1"),
    (lambda x: dspk.resample_poly(np.zeros(0), 2, 3), ValueError, "x is empty"),
    (lambda x: dspk.resample_poly(x, 2, 3, padtype="zero"), ValueError, "padtype='zero'"),
    (lambda x: dspk.resample_poly(x, 2, 3, padtype="mean", cval=1.0), ValueError,
     "cval=1.0 has no effect"),
    (lambda x: dspk.resample_poly(x, 2, 3, window=np.ones((3, 3))), ValueError,
     "window must be a non-empty 1-D array"),
    (lambda x: dspk.resample_poly(x, 2, 3, window=[]), ValueError,
     "window must be a non-empty 1-D array"),
    (lambda x: dspk.resample(x, 0, axis=1), ValueError, "num must be an integer >= 1"),
    (lambda x: dspk.resample(x, -5, axis=1), ValueError, "num must be an integer >= 1"),
    (lambda x: dspk.resample(np.zeros((2, 0)), 4, axis=1), ValueError, "x is empty"),
    (lambda x: dspk.resample(x, 4, axis=1, domain="freq"), ValueError, "domain='freq'"),
    (lambda x: dspk.resample(x, 4, axis=1, domain="space"), ValueError, "domain='space'"),
    (lambda x: dspk.resample(x[:, :11] + 1j, 4, axis=1, window="hann"), ValueError,
     "window is not even in frequency"),
    (lambda x: dspk.resample(x, 4, axis=1, window=np.ones(5)), ValueError,
     r"one per frequency bin of x, shape \(12,\)"),
    (lambda x: dspk.resample(x, 4, axis=1, window=lambda f: f + 1j), ValueError,
     "real spectral windows"),
    (lambda x: dspk.resample(x, 4, t=[0.0], axis=1), ValueError, "t must be 1-D"),
    (lambda x: dspk.decimate(x, 0), ValueError, "q must be an integer >= 1"),
    (lambda x: dspk.decimate(x, 2, n=0), ValueError, "n must be an integer >= 1"),
    (lambda x: dspk.decimate(x, 2, ftype="fourier"), ValueError, "ftype='fourier'"),
    (lambda x: dspk.decimate(x, 2, ftype=3), ValueError, "ftype must be"),
    (lambda x: dspk.decimate(x, 1, ftype="fir"), ValueError, "q=1 with ftype='fir'"),
    (lambda x: dspk.decimate(np.zeros(0), 2), ValueError, "x is empty"),
])
def test_bad_input(call, error, match, rng):
    with pytest.raises(error, match=match):
        call(rng.standard_normal((2, 12)))


H = signal.firwin(31, 0.3)
#: Each resampling operation on a complex signal, by the module ``f`` (dspk or scipy.signal).
COMPLEX_CALLS = {
    "upfirdn": lambda f, x, axis: f.upfirdn(H, x, 3, 2, axis=axis),
    "upfirdn-cval": lambda f, x, axis: f.upfirdn(H, x, 3, 2, axis=axis, cval=0.7),
    "upfirdn-symmetric": lambda f, x, axis: f.upfirdn(H, x, 2, 3, axis=axis, mode="symmetric"),
    "resample_poly": lambda f, x, axis: f.resample_poly(x, 3, 2, axis=axis),
    "resample_poly-mean": lambda f, x, axis: f.resample_poly(x, 2, 5, axis=axis, padtype="mean"),
    "resample_poly-cval": lambda f, x, axis: f.resample_poly(x, 2, 5, axis=axis, cval=1.5),
    "decimate": lambda f, x, axis: f.decimate(x, 3, axis=axis),
    "decimate-fir": lambda f, x, axis: f.decimate(x, 3, ftype="fir", axis=axis),
    "decimate-causal": lambda f, x, axis: f.decimate(x, 2, axis=axis, zero_phase=False),
    "resample-down": lambda f, x, axis: f.resample(x, 173, axis=axis),
    "resample-up": lambda f, x, axis: f.resample(x, 1000, axis=axis),
    "resample-window": lambda f, x, axis: f.resample(x, 250, axis=axis,
                                                     window=lambda k: np.exp(-(4 * k) ** 2)),
}


@pytest.mark.pairwise
@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize(("shape", "axis"), [((600,), -1), ((3, 500), -1), ((401, 4), 0)])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("name", list(COMPLEX_CALLS))
def test_complex_signals_as_scipy(runtime, dtype, shape, axis, order, name, rng):
    """Complex signals resample as in scipy (complex128), in the complex dtype of their
    precision: the real and imaginary parts one after the other, ``cval`` on the real
    part only."""
    open_backend(runtime)
    x128 = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    x = np.asarray(x128.astype(dtype), order=order)
    with dspk.runtime.using(runtime):
        got = COMPLEX_CALLS[name](dspk, x, axis)
    assert got.dtype == dtype
    assert rel_l2(got, COMPLEX_CALLS[name](signal, x128, axis)) <= TOLERANCE[
        np.float32 if dtype == np.complex64 else np.float64]


@pytest.mark.pairwise
@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize(("shape", "axis"), [((600,), -1), ((3, 500), -1), ((401, 4), 0)])
@pytest.mark.parametrize(("up", "down", "mode"), [(1, 1, "constant"), (3, 2, "constant"),
                                                  (2, 3, "symmetric")])
def test_complex_taps_as_scipy(runtime, dtype, shape, axis, up, down, mode, rng):
    """``upfirdn`` with complex taps, as scipy (complex128): linear in ``h``, it runs the
    real kernels with the taps' real and imaginary parts (``cval`` filtered by both)."""
    open_backend(runtime)
    h = H * np.exp(1j * np.linspace(0, 3, H.size))
    x128 = rng.standard_normal(shape) + (1j * rng.standard_normal(shape)
                                         if np.dtype(dtype).kind == "c" else 0)
    with dspk.runtime.using(runtime):
        got = dspk.upfirdn(h, x128.astype(dtype), up, down, axis=axis, mode=mode, cval=0.5)
    precision = np.float32 if dtype in (np.float32, np.complex64) else np.float64
    assert got.dtype == np.result_type(precision, np.complex64)
    assert rel_l2(got, signal.upfirdn(h, x128, up, down, axis=axis, mode=mode,
                                      cval=0.5)) <= TOLERANCE[precision]


@pytest.mark.pairwise
@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize(("shape", "axis"), [((600,), -1), ((3, 500), -1), ((401, 4), 0)])
@pytest.mark.parametrize(("padtype", "cval"), [("constant", None), ("constant", 0.5),
                                               ("mean", None), ("line", None)])
def test_complex_window_as_scipy(runtime, dtype, shape, axis, padtype, cval, rng):
    """``resample_poly`` with complex taps, as scipy (complex128): by their parts, and a
    background padtype's background added once."""
    open_backend(runtime)
    window = signal.firwin(41, 0.3) * np.exp(1j * np.linspace(0, 2, 41))
    x128 = rng.standard_normal(shape) + (1j * rng.standard_normal(shape)
                                         if np.dtype(dtype).kind == "c" else 0)
    with dspk.runtime.using(runtime):
        got = dspk.resample_poly(x128.astype(dtype), 3, 2, axis=axis, window=window,
                                 padtype=padtype, cval=cval)
    precision = np.float32 if dtype in (np.float32, np.complex64) else np.float64
    assert got.dtype == np.result_type(precision, np.complex64)
    assert rel_l2(got, signal.resample_poly(x128, 3, 2, axis=axis, window=window,
                                            padtype=padtype, cval=cval)) <= TOLERANCE[precision]


def test_ordering_padtypes_refuse_complex_signals():
    with pytest.raises(ValueError, match="padtype='median'"):
        dspk.resample_poly(np.ones(50, np.complex64), 2, 3, padtype="median")
