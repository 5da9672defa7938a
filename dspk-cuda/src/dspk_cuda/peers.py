"""The GPU bench: dspk's cuda runtime beside cupyx.scipy.signal, device-resident, event-timed.

``python -m dspk_cuda.peers --shape 384x524288 --json out.json`` times each
case on the same device array (median of device-event times after a
warm-up) and the device copy bandwidth of an array of that size, and
prints a Markdown table. ``dspk bench`` needs a hook to use these peers:
a runtime-provided list of (name, dspk call, peer call) on native arrays.
"""

from __future__ import annotations

import argparse
import json

import cupy as cp
import numpy as np
from cupyx.scipy import signal as csignal
from scipy import signal

import dspk
from dspk_cuda import device

FS = 30000.0


def cases():
    """(name, dspk call, cupyx/cupy peer call), each taking a channels x samples device array."""
    sos = signal.butter(3, [300, 6000], "bandpass", fs=FS, output="sos")
    b, a = signal.butter(3, [300 / (FS / 2), 6000 / (FS / 2)], "bandpass")
    taps = signal.firwin(129, [300, 6000], pass_zero=False, fs=FS)[None, :]
    d_sos, d_b, d_a, d_taps = (cp.asarray(v) for v in (sos, b, a, taps))
    return [
        ("sosfilt", lambda x: dspk.sosfilt(sos, x, runtime="cuda"),
         lambda x: csignal.sosfilt(d_sos.astype(x.dtype), x)),
        ("sosfiltfilt", lambda x: dspk.sosfiltfilt(sos, x, runtime="cuda"),
         lambda x: csignal.sosfiltfilt(d_sos.astype(x.dtype), x)),
        ("lfilter", lambda x: dspk.lfilter(b, a, x, runtime="cuda"),
         lambda x: csignal.lfilter(d_b, d_a, x)),
        ("filtfilt", lambda x: dspk.filtfilt(b, a, x, runtime="cuda"),
         lambda x: csignal.filtfilt(d_b, d_a, x)),
        ("convolve-129", lambda x: dspk.oaconvolve(x, taps, axes=-1, runtime="cuda"),
         lambda x: csignal.oaconvolve(x, d_taps.astype(x.dtype), axes=-1)),
        ("welch", lambda x: dspk.welch(x, fs=FS, nperseg=1024, runtime="cuda"),
         lambda x: csignal.welch(x, fs=FS, nperseg=1024)),
        ("resample_poly-1-3", lambda x: dspk.resample_poly(x, 1, 3, axis=-1, runtime="cuda"),
         lambda x: csignal.resample_poly(x, 1, 3, axis=-1)),
        ("rfft", lambda x: dspk.rfft(x, runtime="cuda"), lambda x: cp.fft.rfft(x)),
        ("common_reference-median", lambda x: dspk.common_reference(x, runtime="cuda"),
         lambda x: x - cp.median(x, axis=0)),
    ]


def run(channels: int, samples: int, dtype: str, repeat: int) -> dict:
    """Time every case and the copy floor; a JSON-ready dict of rows."""
    x = cp.asarray(np.random.default_rng(0).standard_normal((channels, samples)).astype(dtype))
    copy_s = device.median_seconds(cp, lambda: x.copy(), repeat)
    rows = []
    for name, ours, peer in cases():
        try:
            ours_s = device.median_seconds(cp, lambda: ours(x), repeat)
            out = ours(x)
            moved = x.nbytes + sum(o.nbytes for o in (out if isinstance(out, tuple) else (out,)))
            floor_s = copy_s * moved / (2 * x.nbytes)
            try:
                peer_s = device.median_seconds(cp, lambda: peer(x), repeat)
            except Exception as error:  # a peer that cannot run this case
                peer_s, name = float("nan"), f"{name} (peer failed: {type(error).__name__})"
            rows.append({"op": name, "dspk_ms": ours_s * 1e3, "peer_ms": peer_s * 1e3,
                         "ratio": peer_s / ours_s, "of_floor": floor_s / ours_s})
        except Exception as error:
            rows.append({"op": name, "error": f"{type(error).__name__}: {error}"})
    return {"shape": [channels, samples], "dtype": dtype,
            "copy_gb_per_s": 2 * x.nbytes / copy_s / 1e9, "rows": rows}


def table(result: dict) -> str:
    """The rows as a Markdown table."""
    lines = ["| op | dspk ms | cupyx ms | ratio | of memory floor |", "| --- | ---: | ---: | ---: | ---: |"]
    for r in result["rows"]:
        if "error" in r:
            lines.append(f"| {r['op']} | error: {r['error'][:80]} | | | |")
        else:
            lines.append(f"| {r['op']} | {r['dspk_ms']:.3f} | {r['peer_ms']:.3f} | "
                         f"{r['ratio']:.2f}x | {r['of_floor']:.0%} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", default="384x524288")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    channels, samples = (int(v) for v in args.shape.split("x"))
    result = run(channels, samples, args.dtype, args.repeat)
    if args.json:
        with open(args.json, "w") as file:
            json.dump(result, file, indent=1)
    print(table(result))


if __name__ == "__main__":
    main()
