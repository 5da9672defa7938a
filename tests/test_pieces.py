"""Inputs above a device's binding limit run in pieces and equal the one-shot result.

The wgpu runtime's limit is lowered to a few channels' worth of bytes, so that
ordinary test sizes take every path of :mod:`dspk.pieces`: channel groups,
time pieces of cross-channel operations, time pieces with the filter state
carried for a channel longer than the limit, and the host path of a median.
Each result is compared with the same call under the device's own limit, and
with scipy.
"""

import numpy as np
import pytest
from scipy import signal

import dspk
from dspk.plugin import ArrayTooLarge
from dspk.testing import TOLERANCE, open_backend, rel_l2

SOS = signal.butter(3, [0.05, 0.3], "bandpass", output="sos")
BA = signal.butter(3, 0.2)
#: Seven contacts in two columns, 20 um apart (the local reference and whitening).
POSITIONS = [[0, 0], [32, 0], [0, 20], [32, 20], [0, 40], [32, 40], [0, 60]]


@pytest.fixture
def wgpu(monkeypatch):
    """The registered wgpu backend, and a way to lower its binding limit for one test.

    Tuning is off: a piece and the whole run the same variant, so the pieces
    are compared with the one-shot result exactly, not through the rounding
    differences between variants that a tuner's timing may pick apart.
    """
    pytest.importorskip("wgpu", reason="wgpu-py is not installed")
    monkeypatch.setenv("DSPK_TUNING", "off")
    backend = open_backend("wgpu")
    original = backend.gpu.max_binding
    yield backend
    backend.gpu.max_binding = original


def _signal(rng, channels, samples, axis):
    x = rng.standard_normal((channels, samples)).astype(np.float32)
    return x if axis == 1 else np.ascontiguousarray(x.T)


def _both(backend, limit, call):
    """``call()`` under the device's own limit, then under ``limit``."""
    whole = call()
    original, backend.gpu.max_binding = backend.gpu.max_binding, limit
    try:
        return whole, call()
    finally:
        backend.gpu.max_binding = original


CASES = {
    "sosfilt": lambda x, axis: dspk.sosfilt(SOS, x, axis=axis, runtime="wgpu"),
    "sosfilt-zi": lambda x, axis: dspk.sosfilt(
        SOS, x, axis=axis, zi=np.ones((3, 2) if x.ndim == 1 else
                                      ((3, x.shape[1 - axis], 2) if axis == 1
                                       else (3, 2, x.shape[1]))), runtime="wgpu")[0],
    "lfilter": lambda x, axis: dspk.lfilter(*BA, x, axis=axis, runtime="wgpu"),
    "sosfiltfilt": lambda x, axis: dspk.sosfiltfilt(SOS, x, axis=axis, runtime="wgpu"),
    "convolve": lambda x, axis: dspk.oaconvolve(
        x, np.hanning(33)[None, :] if axis == 1 else np.hanning(33)[:, None],
        axes=axis, runtime="wgpu"),
    "rfft": lambda x, axis: dspk.rfft(x, axis=axis, runtime="wgpu"),
    "hilbert": lambda x, axis: dspk.hilbert(x, axis=axis, runtime="wgpu"),
    "welch": lambda x, axis: dspk.welch(x, nperseg=256, axis=axis, runtime="wgpu")[1],
    "resample_poly": lambda x, axis: dspk.resample_poly(x, 2, 3, axis=axis, runtime="wgpu"),
    "common_reference": lambda x, axis: dspk.common_reference(
        x, axis=axis, operator="median", runtime="wgpu"),
    "whiten": lambda x, axis: dspk.whiten(x, axis=axis, runtime="wgpu")[0],
    "common_reference-local": lambda x, axis: dspk.common_reference(
        x, "local", radius=(0, 45), min_neighbours=2, positions=POSITIONS, axis=axis,
        runtime="wgpu"),
    "whiten-local": lambda x, axis: dspk.whiten(
        x, mode="local", neighbours=3, positions=POSITIONS, axis=axis, runtime="wgpu")[0],
}


@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("case", sorted(CASES))
def test_channel_and_time_pieces_equal_one_shot(wgpu, rng, case, axis):
    x = _signal(rng, 7, 3001, axis)
    # Two channels' worth: every kernel call sees a few channels or a slice of time.
    # An FFT's work arrays (complex, Bluestein's padded length of 8192) set its floor.
    per_channel = 8192 * 8 if case in ("rfft", "hilbert") else 3001 * 4
    whole, pieces = _both(wgpu, 2 * per_channel + 64, lambda: CASES[case](x, axis))
    assert rel_l2(np.asarray(pieces), np.asarray(whole)) <= 1e-6


@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("op", ["sosfilt", "lfilter"])
def test_a_channel_longer_than_the_limit_carries_its_state(wgpu, rng, op, axis):
    x = _signal(rng, 2, 20011, axis)
    if op == "sosfilt":
        zi = rng.standard_normal((3, 2, 2))
        zi_axis = zi if axis == 1 else zi.transpose(0, 2, 1)
        run = lambda: dspk.sosfilt(SOS, x, axis=axis, zi=zi_axis, runtime="wgpu")  # noqa: E731
        expected = signal.sosfilt(SOS, x.astype(np.float64), axis=axis, zi=zi_axis)
    else:
        zi = rng.standard_normal((2, 3))
        zi_axis = zi if axis == 1 else zi.T
        run = lambda: dspk.lfilter(*BA, x, axis=axis, zi=zi_axis, runtime="wgpu")  # noqa: E731
        expected = signal.lfilter(*BA, x.astype(np.float64), axis=axis, zi=zi_axis)
    # 4096 bytes: a thousand samples, far below one channel.
    whole, pieces = _both(wgpu, 4096, run)
    for got, one_shot, reference in zip(pieces, whole, expected):
        assert rel_l2(got, one_shot) <= 1e-5
        assert rel_l2(got, reference) <= TOLERANCE[np.float32]


def test_a_channel_longer_than_the_limit_without_exact_pieces_says_so(wgpu, rng):
    x = _signal(rng, 1, 20011, 1)
    wgpu.gpu.max_binding = 4096
    with pytest.raises(ArrayTooLarge, match="one channel.*cannot be cut along time"):
        dspk.sosfiltfilt(SOS, x, runtime="wgpu")


def test_a_device_array_above_the_limit_is_refused_clearly(wgpu, rng):
    wgpu.gpu.max_binding = 4096
    with pytest.raises(ArrayTooLarge, match="largest storage-buffer binding.*pieces"):
        dspk.asarray(_signal(rng, 4, 2000, 1), runtime="wgpu")
