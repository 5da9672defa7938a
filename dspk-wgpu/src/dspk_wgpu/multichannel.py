"""Operations across channels on the GPU: common reference and the kernels of whitening.

- ``common_reference``: one invocation per (sample, group) computes the
  group's median (a radix selection on the float bits, 4 bits a pass, see
  ``shaders/channels_reference.wgsl``) or mean across the group's channels and
  writes every member less it. Group membership goes up as a small int32
  table; channels in no group form a group written as zeros.
- ``channel_mean``: per-chunk sums reduced in workgroup memory (the step that
  :mod:`dspk_wgpu.detrend` shares), added up on the host in float64.
- ``channel_covariance``: 16 x 16 tiles of ``Xc Xc^T`` on and above the
  diagonal for every chunk of samples at once (chunks short enough to keep
  many workgroups busy), the chunks' partial sums then added with Kahan's
  compensation on the device; mirrored and divided by ``n`` on the host.
- ``median_of_squares``: a radix selection over all ``C n`` squares, 8 bits a
  pass, with bins counted by workgroup atomics and read back (1 KiB) between
  passes; for an even count, one more pass finds the next larger square.
- ``apply_channel_matrix``: a tiled product, tiles of ``W`` and of the centred
  signal in workgroup memory.

Means arrive as float64 host arrays (what ``channel_mean`` returns), or None,
and go up as float32.
"""

from __future__ import annotations

import math
import sys

import numpy as np
from dspk.plugin import Variant, source_hash

from dspk_wgpu import detrend, layout
from dspk_wgpu.arrays import WgpuArray
from dspk_wgpu.gpu import LOOP_BUDGET, Dispatch, shader_source

#: Largest group whose median one invocation selects within the loop budget:
#: eight counting passes of ``K + 16`` steps, the pass above and the writes.
MAX_MEDIAN_GROUP = (LOOP_BUDGET - 8 * 16) // 10

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


def _mean_buffer(gpu, mean, channels: int):
    """``mean`` (float64 host, a device array, or None for zeros) as a float32 buffer."""
    if mean is None:
        return gpu.zeros(channels * 4)
    if isinstance(mean, WgpuArray):
        return layout.dense(mean).buffer
    return gpu.upload(np.asarray(mean, np.float32))


def common_reference_select(x, axis, groups, operator):
    """common_reference kernel: per-sample radix-select median, or mean, of each group."""
    layout.float32_only("common_reference", x)
    samples, channels = x.shape[axis], x.shape[1 - axis]
    if operator == "median" and max(len(g) for g in groups) > MAX_MEDIAN_GROUP:
        raise ValueError(f"the wgpu median reference takes groups of at most "
                         f"{MAX_MEDIAN_GROUP} channels")
    table, zero_group = _group_table(groups, channels)
    group_count = int(table[0]) - 1
    y = layout.output_like(x, axis, samples)
    x_offset, x_sc, x_st = layout.addressing(x, axis)
    _, y_sc, y_st = layout.addressing(y, axis)
    table_buffer = x.gpu.upload(table)
    dispatches = [
        Dispatch("channels_reference", "f32",
                 (samples, group_count, _OPERATORS[operator], zero_group, first, x_offset, x_sc,
                  x_st, y_sc, y_st),
                 (table_buffer, x.buffer, y.buffer), (size, group_count, 1))
        for first, size in layout.batches(math.ceil(samples / 64))]
    x.gpu.run(dispatches)
    return y


def channel_mean_sums(x, axis):
    """channel_mean kernel: chunk sums on the device, their total in float64 on the host."""
    layout.float32_only("channel_mean", x)
    samples = x.shape[axis]
    sums = detrend.ChunkSums(x, axis, (0, samples))
    x.gpu.run(sums.dispatches)
    return sums.host()[:, :, 0].sum(axis=0) / samples


def _covariance_chunks(samples: int, channels: int) -> tuple[int, int]:
    """Samples per chunk, and chunks per dispatch, of the covariance.

    Chunks are short enough to keep about :data:`COVARIANCE_WORKGROUPS`
    workgroups busy (never above :data:`COVARIANCE_CHUNK`), and a dispatch's
    partial slabs fit :data:`COVARIANCE_PARTIAL_BYTES`.

    Examples
    --------
    >>> _covariance_chunks(65536, 64)
    (512, 2048)
    """
    tiles = math.ceil(channels / 16)
    wanted = math.ceil(COVARIANCE_WORKGROUPS / (tiles * (tiles + 1) // 2))
    length = min(COVARIANCE_CHUNK, max(256, 16 * math.ceil(samples / wanted / 16)))
    per_dispatch = COVARIANCE_PARTIAL_BYTES // (channels * channels * 4)
    return length, max(1, min(per_dispatch, 65535, LOOP_BUDGET))


def channel_covariance_tiles(x, axis, mean):
    """channel_covariance kernel: tiled ``Xc Xc^T`` per chunk, Kahan-summed on the device."""
    layout.float32_only("channel_covariance", x)
    gpu = x.gpu
    samples, channels = x.shape[axis], x.shape[1 - axis]
    tiles = math.ceil(channels / 16)
    slab = channels * channels * 4
    length, per_dispatch = _covariance_chunks(samples, channels)
    chunks = math.ceil(samples / length)
    sums, carry = gpu.empty(slab), gpu.empty(slab)
    partial = gpu.empty(min(chunks, per_dispatch) * slab)
    mean_buffer = _mean_buffer(gpu, mean, channels)
    x_offset, x_sc, x_st = layout.addressing(x, axis)
    dispatches = []
    for first in range(0, chunks, per_dispatch):
        count = min(per_dispatch, chunks - first)
        dispatches += [
            Dispatch("channels_covariance", "f32",
                     (channels, samples, length, first, x_offset, x_sc, x_st),
                     (x.buffer, mean_buffer, partial), (tiles, tiles, count)),
            Dispatch("channels_covariance_sum", "f32", (channels, count, int(first == 0)),
                     (partial, sums, carry), (math.ceil(channels / 64), channels, 1))]
    gpu.run(dispatches)
    upper = np.frombuffer(gpu.read(sums, slab), np.float32).reshape(channels, channels)
    upper = np.triu(upper.astype(np.float64))
    return (upper + np.triu(upper, 1).T) / samples


class _Squares:
    """The passes of the median of squares over one signal."""

    def __init__(self, x, axis, mean):
        self.x, self.axis = x, axis
        self.gpu = x.gpu
        self.samples, self.channels = x.shape[axis], x.shape[1 - axis]
        self.mean = _mean_buffer(self.gpu, mean, self.channels)

    def _pass(self, mode: int, shift: int, prefix: int, initial: int) -> np.ndarray:
        bins = self.gpu.upload(np.full(256, initial, np.uint32))
        x_offset, x_sc, x_st = layout.addressing(self.x, self.axis)
        dispatches = [
            Dispatch("channels_square_bins", "f32",
                     (self.samples, mode, shift, prefix, first, x_offset, x_sc, x_st),
                     (self.x.buffer, self.mean, bins), (size, self.channels, 1))
            for first, size in layout.batches(math.ceil(self.samples / SQUARES_CHUNK))]
        self.gpu.run(dispatches)
        return np.frombuffer(self.gpu.read(bins, 1024), np.uint32)

    def select(self, rank: int) -> tuple[int, int]:
        """The key of rank ``rank`` (0-based) and the count of keys at or below it."""
        prefix = 0
        below = 0
        for shift in (24, 16, 8, 0):
            bins = self._pass(0, shift, prefix, 0).astype(np.int64)
            cumulative = np.cumsum(bins)
            digit = int(np.searchsorted(cumulative, rank - below, side="right"))
            below += int(cumulative[digit - 1]) if digit else 0
            prefix |= digit << shift
        return prefix, below + int(bins[digit])

    def next_above(self, key: int) -> int:
        """The smallest key above ``key``."""
        return int(self._pass(1, 0, key, 0xFFFFFFFF)[0])


def _as_float(key: int) -> float:
    return float(np.array(key, np.uint32).view(np.float32))


def median_of_squares_radix(x, axis, mean):
    """median_of_squares kernel: a radix selection on the squares' float bits."""
    layout.float32_only("median_of_squares", x)
    squares = _Squares(x, axis, mean)
    total = squares.samples * squares.channels
    lower_rank = (total - 1) // 2
    lower, at_or_below = squares.select(lower_rank)
    if total % 2 or at_or_below > lower_rank + 1:
        return _as_float(lower)
    return 0.5 * (_as_float(lower) + _as_float(squares.next_above(lower)))


def apply_channel_matrix_tiles(W, x, axis, mean):
    """apply_channel_matrix kernel: ``W @ (x - mean)`` in workgroup-memory tiles."""
    layout.float32_only("apply_channel_matrix", W, x)
    samples, channels = x.shape[axis], x.shape[1 - axis]
    W = layout.dense(W)
    y = layout.output_like(x, axis, samples)
    x_offset, x_sc, x_st = layout.addressing(x, axis)
    _, y_sc, y_st = layout.addressing(y, axis)
    mean_buffer = _mean_buffer(x.gpu, mean, channels)
    dispatches = [
        Dispatch("channels_matrix", "f32",
                 (channels, samples, first, x_offset, x_sc, x_st, y_sc, y_st),
                 (W.buffer, x.buffer, mean_buffer, y.buffer), (size, math.ceil(channels / 16), 1))
        for first, size in layout.batches(math.ceil(samples / 64))]
    x.gpu.run(dispatches)
    return y


def _median_fits(problem) -> bool:
    return problem.param("operator") != "median" or problem.channels <= MAX_MEDIAN_GROUP


SOURCE = source_hash(sys.modules[__name__], detrend, shader_source("channels_reference"),
                     shader_source("channels_covariance"), shader_source("channels_covariance_sum"),
                     shader_source("channels_square_bins"),
                     shader_source("channels_matrix"), shader_source("detrend_sums"))

VARIANTS = {
    "common_reference": [Variant("wgsl-radix-select", common_reference_select, SOURCE,
                                 _median_fits)],
    "channel_mean": [Variant("wgsl-chunk-sums", channel_mean_sums, SOURCE)],
    "channel_covariance": [Variant("wgsl-tiles-kahan", channel_covariance_tiles, SOURCE)],
    "median_of_squares": [Variant("wgsl-radix-select", median_of_squares_radix, SOURCE)],
    "apply_channel_matrix": [Variant("wgsl-tiles", apply_channel_matrix_tiles, SOURCE)],
}
