"""IIR filter variants: sosfilt, lfilter, sosfiltfilt and filtfilt on ``kernels/iir.cu``.

The time-parallel design (shared with the wgpu runtime's algorithm, not its
code): the filter's state is a vector of ``D`` numbers (scipy's ``zi``
layout); over a block of ``L`` samples it maps as ``s -> T s + f``, with
``T`` the same for every full block and computed on the host
(:mod:`dspk.kernel_support.transitions`, rounded once to the signal's
dtype), ``f`` the block's final state from a zero start. One pass filters
every (channel, block) from zero and keeps ``f``; a Kogge-Stone scan over
blocks, with the powers ``T^(2^k)``, gives every block its true start; a
second pass filters every block again from it and writes the output. The
whole cascade of up to 16 sections (or one direct form of order up to 32)
is one fused pass held in registers; longer cascades run as groups of
sections one after another.

sosfiltfilt and filtfilt read the padded signal through an index function
(odd, even or constant extension, never materialised) for the forward pass
into one scratch signal, and read that backwards for the backward pass,
which writes only the samples kept. The fallback variant for lfilter and
filtfilt of any order runs one thread per channel.

The scan is Kogge and Stone's and Blelloch's: see the References of
:mod:`dspk.kernel_support.transitions`, which plans it for every runtime.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import cupy as cp
import numpy as np

from dspk.kernel_support import transitions
from dspk.plugin import Problem, Variant, source_hash
from dspk_cuda import layout, sources
from dspk_cuda.layout import THREADS, blocks_for, i32, i64

#: Filter kinds, as ``FilterKind`` in iir.cu.
SOS, DF2T = 0, 1

#: Extension modes of the padded signal, as ``Extension`` in common.cuh.
EXTENSIONS = {None: 0, "odd": 1, "even": 2, "constant": 3}

#: Fewest samples per block: shorter blocks cost more scan (and its rounding) than they save.
MIN_BLOCK_LEN = 256

#: Shared memory the carry scan may use (the default limit of one block).
SCAN_SHARED_BYTES = 48 * 1024

#: The largest register-resident state (sections = half of it).
MAX_STATE = max(sources.IIR_CAPACITIES)


@dataclass(frozen=True, eq=False)
class Source:
    """A signal as a kernel reads it: strided, maybe extended at both ends, maybe reversed."""

    array: object
    channel_stride: int
    time_stride: int
    samples: int
    edge: int = 0
    mode: int = 0
    reversed: bool = False

    @classmethod
    def of(cls, a, axis: int, edge: int = 0, mode: int = 0, reversed: bool = False) -> Source:
        """The source of a 2-D device array with time along ``axis``."""
        channel_stride, time_stride = layout.addressing(a, axis)
        return cls(a, channel_stride, time_stride, a.shape[axis], edge, mode, reversed)

    @property
    def length(self) -> int:
        """Samples read, extension included."""
        return self.samples + 2 * self.edge

    def args(self) -> tuple:
        return (self.array, i64(self.channel_stride), i64(self.time_stride), i64(self.samples),
                i64(self.edge), i32(self.mode), i32(self.reversed))


@dataclass(frozen=True, eq=False)
class Sink:
    """Where a pass writes: samples ``skip .. skip + count`` of its output, maybe reversed."""

    array: object
    channel_stride: int
    time_stride: int
    skip: int
    count: int
    reversed: bool = False

    @classmethod
    def of(cls, a, axis: int, skip: int = 0, reversed: bool = False) -> Sink:
        """The sink of a 2-D device array with time along ``axis``, all of its samples."""
        channel_stride, time_stride = layout.addressing(a, axis)
        return cls(a, channel_stride, time_stride, skip, a.shape[axis], reversed)

    def args(self) -> tuple:
        return (self.array, i64(self.channel_stride), i64(self.time_stride), i64(self.skip),
                i64(self.count), i32(self.reversed))


def _scratch(channels: int, samples: int, dtype, reversed: bool = False):
    """A channel-major scratch signal as a sink and as the matching source."""
    buffer = cp.empty((channels, samples), dtype)
    return (Sink(buffer, samples, 1, 0, samples, reversed),
            Source(buffer, samples, 1, samples, reversed=reversed))


@dataclass(frozen=True, eq=False)
class Filter:
    """Coefficients on the device and on the host (float64 rows of sections), and the state size."""

    kind: int
    coefficients: object  # device: sos rows, or b then a
    count: int            # sections, or taps of b (= of a)
    rows: np.ndarray      # float64 rows [b0 .. bM, a0 .. aM], as dspk.kernel_support.transitions
    order: int            # M: 2 for sos, taps - 1 for a direct form

    @classmethod
    def sos(cls, sos) -> Filter:
        return cls(SOS, cp.ascontiguousarray(sos), sos.shape[0],
                   cp.asnumpy(sos).astype(np.float64), 2)

    @classmethod
    def direct(cls, b, a) -> Filter:
        coefficients = cp.concatenate([b.ravel(), a.ravel()])
        return cls(DF2T, coefficients, b.size,
                   cp.asnumpy(coefficients).astype(np.float64)[None, :], b.size - 1)

    @property
    def size(self) -> int:
        return 2 * self.count if self.kind == SOS else self.count - 1

    @property
    def capacity(self) -> int:
        """The smallest compiled register capacity that holds the state."""
        return next(c for c in sources.IIR_CAPACITIES if c >= self.size)


def _geometry(length: int, size: int, itemsize: int) -> tuple[int, int]:
    """Block length and block count: as many blocks as the scan's shared memory allows."""
    if size == 0:
        return length, 1
    most = 1 << min(10, (SCAN_SHARED_BYTES // (size * itemsize)).bit_length() - 1)
    block_len = max(MIN_BLOCK_LEN, -(-length // most))
    return block_len, -(-length // block_len)


def time_parallel_pass(filt: Filter, source: Source, sink: Sink, channels: int, init_mode: int,
                       zi=None, steady=None, edge_source: Source | None = None, zf=None):
    """One causal pass of ``filt`` from ``source`` to ``sink``: blocks, carry scan, fix-up.

    ``init_mode`` 0 starts from zeros, 1 from ``zi`` (zi layout of the filter
    kind), 2 from ``steady`` times the first sample of ``edge_source``;
    ``zf`` (same layout as ``zi``) receives the final state when given.
    """
    dtype = source.array.dtype
    size, length = filt.size, source.length
    block_len, blocks = _geometry(length, size, dtype.itemsize)
    slots = cp.empty((channels, blocks, max(size, 1)), dtype)
    dummy = filt.coefficients
    run = sources.kernel("iir", dtype, f"iir_blocks<{{t}}, {filt.kind}, {filt.capacity}>")
    channel_fastest = abs(source.channel_stride) < abs(source.time_stride)
    common = ((filt.coefficients, i32(filt.count)) + source.args() + sink.args()
              + (i64(channels), i64(length), i64(block_len), i64(blocks), slots))
    grid = (blocks_for(channels * blocks),)
    if blocks > 1:
        run(grid, (THREADS,), common + (i32(0), dummy, i32(0), i32(channel_fastest)))
    steps = (blocks - 1).bit_length()
    powers = (cp.asarray(transitions.scan_powers(filt.rows, filt.order, block_len, steps, dtype))
              if steps else dummy)
    edge_source = edge_source or source
    scan_threads = 1 << steps
    scan = sources.kernel("iir", dtype, f"iir_carry_scan<{{t}}, {filt.capacity}>")
    scan((min(channels, 65535),), (scan_threads,),
         (slots, i64(channels), i64(blocks), i32(size), powers, i32(steps), i32(filt.kind),
          i32(init_mode), dummy if zi is None else zi, dummy if steady is None else steady)
         + edge_source.args() + (i64(edge_source.length),),
         shared_mem=scan_threads * size * dtype.itemsize)
    run(grid, (THREADS,), common + (i32(1), dummy if zf is None else zf, i32(zf is not None),
                                     i32(channel_fastest)))


def sequential_pass(filt: Filter, source: Source, sink: Sink, channels: int, init_mode: int,
                    zi=None, steady=None, edge_source: Source | None = None, zf=None):
    """One causal pass of a direct form of any order: one thread per channel.

    Arguments as :func:`time_parallel_pass`; the edge sample of mode 2 is
    always the source's first sample.
    """
    if edge_source is not None and edge_source is not source:
        raise ValueError("the sequential pass reads its edge sample from its own source")
    dtype = source.array.dtype
    state = zf if zf is not None else cp.empty((channels, max(filt.size, 1)), dtype)
    dummy = filt.coefficients
    run = sources.kernel("iir", dtype, "iir_df2t_sequential<{t}>")
    run((blocks_for(channels),), (THREADS,),
        (filt.coefficients, i32(filt.count)) + source.args() + sink.args()
        + (i64(channels), i64(source.length), state, i32(init_mode),
           dummy if zi is None else zi, dummy if steady is None else steady))


def _groups(sos) -> list[slice]:
    """Slices of at most ``MAX_STATE // 2`` sections covering the cascade."""
    per = MAX_STATE // 2
    return [slice(first, first + per) for first in range(0, sos.shape[0], per)]


def sosfilt(sos, x, axis, zi):
    """sosfilt kernel: fused cascade, time-parallel; longer cascades in groups of sections."""
    channels = x.shape[1 - axis]
    y = layout.output_like(cp, x, axis, x.shape[axis])
    zf = None if zi is None else cp.empty(zi.shape, x.dtype)
    source = Source.of(x, axis)
    for part in _groups(sos):
        time_parallel_pass(Filter.sos(sos[part]), source, Sink.of(y, axis), channels,
                           0 if zi is None else 1,
                           zi=None if zi is None else cp.ascontiguousarray(zi[part]),
                           zf=None if zf is None else zf[part])
        source = Source.of(y, axis)
    return y, zf


def _lfilter_with(one_pass):
    def lfilter(b, a, x, axis, zi):
        channels = x.shape[1 - axis]
        y = layout.output_like(cp, x, axis, x.shape[axis])
        zf = None if zi is None else cp.empty((channels, b.size - 1), x.dtype)
        one_pass(Filter.direct(b, a), Source.of(x, axis), Sink.of(y, axis), channels,
                 0 if zi is None else 1, zi=None if zi is None else cp.ascontiguousarray(zi),
                 zf=zf)
        return y, zf

    return lfilter


def zero_phase(stages, x, axis, padtype, padlen):
    """Forward then backward through ``stages``, the padding read through an index function.

    Parameters
    ----------
    stages : list of (pass, Filter, steady)
        Filters applied in turn, each run by ``pass`` (as
        :func:`time_parallel_pass`) from ``steady`` times the cascade's
        first input sample.
    x : cupy.ndarray
        2-D signal with time along ``axis``.
    padtype, padlen
        As in :func:`dspk.sosfiltfilt` (already checked).

    Returns
    -------
    cupy.ndarray
        The zero-phase output in ``x``'s layout.
    """
    channels, samples = x.shape[1 - axis], x.shape[axis]
    edge = 0 if padtype is None else padlen
    cascade_input = Source.of(x, axis, edge, EXTENSIONS[padtype])
    length = cascade_input.length
    forward_sink, forward = _scratch(channels, length, x.dtype)
    backward_input = Source(forward.array, length, 1, length, reversed=True)
    y = layout.output_like(cp, x, axis, samples)
    final_sink = Sink.of(y, axis, skip=edge, reversed=True)
    backward_sink, backward = (_scratch(channels, length, x.dtype, reversed=True)
                               if len(stages) > 1 else (None, None))
    source = cascade_input
    for one_pass, filt, steady in stages:
        one_pass(filt, source, forward_sink, channels, 2, steady=steady,
                 edge_source=cascade_input)
        source = forward
    source = backward_input
    for index, (one_pass, filt, steady) in enumerate(stages):
        sink = final_sink if index == len(stages) - 1 else backward_sink
        one_pass(filt, source, sink, channels, 2, steady=steady, edge_source=backward_input)
        source = backward
    return y


def sosfiltfilt(sos, x, axis, padtype, padlen, zi):
    """sosfiltfilt kernel: time-parallel fused cascade forward and backward, padding by index."""
    stages = [(time_parallel_pass, Filter.sos(sos[part]), cp.ascontiguousarray(zi[part]).ravel())
              for part in _groups(sos)]
    return zero_phase(stages, x, axis, padtype, padlen)


def _filtfilt_with(one_pass):
    def filtfilt(b, a, x, axis, padtype, padlen, zi):
        stages = [(one_pass, Filter.direct(b, a), cp.ascontiguousarray(zi).ravel())]
        return zero_phase(stages, x, axis, padtype, padlen)

    return filtfilt


def _register_order(problem: Problem) -> bool:
    return problem.param("order", 0) <= MAX_STATE


SOURCE = source_hash(sys.modules[__name__], transitions, sources.text("iir"))
VARIANTS = {
    "sosfilt": [Variant("cuda-time-parallel", sosfilt, SOURCE)],
    "sosfiltfilt": [Variant("cuda-time-parallel", sosfiltfilt, SOURCE)],
    "lfilter": [
        Variant("cuda-time-parallel", _lfilter_with(time_parallel_pass), SOURCE, _register_order),
        Variant("cuda-per-channel", _lfilter_with(sequential_pass), SOURCE),
    ],
    "filtfilt": [
        Variant("cuda-time-parallel", _filtfilt_with(time_parallel_pass), SOURCE,
                _register_order),
        Variant("cuda-per-channel", _filtfilt_with(sequential_pass), SOURCE),
    ],
}
