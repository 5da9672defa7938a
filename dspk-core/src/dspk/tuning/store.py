"""The tuning cache on disk: one small JSON file per tuned problem.

Layout, under ``DSPK_CACHE_DIR`` or else the user cache directory::

    tune/v1/<runtime>/<fingerprint id>/fingerprint.json
    tune/v1/<runtime>/<fingerprint id>/<op>/<dtype>-<layout>-<params>/<channels>x<samples>.json

An entry records every variant's kernel source hash and median seconds, and
the winner::

    {"format": 1, "problem": {...}, "fingerprint": {...},
     "timings": {"numba": {"source": "1f2e...", "seconds": 0.0021}, ...},
     "winner": "numba", "dspk": "0.1.0"}

Entries are written to a temporary file and renamed into place, so readers
never see half an entry. Loading is plain JSON, never code. An entry that is
unreadable, malformed, of another format, or for another problem or device is
ignored with one :class:`TuningCacheWarning` and tuned again. A cache that
cannot be written is only read: one warning, and results stay in the process.
A process tuning a problem holds its lock file, which only saves duplicate
work: nobody waits for it longer than :data:`LOCK_WAIT`, and one older than
:data:`LOCK_EXPIRY` is removed.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import math
import os
import re
import tempfile
import time
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import filelock
import platformdirs

from dspk import environment
from dspk.plugin import Problem

FORMAT = 1
#: Seconds at most that a process waits for another one tuning the same problem.
LOCK_WAIT = 10.0
#: Seconds after which a lock file counts as left by a process that ended while tuning.
LOCK_EXPIRY = 120.0

#: Cache roots that could not be written in this process: from then on only read.
_read_only: set[Path] = set()


class TuningCacheWarning(UserWarning):
    """The tuning cache is not used as it is: an entry was ignored (it is tuned again),
    or the cache cannot be written (results stay in this process)."""


def cache_root() -> Path:
    """``DSPK_CACHE_DIR``, else the user cache directory of dspk (read on each call)."""
    return _cache_root(environment.get("DSPK_CACHE_DIR"), environment.get("XDG_CACHE_HOME"),
                       environment.get("HOME"))


@functools.lru_cache(maxsize=8)
def _cache_root(chosen: str | None, xdg_cache_home: str | None, home: str | None) -> Path:
    """The root for these values of the variables it depends on (platformdirs costs
    tens of microseconds, a small call's whole overhead)."""
    return Path(chosen or platformdirs.user_cache_dir("dspk"))


def _slug(params: Mapping[str, Any]) -> str:
    text = ",".join(f"{k}={v}" for k, v in sorted(params.items())) or "default"
    if re.fullmatch(r"[A-Za-z0-9_=,.-]{1,80}", text):
        return text
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def fingerprint_id(fingerprint: Mapping[str, str]) -> str:
    """A short, stable name for a device fingerprint.

    Examples
    --------
    >>> fingerprint_id({"model": "x"}) == fingerprint_id({"model": "x"})
    True
    """
    text = json.dumps(dict(fingerprint), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class TuningStore:
    """The entries of one runtime on one device.

    Parameters
    ----------
    runtime : str
        Runtime name.
    fingerprint : mapping
        The device fingerprint of :meth:`dspk.plugin.Backend.fingerprint`.
    root : path, optional
        Cache root; :func:`cache_root` by default.
    """

    def __init__(self, runtime: str, fingerprint: Mapping[str, str], root: Path | None = None):
        self.fingerprint = {str(k): str(v) for k, v in fingerprint.items()}
        self.root = root or cache_root()
        self.directory = (self.root / "tune" / f"v{FORMAT}" / runtime
                          / fingerprint_id(self.fingerprint))
        self._rejected: set[tuple[Path, str]] = set()

    @property
    def writable(self) -> bool:
        """False once writing under this cache root failed in this process."""
        return self.root not in _read_only

    def _group(self, problem: Problem) -> Path:
        return (self.directory / problem.op
                / f"{problem.dtype}-{problem.layout}-{_slug(dict(problem.params))}")

    def path(self, problem: Problem) -> Path:
        """Where the entry of ``problem`` lives."""
        return self._group(problem) / f"{problem.channels}x{problem.samples}.json"

    def load(self, problem: Problem) -> dict | None:
        """The entry of ``problem``, or None when there is no valid one."""
        return self._read(self.path(problem), problem)

    def _read(self, path: Path, problem: Problem) -> dict | None:
        try:
            raw = path.read_bytes()
        except (FileNotFoundError, NotADirectoryError):  # none there, or the root is a file
            return None
        except OSError as exc:
            return self._reject(path, f"it cannot be read ({exc})")
        try:
            entry = json.loads(raw)
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            return self._reject(path, f"it is not valid JSON ({type(exc).__name__}: {exc})")
        fault = _fault(entry, self.fingerprint, problem)
        return entry if fault is None else self._reject(path, fault)

    def _reject(self, path: Path, why: str) -> None:
        """Warn that an entry is ignored, once per entry and reason."""
        if (path, why) not in self._rejected:
            self._rejected.add((path, why))
            warnings.warn(f"dspk: ignoring tuning-cache entry {path}: {why}; tuning again",
                          TuningCacheWarning, stacklevel=4)
        return None

    def _cannot_write(self, exc: OSError) -> None:
        """Only read this cache root from now on; warn once."""
        if self.writable:
            _read_only.add(self.root)
            warnings.warn(f"dspk: the tuning cache under {self.root} cannot be written ({exc}); "
                          "this process tunes in memory only", TuningCacheWarning, stacklevel=2)

    def neighbours(self, problem: Problem) -> Iterator[tuple[int, int, dict]]:
        """Valid entries of other sizes with the same operation, dtype, layout and params."""
        group = self._group(problem)
        if not group.is_dir():
            return
        for path in group.glob("*x*.json"):
            match = re.fullmatch(r"(\d+)x(\d+)\.json", path.name)
            if not match:
                continue
            channels, samples = int(match[1]), int(match[2])
            if (channels, samples) == (problem.channels, problem.samples):
                continue
            other = Problem(problem.op, problem.dtype, channels, samples,
                            problem.layout, problem.params)
            entry = self._read(path, other)
            if entry is not None:
                yield channels, samples, entry

    @contextlib.contextmanager
    def lock(self, problem: Problem, wait: float) -> Iterator[None]:
        """Hold the lock file of ``problem`` in this block, waiting for it at most ``wait``
        seconds (and :data:`LOCK_WAIT`); one older than :data:`LOCK_EXPIRY` is removed
        first. Without it (held elsewhere, or the cache cannot be written) the block
        runs all the same."""
        held = None
        if self.writable:
            entry = self.path(problem)
            path = entry.with_name(entry.name + ".lock")
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                _remove_if_expired(path)
                held = filelock.SoftFileLock(str(path), timeout=min(wait, LOCK_WAIT))
                held.acquire()
            except filelock.Timeout:
                held = None
            except OSError as exc:
                held = None
                self._cannot_write(exc)
        try:
            yield
        finally:
            if held is not None:
                with contextlib.suppress(OSError):  # removed meanwhile as expired
                    held.release()

    def save(self, problem: Problem, timings: dict[str, dict], winner: str,
             version: str) -> Path | None:
        """Write an entry atomically: a temporary file renamed into place.

        Returns its path, or None where the cache cannot be written.
        """
        if not self.writable:
            return None
        path = self.path(problem)
        entry = {"format": FORMAT, "problem": problem.as_dict(),
                 "fingerprint": self.fingerprint, "timings": timings,
                 "winner": winner, "dspk": version}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            info = self.directory / "fingerprint.json"
            if not info.exists():
                _write_atomically(info, json.dumps(self.fingerprint, indent=1, sort_keys=True))
            if path.is_dir():
                path.rmdir()  # an empty folder where the entry belongs (a full one raises)
            _write_atomically(path, json.dumps(entry, indent=1, sort_keys=True))
        except OSError as exc:
            self._cannot_write(exc)
            return None
        return path


def _fault(entry: Any, fingerprint: dict[str, str], problem: Problem) -> str | None:
    """Why a decoded entry cannot serve ``problem`` on this device; None when it can."""
    if not isinstance(entry, dict) or entry.get("format") != FORMAT:
        return f"it is not a format-{FORMAT} entry"
    if entry.get("fingerprint") != fingerprint:
        return "it was made on another device or software stack"
    if entry.get("problem") != problem.as_dict():
        return "it describes another problem"
    timings = entry.get("timings")
    if not isinstance(timings, dict) or not all(map(_valid_timing, timings.values())):
        return "its timings are malformed"
    if not isinstance(entry.get("winner"), str):
        return "its winner is not a variant name"
    return None


def _valid_timing(timing: Any) -> bool:
    """A variant's timing: its source hash, its seconds (None: untimed) and scalar notes."""
    if (not isinstance(timing, dict) or not isinstance(timing.get("source"), str)
            or "seconds" not in timing):
        return False
    seconds = timing["seconds"]
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                or not 0 <= seconds < math.inf):
        return False
    return all(v is None or isinstance(v, (str, int, float)) for v in timing.values())


def _remove_if_expired(lock: Path) -> None:
    """Remove a lock file older than :data:`LOCK_EXPIRY`: its process ended while tuning."""
    try:
        if time.time() - lock.stat().st_mtime > LOCK_EXPIRY:
            lock.unlink()
    except FileNotFoundError:
        pass


def _write_atomically(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
