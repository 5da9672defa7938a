"""Operations across channels on the GPU: common reference and the kernels of whitening.

- ``common_reference``: one invocation per (sample, group) computes the
  group's median (a radix selection on the numbers' order-preserving keys, 4
  bits a pass, see ``shaders/channels_reference.wgsl``) or mean across the
  group's channels and writes every member less it. Group membership goes up as a small int32
  table; channels in no group form a group written as zeros. The tuner chooses
  the samples per workgroup among :data:`REFERENCE`.
- ``channel_mean``: per-chunk sums reduced in workgroup memory (the step that
  :mod:`dspk_wgpu.detrend` shares), added up on the host in float64.
- ``channel_covariance``: 16 x 16 tiles of ``Xc Xc^T`` on and above the
  diagonal for every chunk of samples at once (chunks short enough to keep
  many workgroups busy), the chunks' partial sums then added with Kahan's
  compensation on the device; mirrored and divided by ``n`` on the host.
- ``median_of_squares``: a radix selection over all ``C n`` squares, 8 bits a
  pass, with bins counted by workgroup atomics and read back (1 KiB) between
  passes; for an even count, one more pass per 32-bit word of the key finds
  the next larger square.
- ``apply_channel_matrix``: a tiled product, tiles of ``W`` and of the centred
  signal in workgroup memory.

Means arrive as float64 host arrays (what ``channel_mean`` returns), or None,
and go up in the signal's precision.

Every kernel computes in the signal's precision: float32, or float64 where the
device has ``shader-f64``. The selections then run on 64-bit keys
(``shaders/lib_keys_f64.wgsl``, computed from the numbers' arithmetic: WGSL
cannot reinterpret a float64's bits here), twice the passes of float32's.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from dspk.plugin import Variant, source_hash
from dspk_wgpu import detrend, layout
from dspk_wgpu.arrays import WgpuArray
from dspk_wgpu.gpu import LOOP_BUDGET, Dispatch, real_dtype, shader_source
from dspk_wgpu.launch import Launch, tuned_variants

#: Bits of the keys the selections run on, by precision.
KEY_BITS = {"f32": 32, "f64": 64}


def max_median_group(real: str) -> int:
    """Largest group whose median one invocation selects within the loop budget:
    ``KEY_BITS / 4`` counting passes of ``K + 16`` steps, the pass above and the writes.

    Examples
    --------
    >>> max_median_group("f32"), max_median_group("f64")
    (1625, 896)
    """
    passes = KEY_BITS[real] // 4
    return (LOOP_BUDGET - passes * 16) // (passes + 2)


#: :func:`max_median_group` in float32.
MAX_MEDIAN_GROUP = max_median_group("f32")

#: The common reference's launches the tuner times (samples per workgroup), the
#: default first. Signals have far more samples than a workgroup, so none is left
#: idle; smaller workgroups would only cap the invocations resident on a GPU core.
REFERENCE = (Launch(64), Launch(128), Launch(256))

#: Most samples per covariance chunk: 16-sample steps of 16 products each.
COVARIANCE_CHUNK = 8192

#: Workgroups the covariance's chunks aim to keep busy.
COVARIANCE_WORKGROUPS = 1280

#: Most bytes of per-chunk partial covariances one dispatch writes.
COVARIANCE_PARTIAL_BYTES = 32 << 20

#: Samples one workgroup of the median-of-squares passes covers.
SQUARES_CHUNK = 256 * 64

_OPERATORS = {"average": 0, "median": 1}


def _group_table(groups, channels: int) -> tuple[np.ndarray, int]:
    """The groups as one int32 table (starts, then members) and the zero group's index.

    Channels in no group are appended as a last group, to be written as zeros;
    the index is -1 when every channel is in a group.

    Examples
    --------
    >>> table, zero = _group_table((np.array([2, 0]),), 4)
    >>> table.tolist(), zero
    ([3, 5, 7, 2, 0, 1, 3], 1)
    """
    groups = [np.asarray(g, np.int64) for g in groups]
    grouped = np.zeros(channels, bool)
    for members in groups:
        grouped[members] = True
    zero_group = -1
    if not grouped.all():
        zero_group = len(groups)
        groups.append(np.flatnonzero(~grouped))
    sizes = [len(g) for g in groups]
    starts = len(groups) + 1 + np.concatenate([[0], np.cumsum(sizes)])
    return np.concatenate([starts, *groups]).astype(np.int32), zero_group


def _mean_buffer(gpu, mean, channels: int, real: str):
    """``mean`` (float64 host, a device array, or None for zeros) as a buffer of
    precision ``real``."""
    dtype = real_dtype(real)
    if mean is None:
        return gpu.zeros(channels * dtype.itemsize)
    if isinstance(mean, WgpuArray):
        return layout.dense(mean.astype(dtype, copy=False)).buffer
    return gpu.upload(np.asarray(mean, dtype))


def common_reference_select(x, axis, groups, operator, launch):
    """common_reference kernel: per-sample radix-select median, or mean, of each group,
    ``launch.workgroup`` samples per workgroup."""
    real = layout.precision_of(x)
    samples, channels = x.shape[axis], x.shape[1 - axis]
    largest = max_median_group(real)
    if operator == "median" and max(len(g) for g in groups) > largest:
        raise ValueError(f"the wgpu median reference takes groups of at most {largest} "
                         f"channels in {x.dtype}")
    table, zero_group = _group_table(groups, channels)
    group_count = int(table[0]) - 1
    y = layout.output_like(x, axis, samples)
    x_offset, x_sc, x_st = layout.addressing(x, axis)
    _, y_sc, y_st = layout.addressing(y, axis)
    table_buffer = x.gpu.upload(table)
    dispatches = [
        Dispatch("channels_reference", real,
                 (samples, group_count, _OPERATORS[operator], zero_group, first, x_offset, x_sc,
                  x_st, y_sc, y_st),
                 (table_buffer, x.buffer, y.buffer), (size, group_count, 1), launch.constants)
        for first, size in layout.batches(math.ceil(samples / launch.workgroup))]
    x.gpu.run(dispatches)
    return y


def _neighbour_table(neighbours) -> np.ndarray:
    """A neighbour table (rows padded with -1) as one int32 table: starts, then members.

    Examples
    --------
    >>> _neighbour_table(np.array([[2, 0], [-1, -1], [1, -1]])).tolist()
    [4, 6, 6, 7, 2, 0, 1]
    """
    rows = [row[row >= 0] for row in np.asarray(neighbours, np.int64)]
    starts = len(rows) + 1 + np.concatenate([[0], np.cumsum([len(r) for r in rows])])
    return np.concatenate([starts, *rows]).astype(np.int32)


def neighbour_reference_select(x, axis, neighbours, operator, launch):
    """neighbour_reference kernel: the common reference's shader, one group per channel
    (its neighbours) writing that channel only, ``launch.workgroup`` samples per workgroup."""
    real = layout.precision_of(x)
    samples, channels = x.shape[axis], x.shape[1 - axis]
    largest = max_median_group(real)
    if operator == "median" and neighbours.shape[1] > largest:
        raise ValueError(f"the wgpu median reference takes at most {largest} neighbours "
                         f"in {x.dtype}")
    y = layout.output_like(x, axis, samples)
    x_offset, x_sc, x_st = layout.addressing(x, axis)
    _, y_sc, y_st = layout.addressing(y, axis)
    table_buffer = x.gpu.upload(_neighbour_table(neighbours))
    dispatches = [
        Dispatch("channels_reference", real,
                 (samples, channels, _OPERATORS[operator], -1, first, x_offset, x_sc,
                  x_st, y_sc, y_st, 1),
                 (table_buffer, x.buffer, y.buffer), (size, channels, 1), launch.constants)
        for first, size in layout.batches(math.ceil(samples / launch.workgroup))]
    x.gpu.run(dispatches)
    return y


def channel_mean_sums(x, axis):
    """channel_mean kernel: chunk sums on the device, their total in float64 on the host."""
    samples = x.shape[axis]
    sums = detrend.ChunkSums(x, axis, (0, samples))
    x.gpu.run(sums.dispatches)
    return sums.host()[:, :, 0].sum(axis=0) / samples


def _covariance_chunks(samples: int, channels: int, itemsize: int = 4) -> tuple[int, int]:
    """Samples per chunk, and chunks per dispatch, of the covariance.

    Chunks are short enough to keep about :data:`COVARIANCE_WORKGROUPS`
    workgroups busy (never above :data:`COVARIANCE_CHUNK`), and a dispatch's
    partial slabs (of numbers of ``itemsize`` bytes) fit :data:`COVARIANCE_PARTIAL_BYTES`.

    Examples
    --------
    >>> _covariance_chunks(65536, 64)
    (512, 2048)
    """
    tiles = math.ceil(channels / 16)
    wanted = math.ceil(COVARIANCE_WORKGROUPS / (tiles * (tiles + 1) // 2))
    length = min(COVARIANCE_CHUNK, max(256, 16 * math.ceil(samples / wanted / 16)))
    per_dispatch = COVARIANCE_PARTIAL_BYTES // (channels * channels * itemsize)
    return length, max(1, min(per_dispatch, 65535, LOOP_BUDGET))


def channel_covariance_tiles(x, axis, mean):
    """channel_covariance kernel: tiled ``Xc Xc^T`` per chunk, Kahan-summed on the device."""
    gpu = x.gpu
    real = layout.precision_of(x)
    dtype = real_dtype(real)
    samples, channels = x.shape[axis], x.shape[1 - axis]
    tiles = math.ceil(channels / 16)
    slab = channels * channels * dtype.itemsize
    length, per_dispatch = _covariance_chunks(samples, channels, dtype.itemsize)
    chunks = math.ceil(samples / length)
    sums, carry = gpu.empty(slab), gpu.empty(slab)
    partial = gpu.empty(min(chunks, per_dispatch) * slab)
    mean_buffer = _mean_buffer(gpu, mean, channels, real)
    x_offset, x_sc, x_st = layout.addressing(x, axis)
    dispatches = []
    for first in range(0, chunks, per_dispatch):
        count = min(per_dispatch, chunks - first)
        dispatches += [
            Dispatch("channels_covariance", real,
                     (channels, samples, length, first, x_offset, x_sc, x_st),
                     (x.buffer, mean_buffer, partial), (tiles, tiles, count)),
            Dispatch("channels_covariance_sum", real, (channels, count, int(first == 0)),
                     (partial, sums, carry), (math.ceil(channels / 64), channels, 1))]
    gpu.run(dispatches)
    upper = np.frombuffer(gpu.read(sums, slab), dtype).reshape(channels, channels)
    upper = np.triu(upper.astype(np.float64))
    return (upper + np.triu(upper, 1).T) / samples


class _Squares:
    """The passes of the median of squares over one signal.

    Keys are the squares' bits, :data:`KEY_BITS` of them: one 32-bit word in
    float32, two (high, low) in float64.
    """

    def __init__(self, x, axis, mean):
        self.x, self.axis = x, axis
        self.gpu = x.gpu
        self.real = layout.precision_of(x)
        self.bits = KEY_BITS[self.real]
        self.samples, self.channels = x.shape[axis], x.shape[1 - axis]
        self.mean = _mean_buffer(self.gpu, mean, self.channels, self.real)

    def _pass(self, mode: int, shift: int, prefix: int, initial: int, word: int = 0,
              found_high: int = 0) -> np.ndarray:
        bins = self.gpu.upload(np.full(256, initial, np.uint32))
        x_offset, x_sc, x_st = layout.addressing(self.x, self.axis)
        high, low = prefix >> (self.bits - 32), prefix & 0xFFFFFFFF if self.bits > 32 else 0
        dispatches = [
            Dispatch("channels_square_bins", self.real,
                     (self.samples, mode, shift, high, first, x_offset, x_sc, x_st, low, word,
                      found_high),
                     (self.x.buffer, self.mean, bins), (size, self.channels, 1))
            for first, size in layout.batches(math.ceil(self.samples / SQUARES_CHUNK))]
        self.gpu.run(dispatches)
        return np.frombuffer(self.gpu.read(bins, 1024), np.uint32)

    def select(self, rank: int) -> tuple[int, int]:
        """The key of rank ``rank`` (0-based) and the count of keys at or below it."""
        prefix = 0
        below = 0
        for shift in range(self.bits - 8, -1, -8):
            bins = self._pass(0, shift, prefix, 0).astype(np.int64)
            cumulative = np.cumsum(bins)
            digit = int(np.searchsorted(cumulative, rank - below, side="right"))
            below += int(cumulative[digit - 1]) if digit else 0
            prefix |= digit << shift
        return prefix, below + int(bins[digit])

    def next_above(self, key: int) -> int:
        """The smallest key above ``key``: its high word, then (float64) its low word."""
        high = int(self._pass(1, 0, key, 0xFFFFFFFF)[0])
        if self.bits == 32:
            return high
        return (high << 32) | int(self._pass(1, 0, key, 0xFFFFFFFF, 1, high)[0])

    def as_float(self, key: int) -> float:
        """The square whose bits are ``key``."""
        if self.bits == 32:
            return float(np.array(key, np.uint32).view(np.float32))
        return float(np.array(key, np.uint64).view(np.float64))


def median_of_squares_radix(x, axis, mean):
    """median_of_squares kernel: a radix selection on the squares' bits."""
    squares = _Squares(x, axis, mean)
    total = squares.samples * squares.channels
    lower_rank = (total - 1) // 2
    lower, at_or_below = squares.select(lower_rank)
    if total % 2 or at_or_below > lower_rank + 1:
        return squares.as_float(lower)
    return 0.5 * (squares.as_float(lower) + squares.as_float(squares.next_above(lower)))


def apply_channel_matrix_tiles(W, x, axis, mean):
    """apply_channel_matrix kernel: ``W @ (x - mean)`` in workgroup-memory tiles."""
    real = layout.precision_of(x, W)
    samples, channels = x.shape[axis], x.shape[1 - axis]
    W = layout.dense(W)
    y = layout.output_like(x, axis, samples)
    x_offset, x_sc, x_st = layout.addressing(x, axis)
    _, y_sc, y_st = layout.addressing(y, axis)
    mean_buffer = _mean_buffer(x.gpu, mean, channels, real)
    dispatches = [
        Dispatch("channels_matrix", real,
                 (channels, samples, first, x_offset, x_sc, x_st, y_sc, y_st),
                 (W.buffer, x.buffer, mean_buffer, y.buffer), (size, math.ceil(channels / 16), 1))
        for first, size in layout.batches(math.ceil(samples / 64))]
    x.gpu.run(dispatches)
    return y


def _median_fits(problem) -> bool:
    real = "f64" if np.dtype(problem.dtype) in (np.float64, np.complex128) else "f32"
    return problem.param("operator") != "median" or problem.channels <= max_median_group(real)


def _neighbours_fit(problem) -> bool:
    real = "f64" if np.dtype(problem.dtype) in (np.float64, np.complex128) else "f32"
    return (problem.param("operator") != "median"
            or problem.param("neighbours") <= max_median_group(real))


SOURCE = source_hash(sys.modules[__name__], detrend, shader_source("channels_reference"),
                     shader_source("channels_covariance"), shader_source("channels_covariance_sum"),
                     shader_source("channels_square_bins"),
                     shader_source("channels_matrix"), shader_source("detrend_sums"))

VARIANTS = {
    "common_reference": tuned_variants("wgsl-radix-select", common_reference_select, SOURCE,
                                       REFERENCE, _median_fits),
    "neighbour_reference": tuned_variants("wgsl-radix-select", neighbour_reference_select,
                                          SOURCE, REFERENCE, _neighbours_fit),
    "channel_mean": [Variant("wgsl-chunk-sums", channel_mean_sums, SOURCE)],
    "channel_covariance": [Variant("wgsl-tiles-kahan", channel_covariance_tiles, SOURCE)],
    "median_of_squares": [Variant("wgsl-radix-select", median_of_squares_radix, SOURCE)],
    "apply_channel_matrix": [Variant("wgsl-tiles", apply_channel_matrix_tiles, SOURCE)],
}
