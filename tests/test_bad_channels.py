"""detect_bad_channels labels its chunks in groups (the grouping never changes a label) and
in float32 for integer recordings.

The conformance kit (dspk.testing.conformance.test_bad_channels) checks the
labels against a float64 reference on every runtime; here the groups are made
as small as one chunk and as large as all of them, on a recording short enough
that chunks repeat and their margins are cut at both ends.
"""

import numpy as np
import pytest

import dspk
from dspk import bad_channels
from dspk.testing.conformance.test_bad_channels import probe, recording

FS = 30000.0


@pytest.mark.filterwarnings("ignore:over a third of the channels are bad")
@pytest.mark.parametrize("method", ["coherence+psd", "mad"])
def test_groups_of_any_size_give_the_same_labels(method, rng, monkeypatch):
    monkeypatch.setenv("DSPK_TUNING", "off")
    positions = probe(2, 16)
    x = recording(rng, positions, 4000)
    x[3] *= 0.01          # dead
    x[17] *= 30           # noisy
    options = dict(positions=positions, num_random_chunks=40, chunk_duration_s=0.05, seed=0)
    starts = bad_channels.chunk_starts(4000, 1500, 40, 0)
    assert len(np.unique(starts)) < len(starts), "a chunk repeats"
    assert min(starts) < 500 and max(starts) > 2000, "margins are cut at both ends"
    labels = {}
    for elements in (1, 2 * 32 * 2500, 1 << 30):  # a chunk, two chunks, all of them
        monkeypatch.setattr(bad_channels, "_GROUP_ELEMENTS", elements)
        labels[elements] = dspk.detect_bad_channels(x, FS, method, **options).labels
    assert {"good", "noise"} <= set(labels[1])
    for got in labels.values():
        np.testing.assert_array_equal(got, labels[1])


@pytest.mark.parametrize("method", ["coherence+psd", "std"])
def test_an_int16_recording_is_labelled_in_float32(method, rng, monkeypatch):
    """int16 chunks are filtered in float32, as SpikeInterface does: the labels of the
    int16 recording and of the same values as float32 are computed alike."""
    filtered = []

    def sosfiltfilt(sos, x, **options):
        filtered.append(x.dtype)
        return dspk.sosfiltfilt(sos, x, **options)

    monkeypatch.setattr(bad_channels, "sosfiltfilt", sosfiltfilt)
    positions = probe(2, 16)
    x = np.round(recording(rng, positions, 6000) * 4).astype(np.int16)
    x[3] //= 100          # dead
    x[17] *= 20           # noisy
    options = dict(positions=positions, num_random_chunks=8, chunk_duration_s=0.05, seed=0)
    as_int16 = dspk.detect_bad_channels(x, FS, method, **options)
    as_float32 = dspk.detect_bad_channels(x.astype(np.float32), FS, method, **options)
    np.testing.assert_array_equal(as_int16.labels, as_float32.labels)
    assert 17 in as_int16.indices
    assert set(filtered) == {np.dtype(np.float32)}
