"""Conformance: detect_bad_channels and interpolate_bad_channels on every runtime.

The references are NumPy and scipy in float64, written here from the IBL's
definitions as SpikeInterface implements them; where SpikeInterface is
installed, its own functions are compared too. detect_bad_channels composes
sosfiltfilt, welch and common_reference, so it runs on each runtime's default
variants; interpolate_bad_channels runs every variant of apply_channel_matrix.

Labels are thresholds on features; so that the comparison can fail, the
thresholds are set in the widest gaps between the reference's feature values
(many times wider than float32's errors), with channels on both sides.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import signal, spatial, stats

import dspk
from dspk.testing import TOLERANCE, open_backend, rel_l2, runtimes_under_test, variant_params
from dspk.tuning.tuner import forced_variant

DTYPES = [np.float32, np.float64]
AXES = [-1, 0]
ORDERS = ["C", "F"]
LABELS = np.array(["good", "dead", "noise", "out"])
FS = 30000.0


@pytest.fixture
def default_variants(monkeypatch):
    """The detection composes several kernel operations: run each on its default variant."""
    monkeypatch.setenv("DSPK_TUNING", "off")


def probe(columns, rows, pitch=20.0):
    """Neuropixels-like positions: ``columns`` columns 16 um apart, rows ``pitch`` apart."""
    return np.array([[11.0 + 16 * (i % columns), pitch * (i // columns)]
                     for i in range(columns * rows)])


def laid_out(x64, dtype, axis, order):
    return np.asarray((x64 if axis == -1 else x64.T).astype(dtype), order=order)


def by_channels(y, axis):
    return np.asarray(y) if axis == -1 else np.asarray(y).T


def recording(rng, positions, samples):
    """A common signal whose amplitude fades towards the top, channel gains, noise and tones.

    The fading common signal gives the trend a slope (out-of-brain channels
    at the top), the gains a spread of similarities (dead and noisy ones).
    The common signal is mostly below 1 kHz, where the high-pass filter's
    shape counts; each channel's tone near 80% of the Nyquist frequency makes
    its high-frequency power depend on Welch's segments and window.
    """
    channels = len(positions)
    depth = positions[:, 1] / positions[:, 1].max()
    slow = signal.sosfilt(signal.butter(2, 600, fs=FS, output="sos"), rng.standard_normal(samples))
    common = 40 * slow + 3 * rng.standard_normal(samples)
    gains = np.clip(1.2 - depth, 0, None) * rng.uniform(0.3, 1.7, channels)
    noise = rng.standard_normal((channels, samples)) * rng.uniform(1, 6, (channels, 1))
    frequencies = rng.uniform(0.74, 0.86, (channels, 1)) * FS / 2
    tones = rng.uniform(0, 5, (channels, 1)) * np.sin(2 * np.pi * frequencies
                                                      * np.arange(samples) / FS)
    return gains[:, None] * common + noise + tones


# --- the float64 reference ---------------------------------------------------------------

def reference_chunks(x64, size, count, seed, cutoff):
    """SpikeInterface's random chunks, each high-passed with its margins."""
    samples = x64.shape[1]
    starts = np.sort(np.random.default_rng(seed).integers(0, samples - size, count,
                                                          endpoint=True))
    sos = signal.butter(5, cutoff, "highpass", fs=FS, output="sos")
    margin = int(5 * 1000 / cutoff * FS / 1000)
    chunks = []
    for start in starts:
        lo, hi = max(0, start - margin), min(samples, start + size + margin)
        chunks.append(signal.sosfiltfilt(sos, x64[:, lo:hi])[:, start - lo:start - lo + size])
    return chunks


def reference_features(chunk, order, nperseg=300, nyquist=0.8):
    """IBL's features of one chunk, channels in depth order: psd_hf, xcorr - trend, trend."""
    raw = chunk[order] - chunk[order].mean(axis=1, keepdims=True)
    f, psd = signal.welch(raw, fs=FS, window="hann", nperseg=nperseg)
    psd_hf = psd[:, f > FS / 2 * nyquist].mean(axis=1)
    ref = np.median(raw, axis=0)
    ref = ref - ref.mean()
    xcorr = raw @ ref / np.sum(ref ** 2)
    trend = np.array([np.median(xcorr[max(0, i - 5):i + 6]) for i in range(len(xcorr))])
    return psd_hf, xcorr - trend, trend


def reference_codes(psd_hf, neighbours, trend, thresholds):
    codes = np.zeros(len(trend), int)
    codes[neighbours < thresholds["dead_channel_threshold"]] = 1
    codes[(psd_hf > thresholds["psd_hf_threshold"])
          | (neighbours > thresholds["noisy_channel_threshold"])] = 2
    below = trend < thresholds["outside_channel_threshold"] + 1
    top = len(trend)
    while top > 0 and below[top - 1]:
        top -= 1
    codes[top:] = 3 if top < len(trend) else codes[top:]
    return codes


def gap_threshold(values, low, high):
    """The middle of the widest gap between sorted ``values`` whose rank is in [low, high)."""
    v = np.sort(np.ravel(values))
    lo, hi = int(low * len(v)), int(high * len(v))
    gaps = np.diff(v)[lo:hi]
    i = lo + int(np.argmax(gaps))
    scale = np.abs(v).max()
    assert v[i + 1] - v[i] > 1e-3 * scale, "no threshold far from every value"
    return (v[i] + v[i + 1]) / 2


def coherence_case(x64, positions, order, seed):
    """Thresholds in the features' gaps, and the reference's labels with them."""
    chunks = reference_chunks(x64, 1500, 3, seed, 300.0)
    features = [reference_features(chunk, order) for chunk in chunks]
    psd_hf, neighbours, trend = (np.array(f) for f in zip(*features))
    thresholds = {
        "psd_hf_threshold": gap_threshold(psd_hf, 0.75, 0.95),
        "dead_channel_threshold": gap_threshold(neighbours, 0.05, 0.25),
        "noisy_channel_threshold": gap_threshold(neighbours, 0.8, 0.95),
        "outside_channel_threshold": gap_threshold(trend[:, -len(x64) // 6:], 0.3, 0.7) - 1,
    }
    codes = np.array([reference_codes(*f, thresholds) for f in features])
    mode = stats.mode(codes, axis=0, keepdims=False)[0]
    labels = np.empty(len(x64), "<U5")
    labels[order] = LABELS[mode]
    return thresholds, labels


def deviation_case(x64, method, seed):
    joined = np.concatenate(reference_chunks(x64, 1500, 3, seed, 300.0), axis=1)
    deviations = (np.std(joined, axis=1) if method == "std"
                  else stats.median_abs_deviation(joined, axis=1))
    ratio = deviations / np.median(deviations)
    threshold = gap_threshold(ratio, 0.6, 0.95)
    return threshold, np.where(ratio > threshold, "noise", "good")


# --- detect_bad_channels -----------------------------------------------------------------

@pytest.mark.pairwise
@pytest.mark.usefixtures("default_variants")
@pytest.mark.filterwarnings("ignore:over a third of the channels are bad")
@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize(("method", "columns", "shuffled"), [
    ("coherence+psd", 2, False), ("coherence+psd", 4, True), ("coherence+psd", 3, True),
    ("mad", 2, True), ("std", 4, False)])
def test_detect_bad_channels(runtime, dtype, axis, order, method, columns, shuffled, rng):
    open_backend(runtime)
    positions = probe(columns, 48 // columns)
    if shuffled:
        positions = positions[rng.permutation(len(positions))]
    x64 = recording(rng, positions, 6000)
    x = laid_out(x64, dtype, axis, order)
    before = x.copy()
    depth = np.lexsort((positions[:, 0], positions[:, 1]))
    common = dict(num_random_chunks=3, chunk_duration_s=0.05, seed=11, axis=axis,
                  runtime=runtime)
    if method == "coherence+psd":
        thresholds, want = coherence_case(x64, positions, depth, 11)
        assert len(set(want)) >= 3, want  # the case labels channels several ways
        got = dspk.detect_bad_channels(x, FS, positions=positions, **thresholds, **common)
    else:
        threshold, want = deviation_case(x64, method, 11)
        got = dspk.detect_bad_channels(x, FS, method, std_mad_threshold=threshold, **common)
    assert got.labels.tolist() == want.tolist()
    np.testing.assert_array_equal(got.indices, np.flatnonzero(want != "good"))
    np.testing.assert_array_equal(x, before)


@pytest.mark.usefixtures("default_variants")
@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_detect_bad_channels_injected(runtime, rng):
    """Defaults, on a probe with a dead channel, a noisy one and channels out of the brain."""
    open_backend(runtime)
    x64, want = injected(rng)
    positions = probe(2, len(x64) // 2)
    got = dspk.detect_bad_channels(x64.astype(np.float32), FS, positions=positions,
                                   num_random_chunks=4, chunk_duration_s=0.05, seed=2,
                                   runtime=runtime)
    assert got.labels.tolist() == want.tolist()
    filtered = dspk.detect_bad_channels(x64, FS, channel_filters={"dead"}, num_random_chunks=4,
                                        chunk_duration_s=0.05, seed=2, runtime=runtime)
    assert filtered.indices.tolist() == [5]


def injected(rng, channels=48, samples=6000):
    """Good channels share a signal; 5 is dead, 20 noisy, the top 12 share another signal."""
    x = rng.standard_normal(samples) * 8 + rng.standard_normal((channels, samples)) * 2
    x[5] *= 0.01
    x[20] += rng.standard_normal(samples) * 50
    x[-12:] = rng.standard_normal(samples) * 6 + rng.standard_normal((12, samples)) * 2
    want = np.full(channels, "good", "<U5")
    want[5], want[20], want[-12:] = "dead", "noise", "out"
    return x, want


@pytest.mark.usefixtures("default_variants")
@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_detect_bad_channels_warns_when_a_third_is_bad(runtime, rng):
    open_backend(runtime)
    x = rng.standard_normal(3000) * 8 + rng.standard_normal((12, 3000)) * 2
    x[[1, 4, 7, 10, 11]] *= 0.01
    with warnings.catch_warnings(record=True) as caught:  # a runtime lacking a kernel skips
        warnings.simplefilter("always")
        dspk.detect_bad_channels(x, FS, num_random_chunks=2, chunk_duration_s=0.05, seed=0,
                                 runtime=runtime)
    assert any(issubclass(w.category, UserWarning)
               and "over a third of the channels are bad" in str(w.message) for w in caught)


# --- interpolate_bad_channels ------------------------------------------------------------

def reference_interpolation(x64, bad, positions, sigma, p):
    good = np.setdiff1d(np.arange(len(x64)), bad)
    w = np.exp(-(spatial.distance.cdist(positions[good], positions[bad]) / sigma) ** p)
    w[w < 0.005] = 0
    w = w / w.sum(axis=0)
    w[w < 0.005] = 0
    y = x64.copy()
    y[bad] = w.T @ x64[good]
    return y


@pytest.mark.pairwise
@pytest.mark.parametrize(("runtime", "variant"), variant_params("apply_channel_matrix"))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize(("columns", "rows", "samples"), [(2, 8, 257), (4, 12, 1000),
                                                          (3, 20, 61)])
@pytest.mark.parametrize("sigma", [None, 35.0])
def test_interpolate_bad_channels(runtime, variant, dtype, axis, order, columns, rows, samples,
                                  sigma, rng):
    open_backend(runtime)
    positions = probe(columns, rows)
    channels = len(positions)
    bad = np.sort(rng.choice(channels, 1 + channels // 6, replace=False))
    x64 = rng.standard_normal((channels, samples))
    x = laid_out(x64, dtype, axis, order)
    before = x.copy()
    with forced_variant("apply_channel_matrix", variant):
        got = dspk.interpolate_bad_channels(x, bad[::-1], positions, sigma_um=sigma, axis=axis,
                                            runtime=runtime)
    assert got.dtype == dtype and got.shape == x.shape
    want = reference_interpolation(x64, bad, positions, 20.0 if sigma is None else sigma, 1.3)
    got = by_channels(got, axis)
    assert rel_l2(got[bad], want[bad]) <= TOLERANCE[dtype]
    good = np.setdiff1d(np.arange(channels), bad)
    np.testing.assert_array_equal(got[good], x64[good].astype(dtype))
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_interpolate_bad_channels_given_weights_and_none_bad(runtime, rng):
    open_backend(runtime)
    positions = probe(2, 5)
    x = rng.standard_normal((10, 300))
    weights = rng.uniform(0, 1, (8, 2))
    got = dspk.interpolate_bad_channels(x, [3, 6], positions, weights=weights, runtime=runtime)
    want = x.copy()
    want[[3, 6]] = weights.T @ np.delete(x, [3, 6], axis=0)
    assert rel_l2(got, want) <= TOLERANCE[np.float64]
    assert rel_l2(dspk.interpolate_bad_channels(x, [], positions, runtime=runtime), x) == 0
    ints = rng.integers(-100, 100, (10, 50)).astype(np.int16)
    assert dspk.interpolate_bad_channels(ints, [0], positions, runtime=runtime).dtype == \
        np.float64


# --- against SpikeInterface --------------------------------------------------------------

def spikeinterface_recording(x64, positions, dtype=np.float32):
    """A NumpyRecording in microvolts (gain 1) of ``dtype`` traces with a probe."""
    core = pytest.importorskip("spikeinterface.core")
    probeinterface = pytest.importorskip("probeinterface")
    rec = core.NumpyRecording(x64.T.astype(dtype), FS)
    probe_ = probeinterface.Probe(ndim=2)
    probe_.set_contacts(positions, shapes="circle", shape_params={"radius": 5})
    probe_.set_device_channel_indices(np.arange(len(positions)))
    rec = rec.set_probe(probe_) or rec  # in place (returns None) since SpikeInterface 0.103
    rec.set_channel_gains(1.0)
    rec.set_channel_offsets(0.0)
    return rec


@pytest.mark.usefixtures("default_variants")
@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("method", ["coherence+psd", "mad", "std"])
def test_detect_bad_channels_as_spikeinterface(runtime, method, rng):
    open_backend(runtime)
    preprocessing = pytest.importorskip("spikeinterface.preprocessing")
    x64, _ = injected(rng)
    # Channels out of depth order, the last 12 still the top ones.
    shuffle = np.r_[rng.permutation(36), 36 + rng.permutation(12)]
    positions = probe(2, len(x64) // 2)[shuffle]
    options = dict(num_random_chunks=4, chunk_duration_s=0.05, seed=5)
    si_bad, si_labels = preprocessing.detect_bad_channels(
        spikeinterface_recording(x64, positions), method=method, **options)
    got = dspk.detect_bad_channels(x64.astype(np.float32), FS, method, positions=positions,
                                   runtime=runtime, **options)
    assert got.labels.tolist() == si_labels.tolist()
    assert got.indices.tolist() == np.asarray(si_bad).tolist()


@pytest.mark.parametrize("runtime", runtimes_under_test())
@pytest.mark.parametrize("sigma", [None, 30.0])
def test_interpolate_bad_channels_as_spikeinterface(runtime, sigma, rng):
    """Within 1e-6 (relative L2): SpikeInterface computes in float32 too."""
    open_backend(runtime)
    preprocessing = pytest.importorskip("spikeinterface.preprocessing")
    positions = probe(4, 12)
    x64 = rng.standard_normal((48, 400))
    bad = [0, 7, 8, 30, 47]
    want = preprocessing.interpolate_bad_channels(
        spikeinterface_recording(x64, positions), np.array(bad), sigma_um=sigma).get_traces().T
    got = dspk.interpolate_bad_channels(x64.astype(np.float32), bad, positions, sigma_um=sigma,
                                        runtime=runtime)
    assert rel_l2(got, want) <= 1e-6


# --- bad input -----------------------------------------------------------------------------

X = np.random.default_rng(0).standard_normal((6, 3000))
P = probe(2, 3)


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: dspk.detect_bad_channels(X, 30000, "zscore"), ValueError,
     "method='zscore' is not one of 'coherence\\+psd', 'mad', 'std'"),
    (lambda: dspk.detect_bad_channels(X, 0), ValueError, "fs=0 must be a positive"),
    (lambda: dspk.detect_bad_channels(X, -30000.0), ValueError, "fs=-30000.0"),
    (lambda: dspk.detect_bad_channels(X, 30000, positions=P[:5]), ValueError,
     r"positions has 5 row\(s\); the signal has 6 channel\(s\), so positions needs shape \(6, 2\)"),
    (lambda: dspk.detect_bad_channels(X, 30000, positions=np.zeros((6, 3))), ValueError,
     r"positions must have shape \(n, 2\).*got shape \(6, 3\)"),
    (lambda: dspk.detect_bad_channels(X, 30000, positions=np.full((6, 2), np.nan)), ValueError,
     "positions has non-finite"),
    (lambda: dspk.detect_bad_channels(X, 30000, direction="z"), ValueError, "direction='z'"),
    (lambda: dspk.detect_bad_channels(X, 30000, outside_channels_location="side"), ValueError,
     "outside_channels_location='side'"),
    (lambda: dspk.detect_bad_channels(X, 30000, n_neighbors=0), ValueError,
     "n_neighbors must be an integer >= 1"),
    (lambda: dspk.detect_bad_channels(X, 30000, nyquist_threshold=1.0), ValueError,
     "nyquist_threshold must be a finite number > 0 and < 1"),
    (lambda: dspk.detect_bad_channels(X, 30000, num_random_chunks=0), ValueError,
     "num_random_chunks must be an integer >= 1"),
    (lambda: dspk.detect_bad_channels(X, 30000, chunk_duration_s=0), ValueError,
     "chunk_duration_s must be a finite number > 0"),
    (lambda: dspk.detect_bad_channels(X, 30000, welch_window_ms=0.01), ValueError,
     "welch_window_ms=0.01 gives nperseg=0"),
    (lambda: dspk.detect_bad_channels(X, 30000, highpass_filter_cutoff=20000), ValueError,
     "highpass_filter_cutoff must be a finite number > 0 and < 15000"),
    (lambda: dspk.detect_bad_channels(X, 30000, channel_filters={"bad"}), ValueError,
     "channel_filters names \\['bad'\\]"),
    (lambda: dspk.detect_bad_channels(X, 30000, channel_filters="dead"), TypeError,
     "channel_filters must be None or a set"),
    (lambda: dspk.detect_bad_channels(X, 30000, seed=-1), ValueError,
     "seed must be an integer >= 0"),
    (lambda: dspk.detect_bad_channels(X[0], 30000), ValueError, "x must be 2-D"),
    (lambda: dspk.detect_bad_channels(X, 30000, psd_hf_threshold="high"), TypeError,
     "psd_hf_threshold must be a real number"),
    (lambda: dspk.interpolate_bad_channels(X, [6], P), ValueError,
     r"bad_channels names channel 6, out of range for 6 channels"),
    (lambda: dspk.interpolate_bad_channels(X, [-1], P), ValueError,
     "bad_channels names channel -1, out of range"),
    (lambda: dspk.interpolate_bad_channels(X, [1, 1], P), ValueError,
     "bad_channels names channel 1 more than once"),
    (lambda: dspk.interpolate_bad_channels(X, [0.5], P), TypeError,
     "bad_channels must hold integer channel indices"),
    (lambda: dspk.interpolate_bad_channels(X, [[0]], P), ValueError,
     "bad_channels must be a 1-D sequence"),
    (lambda: dspk.interpolate_bad_channels(X, range(6), P), ValueError,
     "bad_channels names every channel"),
    (lambda: dspk.interpolate_bad_channels(X, [0], P[:, :1]), ValueError,
     r"positions must have shape \(n, 2\).*got shape \(6, 1\)"),
    (lambda: dspk.interpolate_bad_channels(X, [0], P.T), ValueError,
     r"positions must have shape \(n, 2\).*got shape \(2, 6\)"),
    (lambda: dspk.interpolate_bad_channels(X, [0], P, sigma_um=0), ValueError,
     "sigma_um must be a finite number > 0"),
    (lambda: dspk.interpolate_bad_channels(X, [0], P, p=-1), ValueError,
     "p must be a finite number > 0"),
    (lambda: dspk.interpolate_bad_channels(X, [0], np.zeros((6, 2))), ValueError,
     "every channel is at one depth; pass sigma_um"),
    (lambda: dspk.interpolate_bad_channels(X, [0], P, weights=np.ones((6, 1))), ValueError,
     r"weights has shape \(6, 1\); 5 good and 1 bad channel\(s\) need \(5, 1\)"),
    (lambda: dspk.interpolate_bad_channels(X, [0], P, weights=np.full((5, 1), np.inf)),
     ValueError, "weights has non-finite"),
])
def test_bad_input_names_the_problem(call, error, message):
    with pytest.raises(error, match=message):
        call()
