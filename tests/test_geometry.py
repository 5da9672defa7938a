"""Probe geometry (dspk.geometry, dspk.read_probe), and the local reference and whitening
against SpikeInterface on a recording with a probe (where spikeinterface is installed)."""

from __future__ import annotations

import builtins
import warnings

import numpy as np
import pytest

import dspk
from dspk import geometry
from dspk.testing import rel_l2
from dspk.testing.conformance.test_neighbours import probe_positions


def _write_probe(tmp_path, positions, channels):
    pi = pytest.importorskip("probeinterface")
    probe = pi.Probe(ndim=2, si_units="um")
    probe.set_contacts(positions=positions, shapes="circle", shape_params={"radius": 5})
    probe.set_device_channel_indices(channels)
    group = pi.ProbeGroup()
    group.add_probe(probe)
    path = tmp_path / "probe.json"
    pi.write_probeinterface(path, group)
    return path


def test_read_probe_gives_positions_in_device_channel_order(tmp_path, rng):
    positions = rng.uniform(0, 100, (12, 2))
    channels = rng.permutation(12)
    got = dspk.read_probe(_write_probe(tmp_path, positions, channels))
    np.testing.assert_array_equal(got[channels], positions)


def test_read_probe_leaves_unwired_contacts_out(tmp_path, rng):
    positions = rng.uniform(0, 100, (5, 2))
    got = dspk.read_probe(_write_probe(tmp_path, positions, [1, -1, 0, 2, -1]))
    np.testing.assert_array_equal(got, positions[[2, 0, 3]])


@pytest.mark.parametrize(("channels", "message"), [
    ([0, 1, 3], "none to channel 2"),
    ([0, 1, 1], "wires device channel 1 to more than one contact"),
    ([-1, -1, -1], "wires no contact"),
])
def test_read_probe_refuses_wiring_it_cannot_order(tmp_path, channels, message):
    path = _write_probe(tmp_path, np.arange(6.0).reshape(3, 2), channels)
    with pytest.raises(ValueError, match=message):
        dspk.read_probe(path)


def test_read_probe_without_probeinterface_names_the_extra(monkeypatch, tmp_path):
    real_import = builtins.__import__

    def without(name, *args, **kwargs):
        if name == "probeinterface":
            raise ImportError("No module named 'probeinterface'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without)
    with pytest.raises(ImportError, match=r"dspk\[probe\]"):
        dspk.read_probe(tmp_path / "probe.json")


def test_neighbourhoods_of_a_line():
    p = np.column_stack([np.zeros(5), np.arange(5) * 20.0])
    np.testing.assert_array_equal(geometry.within_radius(p, 25)[2], [2, 1, 3])
    np.testing.assert_array_equal(geometry.annulus(p, 20, 40)[0], [2, -1])
    np.testing.assert_array_equal(geometry.annulus(p, 20, 40, min_neighbours=3)[0], [2, 3, 4])
    np.testing.assert_array_equal(geometry.annulus(p, 100, 200, min_neighbours=3),
                                  np.full((5, 1), -1))
    np.testing.assert_array_equal(geometry.nearest(p, 3)[4], [4, 3, 2])


# --- against SpikeInterface ---------------------------------------------------------

def _recording(x_by_samples, positions):
    si = pytest.importorskip("spikeinterface.core")
    pi = pytest.importorskip("probeinterface")
    recording = si.NumpyRecording([x_by_samples], sampling_frequency=30000.0)
    probe = pi.Probe(ndim=2, si_units="um")
    probe.set_contacts(positions=positions, shapes="circle", shape_params={"radius": 5})
    probe.set_device_channel_indices(np.arange(len(positions)))
    recording.set_probe(probe)  # in place in SpikeInterface 0.105
    return recording


def _jittered(rng, channels):
    """A Neuropixels-like layout, moved by under a micrometre so that no two distances
    tie (SpikeInterface's order among ties is numpy.argsort's)."""
    return probe_positions(rng, channels) + rng.uniform(-0.4, 0.4, (channels, 2))


@pytest.mark.parametrize("operator", ["median", "average"])
@pytest.mark.parametrize(("radius", "min_neighbours"), [((0.0, 45.0), 5), ((30.0, 55.0), 5),
                                                         ((15.0, 25.0), 4)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_local_reference_matches_spikeinterface(operator, radius, min_neighbours, dtype, rng):
    spre = pytest.importorskip("spikeinterface.preprocessing")
    positions = _jittered(rng, 48)
    x = rng.standard_normal((3000, 48)).astype(dtype)  # samples by channels, as SpikeInterface
    recording = _recording(x, positions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = spre.common_reference(recording, reference="local", operator=operator,
                                     local_radius=radius,
                                     min_local_neighbors=min_neighbours).get_traces()
    got = dspk.common_reference(x, "local", operator, radius=radius,
                                min_neighbours=min_neighbours, positions=positions, axis=0,
                                runtime="cpu")
    # SpikeInterface's local median goes through a float32 array even for float64 data.
    exact = dtype == np.float64 and operator == "average"
    assert rel_l2(got, want.astype(np.float64)) <= (1e-12 if exact else 1e-6)


@pytest.mark.parametrize("operator", ["median", "average"])
@pytest.mark.parametrize("refs", [5, [2, 7, 11]])
def test_single_reference_matches_spikeinterface(operator, refs, rng):
    spre = pytest.importorskip("spikeinterface.preprocessing")
    positions = _jittered(rng, 16)
    x = rng.standard_normal((2000, 16))
    recording = _recording(x, positions)
    if np.ndim(refs) == 0:  # SpikeInterface's "single": one channel
        want = spre.common_reference(recording, reference="single", ref_channel_ids=[refs])
    else:  # several: its "global" with ref_channel_ids
        want = spre.common_reference(recording, reference="global", operator=operator,
                                     ref_channel_ids=list(refs))
    got = dspk.common_reference(x, "single", operator, ref_channels=refs, axis=0,
                                runtime="cpu")
    assert rel_l2(got, want.get_traces()) <= 1e-12


@pytest.mark.parametrize("radius", [30.0, 60.0])
def test_local_whiten_matches_spikeinterface(radius, rng):
    spre = pytest.importorskip("spikeinterface.preprocessing")
    positions = _jittered(rng, 24)
    samples = 20000
    x = (rng.standard_normal((samples, 24)) + 0.7 * rng.standard_normal((samples, 1))) * 20
    recording = _recording(x, positions)
    # Every sample in one chunk: SpikeInterface's covariance from the whole signal.
    whitened = spre.whiten(recording, mode="local", radius_um=radius, eps=1e-8,
                           num_chunks_per_segment=1, chunk_size=samples, dtype="float64")
    y, W = dspk.whiten(x, mode="local", radius=radius, positions=positions, eps=1e-8, axis=0,
                       runtime="cpu")
    W_si = np.asarray(whitened._kwargs["W"])
    assert rel_l2(W, W_si.T) <= 1e-5  # SpikeInterface estimates in float32
    assert rel_l2(y, whitened.get_traces()) <= 1e-5
