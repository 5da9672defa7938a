"""Peak detection: the stream against the one-shot, and both functions against SpikeInterface.

The conformance kit (dspk.testing.conformance.test_detection) checks every runtime
against a NumPy reference; here the stream gives every peak once, and, where
SpikeInterface is installed, dspk finds the peaks it finds on a synthetic
recording with injected spikes.
"""

from __future__ import annotations

import numpy as np
import pytest

import dspk
from dspk.streaming import DetectPeaksStream

FS = 30000.0


def recording(rng, channels=16, samples=30000, spikes=60, dtype=np.float32):
    """Unit noise and spikes at known places (a trough spreading over neighbours, 4 ms apart
    at least), on a two-column probe; returns the traces (channels by samples), positions,
    and the spikes' (sample, channel) of their largest trough."""
    x = rng.standard_normal((channels, samples))
    shape = -np.exp(-0.5 * ((np.arange(-10, 11)) / 2.5) ** 2)
    times = 40 + np.sort(rng.choice((samples - 80) // 120, spikes, replace=False)) * 120
    truth = []
    for t in times:
        c = int(rng.integers(channels))
        height = rng.uniform(12, 25)
        for offset, fall in ((0, 1.0), (-2, 0.5), (2, 0.5), (-1, 0.4), (1, 0.4)):
            if 0 <= c + offset < channels:
                x[c + offset, t - 10:t + 11] += height * fall * shape
        truth.append((t, c))
    positions = np.column_stack([16.0 * (np.arange(channels) % 2),
                                 20.0 * (np.arange(channels) // 2)])
    return x.astype(dtype), positions, np.array(truth)


# --- the stream -------------------------------------------------------------------------

@pytest.mark.parametrize("exclude", [0, 1, 7])
@pytest.mark.parametrize("axis", [-1, 0])
@pytest.mark.parametrize("local", [False, True])
def test_stream_gives_every_peak_once(exclude, axis, local, rng):
    """Chunk boundaries anywhere, chunks down to one sample and empty; peaks right at the
    boundaries: the stream's peaks are the one-shot's."""
    x64 = rng.standard_normal((5, 700))
    x64[:, 100:300:7] -= 6.0  # many peaks, some at every chunk boundary below
    x = x64 if axis == -1 else x64.T.copy()
    noise = dspk.noise_levels(x, axis=axis)
    options = {"threshold": 2.5, "exclude": exclude, "sign": "both", "axis": axis}
    if local:
        options.update(positions=[[0, 20 * c] for c in range(5)], radius=25)
    want = dspk.detect_peaks(x, noise, **options)
    cuts = np.concatenate([[0], np.arange(100, 300, 7), np.arange(300, 320),
                           np.sort(rng.choice(np.arange(321, 700), 20, replace=False)), [700]])
    stream = DetectPeaksStream(noise, **options)
    parts = []
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        chunk = x[:, lo:hi] if axis == -1 else x[lo:hi]
        parts.append(stream.push(chunk))
        if lo == 150:
            parts.append(stream.push(x[:, :0] if axis == -1 else x[:0]))
    parts.append(stream.finish())
    got = np.concatenate(parts)
    assert len(want) > 20
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


def test_stream_float32_one_sample_chunks(rng):
    x = rng.standard_normal((3, 200)).astype(np.float32)
    x[1, 60] = x[1, 61] = -8.0  # a tie across a chunk boundary: the first is the peak
    noise = np.ones(3)
    stream = DetectPeaksStream(noise, threshold=3.0, exclude=4)
    got = np.concatenate([stream.push(x[:, t:t + 1]) for t in range(200)] + [stream.finish()])
    want = dspk.detect_peaks(x, noise, threshold=3.0, exclude=4)
    np.testing.assert_array_equal(got, want)
    assert got["amplitude"].dtype == np.float32 and (60, 1) in got[
        ["sample_index", "channel_index"]].tolist()


@pytest.mark.parametrize(("make", "error", "message"), [
    (lambda: DetectPeaksStream(np.ones(3), threshold=0), ValueError, "threshold must be"),
    (lambda: DetectPeaksStream(np.ones(3), sign="up"), ValueError, "sign='up'"),
    (lambda: DetectPeaksStream(np.ones(3), exclude=-2), ValueError, "exclude must be"),
    (lambda: DetectPeaksStream(np.ones(3), radius=3), ValueError, "radius was given without"),
])
def test_stream_bad_input(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_stream_checks_noise_levels_against_chunks():
    stream = DetectPeaksStream(np.ones(2), exclude=2)
    with pytest.raises(ValueError, match=r"noise_levels has shape \(2,\); x has 3 channel"):
        stream.push(np.zeros((3, 10)))


# --- against SpikeInterface -------------------------------------------------------------

def spikeinterface_peaks(x, noise, method, **method_kwargs):
    si = pytest.importorskip("spikeinterface.core")
    detection = pytest.importorskip("spikeinterface.sortingcomponents.peak_detection")
    rec = si.NumpyRecording([np.ascontiguousarray(x.T)], sampling_frequency=FS)
    positions = method_kwargs.pop("positions", None)
    if positions is not None:
        rec.set_dummy_probe_from_locations(positions)
    peaks = detection.detect_peaks(
        rec, method=method, method_kwargs=dict(noise_levels=noise, **method_kwargs),
        job_kwargs=dict(n_jobs=1, chunk_size=10000, progress_bar=False))
    return np.column_stack([peaks["sample_index"], peaks["channel_index"]])


def matched(a, b, tolerance=1):
    """Whether every peak of ``a`` has one of ``b`` on its channel within ``tolerance`` samples."""
    return all(np.any((b[:, 1] == c) & (np.abs(b[:, 0] - t) <= tolerance)) for t, c in a)


def test_noise_levels_equal_spikeinterface_on_one_whole_chunk(rng):
    si = pytest.importorskip("spikeinterface.core")
    x, _, _ = recording(rng, channels=6, samples=12000)
    rec = si.NumpyRecording([np.ascontiguousarray(x.T)], sampling_frequency=FS)
    for method in ("mad", "std", "rms"):
        want = si.get_noise_levels(rec, return_in_uV=False, method=method,
                                   random_slices_kwargs=dict(num_chunks_per_segment=1,
                                                             chunk_size=12000))
        np.testing.assert_allclose(dspk.noise_levels(x, method), want, rtol=1e-5)  # float32 sums


@pytest.mark.parametrize("sign", ["neg", "both"])
def test_by_channel_as_spikeinterface(sign, rng):
    x, _, truth = recording(rng)
    noise = dspk.noise_levels(x)
    exclude_ms = 0.5
    want = spikeinterface_peaks(x, noise, "by_channel", peak_sign=sign, detect_threshold=5,
                                exclude_sweep_ms=exclude_ms)
    got = dspk.detect_peaks(x, noise, threshold=5, sign=sign, exclude=int(exclude_ms * FS / 1000))
    got = np.column_stack([got["sample_index"], got["channel_index"]])
    assert len(got) >= len(truth) and matched(truth, got)
    assert matched(got, want) and matched(want, got)


def test_locally_exclusive_as_spikeinterface(rng):
    x, positions, truth = recording(rng)
    noise = dspk.noise_levels(x)
    want = spikeinterface_peaks(x, noise, "locally_exclusive", peak_sign="neg",
                                detect_threshold=5, exclude_sweep_ms=0.5, radius_um=50,
                                positions=positions)
    got = dspk.detect_peaks(x, noise, threshold=5, exclude=15, positions=positions, radius=50)
    got = np.column_stack([got["sample_index"], got["channel_index"]])
    # One peak per spike, on its largest channel, at its trough (noise may move it a sample).
    assert len(got) == len(truth) and matched(truth, got) and matched(got, truth)
    assert matched(got, want) and matched(want, got)
