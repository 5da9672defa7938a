"""The ``dspk`` command line: ``info``, ``autotune``, ``bench``, ``demo`` and ``filter``."""

from __future__ import annotations

import argparse
import ctypes
import sys
import time

import numpy as np


def _info(args: argparse.Namespace) -> int:
    from dspk import runtime
    from dspk.registry import registry
    from dspk.tuning.store import cache_root

    rows = runtime.info()
    width = max([len(r["name"]) for r in rows] + [7])
    print(f"{'runtime':<{width}}  priority  gpu  device or reason")
    for row in rows:
        what = row["device"] if row["device"] is not None else f"unavailable: {row['reason']}"
        print(f"{row['name']:<{width}}  {row['priority']:>8}  {'yes' if row['is_gpu'] else 'no':>3}"
              f"  {what}")
    for problem in registry().problems:
        print(f"skipped plugin: {problem}")
    usable = [row["name"] for row in rows if row["device"] is not None]
    print(f"current runtime: {runtime.current() if usable else 'none'}")
    print(f"tuning cache: {cache_root()}")
    return 0


def _autotune(args: argparse.Namespace) -> int:
    from dspk import runtime

    for name, result in runtime.autotune(args.runtime, args.channels, args.samples).items():
        print(f"{name}: {result['sizes']} sizes tuned in {result['seconds']:.1f} s")
    return 0


def _shape(text: str) -> tuple[int, int]:
    try:
        channels, samples = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not CHANNELSxSAMPLES, such as 384x32768") from None
    if channels < 1 or samples < 1:
        raise argparse.ArgumentTypeError(f"{text!r} needs positive sizes")
    return channels, samples


def _bench(args: argparse.Namespace) -> int:
    from dspk import bench, runtime

    runtimes = args.runtime or [runtime.current()]
    for name in runtimes:
        runtime.validate_name(name)
    if args.shape:
        sizes = [(c, n, dtype) for c, n in args.shape for dtype in args.dtype or ["float32"]]
    else:
        sizes = bench.grid(args.quick, args.dtype)
    rows = bench.run(args.ops, runtimes, sizes, 3 if args.quick else args.repeat, args.json)
    if args.plot:
        bench.plot(rows, args.plot)
        print(f"plot: {args.plot}")
    if args.json:
        print(f"results: {args.json}")
    return 0


def _best_of(repeats: int, call) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def synthetic_recording(channels: int, samples: int, fs: float, seed: int = 0) -> np.ndarray:
    """A float32 recording: slow drift, line noise, white noise and spikes.

    Examples
    --------
    >>> synthetic_recording(4, 100, 30000.0).shape
    (4, 100)
    """
    rng = np.random.default_rng(seed)
    t = np.arange(samples) / fs
    drift = np.sin(2 * np.pi * 0.5 * t + rng.uniform(0, 2 * np.pi, (channels, 1)))
    line = 0.3 * np.sin(2 * np.pi * 50.0 * t)
    x = (50 * drift + 20 * line + 5 * rng.standard_normal((channels, samples))).astype(np.float32)
    spikes = rng.integers(0, samples, size=channels * max(samples // 3000, 1))
    x[rng.integers(0, channels, size=spikes.size), spikes] -= 60
    return x


def _demo(args: argparse.Namespace) -> int:
    from scipy import signal

    import dspk
    from dspk.plugin import waiting_for_kernels

    fs = 30000.0
    samples = int(args.seconds * fs)
    name = args.runtime or dspk.runtime.current()
    device = next(r["device"] for r in dspk.runtime.info() if r["name"] == name)
    print(f"dspk {dspk.__version__}: runtimes {dspk.runtime.available()}, running on "
          f"{name!r} ({device})")
    x = synthetic_recording(args.channels, samples, fs)
    print(f"recording: {args.channels} channels x {samples} samples float32 "
          f"({args.seconds:g} s at {fs / 1000:g} kHz, {x.nbytes / 2**20:.0f} MiB)")
    sos = signal.butter(3, [300, 6000], "bandpass", fs=fs, output="sos")
    print("band-pass 300-6000 Hz, 3rd-order Butterworth, zero phase (sosfiltfilt)")
    start = time.perf_counter()
    y = dspk.sosfiltfilt(sos, x, runtime=name)
    first = time.perf_counter() - start
    # The first call may have run scipy's variant while kernels compile in the background:
    # let them finish (and the tuner time them) before timing dspk's own kernels.
    start = time.perf_counter()
    with waiting_for_kernels():
        dspk.sosfiltfilt(sos, x, runtime=name)
    ready = time.perf_counter() - start
    ours = _best_of(args.repeat, lambda: dspk.sosfiltfilt(sos, x, runtime=name))
    theirs = _best_of(args.repeat, lambda: signal.sosfiltfilt(sos, x))
    reference = signal.sosfiltfilt(sos, x.astype(np.float64))
    error = np.linalg.norm(y - reference) / np.linalg.norm(reference)
    waited = (f", the second {ready * 1e3:.0f} ms: it waited for kernels compiling in the "
              f"background" if ready > 3 * ours else "")
    print(f"  dspk.sosfiltfilt   {ours * 1e3:9.1f} ms   ({y.dtype}; first call "
          f"{first * 1e3:.0f} ms{waited})")
    print(f"  scipy.signal       {theirs * 1e3:9.1f} ms   (returns float64)")
    print(f"  speed-up {theirs / ours:.2f}x; relative L2 error against float64 scipy {error:.1e}")
    if args.plot:
        from dspk.pictures import filtering_figure

        try:
            filtering_figure(x, y, fs, args.plot)
            print(f"picture: {args.plot} (traces, and power spectra before and after)")
        except RuntimeError as exc:
            print(f"no picture: {exc}")
    return 0


#: ``mallopt`` parameters of glibc (``<malloc.h>``).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def _reuse_freed_memory() -> None:
    """Have glibc's malloc keep freed blocks, however large, and reuse them.

    ``dspk filter`` allocates the same chunk-sized arrays for every chunk. By
    default glibc maps each one afresh and unmaps it when freed, so its pages fault
    in again every time (about 6 ms per 50 MB on the development machine, several
    times that when a parallel kernel faults them). Kept, they fault once. Nothing
    changes where the C library is not glibc.
    """
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return
    libc.mallopt(_M_MMAP_THRESHOLD, 1 << 30)
    libc.mallopt(_M_TRIM_THRESHOLD, (1 << 31) - 1)


def _leftovers(output: str, remove: bool) -> None:
    """Report the partial outputs that killed runs left beside ``output``; remove them if asked."""
    from dspk.recordings import partial_outputs

    stale = []
    for path, in_use in partial_outputs(output):
        if in_use:
            print(f"dspk: warning: another run is writing {output} now ({path})", file=sys.stderr)
        elif remove:
            path.unlink(missing_ok=True)
            print(f"dspk: removed {path}, left by a run that did not finish", file=sys.stderr)
        else:
            stale.append(str(path))
    if stale:
        print(f"dspk: warning: runs that did not finish (killed?) left partial outputs beside "
              f"{output}: {', '.join(stale)}; --remove-partial removes them", file=sys.stderr)


def _filter(args: argparse.Namespace) -> int:
    import signal

    from dspk.recordings import filter_recording, stop_requested

    _reuse_freed_memory()

    def stop(signum, frame):
        stop_requested.set()

    stop_requested.clear()
    previous = {number: signal.signal(number, stop)
                for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        _leftovers(args.output, args.remove_partial)
        summary = filter_recording(
            args.input, args.output, args.fs, channels=args.channels, dtype=args.dtype,
            bandpass=args.bandpass, highpass=args.highpass, order=args.order,
            zero_phase=not args.causal, one_pass=args.one_pass, phase_shift=args.phase_shift,
            bad_channels=args.bad_channels, reference=args.reference,
            positions=_positions(args.probe), local_radius=tuple(args.local_radius),
            destripe=args.destripe, whiten=args.whiten, whiten_radius=args.whiten_radius,
            whiten_neighbours=args.whiten_neighbours,
            detect=args.detect, detect_threshold=args.detect_threshold,
            detect_sign=args.detect_sign,
            output_dtype=args.output_dtype, scale=args.scale, sync_channels=args.sync_channels,
            chunk_samples=args.chunk_samples, overwrite=args.force,
            allow_nonfinite=args.allow_nonfinite, progress=not args.quiet, runtime=args.runtime)
    except KeyboardInterrupt:
        print(f"dspk: interrupted: {args.output} was not written", file=sys.stderr)
        return 130
    except (OSError, MemoryError) as exc:  # the machine's, not the arguments'
        print(f"dspk: error: {exc}", file=sys.stderr)
        return 1
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    if not args.quiet:
        print(summary)
        if summary.bad_channels is not None:
            bad = summary.bad_channels
            listed = ", ".join(f"{i} ({bad.labels[i]})" for i in bad.indices) or "none"
            done = " (interpolated)" if args.bad_channels == "interpolate" else ""
            print(f"bad channels{done}: {listed}")
        if summary.destripe_rms is not None:
            print("destriped with channel RMS values estimated before the run (median "
                  f"{np.median(summary.destripe_rms):.3g})")
        if summary.whitening is not None:
            print(f"whitened ({args.whiten}) by a {summary.whitening.shape[0]} x "
                  f"{summary.whitening.shape[1]} matrix estimated before the run")
        if summary.peaks is not None:
            print(f"{summary.peak_count} peaks written to {summary.peaks}")
    if summary.clipped:
        print(f"dspk: warning: {summary.clipped} values were clipped to the int16 range; "
              "lower --scale or write --output-dtype float32", file=sys.stderr)
    if summary.nonfinite_input:
        sample, channel = summary.first_nonfinite
        print(f"dspk: warning: {args.input} holds NaN or infinity in {summary.nonfinite_input} "
              f"of its samples, the first at sample {sample} of channel {channel}; NaN spreads "
              "through the filters, as in scipy.signal", file=sys.stderr)
    if summary.nonfinite:
        print(f"dspk: warning: {summary.nonfinite} output values were NaN or infinite and were "
              "written as 0 (--allow-nonfinite)", file=sys.stderr)
    return 0


def _positions(probe: str | None):
    """Channel positions from ``--probe``: a ``.npy`` array, else a probeinterface file."""
    if probe is None or not probe.endswith(".npy"):
        return probe
    return np.load(probe)


def _add_filter(commands) -> None:
    from dspk.recordings import OUTPUT_DTYPES, RAW_DTYPES

    filt = commands.add_parser("filter", help="filter a recording file chunk by chunk: "
                               "band-pass, phase shift, bad channels, common reference, "
                               "destriping, whitening, peaks")
    filt.add_argument("input", help="raw interleaved binary (samples x channels, such as "
                      "SpikeGLX .bin or Open Ephys .dat) or .npy")
    filt.add_argument("output", help="the file to write: .npy if its name ends so, else raw")
    filt.add_argument("--channels", type=int, default=None,
                      help="channel count (needed for raw binary input)")
    filt.add_argument("--fs", type=float, required=True, help="sampling frequency, Hz")
    filt.add_argument("--dtype", choices=RAW_DTYPES, default=None,
                      help="sample type of the input (raw binary default: int16)")
    band = filt.add_mutually_exclusive_group()
    band.add_argument("--bandpass", type=float, nargs=2, metavar=("LOW", "HIGH"),
                      help="Butterworth band-pass, Hz")
    band.add_argument("--highpass", type=float, metavar="CUTOFF", help="Butterworth high-pass, Hz")
    filt.add_argument("--order", type=int, default=4,
                      help="filter order (a band-pass has twice it); default 4")
    filt.add_argument("--causal", action="store_true",
                      help="filter forward only (default: zero phase, forward and backward)")
    filt.add_argument("--one-pass", action="store_true",
                      help="zero phase in one pass over the file, each backward pass starting a "
                      "margin ahead (within 1e-12); default: exact, in three passes")
    filt.add_argument("--phase-shift", choices=["neuropixels-1.0"], default=None,
                      help="undo the ADC multiplexing delays of this probe")
    filt.add_argument("--bad-channels", choices=["detect", "interpolate"], default=None,
                      help="find dead, noisy and out-of-brain channels (IBL's method) and "
                      "report them, or also interpolate them from their neighbours (--probe)")
    filt.add_argument("--reference", choices=["median", "average", "local"], default=None,
                      help="subtract the median or mean across channels, or each channel's "
                      "median over an annulus around it (local: --probe, --local-radius)")
    filt.add_argument("--probe", default=None, metavar="FILE",
                      help="channel positions in micrometres: a probeinterface .json, or a "
                      ".npy of shape (channels, 2)")
    filt.add_argument("--local-radius", type=float, nargs=2, default=(30.0, 55.0),
                      metavar=("INNER", "OUTER"),
                      help="the annulus of --reference local, micrometres; default 30 55")
    filt.add_argument("--destripe", action="store_true",
                      help="after the reference, remove stripes with IBL's spatial high-pass "
                      "filter across the channels (by depth with --probe), its gain control "
                      "given RMS values estimated beforehand from random stretches")
    filt.add_argument("--whiten", choices=["global", "local"], default=None,
                      help="ZCA-whiten the output with a matrix estimated beforehand from "
                      "random stretches of the processed recording; local: each channel "
                      "against its neighbours (--probe, --whiten-radius or --whiten-neighbours)")
    filt.add_argument("--whiten-radius", type=float, default=None, metavar="UM",
                      help="--whiten local: neighbours within UM micrometres")
    filt.add_argument("--whiten-neighbours", type=int, default=None, metavar="K",
                      help="--whiten local: the K nearest channels (the channel included)")
    filt.add_argument("--detect", action="store_true",
                      help="detect threshold peaks in the output; write them to "
                      "STEM.peaks.npy beside it")
    filt.add_argument("--detect-threshold", type=float, default=5.0,
                      help="peak threshold in noise levels (MAD); default 5")
    filt.add_argument("--detect-sign", choices=["neg", "pos", "both"], default="neg",
                      help="sign of the peaks; default neg")
    filt.add_argument("--output-dtype", choices=OUTPUT_DTYPES, default=None,
                      help="default: int16 for int16 input, else float32")
    filt.add_argument("--scale", type=float, default=1.0,
                      help="int16 output is round(y * scale), clipped; default 1")
    filt.add_argument("--allow-nonfinite", action="store_true",
                      help="write NaN and infinity to int16 output as 0, counted (default: "
                      "stop at the first)")
    filt.add_argument("--sync-channels", type=int, default=0,
                      help="the last N channels are copied unprocessed (SpikeGLX: 1)")
    filt.add_argument("--chunk-samples", type=int, default=None,
                      help="samples per chunk (default: 48 MiB of float32)")
    filt.add_argument("--runtime", default=None, help="runtime to run on (default: current)")
    filt.add_argument("--force", action="store_true",
                      help="replace an existing output (a regular file only)")
    filt.add_argument("--remove-partial", action="store_true",
                      help="remove the partial outputs that killed runs left beside OUTPUT")
    filt.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    filt.set_defaults(handler=_filter)


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``dspk``."""
    top = argparse.ArgumentParser(prog="dspk", description=__doc__)
    commands = top.add_subparsers(dest="command", required=True)
    info = commands.add_parser("info",
                               help="installed runtimes, their devices or why they have none")
    info.set_defaults(handler=_info)
    tune = commands.add_parser("autotune", help="tune and compile kernels ahead of time")
    tune.add_argument("--runtime", default=None, help="one runtime (default: every usable one)")
    tune.add_argument("--channels", type=int, nargs="+", default=[32, 64, 128, 384])
    tune.add_argument("--samples", type=int, nargs="+", default=[8192, 32768, 131072, 524288])
    tune.set_defaults(handler=_autotune)
    bench = commands.add_parser(
        "bench", help="time operations beside scipy or the runtime's own peers, in one process")
    bench.add_argument("--ops", nargs="+", default=None, help="operations (default: all)")
    bench.add_argument("--runtime", nargs="+", default=None,
                       help="runtimes (default: the current one)")
    bench.add_argument("--shape", nargs="+", type=_shape, default=None,
                       help="CHANNELSxSAMPLES (default: the autotune grid, then small shapes)")
    bench.add_argument("--dtype", nargs="+", choices=["float32", "float64"], default=None,
                       help="dtypes (default: float32, and both for the small shapes)")
    bench.add_argument("--repeat", type=int, default=5, help="timed runs of each; medians")
    bench.add_argument("--quick", action="store_true",
                       help="two shapes of the grid and the small ones, three runs: "
                            "about a minute")
    bench.add_argument("--json", default=None, help="write the results to this JSON file")
    bench.add_argument("--plot", default=None, help="draw the ratios to this PNG (matplotlib)")
    bench.set_defaults(handler=_bench)
    demo = commands.add_parser("demo", help="band-pass a synthetic 384-channel recording")
    demo.add_argument("--runtime", default=None, help="runtime to run on (default: current)")
    demo.add_argument("--channels", type=int, default=384)
    demo.add_argument("--seconds", type=float, default=5.0, help="recording length")
    demo.add_argument("--repeat", type=int, default=3, help="timed runs; the best is shown")
    demo.add_argument("--plot", default="dspk-demo.png",
                      help="PNG to draw (matplotlib); empty for none")
    demo.set_defaults(handler=_demo)
    _add_filter(commands)
    return top


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        args = parser().parse_args(argv)
        return args.handler(args)
    except (ValueError, RuntimeError) as exc:
        print(f"dspk: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dspk: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
