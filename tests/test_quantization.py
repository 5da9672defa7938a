"""dspk.to_int16: scaled int16 in memory, as dspk filter writes files."""

from __future__ import annotations

import numpy as np
import pytest

import dspk

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(5, 1001), (2, 3, 257), (300,)])
@pytest.mark.parametrize("scale", [1.0, 0.37, 12.0])
def test_matches_round_of_scaled_values_in_float32(dtype, shape, scale):
    y = (RNG.standard_normal(shape) * 900 / scale).astype(dtype)
    got = dspk.to_int16(y, scale)
    want = np.rint(np.multiply(y, np.float32(scale), dtype=np.float32)).astype(np.int16)
    assert got.dtype == np.int16 and got.shape == y.shape
    np.testing.assert_array_equal(got, want)


def test_strided_and_fortran_inputs_are_converted_in_place_of_their_values():
    y = RNG.standard_normal((64, 400)) * 100
    for view in (np.asfortranarray(y), y[::3, 1::2], y.T):
        np.testing.assert_array_equal(dspk.to_int16(view), np.rint(view).astype(np.int16))


def test_values_beyond_the_range_are_clipped_with_a_count():
    y = np.array([[1e5, -1e5, 3.4, -40000.0]])
    with pytest.warns(RuntimeWarning, match="3 sample"):
        got = dspk.to_int16(y)
    np.testing.assert_array_equal(got, [[32767, -32768, 3, -32768]])


def test_nan_is_refused_by_default_and_zero_on_request():
    y = RNG.standard_normal((3, 50))
    y[1, 17] = np.nan
    with pytest.raises(ValueError, match=r"\(1, 17\).*nonfinite='zero'"):
        dspk.to_int16(y)
    with pytest.warns(RuntimeWarning, match="1 NaN"):
        got = dspk.to_int16(y * 100, nonfinite="zero")
    assert got[1, 17] == 0
    np.testing.assert_array_equal(np.delete(got.ravel(), 67),
                                  np.rint(np.delete((y * 100).ravel(), 67)).astype(np.int16))


@pytest.mark.parametrize("scale", [0, -1.0, np.inf, np.nan, True, "2"])
def test_a_bad_scale_is_named(scale):
    with pytest.raises(ValueError, match="scale"):
        dspk.to_int16(np.ones(4), scale)


def test_other_bad_arguments_are_named():
    with pytest.raises(ValueError, match="nonfinite"):
        dspk.to_int16(np.ones(4), nonfinite="clip")
    with pytest.raises(TypeError, match="real numbers"):
        dspk.to_int16(np.ones(4, np.complex64))


def test_the_input_is_left_alone_and_big_endian_is_read_as_native():
    y = (RNG.standard_normal((4, 100)) * 50).astype(">f4")
    before = y.copy()
    np.testing.assert_array_equal(dspk.to_int16(y), np.rint(y.astype(np.float32)).astype(np.int16))
    np.testing.assert_array_equal(y, before)


def test_a_filtered_int16_recording_goes_back_to_its_counts():
    import scipy.signal

    raw = RNG.integers(-2000, 2000, (8, 6000)).astype(np.int16)
    sos = scipy.signal.butter(3, [300, 6000], "bandpass", fs=30000, output="sos")
    y = dspk.sosfilt(sos, raw, dtype=np.float32)
    reference = scipy.signal.sosfilt(sos, raw.astype(np.float64))
    # half a count of rounding, plus float32's error in filtering counts in the thousands
    assert np.abs(dspk.to_int16(y).astype(float) - reference).max() <= 0.52
