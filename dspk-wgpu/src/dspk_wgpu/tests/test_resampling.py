"""The wgpu runtime's upfirdn kernel, called directly, against scipy.signal.upfirdn in float64.

The backend comes from the ``wgpu_backend`` fixture (conftest.py here), which
poisons every output buffer with NaN, so an element a shader failed to write
fails the test. Tolerance: relative L2 error :data:`TOL` (the conformance
suite's float64 tolerance for float64 data, where the adapter has shader-f64).
"""

import numpy as np
import pytest
from scipy import signal

from dspk.testing import TOLERANCE, rel_l2

pytest.importorskip("wgpu", reason="wgpu-py is not installed")

TOL = TOLERANCE[np.float32]

PRECISIONS = [pytest.param(np.float32, id="float32"), pytest.param(np.float64, id="float64")]


@pytest.fixture
def backend(wgpu_backend):
    return wgpu_backend


def _upfirdn(backend):
    (variant,) = backend.variants("upfirdn")
    return variant.run


def _laid_out(backend, host, axis, strided):
    """``host`` (channels by samples) on the device, time along ``axis``, maybe a strided view."""
    if strided:
        wide = np.repeat(host, 2, axis=1)
        wide[:, 1::2] = np.nan  # never read
        device = backend.asarray(wide)[:, ::2]
        return device if axis == 1 else device.T
    return backend.asarray(host if axis == 1 else np.ascontiguousarray(host.T))


def _by_channels(y, axis):
    y = np.asarray(y)
    return y if axis == 1 else y.T


@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("axis, strided", [(1, False), (0, False), (1, True), (0, True)])
@pytest.mark.parametrize("channels, samples", [(1, 1), (2, 1000), (3, 777), (64, 101)])
@pytest.mark.parametrize("up, down, taps", [(1, 1, 1), (3, 1, 31), (1, 4, 81), (3, 2, 25),
                                            (2, 7, 60), (5, 3, 4)])
def test_upfirdn_whole_output(backend, rng, axis, strided, channels, samples, up, down, taps,
                              dtype):
    if dtype == np.float64 and not backend.gpu.f64:
        pytest.skip("this adapter has no shader-f64")
    host = rng.standard_normal((channels, samples)).astype(dtype)
    h = rng.standard_normal(taps).astype(dtype)
    want = signal.upfirdn(h.astype(np.float64), host.astype(np.float64), up, down, axis=1)
    y = _upfirdn(backend)(backend.asarray(h), _laid_out(backend, host, axis, strided), axis,
                          up, down, None, None, 0, want.shape[1])
    got = _by_channels(y, axis)
    assert got.shape == want.shape and got.dtype == dtype
    assert rel_l2(got, want) <= TOLERANCE[dtype]


@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("up, down, taps", [(1, 3, 61), (2, 3, 40), (4, 1, 9)])
def test_upfirdn_extensions_and_a_window_of_outputs(backend, rng, axis, up, down, taps):
    """``left``/``right`` continue the signal; outputs ``start:stop`` of the extended result."""
    channels, samples = 5, 211
    reach = -(-(taps - 1) // up)
    step = down // np.gcd(up, down)
    edge = -(-reach // step) * step  # the convention: edge * up is a multiple of down
    host = rng.standard_normal((channels, samples + 2 * edge)).astype(np.float32)
    h = rng.standard_normal(taps).astype(np.float32)
    full = signal.upfirdn(h.astype(np.float64), host.astype(np.float64), up, down, axis=1)
    shift = edge * up // down
    start, stop = 3, (samples * up) // down - 2
    parts = [host[:, :edge], host[:, edge:edge + samples], host[:, edge + samples:]]
    left, x, right = (_laid_out(backend, np.ascontiguousarray(p), axis, False) for p in parts)
    y = _upfirdn(backend)(backend.asarray(h), x, axis, up, down, left, right, start, stop)
    assert rel_l2(_by_channels(y, axis), full[:, start + shift:stop + shift]) <= TOL


def test_upfirdn_with_more_phase_taps_than_one_dispatch_loops(backend, rng):
    """A phase longer than the loop budget runs in several dispatches that add up."""
    from dspk_wgpu.gpu import LOOP_BUDGET
    host = rng.standard_normal((2, 300)).astype(np.float32)
    h = rng.standard_normal(2 * LOOP_BUDGET + 5).astype(np.float32)
    want = signal.upfirdn(h.astype(np.float64), host.astype(np.float64), 2, 3, axis=1)
    y = _upfirdn(backend)(backend.asarray(h), backend.asarray(host), 1, 2, 3, None, None,
                          0, want.shape[1])
    assert rel_l2(np.asarray(y), want) <= TOL


def test_upfirdn_past_the_grid_limit(backend, rng):
    """More than 65,535 workgroups of outputs."""
    host = rng.standard_normal((1, 1_100_000)).astype(np.float32)
    h = rng.standard_normal(8).astype(np.float32)
    want = signal.upfirdn(h.astype(np.float64), host.astype(np.float64), 4, 1, axis=1)
    y = _upfirdn(backend)(backend.asarray(h), backend.asarray(host), 1, 4, 1, None, None,
                          0, want.shape[1])
    assert rel_l2(np.asarray(y), want) <= TOL
