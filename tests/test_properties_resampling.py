"""Property: resample_poly agrees with scipy.signal.resample_poly on any shape, ratio and axis.

Hypothesis draws the signal's shape (1 to 3 dimensions, the time axis 1 to
300 samples long), the axis, ``up`` and ``down`` from 1 to 7, the dtype and
the memory order, on every kernel variant of ``upfirdn``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import signal

import dspk
from conftest import TOLERANCE, open_backend, rel_l2, variant_params
from dspk.tuning.tuner import forced_variant


@st.composite
def signals(draw):
    """A random signal: ``(x, x64, axis)``, ``x`` in the drawn dtype and order."""
    ndim = draw(st.integers(1, 3))
    shape = draw(st.lists(st.integers(1, 6), min_size=ndim, max_size=ndim))
    axis = draw(st.integers(-ndim, ndim - 1))
    shape[axis] = draw(st.integers(1, 300))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    order = draw(st.sampled_from("CF"))
    x64 = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).standard_normal(shape)
    return np.asarray(x64.astype(dtype), order=order), x64, axis


@pytest.mark.parametrize(("runtime", "variant"), variant_params("upfirdn"))
@given(drawn=signals(), up=st.integers(1, 7), down=st.integers(1, 7))
def test_resample_poly_matches_scipy(runtime, variant, drawn, up, down):
    open_backend(runtime)
    x, x64, axis = drawn
    with forced_variant("upfirdn", variant):
        got = dspk.resample_poly(x, up, down, axis=axis, runtime=runtime)
    want = signal.resample_poly(x64, up, down, axis=axis)
    assert got.shape == want.shape
    assert got.dtype == x.dtype
    assert rel_l2(got, want) <= TOLERANCE[x.dtype.type]
