"""Conformance: common_reference, whiten and phase_shift on every runtime and kernel variant.

scipy has none of these, so the references are plain NumPy in float64, written
here from the definitions in :mod:`dspk.multichannel` (SpikeInterface's
semantics). Data is random; the error measure is :func:`dspk.testing.rel_l2`,
bounded by :data:`dspk.testing.TOLERANCE`.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import dspk
from dspk.operations import OPERATIONS
from dspk.plugin import LAYOUTS, Problem
from dspk.registry import registry
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
# (channels, samples): one channel, few, many (odd and prime sample counts).
SIZES = [(1, 257), (3, 1000), (32, 101), (37, 499), (384, 61)]
# Whitening needs several samples per channel for a well-conditioned covariance.
# 384 channels (slow to decompose on a busy machine) have a test of their own.
WHITEN_SIZES = [(1, 257), (3, 1000), (32, 401), (37, 499)]


def make_signal(rng, channels, samples, axis, dtype, order, scale=1.0):
    """``x`` in the layout under test and the float64 channels-by-samples data it holds."""
    x64 = rng.standard_normal((channels, samples)) * scale
    laid_out = x64 if axis == -1 else x64.T
    return np.asarray(laid_out.astype(dtype), order=order), x64


def by_channels(y, axis):
    return np.asarray(y) if axis == -1 else np.asarray(y).T


def variant_dtype_params(op):
    """(runtime, variant, dtype) for every variant of ``op`` and every dtype it supports."""
    params = []
    for param in variant_params(op):
        runtime, variant = param.values
        opened = registry().probe(runtime) if variant is not None else None
        for dtype in DTYPES:
            problem = Problem.make(op, dtype, 2, 16, "channel-major")
            if opened is None or any(v.name == variant and v.supports(problem)
                                     for v in opened.backend.variants(op)):
                params.append(pytest.param(runtime, variant, dtype, marks=param.marks,
                                           id=f"{param.id}-{np.dtype(dtype).name}"))
    return params


# --- common_reference -------------------------------------------------------------

def reference_common(x64, groups, operator):
    reduce = np.median if operator == "median" else np.mean
    y = np.zeros_like(x64)
    for group in [range(len(x64))] if groups is None else groups:
        members = list(group)
        y[members] = x64[members] - reduce(x64[members], axis=0)
    return y


def group_cases(channels):
    """None, uneven groups with a singleton (all channels), and groups leaving channels out."""
    if channels == 1:
        return {"global": None, "one": [[0]]}
    rest = list(range(channels - 1))
    return {
        "global": None,
        "uneven-with-singleton": [[channels - 1], rest[::-2], rest[-2::-2]],
        "partial": [[channels - 1, 0]] + ([[1]] if channels > 3 else []),
    }


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("common_reference"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("channels", "samples"), SIZES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("operator", ["median", "average"])
def test_common_reference(runtime, variant, dtype, channels, samples, axis, order, operator,
                          rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, channels, samples, axis, dtype, order)
    before = x.copy()
    for name, groups in group_cases(channels).items():
        with forced_variant("common_reference", variant):
            got = dspk.common_reference(x, operator=operator, groups=groups, axis=axis,
                                        runtime=runtime)
        assert got.dtype == dtype and got.shape == x.shape
        want = reference_common(x64, groups, operator)
        assert rel_l2(by_channels(got, axis), want) <= TOLERANCE[dtype], name
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize(("runtime", "variant"), variant_params("common_reference"))
def test_common_reference_median_of_ties_and_nan(runtime, variant, rng):
    open_backend(runtime)
    x = rng.integers(-2, 3, size=(8, 300)).astype(np.float64)  # many equal values
    x[3, 7] = np.nan
    with forced_variant("common_reference", variant):
        got = dspk.common_reference(x, groups=[[0, 1, 2, 3], [4, 5, 6, 7]], runtime=runtime)
    assert np.isnan(got[:4, 7]).all()
    assert rel_l2(np.delete(got, 7, axis=1), np.delete(reference_common(
        x, [[0, 1, 2, 3], [4, 5, 6, 7]], "median"), 7, axis=1)) <= 1e-12


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("common_reference"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("channels", [96, 383, 384])
def test_common_reference_median_across_many_channels(runtime, variant, dtype, channels,
                                                      rng):
    """Wide groups whose samples hold ties, an offset, or both zeros beside subnormals."""
    open_backend(runtime)
    samples = 90
    tiny = np.finfo(dtype).smallest_subnormal * 7
    kinds = [rng.integers(-3, 4, (channels, samples)).astype(np.float64),
             500 + 20 * rng.standard_normal((channels, samples)),
             rng.choice([0.0, -0.0, tiny, -tiny, 1.5, -2.0], (channels, samples))]
    x64 = np.choose(np.arange(samples) % 3, kinds).astype(dtype).astype(np.float64)
    with forced_variant("common_reference", variant):
        got = dspk.common_reference(x64.astype(dtype), runtime=runtime)
    want = reference_common(x64, None, "median")
    error = np.abs(got - want).max(axis=0) / np.abs(x64).max(axis=0)
    assert error.max() <= TOLERANCE[dtype], f"sample {error.argmax()}"


# --- whiten -----------------------------------------------------------------------

def reference_whiten(x64, apply_mean, eps=None, W=None):
    centred = x64 - x64.mean(axis=1, keepdims=True) if apply_mean else x64
    if W is None:
        cov = centred @ centred.T / x64.shape[1]
        if eps is None:
            m = np.median(centred ** 2)
            eps = max(1e-16, 1e-3 * m) if 0 < m < 1 else 1e-8
        values, vectors = np.linalg.eigh(cov)
        W = vectors @ np.diag(1 / np.sqrt(values + eps)) @ vectors.T
    return W @ centred, W


def check_whiten(runtime, covariance, dtype, x64, axis, order, apply_mean):
    """Whiten ``x64`` laid out as asked, against the reference.

    Each apply variant runs once, with the mean and median-of-squares
    variants in turn; the first estimates ``W``, the others apply the matrix
    it returned (so the eigendecomposition runs once).
    """
    x = np.asarray((x64 if axis == -1 else x64.T).astype(dtype), order=order)
    want_y, want_W = reference_whiten(x64, apply_mean)
    backend = open_backend(runtime)
    names = {op: [v.name for v in backend.variants(op)]
             for op in ("apply_channel_matrix", "channel_mean", "median_of_squares")}
    W = None
    for apply, mean, median in zip(names["apply_channel_matrix"],
                                   itertools.cycle(names["channel_mean"]),
                                   itertools.cycle(names["median_of_squares"])):
        with forced_variant("channel_covariance", covariance), \
             forced_variant("apply_channel_matrix", apply), \
             forced_variant("channel_mean", mean), forced_variant("median_of_squares", median):
            y, W = dspk.whiten(x, W, apply_mean=apply_mean, axis=axis, runtime=runtime)
        assert y.dtype == dtype and W.dtype == dtype and y.shape == x.shape
        assert rel_l2(W, want_W) <= TOLERANCE[dtype], apply
        assert rel_l2(by_channels(y, axis), want_y) <= TOLERANCE[dtype], apply


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "covariance", "dtype"),
                         variant_dtype_params("channel_covariance"))
@pytest.mark.parametrize(("channels", "samples"), WHITEN_SIZES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("apply_mean", [False, True])
def test_whiten(runtime, covariance, dtype, channels, samples, axis, order, apply_mean, rng):
    open_backend(runtime)
    x64 = rng.standard_normal((channels, samples))
    if apply_mean:
        x64 += rng.standard_normal((channels, 1)) * 3  # offsets for the mean to remove
    check_whiten(runtime, covariance, dtype, x64, axis, order, apply_mean)


@pytest.mark.parametrize(("runtime", "covariance", "dtype"),
                         variant_dtype_params("channel_covariance"))
def test_whiten_384_channels(runtime, covariance, dtype, rng):
    open_backend(runtime)
    x64 = rng.standard_normal((384, 797)) + rng.standard_normal((384, 1))
    axis, order = (-1, "C") if dtype == np.float64 else (0, "F")
    check_whiten(runtime, covariance, dtype, x64, axis, order, True)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "covariance", "dtype"),
                         variant_dtype_params("channel_covariance"))
@pytest.mark.parametrize(("scale", "eps"), [(100.0, None), (1e-3, None), (1.0, 0.5), (1.0, 0.0)])
def test_whiten_regularisation(runtime, covariance, dtype, scale, eps, rng):
    """The default eps on large and small data (SpikeInterface's two branches), and a given eps."""
    open_backend(runtime)
    x, x64 = make_signal(rng, 5, 700, -1, dtype, "C", scale)
    with forced_variant("channel_covariance", covariance):
        y, W = dspk.whiten(x, eps=eps, runtime=runtime)
    want_y, want_W = reference_whiten(x64, False, eps)
    assert rel_l2(W, want_W) <= TOLERANCE[dtype]
    assert rel_l2(y, want_y) <= TOLERANCE[dtype]


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "apply"), variant_params("apply_channel_matrix"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("apply_mean", [False, True])
def test_whiten_with_given_matrix(runtime, apply, dtype, axis, order, apply_mean, rng):
    """A given (non-symmetric) W is applied as ``W @ (x - mean)`` on channels by samples."""
    open_backend(runtime)
    x, x64 = make_signal(rng, 6, 331, axis, dtype, order)
    given = rng.standard_normal((6, 6))
    with forced_variant("apply_channel_matrix", apply):
        y, W = dspk.whiten(x, given.tolist(), apply_mean=apply_mean, axis=axis, runtime=runtime)
    want_y, _ = reference_whiten(x64, apply_mean, W=given)
    assert W.dtype == dtype and rel_l2(W, given) <= TOLERANCE[dtype]
    assert rel_l2(by_channels(y, axis), want_y) <= TOLERANCE[dtype]


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("median_of_squares"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("channels", "samples"), [(1, 257), (3, 1000), (37, 499), (384, 61)])
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("centred", [False, True])
def test_median_of_squares_kernel(runtime, variant, dtype, channels, samples, axis, order,
                                  centred, rng):
    """The kernel behind the default eps selects exactly numpy's median of the squares."""
    backend = open_backend(runtime)
    run = next(v.run for v in backend.variants("median_of_squares") if v.name == variant)
    x, _ = make_signal(rng, channels, samples, axis, dtype, order)
    if channels == 3:
        x = np.round(x * 2)  # many ties
    mean = rng.standard_normal(channels) if centred else None
    kernel_axis = 1 if axis == -1 else 0
    centre = 0 if mean is None else mean.astype(dtype)
    want = np.median(np.square(by_channels(x, axis) - (centre if mean is None
                                                        else centre[:, None])))
    got = run(backend.asarray(x), kernel_axis, mean)
    assert abs(float(got) - float(want)) <= 1e-6 * abs(float(want)) + 1e-300


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("channel_mean"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("order", ORDERS)
def test_channel_mean_kernel(runtime, variant, dtype, axis, order, rng):
    backend = open_backend(runtime)
    run = next(v.run for v in backend.variants("channel_mean") if v.name == variant)
    x, x64 = make_signal(rng, 37, 70001, axis, dtype, order)  # several blocks of samples
    got = dspk.to_numpy(run(backend.asarray(x), 1 if axis == -1 else 0))
    assert got.dtype == np.float64
    assert rel_l2(got, x64.mean(axis=1)) <= TOLERANCE[dtype]


def test_whiten_decorrelates(rng):
    mixed = rng.standard_normal((8, 8)) @ rng.standard_normal((8, 5000)) * 30
    y, _ = dspk.whiten(mixed.T, axis=0)
    np.testing.assert_allclose(y.T @ y / len(y), np.eye(8), atol=1e-6)


# --- phase_shift --------------------------------------------------------------------

def reference_phase_shift(x64, shifts, margin):
    channels, samples = x64.shape
    length = samples + 2 * margin
    padded = np.zeros((channels, length))
    padded[:, margin:margin + samples] = x64
    rotation = np.exp(-2j * np.pi * np.fft.rfftfreq(length)[None, :] * shifts[:, None])
    shifted = np.fft.irfft(np.fft.rfft(padded, axis=1) * rotation, n=length, axis=1)
    return shifted[:, margin:margin + samples]


def check_phase_shift(runtime, variant, x, x64, axis, margin, rng):
    before = x.copy()
    shifts = rng.uniform(-1.5, 1.5, len(x64))
    keywords = {} if margin is None else {"margin": margin}
    with forced_variant("phase_shift", variant):
        got = dspk.phase_shift(x, shifts, axis=axis, runtime=runtime, **keywords)
    want = reference_phase_shift(x64, shifts, 1200 if margin is None else margin)
    assert got.dtype == x.dtype and got.shape == x.shape
    assert rel_l2(by_channels(got, axis), want) <= TOLERANCE[x.dtype.type]
    np.testing.assert_array_equal(x, before)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("phase_shift"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("channels", "samples"), SIZES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("margin", [0, 7])
def test_phase_shift(runtime, variant, dtype, channels, samples, axis, order, margin, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, channels, samples, axis, dtype, order)
    check_phase_shift(runtime, variant, x, x64, axis, margin, rng)


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("phase_shift"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("channels", "samples", "axis"), [(3, 1000, -1), (384, 61, 0)])
def test_phase_shift_default_margin(runtime, variant, dtype, channels, samples, axis, rng):
    open_backend(runtime)
    x, x64 = make_signal(rng, channels, samples, axis, dtype, "C")
    check_phase_shift(runtime, variant, x, x64, axis, None, rng)


@pytest.mark.parametrize(("runtime", "variant"), variant_params("phase_shift"))
def test_phase_shift_one_channel_and_sign(runtime, variant, rng):
    """1-D input takes one shift; a positive whole-sample shift delays, zeros coming in."""
    open_backend(runtime)
    x = rng.standard_normal(101)
    with forced_variant("phase_shift", variant):
        late = dspk.phase_shift(x, 2.0, runtime=runtime)
        early = dspk.phase_shift(x, [-0.25], margin=3, runtime=runtime)
    np.testing.assert_allclose(late, np.concatenate([[0.0, 0.0], x[:-2]]), atol=1e-12)
    assert rel_l2(early, reference_phase_shift(x[None], np.array([-0.25]), 3)[0]) <= 1e-10


# --- shared behaviour ---------------------------------------------------------------

CALLS = {
    "common_reference": lambda x, **kw: dspk.common_reference(x, **kw),
    "whiten": lambda x, **kw: dspk.whiten(x, **kw)[0],
    "phase_shift": lambda x, **kw: dspk.phase_shift(x, np.full(len(x), 0.3), **kw),
}


@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("name", list(CALLS))
def test_integer_and_list_input_give_float64(runtime, name, rng):
    open_backend(runtime)
    x = rng.integers(-1000, 1000, size=(4, 300)).astype(np.int16)
    got = CALLS[name](x, runtime=runtime)
    assert isinstance(got, np.ndarray) and got.dtype == np.float64
    np.testing.assert_array_equal(got, CALLS[name](x.astype(np.float64).tolist(),
                                                   runtime=runtime))


@pytest.mark.pairwise
@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("op", ["common_reference", "channel_mean", "channel_covariance",
                                "median_of_squares", "apply_channel_matrix", "phase_shift"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_catalogue_examples_agree_on_every_variant(runtime, op, dtype, layout):
    """What the tuner times: every variant runs on the catalogue's example arguments, and
    all give one result."""
    backend = open_backend(runtime)
    for params in OPERATIONS[op].grid_params:
        assert_variants_agree(backend, op, Problem.make(op, dtype, 3, 50, layout, **params))


# --- bad input ----------------------------------------------------------------------

X = np.random.default_rng(0).standard_normal((4, 200))


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: dspk.common_reference(X, groups=[[0], [1, 5]]), ValueError,
     r"groups\[1\] names channel 5, out of range for 4 channels"),
    (lambda: dspk.common_reference(X, groups=[[-1, 0]]), ValueError,
     r"groups\[0\] names channel -1, out of range"),
    (lambda: dspk.common_reference(X, groups=[[0, 1], [1, 2]]), ValueError,
     "groups name channel 1 more than once"),
    (lambda: dspk.common_reference(X, groups=[[2, 2]]), ValueError, "more than once"),
    (lambda: dspk.common_reference(X, groups=[[0.0, 1.0]]), TypeError,
     r"groups\[0\] must hold integer channel indices"),
    (lambda: dspk.common_reference(X, groups=[[True, False]]), TypeError, "integer"),
    (lambda: dspk.common_reference(X, groups=3), TypeError, "groups must be a sequence"),
    (lambda: dspk.common_reference(X, groups=[[[0, 1]]]), ValueError,
     r"groups\[0\] must be a 1-D sequence"),
    (lambda: dspk.common_reference(X, groups=[[], []]), ValueError, "groups names no channel"),
    (lambda: dspk.common_reference(X, reference="single"), ValueError,
     "reference='single' needs ref_channels"),
    (lambda: dspk.common_reference(X, operator="mean"), ValueError, "operator='mean'"),
    (lambda: dspk.common_reference(X[0]), ValueError, r"x must be 2-D.*x\[np.newaxis\]"),
    (lambda: dspk.common_reference(X[None]), ValueError, "x must be 2-D"),
    (lambda: dspk.common_reference(np.zeros((4, 0))), ValueError, "x is empty"),
    (lambda: dspk.common_reference(X, axis=2), ValueError, "axis=2 is out of range"),
    (lambda: dspk.common_reference(X.astype(complex)), TypeError, "complex"),
    (lambda: dspk.common_reference(X, runtime="nonesuch"), ValueError, "not a runtime"),
    (lambda: dspk.whiten(X, np.eye(3)), ValueError, r"W has shape \(3, 3\).*\(4, 4\)"),
    (lambda: dspk.whiten(X, np.ones(4)), ValueError, r"W has shape \(4,\)"),
    (lambda: dspk.whiten(X, np.diag([1.0, np.nan, 1.0, 1.0])), ValueError, "W has non-finite"),
    (lambda: dspk.whiten(X, np.eye(4) * 1j), TypeError, "W must hold real numbers"),
    (lambda: dspk.whiten(X, eps=-1e-3), ValueError, "eps must be a finite number >= 0"),
    (lambda: dspk.whiten(X, eps=np.nan), ValueError, "eps must be a finite number >= 0"),
    (lambda: dspk.whiten(X, eps=np.inf), ValueError, "eps must be a finite number >= 0"),
    (lambda: dspk.whiten(X, eps="small"), TypeError, "eps must be a real number"),
    (lambda: dspk.whiten(X, apply_mean="yes"), TypeError, "apply_mean must be True or False"),
    (lambda: dspk.whiten(np.vstack([X, X[0] - X[1]]), eps=0), ValueError,
     "covariance is singular"),
    (lambda: dspk.whiten(np.vstack([X, np.zeros(200)]), eps=0), ValueError,
     "covariance is singular"),
    (lambda: dspk.whiten(np.where(X > 2, np.inf, X)), ValueError, "x has non-finite values"),
    (lambda: dspk.whiten(X[0]), ValueError, "x must be 2-D"),
    (lambda: dspk.whiten(X, axis=-3), ValueError, "axis=-3 is out of range"),
    (lambda: dspk.phase_shift(X, [0.1, 0.2]), ValueError,
     r"shifts has shape \(2,\); x has 4 channel\(s\)"),
    (lambda: dspk.phase_shift(X, 0.5), ValueError, r"shifts has shape \(1,\)"),
    (lambda: dspk.phase_shift(X, [0.1, np.nan, 0.0, 0.0]), ValueError, "shifts has non-finite"),
    (lambda: dspk.phase_shift(X, [0.1, np.inf, 0.0, 0.0]), ValueError, "shifts has non-finite"),
    (lambda: dspk.phase_shift(X, np.zeros(4) * 1j), TypeError, "shifts must hold real"),
    (lambda: dspk.phase_shift(X, np.zeros(4), margin=-1), ValueError,
     "margin must be an integer >= 0"),
    (lambda: dspk.phase_shift(X, np.zeros(4), margin=2.5), TypeError,
     "margin must be an integer"),
    (lambda: dspk.phase_shift(X[None], np.zeros(4)), ValueError, "x must be 1-D .* or 2-D"),
    (lambda: dspk.phase_shift(X, np.zeros(4), runtime="nonesuch"), ValueError, "not a runtime"),
])
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_bad_input_names_the_problem(call, error, message):
    with pytest.raises(error, match=message):
        call()
