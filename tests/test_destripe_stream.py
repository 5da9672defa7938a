"""HighpassSpatialFilterStream against dspk.highpass_spatial_filter over the whole signal.

The stream is pushed random chunk lengths (runs of 1-sample chunks and empty chunks
among them); given the same ``rms_values`` its joined output is the one-shot's, to the
rounding of the gain control's FFT convolution (``"valid"`` over the samples held in the
stream, ``"same"`` over the whole signal in the one-shot).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import dspk
from dspk.streaming import HighpassSpatialFilterStream, StreamChain

FS = 30000.0
#: Relative L2 error: float64 to FFT round-off (3e-14 measured); float32 by the FFT's rounding of
#: the gains, which the output carries (4e-7 measured).
TOLERANCE = {np.float64: 1e-12, np.float32: 2e-6}


@pytest.fixture(autouse=True)
def _untuned(monkeypatch):
    monkeypatch.setenv("DSPK_TUNING", "off")


def striped(rng, samples=2400, channels=64, dtype=np.float64, axis=0) -> np.ndarray:
    """Noise plus a stripe common to the channels that drifts along them, in bursts."""
    stripe = rng.standard_normal(samples) * np.repeat(rng.uniform(0.2, 3, samples // 200 + 1),
                                                      200)[:samples]
    x = stripe[:, None] * np.linspace(1, 2, channels) + rng.standard_normal((samples, channels))
    x = x.astype(dtype)
    return x if axis == 0 else x.T.copy()


def rms(x: np.ndarray, axis: int) -> np.ndarray:
    return np.sqrt(np.mean(np.asarray(x, np.float64) ** 2, axis=axis))


def rel_l2(y, want) -> float:
    return float(np.linalg.norm(np.asarray(y, np.float64) - want) / np.linalg.norm(want))


def streamed(stream, x: np.ndarray, axis: int, rng: np.random.Generator) -> np.ndarray:
    """Random chunk lengths: runs of 1-sample chunks, empty chunks, longer ones."""
    n, cuts, at = x.shape[axis], [0], 0
    while at < n:
        draw = rng.random()
        step = 0 if draw < 0.05 else 1 if draw < 0.4 else int(rng.integers(2, n // 3 + 3))
        at = min(n, at + step)
        cuts.append(at)
    parts = [stream.push(np.take(x, range(a, b), axis=axis)) for a, b in itertools.pairwise(cuts)]
    return np.concatenate([*parts, stream.finish()], axis=axis)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("options", [
    {},
    {"n_channel_taper": 10, "epsilon": 0.5},
    {"apply_agc": False},
    {"positions": "shuffled", "highpass_butter_order": 2, "n_channel_pad": 20},
], ids=["defaults", "taper-floor", "no-agc", "positions"])
def test_stream_in_random_chunks_is_the_one_shot(options, axis, dtype, rng):
    x = striped(rng, dtype=dtype, axis=axis)
    options = dict(options, agc_window_length_s=0.01)  # a 301-sample window: margin 150
    if options.get("positions") == "shuffled":
        depth = rng.permutation(64) * 20.0
        options["positions"] = np.column_stack([np.zeros(64), depth])
    if options.get("apply_agc", True):
        options["rms_values"] = rms(x, axis)
    want = dspk.highpass_spatial_filter(x.astype(np.float64), FS, axis=axis, **options)
    stream = HighpassSpatialFilterStream(FS, axis=axis, **options)
    assert stream.margin == (150 if options.get("apply_agc", True) else 0)
    y = streamed(stream, x, axis, rng)
    assert y.dtype == dtype and y.shape == x.shape
    assert rel_l2(y, want) <= TOLERANCE[dtype]
    one_shot = dspk.highpass_spatial_filter(x, FS, axis=axis, **options)
    assert rel_l2(y, one_shot) <= TOLERANCE[dtype]


def test_a_signal_shorter_than_the_window_comes_out_at_finish(rng):
    x = striped(rng, samples=200)  # the default window is 3001 samples
    values = rms(x, 0)
    stream = HighpassSpatialFilterStream(FS, rms_values=values, axis=0)
    assert stream.push(x[:120]).shape == (0, 64) and stream.push(x[120:]).shape == (0, 64)
    y = stream.finish()
    want = dspk.highpass_spatial_filter(x, FS, rms_values=values, axis=0)
    assert rel_l2(y, want) <= TOLERANCE[np.float64]


def test_a_channel_of_zeros_stays_zero(rng):
    x = striped(rng, samples=1500)
    x[:, 7] = 0
    values = rms(x, 0)
    stream = HighpassSpatialFilterStream(FS, rms_values=values, agc_window_length_s=0.01,
                                         axis=0)
    y = streamed(stream, x, 0, rng)
    want = dspk.highpass_spatial_filter(x, FS, rms_values=values, agc_window_length_s=0.01,
                                        axis=0)
    assert np.all(y[:, 7] == 0) and rel_l2(y, want) <= TOLERANCE[np.float64]


def test_in_a_chain(rng):
    x = striped(rng, samples=1800)
    values = rms(x, 0)
    chain = StreamChain(dspk.streaming.CommonReferenceStream(axis=0),
                        HighpassSpatialFilterStream(FS, rms_values=values, axis=0,
                                                    agc_window_length_s=0.02))
    y = streamed(chain, x, 0, rng)
    want = dspk.highpass_spatial_filter(dspk.common_reference(x, axis=0), FS, rms_values=values,
                                        agc_window_length_s=0.02, axis=0)
    assert rel_l2(y, want) <= TOLERANCE[np.float64]


@pytest.mark.parametrize("options, error, message", [
    ({}, ValueError, "a stream needs rms_values with apply_agc"),
    ({"rms_values": np.ones(3), "n_channel_pad": 0}, ValueError, "needs more than"),
    ({"rms_values": np.ones(64), "agc_window_length_s": 0}, ValueError, "agc_window_length_s"),
    ({"apply_agc": "yes"}, TypeError, "apply_agc must be True or False"),
])
def test_options_are_checked(options, error, message):
    with pytest.raises(error, match=message):
        HighpassSpatialFilterStream(FS, **options)


def test_chunks_must_match_the_channels_given(rng):
    stream = HighpassSpatialFilterStream(FS, rms_values=np.ones(64), axis=0)
    with pytest.raises(ValueError, match="the chunks have 70 channel"):
        stream.push(np.zeros((10, 70)))
    with pytest.raises(ValueError, match="2-D"):
        HighpassSpatialFilterStream(FS, apply_agc=False).push(np.zeros(10))
