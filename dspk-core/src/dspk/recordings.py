"""Recordings on disk: filter a recording larger than memory, chunk by chunk, file to file.

Formats read:

- **Raw interleaved binary** (SpikeGLX ``.bin``, Open Ephys ``.dat``, or any
  other name): samples by channels, C order, no header; the channel count
  and the dtype are given.
- **NumPy** ``.npy``: a 2-D array, samples by channels, either memory order;
  the channel count and the dtype come from its header.

Both are read through memory maps, one window per chunk, each unmapped after
use: the memory held is bounded by the chunk size (see :data:`DEFAULT_CHUNK_BYTES`),
whatever the file's size.

Output: the same layout, as ``.npy`` when the output's name ends in
``.npy`` and raw binary otherwise, in float32 or int16. int16 output is
``round(y * scale)``, clipped to -32768..32767 (clipped samples are counted
in the summary): with ``scale=1`` it is in the units of the input, so an int16
recording stays in its ADC units. The output is written under a temporary
name beside it (``.NAME.*.partial``) and given its final name when complete,
without replacing a file that appeared there meanwhile unless asked to, and
never replacing anything but a regular file; an error or an interrupt leaves
nothing under the final name. The input is only ever opened for reading.

NaN and infinity in a float input spread through the filters as in
scipy.signal: float32 output keeps them; int16 output cannot hold them, so a
run stops at the first unless ``allow_nonfinite=True``, which writes them as 0
and counts them.

Processing is in float32 on the runtime chosen: the streams of
:mod:`dspk.streaming`, exact at every chunk boundary (zero-phase filters
within their stated bound).
"""

from __future__ import annotations

import copy
import numbers
import os
import re
import secrets
import stat
import struct
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from dspk import validation
from dspk.bad_channels import BadChannels, chunk_starts, detect_bad_channels
from dspk.designs import Filter
from dspk.detection import DEFAULT_EXCLUDE, checked_peak_options, noise_levels
from dspk.docstrings import shared
from dspk.exact_zero_phase import ExactZeroPhase
from dspk.geometry import check_positions, read_probe
from dspk.multichannel import whiten as whiten_signal
from dspk.multichannel import whitening_matrix
from dspk.quantization import int16_into
from dspk.streaming import (
    CommonReferenceStream,
    DetectPeaksStream,
    HighpassSpatialFilterStream,
    InterpolateBadChannelsStream,
    PhaseShiftStream,
    Stream,
    StreamChain,
    filter_stream,
    zero_phase_margin,
)
from dspk.streaming.filters import CausalStream

try:
    import fcntl
except ImportError:  # Windows, where a file open for writing cannot be removed anyway
    fcntl = None

__all__ = ["Recording", "Summary", "filter_recording", "process_recording",
           "neuropixels_shifts"]

#: The default size of one chunk of samples, in float32 (so about a second
#: of a 384-channel probe at 30 kHz); peak memory is a small multiple of it.
DEFAULT_CHUNK_BYTES = 48 * 2**20

#: The random stretches that the estimates made before a run (the destriping's RMS, the
#: whitening matrix) come from: SpikeInterface's ``get_random_data_chunks`` defaults, 20
#: stretches of 10000 samples, their starts drawn by :func:`dspk.bad_channels.chunk_starts`
#: with this seed. A recording of no more samples than the stretches together is taken whole.
ESTIMATE_STRETCHES = 20
ESTIMATE_STRETCH_SAMPLES = 10000
ESTIMATE_SEED = 0

#: Input dtypes of raw binary recordings.
RAW_DTYPES = ("int16", "uint16", "int32", "float32", "float64")

#: Output dtypes.
OUTPUT_DTYPES = ("int16", "float32")

_sync_data = getattr(os, "fdatasync", os.fsync)  # no fdatasync on macOS
_NPY_HEADER_BYTES = 128
#: File types other than regular files, by the test of their ``st_mode``.
_FILE_KINDS = ((stat.S_ISDIR, "directory"), (stat.S_ISLNK, "symbolic link"),
               (stat.S_ISFIFO, "FIFO (named pipe)"), (stat.S_ISSOCK, "socket"),
               (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"))

#: ADC multiplexing of Neuropixels probes: channels per ADC, and the cycles
#: of one sample period they share (the AP band of a 1.0 probe has one more
#: cycle than channels: the LFP band's).
_MULTIPLEXING = {"neuropixels-1.0": (12, 13)}

#: Set by ``dspk filter``'s SIGINT and SIGTERM handlers: :func:`filter_recording`
#: stops at the next chunk boundary with ``KeyboardInterrupt``. An interrupt
#: raised at any instruction could land in a GPU runtime's native callbacks,
#: which swallow it.
stop_requested = threading.Event()


def neuropixels_shifts(probe="neuropixels-1.0", channels=384):
    """The sampling delay of each channel of a Neuropixels probe, in samples.

    A Neuropixels 1.0 probe digitises its 384 channels with 32 ADCs of 12
    channels each. ADC ``a`` serves channels ``24 * (a // 2) + a % 2 + 2 * i``,
    ``i = 0..11``, in that order, one per cycle of 13 that share a sample
    period (the 13th is for the LFP band), so channel ``c`` is sampled
    ``((c % 24) // 2) / 13`` of a sample after the first. These are
    SpikeGLX's and SpikeInterface's ``inter_sample_shift`` for the AP band,
    to pass to :func:`dspk.phase_shift` or :class:`dspk.streaming.PhaseShiftStream`.

    Parameters
    ----------
    probe : {"neuropixels-1.0"}, optional
        The probe.
    channels : int, optional
        The channels recorded: all 384, in the probe's order.

    Returns
    -------
    ndarray
        ``(channels,)`` float64 delays, from 0 to 11/13.

    Examples
    --------
    >>> from dspk.recordings import neuropixels_shifts
    >>> shifts = neuropixels_shifts()
    >>> shifts[:4] * 13, shifts[22:26] * 13
    (array([0., 0., 1., 1.]), array([11., 11.,  0.,  0.]))
    """
    if probe not in _MULTIPLEXING:
        raise ValueError(f"probe={probe!r} is not one of {', '.join(map(repr, _MULTIPLEXING))}")
    if channels != 384:
        raise ValueError(f"the {probe} phase shift is for the probe's 384 channels; got "
                         f"{channels} (SpikeGLX's 385th channel is the sync channel: pass "
                         "it through unprocessed with sync_channels=1, --sync-channels 1)")
    per_adc, cycles = _MULTIPLEXING[probe]
    return (np.arange(channels) % (2 * per_adc) // 2) / cycles


@dataclass(frozen=True)
class Recording:
    """A recording file: where its samples lie, and how many.

    Use :meth:`open`, which checks the file.

    Parameters
    ----------
    path : pathlib.Path
        The file.
    dtype : numpy.dtype
        The dtype of its samples.
    channels, samples : int
        Its shape, samples by channels.
    offset : int
        Bytes before the first sample (a ``.npy`` header).
    fortran_order : bool
        Whether the samples of each channel lie together (a Fortran-ordered ``.npy``).

    Examples
    --------
    >>> import numpy as np, os, tempfile
    >>> from dspk.recordings import Recording
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "probe.bin")
    ...     np.arange(400, dtype=np.int16).reshape(100, 4).tofile(path)
    ...     recording = Recording.open(path, channels=4)
    ...     first = recording.read(0, 2)
    >>> recording.samples, recording.channels, first.tolist()
    (100, 4, [[0, 1, 2, 3], [4, 5, 6, 7]])
    """

    path: Path
    dtype: np.dtype
    channels: int
    samples: int
    offset: int = 0
    fortran_order: bool = False

    @classmethod
    def open(cls, path, channels=None, dtype=None) -> Recording:
        """Check a raw binary or ``.npy`` recording and describe it.

        Parameters
        ----------
        path : str or os.PathLike
            The file; ``.npy`` files are recognised by their content.
        channels : int, optional
            The channel count: needed for raw binary files; checked against
            a ``.npy`` file's shape.
        dtype : str or numpy.dtype, optional
            The samples' dtype (one of :data:`RAW_DTYPES`): int16 for raw
            binary files by default; checked against a ``.npy`` file's.
        """
        path = Path(path)
        if channels is not None:
            channels = validation.integer(channels, "channels", minimum=1)
        try:
            mode = path.stat().st_mode
        except (FileNotFoundError, NotADirectoryError):
            raise ValueError(f"{path}: no such file") from None
        if not stat.S_ISREG(mode):
            raise ValueError(f"{path} is a {_file_kind(mode)}, not a recording file: recordings "
                             "are read through memory maps, which need a regular file")
        with open(path, "rb") as f:
            is_npy = f.read(6) == b"\x93NUMPY"
        if is_npy:
            return cls._npy(path, channels, dtype)
        if channels is None:
            raise ValueError(f"{path}: a raw binary recording needs its channel count")
        dtype = np.dtype("int16" if dtype is None else dtype)
        if dtype.name not in RAW_DTYPES:
            raise ValueError(f"dtype={dtype.name!r} is not one of {', '.join(RAW_DTYPES)}")
        size, frame = path.stat().st_size, channels * dtype.itemsize
        if size == 0:
            raise ValueError(f"{path} is empty: there are no samples to process")
        if size % frame:
            raise ValueError(f"{path} has {size} bytes, not a whole number of samples of "
                             f"{channels} {dtype.name} channels ({frame} bytes each): "
                             f"{size % frame} bytes are left over; check channels and dtype")
        return cls(path, dtype, channels, size // frame)

    @classmethod
    def _npy(cls, path: Path, channels: int | None, dtype: Any) -> Recording:
        try:
            mapped = np.load(path, mmap_mode="r")
        except ValueError as exc:  # a bad header, or fewer bytes than it promises
            raise ValueError(f"{path}: not a readable .npy file ({exc})") from None
        shape, stored, offset = mapped.shape, mapped.dtype, mapped.offset
        fortran_order = mapped.ndim == 2 and not mapped.flags.c_contiguous
        del mapped
        if len(shape) != 2:
            raise ValueError(f"{path} holds an array of shape {shape}; a recording is 2-D, "
                             "samples by channels")
        if stored.kind not in "iuf":
            raise ValueError(f"{path} holds {stored}; a recording holds integers or floats")
        if channels is not None and channels != shape[1]:
            raise ValueError(f"{path} has {shape[1]} channels (its shape is {shape}, samples "
                             f"by channels); channels={channels} was given")
        if dtype is not None and np.dtype(dtype) != stored:
            raise ValueError(f"{path} holds {stored}; dtype={np.dtype(dtype).name} was given")
        if shape[0] == 0 or shape[1] == 0:
            raise ValueError(f"{path} holds an empty array of shape {shape}")
        return cls(path, stored, shape[1], shape[0], offset, fortran_order)

    def read(self, start: int, stop: int, channels: slice = slice(None),
             dtype: Any = None) -> np.ndarray:
        """Samples ``start:stop`` of ``channels``, ``(stop - start, channels)``, C order.

        The file is mapped for this read only, so its pages do not stay in
        this process's memory; ``dtype`` (the file's by default) is converted
        to on the way. A file shorter than when it was opened raises ``OSError``.

        Parameters
        ----------
        start, stop : int
            The samples to read, ``start:stop``.
        channels : slice, optional
            The channels to read; all by default.
        dtype : numpy.dtype, optional
            The result's dtype; the file's by default.
        """
        with open(self.path, "rb") as f:
            self._check_size(f)
            try:
                mapped = np.memmap(f, self.dtype, "r", self.offset,
                                   (self.samples, self.channels),
                                   "F" if self.fortran_order else "C")
            except ValueError:  # mmap's "length is greater than file size": it shrank
                self._check_size(f)  # since the check above, and this says so
                raise
            return np.array(mapped[start:stop, channels], dtype or self.dtype, order="C")

    def _check_size(self, f: Any) -> None:
        """Raise OSError where the open file ``f`` is shorter than when the run began."""
        size = os.fstat(f.fileno()).st_size
        if size < self.offset + self.nbytes:
            raise OSError(f"{self.path} has {size} bytes, {self.offset + self.nbytes} when "
                          "this run began: it was truncated during the run")

    def mapped(self, channels: slice = slice(None)) -> np.ndarray:
        """The samples of ``channels`` as a read-only memory map (for reading a few stretches).

        Parameters
        ----------
        channels : slice, optional
            The channels to map; all by default.
        """
        return np.memmap(self.path, self.dtype, "r", self.offset, (self.samples, self.channels),
                         "F" if self.fortran_order else "C")[:, channels]

    @property
    def nbytes(self) -> int:
        """The size of the samples, in bytes."""
        return self.samples * self.channels * self.dtype.itemsize


@dataclass(frozen=True)
class Summary:
    """What a run did: its size and its speed.

    Parameters
    ----------
    output : pathlib.Path
        The file written.
    samples, channels : int
        The output's shape, samples by channels.
    fs : float
        The sampling frequency.
    seconds : float
        Wall time of the run.
    clipped : int
        Output values clipped to the int16 range.
    nonfinite : int
        Output values that were NaN or infinite, written as 0 to int16 output
        (``allow_nonfinite=True``).
    nonfinite_input : int
        NaN or infinite samples of the input.
    first_nonfinite : (int, int) or None
        The first of them: its sample and channel.
    bad_channels : dspk.BadChannels or None
        The bad channels found (``filter_recording(bad_channels=...)``).
    peaks : pathlib.Path or None
        The peaks file written (``filter_recording(detect=True)``).
    peak_count : int
        The peaks in it.
    destripe_rms : numpy.ndarray or None
        The RMS of each processed channel that the destriping's gain control
        was given (``filter_recording(destripe=True)``), float64, estimated
        before the run.
    whitening : numpy.ndarray or None
        The whitening matrix ``W`` applied (``filter_recording(whiten=...)``),
        ``(C, C)`` float32 over the processed channels: each output sample is
        ``W @ x`` of the processed sample ``x``, as ``dspk.whiten(x, W=W)``.

    Examples
    --------
    >>> from pathlib import Path
    >>> from dspk.recordings import Summary
    >>> run = Summary(Path("out.bin"), samples=300000, channels=384, fs=30000.0, seconds=2.0)
    >>> round(run.rate / 1e6, 1), run.realtime_factor
    (57.6, 5.0)
    """

    output: Path
    samples: int
    channels: int
    fs: float
    seconds: float
    clipped: int = 0
    nonfinite: int = 0
    nonfinite_input: int = 0
    first_nonfinite: tuple[int, int] | None = None
    bad_channels: BadChannels | None = None
    peaks: Path | None = None
    peak_count: int = 0
    destripe_rms: np.ndarray | None = None
    whitening: np.ndarray | None = None

    @property
    def rate(self) -> float:
        """Samples per second, over every channel."""
        return self.samples * self.channels / max(self.seconds, 1e-9)

    @property
    def realtime_factor(self) -> float:
        """Seconds of recording processed per second."""
        return self.samples / self.fs / max(self.seconds, 1e-9)

    def __str__(self) -> str:
        return (f"{self.output}: {self.channels} channels x {self.samples} samples "
                f"({self.samples / self.fs:.1f} s at {self.fs:g} Hz) in {self.seconds:.1f} s: "
                f"{self.rate / 1e6:.1f} M samples/s, {self.realtime_factor:.1f}x real time")


def _npy_header(samples: int, channels: int, dtype: np.dtype) -> bytes:
    """A version 1.0 ``.npy`` header of exactly :data:`_NPY_HEADER_BYTES` bytes."""
    text = repr({"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False,
                 "shape": (samples, channels)})
    body = text.ljust(_NPY_HEADER_BYTES - 11) + "\n"
    return np.lib.format.magic(1, 0) + struct.pack("<H", len(body)) + body.encode("latin1")


def _file_kind(mode: int) -> str:
    """What a file that is not a regular file is, from its ``st_mode``."""
    return next((name for test, name in _FILE_KINDS if test(mode)), "special file")


def _obstacle(path: Path, overwrite: bool) -> str | None:
    """Why an output cannot be given the name ``path`` now, or None if it can.

    Only a regular file is ever replaced, and only with ``overwrite``; the file
    itself is looked at, not what a symbolic link points to.
    """
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISREG(mode):
        return (f"the output {path} is a {_file_kind(mode)}: dspk replaces only regular files, "
                "even with overwrite=True (--force)")
    if not overwrite:
        return f"the output {path} exists; pass overwrite=True (--force) to replace it"
    return None


def _publish(temporary: Path, path: Path, overwrite: bool) -> None:
    """Give the complete output at ``temporary`` its final name ``path``.

    Without ``overwrite`` a hard link makes the name, which fails if ``path``
    exists, however late it appeared; on a file system without hard links the
    name is checked just before the rename. With ``overwrite`` a regular file
    is replaced; anything else is kept. Either refusal raises ``FileExistsError``
    and leaves ``temporary`` for the caller to remove.
    """
    if overwrite:
        problem = _obstacle(path, overwrite)
        if problem:
            raise FileExistsError(f"{problem}; it became one during the run, and this run's "
                                  "output is discarded")
        os.replace(temporary, path)
        return
    try:
        os.link(temporary, path)
    except FileExistsError:
        raise _appeared(path) from None
    except OSError:  # no hard links here (FAT, some network file systems)
        if os.path.lexists(path):
            raise _appeared(path) from None
        os.rename(temporary, path)
    else:
        os.unlink(temporary)


def _appeared(path: Path) -> FileExistsError:
    return FileExistsError(f"{path} appeared while this run was writing it, and was kept: this "
                           "run's output is discarded; pass overwrite=True (--force) to "
                           "replace it")


def partial_outputs(destination) -> list[tuple[Path, bool]]:
    """The temporary outputs of runs writing ``destination``, left beside it.

    A run that ends normally, by an error or by an interrupt removes its
    ``.NAME.*.partial`` file; one that is killed outright (``SIGKILL``, a
    power cut) leaves it. A run in progress holds a lock on its own, which
    tells the two apart (where the system has ``flock``).

    Parameters
    ----------
    destination : str or os.PathLike
        An output file.

    Returns
    -------
    list of (pathlib.Path, bool)
        Each such file, and whether a run is writing it now.
    """
    destination = Path(destination)
    # The names _Output gives them.
    pattern = re.compile(rf"\.{re.escape(destination.name)}\.[0-9a-f]{{12}}\.partial")
    try:
        names = sorted(os.listdir(destination.parent))
    except OSError:
        return []
    found = []
    for name in filter(pattern.fullmatch, names):
        path = destination.parent / name
        try:
            found.append((path, _in_use(path)))
        except FileNotFoundError:  # its run has just finished
            continue
        except OSError:  # unreadable: whether a run holds it is unknown
            found.append((path, False))
    return found


def _in_use(path: Path) -> bool:
    """Whether a run holds the lock on a temporary output (False where locks are unknown)."""
    if fcntl is None:
        return False
    with open(path, "rb") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
    return False


class _Output:
    """An output file written under a temporary name, named only when complete.

    Blocks are written on a thread of their own, one at a time, while the next
    chunk computes; :meth:`write` waits for the block before the last, so at most
    one block is held beyond the caller's. Each block is flushed to the disk on that
    thread too, so that the final ``fsync`` has only the last one left to wait for.
    The temporary file is locked while it is written (see :func:`partial_outputs`).
    """

    def __init__(self, path: Path, channels: int, dtype: np.dtype, overwrite: bool):
        self.path, self.channels, self.dtype, self.overwrite = path, channels, dtype, overwrite
        self.samples = 0
        self._npy = path.suffix.lower() == ".npy"
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="dspk-write")
        self._writing: Future | None = None

    def __enter__(self) -> _Output:
        # Not tempfile.mkstemp: its files are private (0600); this one gets the umask's mode.
        while True:
            self._temporary = self.path.with_name(
                f".{self.path.name}.{secrets.token_hex(6)}.partial")
            try:
                self._file = open(self._temporary, "xb")
                break
            except FileExistsError:
                continue
        if fcntl is not None:
            fcntl.flock(self._file, fcntl.LOCK_EX)
        if self._npy:
            self._file.write(b"\0" * _NPY_HEADER_BYTES)
        return self

    def write(self, block: np.ndarray) -> None:
        data = np.ascontiguousarray(block, self.dtype).data
        self._wait()
        self._writing = self._writer.submit(self._write_through, data)
        self.samples += len(block)

    def _write_through(self, data: memoryview) -> None:
        self._file.write(data)
        self._file.flush()
        _sync_data(self._file.fileno())

    def _wait(self) -> None:
        """Wait for the block being written; raise its error, if any."""
        if self._writing is not None:
            writing, self._writing = self._writing, None
            writing.result()

    def commit(self) -> None:
        """Complete the file and give it its final name (see :func:`_publish`)."""
        self._wait()
        if self._npy:
            self._file.seek(0)
            self._file.write(_npy_header(self.samples, self.channels, self.dtype))
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        _publish(self._temporary, self.path, self.overwrite)

    def __exit__(self, kind, error, trace) -> None:
        self._writer.shutdown(wait=True)
        if not self._file.closed:
            self._file.close()
        if os.path.exists(self._temporary):
            os.unlink(self._temporary)


class _Converter:
    """float32 samples to the output dtype: int16 rounded and clipped, counting the clipped.

    int16 as :func:`dspk.quantization.int16_into` writes it (as
    :func:`dspk.to_int16`); NaN and infinity are written as 0 and counted in
    ``nonfinite``, apart from the clipped values.
    """

    def __init__(self, dtype: np.dtype, scale: float):
        self.dtype, self.scale = dtype, scale
        self.clipped = self.nonfinite = 0

    def __call__(self, y: np.ndarray, sync: np.ndarray) -> np.ndarray:
        """The processed samples ``y`` beside the ``sync`` samples (unscaled), converted."""
        if self.dtype == np.float32:
            if sync.shape[1]:
                return np.concatenate([y, sync], axis=1, dtype=np.float32)
            return y.astype(np.float32, copy=False)
        out = np.empty((len(y), y.shape[1] + sync.shape[1]), np.int16)
        self._int16(y, self.scale, out[:, :y.shape[1]])
        self._int16(sync, 1.0, out[:, y.shape[1]:])
        return out

    def _int16(self, x: np.ndarray, scale: float, out: np.ndarray) -> None:
        clipped, nonfinite = int16_into(x, scale, out)
        self.clipped += clipped
        self.nonfinite += nonfinite


class _NonfiniteInput:
    """The NaN and infinite samples of a float input: how many, and the first."""

    def __init__(self):
        self.count, self.first = 0, None

    def check(self, block: np.ndarray, start: int, column: int = 0) -> None:
        """Count those of the float ``block``, samples ``start:`` of channels ``column:``."""
        if not block.size or (np.isfinite(block.min()) and np.isfinite(block.max())):
            return
        bad = ~np.isfinite(block)
        self.count += int(np.count_nonzero(bad))
        row, col = np.argwhere(bad)[0]
        first = (start + int(row), column + int(col))
        self.first = first if self.first is None else min(self.first, first)


class _Progress:
    """A tqdm bar of samples per second (every channel) and the real-time factor."""

    def __init__(self, recording: Recording, fs: float, enabled: bool):
        from tqdm.auto import tqdm

        self._fs, self._channels = fs, recording.channels
        self._bar = tqdm(total=recording.samples * recording.channels, unit=" samples",
                         unit_scale=True, unit_divisor=1000, desc=recording.path.name,
                         disable=not enabled, file=sys.stderr, dynamic_ncols=True)
        self._start = time.perf_counter()
        self._done = 0

    def advance(self, samples: int) -> None:
        self._done += samples
        self._bar.update(samples * self._channels)
        seconds = time.perf_counter() - self._start
        self._bar.set_postfix_str(f"{self._done / self._fs / max(seconds, 1e-9):.1f}x real time",
                                  refresh=False)

    def close(self) -> None:
        self._bar.close()


def _destination(source: Path, destination: Any, overwrite: bool) -> Path:
    destination = Path(destination)
    if destination.resolve() == source.resolve() or (
            destination.exists() and os.path.samefile(destination, source)):
        raise ValueError(f"the output {destination} is the input: dspk never writes over its "
                         "input; choose another name")
    problem = _obstacle(destination, overwrite)
    if problem:
        raise ValueError(problem)
    if not destination.parent.is_dir():
        raise ValueError(f"the output's directory {destination.parent} does not exist")
    return destination


def _chunk_samples(chunk_samples: Any, channels: int) -> int:
    if chunk_samples is None:
        return max(1, DEFAULT_CHUNK_BYTES // (4 * channels))
    return validation.integer(chunk_samples, "chunk_samples", minimum=1)


def process_recording(source, destination, stream, fs, *, channels=None, dtype=None,
                      output_dtype=None, scale=1.0, sync_channels=0, chunk_samples=None,
                      overwrite=False, allow_nonfinite=False, progress=True):
    """Run a stream over a recording file, chunk by chunk, into another file.

    Parameters
    ----------
    source : str or os.PathLike
        A raw binary (samples by channels) or ``.npy`` recording.
    destination : str or os.PathLike
        The output file: ``.npy`` if its name ends so, raw binary otherwise.
    stream : dspk.streaming.Stream
        The processing, over float32 chunks of samples by channels (time
        axis 0), giving as many channels as it takes.
    fs : float
        The sampling frequency, for the real-time factor.
    channels : int, optional
        The channel count (needed for raw binary files).
    dtype : str, optional
        The input's dtype, one of :data:`RAW_DTYPES`; int16 by default for
        raw binary files.
    output_dtype : {"int16", "float32"}, optional
        int16 (``round(y * scale)``, clipped) or float32. Default: int16 for
        int16 input, else float32.
    scale : float, optional
        The factor applied before rounding to int16. Default 1.
    sync_channels : int, optional
        The last channels that are copied unprocessed (SpikeGLX's sync
        channel, for instance), kept in step with the stream's output.
    chunk_samples : int, optional
        Samples per chunk; by default :data:`DEFAULT_CHUNK_BYTES` of float32.
    overwrite : bool, optional
        Replace an existing output, which must be a regular file. Default False.
    allow_nonfinite : bool, optional
        Write NaN and infinite values to int16 output as 0, counted in the
        summary. Default False: the run stops with ``ValueError`` at the first
        (float32 output keeps them).
    progress : bool, optional
        Show a progress bar on standard error. Default True.

    Returns
    -------
    Summary
        The output's shape and the run's speed.

    Raises
    ------
    ValueError
        Bad arguments or input; NaN or infinity bound for int16 output.
    OSError
        Reading or writing failed, the input was truncated during the run, or
        the output appeared meanwhile (``FileExistsError``).
    KeyboardInterrupt
        :data:`stop_requested` was set.

    Examples
    --------
    >>> import numpy as np, os, tempfile
    >>> from dspk.recordings import process_recording
    >>> from dspk.streaming import CommonReferenceStream
    >>> x = np.random.default_rng(0).normal(0, 100, (3000, 4)).astype(np.float32)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     source, target = os.path.join(folder, "in.npy"), os.path.join(folder, "out.npy")
    ...     np.save(source, x)
    ...     run = process_recording(source, target, CommonReferenceStream(operator="average",
    ...                             axis=0), 30000.0, chunk_samples=1000, progress=False)
    ...     y = np.load(target)
    >>> run.samples, bool(np.allclose(y, x - x.mean(axis=1, keepdims=True), atol=1e-3))
    (3000, True)
    """
    started = time.perf_counter()
    if not isinstance(stream, Stream):
        raise TypeError(f"stream must be a dspk.streaming.Stream; got {type(stream).__name__}")
    fs = validation.sampling_rate(fs)
    recording = Recording.open(source, channels, dtype)
    destination = _destination(recording.path, destination, overwrite)
    output_dtype = _output_dtype(output_dtype, recording)
    sync_channels = validation.integer(sync_channels, "sync_channels", minimum=0)
    if sync_channels >= recording.channels:
        raise ValueError(f"sync_channels={sync_channels} must leave at least one of the "
                         f"{recording.channels} channels to process")
    processed = recording.channels - sync_channels
    step = _chunk_samples(chunk_samples, recording.channels)
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real) or not (
            np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a finite number > 0; got {scale!r}")
    convert = _Converter(output_dtype, float(scale))
    found, floats = _NonfiniteInput(), recording.dtype.kind == "f"
    waiting = np.empty((0, sync_channels), recording.dtype)  # sync samples not yet written
    bar = _Progress(recording, fs, progress)
    try:
        with _Output(destination, recording.channels, output_dtype, overwrite) as out:
            for start in range(0, recording.samples, step):
                if stop_requested.is_set():
                    raise KeyboardInterrupt
                stop = min(start + step, recording.samples)
                if sync_channels:
                    sync = recording.read(start, stop, slice(processed, None))
                    if floats:
                        found.check(sync, start, processed)
                    waiting = np.concatenate([waiting, sync])
                chunk = recording.read(start, stop, slice(0, processed), np.float32)
                if floats:
                    found.check(chunk, start)
                waiting = _write(out, convert, stream.push(chunk), waiting)
                _check_nonfinite(recording.path, convert, found, allow_nonfinite)
                bar.advance(stop - start)
            _write(out, convert, stream.finish(), waiting)
            _check_nonfinite(recording.path, convert, found, allow_nonfinite)
            if out.samples != recording.samples:
                raise RuntimeError(f"the stream gave {out.samples} samples for "
                                   f"{recording.samples}; it must keep the signal's length")
            out.commit()
    finally:
        bar.close()
    return Summary(destination, recording.samples, recording.channels, fs,
                   time.perf_counter() - started, convert.clipped, convert.nonfinite,
                   found.count, found.first)


def _output_dtype(output_dtype: Any, recording: Recording) -> np.dtype:
    """The checked output dtype: by default int16 for int16 input, else float32."""
    output_dtype = np.dtype(output_dtype or ("int16" if recording.dtype == np.int16
                                             else "float32"))
    if output_dtype.name not in OUTPUT_DTYPES:
        raise ValueError(f"output_dtype={output_dtype.name!r} is not one of "
                         f"{', '.join(OUTPUT_DTYPES)}")
    return output_dtype


def _write(out: _Output, convert: _Converter, y: np.ndarray, waiting: np.ndarray) -> np.ndarray:
    """Write ``y`` beside as many waiting sync samples, converted; return those still waiting."""
    if y.shape[1] != out.channels - waiting.shape[1]:
        raise RuntimeError(f"the stream gave {y.shape[1]} channels for "
                           f"{out.channels - waiting.shape[1]}; it must keep them")
    out.write(convert(y, waiting[:len(y)]))
    return waiting[len(y):]


def _check_nonfinite(path: Path, convert: _Converter, found: _NonfiniteInput,
                     allow: bool) -> None:
    """Stop a run whose int16 output has met NaN or infinity, unless they are allowed.

    The block is already on its way to the temporary file, which the error removes.
    """
    if convert.nonfinite and not allow:
        raise _nonfinite_error(path, found)


def _nonfinite_error(path: Path, found: _NonfiniteInput) -> ValueError:
    """The error of a run whose int16 output would meet NaN or infinity."""
    if found.first is None:
        cause = "the filtered signal overflowed float32 to infinity"
    else:
        sample, channel = found.first
        cause = (f"sample {sample} of channel {channel} is NaN or infinite (the first of "
                 f"{found.count} so far), and the filters spread it")
    return ValueError(f"{path}: {cause}; int16 output cannot hold NaN or infinity: write "
                      "output_dtype='float32' (--output-dtype float32) to keep them, or pass "
                      "allow_nonfinite=True (--allow-nonfinite) to write them as 0")


def _reader(recording: Recording, processed: int, stop_at_nonfinite: bool):
    """``read(start, stop)``: the processed channels' samples as float32, for a stage that
    reads the recording itself; with ``stop_at_nonfinite``, NaN or infinity there stops
    the run, as in :func:`process_recording` (an exact zero-phase filter's first passes
    meet them before the run does)."""
    found = _NonfiniteInput()

    def read(start: int, stop: int) -> np.ndarray:
        block = recording.read(start, stop, slice(0, processed), np.float32)
        if stop_at_nonfinite:
            found.check(block, start)
            if found.first is not None:
                raise _nonfinite_error(recording.path, found)
        return block

    return read


@shared
def filter_recording(source, destination, fs, *, channels=None, dtype=None, bandpass=None,
                     highpass=None, order=4, zero_phase=True, one_pass=False, phase_shift=None,
                     bad_channels=None, reference=None, positions=None,
                     local_radius=(30.0, 55.0), destripe=False, whiten=None, whiten_radius=None,
                     whiten_neighbours=None, detect=False, detect_threshold=5.0,
                     detect_sign="neg", output_dtype=None, scale=1.0, sync_channels=0,
                     chunk_samples=None, overwrite=False, allow_nonfinite=False, progress=True,
                     runtime=None):
    """Filter a recording file: band-pass or high-pass, phase shift, bad channels, reference,
    destriping, whitening, and peaks.

    The steps run in SpikeInterface's recommended order, each as a stream of
    :mod:`dspk.streaming` in float32: the filter (a Butterworth filter of
    :class:`dspk.Filter`, zero phase by default), the phase shift, the
    interpolation of bad channels, the common reference, the destriping,
    then the whitening; threshold peaks are detected on the result. See
    :func:`process_recording` for the files.

    Bad channels are detected before the run by :func:`dspk.detect_bad_channels`
    (IBL's coherence and PSD method, with its defaults and ``seed=0``) on
    random stretches of the raw input, read from the file. Peaks use noise
    levels (:func:`dspk.noise_levels`, MAD) of the first second of the
    processed signal (SpikeInterface takes them from random chunks of the
    whole recording), then :class:`dspk.streaming.DetectPeaksStream`, exact
    across chunks; they are written beside the output as ``STEM.peaks.npy``
    (the structured array of :func:`dspk.detect_peaks`, processed channels'
    indices), once the output is complete.

    The destriping's RMS values and the whitening matrix are estimated
    before the run, as SpikeInterface's ``highpass_spatial_filter`` and
    ``whiten`` estimate them from random chunks of the preprocessed
    recording: :data:`ESTIMATE_STRETCHES` random stretches of
    :data:`ESTIMATE_STRETCH_SAMPLES` samples (starts drawn with
    :data:`ESTIMATE_SEED`, so runs are reproducible; the whole recording
    when it is no longer than they are together), each read with the
    context its stages need on both sides (the filter's zero-phase margin,
    the phase shift's margin, half the destriping's gain window), run
    through fresh copies of the stages before the estimate and cut back to
    the stretch, so that their start-up transients are discarded. The RMS
    of each channel over the stretches at the destriping's input is its
    gain control's ``rms_values`` (:attr:`Summary.destripe_rms`).
    :func:`dspk.whiten` of the stretches at the whitening's input, joined,
    gives ``W`` (its default ``eps``, no mean subtracted), which then
    multiplies every output sample, sample by sample, and is returned as
    :attr:`Summary.whitening`.

    Parameters
    ----------
    source, destination : str or os.PathLike
        The recording, and the output to write.
    fs : float
        The sampling frequency, in Hz.
    channels : int, optional
        The channel count (needed for raw binary files).
    dtype : str, optional
        The input's dtype; int16 by default for raw binary files.
    bandpass : (float, float), optional
        The band to pass, in Hz.
    highpass : float, optional
        The high-pass cut-off, in Hz (instead of ``bandpass``).
    order : int, optional
        The filter order (a band-pass has twice it), as :class:`dspk.Filter`'s. Default 4.
    zero_phase : bool, optional
        Filter forward and backward (default) or forward only.
    one_pass : bool, optional
        Run a zero-phase filter in one pass over the file, each backward
        pass starting a margin ahead (:class:`dspk.streaming.SosfiltfiltStream`:
        within 1e-12 of the one-shot result). Default False: exact, in three
        passes (:mod:`dspk.exact_zero_phase`), and for filters of any cut-off.
    phase_shift : str or array_like, optional
        ``"neuropixels-1.0"`` (see :func:`neuropixels_shifts`), or the delay
        of each processed channel in samples.
    bad_channels : {"detect", "interpolate"}, optional
        ``"detect"``: find the bad channels (dead, noisy, outside the brain)
        and report them in the summary; ``"interpolate"``: also replace
        them by kriging from their neighbours
        (:class:`~dspk.streaming.InterpolateBadChannelsStream`; needs
        ``positions``).
    reference : {"median", "average", "local"}, optional
        Subtract the median or the mean across the processed channels, or
        (``"local"``) each channel's median over the channels in the annulus
        ``local_radius`` around it (needs ``positions``).
    positions : array_like or str or os.PathLike, optional
        The processed channels' ``(x, y)`` positions in micrometres, shape
        ``(C, 2)``, or a probeinterface JSON file (:func:`dspk.read_probe`).
    local_radius : (float, float), optional
        The annulus of the local reference, in micrometres. Default ``(30, 55)``.
    destripe : bool, optional
        Destripe after the reference: :func:`dspk.highpass_spatial_filter`
        (IBL's spatial high-pass filter) with its defaults, except
        ``n_channel_pad`` at most the channel count, channels sorted by
        depth when ``positions`` are given (in their order otherwise), as
        :class:`~dspk.streaming.HighpassSpatialFilterStream`.
    whiten : {"global", "local"}, optional
        ZCA-whiten the output with a matrix estimated before the run (see
        above): over all the processed channels, or (``"local"``, needs
        ``positions``) each channel against its neighbourhood, as
        :func:`dspk.whiten`'s ``mode``.
    whiten_radius : float, optional
        ``whiten="local"``: the neighbourhood is the channels at most this
        many micrometres away (SpikeInterface's ``radius_um``).
    whiten_neighbours : int, optional
        ``whiten="local"``: the neighbourhood is this many nearest channels
        (Kilosort 4's ``whitening_range``). Give one of ``whiten_radius`` and
        ``whiten_neighbours``.
    detect : bool, optional
        Detect threshold peaks in the output, channel by channel, with
        :func:`dspk.detect_peaks`'s exclusion window (SpikeInterface's
        ``"by_channel"`` method), and write them beside it.
    detect_threshold : float, optional
        The threshold, in noise levels. Default 5.
    detect_sign : {"neg", "pos", "both"}, optional
        The peaks' sign. Default ``"neg"``.
    output_dtype, scale, sync_channels, chunk_samples, overwrite, allow_nonfinite, progress
        As :func:`process_recording`'s.
    {runtime}

    Returns
    -------
    Summary
        The output's shape and the run's speed.

    Examples
    --------
    >>> import numpy as np, os, tempfile
    >>> from dspk.recordings import filter_recording
    >>> rng = np.random.default_rng(0)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     source, target = os.path.join(folder, "probe.bin"), os.path.join(folder, "out.npy")
    ...     (rng.standard_normal((30000, 8)) * 100).astype(np.int16).tofile(source)
    ...     summary = filter_recording(source, target, 30000.0, channels=8,
    ...                                bandpass=(300, 6000), reference="median", progress=False)
    ...     filtered = np.load(target)
    >>> summary.samples, filtered.shape, filtered.dtype
    (30000, (30000, 8), dtype('int16'))
    """
    fs = validation.sampling_rate(fs)
    recording = Recording.open(source, channels, dtype)
    stages = []
    if bandpass is not None and highpass is not None:
        raise ValueError("give bandpass or highpass, not both")
    name = "bandpass" if bandpass is not None else "highpass"
    try:
        if bandpass is not None:
            low, high = bandpass
            design = Filter.bandpass(low, high, fs, order, zero_phase=zero_phase)
        elif highpass is not None:
            design = Filter.highpass(highpass, fs, order, zero_phase=zero_phase)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    processed = recording.channels - validation.integer(sync_channels, "sync_channels",
                                                         minimum=0)
    if bandpass is not None or highpass is not None:
        if design.zero_phase and not one_pass:
            int16_out = _output_dtype(output_dtype, recording) == np.int16
            read = _reader(recording, processed, int16_out and recording.dtype.kind == "f"
                           and not allow_nonfinite)
            stages.append(ExactZeroPhase(design.sos, read, recording.samples,
                                         _chunk_samples(chunk_samples, recording.channels),
                                         runtime=runtime))
        else:
            stages.append(_chunked_filter(design, name, runtime))
    if phase_shift is not None:
        shifts = (neuropixels_shifts(phase_shift, processed) if isinstance(phase_shift, str)
                  else phase_shift)
        stages.append(PhaseShiftStream(shifts, axis=0, runtime=runtime))
    validation.choice(bad_channels, (None, "detect", "interpolate"), "bad_channels")
    validation.choice(reference, (None, "median", "average", "local"), "reference")
    if positions is not None:
        if isinstance(positions, (str, os.PathLike)):
            positions = read_probe(positions)
        positions = check_positions(positions, processed)
    for option, value, wanted in (("bad_channels", bad_channels, "interpolate"),
                                  ("reference", reference, "local"), ("whiten", whiten, "local")):
        if value == wanted and positions is None:
            raise ValueError(f"{option}={value!r} needs the channels' positions: give "
                             "positions (--probe)")
    whitening = _whitening_options(whiten, whiten_radius, whiten_neighbours, positions)
    found = None
    if bad_channels is not None:
        found = detect_bad_channels(recording.mapped(slice(0, processed)), fs, axis=0,
                                    positions=positions, seed=0, runtime=runtime)
        if found.indices.size == processed:
            raise ValueError(f"{recording.path}: bad-channel detection labelled every channel "
                             "bad; its thresholds (psd_hf_threshold 0.02) assume microvolts: "
                             "is the recording in other units?")
        if bad_channels == "interpolate" and found.indices.size:
            stages.append(InterpolateBadChannelsStream(found.indices, positions, axis=0,
                                                       runtime=runtime))
    if reference == "local":
        stages.append(CommonReferenceStream("local", radius=local_radius, positions=positions,
                                            axis=0, runtime=runtime))
    elif reference is not None:
        stages.append(CommonReferenceStream(operator=reference, axis=0, runtime=runtime))
    destriping = None
    if destripe:
        try:  # the options, checked before any work; the RMS values come later
            destriping = {"fs": fs, "positions": positions, "n_channel_pad": min(60, processed),
                          "axis": 0, "runtime": runtime}
            HighpassSpatialFilterStream(rms_values=np.ones(processed), **destriping)
        except ValueError as exc:
            raise ValueError(f"destripe (--destripe): {exc}") from None
    if not stages and not detect and whiten is None and not destripe:
        raise ValueError("nothing to do: give bandpass, highpass, phase_shift, "
                         "bad_channels='interpolate', reference, destripe, whiten or detect")
    target = _destination(recording.path, destination, overwrite)
    peak_file = target.with_name(target.stem + ".peaks.npy") if detect else None
    if peak_file is not None:
        obstacle = _obstacle(peak_file, overwrite)
        if obstacle:
            raise FileExistsError(obstacle)
    rms = None
    if destripe:
        squares, count = np.zeros(processed), 0
        for piece in _stretches(recording, processed, stages, fs, _spans(recording.samples)):
            squares += np.einsum("ij,ij->j", piece, piece, dtype=np.float64)
            count += len(piece)
        rms = np.sqrt(squares / count)
        stages.append(HighpassSpatialFilterStream(rms_values=rms, **destriping))
    matrix = None
    if whiten is not None:
        spans = _spans(recording.samples)
        sample = np.empty((sum(stop - start for start, stop in spans), processed), np.float32)
        at = 0
        for piece in _stretches(recording, processed, stages, fs, spans):
            sample[at:at + len(piece)] = piece
            at += len(piece)
        matrix = whitening_matrix(sample, mode=whiten, axis=0, runtime=runtime, **whitening)
        del sample
        stages.append(_Whiten(matrix, runtime))
    peaks = None
    if detect:
        peaks = _PeakTap(fs, detect_threshold, detect_sign, runtime)
        stages.append(peaks)
    summary = process_recording(source, destination, StreamChain(*stages), fs,
                                channels=channels, dtype=dtype, output_dtype=output_dtype,
                                scale=scale, sync_channels=sync_channels,
                                chunk_samples=chunk_samples, overwrite=overwrite,
                                allow_nonfinite=allow_nonfinite, progress=progress)
    count = 0
    if peaks is not None:
        count = peaks.write(peak_file, overwrite)
    return replace(summary, bad_channels=found, peaks=peak_file, peak_count=count,
                   destripe_rms=rms, whitening=matrix)


def _whitening_options(whiten: Any, radius: Any, neighbours: Any,
                       positions: Any) -> dict[str, Any]:
    """Check the whitening's options; :func:`dspk.whiten`'s keywords for its neighbourhood."""
    validation.choice(whiten, (None, "global", "local"), "whiten")
    if whiten != "local":
        for name, value in (("whiten_radius", radius), ("whiten_neighbours", neighbours)):
            if value is not None:
                raise ValueError(f"{name} (--{name.replace('_', '-')}) applies to "
                                 "whiten='local' (--whiten local) only")
        return {}
    if (radius is None) == (neighbours is None):
        raise ValueError("whiten='local' (--whiten local) needs one of whiten_radius "
                         "(--whiten-radius, micrometres) and whiten_neighbours "
                         "(--whiten-neighbours, a count)")
    if radius is not None:
        radius = validation.real_number(radius, "whiten_radius")
        if not 0 < radius < np.inf:
            raise ValueError(f"whiten_radius (--whiten-radius) must be a finite number of "
                             f"micrometres > 0; got {radius!r}")
        return {"radius": radius, "positions": positions}
    return {"neighbours": validation.integer(neighbours, "whiten_neighbours", minimum=1),
            "positions": positions}


def _transient(stage: Stream, fs: float) -> int:
    """The samples a stage needs before and after a stretch for its output there to be settled.

    A zero-phase filter's or a phase shift's margin; a causal filter's is where its impulse
    response has decayed (a second where that is beyond reach).
    """
    if isinstance(stage, CausalStream):
        try:
            return stage.settling
        except ValueError:
            return max(int(fs), 1)
    return int(getattr(stage, "margin", 0))


def _spans(samples: int) -> list[tuple[int, int]]:
    """The stretches of the estimates, ``(start, stop)``: see :data:`ESTIMATE_STRETCHES`."""
    length = ESTIMATE_STRETCH_SAMPLES
    if ESTIMATE_STRETCHES * length >= samples:
        return [(0, samples)]
    return [(int(start), int(start) + length) for start in
            chunk_starts(samples, length, ESTIMATE_STRETCHES, ESTIMATE_SEED)]


def _stretches(recording: Recording, processed: int, stages: list[Stream], fs: float,
               spans: list[tuple[int, int]]):
    """The stretches ``spans``, each run through fresh copies of ``stages``.

    Each is read with the context the stages need on both sides (less at the recording's
    ends, where the one-shot chain starts too), processed as one signal, and cut back to
    the stretch. An exact zero-phase filter runs there in one pass, within 1e-9
    (:meth:`~dspk.exact_zero_phase.ExactZeroPhase.one_pass`): an estimate's input.
    """
    samples = recording.samples
    stages = [stage.one_pass() if isinstance(stage, ExactZeroPhase) else stage
              for stage in stages]
    context = sum(_transient(stage, fs) for stage in stages)
    for start, stop in spans:
        lo, hi = max(0, start - context), min(samples, stop + context)
        piece = recording.read(lo, hi, slice(0, processed), np.float32)
        if stages:
            chain = copy.deepcopy(StreamChain(*stages))  # fresh: the stages have seen nothing
            piece = np.concatenate([chain.push(piece), chain.finish()])
        yield piece[start - lo:stop - lo]


class _Whiten(Stream):
    """``W @ x`` for each sample ``x``: :func:`dspk.whiten` with the matrix given."""

    def __init__(self, matrix: np.ndarray, runtime: str | None):
        super().__init__(0, runtime)
        self._matrix = matrix

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        return whiten_signal(chunk, W=self._matrix, axis=0, runtime=self.runtime)[0]


class _PeakTap(Stream):
    """Passes samples through; detects their peaks, with noise levels of the first second."""

    def __init__(self, fs: float, threshold: Any, sign: Any, runtime: str | None):
        super().__init__(0, runtime)
        self._options = {"threshold": threshold, "sign": sign}
        checked_peak_options(threshold, sign, DEFAULT_EXCLUDE, None, None)
        self._noise_samples = max(int(fs), 1)
        self._waiting: list[np.ndarray] = []
        self._detector: DetectPeaksStream | None = None
        self._found: list[np.ndarray] = []

    def _start(self) -> None:
        """Noise levels of the samples waiting (up to a second); detect in them."""
        waiting = np.concatenate(self._waiting)
        self._waiting = []
        noise = noise_levels(waiting[:self._noise_samples], axis=0, runtime=self.runtime)
        self._detector = DetectPeaksStream(noise, axis=0, runtime=self.runtime, **self._options)
        self._found.append(self._detector.push(waiting))

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        if self._detector is not None:
            self._found.append(self._detector.push(chunk))
        else:
            self._waiting.append(chunk)
            if sum(map(len, self._waiting)) >= self._noise_samples:
                self._start()
        return chunk

    def write(self, path: Path, overwrite: bool) -> int:
        """Finish the detection; write the peaks to ``path`` atomically; return their count."""
        if self._detector is None:  # the signal was shorter than a second
            self._start()
        found = np.concatenate([*self._found, self._detector.finish()])
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
        try:
            with open(temporary, "xb") as f:
                np.save(f, found)
            _publish(temporary, path, overwrite)
        finally:
            temporary.unlink(missing_ok=True)
        return len(found)


def _chunked_filter(design: Filter, name: str, runtime: str | None) -> Stream:
    """The stream of ``design`` (given as ``name``) over chunks of samples by channels.

    A zero-phase filter in one pass looks ahead until its impulse response has decayed;
    one that rings too long for that (a cut-off far below the sampling rate)
    is refused with the ways out that :func:`filter_recording` has.
    """
    margin = None
    if design.zero_phase:
        try:
            margin = zero_phase_margin(design.sos)
        except ValueError:
            raise ValueError(
                f"{name}: this zero-phase filter rings too long to filter in one pass: its "
                "backward pass would have to look ahead until its impulse response decays; "
                "filter exactly in three passes (one_pass=False, without --one-pass), raise "
                "the cut-off, or filter forward only (zero_phase=False, --causal)"
            ) from None
    return filter_stream(design, axis=0, margin=margin, runtime=runtime)
