"""sosfilt and lfilter on the GPU: time-parallel blocks with a scan of the carried state.

Both filters are a cascade of sections of one order ``M`` in transposed
direct form II: sosfilt's second-order sections (``M = 2``), lfilter's
``b, a`` as one section of order ``K - 1``. The cascade is a linear recurrence
on a state of ``D = sections * M`` numbers (scipy's zi layout). Over a block
of ``L`` samples the state maps as ``s -> T s + g``, where ``T`` (computed on
the host, :mod:`dspk.kernel_support.transitions`) is the same for every full
block and ``g`` is the block's final state from a zero start. So a
:class:`Pass` over a signal runs as:

1. a carry pass: every (channel, block) filters its block, block 0 from the
   pass's initial state and the others from zero, keeping only final states;
2. a Kogge-Stone scan over blocks, ``ceil(log2 B)`` dispatches with the
   matrices ``T**(2**k)``, turns those into each block's true start state
   (skipped when ``T`` is zero, as for FIR filters with ``L >= K - 1``);
3. a fix-up pass: every (channel, block) filters its block again from its
   true start, writing the output; the last block's final state is ``zf``.

Blocks are the launch's block length (:data:`BLOCK_LEN` by default), longer
for slow filters: the scan adds ``T`` times carried states, which magnifies
their rounding errors by the size of ``T``, so blocks double until ``T`` is at
most :data:`TRANSITION_LIMIT` (:func:`scan_block_len`). A filter too slow for
any block within the loop budget runs the sequential schedule instead.

The tuner chooses the block length and the channels per workgroup: each
launch of :data:`TIME_PARALLEL` (and :data:`PER_CHANNEL`) is a variant of its
own (:mod:`dspk_wgpu.launch`).

Each invocation loops over at most :data:`~dspk_wgpu.gpu.LOOP_BUDGET`
sample-coefficient steps, whatever the signal's length. The fallback
(sequential) schedule runs one invocation per channel through the whole
signal, one dispatch per bounded chunk, the state carried in a buffer.

Signal, coefficients and states share one dtype, float32 or float64, and the
shaders compute in it (the powers of ``T`` are uploaded rounded to it).

A pass reads its input through offset and strides (a negative time stride
reads backwards), optionally extended at both ends by an index function
(odd, even or constant, never stored), and may write only its middle samples:
:mod:`dspk_wgpu.filtfilt` chains two such passes.

The scan is Kogge and Stone's and Blelloch's: see the References of
:mod:`dspk.kernel_support.transitions`, which plans it for every runtime.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from functools import cached_property, partial
from typing import Any

import numpy as np

from dspk.kernel_support import transitions
from dspk.plugin import Variant, source_hash
from dspk_wgpu import layout
from dspk_wgpu.arrays import WgpuArray
from dspk_wgpu.gpu import LOOP_BUDGET, REAL_BYTES, Dispatch, shader_source
from dspk_wgpu.launch import Launch, tuned_variants

#: State components one shader invocation holds (its private array).
MAX_STATE = 64

#: Second-order sections one shader pass fuses; longer cascades run in several passes.
MAX_SECTIONS = MAX_STATE // 2

#: Samples per block of the default time-parallel launch (fewer for long cascades).
BLOCK_LEN = 256

#: Largest size (greatest absolute row sum) of a block's transition ``T`` that the
#: scan accepts. Each scan step adds ``T`` times a carried state, so a larger ``T``
#: magnifies the rounding errors of the states by as much, which for slow filters
#: (poles near the unit circle) takes the result far from a sequential filter's
#: (in float64, above the conformance tolerance). Longer blocks shrink ``T``.
TRANSITION_LIMIT = 1.0

#: Channels per workgroup of the default launches (the shaders' ``WORKGROUP``).
WORKGROUP = 64

#: The time-parallel launches the tuner times, the default first: blocks of 128 to
#: 512 samples at :data:`WORKGROUP` channels per workgroup, and 32 or 128 channels per
#: workgroup at :data:`BLOCK_LEN` samples.
TIME_PARALLEL = (Launch(WORKGROUP, BLOCK_LEN), Launch(WORKGROUP, 128), Launch(WORKGROUP, 512),
                 Launch(32, BLOCK_LEN), Launch(128, BLOCK_LEN))

#: The sequential schedule's launch.
PER_CHANNEL = (Launch(WORKGROUP),)

# The numbering of sos_blocks.wgsl: pass kinds, initial states, edge handling.
CARRY, FIX_UP, SEQUENTIAL = 0, 1, 2
ZERO_START, STATE_PER_CHANNEL, STEADY_STATE = 0, 1, 2
EXTENSIONS = {None: 0, "odd": 1, "even": 2, "constant": 3}
CROP = 4


class Cascade:
    """Sections of one order on the device, rows ``[b0 .. bM, a0 .. aM]`` as the shaders read them.

    Parameters
    ----------
    rows : WgpuArray
        ``(sections, 2 * (order + 1))``, in the signal's dtype (float32 or float64).
    order : int
        ``M``, at least 1; ``sections * order`` at most :data:`MAX_STATE`.
    """

    def __init__(self, rows: WgpuArray, order: int):
        if rows.shape[0] * order > MAX_STATE:
            raise ValueError(f"{rows.shape[0]} sections of order {order} exceed the "
                             f"{MAX_STATE} state components one shader holds")
        self.rows = layout.dense(rows)
        self.sections, self.order = rows.shape[0], order
        self.real = layout.precision_of(self.rows)

    @classmethod
    def from_ba(cls, b: WgpuArray, a: WgpuArray) -> Cascade:
        """lfilter's ``b, a`` (one length ``K``, ``a[0] == 1``) as one section of order ``K - 1``.

        ``K = 1`` becomes order 1 with zero delay coefficients.
        """
        size = max(b.shape[0], 2)
        host = [np.pad(v.to_numpy(), (0, size - v.shape[0])) for v in (b, a)]
        return cls(WgpuArray.from_numpy(b.gpu, np.concatenate(host)[None, :]), size - 1)

    @cached_property
    def host_rows(self) -> np.ndarray:
        """The coefficients in float64, for the block transition."""
        return self.rows.to_numpy().astype(np.float64)

    def transition(self, length: int) -> np.ndarray:
        """The state's map over ``length`` zero samples, float64
        (:func:`dspk.kernel_support.transitions.block_transition`)."""
        return transitions.block_transition(self.host_rows, self.order, length)

    def scan_powers(self, length: int, steps: int) -> np.ndarray:
        """The scan's ``T ** (2 ** k)``, ``k < steps``, in the coefficients' dtype."""
        return transitions.scan_powers(self.host_rows, self.order, length, steps,
                                       self.rows.dtype)

    @property
    def slot_size(self) -> int:
        """State components per channel."""
        return self.sections * self.order

    def block_len(self, longest: int) -> int:
        """Samples per invocation within the loop budget, at most ``longest``."""
        return max(1, min(longest, LOOP_BUDGET // (self.sections * (self.order + 1))))


@dataclass
class Pass:
    """One filtering pass over ``channels`` x ``samples``: its input, output and start.

    ``source`` and ``target`` are ``(buffer, offset, channel_stride,
    time_stride)`` in elements: sample ``t`` of channel ``c`` is at ``offset +
    c channel_stride + t time_stride``. With an extension (``edges`` from
    :data:`EXTENSIONS`), ``source`` holds ``samples - 2 edge_len`` samples and
    the pass reads it extended at both ends; with ``edges = CROP`` only samples
    ``edge_len .. samples - edge_len - 1`` are written. ``initial`` says where
    block 0 starts: zeros, ``zi`` laid out as one state slot, or the shared
    ``zi`` (section, delay) times each channel's first input sample.
    """

    channels: int
    samples: int
    source: tuple[Any, int, int, int]
    target: tuple[Any, int, int, int]
    edges: int = 0
    edge_len: int = 0
    initial: int = ZERO_START
    zi: Any = None


def addressed(a: WgpuArray, axis: int) -> tuple[Any, int, int, int]:
    """A 2-D view as a :class:`Pass` source or target."""
    return (a.buffer, *layout.addressing(a, axis))


class Schedule:
    """The dispatches of one pass, launched as ``launch`` says, and where its final
    state lands."""

    def __init__(self, cascade: Cascade, run: Pass, slots: int, launch: Launch):
        self.cascade, self.run, self.launch = cascade, run, launch
        self.gpu = cascade.rows.gpu
        self.slot_bytes = cascade.slot_size * run.channels * REAL_BYTES[cascade.real]
        self.slots = slots
        self.state = self.gpu.zeros(slots * self.slot_bytes)
        self.dispatches: list[Dispatch] = []

    def blocks(self, kind: int, length: int, first: int, count: int) -> None:
        """Filter blocks ``first .. first + count - 1`` (grid batches of 65535)."""
        cascade, run = self.cascade, self.run
        zi = cascade.rows.buffer if run.zi is None else run.zi
        groups = math.ceil(run.channels / self.launch.workgroup)
        for start, size in layout.batches(count):
            params = (run.samples, run.channels, cascade.sections, cascade.order, length,
                      first + start, kind, run.initial, run.edges, run.edge_len,
                      *run.source[1:], *run.target[1:])
            self.dispatches.append(Dispatch(
                "sos_blocks", cascade.real, params,
                (cascade.rows.buffer, run.source[0], run.target[0], self.state, zi),
                (groups, size, 1), self.launch.constants))

    def scan(self, length: int, slots: int) -> None:
        """The Kogge-Stone scan over the first ``slots`` slots, blocks of ``length``."""
        cascade = self.cascade
        steps = max(0, (slots - 1).bit_length())
        if not steps or not cascade.transition(length).any():
            return
        powers = self.gpu.upload(cascade.scan_powers(length, steps))
        spare = self.gpu.zeros(self.slots * self.slot_bytes)
        groups = math.ceil(self.run.channels / self.launch.workgroup)
        for step in range(steps):
            for first, size in layout.batches(slots):
                params = (self.run.channels, cascade.sections, cascade.order, slots, 1 << step,
                          step, first)
                self.dispatches.append(Dispatch("sos_scan", cascade.real, params,
                                                (powers, self.state, spare), (groups, size, 1),
                                                self.launch.constants))
            self.state, spare = spare, self.state

    def final_state(self, shape: tuple[int, ...]) -> tuple[WgpuArray, tuple]:
        """A new array for the pass's final state and the copy that fills it."""
        final = WgpuArray.empty(self.gpu, shape, self.cascade.rows.dtype)
        return final, ((self.state, (self.slots - 1) * self.slot_bytes, final.buffer, 0,
                        self.slot_bytes),)


def _size(transition: np.ndarray) -> float:
    return float(np.abs(transition).sum(axis=1).max())


def scan_block_len(cascade: Cascade, samples: int, block_len: int) -> int | None:
    """Samples per block of the time-parallel schedule: ``block_len`` (within the loop
    budget), doubled while the block's transition is above :data:`TRANSITION_LIMIT`.

    None when no block length within the loop budget brings it there for a signal
    of ``samples`` that needs several blocks: then only the sequential schedule
    filters as accurately as it should.
    """
    length, longest = cascade.block_len(block_len), cascade.block_len(LOOP_BUDGET)
    while length < samples and _size(cascade.transition(length)) > TRANSITION_LIMIT:
        if length == longest:
            return None
        length = min(2 * length, longest)
    return length


def time_parallel(cascade: Cascade, run: Pass, launch: Launch) -> Schedule:
    """Carry pass, scan, fix-up pass: slot ``b`` ends as block ``b``'s start, the last as zf.

    Blocks are :func:`scan_block_len` long from the launch's block length; where
    none fits, the pass runs :func:`sequential`.
    """
    length = scan_block_len(cascade, run.samples, launch.block_len)
    if length is None:
        return sequential(cascade, run, launch)
    nblocks = math.ceil(run.samples / length)
    schedule = Schedule(cascade, run, nblocks + 1, launch)
    schedule.blocks(CARRY, length, 0, nblocks - 1)
    schedule.scan(length, nblocks)
    schedule.blocks(FIX_UP, length, 0, nblocks)
    return schedule


def sequential(cascade: Cascade, run: Pass, launch: Launch) -> Schedule:
    """One invocation per channel, one dispatch per chunk, chunk ``k`` ending in slot ``k + 1``."""
    length = cascade.block_len(LOOP_BUDGET)
    chunks = math.ceil(run.samples / length)
    schedule = Schedule(cascade, run, chunks + 1, launch)
    for chunk in range(chunks):
        schedule.blocks(SEQUENTIAL, length, chunk, 1)
    return schedule


def filter_signal(plan, cascade: Cascade, x: WgpuArray, axis: int,
                  zi: WgpuArray | None) -> tuple[WgpuArray, WgpuArray | None]:
    """One pass of ``cascade`` over ``x`` with ``plan``: ``plan(cascade, run)`` makes the
    :class:`Schedule`.

    Returns ``(y, zf)``, ``zf`` laid out as ``zi`` (None when ``zi`` is).
    """
    layout.precision_of(x, cascade.rows, zi)
    samples, channels = x.shape[axis], x.shape[1 - axis]
    y = layout.output_like(x, axis, samples)
    run = Pass(channels, samples, addressed(x, axis), addressed(y, axis))
    if zi is not None and zi.size:
        run.initial, run.zi = STATE_PER_CHANNEL, layout.dense(zi).buffer
    schedule = plan(cascade, run)
    zf, copies = None, ()
    if zi is not None and zi.size:
        zf, copies = schedule.final_state((cascade.sections, channels, cascade.order))
        zf = zf.reshape(zi.shape)
    elif zi is not None:
        zf = WgpuArray.empty(x.gpu, zi.shape, zi.dtype)   # lfilter with K = 1 has no state
    x.gpu.run(schedule.dispatches, (), copies)
    return y, zf


def _sos_in_groups(plan, sos, x, axis, zi):
    """sosfilt with ``plan``, over cascades of at most :data:`MAX_SECTIONS` sections in turn."""
    finals = []
    for first in range(0, sos.shape[0], MAX_SECTIONS):
        part = slice(first, first + MAX_SECTIONS)
        # The output keeps the input's orientation, so ``axis`` still holds.
        x, zf = filter_signal(plan, Cascade(sos[part], 2), x, axis,
                              None if zi is None else zi[part])
        finals.append(zf)
    if zi is None:
        return x, None
    if len(finals) == 1:
        return x, finals[0]
    host = np.concatenate([f.to_numpy() for f in finals])
    return x, WgpuArray.from_numpy(x.gpu, host)


def _sosfilt(schedule):
    """A sosfilt kernel on ``schedule`` (:func:`time_parallel` or :func:`sequential`)."""
    def kernel(sos, x, axis, zi, launch):
        return _sos_in_groups(partial(schedule, launch=launch), sos, x, axis, zi)
    return kernel


def _lfilter(schedule):
    """An lfilter kernel on ``schedule`` (:func:`time_parallel` or :func:`sequential`)."""
    def kernel(b, a, x, axis, zi, launch):
        return filter_signal(partial(schedule, launch=launch), Cascade.from_ba(b, a), x, axis,
                             zi)
    return kernel


def order_fits(problem) -> bool:
    """Whether an lfilter/filtfilt problem's order fits one invocation's state."""
    return problem.param("order", 1) <= MAX_STATE


def schedule_variants(kernel_on, source: str, supports=None) -> list[Variant]:
    """The variants of an IIR operation: ``wgsl-time-parallel-b<L>-w<W>`` for each launch
    of :data:`TIME_PARALLEL` (the first the default), then ``wgsl-per-channel-w<W>``.

    ``kernel_on(schedule)`` makes the operation's kernel, with a :class:`Launch` last,
    on :func:`time_parallel` or :func:`sequential`.
    """
    return (tuned_variants("wgsl-time-parallel", kernel_on(time_parallel), source,
                           TIME_PARALLEL, supports)
            + tuned_variants("wgsl-per-channel", kernel_on(sequential), source, PER_CHANNEL,
                             supports))


SOURCE = source_hash(sys.modules[__name__], transitions, shader_source("sos_blocks"),
                     shader_source("sos_scan"))

VARIANTS = {
    "sosfilt": schedule_variants(_sosfilt, SOURCE),
    "lfilter": schedule_variants(_lfilter, SOURCE, order_fits),
}
