"""Conformance: noise_levels and detect_peaks on every runtime and kernel variant.

scipy has neither, so the references are plain NumPy in float64, written here
from the definitions in :mod:`dspk.detection` (SpikeInterface's semantics): the
noise levels within :data:`dspk.testing.TOLERANCE` (the medians are selections,
exact), the peaks exactly (same samples, channels and amplitudes). Signals are
random noise of a different level on each channel with spikes injected.
"""

from __future__ import annotations

import numpy as np
import pytest

import dspk
from dspk.detection import MAD_TO_STD
from dspk.operations import OPERATIONS
from dspk.plugin import LAYOUTS, Problem
from dspk.testing import (
    TOLERANCE,
    assert_variants_agree,
    open_backend,
    rel_l2,
    runtimes_under_test,
    variant_params,
)
from dspk.tuning.tuner import forced_variant

DTYPES = [np.float32, np.float64]
ORDERS = ["C", "F"]
AXES = [-1, 0]
# (channels, samples): one channel, few, many (odd and even sample counts).
SIZES = [(1, 257), (4, 1000), (37, 499), (384, 60)]


def make_recording(rng, channels, samples, axis, dtype, order, spikes=None):
    """Noise of a level per channel plus negative and positive spikes that spread over
    neighbouring channels; in the layout under test, and as float64 channels by samples."""
    x64 = rng.standard_normal((channels, samples)) * rng.uniform(0.5, 2.0, (channels, 1))
    shape = np.array([-0.3, -1.0, -0.6, 0.2, 0.1])
    for _ in range(max(1, samples // 40) if spikes is None else spikes):
        c, t = rng.integers(channels), rng.integers(samples - len(shape))
        height = rng.uniform(6, 20) * rng.choice([-1, 1])
        for offset, fall in ((0, 1.0), (-1, 0.6), (1, 0.5)):
            if 0 <= c + offset < channels:
                x64[c + offset, t:t + len(shape)] += height * fall * shape
    x64 = x64.astype(dtype).astype(np.float64)  # the values the runtime sees
    laid_out = (x64 if axis == -1 else x64.T).astype(dtype)
    return np.asarray(laid_out, order=order), x64


def reference_noise(x64, dtype, method):
    if method == "mad":
        median = np.median(x64, axis=1, keepdims=True)
        centred = np.abs(x64.astype(dtype) - median.astype(dtype)).astype(np.float64)
        return np.median(centred, axis=1) / MAD_TO_STD
    if method == "std":
        return np.std(x64, axis=1)
    return np.sqrt(np.mean(x64 ** 2, axis=1))


def linear_probe(channels, pitch=20.0):
    """Two columns 16 apart, rows ``pitch`` apart: channels ``c`` and ``c + 1`` share a row."""
    c = np.arange(channels)
    return np.column_stack([16.0 * (c % 2), pitch * (c // 2)])


def reference_peaks(x64, levels, sign, exclude, positions=None, radius=None):
    """Every peak by the definition, one candidate at a time: (samples, channels)."""
    channels, n = x64.shape
    if positions is None:
        neighbours = [[] for _ in range(channels)]
    else:
        distance = np.linalg.norm(positions[:, None] - positions[None], axis=2)
        neighbours = [[m for m in range(channels) if m != c and distance[c, m] <= radius]
                      for c in range(channels)]
    found = []
    for t in range(n):
        for c in range(channels):
            v = x64[c, t]
            for negative in (True, False):
                if (sign == "pos" and negative) or (sign == "neg" and not negative):
                    continue
                if not (v < -levels[c] if negative else v > levels[c]):
                    continue
                peak = True
                for m in [c] + neighbours[c]:
                    for u in range(max(t - exclude, 0), min(t + exclude, n - 1) + 1):
                        if m == c and u == t:
                            continue
                        w = x64[m, u]
                        if negative:
                            peak &= bool(v < w) if u < t else bool(v <= w)
                        else:
                            peak &= bool(v > w) if u < t else bool(v >= w)
                if peak:
                    found.append((t, c))
    return np.array(found, np.int64).reshape(-1, 2)


def assert_peaks(got, want, x64, dtype):
    assert got.dtype.names == ("sample_index", "channel_index", "amplitude")
    assert got["amplitude"].dtype == dtype
    np.testing.assert_array_equal(np.column_stack([got["sample_index"], got["channel_index"]]),
                                  want)
    np.testing.assert_array_equal(got["amplitude"], x64[want[:, 1], want[:, 0]].astype(dtype))


# --- noise_levels -----------------------------------------------------------------------

@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("channel_median"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("channels", "samples"), SIZES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("order", ORDERS)
def test_noise_levels_mad(runtime, variant, dtype, channels, samples, axis, order, rng):
    open_backend(runtime)
    x, x64 = make_recording(rng, channels, samples, axis, dtype, order)
    before = x.copy()
    with forced_variant("channel_median", variant):
        got = dspk.noise_levels(x, axis=axis, runtime=runtime)
    assert got.dtype == np.float64 and got.shape == (channels,)
    assert rel_l2(got, reference_noise(x64, dtype, "mad")) <= TOLERANCE[dtype]
    np.testing.assert_array_equal(x, before)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("channel_mean_square"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("channels", "samples"), SIZES + [(3, 40001)])
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("method", ["std", "rms"])
def test_noise_levels_std_rms(runtime, variant, dtype, channels, samples, axis, order, method,
                              rng):
    open_backend(runtime)
    x, x64 = make_recording(rng, channels, samples, axis, dtype, order)
    x += dtype(0.5)  # an offset, for std to remove
    x64 = by_channels(x, axis).astype(np.float64)
    with forced_variant("channel_mean_square", variant):
        got = dspk.noise_levels(x, method, axis=axis, runtime=runtime)
    assert got.dtype == np.float64 and got.shape == (channels,)
    assert rel_l2(got, reference_noise(x64, dtype, method)) <= TOLERANCE[dtype]


def by_channels(y, axis):
    return np.asarray(y) if axis == -1 else np.asarray(y).T


@pytest.mark.parametrize(("runtime", "variant"), variant_params("channel_median"))
@pytest.mark.parametrize("dtype", DTYPES)
def test_noise_levels_mad_of_ties_and_nan(runtime, variant, dtype, rng):
    """Integer-valued channels (many ties, even and odd counts); a NaN gives its channel NaN."""
    open_backend(runtime)
    for samples in (300, 301):
        x64 = rng.integers(-4, 5, size=(6, samples)).astype(np.float64)
        x64[4, 17] = np.nan
        with forced_variant("channel_median", variant):
            got = dspk.noise_levels(x64.astype(dtype), runtime=runtime)
        want = reference_noise(x64, dtype, "mad")
        assert np.isnan(got[4]) and np.isnan(want[4])
        np.testing.assert_allclose(np.delete(got, 4), np.delete(want, 4), rtol=1e-12)


# --- detect_peaks -----------------------------------------------------------------------

@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("detect_peaks"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("channels", "samples"), SIZES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("sign", ["neg", "pos", "both"])
@pytest.mark.parametrize("exclude", [0, 3, 20])
@pytest.mark.parametrize("local", [False, True])
def test_detect_peaks(runtime, variant, dtype, channels, samples, axis, order, sign, exclude,
                      local, rng):
    open_backend(runtime)
    x, x64 = make_recording(rng, channels, samples, axis, dtype, order)
    before = x.copy()
    noise = reference_noise(x64, dtype, "mad")
    threshold = 3.0
    geometry = {"positions": linear_probe(channels), "radius": 45.0} if local else {}
    with forced_variant("detect_peaks", variant):
        got = dspk.detect_peaks(x, noise, threshold=threshold, sign=sign, exclude=exclude,
                                axis=axis, runtime=runtime, **geometry)
    levels = (threshold * noise).astype(dtype).astype(np.float64)
    want = reference_peaks(x64, levels, sign, exclude, **geometry)
    assert len(want) > 0
    assert_peaks(got, want, x64, dtype)
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize(("runtime", "variant"), variant_params("detect_peaks"))
@pytest.mark.parametrize("local", [False, True])
def test_detect_peaks_ties_and_nan(runtime, variant, local, rng):
    """Integer-valued data: equal values in a window (the first is the peak) and across
    channels at one sample (all are peaks); a NaN is never a peak and suppresses its window."""
    open_backend(runtime)
    x64 = rng.integers(-6, 7, size=(8, 400)).astype(np.float64)
    x64[2, 50:53] = -9.0  # three equal minima in a row: the first is the peak
    x64[3, 120] = x64[4, 120] = -12.0  # equal across channels at one sample
    x64[5, 200] = -11.0
    x64[5, 202] = np.nan  # in the window of 200: no peak there
    x64[6, 300] = np.nan
    levels = np.full(8, 4.5)
    geometry = {"positions": linear_probe(8), "radius": 25.0} if local else {}
    with forced_variant("detect_peaks", variant):
        got = dspk.detect_peaks(x64, levels / 1.5, threshold=1.5, exclude=3, runtime=runtime,
                                **geometry)
    want = reference_peaks(x64, levels, "neg", 3, **geometry)
    assert_peaks(got, want, x64, np.float64)
    found = set(zip(got["sample_index"].tolist(), got["channel_index"].tolist()))
    assert (50, 2) in found and (51, 2) not in found
    assert (120, 3) in found and (120, 4) in found
    assert not any(t in (200, 300) for t, _ in found)


@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_detect_peaks_default_noise_levels_and_one_channel(runtime, rng):
    """Without noise levels, the MAD's; a 1-D signal is one channel."""
    open_backend(runtime)
    x, x64 = make_recording(rng, 3, 2000, -1, np.float64, "C")
    got = dspk.detect_peaks(x, runtime=runtime, exclude=10)
    want = reference_peaks(x64, 5.0 * reference_noise(x64, np.float64, "mad"), "neg", 10)
    assert_peaks(got, want, x64, np.float64)
    one = dspk.detect_peaks(x[1], runtime=runtime, exclude=10)
    assert_peaks(one, want[want[:, 1] == 1] * [1, 0], x64[1:2], np.float64)


@pytest.mark.pairwise
@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("op", ["channel_median", "channel_mean_square", "detect_peaks"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_catalogue_examples_agree_on_every_variant(runtime, op, dtype, layout):
    """What the tuner times: every variant runs on the catalogue's example arguments, and
    all give one result."""
    backend = open_backend(runtime)
    for params in OPERATIONS[op].grid_params:
        assert_variants_agree(backend, op, Problem.make(op, dtype, 5, 300, layout, **params))


# --- bad input ----------------------------------------------------------------------

X = np.random.default_rng(0).standard_normal((4, 200))
PROBE = linear_probe(4)


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: dspk.noise_levels(X, "median"), ValueError, "method='median' is not one of"),
    (lambda: dspk.noise_levels(X[None]), ValueError, "x must be 1-D .* or 2-D"),
    (lambda: dspk.noise_levels(np.zeros((4, 0))), ValueError, "x is empty"),
    (lambda: dspk.noise_levels(X.astype(complex)), TypeError, "complex"),
    (lambda: dspk.noise_levels(X, axis=2), ValueError, "axis=2 is out of range"),
    (lambda: dspk.detect_peaks(X, threshold=0), ValueError,
     "threshold must be a finite number > 0"),
    (lambda: dspk.detect_peaks(X, threshold=-1.0), ValueError, "threshold must be"),
    (lambda: dspk.detect_peaks(X, threshold=np.nan), ValueError, "threshold must be"),
    (lambda: dspk.detect_peaks(X, threshold="5"), TypeError, "threshold must be a real number"),
    (lambda: dspk.detect_peaks(X, sign="negative"), ValueError, "sign='negative' is not one of"),
    (lambda: dspk.detect_peaks(X, exclude=-1), ValueError, "exclude must be an integer >= 0"),
    (lambda: dspk.detect_peaks(X, exclude=1.5), TypeError, "exclude must be an integer"),
    (lambda: dspk.detect_peaks(X, positions=PROBE[:3], radius=30), ValueError,
     r"positions has 3 row\(s\); the signal has 4 channel\(s\)"),
    (lambda: dspk.detect_peaks(X, positions=PROBE[:, 0], radius=30), ValueError,
     r"positions must have shape \(n, 2\)"),
    (lambda: dspk.detect_peaks(X, positions=PROBE * np.nan, radius=30), ValueError,
     "positions has non-finite"),
    (lambda: dspk.detect_peaks(X, radius=30), ValueError, "radius was given without positions"),
    (lambda: dspk.detect_peaks(X, positions=PROBE), ValueError,
     "positions was given without radius"),
    (lambda: dspk.detect_peaks(X, positions=PROBE, radius=-1), ValueError,
     "radius must be a finite distance >= 0"),
    (lambda: dspk.detect_peaks(X, np.ones(3)), ValueError,
     r"noise_levels has shape \(3,\); x has 4 channel\(s\)"),
    (lambda: dspk.detect_peaks(X, [1.0, np.nan, 1.0, 1.0]), ValueError,
     "noise_levels must be finite and >= 0; channel 1 has nan"),
    (lambda: dspk.detect_peaks(X, [1.0, 1.0, -1.0, 1.0]), ValueError, "channel 2 has -1.0"),
    (lambda: dspk.detect_peaks(X, np.ones(4) * 1j), TypeError, "noise_levels must hold real"),
    (lambda: dspk.detect_peaks(X[None]), ValueError, "x must be 1-D .* or 2-D"),
    (lambda: dspk.detect_peaks(X, runtime="nonesuch"), ValueError, "not a runtime"),
])
def test_bad_input_names_the_problem(call, error, message):
    with pytest.raises(error, match=message):
        call()
