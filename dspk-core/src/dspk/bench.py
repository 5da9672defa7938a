"""``dspk bench``: dspk beside the library a user would otherwise call, in one process.

For each operation, shape and dtype, dspk and its *peer* run on the same
data, interleaved, after a warm-up (in which dspk's kernels are built and its
choice among them tuned: the table shows calls after the first; ``dspk demo``
times a first call); the medians are reported with the peer's label, their
ratio (peer time / dspk time, above 1 means dspk is faster) and dspk's achieved
bandwidth (bytes of input and output per second) as a fraction of a memory copy
of an array of the same size, measured in the same run.

The peer is the runtime's own when its backend supplies one for the case
(:meth:`dspk.plugin.Backend.bench_peers`, such as cupyx.scipy.signal for
cuda), run on the same native array as dspk; otherwise it is scipy.signal
or scipy.fft on the host array, labelled ``"scipy"``. The copy is the
runtime's device copy when its backend supplies one
(:meth:`dspk.plugin.Backend.bench_copy`), otherwise a host copy.

On a GPU runtime the input is device-resident (``dspk.asarray``), results
stay on the device, and each timed call, dspk's, a runtime peer's or a
device copy, ends when the device is done (:meth:`dspk.plugin.Backend.wait`):
the figures are the kernels' own, without host transfers.
"""

from __future__ import annotations

import json
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

import numpy as np
from scipy import fft, signal

import dspk
from dspk.plugin import OperationNotImplemented, waiting_for_kernels
from dspk.registry import registry

FS = 30000.0
#: The autotune grid's shapes, benched by default.
GRID_SHAPES = [(c, n) for c in (32, 64, 128, 384) for n in (8192, 32768, 131072, 524288)]
#: Two of them, for ``--quick``.
QUICK_SHAPES = [(32, 8192), (384, 32768)]
#: Small problems, benched in both dtypes with either: one channel, a trial of a few
#: channels, 1 ms of 8 and of 384 channels at 30 kHz (a real-time loop's chunk), and
#: 32 channels of 1024 samples.
SMALL_SHAPES = [(1, 1000), (4, 256), (8, 30), (384, 30), (32, 1024)]
#: Seconds of calls each timing of a case spans at least: a call shorter than this is
#: timed in a loop of calls, so that microsecond calls are timed as precisely as long ones.
BATCH_SECONDS = 2e-3


@dataclass(frozen=True)
class Case:
    """One operation to compare: how dspk and the CPU peer (scipy) call it."""

    name: str
    ours: Callable[[Any, str], Any]  # (x, runtime) -> y, x channels x samples
    peer: Callable[[np.ndarray], Any]
    layout: str = "channel-major"


class Design(NamedTuple):
    """The coefficients of the bench's filter cases, float64 NumPy arrays.

    A runtime's peers (:meth:`dspk.plugin.Backend.bench_peers`) use these so
    that they compute what the cases compute.

    Attributes
    ----------
    sos : ndarray
        Butterworth band-pass, ``butter(3, [300, 6000], fs=FS)``, as three
        second-order sections (sosfilt, sosfilt-axis0, sosfiltfilt).
    b, a : ndarray
        The same filter as transfer-function coefficients (lfilter, filtfilt).
    taps : ndarray
        A 129-tap band-pass FIR, shape ``(1, 129)`` (oaconvolve-129).
    """

    sos: np.ndarray
    b: np.ndarray
    a: np.ndarray
    taps: np.ndarray


def design() -> Design:
    """The filters of the bench's cases.

    Examples
    --------
    >>> design().sos.shape, design().taps.shape
    ((3, 6), (1, 129))
    """
    sos = signal.butter(3, [300, 6000], "bandpass", fs=FS, output="sos")
    b, a = signal.butter(3, [300 / (FS / 2), 6000 / (FS / 2)], "bandpass")
    taps = signal.firwin(129, [300, 6000], pass_zero=False, fs=FS)[None, :]
    return Design(sos, b, a, taps)


def segment(x: Any) -> int:
    """welch's segment in the bench: 1024 samples, or the whole signal when it is shorter.

    Examples
    --------
    >>> segment(np.zeros((2, 300)))
    300
    """
    return min(1024, x.shape[-1])


def grid(quick: bool = False, dtypes: list[str] | None = None) -> list[tuple[int, int, str]]:
    """The sizes ``dspk bench`` runs by default: (channels, samples, dtype).

    The autotune grid (:data:`QUICK_SHAPES` with ``quick``) in ``dtypes``
    (float32 by default), then :data:`SMALL_SHAPES` in ``dtypes`` (both by default).

    Examples
    --------
    >>> grid(quick=True)[:3]
    [(32, 8192, 'float32'), (384, 32768, 'float32'), (1, 1000, 'float32')]
    """
    large = QUICK_SHAPES if quick else GRID_SHAPES
    return ([(c, n, dtype) for c, n in large for dtype in dtypes or ["float32"]]
            + [(c, n, dtype) for c, n in SMALL_SHAPES
               for dtype in dtypes or ["float32", "float64"]])


def _stream_case(sos: np.ndarray) -> Case:
    """One chunk through :class:`dspk.streaming.SosfiltStream`, beside scipy's sosfilt with
    its state carried from the previous chunk: a real-time loop's step."""
    streams, states = {}, {}

    def ours(x, runtime):
        key = (x.shape, str(x.dtype), runtime)
        if key not in streams:
            from dspk.streaming import SosfiltStream

            streams[key] = SosfiltStream(sos, runtime=runtime)
        return streams[key].push(x)

    def peer(x):
        key = (x.shape, str(x.dtype))
        y, states[key] = signal.sosfilt(sos, x, zi=states.get(
            key, np.zeros((len(sos), x.shape[0], 2), x.dtype)))
        return y

    return Case("SosfiltStream.push", ours, peer)


def _complex_case(sos: np.ndarray) -> Case:
    """sosfilt of a complex signal (the bench's signal plus ``i`` times it reversed in
    time, made once per array kind and shape, untimed). Its GB/s count the real signal's
    bytes in and the complex result's out."""
    import dspk

    made = {}

    def complex_of(x, runtime=None):  # made on the host, then as the runtime's array
        key = (type(x), x.shape, str(x.dtype))
        if key not in made:
            host = dspk.to_numpy(x)
            both = (host + 1j * host[:, ::-1]).astype(np.result_type(host.dtype, np.complex64))
            made[key] = both if type(x) is np.ndarray else dspk.asarray(both, runtime=runtime)
        return made[key]

    return Case("sosfilt-complex", lambda x, r: dspk.sosfilt(sos, complex_of(x, r), runtime=r),
                lambda x: signal.sosfilt(sos, complex_of(x)))


def _cases() -> list[Case]:
    import dspk

    sos, b, a, taps = design()
    return [
        Case("sosfilt", lambda x, r: dspk.sosfilt(sos, x, runtime=r),
             lambda x: signal.sosfilt(sos, x)),
        Case("sosfilt-axis0", lambda x, r: dspk.sosfilt(sos, x, axis=0, runtime=r),
             lambda x: signal.sosfilt(sos, x, axis=0), layout="sample-major"),
        _complex_case(sos),
        Case("sosfiltfilt", lambda x, r: dspk.sosfiltfilt(sos, x, runtime=r),
             lambda x: signal.sosfiltfilt(sos, x)),
        Case("lfilter", lambda x, r: dspk.lfilter(b, a, x, runtime=r),
             lambda x: signal.lfilter(b, a, x)),
        Case("filtfilt", lambda x, r: dspk.filtfilt(b, a, x, runtime=r),
             lambda x: signal.filtfilt(b, a, x)),
        Case("oaconvolve-129", lambda x, r: dspk.oaconvolve(x, taps, axes=-1, runtime=r),
             lambda x: signal.oaconvolve(x, taps, axes=-1)),
        Case("welch", lambda x, r: dspk.welch(x, fs=FS, nperseg=segment(x), runtime=r),
             lambda x: signal.welch(x, fs=FS, nperseg=segment(x))),
        Case("hilbert", lambda x, r: dspk.hilbert(x, runtime=r), signal.hilbert),
        Case("resample_poly-1-3", lambda x, r: dspk.resample_poly(x, 1, 3, axis=-1, runtime=r),
             lambda x: signal.resample_poly(x, 1, 3, axis=-1)),
        Case("common_reference-median", lambda x, r: dspk.common_reference(x, runtime=r),
             lambda x: x - np.median(x, axis=0)),
        Case("rfft-vs-1-worker", lambda x, r: dspk.rfft(x, runtime=r),
             lambda x: fft.rfft(x, workers=1)),
        Case("rfft-vs-all-workers", lambda x, r: dspk.rfft(x, runtime=r),
             lambda x: fft.rfft(x, workers=-1)),
        _stream_case(sos),
    ]


@dataclass
class Row:
    """One measured comparison; ``peer`` labels the peer timed, such as "scipy" or "cupyx"."""

    op: str
    runtime: str
    channels: int
    samples: int
    dtype: str
    peer: str
    dspk_ms: float
    peer_ms: float
    ratio: float
    gb_per_s: float
    copy_fraction: float


def _timed(call: Callable[[], Any], calls: int = 1) -> float:
    """Seconds a call takes: the mean of ``calls`` calls in a loop."""
    start = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - start) / calls


def _batch(call: Callable[[], Any]) -> int:
    """How many calls in a loop span :data:`BATCH_SECONDS`, from one call timed now."""
    return max(1, min(10000, int(BATCH_SECONDS / max(_timed(call), 1e-9))))


def copy_bandwidth(nbytes: int, repeat: int = 5) -> float:
    """Bytes per second of a host copy (read plus write) of ``nbytes``."""
    source = np.ones(nbytes // 4, np.float32)
    target = np.empty_like(source)
    seconds = statistics.median(_timed(lambda: np.copyto(target, source)) for _ in range(repeat))
    return 2 * source.nbytes / seconds


def device_copy_bandwidth(backend: Any, x: Any, nbytes: int, repeat: int = 5) -> float | None:
    """Bytes per second of the runtime's device copy (read plus write) of native ``x``.

    Parameters
    ----------
    backend : dspk.plugin.Backend
        The runtime's backend.
    x : native array
        The array to copy, ``nbytes`` bytes.
    nbytes : int
        Its size in bytes.
    repeat : int
        Timed copies, after one warm-up; the median counts.

    Returns
    -------
    float or None
        The bandwidth, or None when the backend has no device copy
        (:meth:`dspk.plugin.Backend.bench_copy` returns None).
    """
    if backend.bench_copy(x) is None:
        return None
    backend.wait()

    def copy():
        backend.bench_copy(x)
        backend.wait()

    return 2 * nbytes / statistics.median(_timed(copy) for _ in range(repeat))


def _peer(case: Case, backend: Any, x: np.ndarray, native: Any) -> tuple[str, Callable[[], Any]]:
    """The peer's label and a call of it: the runtime's own on ``native``, else scipy on ``x``."""
    supplied = backend.bench_peers().get(case.name)
    if supplied is None:
        return "scipy", lambda: case.peer(x)
    label, peer = supplied

    def call():
        result = peer(native)
        backend.wait()
        return result

    return label, call


def measure(case: Case, runtime: str, channels: int, samples: int, dtype: str,
            repeat: int, bandwidth: float, copies: dict | None = None) -> Row:
    """Time ``case`` and its peer, interleaved, after a warm-up of each.

    A call shorter than :data:`BATCH_SECONDS` is timed in a loop of calls that
    spans it (the count set by one more call after the warm-up), and the
    loop's mean per call counts as one run.

    Parameters
    ----------
    case : Case
        The operation.
    runtime : str
        The runtime dspk runs on; its backend may supply the peer
        (:meth:`dspk.plugin.Backend.bench_peers`) and the copy
        (:meth:`dspk.plugin.Backend.bench_copy`).
    channels, samples : int
        The input's shape.
    dtype : str
        The input's dtype.
    repeat : int
        Timed runs of each; the medians count.
    bandwidth : float
        The host's copy bandwidth, bytes per second: the floor unless the
        runtime has a device copy.
    copies : dict, optional
        Device copy bandwidths (or None) by ``(runtime, nbytes)``, filled
        here when missing, so that a run measures each once.

    Returns
    -------
    Row
        The medians, the peer's label, the ratio and the bandwidths. A
        runtime peer that fails gets NaN times and its label says why.
    """
    x = np.random.default_rng(0).standard_normal((channels, samples)).astype(dtype)
    if case.layout == "sample-major":
        x = np.ascontiguousarray(x.T)
    backend = registry().open(runtime)
    ours_x = dspk.asarray(x, runtime=runtime) if registry().spec(runtime).is_gpu else x

    def ours_call():
        result = case.ours(ours_x, runtime)
        backend.wait()
        return result

    copies = {} if copies is None else copies
    if (runtime, x.nbytes) not in copies:
        copies[runtime, x.nbytes] = device_copy_bandwidth(backend, ours_x, x.nbytes)
    floor = copies[runtime, x.nbytes] or bandwidth
    with waiting_for_kernels():  # the warm-up tunes with every kernel built: none is timed
        y = ours_call()          # while a compiler shares the cores
    label, peer_call = _peer(case, backend, x, ours_x)
    try:
        peer_call()
    except Exception as error:  # a runtime's peer that cannot run this case
        if label == "scipy":
            raise
        label, peer_call = f"{label} (failed: {type(error).__name__})", None
    ours_batch, peer_batch = _batch(ours_call), _batch(peer_call) if peer_call else 1
    ours, theirs = [], []
    for _ in range(repeat):
        ours.append(_timed(ours_call, ours_batch))
        theirs.append(_timed(peer_call, peer_batch) if peer_call else math.nan)
    ours_s, theirs_s = statistics.median(ours), statistics.median(theirs)
    outputs = y if isinstance(y, tuple) else (y,)
    moved = x.nbytes + sum(dspk.to_numpy(out).nbytes for out in outputs)
    return Row(case.name, runtime, channels, samples, dtype, label, ours_s * 1e3,
               theirs_s * 1e3, theirs_s / ours_s, moved / ours_s / 1e9, moved / ours_s / floor)


def _ms(value: float) -> str:
    """Milliseconds to one decimal, or three significant digits below 10.

    Examples
    --------
    >>> _ms(144.53), _ms(1.4712), _ms(0.014512)
    ('144.5', '1.47', '0.0145')
    """
    return f"{value:.1f}" if value >= 10 else f"{value:.3g}"


def table(rows: list[Row]) -> str:
    """The rows as a Markdown table."""
    lines = ["| op | runtime | shape | dtype | peer | dspk ms | peer ms | ratio | GB/s | of copy |",
             "| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r.op} | {r.runtime} | {r.channels}x{r.samples} | {r.dtype} | "
                     f"{r.peer} | {_ms(r.dspk_ms)} | {_ms(r.peer_ms)} | {r.ratio:.2f}x | "
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
    axes.set_title("dspk beside its peers (above 1: dspk is faster)")
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def run(ops: list[str] | None, runtimes: list[str], sizes: list[tuple[int, int, str]],
        repeat: int, output: str | None, progress: bool = True) -> list[Row]:
    """Benchmark every selected case at every (channels, samples, dtype) of ``sizes``;
    print the table as rows arrive; write JSON.

    The JSON holds the rows (a failed runtime peer's times as null), the
    host copy bandwidth by array size in bytes and, for runtimes with a
    device copy, the device copy bandwidth by runtime and size.
    """
    cases = {case.name: case for case in _cases()}
    unknown = sorted(set(ops or []) - set(cases))
    if unknown:
        raise ValueError(f"--ops names unknown operations {unknown}; known: {sorted(cases)}")
    selected = [cases[name] for name in (ops or cases)]
    bandwidths = {}
    copies: dict[tuple[str, int], float | None] = {}
    rows = []
    if progress:
        print("\n".join(table([]).splitlines()), flush=True)
    for channels, samples, dtype in sizes:
        nbytes = channels * samples * np.dtype(dtype).itemsize
        if nbytes not in bandwidths:
            bandwidths[nbytes] = copy_bandwidth(nbytes)
        for runtime in runtimes:
            if not registry().open(runtime).computes(np.dtype(dtype)):
                if progress:
                    print(f"({runtime} does not compute {dtype}: no rows)", flush=True)
                continue
            for case in selected:
                try:
                    row = measure(case, runtime, channels, samples, dtype, repeat,
                                  bandwidths[nbytes], copies)
                except OperationNotImplemented as error:  # a partial runtime
                    if progress:
                        print(f"({error}: no {case.name} row)", flush=True)
                    continue
                rows.append(row)
                if progress:
                    print(table([row]).splitlines()[-1], flush=True)
    if output:
        result = {"rows": [{k: None if isinstance(v, float) and math.isnan(v) else v
                            for k, v in asdict(r).items()} for r in rows],
                  "copy_bandwidth_gb_per_s": {str(k): v / 1e9 for k, v in bandwidths.items()}}
        device = {}
        for (name, size), value in copies.items():
            if value is not None:
                device.setdefault(name, {})[str(size)] = value / 1e9
        if device:
            result["device_copy_bandwidth_gb_per_s"] = device
        with open(output, "w") as file:
            json.dump(result, file, indent=1)
    return rows
