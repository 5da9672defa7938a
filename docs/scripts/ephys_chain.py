"""Time the IBL-style preprocessing chain, file to file: dspk beside SpikeInterface.

The chain: phase shift (Neuropixels 1.0), high-pass (Butterworth, order 5,
300 Hz, zero phase), bad-channel detection and interpolation (IBL's method,
kriging), local median reference (annulus 30-55 um). A synthetic int16
recording of 384 channels (a Neuropixels 1.0 layout, two dead channels) is
written first; dspk runs ``dspk.recordings.filter_recording`` on the cpu runtime,
SpikeInterface runs its own steps and ``save(format="binary", n_jobs=...)``.
Both write int16. Needs ``spikeinterface`` and ``probeinterface`` (the
``test`` extra). Usage::

    python docs/scripts/ephys_chain.py --seconds 30 --n-jobs 2
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

FS = 30000.0
CHANNELS = 384


def neuropixels_positions() -> np.ndarray:
    """Contact positions of a Neuropixels 1.0 probe's first 384 channels, micrometres."""
    x = np.tile([43.0, 11.0, 59.0, 27.0], CHANNELS // 4)
    return np.column_stack([x, 20.0 * (np.arange(CHANNELS) // 2)])


def write_recording(path: Path, seconds: float, seed: int = 0) -> None:
    """int16 noise in microvolts (IBL's thresholds assume them) with a shared component,
    one second at a time; channels 40 and 200 dead."""
    rng = np.random.default_rng(seed)
    with open(path, "wb") as f:
        for _ in range(int(np.ceil(seconds))):
            common = rng.standard_normal((int(FS), 1), np.float32) * 16
            x = common + rng.standard_normal((int(FS), CHANNELS), np.float32) * 4
            x[:, [40, 200]] *= 0.01
            np.round(x).astype(np.int16).tofile(f)


def dspk_detection(source: Path, positions: np.ndarray) -> float:
    """The time of dspk's bad-channel detection alone (filter_recording runs it first)."""
    import dspk
    from dspk.recordings import Recording

    started = time.perf_counter()
    dspk.detect_bad_channels(Recording.open(source, CHANNELS, "int16").mapped(), FS, axis=0,
                             positions=positions, seed=0, runtime="cpu")
    return time.perf_counter() - started


def run_dspk(source: Path, target: Path, positions: np.ndarray) -> float:
    from dspk.recordings import filter_recording

    started = time.perf_counter()
    summary = filter_recording(source, target, FS, channels=CHANNELS, highpass=300, order=5,
                               phase_shift="neuropixels-1.0", bad_channels="interpolate",
                               reference="local", positions=positions, overwrite=True,
                               progress=False, runtime="cpu")
    print(f"dspk: bad channels {summary.bad_channels.indices.tolist()}")
    return time.perf_counter() - started


def run_spikeinterface(source: Path, target: Path, positions: np.ndarray,
                       n_jobs: int) -> tuple[float, float]:
    import probeinterface
    import spikeinterface.core as si
    import spikeinterface.preprocessing as spre

    from dspk.recordings import neuropixels_shifts

    started = time.perf_counter()
    recording = si.read_binary(source, sampling_frequency=FS, dtype="int16",
                               num_channels=CHANNELS, gain_to_uV=1.0, offset_to_uV=0.0)
    probe = probeinterface.Probe(ndim=2)
    probe.set_contacts(positions)
    probe.set_device_channel_indices(np.arange(CHANNELS))
    recording.set_probe(probe, in_place=True)
    recording.set_property("inter_sample_shift", neuropixels_shifts())
    recording = spre.phase_shift(recording)
    recording = spre.highpass_filter(recording, freq_min=300.0, filter_order=5)
    detecting = time.perf_counter()
    bad, _ = spre.detect_bad_channels(recording, seed=0)
    detection = time.perf_counter() - detecting
    print(f"spikeinterface: bad channels {recording.ids_to_indices(bad).tolist()}")
    recording = spre.interpolate_bad_channels(recording, bad)
    recording = spre.common_reference(recording, reference="local", operator="median",
                                      local_radius=(30, 55))
    recording.save(folder=target, format="binary", n_jobs=n_jobs, chunk_duration="1s",
                   progress_bar=False, overwrite=True, dtype="int16")
    return time.perf_counter() - started, detection


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    try:
        source = folder / "probe.bin"
        write_recording(source, args.seconds)
        seconds = source.stat().st_size / 2 / CHANNELS / FS
        positions = neuropixels_positions()
        ours = run_dspk(source, folder / "dspk.bin", positions)
        our_detection = dspk_detection(source, positions)
        theirs, their_detection = run_spikeinterface(source, folder / "si", positions,
                                                     args.n_jobs)
        print(f"\n{CHANNELS} channels x {seconds:.0f} s, int16 file to file; the bad-channel "
              "detection (a fixed cost, 100 random chunks) apart")
        print("| chain | wall s | of it detection s | rest, x real time |")
        print("| --- | --- | --- | --- |")
        for name, total, detection in (("dspk (cpu)", ours, our_detection),
                                       (f"SpikeInterface, n_jobs={args.n_jobs}", theirs,
                                        their_detection)):
            print(f"| {name} | {total:.1f} | {detection:.1f} | "
                  f"{seconds / (total - detection):.1f} |")
        print(f"dspk/SpikeInterface speed: {theirs / ours:.1f}x in all, "
              f"{(theirs - their_detection) / (ours - our_detection):.1f}x without detection")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
