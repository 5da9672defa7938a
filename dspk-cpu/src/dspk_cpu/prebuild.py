"""``dspk autotune``'s first phase on the cpu: the kernels built in worker processes.

numba compiles one kernel at a time in a process (a few seconds each, most of a
cold autotune), so :func:`build` hands the kernels to one Python process per
core, which build them into numba's disk cache; the tuning that follows loads
them from there. Each kernel family (an operation's variant) is built by one
process, so that no two processes write the cache index of one family at once.

The workers are plain interpreters started with ``python -m dspk_cpu.prebuild``
(not :mod:`multiprocessing`, which would import the caller's ``__main__``
again), and take their work pickled on standard input; each writes a line on
standard output per kernel prepared. A worker that fails leaves its kernels to
the tuning, which builds what the cache lacks and reports what fails.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence

from dspk.plugin import Problem, Variant


def build(pairs: Sequence[tuple[Variant, Problem]], advance: Callable[[int], object],
          workers: int) -> None:
    """Prepare every ``(variant, problem)`` pair in ``workers`` processes; ``advance(1)``
    after each."""
    families: dict[tuple[str, str], list[Problem]] = {}
    for variant, problem in pairs:
        families.setdefault((problem.op, variant.name), []).append(problem)
    shares: list[list[tuple[str, str, Problem]]] = [[] for _ in range(workers)]
    for (op, name), problems in sorted(families.items(), key=lambda item: -len(item[1])):
        min(shares, key=len).extend((op, name, problem) for problem in problems)
    readers = [threading.Thread(target=_follow, daemon=True, args=(
        subprocess.Popen([sys.executable, "-m", "dspk_cpu.prebuild"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL), share, advance))
        for share in shares if share]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()


def _follow(process: subprocess.Popen, share: list, advance: Callable[[int], object]) -> None:
    """Send a worker its share; advance the count per line it writes; wait for it."""
    try:
        with process.stdin:
            pickle.dump(share, process.stdin)
    except OSError:  # the worker ended before reading: the tuning builds its share
        pass
    for _ in process.stdout:
        advance(1)
    process.wait()


def main() -> None:
    """A worker: prepare each ``(op, variant name, problem)`` read from standard input."""
    from dspk_cpu.backend import CpuBackend

    backend = CpuBackend()
    for op, name, problem in pickle.load(sys.stdin.buffer):
        try:
            backend.prepare(next(v for v in backend.variants(op) if v.name == name), problem)
        except Exception:  # noqa: BLE001 (the tuning meets it again, and reports it)
            pass
        print(flush=True)


if __name__ == "__main__":
    main()
