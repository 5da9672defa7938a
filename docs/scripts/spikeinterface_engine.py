"""SpikeInterface's phase shift, band-pass and common median reference (then, with
--destripe and --whiten, its highpass_spatial_filter and whiten), saved from an int16
recording with n_jobs=2 (or --n-jobs): SpikeInterface's own steps against
dspk.spikeinterface's, in one run.

    python docs/scripts/spikeinterface_engine.py [--seconds 10] [--channels 384] [--n-jobs 2]
        [--destripe] [--whiten]
"""

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import spikeinterface.core as si
import spikeinterface.preprocessing as spre

from dspk import spikeinterface as dspk_si


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--channels", type=int, default=384)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--destripe", action="store_true", help="add highpass_spatial_filter")
    parser.add_argument("--whiten", action="store_true", help="add whiten (float32 output)")
    args = parser.parse_args()
    fs = 30000.0
    rng = np.random.default_rng(0)
    traces = (rng.standard_normal((int(args.seconds * fs), args.channels)) * 30).astype(np.int16)
    recording = si.NumpyRecording(traces, sampling_frequency=fs)
    recording.set_property("inter_sample_shift", np.tile(np.arange(12) / 13, 32)[:args.channels])
    # Neuropixels 1.0's staggered columns, 20 um between rows
    column = np.tile([16.0, 48.0, 0.0, 32.0], args.channels)[:args.channels]
    recording.set_dummy_probe_from_locations(np.c_[column, 20.0 * (np.arange(args.channels) // 2)])
    times = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, steps in (("spikeinterface", spre), ("dspk.spikeinterface", dspk_si)):
            chain = steps.common_reference(steps.bandpass_filter(
                steps.phase_shift(recording), freq_min=300.0, freq_max=6000.0))
            if args.destripe:
                chain = steps.highpass_spatial_filter(chain)
            if args.whiten:
                chain = steps.whiten(chain, dtype="float32", seed=0)
            start = time.perf_counter()
            chain.save(folder=Path(folder) / name, n_jobs=args.n_jobs, chunk_duration="1s",
                       progress_bar=False)
            times[name] = time.perf_counter() - start
    for name, seconds in times.items():
        print(f"{name:20s} {seconds:6.2f} s  ({args.seconds / seconds:5.2f}x real time)")
    ratio = times["spikeinterface"] / times["dspk.spikeinterface"]
    print(f"dspk engine / spikeinterface: {ratio:.2f}x")


if __name__ == "__main__":
    main()
