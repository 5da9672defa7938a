"""Conformance: IIR filtering on every runtime and every kernel variant, against scipy.

Data is random; references are scipy.signal in float64; the error measure is
the relative L2 error of :func:`dspk.testing.rel_l2`, bounded by
:data:`dspk.testing.TOLERANCE` (1e-4 for float32, 1e-10 for float64).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import signal

import dspk
from dspk.testing import TOLERANCE, open_backend, rel_l2, runtimes_under_test, variant_params
from dspk.tuning.tuner import forced_variant

DTYPES = [np.float32, np.float64]
#: Complex signals through every variant and filter design: in the exhaustive run only (each
#: design builds its own complex kernels, seconds each); the default run filters complex
#: signals in the tests named for them.
COMPLEX_DTYPES = [pytest.param(dtype, marks=pytest.mark.exhaustive)
                  for dtype in (np.complex64, np.complex128)]

# (shape, axis): 1-D, one channel, few channels with prime and odd lengths,
# samples x channels (axis 0; 40 channels: whole and partial cache lines of channels),
# and 3-D.
SIGNALS = [
    ((1000,), -1),
    ((1, 777), -1),
    ((5, 1023), -1),
    ((1031, 6), 0),
    ((701, 40), 0),
    ((37, 4099), 1),
    ((3, 4, 257), -1),
    ((129, 2, 3), 0),
]
ORDERS = ["C", "F"]

SOS_FILTERS = {
    "bandpass3": signal.butter(3, [0.02, 0.4], "bandpass", output="sos"),
    "lowpass3-first-order-section": signal.butter(3, 0.2, output="sos"),
    "cheby1-highpass": signal.cheby1(4, 1, 0.1, "highpass", output="sos"),
    # Poles near z = 1: float32 signals are filtered in float64 inside.
    "highpass-near-dc": signal.butter(2, 1.0, "highpass", fs=1000.0, output="sos"),
}
BA_FILTERS = {
    "butter4": signal.butter(4, 0.2),
    "fir-long-b": (signal.firwin(21, 0.3), np.array([1.0])),
    "b-shorter-than-a": (np.array([0.2, 0.1]), np.array([1.0, -0.6, 0.25, -0.05])),
    "unnormalised-a": (np.array([0.5, 0.5]), np.array([2.0, -1.0])),
    "highpass-near-dc": signal.butter(2, 1.0, "highpass", fs=1000.0),
}


def make_signal(rng, shape, dtype, order):
    """A random signal of ``dtype`` (complex parts both random) and its float64 or complex128
    reference."""
    x = random_state(rng, shape, dtype)
    return np.asarray(x.astype(dtype), order=order), x


def random_state(rng, shape, dtype=np.float64):
    """A random float64 state, complex128 for a complex ``dtype``."""
    x = rng.standard_normal(shape)
    return x + 1j * rng.standard_normal(shape) if np.dtype(dtype).kind == "c" else x


def tolerance(dtype):
    """The conformance tolerance of ``dtype``'s precision (complex64 as float32)."""
    return TOLERANCE[np.float32 if dtype in (np.float32, np.complex64) else np.float64]


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("sosfilt"))
@pytest.mark.parametrize("dtype", [*DTYPES, *COMPLEX_DTYPES])
@pytest.mark.parametrize(("shape", "axis"), SIGNALS)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("with_zi", [False, True])
@pytest.mark.parametrize("design", list(SOS_FILTERS))
def test_sosfilt(runtime, variant, dtype, shape, axis, order, with_zi, design, rng):
    """Every variant, real and complex signals (complex ones whole where the runtime's
    kernels take them, else as their parts)."""
    open_backend(runtime)
    sos = SOS_FILTERS[design]
    x, x64 = make_signal(rng, shape, dtype, order)
    zi_shape = list(shape)
    zi_shape[axis] = 2
    zi = random_state(rng, (len(sos), *zi_shape), dtype) if with_zi else None
    with forced_variant("sosfilt", variant):
        got = dspk.sosfilt(sos, x, axis=axis, zi=zi, runtime=runtime)
    if with_zi:
        want_y, want_zf = signal.sosfilt(sos, x64, axis=axis, zi=zi)
        got_y, got_zf = got
        assert rel_l2(got_zf, want_zf) <= tolerance(dtype)
        assert got_zf.dtype == dtype
    else:
        want_y, got_y = signal.sosfilt(sos, x64, axis=axis), got
    assert got_y.dtype == dtype
    assert isinstance(got_y, np.ndarray)
    assert rel_l2(got_y, want_y) <= tolerance(dtype)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("lfilter"))
@pytest.mark.parametrize("dtype", [*DTYPES, *COMPLEX_DTYPES])
@pytest.mark.parametrize(("shape", "axis"), SIGNALS)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("with_zi", [False, True])
@pytest.mark.parametrize("design", list(BA_FILTERS))
def test_lfilter(runtime, variant, dtype, shape, axis, order, with_zi, design, rng):
    """Every variant, real and complex signals (as in :func:`test_sosfilt`)."""
    open_backend(runtime)
    b, a = BA_FILTERS[design]
    x, x64 = make_signal(rng, shape, dtype, order)
    zi_shape = list(shape)
    zi_shape[axis] = max(len(a), len(b)) - 1
    zi = random_state(rng, zi_shape, dtype) if with_zi else None
    with forced_variant("lfilter", variant):
        got = dspk.lfilter(b, a, x, axis=axis, zi=zi, runtime=runtime)
    if with_zi:
        want_y, want_zf = signal.lfilter(b, a, x64, axis=axis, zi=zi)
        got_y, got_zf = got
        assert got_zf.dtype == dtype
        assert rel_l2(got_zf, want_zf) <= tolerance(dtype)
    else:
        want_y, got_y = signal.lfilter(b, a, x64, axis=axis), got
    assert got_y.dtype == dtype
    assert rel_l2(got_y, want_y) <= tolerance(dtype)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("sosfiltfilt"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "axis"), SIGNALS)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize(("padtype", "padlen"),
                         [("odd", None), ("even", 30), ("constant", None), (None, None)])
def test_sosfiltfilt(runtime, variant, dtype, shape, axis, order, padtype, padlen, rng):
    open_backend(runtime)
    sos = SOS_FILTERS["bandpass3"]
    x, x64 = make_signal(rng, shape, dtype, order)
    with forced_variant("sosfiltfilt", variant):
        got = dspk.sosfiltfilt(sos, x, axis=axis, padtype=padtype, padlen=padlen,
                               runtime=runtime)
    want = signal.sosfiltfilt(sos, x64, axis=axis, padtype=padtype, padlen=padlen)
    assert got.dtype == dtype
    assert rel_l2(got, want) <= TOLERANCE[dtype]


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("filtfilt"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "axis"), SIGNALS)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize(("padtype", "padlen"), [("odd", None), ("even", 7), (None, None)])
@pytest.mark.parametrize("design", ["butter4", "b-shorter-than-a"])
def test_filtfilt(runtime, variant, dtype, shape, axis, order, padtype, padlen, design, rng):
    open_backend(runtime)
    b, a = BA_FILTERS[design]
    x, x64 = make_signal(rng, shape, dtype, order)
    with forced_variant("filtfilt", variant):
        got = dspk.filtfilt(b, a, x, axis=axis, padtype=padtype, padlen=padlen,
                            runtime=runtime)
    want = signal.filtfilt(b, a, x64, axis=axis, padtype=padtype, padlen=padlen)
    assert got.dtype == dtype
    assert rel_l2(got, want) <= TOLERANCE[dtype]


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("lfilter"))
@pytest.mark.parametrize("dtype", [*DTYPES, *COMPLEX_DTYPES])
@pytest.mark.parametrize(("shape", "axis"), [((1000,), -1), ((4, 300), 1), ((300, 3), 0)])
@pytest.mark.parametrize("irlen", [None, 60])
def test_filtfilt_gust(runtime, variant, dtype, shape, axis, irlen, rng):
    open_backend(runtime)
    b, a = BA_FILTERS["butter4"]
    x, x64 = make_signal(rng, shape, dtype, "C")
    with forced_variant("lfilter", variant):
        got = dspk.filtfilt(b, a, x, axis=axis, method="gust", irlen=irlen, runtime=runtime)
    want = signal.filtfilt(b, a, x64, axis=axis, method="gust", irlen=irlen)
    assert got.dtype == dtype
    assert rel_l2(got, want) <= tolerance(dtype)


#: Each filter on a complex signal, and with a complex state where it takes one, by the
#: module ``f`` (dspk or scipy.signal); ``state(k)`` is a state of ``x``'s shape with ``k``
#: samples along the time axis.
COMPLEX_CALLS = {
    "sosfilt": lambda f, x, axis, state: f.sosfilt(SOS_FILTERS["bandpass3"], x, axis=axis),
    "sosfilt-zi": lambda f, x, axis, state: f.sosfilt(
        SOS_FILTERS["bandpass3"], x, axis=axis, zi=np.stack([state(2)] * 3)),
    "lfilter": lambda f, x, axis, state: f.lfilter(*BA_FILTERS["butter4"], x, axis=axis),
    "lfilter-zi": lambda f, x, axis, state: f.lfilter(*BA_FILTERS["butter4"], x, axis=axis,
                                                      zi=state(4)),
    "sosfiltfilt": lambda f, x, axis, state: f.sosfiltfilt(SOS_FILTERS["bandpass3"], x,
                                                           axis=axis),
    "filtfilt": lambda f, x, axis, state: f.filtfilt(*BA_FILTERS["butter4"], x, axis=axis,
                                                     padtype="even"),
    "filtfilt-gust": lambda f, x, axis, state: f.filtfilt(*BA_FILTERS["butter4"], x, axis=axis,
                                                          method="gust"),
}


@pytest.mark.pairwise
@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize(("shape", "axis"), [((1000,), -1), ((5, 1023), -1), ((701, 40), 0),
                                             ((3, 4, 257), -1)])
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("name", list(COMPLEX_CALLS))
def test_complex_signals_as_scipy(runtime, dtype, shape, axis, order, name, rng):
    """Complex signals and states, filtered as scipy filters them (in complex128), in the
    complex dtype of the signal's precision: the real kernels run on the real and
    imaginary parts (:mod:`dspk.complex_signals`)."""
    open_backend(runtime)
    x128 = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    x = np.asarray(x128.astype(dtype), order=order)
    states = {}

    def state(k):  # one random complex state per length, the same for dspk and scipy
        if k not in states:
            state_shape = list(shape)
            state_shape[axis] = k
            states[k] = rng.standard_normal(state_shape) + 1j * rng.standard_normal(state_shape)
        return states[k]

    with dspk.runtime.using(runtime):
        got = COMPLEX_CALLS[name](dspk, x, axis, state)
    want = COMPLEX_CALLS[name](signal, x128, axis, state)
    got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
    tolerance = TOLERANCE[np.float32 if dtype == np.complex64 else np.float64]
    for got_part, want_part in zip(got, want, strict=True):
        assert got_part.dtype == dtype
        assert rel_l2(got_part, want_part) <= tolerance


#: Complex numerators over real denominators, as ``(b, a)``: a complex gain and a phase
#: per tap over butter4's poles; a denominator of complex dtype holding real values; and
#: ``a[0]`` not 1.
COMPLEX_NUMERATORS = {
    "complex-b": (BA_FILTERS["butter4"][0] * np.exp(0.7j) + 0.01j * np.arange(5),
                  BA_FILTERS["butter4"][1]),
    "complex-dtype-a": (BA_FILTERS["butter4"][0], BA_FILTERS["butter4"][1].astype(complex)),
    "unnormalised": (np.array([0.5 - 0.25j, 0.5j]), np.array([2.0, -1.0 + 0j])),
}


@pytest.mark.pairwise
@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("dtype", [*DTYPES, np.complex64, np.complex128])
@pytest.mark.parametrize(("shape", "axis"), [((1000,), -1), ((5, 1023), -1), ((701, 40), 0)])
@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("name", list(COMPLEX_NUMERATORS))
def test_complex_numerators_as_scipy(runtime, dtype, shape, axis, with_state, name, rng):
    """``lfilter`` and ``lfilter_zi`` with complex numerators, as scipy (complex128): the
    filter is linear in ``b``, so the real kernels run with its real and imaginary parts;
    the result is complex in the signal's precision."""
    open_backend(runtime)
    b, a = COMPLEX_NUMERATORS[name]
    x128 = rng.standard_normal(shape) + (1j * rng.standard_normal(shape)
                                         if np.dtype(dtype).kind == "c" else 0)
    x = x128.astype(dtype)
    state_shape = list(shape)
    state_shape[axis] = max(len(a), len(b)) - 1
    zi = rng.standard_normal(state_shape) + 1j * rng.standard_normal(state_shape)
    with dspk.runtime.using(runtime):
        got = dspk.lfilter(b, a, x, axis=axis, zi=zi if with_state else None)
    want = signal.lfilter(b, a, x128, axis=axis, zi=zi if with_state else None)
    got, want = (got, want) if with_state else ((got,), (want,))
    precision = np.float32 if dtype in (np.float32, np.complex64) else np.float64
    for got_part, want_part in zip(got, want, strict=True):
        assert got_part.dtype == np.result_type(precision, np.complex64)
        assert rel_l2(got_part, want_part) <= TOLERANCE[precision]
    np.testing.assert_allclose(dspk.lfilter_zi(b, a), signal.lfilter_zi(b, a), rtol=1e-12,
                               atol=1e-12)


#: Butterworth low-pass poles and zeros turned by 0.6 rad: a complex band-pass, as
#: ``(b, a)`` and as two complex sections.
_ZEROS, _POLES, _GAIN = signal.butter(4, 0.1, output="zpk")
_TURN = np.exp(0.6j)
COMPLEX_BA = (_GAIN * np.poly(_ZEROS * _TURN), np.poly(_POLES * _TURN))
COMPLEX_SOS = np.array([[*_GAIN * np.poly(_ZEROS[:2] * _TURN), *np.poly(_POLES[:2] * _TURN)],
                        [*np.poly(_ZEROS[2:] * _TURN), *np.poly(_POLES[2:] * _TURN)]])


@pytest.mark.pairwise
@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("dtype", [*DTYPES, np.complex64, np.complex128])
@pytest.mark.parametrize(("shape", "axis"), [((700,), -1), ((5, 1023), -1), ((301, 6), 0)])
@pytest.mark.parametrize(("op", "with_zi"), [("lfilter", False), ("lfilter", True),
                                             ("sosfilt", False), ("sosfilt", True),
                                             ("filtfilt", False), ("sosfiltfilt", False)])
def test_complex_denominators_as_scipy(runtime, dtype, shape, axis, op, with_zi, rng):
    """A complex band-pass (complex poles) through the filters (``zi`` for the one-pass
    ones): as scipy on a runtime whose kernels take complex coefficients
    (``Backend.takes_complex`` and a variant that supports them); a runtime chosen by name
    whose kernels do not raises OperationNotImplemented, naming what it lacks."""
    backend = open_backend(runtime)
    x, x128 = make_signal(rng, shape, dtype, "C")
    state_shape = list(shape)
    state_shape[axis] = 4 if op == "lfilter" else 2
    if op == "sosfilt":
        state_shape = [2, *state_shape]
    zi = random_state(rng, state_shape, np.complex128) if with_zi else None

    def call(f, signal_):
        if op in ("lfilter", "filtfilt"):
            return getattr(f, op)(*COMPLEX_BA, signal_, axis=axis,
                                  **({"zi": zi} if op == "lfilter" else {}))
        return getattr(f, op)(COMPLEX_SOS, signal_, axis=axis,
                              **({"zi": zi} if op == "sosfilt" else {}))

    if not backend.takes_complex(op):
        with pytest.raises(dspk.runtime.OperationNotImplemented,  # (or none for op at all)
                           match=rf"no kernel for {op}( with complex coefficients)?\)"), \
                dspk.runtime.using(runtime):
            call(dspk, x)
        return
    with dspk.runtime.using(runtime):
        got = call(dspk, x)
    want = call(signal, x128)
    got, want = (got, want) if with_zi else ((got,), (want,))
    for got_part, want_part in zip(got, want, strict=True):
        assert got_part.dtype == np.result_type(dtype, np.complex64)
        assert rel_l2(got_part, want_part) <= tolerance(dtype)


def test_lfilter_zi_of_complex_coefficients_as_scipy():
    np.testing.assert_allclose(dspk.lfilter_zi(*COMPLEX_BA), signal.lfilter_zi(*COMPLEX_BA),
                               rtol=1e-12)
    assert dspk.lfilter_zi(*(v.astype(np.complex64) for v in COMPLEX_BA)).dtype == np.complex64


@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_integer_input_is_filtered_in_float64(runtime, rng):
    open_backend(runtime)
    sos = SOS_FILTERS["bandpass3"]
    x = rng.integers(-1000, 1000, size=(3, 500)).astype(np.int16)
    got = dspk.sosfilt(sos, x, runtime=runtime)
    assert got.dtype == np.float64
    assert rel_l2(got, signal.sosfilt(sos, x)) <= 1e-10


@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_nan_in_the_signal_propagates(runtime, rng):
    open_backend(runtime)
    x = rng.standard_normal((2, 100))
    x[0, 10] = np.nan
    y = dspk.sosfilt(SOS_FILTERS["bandpass3"], x, runtime=runtime)
    assert np.isnan(y[0, 10:]).all() and np.isfinite(y[0, :10]).all()
    assert np.isfinite(y[1]).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_design_helpers_keep_the_coefficient_dtype(dtype):
    sos = SOS_FILTERS["bandpass3"].astype(dtype)
    b, a = (v.astype(dtype) for v in BA_FILTERS["butter4"])
    assert dspk.sosfilt_zi(sos).dtype == dtype
    assert dspk.lfilter_zi(b, a).dtype == dtype
    np.testing.assert_allclose(dspk.sosfilt_zi(sos), signal.sosfilt_zi(sos), rtol=1e-5)
    np.testing.assert_allclose(dspk.lfilter_zi(b, a), signal.lfilter_zi(b, a), rtol=1e-5)
