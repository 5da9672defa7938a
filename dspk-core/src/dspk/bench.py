"""``dspk bench``: dspk beside the library a user would otherwise call, in one process.

For each operation, shape and dtype, dspk and its peer (scipy.signal or
scipy.fft on the CPU) run on the same data, interleaved, after a warm-up; the
medians are reported with their ratio (peer time / dspk time, above 1 means
dspk is faster) and dspk's achieved bandwidth (bytes of input and output per
second) as a fraction of the host's copy bandwidth, measured in the same
run on an array of the same size.

On a GPU runtime the input is device-resident (``dspk.asarray``), results
stay on the device, and each timed call ends when the device is done
(:meth:`dspk.plugin.Backend.wait`): the figures are the kernels' own, without
host transfers.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import fft, signal

import dspk
from dspk.registry import registry

FS = 30000.0


@dataclass(frozen=True)
class Case:
    """One operation to compare: how dspk and the CPU peer call it."""

    name: str
    ours: Callable[[Any, str], Any]  # (x, runtime) -> y, x channels x samples
    peer: Callable[[np.ndarray], Any]
    layout: str = "channel-major"


def _bandpass():
    return signal.butter(3, [300, 6000], "bandpass", fs=FS, output="sos")


def _segment(x: np.ndarray) -> int:
    """welch's segment: 1024 samples, or the whole signal when it is shorter."""
    return min(1024, x.shape[-1])


def _cases() -> list[Case]:
    import dspk

    sos = _bandpass()
    b, a = signal.butter(3, [300 / (FS / 2), 6000 / (FS / 2)], "bandpass")
    taps = signal.firwin(129, [300, 6000], pass_zero=False, fs=FS)[None, :]
    return [
        Case("sosfilt", lambda x, r: dspk.sosfilt(sos, x, runtime=r),
             lambda x: signal.sosfilt(sos, x)),
        Case("sosfilt-axis0", lambda x, r: dspk.sosfilt(sos, x, axis=0, runtime=r),
             lambda x: signal.sosfilt(sos, x, axis=0), layout="sample-major"),
        Case("sosfiltfilt", lambda x, r: dspk.sosfiltfilt(sos, x, runtime=r),
             lambda x: signal.sosfiltfilt(sos, x)),
        Case("lfilter", lambda x, r: dspk.lfilter(b, a, x, runtime=r),
             lambda x: signal.lfilter(b, a, x)),
        Case("filtfilt", lambda x, r: dspk.filtfilt(b, a, x, runtime=r),
             lambda x: signal.filtfilt(b, a, x)),
        Case("oaconvolve-129", lambda x, r: dspk.oaconvolve(x, taps, axes=-1, runtime=r),
             lambda x: signal.oaconvolve(x, taps, axes=-1)),
        Case("welch", lambda x, r: dspk.welch(x, fs=FS, nperseg=_segment(x), runtime=r),
             lambda x: signal.welch(x, fs=FS, nperseg=_segment(x))),
        Case("hilbert", lambda x, r: dspk.hilbert(x, runtime=r), signal.hilbert),
        Case("resample_poly-1-3", lambda x, r: dspk.resample_poly(x, 1, 3, axis=-1, runtime=r),
             lambda x: signal.resample_poly(x, 1, 3, axis=-1)),
        Case("common_reference-median", lambda x, r: dspk.common_reference(x, runtime=r),
             lambda x: x - np.median(x, axis=0)),
        Case("rfft-vs-1-worker", lambda x, r: dspk.rfft(x, runtime=r),
             lambda x: fft.rfft(x, workers=1)),
        Case("rfft-vs-all-workers", lambda x, r: dspk.rfft(x, runtime=r),
             lambda x: fft.rfft(x, workers=-1)),
    ]


@dataclass
class Row:
    """One measured comparison."""

    op: str
    runtime: str
    channels: int
    samples: int
    dtype: str
    dspk_ms: float
    peer_ms: float
    ratio: float
    gb_per_s: float
    copy_fraction: float


def _timed(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def copy_bandwidth(nbytes: int, repeat: int = 5) -> float:
    """Bytes per second of a host copy (read plus write) of ``nbytes``."""
    source = np.ones(nbytes // 4, np.float32)
    target = np.empty_like(source)
    seconds = statistics.median(_timed(lambda: np.copyto(target, source)) for _ in range(repeat))
    return 2 * source.nbytes / seconds


def measure(case: Case, runtime: str, channels: int, samples: int, dtype: str,
            repeat: int, bandwidth: float) -> Row:
    """Time ``case`` and its peer, interleaved, after a warm-up of each."""
    x = np.random.default_rng(0).standard_normal((channels, samples)).astype(dtype)
    if case.layout == "sample-major":
        x = np.ascontiguousarray(x.T)
    backend = registry().open(runtime)
    ours_x = dspk.asarray(x, runtime=runtime) if registry().spec(runtime).is_gpu else x

    def ours_call():
        result = case.ours(ours_x, runtime)
        backend.wait()
        return result

    y = ours_call()
    case.peer(x)
    ours, theirs = [], []
    for _ in range(repeat):
        ours.append(_timed(ours_call))
        theirs.append(_timed(lambda: case.peer(x)))
    ours_s, theirs_s = statistics.median(ours), statistics.median(theirs)
    outputs = y if isinstance(y, tuple) else (y,)
    moved = x.nbytes + sum(dspk.to_numpy(out).nbytes for out in outputs)
    return Row(case.name, runtime, channels, samples, dtype, ours_s * 1e3, theirs_s * 1e3,
               theirs_s / ours_s, moved / ours_s / 1e9, moved / ours_s / bandwidth)


def table(rows: list[Row]) -> str:
    """The rows as a Markdown table."""
    lines = ["| op | runtime | shape | dtype | dspk ms | peer ms | ratio | GB/s | of copy |",
             "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r.op} | {r.runtime} | {r.channels}x{r.samples} | {r.dtype} | "
                     f"{r.dspk_ms:.1f} | {r.peer_ms:.1f} | {r.ratio:.2f}x | "
                     f"{r.gb_per_s:.2f} | {r.copy_fraction:.0%} |")
    return "\n".join(lines)


def case_names() -> list[str]:
    """The operations ``dspk bench`` knows."""
    return [case.name for case in _cases()]


def plot(rows: list[Row], path: str) -> None:
    """Draw the ratio of every operation and size to a PNG (needs matplotlib)."""
    from dspk.pictures import pyplot as load_pyplot

    pyplot = load_pyplot()
    ops = list(dict.fromkeys(r.op for r in rows))
    sizes = list(dict.fromkeys((r.runtime, r.channels, r.samples, r.dtype) for r in rows))
    figure, axes = pyplot.subplots(figsize=(max(6, len(ops) * 1.2), 4))
    width = 0.8 / len(sizes)
    for i, size in enumerate(sizes):
        ratios = [next((r.ratio for r in rows if (r.runtime, r.channels, r.samples, r.dtype)
                        == size and r.op == op), np.nan) for op in ops]
        axes.bar(np.arange(len(ops)) + i * width, ratios, width,
                 label=f"{size[0]} {size[1]}x{size[2]} {size[3]}")
    axes.axhline(1.0, color="black", linewidth=0.8)
    axes.set_xticks(np.arange(len(ops)) + 0.4 - width / 2, ops, rotation=30, ha="right")
    axes.set_ylabel("peer time / dspk time")
    axes.set_title("dspk beside scipy (above 1: dspk is faster)")
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def run(ops: list[str] | None, runtimes: list[str], shapes: list[tuple[int, int]],
        dtypes: list[str], repeat: int, output: str | None, progress: bool = True) -> list[Row]:
    """Benchmark every selected case; print the table as rows arrive; write JSON."""
    cases = {case.name: case for case in _cases()}
    unknown = sorted(set(ops or []) - set(cases))
    if unknown:
        raise ValueError(f"--ops names unknown operations {unknown}; known: {sorted(cases)}")
    selected = [cases[name] for name in (ops or cases)]
    bandwidths = {}
    rows = []
    if progress:
        print("\n".join(table([]).splitlines()), flush=True)
    for channels, samples in shapes:
        for dtype in dtypes:
            nbytes = channels * samples * np.dtype(dtype).itemsize
            if nbytes not in bandwidths:
                bandwidths[nbytes] = copy_bandwidth(nbytes)
            for runtime in runtimes:
                if not registry().open(runtime).computes(np.dtype(dtype)):
                    if progress:
                        print(f"({runtime} does not compute {dtype}: no rows)", flush=True)
                    continue
                for case in selected:
                    row = measure(case, runtime, channels, samples, dtype, repeat,
                                  bandwidths[nbytes])
                    rows.append(row)
                    if progress:
                        print(table([row]).splitlines()[-1], flush=True)
    if output:
        with open(output, "w") as file:
            json.dump({"rows": [asdict(r) for r in rows],
                       "copy_bandwidth_gb_per_s": {str(k): v / 1e9
                                                   for k, v in bandwidths.items()}},
                      file, indent=1)
    return rows
