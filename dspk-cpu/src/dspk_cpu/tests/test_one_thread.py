"""The cpu runtime's one-thread variants (scipy's compiled filters called directly, for
small problems) give scipy.signal's results: both dtypes, both time axes, with state."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.fft
import scipy.signal

import dspk
from dspk.testing import TOLERANCE, rel_l2
from dspk.tuning.tuner import forced_variant

SOS = scipy.signal.butter(3, [0.05, 0.4], "bandpass", output="sos")
B, A = scipy.signal.butter(3, [0.05, 0.4], "bandpass")


def _signal(dtype, axis):
    x = np.random.default_rng(3).standard_normal((5, 40)).astype(dtype)
    return np.ascontiguousarray(x.T) if axis == 0 else x


def _agree(got, want, dtype, result_dtype=None):
    """Within the conformance kit's tolerance of scipy in float64, in ``dtype``'s precision
    (``result_dtype``, such as complex64, when the result is not ``dtype``)."""
    assert got.dtype == (result_dtype or dtype) and got.shape == want.shape
    assert rel_l2(got, want) <= TOLERANCE[dtype]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [0, 1])
def test_sosfilt_and_lfilter_one_thread_match_scipy(dtype, axis):
    x = _signal(dtype, axis)
    zi_sos = np.random.default_rng(4).standard_normal(
        (len(SOS), *((2, 5) if axis == 0 else (5, 2)))).astype(dtype)
    zi_ba = np.random.default_rng(5).standard_normal(
        (len(A) - 1, 5) if axis == 0 else (5, len(A) - 1)).astype(dtype)
    with forced_variant("sosfilt", "scipy-one-thread"):
        y = dspk.sosfilt(SOS, x, axis=axis, runtime="cpu")
        y_zi, zf = dspk.sosfilt(SOS, x, axis=axis, zi=zi_sos, runtime="cpu")
    with forced_variant("lfilter", "scipy-one-thread"):
        w = dspk.lfilter(B, A, x, axis=axis, runtime="cpu")
        w_zi, wf = dspk.lfilter(B, A, x, axis=axis, zi=zi_ba, runtime="cpu")
    x64, zi_sos, zi_ba = (v.astype(np.float64) for v in (x, zi_sos, zi_ba))
    expected = [scipy.signal.sosfilt(SOS, x64, axis=axis),
                *scipy.signal.sosfilt(SOS, x64, axis=axis, zi=zi_sos),
                scipy.signal.lfilter(B, A, x64, axis=axis),
                *scipy.signal.lfilter(B, A, x64, axis=axis, zi=zi_ba)]
    for got, want in zip([y, y_zi, zf, w, w_zi, wf], expected):
        _agree(got, want, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [0, 1])
def test_zero_phase_one_thread_match_scipy(dtype, axis):
    x = _signal(dtype, axis)
    with forced_variant("sosfiltfilt", "scipy-one-thread"):
        y = dspk.sosfiltfilt(SOS, x, axis=axis, runtime="cpu")
    with forced_variant("filtfilt", "scipy-one-thread"):
        w = dspk.filtfilt(B, A, x, axis=axis, runtime="cpu")
    x64 = x.astype(np.float64)
    _agree(y, scipy.signal.sosfiltfilt(SOS, x64, axis=axis), dtype)
    _agree(w, scipy.signal.filtfilt(B, A, x64, axis=axis), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_fft_one_thread_matches_scipy(dtype, axis, norm):
    x = _signal(dtype, axis)
    z = x + 1j * _signal(dtype, axis)[::-1]
    x64, z64 = x.astype(np.float64), z.astype(np.complex128)
    complex_type = np.result_type(dtype, np.complex64)
    with forced_variant("fft", "one-thread"):
        got = [dspk.rfft(x, axis=axis, norm=norm, runtime="cpu"),
               dspk.rfft(x, n=31, axis=axis, norm=norm, runtime="cpu"),
               dspk.irfft(z, axis=axis, norm=norm, runtime="cpu"),
               dspk.fft(z, n=48, axis=axis, norm=norm, runtime="cpu"),
               dspk.ifft(z, axis=axis, norm=norm, runtime="cpu")]
    want = [scipy.fft.rfft(x64, axis=axis, norm=norm),
            scipy.fft.rfft(x64, n=31, axis=axis, norm=norm),
            scipy.fft.irfft(z64, axis=axis, norm=norm),
            scipy.fft.fft(z64, n=48, axis=axis, norm=norm),
            scipy.fft.ifft(z64, axis=axis, norm=norm)]
    for g, w, kind in zip(got, want, [complex_type, complex_type, dtype, complex_type,
                                      complex_type]):
        _agree(g, w, dtype, kind)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("n", [None, 33, 64])
def test_hilbert_one_thread_matches_scipy(dtype, axis, n):
    x = _signal(dtype, axis)
    with forced_variant("hilbert", "one-thread"):
        y = dspk.hilbert(x, N=n, axis=axis, runtime="cpu")
    _agree(y, scipy.signal.hilbert(x.astype(np.float64), N=n, axis=axis), dtype,
           np.result_type(dtype, np.complex64))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("channels", [1, 6, 7])
@pytest.mark.parametrize("operator", ["median", "average"])
def test_common_reference_whole_matches_numpy(dtype, axis, channels, operator):
    x = np.random.default_rng(6).standard_normal((channels, 40)).astype(dtype)
    x = np.ascontiguousarray(x.T) if axis == 0 else x
    # Six channels: two groups in no order, channel 3 in none (zeros).
    groups = [[4, 0, 2], [5, 1]] if channels == 6 else [list(range(channels))[::-1]]
    with forced_variant("common_reference", "numpy-whole"):
        y = dspk.common_reference(x, operator=operator, groups=groups, axis=axis,
                                  runtime="cpu")
    reduce = np.median if operator == "median" else np.mean
    x64 = x.astype(np.float64) if axis == 1 else x.T.astype(np.float64)
    want = np.zeros_like(x64)
    for members in groups:
        want[members] = x64[members] - reduce(x64[members], axis=0)
    _agree(y, want if axis == 1 else want.T, dtype)


def test_common_reference_whole_median_of_nan_is_nan():
    x = np.random.default_rng(7).standard_normal((4, 10))
    x[2, 3] = np.nan
    with forced_variant("common_reference", "numpy-whole"):
        y = dspk.common_reference(x, runtime="cpu")
    np.testing.assert_array_equal(y, x - np.median(x, axis=0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("operator", ["median", "average"])
def test_common_reference_variants_agree_bitwise(dtype, operator):
    """Tuning never changes a common reference: each variant takes the median or mean
    and subtracts it in float64, rounding once (a float32 mean rounded before the
    subtraction differed from the numba kernel's by an ulp)."""
    x = np.random.default_rng(9).standard_normal((300, 7)).astype(dtype) * 3 + 1
    groups = [[0, 2, 4, 6], [1, 3, 5]]  # an even and an odd count of channels
    results = []
    for name in ("numba-bitwise-select", "numpy-blocks", "numpy-whole"):
        with forced_variant("common_reference", name):
            results.append(dspk.common_reference(x, operator=operator, groups=groups,
                                                 axis=0, runtime="cpu"))
    for y in results[1:]:
        np.testing.assert_array_equal(y, results[0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_resample_poly_kept_designs_match_scipy(dtype):
    """resample_poly keeps its antialiasing designs: repeated calls, and calls with another
    window or rate, still give scipy's results."""
    x = np.random.default_rng(8).standard_normal((3, 50)).astype(dtype)
    for window, up, down in [(("kaiser", 5.0), 1, 3), (("kaiser", 5.0), 1, 3),
                             ("hamming", 1, 3), (("kaiser", 5.0), 2, 3)]:
        y = dspk.resample_poly(x, up, down, axis=1, window=window, runtime="cpu")
        _agree(y, scipy.signal.resample_poly(x.astype(np.float64), up, down, axis=1,
                                             window=window), dtype)
