"""Conformance: convolution and correlation on every runtime and variant, against scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import signal

import dspk
from dspk.plugin import Problem
from dspk.testing import TOLERANCE, open_backend, rel_l2, runtimes_under_test, variant_params
from dspk.tuning.tuner import forced_variant

DTYPES = [np.float32, np.float64]
MODES = ["full", "same", "valid"]

# (in1 shape, in2 shape, axes for fftconvolve/oaconvolve)
CASES_1D = [((1000,), (31,)), ((257,), (256,)), ((5,), (8,)), ((4099,), (129,))]
CASES_BATCHED = [
    ((6, 1001), (1, 33), 1),     # shared taps, channels x samples
    ((6, 1001), (6, 17), -1),    # one row of taps per channel
    ((777, 5), (65, 1), 0),      # samples x channels
    ((1, 300), (4, 21), 1),      # one signal, four filters
]
CASES_2D = [((7, 50), (3, 5)), ((40, 9), (6, 4)), ((5, 5), (5, 5))]


def _inputs(rng, shape1, shape2, dtype, order="C"):
    a = rng.standard_normal(shape1)
    v = rng.standard_normal(shape2)
    return (np.asarray(a.astype(dtype), order=order), np.asarray(v.astype(dtype), order=order),
            a, v)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("convolve", method="auto"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("shape1", "shape2"), CASES_1D + CASES_2D)
@pytest.mark.parametrize("function", ["convolve", "correlate"])
def test_convolve_and_correlate(runtime, variant, dtype, mode, shape1, shape2, function, rng):
    open_backend(runtime)
    x, h, x64, h64 = _inputs(rng, shape1, shape2, dtype)
    with forced_variant("convolve", variant):
        got = getattr(dspk, function)(x, h, mode=mode, runtime=runtime)
    want = getattr(signal, function)(x64, h64, mode=mode)
    assert got.dtype == dtype
    assert rel_l2(got, want) <= TOLERANCE[dtype]


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("convolve", method="fft"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("shape1", "shape2", "axes"), CASES_BATCHED)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("function", ["fftconvolve", "oaconvolve"])
def test_fftconvolve_and_oaconvolve(runtime, variant, dtype, mode, shape1, shape2, axes, order,
                                    function, rng):
    open_backend(runtime)
    x, h, x64, h64 = _inputs(rng, shape1, shape2, dtype, order)
    with forced_variant("convolve", variant):
        got = getattr(dspk, function)(x, h, mode=mode, axes=axes, runtime=runtime)
    want = getattr(signal, function)(x64, h64, mode=mode, axes=axes)
    assert got.dtype == dtype
    assert rel_l2(got, want) <= TOLERANCE[dtype]


@pytest.mark.parametrize(("runtime", "variant"), variant_params("convolve"))
@pytest.mark.parametrize("method", ["direct", "fft"])
def test_method_restricts_the_variants(runtime, variant, method, rng):
    backend = open_backend(runtime)
    x, h, x64, h64 = _inputs(rng, (3, 200), (1, 9), np.float64)
    chosen = next(v for v in backend.variants("convolve") if v.name == variant)
    if not chosen.supports(Problem.make("convolve", "float64", 3, 200, "channel-major",
                                        taps=16, per_channel=False, method=method)):
        with forced_variant("convolve", variant), pytest.raises(NotImplementedError):
            dspk.convolve(x, h, method=method, runtime=runtime)
        return
    with forced_variant("convolve", variant):
        got = dspk.convolve(x, h, method=method, runtime=runtime)
    assert rel_l2(got, signal.convolve(x64, h64, method=method)) <= 1e-10


@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_integer_convolve_gives_integers_like_scipy(runtime, rng):
    open_backend(runtime)
    a = rng.integers(-50, 50, 300)
    v = rng.integers(-5, 5, 12)
    got = dspk.convolve(a, v, runtime=runtime)
    want = signal.convolve(a, v)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert dspk.fftconvolve(a, v, runtime=runtime).dtype == np.float64


@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_float32_signal_with_float64_taps_stays_float32(runtime, rng):
    open_backend(runtime)
    x = rng.standard_normal((4, 500)).astype(np.float32)
    taps = signal.firwin(31, 0.2)[None, :]
    got = dspk.oaconvolve(x, taps, axes=-1, runtime=runtime)
    assert got.dtype == np.float32
    assert rel_l2(got, signal.oaconvolve(x.astype(np.float64), taps, axes=-1)) <= 1e-4


@pytest.mark.pairwise
@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("precision", DTYPES)
@pytest.mark.parametrize("complex_inputs", ["in1", "in2", "both"])
@pytest.mark.parametrize(("shape1", "shape2"), [((300,), (31,)), ((20,), (50,)),
                                                ((3, 200), (1, 17)), ((5, 40), (3, 7))])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["convolve", "correlate", "fftconvolve", "oaconvolve"])
def test_complex_inputs_as_scipy(runtime, precision, complex_inputs, shape1, shape2, mode, name,
                                 rng):
    """Complex arrays (one or both) convolve and correlate as in scipy, from the real
    convolutions of their parts, in the complex dtype of dspk's real precision."""
    open_backend(runtime)

    def made(shape, is_complex):
        v = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if is_complex else 0)
        return v, v.astype(np.result_type(precision, np.complex64) if is_complex else precision)

    in1_128, in1 = made(shape1, complex_inputs in ("in1", "both"))
    in2_128, in2 = made(shape2, complex_inputs in ("in2", "both"))
    got = getattr(dspk, name)(in1, in2, mode=mode, runtime=runtime)
    assert got.dtype == np.result_type(precision, np.complex64)
    assert rel_l2(got, getattr(signal, name)(in1_128, in2_128, mode=mode)) <= TOLERANCE[precision]


@pytest.mark.pairwise
@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axes", [(0, 1), (0, 2), (1, 2), (2,), (-3,)])
@pytest.mark.parametrize(("batch1", "batch2"), [(1, 3), (3, 1), (3, 3)])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["fftconvolve", "oaconvolve"])
def test_batches_of_three_dimensional_arrays_as_scipy(runtime, dtype, axes, batch1, batch2,
                                                      mode, name, rng):
    """Arrays of three dimensions convolve along ``axes``; the other axis is a batch,
    broadcast (and, for ``mode="same"``, cropped to ``in1``) as scipy does."""
    open_backend(runtime)
    shape1, shape2 = [batch1] * 3, [batch2] * 3
    for axis, size1, size2 in zip(axes, (40, 6), (7, 4)):
        shape1[axis], shape2[axis] = size1, size2
    in1, in2 = rng.standard_normal(shape1), rng.standard_normal(shape2)
    got = getattr(dspk, name)(in1.astype(dtype), in2.astype(dtype), mode=mode, axes=axes,
                              runtime=runtime)
    want = getattr(signal, name)(in1, in2, mode=mode, axes=axes)
    assert got.shape == want.shape and got.dtype == dtype
    assert rel_l2(got, want) <= TOLERANCE[dtype]
