"""docs/mne.md's recipe against MNE's own calls, in one run: a zero-phase band-pass
(MNE: raw.filter(method="iir"), dspk: sosfiltfilt in float32) and a polyphase
resampling to a quarter of the rate.

    python docs/scripts/mne_recipe.py [--channels 64] [--minutes 10]
"""

import argparse
import time

import mne
import numpy as np
import scipy.signal

import dspk


def timed(function) -> float:
    function()  # the first call compiles and tunes
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=64)
    parser.add_argument("--minutes", type=float, default=10.0)
    args = parser.parse_args()
    mne.set_log_level("ERROR")
    fs = 1000.0
    data = np.random.default_rng(0).standard_normal((args.channels, int(args.minutes * 60 * fs)))
    raw = mne.io.RawArray(data * 1e-5, mne.create_info(args.channels, fs, "eeg"))
    sos = scipy.signal.butter(4, [1.0, 40.0], "bandpass", fs=fs, output="sos")
    rows = {
        "band-pass": (
            lambda: raw.copy().filter(1.0, 40.0, method="iir",
                                      iir_params=dict(order=4, ftype="butter", output="sos")),
            lambda: raw.copy().apply_function(
                lambda x: dspk.sosfiltfilt(sos, x, dtype=np.float32), channel_wise=False)),
        "resample 1/4": (
            lambda: raw.copy().resample(fs / 4, method="polyphase"),
            lambda: mne.io.RawArray(
                dspk.resample_poly(raw.get_data(), 1, 4, axis=-1, padtype="reflect"),
                mne.create_info(raw.ch_names, fs / 4, raw.get_channel_types()))),
    }
    print("| step | MNE s | dspk s | ratio |")
    print("| --- | ---: | ---: | ---: |")
    for name, (by_mne, by_dspk) in rows.items():
        t_mne, t_dspk = timed(by_mne), timed(by_dspk)
        print(f"| {name} | {t_mne:.3f} | {t_dspk:.3f} | {t_mne / t_dspk:.2f}x |")


if __name__ == "__main__":
    main()
