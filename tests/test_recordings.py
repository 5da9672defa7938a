"""Recording files: ``filter_recording``, ``process_recording`` and ``dspk filter``.

Outputs are compared with the one-shot operations on the whole recording in
float32. The command line is run in a subprocess where what is checked is the
process itself (exit status, messages, signals), and through ``dspk.cli.main``
for the other bad-input cases, which is the same code path without the
interpreter's start-up.
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
from conftest import rel_l2
from scipy import signal

import dspk
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

class FailingStream(Stream):
    """Passes chunks through, and fails in the given way at its second chunk."""

    def __init__(self, failure: BaseException):
        super().__init__(0, None)
        self._failure, self._chunks = failure, 0

    def _push(self, chunk):
        self._chunks += 1
        if self._chunks == 2:
            raise self._failure
        return chunk


@pytest.mark.parametrize("failure", [KeyboardInterrupt(), RuntimeError("kernel failed")])
def test_a_failure_midway_leaves_no_output_and_the_input_untouched(failure, recording,
                                                                   tmp_path):
    path, _ = recording
    before, mtime = digest(path), path.stat().st_mtime_ns
    out = tmp_path / "out.bin"
    with pytest.raises(type(failure)):
        process_recording(path, out, FailingStream(failure), FS, channels=6, chunk_samples=1000,
                          progress=False)
    assert not out.exists() and leftovers(tmp_path) == []
    assert digest(path) == before and path.stat().st_mtime_ns == mtime


def test_an_existing_output_survives_a_failure(recording, tmp_path):
    path, _ = recording
    out = tmp_path / "out.bin"
    out.write_bytes(b"previous result")
    with pytest.raises(RuntimeError):
        process_recording(path, out, FailingStream(RuntimeError("no")), FS, channels=6,
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

def run_dspk(*arguments: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dspk", *arguments], check=False, cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "DSPK_TUNING": "off"})


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
    path = tmp_path / "long.bin"
    (rng.standard_normal((400000, 8)) * 100).astype(np.int16).tofile(path)
    before = digest(path)
    process = subprocess.Popen(
        [sys.executable, "-m", "dspk", "filter", path.name, "out.bin", "--channels", "8",
         "--fs", "30000", "--bandpass", "300", "6000", "--chunk-samples", "100", "--quiet"],
        cwd=tmp_path, stderr=subprocess.PIPE, text=True, env={**os.environ, "DSPK_TUNING": "off"})
    deadline = time.monotonic() + 120
    while not leftovers(tmp_path) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert leftovers(tmp_path), "the command ended before writing"
    process.send_signal(signal_number)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "interrupted: out.bin was not written" in stderr and "Traceback" not in stderr
    assert not (tmp_path / "out.bin").exists() and leftovers(tmp_path) == []
    assert digest(path) == before
