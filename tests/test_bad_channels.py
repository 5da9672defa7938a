"""detect_bad_channels labels its chunks in groups: the grouping never changes a label.

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
