"""Recording files: ``filter_recording``, ``process_recording`` and ``dspk filter``.

Outputs are compared with the one-shot operations on the whole recording in
float32. The command line is run in a subprocess where what is checked is the
process itself (exit status, messages, signals, files changed under a running
command, FIFOs that would block a regression), and through ``dspk.cli.main``
for the other bad-input cases, which is the same code path without the
interpreter's start-up. Subprocesses run under time limits, so that a
regression fails rather than hangs; a run that something is done to is first
paused (``SIGSTOP``), so that it cannot finish before.
"""

from __future__ import annotations

import hashlib
import os
import signal as signals
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from scipy import signal

import dspk
from conftest import TOLERANCE, open_backend, rel_l2, runtimes_under_test
from dspk import cli
from dspk.designs import Filter
from dspk.recordings import Recording, filter_recording, neuropixels_shifts, process_recording
from dspk.streaming import Stream

FS = 30000.0
SOS = Filter.bandpass(300, 6000, FS, order=3).sos.copy()  # scipy needs it writable


@pytest.fixture(autouse=True)
def _untuned(monkeypatch):
    monkeypatch.setenv("DSPK_TUNING", "off")


@pytest.fixture
def recording(tmp_path, rng) -> tuple[Path, np.ndarray]:
    """An int16 raw recording of 6 channels, samples by channels."""
    x = (rng.standard_normal((9001, 6)) * 200).astype(np.int16)
    path = tmp_path / "probe.bin"
    x.tofile(path)
    return path, x


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".partial"))


def one_shot(x: np.ndarray) -> np.ndarray:
    """Band-pass (scipy, float64) and median reference of the whole recording."""
    return dspk.common_reference(signal.sosfiltfilt(SOS, x.astype(np.float64), axis=0), axis=0)


# --- results ------------------------------------------------------------------------------------

def test_filter_recording_matches_one_shot(recording, tmp_path):
    path, x = recording
    out = tmp_path / "out.bin"
    summary = filter_recording(path, out, FS, channels=6, bandpass=(300, 6000), order=3,
                               reference="median", output_dtype="float32", chunk_samples=1000,
                               progress=False)
    y = np.fromfile(out, np.float32).reshape(-1, 6)
    assert rel_l2(y, one_shot(x)) <= 1e-5
    assert (summary.samples, summary.channels, summary.clipped) == (9001, 6, 0)
    assert summary.rate > 0 and summary.realtime_factor > 0


def test_int16_output_is_rounded_and_scaled(recording, tmp_path):
    path, x = recording
    out = tmp_path / "out.bin"
    filter_recording(path, out, FS, channels=6, bandpass=(300, 6000), order=3,
                     reference="median", scale=2.0, chunk_samples=4000, progress=False)
    y = np.fromfile(out, np.int16).reshape(-1, 6)
    assert np.abs(y - 2.0 * one_shot(x)).max() <= 0.5 + 1e-2


def test_int16_output_counts_clipped_values(tmp_path, rng):
    path = tmp_path / "loud.bin"
    (rng.standard_normal((2000, 3)) * 20000).astype(np.int16).tofile(path)
    summary = filter_recording(path, tmp_path / "out.bin", FS, channels=3, reference="average",
                               scale=100.0, progress=False)
    assert summary.clipped > 0


@pytest.mark.parametrize("order", ["C", "F"])
def test_npy_in_and_out(order, recording, tmp_path):
    _, x = recording
    source = tmp_path / "probe.npy"
    np.save(source, np.asarray(x, order=order))
    out = tmp_path / "out.npy"
    filter_recording(source, out, FS, bandpass=(300, 6000), order=3, reference="median",
                     output_dtype="float32", chunk_samples=2500, progress=False)
    y = np.load(out)
    assert y.shape == x.shape and y.dtype == np.float32
    assert rel_l2(y, one_shot(x)) <= 1e-5


def test_neuropixels_pipeline_matches_one_shot(tmp_path, rng):
    x = (rng.standard_normal((3000, 385)) * 100).astype(np.int16)
    path = tmp_path / "np1.ap.bin"
    x.tofile(path)
    out = tmp_path / "out.bin"
    filter_recording(path, out, FS, channels=385, bandpass=(300, 6000), order=3,
                     phase_shift="neuropixels-1.0", reference="median", sync_channels=1,
                     output_dtype="float32", chunk_samples=700, progress=False)
    y = np.fromfile(out, np.float32).reshape(-1, 385)
    neural = x[:, :384].astype(np.float64)
    shifted = dspk.phase_shift(signal.sosfiltfilt(SOS, neural, axis=0), neuropixels_shifts(),
                               axis=0)
    assert rel_l2(y[:, :384], dspk.common_reference(shifted, axis=0)) <= 1e-5
    np.testing.assert_array_equal(y[:, 384], x[:, 384])


def test_sync_channels_pass_through_unchanged(recording, tmp_path):
    path, x = recording
    out = tmp_path / "out.bin"
    filter_recording(path, out, FS, channels=6, highpass=300, sync_channels=2,
                     chunk_samples=777, progress=False)
    y = np.fromfile(out, np.int16).reshape(-1, 6)
    np.testing.assert_array_equal(y[:, 4:], x[:, 4:])


def test_neuropixels_shifts_follow_the_adc_table():
    shifts = neuropixels_shifts()
    assert shifts.shape == (384,)
    adc_order = np.array([0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10,
                          11, 11])
    np.testing.assert_allclose(shifts, np.tile(adc_order, 16) / 13)


# --- failures leave nothing behind ---------------------------------------------------------------

class AtSecondChunk(Stream):
    """Passes chunks through, and calls ``action`` at its second chunk."""

    def __init__(self, action):
        super().__init__(0, None)
        self._action, self._chunks = action, 0

    def _push(self, chunk):
        self._chunks += 1
        if self._chunks == 2:
            self._action()
        return chunk


def failing(failure: BaseException) -> AtSecondChunk:
    """A stream that fails in the given way at its second chunk."""
    def fail():
        raise failure
    return AtSecondChunk(fail)


@pytest.mark.parametrize("failure", [KeyboardInterrupt(), RuntimeError("kernel failed")])
def test_a_failure_midway_leaves_no_output_and_the_input_untouched(failure, recording,
                                                                   tmp_path):
    path, _ = recording
    before, mtime = digest(path), path.stat().st_mtime_ns
    out = tmp_path / "out.bin"
    with pytest.raises(type(failure)):
        process_recording(path, out, failing(failure), FS, channels=6, chunk_samples=1000,
                          progress=False)
    assert not out.exists() and leftovers(tmp_path) == []
    assert digest(path) == before and path.stat().st_mtime_ns == mtime


def test_an_existing_output_survives_a_failure(recording, tmp_path):
    path, _ = recording
    out = tmp_path / "out.bin"
    out.write_bytes(b"previous result")
    with pytest.raises(RuntimeError):
        process_recording(path, out, failing(RuntimeError("no")), FS, channels=6,
                          chunk_samples=1000, overwrite=True, progress=False)
    assert out.read_bytes() == b"previous result" and leftovers(tmp_path) == []


def test_a_stream_must_keep_the_length(recording, tmp_path):
    path, _ = recording

    class Halving(Stream):
        def _push(self, chunk):
            return chunk[::2]

    with pytest.raises(RuntimeError, match="it must keep the signal's length"):
        process_recording(path, tmp_path / "out.bin", Halving(0, None), FS, channels=6,
                          progress=False)
    assert leftovers(tmp_path) == []


# --- bad input ---------------------------------------------------------------------------------

@pytest.mark.parametrize("arguments,message", [
    (["--channels", "4"], ("has 108012 bytes, not a whole number of samples of 4 int16 "
                           "channels (8 bytes each): 4 bytes are left over")),
    (["--channels", "0"], "channels must be an integer >= 1; got 0"),
    (["--channels", "6", "--bandpass", "300", "20000"],
     "bandpass: high=20000.0 must lie strictly between 0 and the Nyquist frequency fs/2 = 15000"),
    (["--channels", "6", "--highpass", "15000"], "highpass: cutoff=15000.0 must lie strictly"),
    (["--channels", "6", "--bandpass", "300", "6000", "--fs", "0"], "fs=0.0 must be a positive"),
    (["--channels", "6"], "nothing to do"),
    (["--channels", "6", "--reference", "median", "--phase-shift", "neuropixels-1.0"],
     "is for the probe's 384 channels; got 6"),
    (["--channels", "6", "--reference", "median", "--sync-channels", "6"],
     "must leave at least one of the 6 channels"),
    (["--channels", "6", "--reference", "median", "--chunk-samples", "0"],
     "chunk_samples must be an integer >= 1"),
    (["--reference", "median"], "needs its channel count"),
    (["--channels", "6", "--reference", "median", "--scale", "nan"],
     "scale must be a finite number > 0"),
])
def test_bad_input_is_a_message(arguments, message, recording, tmp_path, capsys):
    path, _ = recording
    out = tmp_path / "out.bin"
    argv = ["filter", str(path), str(out), "--fs", "30000", "--quiet", *arguments]
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err
    assert not out.exists() and leftovers(tmp_path) == []


def test_output_must_not_be_the_input_nor_exist(recording, tmp_path, capsys):
    path, _ = recording
    before = digest(path)
    common = ["--channels", "6", "--fs", "30000", "--reference", "median", "--quiet"]
    assert cli.main(["filter", str(path), str(path), *common, "--force"]) == 2
    assert "is the input" in capsys.readouterr().err
    out = tmp_path / "out.bin"
    out.write_bytes(b"x")
    assert cli.main(["filter", str(path), str(out), *common]) == 2
    assert "exists; pass overwrite=True (--force)" in capsys.readouterr().err
    assert cli.main(["filter", str(tmp_path / "missing.bin"), str(out), *common]) == 2
    assert "no such file" in capsys.readouterr().err
    assert digest(path) == before and out.read_bytes() == b"x"


def test_npy_input_is_checked(tmp_path, capsys):
    source = tmp_path / "three_d.npy"
    np.save(source, np.zeros((2, 3, 4), np.int16))
    args = ["filter", str(source), str(tmp_path / "o.npy"), "--fs", "1000", "--reference",
            "median", "--quiet"]
    assert cli.main(args) == 2
    assert "a recording is 2-D" in capsys.readouterr().err
    np.save(source, np.ones((20, 4), np.int16))
    assert cli.main([*args, "--channels", "5"]) == 2
    assert "has 4 channels" in capsys.readouterr().err
    with pytest.raises(ValueError, match="holds int16; dtype=float32 was given"):
        Recording.open(source, dtype="float32")


# --- the command line, as a process --------------------------------------------------------------

# The command's file handling is the subject here, on the cpu runtime: a GPU runtime on a
# software adapter (lavapipe, in CI) would take seconds per run for its small chunks.
# test_the_chain_on_each_runtime_matches_cpu takes the chain through every runtime.
ENVIRONMENT = {**os.environ, "DSPK_TUNING": "off", "DSPK_RUNTIME": "cpu"}


def run_dspk(*arguments: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dspk", *arguments], check=False, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, env=ENVIRONMENT)


def paused_run(folder: Path, rng) -> subprocess.Popen:
    """``dspk filter long.bin out.bin`` in 600 chunks, stopped (SIGSTOP) once it writes
    (long enough that a loaded machine does not let it finish before the stop).

    Returns the process with its input's digest as ``process.input_digest``.
    """
    path = folder / "long.bin"
    (rng.standard_normal((60000, 8)) * 100).astype(np.int16).tofile(path)
    process = subprocess.Popen(
        [sys.executable, "-m", "dspk", "filter", path.name, "out.bin", "--channels", "8",
         "--fs", "30000", "--bandpass", "300", "6000", "--chunk-samples", "100", "--quiet"],
        cwd=folder, stderr=subprocess.PIPE, text=True, env=ENVIRONMENT)
    deadline = time.monotonic() + 120
    while not leftovers(folder) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    process.send_signal(signals.SIGSTOP)
    if not leftovers(folder):
        process.kill()
        pytest.fail(f"the command ended or stalled before writing: {process.communicate()[1]}")
    process.input_digest = digest(path)
    return process


def resumed(process: subprocess.Popen) -> str:
    """Let a paused run go on to its end (killed after two minutes); its standard error."""
    process.send_signal(signals.SIGCONT)
    try:
        return process.communicate(timeout=120)[1]
    except subprocess.TimeoutExpired:
        process.kill()
        raise


def test_cli_writes_and_reports_progress(recording, tmp_path):
    path, x = recording
    done = run_dspk("filter", path.name, "out.bin", "--channels", "6", "--fs", "30000",
                    "--reference", "average", "--output-dtype", "float32", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "samples/s" in done.stderr and "x real time" in done.stderr
    assert "M samples/s" in done.stdout and "Traceback" not in done.stderr
    y = np.fromfile(tmp_path / "out.bin", np.float32).reshape(-1, 6)
    assert rel_l2(y, dspk.common_reference(x.astype(np.float32), operator="average",
                                           axis=0)) <= 1e-6
    assert (tmp_path / "out.bin").stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_cli_bad_input_exits_without_traceback(recording, tmp_path):
    path, _ = recording
    done = run_dspk("filter", path.name, "out.bin", "--channels", "4", "--fs", "30000",
                    "--reference", "median", cwd=tmp_path)
    assert done.returncode == 2
    assert "dspk: error:" in done.stderr and "bytes are left over" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("signal_number", [signals.SIGINT, signals.SIGTERM])
def test_cli_interrupted_leaves_no_output(signal_number, tmp_path, rng):
    process = paused_run(tmp_path, rng)
    process.send_signal(signal_number)
    stderr = resumed(process)
    assert process.returncode == 130, stderr
    assert "interrupted: out.bin was not written" in stderr and "Traceback" not in stderr
    assert not (tmp_path / "out.bin").exists() and leftovers(tmp_path) == []
    assert digest(tmp_path / "long.bin") == process.input_digest


# --- failure behaviour: files changed under a run, odd files, NaN, leftovers -------------------

def test_an_output_that_appears_during_the_run_is_kept(recording, tmp_path):
    path, _ = recording
    out = tmp_path / "out.bin"
    with pytest.raises(FileExistsError, match="appeared while this run was writing it"):
        process_recording(path, out, AtSecondChunk(lambda: out.write_bytes(b"theirs")), FS,
                          channels=6, chunk_samples=1000, progress=False)
    assert out.read_bytes() == b"theirs" and leftovers(tmp_path) == []


def test_without_hard_links_the_name_is_checked_before_the_rename(recording, tmp_path,
                                                                  monkeypatch):
    def no_links(source, target):
        raise PermissionError(1, "Operation not permitted")  # as on FAT

    monkeypatch.setattr(os, "link", no_links)
    path, x = recording
    out = tmp_path / "out.bin"
    with pytest.raises(FileExistsError, match="appeared while this run was writing it"):
        process_recording(path, out, AtSecondChunk(lambda: out.write_bytes(b"theirs")), FS,
                          channels=6, chunk_samples=1000, progress=False)
    assert out.read_bytes() == b"theirs" and leftovers(tmp_path) == []
    out.unlink()
    process_recording(path, out, AtSecondChunk(lambda: None), FS, channels=6, progress=False)
    np.testing.assert_array_equal(np.fromfile(out, np.int16).reshape(-1, 6), x)
    assert leftovers(tmp_path) == []


def test_cli_an_output_that_appears_during_the_run_is_kept(tmp_path, rng):
    process = paused_run(tmp_path, rng)
    (tmp_path / "out.bin").write_bytes(b"theirs")
    stderr = resumed(process)
    assert process.returncode == 1, stderr
    assert "dspk: error: out.bin appeared while this run was writing it" in stderr
    assert "--force" in stderr and "Traceback" not in stderr
    assert (tmp_path / "out.bin").read_bytes() == b"theirs" and leftovers(tmp_path) == []


def test_force_replaces_only_regular_files(recording, tmp_path, capsys):
    path, _ = recording
    common = ["--channels", "6", "--fs", "30000", "--reference", "median", "--quiet", "--force"]
    folder, target, link = tmp_path / "folder", tmp_path / "target.bin", tmp_path / "link.bin"
    folder.mkdir()
    target.write_bytes(b"x")
    link.symlink_to(target)
    for out, kind in [(folder, "directory"), (link, "symbolic link")]:
        assert cli.main(["filter", str(path), str(out), *common]) == 2
        assert (f"the output {out} is a {kind}: dspk replaces only regular files, even with "
                "overwrite=True (--force)") in capsys.readouterr().err
    assert folder.is_dir() and link.is_symlink() and target.read_bytes() == b"x"
    assert leftovers(tmp_path) == []


def test_cli_force_never_replaces_a_fifo(recording, tmp_path):
    path, _ = recording
    os.mkfifo(tmp_path / "pipe")
    done = run_dspk("filter", path.name, "pipe", "--channels", "6", "--fs", "30000",
                    "--reference", "median", "--quiet", "--force", cwd=tmp_path, timeout=60)
    assert done.returncode == 2, done.stderr
    assert ("the output pipe is a FIFO (named pipe): dspk replaces only regular files"
            in done.stderr)
    assert (tmp_path / "pipe").is_fifo() and leftovers(tmp_path) == []


def test_force_keeps_what_became_a_fifo_during_the_run(recording, tmp_path):
    path, _ = recording
    out = tmp_path / "out.bin"
    out.write_bytes(b"previous result")

    def swap():
        out.unlink()
        os.mkfifo(out)

    with pytest.raises(FileExistsError, match="is a FIFO .*; it became one during the run"):
        process_recording(path, out, AtSecondChunk(swap), FS, channels=6, chunk_samples=1000,
                          overwrite=True, progress=False)
    assert out.is_fifo() and leftovers(tmp_path) == []


def test_inputs_that_are_not_regular_files_are_named(tmp_path, capsys):
    common = ["--channels", "4", "--fs", "30000", "--reference", "median", "--quiet"]
    (tmp_path / "folder").mkdir()
    for source, message in [(tmp_path / "folder", "is a directory, not a recording file"),
                            (Path("/dev/zero"), "is a character device, not a recording file"),
                            (tmp_path / "missing.bin", "missing.bin: no such file")]:
        assert cli.main(["filter", str(source), str(tmp_path / "out.bin"), *common]) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "out.bin").exists()


def test_cli_a_fifo_input_is_named_not_read(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    done = run_dspk("filter", "pipe", "out.bin", "--channels", "4", "--fs", "30000",
                    "--reference", "median", "--quiet", cwd=tmp_path, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "pipe is a FIFO (named pipe), not a recording file: recordings are read through " \
           "memory maps" in done.stderr


def test_an_input_truncated_during_the_run_is_an_io_error(recording, tmp_path):
    path, _ = recording
    with pytest.raises(OSError, match=f"{path} has 36000 bytes, 108012 when this run began: it "
                                      "was truncated during the run"):
        process_recording(path, tmp_path / "out.bin",
                          AtSecondChunk(lambda: os.truncate(path, 36000)), FS, channels=6,
                          chunk_samples=1000, progress=False)
    assert leftovers(tmp_path) == []


def test_an_input_truncated_between_the_size_check_and_the_mapping_is_an_io_error(
        recording, monkeypatch):
    """The race CI met: the file shrinks after the size check, and mmap refuses the window."""
    path, _ = recording
    opened = Recording.open(path, channels=6)
    real_fstat, calls = os.fstat, []

    def fstat_then_truncate(fd):
        result = real_fstat(fd)
        if not calls:  # the first check sees the whole file; then it shrinks
            os.truncate(path, 36000)
        calls.append(fd)
        return result

    monkeypatch.setattr(os, "fstat", fstat_then_truncate)
    with pytest.raises(OSError, match="has 36000 bytes, 108012 when this run began"):
        opened.read(0, 100)
    assert len(calls) == 2


def test_cli_input_truncated_during_the_run(tmp_path, rng):
    process = paused_run(tmp_path, rng)
    os.truncate(tmp_path / "long.bin", 480000)
    stderr = resumed(process)
    assert process.returncode == 1, stderr
    assert ("dspk: error: long.bin has 480000 bytes, 960000 when this run began: it was "
            "truncated during the run") in stderr and "Traceback" not in stderr
    assert not (tmp_path / "out.bin").exists() and leftovers(tmp_path) == []


def test_a_highpass_too_low_for_one_pass_names_the_ways_out(recording, tmp_path, capsys):
    path, _ = recording
    argv = ["filter", str(path), str(tmp_path / "out.bin"), "--channels", "6", "--fs", "30000",
            "--highpass", "0.01", "--one-pass", "--quiet"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "highpass: this zero-phase filter rings too long to filter in one pass" in err
    assert "without --one-pass" in err and "--causal" in err and "margin=" not in err


@pytest.mark.parametrize("chunk_samples", [7, 1000, 2500])
def test_zero_phase_is_exact_in_three_passes_at_any_cutoff(tmp_path, rng, chunk_samples):
    """A 0.5 Hz high-pass (no margin within reach of one pass) on a drifting float32 input,
    every chunking, against scipy's one-shot result in float64."""
    x = (rng.standard_normal((4000, 3)).cumsum(axis=0) * 10).astype(np.float32)
    np.save(tmp_path / "in.npy", x)
    filter_recording(tmp_path / "in.npy", tmp_path / "out.npy", 30000.0, highpass=0.5, order=2,
                     chunk_samples=chunk_samples, progress=False)
    sos = np.array(dspk.Filter.highpass(0.5, 30000.0, 2).sos)
    want = signal.sosfiltfilt(sos, x.astype(np.float64), axis=0)
    assert rel_l2(np.load(tmp_path / "out.npy"), want) <= 1e-5


def test_an_interrupt_before_the_run_is_a_message(recording, tmp_path, monkeypatch, capsys):
    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_reuse_freed_memory", interrupted)
    path, _ = recording
    argv = ["filter", str(path), str(tmp_path / "out.bin"), "--channels", "6", "--fs", "30000",
            "--reference", "median", "--quiet"]
    try:
        code = cli.main(argv)
    except KeyboardInterrupt:  # caught here: pytest would stop the whole session
        pytest.fail("the interrupt escaped dspk.cli.main")
    assert code == 130
    assert capsys.readouterr().err == "dspk: interrupted\n"


def nan_recording(folder: Path, value: float = np.nan,
                  channel: int = 2) -> tuple[Path, np.ndarray]:
    """A float32 raw recording of 4 channels with one non-finite sample (1000, ``channel``)."""
    x = (np.random.default_rng(3).standard_normal((3000, 4)) * 100).astype(np.float32)
    x[1000, channel] = value
    path = folder / "nan.bin"
    x.tofile(path)
    return path, x


def test_float_output_keeps_nan_as_scipy(tmp_path):
    path, x = nan_recording(tmp_path)
    out = tmp_path / "out.bin"
    summary = filter_recording(path, out, FS, channels=4, dtype="float32", bandpass=(300, 6000),
                               order=3, chunk_samples=700, progress=False)
    y = np.fromfile(out, np.float32).reshape(-1, 4)
    expected = signal.sosfiltfilt(SOS, x.astype(np.float64), axis=0)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(expected))
    assert np.isnan(y[:, 2]).all()
    assert rel_l2(y[:, [0, 1, 3]], expected[:, [0, 1, 3]]) <= 1e-5
    assert summary.nonfinite_input == 1 and summary.first_nonfinite == (1000, 2)
    assert summary.nonfinite == 0


@pytest.mark.parametrize("value", [np.nan, np.inf])
@pytest.mark.parametrize("stage", [["--reference", "average"], ["--bandpass", "300", "6000"]])
def test_int16_output_stops_at_nonfinite_values(value, stage, tmp_path, capsys):
    path, _ = nan_recording(tmp_path, value)
    out = tmp_path / "out.bin"
    argv = ["filter", str(path), str(out), "--channels", "4", "--fs", "30000", "--dtype",
            "float32", "--output-dtype", "int16", "--chunk-samples", "700", "--quiet", *stage]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert f"dspk: error: {path}: sample 1000 of channel 2 is NaN or infinite" in err
    assert "--output-dtype float32" in err and "--allow-nonfinite" in err
    assert not out.exists() and leftovers(tmp_path) == []


def test_allow_nonfinite_writes_zeros_and_counts_them(tmp_path, capsys):
    path, x = nan_recording(tmp_path)
    out = tmp_path / "out.bin"
    argv = ["filter", str(path), str(out), "--channels", "4", "--fs", "30000", "--dtype",
            "float32", "--output-dtype", "int16", "--reference", "average", "--quiet",
            "--allow-nonfinite"]
    assert cli.main(argv) == 0
    err = capsys.readouterr().err
    y = np.fromfile(out, np.int16).reshape(-1, 4)
    expected = np.rint(x - x.mean(axis=1, keepdims=True))  # row 1000 is NaN throughout
    np.testing.assert_array_equal(y[1000], 0)
    assert np.abs(np.delete(y, 1000, axis=0) - np.delete(expected, 1000, axis=0)).max() <= 1
    assert "4 output values were NaN or infinite and were written as 0" in err
    assert f"{path} holds NaN or infinity in 1 of its samples, the first at sample 1000 of " \
           "channel 2" in err


def test_sync_channels_are_converted_like_the_rest(tmp_path):
    x = np.random.default_rng(4).integers(30000, 36000, (2000, 3)).astype(np.uint16)
    x[:, 2] = 40000  # beyond int16: clipped and counted, never wrapped
    path = tmp_path / "probe.bin"
    x.tofile(path)
    out = tmp_path / "out.bin"
    summary = filter_recording(path, out, FS, channels=3, dtype="uint16", reference="average",
                               sync_channels=1, output_dtype="int16", progress=False)
    np.testing.assert_array_equal(np.fromfile(out, np.int16).reshape(-1, 3)[:, 2], 32767)
    assert summary.clipped == 2000
    path, _ = nan_recording(tmp_path, channel=3)
    with pytest.raises(ValueError, match="sample 1000 of channel 3 is NaN or infinite"):
        filter_recording(path, out, FS, channels=4, dtype="float32", reference="average",
                         sync_channels=1, output_dtype="int16", overwrite=True, progress=False)


def test_cli_reports_and_removes_what_a_killed_run_left(tmp_path, rng, capsys):
    process = paused_run(tmp_path, rng)
    process.kill()
    process.communicate(timeout=60)
    left = leftovers(tmp_path)
    assert len(left) == 1
    argv = ["filter", str(tmp_path / "long.bin"), str(tmp_path / "out.bin"), "--channels", "8",
            "--fs", "30000", "--reference", "median", "--quiet"]
    assert cli.main(argv) == 0
    err = capsys.readouterr().err
    assert f"left partial outputs beside {tmp_path / 'out.bin'}: {tmp_path / left[0]}" in err
    assert "--remove-partial removes them" in err and leftovers(tmp_path) == left
    assert cli.main([*argv, "--force", "--remove-partial"]) == 0
    assert f"dspk: removed {tmp_path / left[0]}, left by a run that did not finish" in \
        capsys.readouterr().err
    assert leftovers(tmp_path) == []


def test_a_partial_output_being_written_is_never_removed(recording, tmp_path, capsys):
    fcntl = pytest.importorskip("fcntl")
    path, _ = recording
    live = tmp_path / ".out.bin.0123456789ab.partial"
    other = tmp_path / ".other.bin.0123456789ab.partial"
    other.write_bytes(b"")
    with open(live, "wb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        argv = ["filter", str(path), str(tmp_path / "out.bin"), "--channels", "6", "--fs",
                "30000", "--reference", "median", "--quiet", "--remove-partial"]
        assert cli.main(argv) == 0
    assert f"another run is writing {tmp_path / 'out.bin'} now ({live})" in capsys.readouterr().err
    assert live.exists() and other.exists()


def test_cli_reports_a_chunk_too_large_for_the_memory_free(tmp_path, monkeypatch, capsys):
    """Exit status 1 and one line, not a MemoryError traceback."""
    from dspk import validation

    path = tmp_path / "in.bin"
    np.random.default_rng(0).integers(-99, 99, (3000, 4), dtype=np.int16).tofile(path)
    monkeypatch.setattr(validation, "UNMEASURED_OUTPUT_BYTES", 0)
    monkeypatch.setattr(validation, "free_memory", lambda: 1000)
    status = cli.main(["filter", str(path), str(tmp_path / "out.bin"), "--channels", "4",
                       "--fs", "30000", "--dtype", "int16", "--highpass", "300", "--quiet"])
    message = capsys.readouterr().err
    assert status == 1 and message.startswith("dspk: error: the output of ")
    assert "Traceback" not in message and not (tmp_path / "out.bin").exists()


# --- the electrophysiology stages: bad channels, local reference, peaks -------------------------

def probe_recording(rng, samples=45000):
    """48 channels in two columns 20 um apart in depth; 5 dead, 20 noisy; spikes injected.

    Returns the float32 recording (samples by channels, in microvolts, where IBL's
    thresholds hold), the positions and the spikes' (sample, channel) pairs.
    """
    channels = 48
    positions = np.column_stack([np.where(np.arange(channels) % 2, 48.0, 16.0),
                                 20.0 * (np.arange(channels) // 2)])
    common = rng.standard_normal(samples) * 8
    x = common[:, None] + rng.standard_normal((samples, channels)) * 2
    spikes = [(int(s), int(c)) for s, c in zip(rng.integers(500, samples - 500, 40),
                                              rng.integers(0, channels, 40))]
    for s, c in spikes:
        x[s - 15:s + 15, c] -= 60 * signal.windows.gaussian(30, 4)  # trough at s
    x[:, 5] *= 0.01
    x[:, 20] += rng.standard_normal(samples) * 50
    return x.astype(np.float32), positions, spikes


def test_bad_channels_local_reference_and_peaks_match_the_one_shot_chain(tmp_path, rng):
    x, positions, spikes = probe_recording(rng)
    path, out = tmp_path / "probe.bin", tmp_path / "out.bin"
    x.tofile(path)
    summary = filter_recording(path, out, FS, channels=48, dtype="float32", highpass=300,
                               order=3, bad_channels="interpolate", reference="local",
                               positions=positions, detect=True, chunk_samples=7001,
                               progress=False)
    y = np.fromfile(out, np.float32).reshape(-1, 48)
    found = dspk.detect_bad_channels(x.astype(np.float64), FS, axis=0, positions=positions,
                                     seed=0)
    np.testing.assert_array_equal(summary.bad_channels.indices, [5, 20])
    np.testing.assert_array_equal(summary.bad_channels.labels, found.labels)
    sos = Filter.highpass(300, FS, order=3).sos.copy()
    want = signal.sosfiltfilt(sos, x.astype(np.float64), axis=0)
    want = dspk.interpolate_bad_channels(want, found.indices, positions, axis=0)
    want = dspk.common_reference(want, "local", positions=positions, axis=0)
    # float32 throughout; the reference removes a common signal 4x the channels' own, so the
    # output is about 10x smaller than the filtered input: 2.1e-5 measured.
    assert rel_l2(y, want) <= 5e-5
    # The peaks are detect_peaks of the whole output with the noise of its first second.
    peaks = np.load(summary.peaks)
    assert summary.peaks == tmp_path / "out.peaks.npy" and summary.peak_count == len(peaks)
    expected = dspk.detect_peaks(y, dspk.noise_levels(y[:int(FS)], axis=0), axis=0)
    np.testing.assert_array_equal(peaks, expected)
    found_spikes = {(int(s), int(c)) for s, c in zip(peaks["sample_index"],
                                                     peaks["channel_index"])}
    missed = [(s, c) for s, c in spikes if c not in (5, 20) and not any(
        (s + d, c) in found_spikes for d in range(-3, 4))]
    assert not missed


@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_the_chain_on_each_runtime_matches_cpu(runtime, tmp_path, rng):
    """The other tests here run on cpu (the repository's conftest): the same chain,
    with every stage, on each runtime gives cpu's output and peaks."""
    open_backend(runtime)
    x, positions, _ = probe_recording(rng, samples=4000)  # one bad-channel chunk: all of it
    path = tmp_path / "probe.bin"
    x.tofile(path)
    outputs = {}
    for name in dict.fromkeys(["cpu", runtime]):
        outputs[name] = out = tmp_path / f"{name}.bin"
        filter_recording(path, out, FS, channels=48, dtype="float32", highpass=300, order=3,
                         bad_channels="interpolate", reference="local", positions=positions,
                         destripe=True, detect=True, chunk_samples=1501, progress=False,
                         runtime=name)
    y, want = (np.fromfile(outputs[name], np.float32) for name in (runtime, "cpu"))
    assert rel_l2(y, want) <= TOLERANCE[np.float32]
    peaks, expected = (np.load(outputs[name].with_suffix(".peaks.npy"))
                       for name in (runtime, "cpu"))
    assert abs(len(peaks) - len(expected)) <= 2  # a float32 rounding may tip a threshold


def test_cli_bad_channels_local_reference_and_peaks(tmp_path, rng, capsys):
    x, positions, _ = probe_recording(rng, samples=20000)
    path, out, probe = tmp_path / "probe.bin", tmp_path / "out.bin", tmp_path / "probe.npy"
    x.tofile(path)
    np.save(probe, positions)
    arguments = ["filter", str(path), str(out), "--channels", "48", "--fs", "30000",
                 "--dtype", "float32", "--highpass", "300", "--bad-channels", "interpolate",
                 "--probe", str(probe), "--reference", "local", "--detect"]
    assert cli.main(arguments) == 0
    printed = capsys.readouterr().out
    assert "bad channels (interpolated): 5 (dead), 20 (noise)" in printed
    peaks = np.load(tmp_path / "out.peaks.npy")
    assert f"{len(peaks)} peaks written to {tmp_path / 'out.peaks.npy'}" in printed
    assert np.fromfile(out, np.float32).size == x.size
    # A second run keeps both files unless told to replace them (an OSError: status 1).
    out.unlink()
    assert cli.main(arguments) == 1
    assert "out.peaks.npy" in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("options, message", [
    ({"reference": "local"}, "reference='local' needs the channels' positions"),
    ({"bad_channels": "interpolate"}, "bad_channels='interpolate' needs the channels' positions"),
    ({"bad_channels": "both"}, "bad_channels='both' is not one of"),
    ({"reference": "local", "positions": np.zeros((5, 2))}, "positions"),
])
def test_stage_options_are_checked_before_the_run(recording, tmp_path, options, message):
    path, _ = recording
    with pytest.raises(ValueError, match=message):
        filter_recording(path, tmp_path / "out.bin", FS, channels=6, highpass=300,
                         progress=False, **options)
    assert not (tmp_path / "out.bin").exists() and not leftovers(tmp_path)


# --- whitening ----------------------------------------------------------------------------------

def chain_one_shot(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """High-pass 300 Hz (order 3) and local median reference of the whole recording, float64."""
    sos = Filter.highpass(300, FS, order=3).sos.copy()
    y = signal.sosfiltfilt(sos, x.astype(np.float64), axis=0)
    return dspk.common_reference(y, "local", positions=positions, axis=0)


@pytest.mark.parametrize("options, local", [
    ({"whiten": "global"}, {}),
    ({"whiten": "local", "whiten_radius": 50.0}, {"mode": "local", "radius": 50.0}),
    ({"whiten": "local", "whiten_neighbours": 6}, {"mode": "local", "neighbours": 6}),
])
def test_whitening_is_whiten_of_the_one_shot_chain_with_the_estimated_matrix(
        options, local, tmp_path, rng, monkeypatch):
    x, positions, _ = probe_recording(rng, samples=30000)
    path, out = tmp_path / "probe.bin", tmp_path / "out.bin"
    x.tofile(path)
    # 8 random stretches of 3000 samples, not the whole recording.
    monkeypatch.setattr("dspk.recordings.ESTIMATE_STRETCHES", 8)
    monkeypatch.setattr("dspk.recordings.ESTIMATE_STRETCH_SAMPLES", 3000)
    run = lambda: filter_recording(path, out, FS, channels=48, dtype="float32",  # noqa: E731
                                   highpass=300, order=3, reference="local",
                                   positions=positions, chunk_samples=7001, overwrite=True,
                                   progress=False, **options)
    summary = run()
    W = summary.whitening
    assert W.shape == (48, 48) and W.dtype == np.float32
    y = np.fromfile(out, np.float32).reshape(-1, 48)
    want = chain_one_shot(x, positions)
    # float32 throughout, as the chain without whitening (2.1e-5 there).
    assert rel_l2(y, dspk.whiten(want, W=W, axis=0)[0]) <= 5e-5
    # The stretches' matrix is near the whole output's, within the sampling error of a
    # covariance of C = 48 channels from N = 24000 samples, about sqrt(C / N) = 4.5 %
    # (relative Frobenius norm; 6.5 % global, 4.9 % and 4.3 % local measured).
    whole = dspk.whiten(want, positions=positions if local else None, axis=0, **local)[1]
    assert np.linalg.norm(W - whole) / np.linalg.norm(whole) <= 0.1
    if local:
        np.testing.assert_array_equal(W != 0, whole != 0)
    # The stretches are drawn with a fixed seed: a second run gives the same matrix.
    np.testing.assert_array_equal(run().whitening, W)


def test_whitening_a_short_recording_estimates_from_all_of_it(tmp_path, rng):
    x, positions, _ = probe_recording(rng, samples=20000)  # fewer than 20 x 10000 samples
    path, out = tmp_path / "probe.bin", tmp_path / "out.bin"
    x.tofile(path)
    summary = filter_recording(path, out, FS, channels=48, dtype="float32", highpass=300,
                               order=3, reference="local", positions=positions,
                               whiten="global", chunk_samples=5000, progress=False)
    want = chain_one_shot(x, positions)
    whole = dspk.whiten(want, axis=0)[1]
    # The chain over the whole recording at once (float32): within float32 rounding.
    assert np.linalg.norm(summary.whitening - whole) / np.linalg.norm(whole) <= 1e-4
    y = np.fromfile(out, np.float32).reshape(-1, 48)
    cov = y.T.astype(np.float64) @ y / len(y)
    assert np.abs(cov - np.eye(48)).max() <= 1e-3


def test_cli_whitening(tmp_path, rng, capsys):
    x, positions, _ = probe_recording(rng, samples=4000)  # one bad-channel chunk: all of it
    path, out, probe = tmp_path / "probe.bin", tmp_path / "out.bin", tmp_path / "probe.npy"
    x.tofile(path)
    np.save(probe, positions)
    assert cli.main(["filter", str(path), str(out), "--channels", "48", "--fs", "30000",
                     "--dtype", "float32", "--highpass", "300", "--probe", str(probe),
                     "--whiten", "local", "--whiten-neighbours", "8", "--quiet"]) == 0
    y = np.fromfile(out, np.float32).reshape(-1, 48)
    assert y.shape == x.shape and abs(np.var(y) - 1) < 0.1
    assert cli.main(["filter", str(path), str(tmp_path / "two.bin"), "--channels", "48",
                     "--fs", "30000", "--dtype", "float32", "--whiten", "global"]) == 0
    assert "whitened (global) by a 48 x 48 matrix estimated before the run" in \
        capsys.readouterr().out


@pytest.mark.parametrize("arguments, message", [
    (["--whiten", "local", "--whiten-radius", "50"], "whiten='local' needs the channels' "
     "positions: give positions (--probe)"),
    (["--whiten", "local", "--probe", "PROBE"], "needs one of whiten_radius (--whiten-radius"),
    (["--whiten", "local", "--probe", "PROBE", "--whiten-radius", "50",
      "--whiten-neighbours", "4"], "needs one of whiten_radius (--whiten-radius"),
    (["--whiten", "global", "--whiten-radius", "50"],
     "whiten_radius (--whiten-radius) applies to whiten='local' (--whiten local) only"),
    (["--whiten-neighbours", "4"], "whiten_neighbours (--whiten-neighbours) applies to"),
    (["--whiten", "local", "--probe", "PROBE", "--whiten-radius", "-5"],
     "whiten_radius (--whiten-radius) must be a finite number of micrometres > 0"),
    (["--whiten", "local", "--probe", "PROBE", "--whiten-neighbours", "0"],
     "whiten_neighbours"),
])
def test_cli_whitening_options_are_checked_before_the_run(arguments, message, tmp_path, rng,
                                                          capsys, monkeypatch):
    x, positions, _ = probe_recording(rng, samples=3000)
    path, out, probe = tmp_path / "probe.bin", tmp_path / "out.bin", tmp_path / "probe.npy"
    x.tofile(path)
    np.save(probe, positions)
    monkeypatch.setattr("dspk.recordings._stretches", None)  # no estimate may start
    arguments = [str(probe) if a == "PROBE" else a for a in arguments]
    assert cli.main(["filter", str(path), str(out), "--channels", "48", "--fs", "30000",
                     "--dtype", "float32", "--highpass", "300", *arguments]) == 2
    error = capsys.readouterr().err
    assert error.startswith("dspk: error: ") and message in error, error
    assert not out.exists() and not leftovers(tmp_path)


# --- destriping ---------------------------------------------------------------------------------

def test_destriping_is_the_one_shot_chain_with_the_estimated_rms(tmp_path, rng, monkeypatch):
    x, positions, _ = probe_recording(rng, samples=30000)
    path, out = tmp_path / "probe.bin", tmp_path / "out.bin"
    x.tofile(path)
    monkeypatch.setattr("dspk.recordings.ESTIMATE_STRETCHES", 8)
    monkeypatch.setattr("dspk.recordings.ESTIMATE_STRETCH_SAMPLES", 3000)
    summary = filter_recording(path, out, FS, channels=48, dtype="float32", highpass=300,
                               order=3, reference="local", positions=positions, destripe=True,
                               chunk_samples=7001, progress=False)
    rms = summary.destripe_rms
    assert rms.shape == (48,) and rms.dtype == np.float64
    y = np.fromfile(out, np.float32).reshape(-1, 48)
    referenced = chain_one_shot(x, positions)
    want = dspk.highpass_spatial_filter(referenced, FS, positions=positions, n_channel_pad=48,
                                        rms_values=rms, axis=0)
    # float32 throughout, as the chain without destriping (2.1e-5 there).
    assert rel_l2(y, want) <= 5e-5
    # The stretches' RMS is near the whole signal's (24000 of 30000 samples): within 1 %
    # typically, 12 % at most measured, on a channel whose injected spikes the stretches miss.
    error = np.abs(rms / np.sqrt(np.mean(referenced ** 2, axis=0)) - 1)
    assert np.median(error) <= 0.02 and error.max() <= 0.25


def test_destriping_then_whitening(tmp_path, rng):
    x, positions, _ = probe_recording(rng, samples=20000)
    shuffled = positions[::-1].copy()  # depths descending: the destriping sorts them
    path, out = tmp_path / "probe.bin", tmp_path / "out.bin"
    x.tofile(path)
    summary = filter_recording(path, out, FS, channels=48, dtype="float32", highpass=300,
                               order=3, reference="median", positions=shuffled, destripe=True,
                               whiten="local", whiten_neighbours=8, chunk_samples=4999,
                               progress=False)
    sos = Filter.highpass(300, FS, order=3).sos.copy()
    want = dspk.common_reference(signal.sosfiltfilt(sos, x.astype(np.float64), axis=0), axis=0)
    want = dspk.highpass_spatial_filter(want, FS, positions=shuffled, n_channel_pad=48,
                                        rms_values=summary.destripe_rms, axis=0)
    want = dspk.whiten(want, W=summary.whitening, axis=0)[0]
    y = np.fromfile(out, np.float32).reshape(-1, 48)
    assert rel_l2(y, want) <= 5e-5


def test_cli_destriping(tmp_path, rng, capsys):
    x, positions, _ = probe_recording(rng, samples=4000)  # one bad-channel chunk: all of it
    path, out = tmp_path / "probe.bin", tmp_path / "out.bin"
    x.tofile(path)
    assert cli.main(["filter", str(path), str(out), "--channels", "48", "--fs", "30000",
                     "--dtype", "float32", "--highpass", "300", "--destripe"]) == 0
    assert "destriped with channel RMS values estimated before the run" in capsys.readouterr().out
    # The stripe common to every channel is gone: the output is about the channels' own noise.
    y = np.fromfile(out, np.float32).reshape(-1, 48)
    assert y.shape == x.shape and np.std(y[:, 30:40]) < 0.5 * np.std(x[:, 30:40])


def test_cli_destriping_needs_enough_channels(tmp_path, rng, capsys, monkeypatch):
    path = tmp_path / "probe.bin"
    rng.standard_normal((3000, 3)).astype(np.float32).tofile(path)
    monkeypatch.setattr("dspk.recordings._stretches", None)  # no estimate may start
    assert cli.main(["filter", str(path), str(tmp_path / "out.bin"), "--channels", "3",
                     "--fs", "30000", "--dtype", "float32", "--destripe"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("dspk: error: destripe (--destripe): x has 3 channel(s)"), error
    assert not leftovers(tmp_path)


def test_whitening_after_a_causal_filter(tmp_path, rng, monkeypatch):
    # The stretches' context after a causal filter is where its impulse response has decayed.
    x, _, _ = probe_recording(rng, samples=20000)
    path, out = tmp_path / "probe.bin", tmp_path / "out.bin"
    x.tofile(path)
    monkeypatch.setattr("dspk.recordings.ESTIMATE_STRETCHES", 5)
    monkeypatch.setattr("dspk.recordings.ESTIMATE_STRETCH_SAMPLES", 2000)
    summary = filter_recording(path, out, FS, channels=48, dtype="float32", highpass=300,
                               order=3, zero_phase=False, whiten="global", chunk_samples=3001,
                               progress=False)
    sos = Filter.highpass(300, FS, order=3).sos.copy()
    want = signal.sosfilt(sos, x.astype(np.float64), axis=0)
    y = np.fromfile(out, np.float32).reshape(-1, 48)
    assert rel_l2(y, dspk.whiten(want, W=summary.whitening, axis=0)[0]) <= 5e-5
    whole = dspk.whiten(want, axis=0)[1]
    # 10000 samples of 48 channels: sampling error of order sqrt(48 / 10000) = 7 % (11 %
    # measured).
    assert np.linalg.norm(summary.whitening - whole) / np.linalg.norm(whole) <= 0.2
