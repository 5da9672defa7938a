"""sosfilt on the GPU: time-parallel blocks with a scan of the carried state.

The fused cascade of ``S`` sections is a linear recurrence on a state of
``2 S`` numbers (scipy's zi layout). Over a block of ``L`` samples the state
maps as ``s -> T s + f``, where ``T`` (computed on the host, in float64, from
the coefficients) is the same for every full block and ``f`` is the block's
final state from a zero start. So:

1. every (channel, block) filters its block from zero, keeping only ``f``;
2. a Kogge-Stone scan over blocks, ``ceil(log2 B)`` dispatches with the
   matrices ``T**(2**k)``, turns the ``f`` (and ``zi``) into each block's
   true starting state;
3. every (channel, block) filters its block again from that state, writing
   ``y``; the last block's final state is ``zf``.

Each invocation loops over at most :data:`~dspk_wgpu.gpu.LOOP_BUDGET`
sample-section steps, whatever the signal's length. The fallback variant runs
one invocation per channel through the whole signal, in one dispatch per
bounded chunk, the state carried in a buffer.
"""

from __future__ import annotations

import math
import sys

import numpy as np
from dspk.plugin import Variant, source_hash
from scipy import signal

from dspk_wgpu import layout
from dspk_wgpu.arrays import WgpuArray
from dspk_wgpu.gpu import LOOP_BUDGET, Dispatch, Gpu, shader_source

#: Sections one shader pass fuses; longer cascades run in several passes.
MAX_SECTIONS = 32

#: Samples per block of the time-parallel variant.
BLOCK_LEN = 256

#: Channels per workgroup (the shaders' ``workgroup_size`` x).
WORKGROUP = 64


def block_transition(sos: np.ndarray, length: int) -> np.ndarray:
    """``T`` with ``s_after = T s_before`` over ``length`` zero input samples, float64.

    Components are ordered (section, delay), as scipy's ``zi[section, delay]``.

    Examples
    --------
    >>> sos = signal.butter(2, 0.3, output="sos")
    >>> T = block_transition(sos, 1)
    >>> T.shape
    (2, 2)
    """
    dim = 2 * len(sos)
    start = np.eye(dim).reshape(dim, len(sos), 2).transpose(1, 0, 2)   # (S, dim, 2)
    _, final = signal.sosfilt(sos, np.zeros((dim, length)), axis=-1, zi=start)
    return final.transpose(1, 0, 2).reshape(dim, dim).T


def _scan_powers(transition: np.ndarray, steps: int) -> np.ndarray:
    powers = [transition]
    for _ in range(steps - 1):
        powers.append(powers[-1] @ powers[-1])
    return np.asarray(powers, dtype=np.float32)


class _Cascade:
    """One call's shared geometry: sections, channels, samples, strides, buffers."""

    def __init__(self, sos: WgpuArray, x: WgpuArray, axis: int, zi: WgpuArray | None):
        self.gpu: Gpu = x.gpu
        self.sos = layout.dense(sos)
        self.sections = sos.shape[0]
        self.channels = x.shape[1 - axis]
        self.samples = x.shape[axis]
        self.x, self.axis = x, axis
        self.y = layout.output_like(x, axis, self.samples)
        self.zi = None if zi is None else layout.dense(zi)
        self.slot_bytes = self.sections * self.channels * 2 * 4

    def params(self, block_len, block0, nblocks, slot_step, write_shift, slots,
               zero_init, write_y):
        x_offset, x_sc, x_st = layout.addressing(self.x, self.axis)
        _, y_sc, y_st = layout.addressing(self.y, self.axis)
        return (self.samples, self.channels, self.sections, block_len, block0, nblocks,
                slot_step, write_shift, slots, zero_init, write_y, x_offset,
                x_sc, x_st, y_sc, y_st)

    def blocks(self, state, block_len, first, count, **flags):
        """Dispatches filtering blocks ``first .. first + count`` (grid batches of 65535)."""
        groups = math.ceil(self.channels / WORKGROUP)
        return [Dispatch("sos_blocks",
                         self.params(block_len, first + start, size, **flags),
                         (self.sos.buffer, self.x.buffer, self.y.buffer, state),
                         (groups, size, 1))
                for start, size in layout.batches(count)]

    def state_buffer(self, slots):
        """A zeroed state buffer of ``slots`` slots, and the copy of ``zi`` into slot 0."""
        state = self.gpu.zeros(slots * self.slot_bytes)
        copies = () if self.zi is None else (
            (self.zi.buffer, 0, state, 0, self.slot_bytes),)
        return state, copies

    def result(self, state, last_slot, dispatches, copies_before):
        zf = None
        copies_after = ()
        if self.zi is not None:
            zf = WgpuArray.empty(self.gpu, (self.sections, self.channels, 2))
            copies_after = ((state, last_slot * self.slot_bytes, zf.buffer, 0,
                             self.slot_bytes),)
        self.gpu.run(dispatches, copies_before, copies_after)
        return self.y, zf


def _in_groups(kernel, sos, x, axis, zi):
    """Run ``kernel`` over cascades of at most :data:`MAX_SECTIONS` sections in turn."""
    if sos.shape[0] <= MAX_SECTIONS:
        return kernel(sos, x, axis, zi)
    finals = []
    for first in range(0, sos.shape[0], MAX_SECTIONS):
        part = slice(first, first + MAX_SECTIONS)
        # The output keeps the input's orientation, so ``axis`` still holds.
        x, zf = kernel(sos[part], x, axis, None if zi is None else zi[part])
        finals.append(zf)
    if zi is None:
        return x, None
    host = np.concatenate([f.to_numpy() for f in finals])
    return x, WgpuArray.from_numpy(x.gpu, host)


def _time_parallel(sos, x, axis, zi, block_len=BLOCK_LEN):
    cascade = _Cascade(sos, x, axis, zi)
    length = max(1, min(block_len, LOOP_BUDGET // cascade.sections))
    nblocks = math.ceil(cascade.samples / length)
    state, copies = cascade.state_buffer(nblocks)
    # 1. zero-start final states of blocks 0 .. B-2, into slots 1 .. B-1.
    dispatches = cascade.blocks(state, length, 0, nblocks - 1, slot_step=1, write_shift=1,
                                slots=nblocks, zero_init=1, write_y=0)
    # 2. the scan over slots: each slot becomes its block's true starting state.
    steps = max(0, (nblocks - 1).bit_length())
    if steps:
        transition = block_transition(sos.to_numpy().astype(np.float64), length)
        powers = cascade.gpu.upload(_scan_powers(transition, steps))
        spare = cascade.gpu.zeros(nblocks * cascade.slot_bytes)
        groups = math.ceil(cascade.channels / WORKGROUP)
        for step in range(steps):
            if nblocks > 65535:
                raise ValueError(f"{nblocks} blocks exceed one scan dispatch; "
                                 "the signal is too long for this block length")
            dispatches.append(Dispatch(
                "sos_scan", (cascade.channels, cascade.sections, nblocks, 1 << step, step),
                (powers, state, spare), (groups, nblocks, 1)))
            state, spare = spare, state
    # 3. every block again from its true start, writing y and its final state.
    dispatches += cascade.blocks(state, length, 0, nblocks, slot_step=1, write_shift=0,
                                 slots=nblocks, zero_init=0, write_y=1)
    return cascade.result(state, nblocks - 1, dispatches, copies)


def _per_channel(sos, x, axis, zi):
    cascade = _Cascade(sos, x, axis, zi)
    length = max(1, LOOP_BUDGET // cascade.sections)
    state, copies = cascade.state_buffer(1)
    dispatches = []
    for block in range(math.ceil(cascade.samples / length)):
        dispatches += cascade.blocks(state, length, block, 1, slot_step=0, write_shift=0,
                                     slots=1, zero_init=0, write_y=1)
    return cascade.result(state, 0, dispatches, copies)


def sosfilt_time_parallel(sos, x, axis, zi):
    """sosfilt kernel: blocks in parallel, a scan of the carried state, a fix-up pass."""
    return _in_groups(_time_parallel, sos, x, axis, zi)


def sosfilt_per_channel(sos, x, axis, zi):
    """sosfilt kernel: one invocation per channel, in bounded chunks of the signal."""
    return _in_groups(_per_channel, sos, x, axis, zi)


SOURCE = source_hash(sys.modules[__name__], shader_source("sos_blocks"),
                     shader_source("sos_scan"))

VARIANTS = {"sosfilt": [
    Variant("wgsl-time-parallel", sosfilt_time_parallel, SOURCE),
    Variant("wgsl-per-channel", sosfilt_per_channel, SOURCE),
]}
