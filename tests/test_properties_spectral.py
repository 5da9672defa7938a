"""Property: welch matches scipy.signal.welch over random shapes and parameters."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from scipy import signal

import dspk
from conftest import TOLERANCE, rel_l2

WINDOWS = ["hann", "hamming", "boxcar", "blackman", ("tukey", 0.3), ("kaiser", 4.0)]


@st.composite
def welch_problems(draw):
    """A signal (1-D, or 2-D with time on either axis) and welch arguments that suit it."""
    channels = draw(st.one_of(st.none(), st.integers(1, 4)))
    length = draw(st.integers(8, 700))
    axis = -1 if channels is None else draw(st.sampled_from([0, 1, -1]))
    shape = (length,) if channels is None else (
        (length, channels) if axis == 0 else (channels, length))
    nperseg = draw(st.integers(4, length))
    options = {
        "nperseg": nperseg,
        "noverlap": draw(st.integers(0, nperseg - 1)),
        "nfft": draw(st.one_of(st.none(), st.integers(nperseg, 2 * nperseg))),
        "window": draw(st.sampled_from(WINDOWS)),
        "detrend": draw(st.sampled_from(["constant", "linear", False])),
        "average": draw(st.sampled_from(["mean", "median"])),
        "scaling": draw(st.sampled_from(["density", "spectrum"])),
        "return_onesided": draw(st.booleans()),
        "axis": axis,
    }
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    seed = draw(st.integers(0, 2**32 - 1))
    order = draw(st.sampled_from(["C", "F"]))
    return shape, dtype, order, seed, options


@given(welch_problems())
def test_welch_matches_scipy(problem):
    shape, dtype, order, seed, options = problem
    x64 = np.random.default_rng(seed).standard_normal(shape)
    x = np.asarray(x64.astype(dtype), order=order)
    f, pxx = dspk.welch(x, **options)
    f_want, pxx_want = signal.welch(x64, **options)
    assert np.array_equal(f, f_want)
    assert pxx.dtype == dtype
    assert rel_l2(pxx, pxx_want) <= TOLERANCE[dtype]
