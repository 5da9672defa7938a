"""Conformance: the operations on channel neighbourhoods on every runtime and kernel variant.

``common_reference`` with ``reference="local"`` and ``"single"`` (the
``neighbour_reference`` kernel) and ``whiten(mode="local")`` (the whitening
kernels, with a local matrix). The references are plain NumPy in float64,
their neighbourhoods written here from SpikeInterface's definitions (annulus
``inner < d <= outer`` without the channel itself, the nearest beyond
``inner`` when too few; ``d <= radius`` with the channel; Kilosort's ``k``
nearest), on random positions laid out as a Neuropixels probe (2 to 4
columns, 20 um apart) and random signals.
"""

from __future__ import annotations

import numpy as np
import pytest

import dspk
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
from dspk.testing.conformance.test_multichannel import (
    AXES,
    DTYPES,
    ORDERS,
    by_channels,
    make_signal,
    variant_dtype_params,
)
from dspk.tuning.tuner import forced_variant

#: (channels, samples): one channel, few, a probe's bank (odd and prime sample counts).
SIZES = [(1, 257), (7, 1000), (37, 499), (96, 61)]


def probe_positions(rng, channels):
    """A Neuropixels-like layout: 2 to 4 columns 20 um apart, rows 20 um apart, the
    channels in a random order, the columns staggered half the time."""
    columns = int(rng.integers(2, 5))
    index = rng.permutation(channels)
    x = (index % columns) * 20.0
    y = (index // columns) * 20.0
    if rng.random() < 0.5:
        x = x + 10.0 * ((index // columns) % 2)
    return np.column_stack([x, y])


def _distances(positions):
    p = np.asarray(positions, np.float64)
    return np.linalg.norm(p[:, None] - p[None], axis=2)


def reference_annulus(positions, inner, outer, min_neighbours):
    d = _distances(positions)
    rows = []
    for i in range(len(d)):
        order = np.argsort(d[i], kind="stable")
        beyond = [j for j in order if j != i and d[i, j] > inner]
        ring = [j for j in beyond if d[i, j] <= outer]
        rows.append(ring if len(ring) >= min_neighbours else beyond[:min_neighbours])
    return rows


def reference_reference(x64, rows, operator):
    """Each channel minus its neighbours' median or mean; without neighbours, as it is."""
    reduce = np.median if operator == "median" else np.mean
    y = x64.copy()
    for c, row in enumerate(rows):
        if len(row):
            y[c] = x64[c] - reduce(x64[list(row)], axis=0)
    return y


# --- common_reference(reference="local" / "single") ---------------------------------

@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("neighbour_reference"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("channels", "samples"), SIZES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("operator", ["median", "average"])
@pytest.mark.parametrize(("radius", "min_neighbours"),
                         [((0.0, 40.0), 0), ((30.0, 55.0), 5), ((25.0, 25.0), 3)])
def test_local_reference(runtime, variant, dtype, channels, samples, axis, order, operator,
                         radius, min_neighbours, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, channels, samples, axis, dtype, order)
    before = x.copy()
    positions = probe_positions(rng, channels)
    with forced_variant("neighbour_reference", variant):
        got = dspk.common_reference(x, "local", operator, radius=radius,
                                    min_neighbours=min_neighbours, positions=positions,
                                    axis=axis, runtime=runtime)
    assert got.dtype == dtype and got.shape == x.shape
    want = reference_reference(x64, reference_annulus(positions, *radius, min_neighbours),
                               operator)
    assert rel_l2(by_channels(got, axis), want) <= TOLERANCE[dtype]
    np.testing.assert_array_equal(x, before)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("neighbour_reference"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("operator", ["median", "average"])
def test_single_reference(runtime, variant, dtype, axis, order, operator, rng):
    """One reference channel (which becomes zeros), or the median or mean of several."""
    open_backend(runtime)
    x, x64 = make_signal(rng, 9, 301, axis, dtype, order)
    for refs in (4, [8], [0, 3, 5], [7, 1, 2, 6]):
        with forced_variant("neighbour_reference", variant):
            got = dspk.common_reference(x, "single", operator, ref_channels=refs, axis=axis,
                                        runtime=runtime)
        want = reference_reference(x64, [np.atleast_1d(refs)] * 9, operator)
        assert rel_l2(by_channels(got, axis), want) <= TOLERANCE[dtype], refs
        if np.ndim(refs) == 0:
            assert not np.any(by_channels(got, axis)[refs])


@pytest.mark.parametrize(("runtime", "variant"), variant_params("neighbour_reference"))
def test_local_median_of_ties_nan_and_many_neighbours(runtime, variant, rng):
    """Neighbourhoods of 70 channels (above a 64-value capacity), ties, a NaN."""
    open_backend(runtime)
    x = rng.integers(-2, 3, size=(120, 200)).astype(np.float64)
    x[3, 7] = np.nan
    positions = np.column_stack([np.zeros(120), np.arange(120) * 10.0])
    with forced_variant("neighbour_reference", variant):
        got = dspk.common_reference(x, "local", radius=(0, 350), positions=positions,
                                    runtime=runtime)
    rows = reference_annulus(positions, 0, 350, 5)
    assert max(len(r) for r in rows) == 70
    want = reference_reference(x, rows, "median")
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert rel_l2(np.nan_to_num(got), np.nan_to_num(want)) <= 1e-12


@pytest.mark.pairwise
@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_catalogue_examples_agree_on_every_variant(runtime, dtype, layout):
    """What the tuner times: every variant on the catalogue's example arguments (rows of
    uneven length, an empty row)."""
    backend = open_backend(runtime)
    for params in OPERATIONS["neighbour_reference"].grid_params:
        assert_variants_agree(backend, "neighbour_reference",
                              Problem.make("neighbour_reference", dtype, 11, 50, layout,
                                           **params))


# --- whiten(mode="local") ---------------------------------------------------------

def reference_local_whiten(x64, rows, apply_mean):
    centred = x64 - x64.mean(axis=1, keepdims=True) if apply_mean else x64
    cov = centred @ centred.T / x64.shape[1]
    m = np.median(centred ** 2)
    eps = max(1e-16, 1e-3 * m) if 0 < m < 1 else 1e-8
    W = np.zeros_like(cov)
    for c, row in enumerate(rows):
        row = list(row)
        values, vectors = np.linalg.eigh(cov[np.ix_(row, row)])
        block = vectors @ np.diag(1 / np.sqrt(values + eps)) @ vectors.T
        W[c, row] = block[row.index(c)]
    return W @ centred, W


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "covariance", "dtype"),
                         variant_dtype_params("channel_covariance"))
@pytest.mark.parametrize(("channels", "samples"), [(1, 257), (7, 1000), (37, 499)])
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("apply_mean", [False, True])
@pytest.mark.parametrize("neighbourhood", [{"radius": 30.0}, {"neighbours": 5}])
def test_local_whiten(runtime, covariance, dtype, channels, samples, axis, order, apply_mean,
                      neighbourhood, rng):
    open_backend(runtime)
    # Independent noise plus a common component (well conditioned, but correlated).
    x64 = rng.standard_normal((channels, samples)) + 0.7 * rng.standard_normal((1, samples))
    x64 += rng.standard_normal((channels, 1)) * 3 * apply_mean
    x = np.asarray((x64 if axis == -1 else x64.T).astype(dtype), order=order)
    positions = probe_positions(rng, channels)
    d = _distances(positions)
    order_of = np.argsort(d + np.diag(np.full(channels, -1.0)), axis=1, kind="stable")
    if "radius" in neighbourhood:
        rows = [[j for j in order_of[c] if d[c, j] <= 30.0] for c in range(channels)]
    else:
        rows = [list(order_of[c, :min(5, channels)]) for c in range(channels)]
        neighbourhood = {"neighbours": min(5, channels)}
    with forced_variant("channel_covariance", covariance):
        y, W = dspk.whiten(x, mode="local", positions=positions, apply_mean=apply_mean,
                           axis=axis, runtime=runtime, **neighbourhood)
    want_y, want_W = reference_local_whiten(x64, rows, apply_mean)
    assert y.dtype == dtype and W.dtype == dtype and y.shape == x.shape
    assert rel_l2(W, want_W) <= TOLERANCE[dtype]
    assert rel_l2(by_channels(y, axis), want_y) <= TOLERANCE[dtype]


# --- bad input ----------------------------------------------------------------------

X = np.random.default_rng(0).standard_normal((4, 200))
P = [[0, 0], [0, 20], [20, 0], [20, 20]]


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: dspk.common_reference(X, "local"), ValueError, "positions is required"),
    (lambda: dspk.common_reference(X, "local", positions=P[:3]), ValueError,
     r"positions has 3 row\(s\); the signal has 4 channel\(s\)"),
    (lambda: dspk.common_reference(X, "local", positions=np.zeros((4, 3))), ValueError,
     r"positions must have shape \(n, 2\)"),
    (lambda: dspk.common_reference(X, "local", positions=np.zeros(8)), ValueError,
     r"positions must have shape \(n, 2\)"),
    (lambda: dspk.common_reference(X, "local", positions=[[0, np.nan]] * 4), ValueError,
     "positions has non-finite"),
    (lambda: dspk.common_reference(X, "local", positions=[["a", "b"]] * 4), TypeError,
     "positions must hold real numbers"),
    (lambda: dspk.common_reference(X, "local", radius=(-1, 30), positions=P), ValueError,
     "inner radius must be a finite distance >= 0"),
    (lambda: dspk.common_reference(X, "local", radius=(40, 30), positions=P), ValueError,
     r"inner radius \(40\) must be at most the outer radius \(30\)"),
    (lambda: dspk.common_reference(X, "local", radius=30, positions=P), TypeError,
     "radius must be a pair"),
    (lambda: dspk.common_reference(X, "local", min_neighbours=-1, positions=P), ValueError,
     "min_neighbours must be an integer >= 0"),
    (lambda: dspk.common_reference(X, "local", groups=[[0, 1]], positions=P), ValueError,
     "groups applies to reference='global' only"),
    (lambda: dspk.common_reference(X, "nearby"), ValueError, "reference='nearby' is not one"),
    (lambda: dspk.common_reference(X, "single"), ValueError, "needs ref_channels"),
    (lambda: dspk.common_reference(X, "single", ref_channels=4), ValueError,
     "ref_channels names channel 4, out of range for 4 channels"),
    (lambda: dspk.common_reference(X, "single", ref_channels=[-1]), ValueError,
     "ref_channels names channel -1, out of range"),
    (lambda: dspk.common_reference(X, "single", ref_channels=[1, 1]), ValueError,
     "more than once"),
    (lambda: dspk.common_reference(X, "single", ref_channels=[]), ValueError,
     "non-empty"),
    (lambda: dspk.common_reference(X, "single", ref_channels=0.5), TypeError,
     "ref_channels must hold integer"),
    (lambda: dspk.common_reference(X, ref_channels=[0]), ValueError,
     "ref_channels applies to reference='single' only"),
    (lambda: dspk.whiten(X, mode="local", positions=P), ValueError,
     "needs one of radius= .* or neighbours="),
    (lambda: dspk.whiten(X, mode="local", radius=20, neighbours=2, positions=P), ValueError,
     "needs one of radius="),
    (lambda: dspk.whiten(X, mode="local", radius=20), ValueError, "positions is required"),
    (lambda: dspk.whiten(X, mode="local", neighbours=5, positions=P), ValueError,
     "neighbours=5 is more than the 4 channel"),
    (lambda: dspk.whiten(X, mode="local", neighbours=0, positions=P), ValueError,
     "neighbours must be an integer >= 1"),
    (lambda: dspk.whiten(X, mode="local", radius=-5, positions=P), ValueError,
     "radius must be a finite distance >= 0"),
    (lambda: dspk.whiten(X, mode="local", radius=20, positions=P[1:]), ValueError,
     r"positions has 3 row\(s\)"),
    (lambda: dspk.whiten(X, mode="nearby"), ValueError, "mode='nearby' is not one of"),
    (lambda: dspk.whiten(X, radius=20), ValueError, "apply to mode='local' only"),
    (lambda: dspk.whiten(X, np.eye(4), mode="local", radius=20, positions=P), ValueError,
     "W is given"),
])
def test_bad_input_names_the_problem(call, error, message):
    with pytest.raises(error, match=message):
        call()
