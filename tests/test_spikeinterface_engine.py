"""dspk.spikeinterface: SpikeInterface's preprocessing steps, computed by dspk, give
SpikeInterface's traces (within float32's tolerance) and stay SpikeInterface recordings."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from dspk.testing.conformance.test_bad_channels import probe, spikeinterface_recording
from dspk.testing.conformance.test_bad_channels import recording as kit_recording

si = pytest.importorskip("spikeinterface.core")
spre = pytest.importorskip("spikeinterface.preprocessing")
dspk_si = pytest.importorskip("dspk.spikeinterface")

FS = 30000.0


def recording(dtype, channels=12, samples=45000, seed=3):
    rng = np.random.default_rng(seed)
    traces = rng.standard_normal((samples, channels)) * 40 + rng.standard_normal((samples, 1)) * 20
    return si.NumpyRecording(traces.astype(dtype), sampling_frequency=FS)


def assert_traces_like(got, want, dtype):
    assert got.dtype == want.dtype and got.shape == want.shape
    if np.dtype(dtype).kind == "i":  # rounded from float32 against float64: one count
        assert np.abs(got.astype(np.int64) - want).max() <= 1
    else:
        assert np.abs(got - want).max() <= 1e-4 * np.abs(want).max()


FILTERS = {
    "bandpass": lambda m, r, **k: m.bandpass_filter(r, freq_min=300.0, freq_max=6000.0, **k),
    "highpass": lambda m, r, **k: m.highpass_filter(r, freq_min=400.0, **k),
}


@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", ["float32", "int16"])
@pytest.mark.parametrize("name", FILTERS)
@pytest.mark.parametrize("filter_mode", ["sos", "ba"])
@pytest.mark.parametrize("direction", ["forward-backward", "forward", "backward"])
def test_filters_give_spikeinterface_traces(dtype, name, filter_mode, direction):
    rec = recording(dtype)
    options = dict(filter_mode=filter_mode, direction=direction, filter_order=3)
    ours, theirs = (FILTERS[name](m, rec, **options) for m in (dspk_si, spre))
    assert isinstance(ours, type(theirs))
    for start, end in ((0, 45000), (7000, 9001), (44000, 45000)):
        assert_traces_like(ours.get_traces(start_frame=start, end_frame=end),
                           theirs.get_traces(start_frame=start, end_frame=end), dtype)
    ids = rec.channel_ids[[5, 1, 9]]
    assert_traces_like(ours.get_traces(start_frame=100, end_frame=3000, channel_ids=ids),
                       theirs.get_traces(start_frame=100, end_frame=3000, channel_ids=ids), dtype)


REFERENCES = {  # the options, given the channel ids; whether dspk computes the reference
    "global": (lambda ids: dict(), True),
    "groups": (lambda ids: dict(groups=[list(ids[:5]), list(ids[[9, 5, 7]])]), True),
    "ref-channels": (lambda ids: dict(ref_channel_ids=list(ids[[1, 4, 8]])), True),
    "single": (lambda ids: dict(reference="single", ref_channel_ids=ids[[2]]), True),
    "local": (lambda ids: dict(reference="local", local_radius=(0, 40),
                               min_local_neighbors=2), True),
    # too few neighbours in the annulus: the nearest beyond it, ties in distance among them
    "local-ties": (lambda ids: dict(reference="local"), None),
    "groups-own-refs": (lambda ids: dict(groups=[list(ids[:6]), list(ids[6:])],
                                         ref_channel_ids=[list(ids[[0]]), list(ids[[6, 7]])]),
                        False),
}


@pytest.mark.pairwise
@pytest.mark.filterwarnings("ignore:The following channels did not have enough neighbors")
@pytest.mark.parametrize("dtype", ["float32", "int16", "float64"])
@pytest.mark.parametrize("operator", ["median", "average"])
@pytest.mark.parametrize("reference", REFERENCES)
def test_common_reference_gives_spikeinterface_traces(dtype, operator, reference):
    rec = on_a_probe(recording(dtype))
    options, by_dspk = REFERENCES[reference]
    options = dict(options(rec.channel_ids), operator=operator)
    ours, theirs = (m.common_reference(rec, **options) for m in (dspk_si, spre))
    if by_dspk is not None:
        assert (ours.segments[0].options is not None) == by_dspk
    ids = rec.channel_ids[[0, 7, 3]]
    for kwargs in (dict(), dict(start_frame=500, end_frame=2500, channel_ids=ids)):
        got, want = ours.get_traces(**kwargs), theirs.get_traces(**kwargs)
        assert got.dtype == want.dtype
        if dtype == "int16" and "groups" in reference:  # SpikeInterface truncates there
            assert np.abs(got.astype(np.int64) - want).max() <= 1
        elif reference.startswith("local") and operator == "median":  # theirs: in float32
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-6 * np.abs(want).max())
        else:  # the same arithmetic in the same dtype: a median is exact, a mean to rounding
            np.testing.assert_allclose(got, want, rtol=0,
                                       atol=1e-3 if dtype == "float32" else 1e-9)


@pytest.mark.parametrize("dtype", ["float32", "int16", "float64"])
def test_phase_shift_gives_spikeinterface_traces(dtype):
    rec = recording(dtype)
    shifts = np.random.default_rng(5).uniform(0, 1, rec.get_num_channels())
    ours, theirs = (m.phase_shift(rec, inter_sample_shift=shifts) for m in (dspk_si, spre))
    ids = rec.channel_ids[[4, 0, 11]]
    for kwargs in (dict(), dict(start_frame=2000, end_frame=9000, channel_ids=ids),
                   dict(start_frame=44000, end_frame=45000)):
        got, want = ours.get_traces(**kwargs), theirs.get_traces(**kwargs)
        if dtype == "float64":
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-9 * np.abs(want).max())
        else:
            assert_traces_like(got, want, dtype)


def on_a_probe(rec, shuffled=False):
    """``rec`` on a linear probe of 20 um pitch, its channels in depth order or shuffled."""
    probeinterface = pytest.importorskip("probeinterface")
    probe = probeinterface.generate_linear_probe(num_elec=rec.get_num_channels(), ypitch=20)
    wiring = np.arange(rec.get_num_channels())
    if shuffled:  # contact k is wired to channel wiring[k]
        wiring = np.random.default_rng(2).permutation(wiring)
    probe.set_device_channel_indices(wiring)
    rec.set_probe(probe)
    depths = rec.get_channel_locations()[:, 1]
    assert shuffled != bool(np.all(np.diff(depths) > 0))
    return rec


WHITENINGS = {
    "global": dict(),
    "mean": dict(apply_mean=True),
    "local": dict(mode="local", radius_um=50.0),
    "int16-scaled": dict(int_scale=200.0, dtype="int16"),
}


@pytest.mark.parametrize("dtype", ["float32", "int16", "float64"])
@pytest.mark.parametrize("name", WHITENINGS)
def test_whiten_gives_spikeinterface_traces(dtype, name):
    rec = on_a_probe(recording(dtype))
    options = dict(WHITENINGS[name], seed=1)
    if dtype == "int16":
        options.setdefault("dtype", "float32")
    ours, theirs = (m.whiten(rec, **options) for m in (dspk_si, spre))
    assert isinstance(ours, type(theirs))
    np.testing.assert_array_equal(ours._kwargs["W"], theirs._kwargs["W"])  # SpikeInterface's W
    ids = rec.channel_ids[[6, 2, 10]]
    for kwargs in (dict(), dict(start_frame=300, end_frame=4000, channel_ids=ids)):
        got, want = ours.get_traces(**kwargs), theirs.get_traces(**kwargs)
        if want.dtype == np.float64:  # the same product in the same dtype, to rounding
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * np.abs(want).max())
        else:
            assert_traces_like(got, want, want.dtype)


DESTRIPINGS = {
    "defaults": dict(n_channel_pad=12),
    "no-agc": dict(apply_agc=False, n_channel_pad=6),
    "taper": dict(n_channel_pad=4, n_channel_taper=2, highpass_butter_wn=0.05),
}


@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", ["float32", "int16", "float64"])
@pytest.mark.parametrize("name", DESTRIPINGS)
@pytest.mark.parametrize("shuffled", [False, True], ids=["depth-order", "shuffled"])
def test_highpass_spatial_filter_gives_spikeinterface_traces(dtype, name, shuffled):
    rec = on_a_probe(recording(dtype), shuffled)
    ours, theirs = (m.highpass_spatial_filter(rec, **DESTRIPINGS[name]) for m in (dspk_si, spre))
    assert isinstance(ours, type(theirs))
    ids = rec.channel_ids[[5, 1, 9]]
    for kwargs in (dict(), dict(start_frame=7000, end_frame=9001, channel_ids=ids),
                   dict(start_frame=44000, end_frame=45000)):
        # SpikeInterface computes in float32 whatever the recording's dtype
        assert_traces_like(ours.get_traces(**kwargs), theirs.get_traces(**kwargs),
                           "int16" if dtype == "int16" else "float32")


INTERPOLATIONS = {
    "one": dict(bad=[3]),
    "three": dict(bad=[0, 5, 11]),
    "sigma-and-p": dict(bad=[6, 7], sigma_um=35.0, p=1.0),
    "none": dict(bad=[]),
}


@pytest.mark.parametrize("dtype", ["float32", "int16", "float64"])
@pytest.mark.parametrize("name", INTERPOLATIONS)
def test_interpolate_bad_channels_gives_spikeinterface_traces(dtype, name):
    rec = on_a_probe(recording(dtype), shuffled=dtype == "int16")
    options = dict(INTERPOLATIONS[name])
    bad = rec.channel_ids[options.pop("bad")]
    ours, theirs = (m.interpolate_bad_channels(rec, bad, **options) for m in (dspk_si, spre))
    assert isinstance(ours, type(theirs))
    np.testing.assert_array_equal(ours._kwargs["weights"], theirs._kwargs["weights"])
    ids = rec.channel_ids[[5, 0, 3, 9]]
    for kwargs in (dict(), dict(start_frame=300, end_frame=4000, channel_ids=ids)):
        got, want = ours.get_traces(**kwargs), theirs.get_traces(**kwargs)
        if dtype == "float64":  # the same product in the same dtype, to rounding
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * np.abs(want).max())
        else:
            assert_traces_like(got, want, dtype)
    # the good channels pass as they are
    good = np.setdiff1d(np.arange(rec.get_num_channels()), rec.ids_to_indices(bad))
    np.testing.assert_array_equal(ours.get_traces()[:, good], rec.get_traces()[:, good])


def recording_with_bad_channels(dtype):
    """The conformance kit's probe recording (in microvolts) with a dead and a noisy
    channel."""
    positions = probe(2, 16)
    traces = kit_recording(np.random.default_rng(5), positions, 30000)
    traces[3] *= 0.01
    traces[17] *= 30
    return spikeinterface_recording(traces, positions, dtype)


@pytest.mark.filterwarnings("ignore:over a third of the channels are bad")
@pytest.mark.parametrize("dtype", ["float32", "int16"])
@pytest.mark.parametrize("method", ["coherence+psd", "std"])
def test_detect_and_interpolate_bad_channels_gives_spikeinterface_traces(dtype, method):
    rec = recording_with_bad_channels(dtype)
    options = dict(method=method, seed=0, num_random_chunks=20, chunk_duration_s=0.05)
    ours, theirs = (m.detect_and_interpolate_bad_channels(rec, **options)
                    for m in (dspk_si, spre))
    assert isinstance(ours, type(theirs))
    bad = list(theirs._kwargs["bad_channel_ids"])
    assert list(ours._kwargs["bad_channel_ids"]) == bad and 17 in bad
    assert_traces_like(ours.get_traces(), theirs.get_traces(), dtype)


def test_interpolating_every_channel_is_refused():
    rec = on_a_probe(recording("float32", channels=4, samples=1000))
    with pytest.raises(ValueError, match="bad_channel_ids names every channel"):
        dspk_si.interpolate_bad_channels(rec, rec.channel_ids)


@pytest.mark.filterwarnings("ignore:The extractor is not serializable")  # an in-memory recording
def test_a_chain_saves_in_parallel_chunks_and_reloads_as_dspk(tmp_path):
    rec = on_a_probe(recording("float32", samples=60000), shuffled=True)
    referenced = dspk_si.common_reference(dspk_si.bandpass_filter(rec, freq_min=300.0,
                                                                  freq_max=6000.0))
    chain = dspk_si.whiten(dspk_si.highpass_spatial_filter(referenced, n_channel_pad=12),
                           seed=1)
    # spawned workers: a forked one could deadlock on a thread of a library another
    # test of this worker imported (JAX warns so)
    saved = chain.save(folder=tmp_path / "saved", n_jobs=2, chunk_duration="0.3s",
                       progress_bar=False, mp_context="spawn")
    # chunks filtered with SpikeInterface's margins (10 ms at 300 Hz) against one pass
    whole = chain.get_traces()
    assert np.abs(saved.get_traces() - whole).max() <= 1e-3 * np.abs(whole).max()
    reloaded = si.load(chain.to_dict()) if hasattr(si, "load") else si.load_extractor(
        chain.to_dict())
    assert type(reloaded) is type(chain)
    assert type(pickle.loads(pickle.dumps(chain))) is type(chain)
    # the steps before the destriping reload exactly
    reloaded_referenced = reloaded._kwargs["recording"]._kwargs["recording"]
    assert type(reloaded_referenced) is type(referenced)
    np.testing.assert_array_equal(reloaded_referenced.get_traces(end_frame=5000),
                                  referenced.get_traces(end_frame=5000))
    # W and the RMS values reload from lists, as float64: to float32's rounding
    want = chain.get_traces(end_frame=5000)
    np.testing.assert_allclose(reloaded.get_traces(end_frame=5000), want, rtol=0,
                               atol=1e-5 * np.abs(want).max())
