"""The cpu runtime: its device, fingerprint and kernel variants.

numba vectorises the channel-interleaved loops of :mod:`dspk_cpu.kernels` only with
superword-level parallelism switched on, so this module sets ``NUMBA_SLP_VECTORIZE=1``
unless the environment says otherwise, before the families' kernels first import numba.
"""

from __future__ import annotations

import functools
import os
import platform
import time
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import numpy as np

from dspk.plugin import Backend

os.environ.setdefault("NUMBA_SLP_VECTORIZE", "1")

from dspk_cpu import (  # noqa: E402
    detection,
    filtering,
    multichannel,
    prebuild,
    resampling,
    spectral,
)
from dspk_cpu.kernels import iir  # noqa: E402
from dspk_cpu.threads import numba_parallel, threads  # noqa: E402

#: A run at least this long (seconds) counts as its own warm-up when timing.
LONG_RUN = 0.25
#: Runs shorter than this (seconds) are timed in loops that span it.
SHORT_RUN = 2e-3
#: Seconds of untimed runs (the first included) before timing a short one, and at most
#: this many of them: a call of microseconds (one thread, where a first call's tuning
#: time counts most) needs no 10 ms to warm.
WARM_UP = 10e-3
WARM_UP_RUNS = 20


@functools.cache
def _processor() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


class CpuBackend(Backend):
    """The processor, through numba kernels and scipy, on all allowed cores."""

    name = "cpu"

    def __init__(self):
        self._variants = {}
        for family in (filtering, spectral, resampling, multichannel, detection):
            self._variants.update(family.VARIANTS)

    def device(self) -> str:
        return f"{_processor()}, {threads()} threads"

    def fingerprint(self):
        return {"processor": _processor(), "machine": platform.machine(),
                "threads": str(threads()), "numpy": np.__version__,
                "numba": version("numba"), "scipy": version("scipy"),
                "dspk-cpu": version("dspk-cpu")}

    def variants(self, op: str):
        """The operation's kernels, the default first. The ``numba-*`` ones run on numba's
        parallel threading layer, and are left out where it cannot run
        (:func:`dspk_cpu.threads.numba_parallel`: a child forked after numba's GNU
        OpenMP threads started); every operation has other kernels."""
        variants = self._variants.get(op, [])
        if numba_parallel():
            return variants
        return [v for v in variants if not v.name.startswith("numba-")]

    def takes_complex(self, op: str) -> bool:
        """The filters' kernels filter complex signals: the one-pass numba ones with the
        real and imaginary parts of a channel in two lanes (nothing copied apart and
        joined), scipy's with complex coefficients too, the zero-phase ones (the core
        passes them complex data only with complex coefficients)."""
        return op in ("sosfilt", "lfilter", "sosfiltfilt", "filtfilt")

    def causal_filter(self, op: str, coefficients: tuple, zi: Any, variant: str):
        """For real signals, the chosen variant's kernel with its state kept in its own
        layout between a stream's chunks: the numba one-pass kernel
        (:class:`dspk_cpu.kernels.iir.KeptState`) or scipy's compiled filter on the
        calling thread (:class:`dspk_cpu.filtering.scipy_kernels.KeptState`, also for
        the variant on scipy's threads, a chunk small enough to count its overhead
        being too small for threads, and for lfilter's one-thread direct form, which
        computes as scipy's does). None for a gain without delays, and for the numba
        kernel where its threads cannot run (a child forked after GNU OpenMP
        started: :func:`dspk_cpu.threads.numba_parallel`)."""
        kind = "sos" if op == "sosfilt" else "tf"
        if zi.dtype.char not in "fd" or (kind == "tf" and coefficients[0].size < 2):
            return None
        if variant == "numba-channel-blocks":
            return iir.KeptState(kind, coefficients, zi) if numba_parallel() else None
        if variant.startswith("scipy-") or variant == "numba-one-thread":  # (scipy's order
            # of operations: its results bit for bit)
            return filtering.scipy_kernels.KeptState(kind, coefficients, zi)
        return None

    def prepare_all(self, pairs, advance) -> None:
        """Build the kernels in one process per thread (:mod:`dspk_cpu.prebuild`) into
        numba's cache, from which the tuning loads them; one by one on one thread."""
        workers = min(threads(), len(pairs))
        if workers > 1:
            prebuild.build(pairs, advance, workers)
        else:
            super().prepare_all(pairs, advance)

    def time(self, call: Callable[[], Any], repeat: int) -> list[float]:
        """Seconds per run of ``call``, ``repeat`` times, after warm-up runs spanning
        :data:`WARM_UP` (or :data:`WARM_UP_RUNS` runs); a first run of :data:`LONG_RUN`
        seconds or more is its own warm-up and counts as the first timing (kernels are
        compiled by :meth:`prepare`).
        Threads that have idled wake slowly: pocketfft's took 0.8 ms for a 32 x 8192
        rfft after one warm-up run, 0.42 ms after 10 ms of them, and lost to one thread.

        A run shorter than :data:`SHORT_RUN` is timed as the mean of a loop of runs
        spanning it: one run of tens of microseconds is at the mercy of the caches
        and of the scheduler, and such rankings chose scipy's variant for small
        problems that the compiled kernel filters in half the time.
        """
        start = time.perf_counter()
        call()
        first = time.perf_counter() - start
        seconds = [first] if first >= LONG_RUN else []
        warm_until = start + min(WARM_UP, WARM_UP_RUNS * first)
        while not seconds and time.perf_counter() < warm_until:
            call()
        loop = max(1, min(1000, int(SHORT_RUN / max(first, 1e-9))))
        while len(seconds) < repeat:
            start = time.perf_counter()
            for _ in range(loop):
                call()
            seconds.append((time.perf_counter() - start) / loop)
        return seconds
