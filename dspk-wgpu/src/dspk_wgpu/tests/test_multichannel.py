"""The wgpu runtime's multichannel and detrend kernels, called directly.

They are checked against NumPy/scipy float64.

The backend comes from the ``wgpu_backend`` fixture (conftest.py here), which
poisons every output buffer with NaN, so an element a shader failed to write
fails the test. Tolerance: relative L2 error :data:`TOL`; the medians, being
selections, are checked to float32 rounding.
"""

import numpy as np
import pytest
from scipy import signal

from dspk.testing import TOLERANCE, rel_l2

pytest.importorskip("wgpu", reason="wgpu-py is not installed")

TOL = TOLERANCE[np.float32]

#: The dtypes under test; float64 where the adapter has shader-f64, to the conformance
#: suite's float64 tolerance.
PRECISIONS = [pytest.param(np.float32, id="float32"), pytest.param(np.float64, id="float64")]


def _needs(backend, dtype):
    if np.dtype(dtype) == np.float64 and not backend.gpu.f64:
        pytest.skip("this adapter has no shader-f64")


@pytest.fixture
def backend(wgpu_backend):
    return wgpu_backend


def _kernel(backend, op, name=None):
    """The kernel of variant ``name`` of ``op``, by default the default variant."""
    variants = backend.variants(op)
    return next(v for v in variants if name in (None, v.name)).run


def _names(op):
    from dspk_wgpu import multichannel
    return [pytest.param(v.name, id=v.name) for v in multichannel.VARIANTS[op]]


def _laid_out(backend, host, axis, strided):
    """``host`` (channels by samples) on the device with time along ``axis``.

    ``strided``: a view with every other sample of a twice-as-long signal (and,
    for axis 0, a transposed view of channel-major memory), never a dense array.
    """
    if strided:
        wide = np.repeat(host, 2, axis=1)
        wide[:, 1::2] = np.nan  # never read
        device = backend.asarray(wide)[:, ::2]
        return device if axis == 1 else device.T
    return backend.asarray(host if axis == 1 else np.ascontiguousarray(host.T))


def _by_channels(y, axis):
    y = np.asarray(y)
    return y if axis == 1 else y.T


def _reference(x64, groups, operator):
    reduce = np.median if operator == "median" else np.mean
    y = np.zeros_like(x64)
    for members in groups:
        y[members] = x64[members] - reduce(x64[members], axis=0)
    return y


LAYOUTS = [(1, False), (0, False), (1, True), (0, True)]


# -- common_reference -----------------------------------------------------------

@pytest.mark.pairwise
@pytest.mark.parametrize("variant", _names("common_reference"))
@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("operator", ["median", "average"])
@pytest.mark.parametrize("axis, strided", LAYOUTS)
@pytest.mark.parametrize("channels, samples", [(1, 257), (2, 100), (3, 1001), (64, 333),
                                               (385, 67)])
def test_common_reference_matches_numpy(backend, rng, variant, operator, axis, strided,
                                        channels, samples, dtype):
    _needs(backend, dtype)
    host = rng.standard_normal((channels, samples)).astype(dtype)
    x = _laid_out(backend, host, axis, strided)
    groups = [(np.arange(channels),)]
    if channels > 2:
        # uneven groups, odd and even sizes, and channels left out (zeros)
        groups.append((np.arange(0, channels - 1, 2), np.arange(1, channels - 1, 4)))
    for members in groups:
        y = _kernel(backend, "common_reference", variant)(x, axis, members, operator)
        want = _reference(host.astype(np.float64), members, operator)
        got = _by_channels(y, axis)
        assert got.shape == want.shape and got.dtype == dtype
        if channels == 1:  # the channel less itself
            np.testing.assert_array_equal(got, 0.0)
        else:
            assert rel_l2(got, want) <= TOLERANCE[dtype]


@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("axis", [1, 0])
def test_median_reference_of_ties_even_counts_and_nan(backend, rng, axis, dtype):
    """Many equal values: the selection must be exact, the two middle values averaged."""
    _needs(backend, dtype)
    host = rng.integers(-3, 4, size=(10, 500)).astype(dtype)
    host[[0, 4], 7] = [-0.0, 0.0]
    host[5, 11] = np.nan
    groups = (np.array([0, 1, 2, 3]), np.array([4, 5, 6, 7, 8]), np.array([9]))
    y = _by_channels(_kernel(backend, "common_reference")(
        _laid_out(backend, host, axis, False), axis, groups, "median"), axis)
    assert np.isnan(y[4:9, 11]).all() and not np.isnan(np.delete(y, 11, axis=1)).any()
    assert np.isfinite(y[[0, 1, 2, 3, 9], 11]).all()
    want = _reference(host.astype(np.float64), groups, "median")
    np.testing.assert_array_equal(np.delete(y, 11, axis=1), np.delete(want, 11, axis=1))


@pytest.mark.parametrize("dtype", PRECISIONS)
def test_median_reference_of_extreme_values(backend, dtype):
    """Negative and positive values, zeros and infinities order as floats."""
    _needs(backend, dtype)
    column = np.array([-np.inf, -3e38, -1.5, -1e-30, 0.0, 1e-30, 1.0, 7e37, np.inf, 4.0],
                      np.float32).astype(dtype)
    if dtype == np.float64:  # and float64's range: near its largest and smallest normal
        column[[1, 3, 5, 7]] = [-1.7e308, -3e-307, 2.5e-308, 8.9e307]
    host = np.stack([column, column[::-1], np.roll(column, 3)], axis=1)
    for count in (len(column), len(column) - 1):
        members = (np.arange(count),)
        y = np.asarray(_kernel(backend, "common_reference")(
            backend.asarray(host), 1, members, "median"))
        median = np.median(host[:count].astype(np.float64), axis=0)
        with np.errstate(invalid="ignore"):
            np.testing.assert_array_equal(y[:count], (host[:count] - median).astype(dtype))


# -- whitening ------------------------------------------------------------------

@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("axis, strided", LAYOUTS)
@pytest.mark.parametrize("channels, samples", [(1, 257), (3, 70001), (64, 999), (385, 61)])
def test_channel_mean_and_covariance(backend, rng, axis, strided, channels, samples, dtype):
    _needs(backend, dtype)
    host = (rng.standard_normal((channels, samples)) + rng.standard_normal((channels, 1)) * 3
            ).astype(dtype)
    x = _laid_out(backend, host, axis, strided)
    x64 = host.astype(np.float64)
    mean = _kernel(backend, "channel_mean")(x, axis)
    assert isinstance(mean, np.ndarray) and mean.dtype == np.float64
    assert rel_l2(mean, x64.mean(axis=1)) <= TOLERANCE[dtype]
    for centre in (None, mean):
        cov = _kernel(backend, "channel_covariance")(x, axis, centre)
        centred = x64 - (0 if centre is None else centre[:, None])
        assert cov.dtype == np.float64 and cov.shape == (channels, channels)
        assert rel_l2(cov, centred @ centred.T / samples) <= TOLERANCE[dtype]


def test_covariance_over_many_chunks_keeps_float32_accuracy(backend, rng, monkeypatch):
    """Many chunk sums of a large common offset, over many dispatches (Kahan-compensated)."""
    from dspk_wgpu import multichannel
    monkeypatch.setattr(multichannel, "COVARIANCE_PARTIAL_BYTES", 10 * 4 * 4 * 4)
    host = (rng.standard_normal((4, 300001)) + 50).astype(np.float32)
    cov = _kernel(backend, "channel_covariance")(backend.asarray(host), 1, None)
    x64 = host.astype(np.float64)
    assert rel_l2(cov, x64 @ x64.T / x64.shape[1]) <= 1e-6


@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("axis, strided", LAYOUTS)
@pytest.mark.parametrize("channels, samples, ties", [(1, 257, False), (2, 1000, True),
                                                      (3, 999, True), (37, 499, False),
                                                      (385, 61, False), (5, 20001, False),
                                                      (4, 250, False)])
@pytest.mark.parametrize("centred", [False, True])
def test_median_of_squares_selects_exactly(backend, rng, axis, strided, channels, samples,
                                           ties, centred, dtype):
    _needs(backend, dtype)
    host = rng.standard_normal((channels, samples)).astype(dtype)
    if ties:
        host = np.round(host * 2)
    mean = rng.standard_normal(channels) if centred else None
    squares = np.square(host - (0 if mean is None else mean.astype(dtype)[:, None]))
    want = np.median(squares.astype(np.float64))
    got = _kernel(backend, "median_of_squares")(_laid_out(backend, host, axis, strided), axis,
                                                mean)
    assert abs(float(got) - want) <= np.finfo(dtype).eps * want


@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("axis, strided", LAYOUTS)
@pytest.mark.parametrize("channels, samples", [(1, 257), (2, 100), (17, 333), (64, 129),
                                               (385, 61)])
@pytest.mark.parametrize("centred", [False, True])
def test_apply_channel_matrix(backend, rng, axis, strided, channels, samples, centred, dtype):
    _needs(backend, dtype)
    host = rng.standard_normal((channels, samples)).astype(dtype)
    W = rng.standard_normal((channels, channels)).astype(dtype)
    mean = rng.standard_normal(channels) if centred else None
    y = _kernel(backend, "apply_channel_matrix")(
        backend.asarray(W), _laid_out(backend, host, axis, strided), axis, mean)
    centred_x = host.astype(np.float64) - (0 if mean is None else mean[:, None])
    got = _by_channels(y, axis)
    assert got.shape == host.shape and got.dtype == dtype
    assert rel_l2(got, W.astype(np.float64) @ centred_x) <= TOLERANCE[dtype]


# -- detrend (shares the chunk sums with channel_mean) ------------------------------

@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("axis, strided", LAYOUTS)
@pytest.mark.parametrize("channels, samples, bp", [(1, 1, (0, 1)), (3, 1000, (0, 1000)),
                                                   (2, 70001, (0, 7, 40000, 70001)),
                                                   (5, 301, (0, 1, 2, 150, 301))])
@pytest.mark.parametrize("kind", ["linear", "constant"])
def test_detrend_matches_scipy(backend, rng, axis, strided, channels, samples, bp, kind, dtype):
    _needs(backend, dtype)
    host = (rng.standard_normal((channels, samples)) + np.linspace(0, 30, samples)
            ).astype(dtype)
    pieces = (0, samples) if kind == "constant" else bp
    y = _kernel(backend, "detrend")(_laid_out(backend, host, axis, strided), axis, kind, pieces)
    want = signal.detrend(host.astype(np.float64), type=kind, bp=list(pieces[1:-1]) or 0)
    got = _by_channels(y, axis)
    assert got.dtype == dtype
    if samples == 1:
        np.testing.assert_allclose(got, 0.0, atol=1e-6)
    else:
        assert rel_l2(got, want) <= TOLERANCE[dtype]


@pytest.mark.parametrize("axis", [1, 0])
def test_detrend_complex(backend, rng, axis):
    host = (rng.standard_normal((3, 500)) + 1j * rng.standard_normal((3, 500))
            + np.linspace(0, 20j, 500)).astype(np.complex64)
    device = backend.asarray(host if axis == 1 else np.ascontiguousarray(host.T))
    y = _kernel(backend, "detrend")(device, axis, "linear", (0, 100, 500))
    want = signal.detrend(host.astype(np.complex128), bp=[100])
    assert np.asarray(y).dtype == np.complex64
    got = _by_channels(y, axis)
    # rel_l2 reads real parts only: compare both parts side by side
    assert rel_l2(np.stack([got.real, got.imag]), np.stack([want.real, want.imag])) <= TOL
