"""Bad input gets a clear error that names the parameter, before any kernel runs."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import signal

import dspk
from dspk.testing import open_backend, variant_params
from dspk.tuning.tuner import forced_variant

SOS = signal.butter(3, [0.1, 0.3], "bandpass", output="sos")
B, A = signal.butter(3, 0.2)
X = np.random.default_rng(0).standard_normal((3, 200))


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: dspk.sosfilt(SOS, np.float64(1.0)), ValueError, "x must have at least one"),
    (lambda: dspk.sosfilt(SOS, X, axis=2), ValueError, "axis=2 is out of range"),
    (lambda: dspk.sosfilt(SOS, X, axis=1.5), TypeError, "axis must be an integer"),
    (lambda: dspk.sosfilt(SOS, np.zeros((3, 0))), ValueError, "x is empty"),
    (lambda: dspk.sosfilt(SOS[:, :5], X), ValueError, r"sos must have shape \(n_sections, 6\)"),
    (lambda: dspk.sosfilt(np.zeros((0, 6)), X), ValueError, "sos must have shape"),
    (lambda: dspk.sosfilt(np.where(SOS == SOS[0, 3], 0, SOS), X), ValueError,
     "zero leading denominator"),
    (lambda: dspk.sosfilt(SOS * np.array([1, 1, 1, 2, 1, 1]), X), ValueError, "sos.*ones"),
    (lambda: dspk.sosfilt(np.where(SOS == SOS[0, 0], np.nan, SOS), X), ValueError,
     "sos has non-finite"),
    (lambda: dspk.sosfilt([[1, 0, 0, 1, -2.5, 1]], X), ValueError, "sos is unstable"),
    (lambda: dspk.sosfilt(SOS, X, zi=np.zeros((2, 3, 2))), ValueError, "zi has shape"),
    (lambda: dspk.sosfilt(SOS, np.array(["a", "b"])), TypeError, "not a real number"),
    (lambda: dspk.lfilter(B, [0.0, 1.0], X), ValueError, r"a\[0\].*must not be zero"),
    (lambda: dspk.lfilter(B, [1.0, -3.0], X), ValueError, "a is unstable"),
    (lambda: dspk.lfilter([[1.0]], A, X), ValueError, "b must be a non-empty 1-D"),
    (lambda: dspk.lfilter([], A, X), ValueError, "b must be a non-empty 1-D"),
    (lambda: dspk.lfilter([np.inf], A, X), ValueError, "b has non-finite"),
    (lambda: dspk.lfilter(B, A, X, zi=np.zeros((3, 2))), ValueError, "zi has shape"),
    (lambda: dspk.sosfiltfilt(SOS, X, padtype="wrap"), ValueError, "padtype='wrap'"),
    (lambda: dspk.sosfiltfilt(SOS, X[:, :10]), ValueError, "padlen=21 must be less"),
    (lambda: dspk.sosfiltfilt(SOS, X, padlen=-1), ValueError, "padlen must be an integer >= 0"),
    (lambda: dspk.filtfilt(B, A, X, method="fast"), ValueError, "method='fast'"),
    (lambda: dspk.filtfilt(B, A, X, method="gust", irlen=0), ValueError, "irlen"),
    (lambda: dspk.convolve(X, X[0]), ValueError, "same number of dimensions"),
    (lambda: dspk.convolve(X, X, mode="middle"), ValueError, "mode='middle'"),
    (lambda: dspk.convolve(X, X, method="fastest"), ValueError, "method='fastest'"),
    (lambda: dspk.convolve(X[0], np.array([])), ValueError, "in2 is empty"),
    (lambda: dspk.convolve(np.zeros((2, 3, 4)), np.zeros((1, 1, 2))), ValueError,
     "one or two axes"),
    (lambda: dspk.convolve(np.zeros((5, 3)), np.zeros((3, 5)), mode="valid"), ValueError,
     "at least as large"),
    (lambda: dspk.fftconvolve(X, np.zeros((2, 5)), axes=1), ValueError, "incompatible shapes"),
    (lambda: dspk.fftconvolve(X, X, axes=[1, 1]), ValueError, "names an axis twice"),
    (lambda: dspk.sosfilt(SOS, X, runtime="nonesuch"), ValueError,
     "'nonesuch' is not a runtime of this build"),
    (lambda: dspk.sosfilt_zi(SOS, runtime="nonesuch"), ValueError, "not a runtime"),
])
def test_bad_input_names_the_problem(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_section_poles_in_closed_form_are_numpys_roots():
    """validation.poles solves second-order rows by the quadratic formula: the same
    poles as numpy.roots, real and complex pairs, near z = 1 and at 0."""
    from scipy import signal as scipy_signal

    from dspk import validation

    rng = np.random.default_rng(11)
    rows = np.column_stack([np.ones(200), rng.uniform(-2, 2, 200), rng.uniform(-1, 1, 200)])
    designs = [rows, scipy_signal.butter(4, 1e-4, "highpass", output="sos")[:, 3:],
               np.array([[1.0, 0.0, 0.0], [1.0, -0.5, 0.0], [1.0, -2.0, 1.0]])]
    for denominators in designs:
        want = np.concatenate([np.roots(row) for row in denominators])
        got = validation.poles(denominators)
        distance = np.abs(got[:, None] - want[None, :])
        assert got.shape == want.shape
        assert distance.min(axis=0).max() < 1e-7 and distance.min(axis=1).max() < 1e-7


@pytest.mark.parametrize(("runtime", "variant"), variant_params("lfilter"))
def test_a_transfer_function_without_delays_is_a_gain(runtime, variant, rng):
    """``lfilter([b0], [a0], x)``: a gain, without state, on every variant (as scipy)."""
    open_backend(runtime)
    x = rng.standard_normal((3, 50))
    with forced_variant("lfilter", variant):
        y, zf = dspk.lfilter([3.0], [2.0], x, zi=np.zeros((3, 0)), runtime=runtime)
        along_0 = dspk.lfilter([3.0], [2.0], x.T, axis=0, runtime=runtime)
    np.testing.assert_allclose(y, 1.5 * x, rtol=1e-12)
    np.testing.assert_allclose(along_0, 1.5 * x.T, rtol=1e-12)
    assert zf.shape == (3, 0)
