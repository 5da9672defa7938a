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
unreadable, of another format, or for another problem or device is ignored
with a :class:`TuningCacheWarning` and tuned again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import tempfile
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import platformdirs

from dspk.plugin import Problem

FORMAT = 1


class TuningCacheWarning(UserWarning):
    """A tuning-cache entry was rejected and will be tuned again."""


def cache_root() -> Path:
    """``DSPK_CACHE_DIR``, else the user cache directory of dspk (read on each call)."""
    return _cache_root(os.environ.get("DSPK_CACHE_DIR"), os.environ.get("XDG_CACHE_HOME"),
                       os.environ.get("HOME"))


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
        self.directory = ((root or cache_root()) / "tune" / f"v{FORMAT}" / runtime
                          / fingerprint_id(self.fingerprint))

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
            text = path.read_text()
        except FileNotFoundError:
            return None
        except OSError as exc:
            return self._reject(path, f"it cannot be read ({exc})")
        try:
            entry = json.loads(text)
        except ValueError as exc:
            return self._reject(path, f"it is not valid JSON ({exc})")
        if not isinstance(entry, dict) or entry.get("format") != FORMAT:
            return self._reject(path, f"it is not a format-{FORMAT} entry")
        if entry.get("fingerprint") != self.fingerprint:
            return self._reject(path, "it was made on another device or software stack")
        if entry.get("problem") != problem.as_dict():
            return self._reject(path, "it describes another problem")
        timings = entry.get("timings")
        if not isinstance(timings, dict) or not all(
                isinstance(t, dict) and isinstance(t.get("source"), str)
                and (t.get("seconds") is None or isinstance(t.get("seconds"), (int, float)))
                for t in timings.values()):
            return self._reject(path, "its timings are malformed")
        return entry

    @staticmethod
    def _reject(path: Path, why: str) -> None:
        warnings.warn(f"dspk: ignoring tuning-cache entry {path}: {why}; tuning again",
                      TuningCacheWarning, stacklevel=4)
        return None

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

    def save(self, problem: Problem, timings: dict[str, dict], winner: str, version: str) -> Path:
        """Write an entry atomically: a temporary file renamed into place."""
        path = self.path(problem)
        path.parent.mkdir(parents=True, exist_ok=True)
        info = self.directory / "fingerprint.json"
        if not info.exists():
            _write_atomically(info, json.dumps(self.fingerprint, indent=1, sort_keys=True))
        entry = {"format": FORMAT, "problem": problem.as_dict(),
                 "fingerprint": self.fingerprint, "timings": timings,
                 "winner": winner, "dspk": version}
        _write_atomically(path, json.dumps(entry, indent=1, sort_keys=True))
        return path


def _write_atomically(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
