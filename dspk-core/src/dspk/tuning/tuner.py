"""Chooses the kernel variant for a problem: from the cache, or by timing.

``DSPK_TUNING`` (read on each call) sets the policy:

``on`` (default)
    Use the cache; time what it lacks and write the result.
``readonly``
    Use the cache; where it lacks a problem, use the default variant (the
    runtime's first) and write nothing.
``off``
    Always the default variant: deterministic, nothing read or written.

A problem met for the first time is tuned within ``DSPK_TUNING_BUDGET``
seconds (default 2). Variants are timed in the order of the nearest tuned
size's ranking, and the nearest size's winner stays unless another variant is
faster by more than :data:`MARGIN`, so choices don't flip between sizes.

Timing is selective. Every variant runs once (the first once more after the
others: it met the process cold); those slower than the best by
more than :data:`CLEAR_LOSS` keep that one timing and are not repeated; the
others repeat (up to :data:`REPEATS` runs) only until the ranking is settled,
when the leader's slowest run beats every other's fastest. When the nearest
smaller tuned size had a clear winner, :func:`tune_grid` times only that
size's two best variants; the rest are recorded as pruned. Where timing
would cost more than :data:`EXTRAPOLATE_ABOVE` seconds, a clear winner of
the largest timed smaller size is taken untimed (recorded as extrapolated
from that size), and an unclear ranking is timed between its two best only,
one run each. So the default grid tunes within minutes, its largest sizes
taking the rankings of sizes four times smaller.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
import statistics
import time
import warnings
from collections.abc import Mapping
from functools import partial
from importlib.metadata import version
from types import MappingProxyType
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from dspk import environment
from dspk.operations import OPERATIONS, variants_of
from dspk.plugin import LAYOUTS, ArrayTooLarge, Backend, KernelNotReady, Problem, Variant, deferring
from dspk.tuning.store import TuningStore

MODES = ("on", "readonly", "off")
#: A challenger must be this much faster to displace the incumbent.
MARGIN = 0.03
#: A variant this many times slower than the best after one run is not repeated.
CLEAR_LOSS = 1.3
#: Most timed runs of a contender.
REPEATS = 5
#: Seconds (one run of each variant, scaled from a smaller size) above which
#: :func:`tune_grid` does not time a size whose smaller neighbour ranked clearly.
EXTRAPOLATE_ABOVE = 0.1
_AUTOTUNE_BUDGET = 30.0

_chosen: dict[tuple, Variant] = {}
#: Counts the times choices in :data:`_chosen` were forgotten (see :func:`generation`).
_forgotten = [0]


def forget() -> None:
    """Forget every remembered choice: the next call of each problem chooses again
    (from the tuning cache, or by timing)."""
    _chosen.clear()
    _forgotten[0] += 1


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=forget)  # a child may have fewer variants
#: The variants forced by :func:`forced_variant`, by operation (never mutated: replaced).
_forced: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar(
    "dspk_forced", default=MappingProxyType({}))
_stores: dict[str, TuningStore] = {}


def _mode() -> str:
    mode = environment.get("DSPK_TUNING", "on")
    if mode not in MODES:
        raise ValueError(f"DSPK_TUNING={mode!r} is not one of {', '.join(MODES)}")
    return mode


def _budget() -> float:
    text = environment.get("DSPK_TUNING_BUDGET", "2")
    try:
        budget = float(text)
    except ValueError:
        budget = math.nan
    if not budget >= 0:
        raise ValueError(f"DSPK_TUNING_BUDGET={text!r} is not a number of seconds >= 0")
    return budget


def store_for(backend: Backend) -> TuningStore:
    """The tuning store of a backend, under the current cache root."""
    store = TuningStore(backend.name, backend.fingerprint())
    return _stores.setdefault(str(store.directory), store)  # atomic: no lock to fork with


def valid_variants(backend: Backend, problem: Problem) -> list[Variant]:
    """The backend's variants that support ``problem``, default first."""
    variants = [v for v in variants_of(backend, problem.op) if v.supports(problem)]
    if not variants:
        raise NotImplementedError(
            f"runtime {backend.name!r} has no kernel for {problem.op} with "
            f"{dict(problem.params) or 'these arguments'}")
    return variants


def choose(backend: Backend, problem: Problem, args: tuple | None = None) -> Variant:
    """The variant to run ``problem`` with on ``backend``.

    Parameters
    ----------
    backend : dspk.plugin.Backend
    problem : dspk.plugin.Problem
    args : tuple, optional
        The call's own kernel arguments, used for timing when the problem is
        not cached yet; by default representative random arguments.
    """
    forced = _forced.get().get(problem.op)
    mode = _mode()
    memo = _memo_key(backend, problem)
    if forced is None and mode != "off" and memo in _chosen:
        return _chosen[memo]
    variants = valid_variants(backend, problem)
    if forced is not None:
        match = [v for v in variants if v.name == forced]
        if not match:
            raise NotImplementedError(f"variant {forced!r} of {backend.name!r} does not "
                                      f"support {problem}")
        return match[0]
    if len(variants) == 1 or mode == "off":
        return variants[0]
    with deferring():
        winner, final = _tuned_winner(backend, problem, variants, args, mode, _budget())
    variant = next(v for v in variants if v.name == winner)
    if final:
        _chosen[memo] = variant
    return variant


def settled(backend: Backend, problem: Problem) -> Variant | None:
    """The variant :func:`choose` gives ``problem`` from now on without deciding
    again, or None while it may still change (tuning unfinished, tuning off, a
    variant forced)."""
    if _forced.get() or _mode() == "off":
        return None
    return _chosen.get(_memo_key(backend, problem))


def generation() -> int:
    """A number that changes whenever a choice :func:`settled` gave is forgotten
    (by :func:`tune_grid`, or in a forked child)."""
    return _forgotten[0]


def forcing() -> bool:
    """Whether a variant is forced (:func:`forced_variant`) in this context."""
    return bool(_forced.get())


def _memo_key(backend: Backend, problem: Problem) -> tuple:
    """What a remembered choice depends on: the variables that
    :func:`~dspk.tuning.store.cache_root` reads (the variables themselves: cheaper than
    the path), the runtime, the problem."""
    return (environment.get("DSPK_CACHE_DIR"), environment.get("XDG_CACHE_HOME"),
            environment.get("HOME"), backend.name, problem)


def run(backend: Backend, problem: Problem, args: tuple) -> Any:
    """Run ``problem`` on kernel arguments ``args`` with the variant :func:`choose` picks.

    A chosen variant whose kernel is still being built
    (:class:`~dspk.plugin.KernelNotReady`) hands the call to the next variant
    that is ready, in the runtime's order; where none is, the call waits for the
    chosen one. A variant forced by :func:`forced_variant` runs as it is.
    """
    operation = OPERATIONS[problem.op]
    variant = choose(backend, problem, args)
    if problem.op in _forced.get():
        return operation.call(variant, args)
    with deferring():
        try:
            return operation.call(variant, args)
        except KernelNotReady:
            pass
        for other in valid_variants(backend, problem):
            if other is not variant:
                try:
                    return operation.call(other, args)
                except KernelNotReady:
                    continue
    return operation.call(variant, args)


@contextlib.contextmanager
def forced_variant(op: str, name: str):
    """Run ``op`` with the variant ``name`` in this block, whatever the tuner would pick.

    For tests that check every variant against the reference; a problem the
    variant does not support raises NotImplementedError.
    """
    token = _forced.set({**_forced.get(), op: name})
    try:
        yield
    finally:
        _forced.reset(token)


def _stale(entry: dict | None, variants: list[Variant], untimed: bool) -> list[Variant]:
    """Variants without a current timing (or, with ``untimed``, with one left out)."""
    timings = (entry or {}).get("timings", {})
    return [v for v in variants
            if v.name not in timings or timings[v.name]["source"] != v.source
            or (untimed and timings[v.name]["seconds"] is None
                and not {"error", "pruned", "extrapolated"} & set(timings[v.name]))]


def _tuned_winner(backend, problem, variants, args, mode, budget, untimed=False,
                  prune=False) -> tuple[str, bool]:
    """The winner of ``problem``, timing what the cache lacks, and whether it is final:
    not while a variant's kernel is still being built (then nothing is timed, and the
    first ready variant runs until a later call finds every kernel built)."""
    store = store_for(backend)
    entry = store.load(problem)
    if not _stale(entry, variants, untimed):
        return _winner(entry["timings"], variants, incumbent=entry.get("winner")), True
    if mode == "readonly":
        return variants[0].name, True
    with store.lock(problem, budget):
        entry = store.load(problem)  # another process may have finished meanwhile
        stale = _stale(entry, variants, untimed)
        timings = dict((entry or {}).get("timings", {}))
        incumbent = (entry or {}).get("winner")
        if stale:
            ranked, nearest_winner = _nearest_ranking(store, problem)
            incumbent = incumbent or nearest_winner
            stale.sort(key=lambda v: ranked.index(v.name) if v.name in ranked else len(ranked))
            taken, pruned, costly = (_grid_plan(store, problem, stale) if prune
                                     else (None, [], False))
            if taken is not None:
                winner, basis = taken
                timings.update({v.name: {"source": v.source, "seconds": None,
                                         "extrapolated": basis} for v in stale})
                store.save(problem, timings, winner, version("dspk-core"))
                return winner, True
            timings.update({v.name: {"source": v.source, "seconds": None, "pruned": True}
                            for v in pruned})
            timed = [v for v in stale if v not in pruned]
            timings.update(_measure(backend, problem, timed, args, budget,
                                    repeats=1 if costly else REPEATS))
        building = {name for name, timing in timings.items() if timing.get("building")}
        ready = [v for v in variants if v.name not in building]
        if not ready:  # nothing to run meanwhile: wait for the default's kernel
            with deferring(False):
                backend.prepare(variants[0], problem)
            return variants[0].name, False
        timings = {name: timing for name, timing in timings.items() if name not in building}
        winner = _winner(timings, ready, incumbent)
        if timings:
            store.save(problem, timings, winner, version("dspk-core"))
        return winner, not building


def _winner(timings: dict, variants: list[Variant], incumbent: str | None) -> str:
    seconds = {v.name: timings[v.name]["seconds"] for v in variants
               if v.name in timings and timings[v.name]["seconds"] is not None}
    if not seconds:
        return variants[0].name
    best = min(seconds, key=seconds.get)
    if incumbent in seconds and seconds[best] > seconds[incumbent] * (1 - MARGIN):
        return incumbent
    return best


def _nearest_ranking(store: TuningStore, problem: Problem) -> tuple[list[str], str | None]:
    def distance(item):
        channels, samples, _ = item
        return (abs(math.log(channels / problem.channels))
                + abs(math.log(samples / problem.samples)))

    nearest = min(store.neighbours(problem), key=distance, default=None)
    if nearest is None:
        return [], None
    timings = nearest[2]["timings"]
    timed = [n for n in timings if timings[n]["seconds"] is not None]
    return sorted(timed, key=lambda n: timings[n]["seconds"]), nearest[2].get("winner")


def _grid_plan(store, problem: Problem, variants: list[Variant]
               ) -> tuple[tuple[str, str] | None, list[Variant], bool]:
    """What :func:`tune_grid` times of ``problem``, from the largest timed smaller size.

    Returns ``(taken, pruned, costly)``. ``costly``: timing every variant once
    would cost more than :data:`EXTRAPOLATE_ABOVE` seconds, scaled from that
    size. ``taken`` is ``(winner, basis)`` when that size's winner was faster
    than every other variant by :data:`CLEAR_LOSS`, the size is costly and that
    size is at most one grid step smaller (3x the channels, 4x the samples): the
    winner is taken untimed ("extrapolated" from ``basis``, such as
    ``"384x131072"``). Otherwise ``pruned`` holds all but that size's two best
    variants when its winner was clear or the size is costly (then the two
    best run once each), none when there is no such size.
    """
    smaller = [(c, n, entry) for c, n, entry in store.neighbours(problem)
               if c <= problem.channels and n <= problem.samples
               and sum(t["seconds"] is not None for t in entry["timings"].values()) >= 2]
    if not smaller:
        return None, [], False
    channels, samples, entry = max(smaller, key=lambda item: item[0] * item[1])
    seconds = {name: t["seconds"] for name, t in entry["timings"].items()
               if t["seconds"] is not None}
    ranked = sorted(seconds, key=seconds.get)
    clear = seconds[ranked[1]] >= CLEAR_LOSS * seconds[ranked[0]]
    scale = problem.channels * problem.samples / (channels * samples)
    cost = scale * sum(seconds.get(v.name, seconds[ranked[0]]) for v in variants)
    costly = cost > EXTRAPOLATE_ABOVE
    # Only a neighbour one grid step away ranks alike: a median across 32
    # channels says little of one across 384.
    near = (problem.channels <= 3 * channels and problem.samples <= 4 * samples)
    if clear and costly and near and ranked[0] in {v.name for v in variants}:
        return (ranked[0], f"{channels}x{samples}"), [], True
    if clear or costly:
        return None, [v for v in variants if v.name not in ranked[:2]], costly
    return None, [], False


def _measure(backend, problem, variants, args, budget, repeats=REPEATS) -> dict[str, dict]:
    """Median seconds of each variant, selectively, within ``budget`` seconds in all,
    with at most ``repeats`` timed runs each.

    A variant left untimed when the budget runs out is recorded with
    ``seconds: None`` and timed again only by :func:`tune_grid`. The variants
    run on copies of a call's own arrays: one that wrongly writes its
    arguments cannot change the call's result. Inside
    :func:`~dspk.plugin.deferring`, while a variant's kernel is still being built
    nothing is timed: it is recorded as ``building`` (and left out of the cache),
    and the call runs a ready variant untimed.
    """
    results, runs = {}, {}
    waiting = []
    for variant in variants:
        try:
            backend.prepare(variant, problem)
            waiting.append(variant)
        except KernelNotReady:
            results[variant.name] = {"source": variant.source, "seconds": None,
                                     "building": True}
        except Exception:
            waiting.append(variant)  # timing meets the error again and records it
    if results:
        return results  # the ready ones are timed when every kernel is built
    operation = OPERATIONS[problem.op]
    if args is None:
        args = operation.device_args(backend, problem, np.random.default_rng(0))
    else:
        args = tuple(a.copy() if isinstance(a, np.ndarray) or backend.is_native(a) else a
                     for a in args)
    deadline = time.perf_counter() + budget
    for index, variant in enumerate(waiting):
        results[variant.name] = {"source": variant.source, "seconds": None}
        if index and time.perf_counter() > deadline:
            continue
        try:
            backend.prepare(variant, problem)
            runs[variant.name] = backend.time(partial(operation.call, variant, args), repeat=1)
        except ArrayTooLarge:
            raise  # the call runs in pieces (dspk.pieces), each tuned at its own size
        except KernelNotReady:  # another specialisation than prepare's: time it later
            return {variant.name: {"source": variant.source, "seconds": None,
                                   "building": True}}
        except Exception as exc:
            warnings.warn(f"dspk: variant {variant.name!r} of {problem.op} on "
                          f"{backend.name!r} failed while tuning and is passed over: "
                          f"{type(exc).__name__}: {exc}", RuntimeWarning, stacklevel=2)
            results[variant.name]["error"] = f"{type(exc).__name__}: {exc}"
    by_name = {v.name: v for v in waiting}
    first = next(iter(runs), None)
    if len(runs) > 1 and time.perf_counter() < deadline:
        # The first variant met a cold process (thread pools starting, fresh pages, idle
        # cores): on the cpu, pocketfft's threads took twice their warm time there, and
        # their variant lost. It runs again now that the others have warmed the process.
        runs[first] = backend.time(partial(operation.call, by_name[first], args), repeat=1)
    while runs and time.perf_counter() < deadline:
        best = min(min(seconds) for seconds in runs.values())
        contenders = [name for name, seconds in runs.items()
                      if min(seconds) <= CLEAR_LOSS * best and len(seconds) < repeats]
        leader = min(runs, key=lambda name: statistics.median(runs[name]))
        settled = all(max(runs[leader]) < min(runs[name]) for name in runs if name != leader)
        if contenders == [leader] or not contenders or (settled and len(runs[leader]) > 1):
            break
        for name in contenders:
            runs[name] += backend.time(lambda v=by_name[name]: operation.call(v, args), repeat=2)
    for name, seconds in runs.items():
        results[name]["seconds"] = statistics.median(seconds)
    return results


def grid(backend: Backend, channels: list[int], samples: list[int]) -> list[Problem]:
    """Every problem :func:`tune_grid` covers for a backend."""
    problems = []
    for op in OPERATIONS.values():
        for params in op.grid_params:
            for dtype in ("float32", "float64"):
                for layout in LAYOUTS:
                    for c in channels:
                        for n in samples:
                            problem = Problem.make(op.name, dtype, c, n, layout, **params)
                            if any(v.supports(problem) for v in backend.variants(op.name)):
                                problems.append(problem)
    return problems


def tune_grid(backend: Backend, channels: list[int], samples: list[int]) -> int:
    """Tune and compile every supported problem of the grid; the number of problems.

    Smaller sizes go first, so that larger ones can prune by their ranking,
    and every operation of one size, dtype and layout runs on the same data.
    """
    problems = sorted(grid(backend, channels, samples),
                      key=lambda p: (p.channels * p.samples, p.channels, p.dtype, p.layout))
    mode = _mode()
    variants_by_problem = {problem: valid_variants(backend, problem) for problem in problems}
    pairs = [(variant, problem) for problem, variants in variants_by_problem.items()
             for variant in variants]
    with tqdm(total=len(pairs), desc=f"dspk autotune {backend.name}: kernels", unit="kernel",
              disable=None) as bar:
        backend.prepare_all(pairs, bar.update)
    for problem in tqdm(problems, desc=f"dspk autotune {backend.name}: tuning", unit="size",
                        disable=None):
        variants = variants_by_problem[problem]
        if mode == "on" and len(variants) > 1:
            _tuned_winner(backend, problem, variants, None, mode, _AUTOTUNE_BUDGET,
                          untimed=True, prune=True)
            _chosen.pop(_memo_key(backend, problem), None)
            _forgotten[0] += 1
    return len(problems)
