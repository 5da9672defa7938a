"""Noise levels and threshold peaks on the GPU.

- ``channel_median``: a radix selection per channel, 8 bits a pass as
  ``median_of_squares`` selects over all squares (:mod:`dspk_wgpu.multichannel`),
  with a prefix and 256 bins per channel (``shaders/detection_median_bins.wgsl``):
  signed values on :func:`key_of` keys, ``abs(x - centre)`` on their bits; one
  more pass counts NaNs, and for an even count one pass per 32-bit word finds
  the next key above the lower middle. The bins (1 KiB a channel) are read back
  between passes and the digits chosen on the host, all channels at once.
- ``channel_mean_square``: per-(chunk, channel) sums of squares reduced in
  workgroup memory in the signal's precision, the chunks added in float64 on
  the host.
- ``detect_peaks``: one invocation per (sample, channel) tests the threshold,
  then the window on its channel and neighbours; peaks take slots of an atomic
  counter. When more peaks are found than the output holds, the dispatch runs
  again with room for all; the host sorts them by sample and channel.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from dspk.plugin import Variant, source_hash
from dspk_wgpu import layout
from dspk_wgpu.gpu import LOOP_BUDGET, Dispatch, real_dtype, shader_source

#: Bits of the keys the selection runs on, by precision.
KEY_BITS = {"f32": 32, "f64": 64}

#: Samples one workgroup of the median passes covers (256 lanes, 64 samples each).
MEDIAN_CHUNK = 256 * 64

#: Samples per chunk of the sums of squares (256 lanes, 64 samples each).
SQUARES_CHUNK = 256 * 64

#: Peaks the first detection dispatch has room for.
FIRST_CAPACITY = 1 << 16


def _centre_buffer(gpu, centre, channels: int, real: str):
    dtype = real_dtype(real)
    values = np.zeros(channels, dtype) if centre is None else np.asarray(centre, dtype)
    return gpu.upload(values)


class _Medians:
    """The passes of one signal's per-channel radix selection."""

    def __init__(self, x, axis, centre):
        self.x, self.axis = x, axis
        self.gpu = x.gpu
        self.real = layout.precision_of(x)
        self.bits = KEY_BITS[self.real]
        self.samples, self.channels = x.shape[axis], x.shape[1 - axis]
        self.centred = centre is not None
        self.centre = _centre_buffer(self.gpu, centre, self.channels, self.real)

    def _pass(self, mode: int, shift: int, prefixes: np.ndarray, initial: int,
              word: int = 0) -> np.ndarray:
        """The bins ``(C, 256)`` of one pass; ``prefixes`` ``(C, 3)`` uint32 words."""
        bins = self.gpu.upload(np.full(256 * self.channels, initial, np.uint32))
        words = self.gpu.upload(np.ascontiguousarray(prefixes, np.uint32))
        x_offset, x_sc, x_st = layout.addressing(self.x, self.axis)
        dispatches = [
            Dispatch("detection_median_bins", self.real,
                     (self.samples, mode, shift, int(self.centred), first, x_offset, x_sc, x_st,
                      word),
                     (self.x.buffer, self.centre, words, bins), (size, self.channels, 1))
            for first, size in layout.batches(math.ceil(self.samples / MEDIAN_CHUNK))]
        self.gpu.run(dispatches)
        raw = self.gpu.read(bins, 1024 * self.channels)
        return np.frombuffer(raw, np.uint32).reshape(self.channels, 256)

    def _words(self, keys: np.ndarray, high: np.ndarray | None = None) -> np.ndarray:
        words = np.zeros((self.channels, 3), np.uint32)
        words[:, 0] = keys >> np.uint64(self.bits - 32)
        if self.bits > 32:
            words[:, 1] = keys & np.uint64(0xFFFFFFFF)
        if high is not None:
            words[:, 2] = high
        return words

    def select(self, rank: int) -> tuple[np.ndarray, np.ndarray]:
        """Each channel's key of rank ``rank`` and the count of keys at or below it."""
        prefix = np.zeros(self.channels, np.uint64)
        below = np.zeros(self.channels, np.int64)
        rows = np.arange(self.channels)
        for shift in range(self.bits - 8, -1, -8):
            bins = self._pass(0, shift, self._words(prefix), 0).astype(np.int64)
            cumulative = np.cumsum(bins, axis=1)
            digit = (cumulative <= (rank - below)[:, None]).sum(axis=1)
            below += np.where(digit > 0, cumulative[rows, np.maximum(digit - 1, 0)], 0)
            prefix |= digit.astype(np.uint64) << np.uint64(shift)
        return prefix, below + bins[rows, digit]

    def next_above(self, keys: np.ndarray) -> np.ndarray:
        """Each channel's smallest key above ``keys``."""
        high = self._pass(1, 0, self._words(keys), 0xFFFFFFFF)[:, 0].astype(np.uint64)
        if self.bits == 32:
            return high
        low = self._pass(1, 0, self._words(keys, high), 0xFFFFFFFF, 1)[:, 0]
        return (high << np.uint64(32)) | low.astype(np.uint64)

    def values(self, keys: np.ndarray) -> np.ndarray:
        """The numbers whose keys are ``keys``, as float64."""
        unsigned = np.uint32 if self.bits == 32 else np.uint64
        keys = keys.astype(unsigned)
        if not self.centred:  # undo key_of: negative numbers were reversed below positive
            sign = unsigned(1) << unsigned(self.bits - 1)
            keys = np.where(keys & sign, keys & ~sign, ~keys).astype(unsigned)
        return keys.view(np.float32 if self.bits == 32 else np.float64).astype(np.float64)

    def has_nan(self) -> np.ndarray:
        return self._pass(2, 0, self._words(np.zeros(self.channels, np.uint64)), 0)[:, 0] > 0


def channel_median_radix(x, axis, centre):
    """channel_median kernel: a radix selection per channel on the values' keys."""
    medians = _Medians(x, axis, centre)
    n = medians.samples
    lower_rank = (n - 1) // 2
    lower, at_or_below = medians.select(lower_rank)
    result = medians.values(lower)
    if n % 2 == 0:
        repeat = at_or_below > lower_rank + 1
        if not repeat.all():
            upper = medians.values(medians.next_above(lower))
            result = np.where(repeat, result, (result + upper) / 2)
    result[medians.has_nan()] = np.nan
    return result


def channel_mean_square_sums(x, axis, centre):
    """channel_mean_square kernel: chunk sums of squares on the device, added in float64."""
    gpu = x.gpu
    real = layout.precision_of(x)
    samples, channels = x.shape[axis], x.shape[1 - axis]
    chunks = math.ceil(samples / SQUARES_CHUNK)
    dtype = real_dtype(real)
    sums = gpu.empty(chunks * channels * dtype.itemsize)
    x_offset, x_sc, x_st = layout.addressing(x, axis)
    centre_buffer = _centre_buffer(gpu, centre, channels, real)
    gpu.run([Dispatch("detection_square_sums", real,
                      (samples, SQUARES_CHUNK, first, x_offset, x_sc, x_st, channels),
                      (x.buffer, centre_buffer, sums), (size, channels, 1))
             for first, size in layout.batches(chunks)])
    raw = np.frombuffer(gpu.read(sums, chunks * channels * dtype.itemsize), dtype)
    return raw.reshape(chunks, channels).astype(np.float64).sum(axis=0) / samples


def detect_peaks_mask(x, axis, levels, sign, exclude, neighbours):
    """detect_peaks kernel: an invocation per (sample, channel), peaks compacted by an atomic
    counter, sorted on the host."""
    gpu = x.gpu
    real = layout.precision_of(x)
    samples, channels = x.shape[axis], x.shape[1 - axis]
    table = np.full((channels, 1), -1, np.int32) if neighbours is None else neighbours
    width = table.shape[1]
    steps = (2 * exclude + 1) * (width + 1)
    if steps > LOOP_BUDGET:
        raise ValueError(f"the wgpu peak detection compares at most {LOOP_BUDGET} samples per "
                         f"candidate; exclude={exclude} with {width} neighbours needs {steps} "
                         "(a smaller exclude or radius, or another runtime)")
    dtype = real_dtype(real)
    levels_buffer = gpu.upload(np.asarray(levels, dtype))
    table_buffer = gpu.upload(np.ascontiguousarray(table, np.int32))
    x_offset, x_sc, x_st = layout.addressing(x, axis)
    capacity = min(FIRST_CAPACITY, samples * channels)
    while True:
        count = gpu.zeros(4)
        found = gpu.empty(8 * max(capacity, 1))
        amplitudes = gpu.empty(dtype.itemsize * max(capacity, 1))
        gpu.run([Dispatch("detection_peaks", real,
                          (samples, int(sign != "pos"), int(sign != "neg"), exclude, width,
                           x_offset, x_sc, x_st, first, capacity),
                          (x.buffer, levels_buffer, table_buffer, count, found, amplitudes),
                          (size, channels, 1))
                 for first, size in layout.batches(math.ceil(samples / 64))])
        total = int(np.frombuffer(gpu.read(count, 4), np.uint32)[0])
        if total <= capacity:
            break
        capacity = total
    pairs = np.frombuffer(gpu.read(found, 8 * max(total, 1)), np.int32)[:2 * total]
    values = np.frombuffer(gpu.read(amplitudes, dtype.itemsize * max(total, 1)),
                           dtype)[:total]
    t, c = pairs[0::2].astype(np.int64), pairs[1::2].astype(np.int64)
    order = np.lexsort((c, t))
    return t[order], c[order], values[order].copy()


SOURCE = source_hash(sys.modules[__name__], shader_source("detection_median_bins"),
                     shader_source("detection_square_sums"), shader_source("detection_peaks"))

VARIANTS = {
    "channel_median": [Variant("wgsl-radix-select", channel_median_radix, SOURCE)],
    "channel_mean_square": [Variant("wgsl-chunk-sums", channel_mean_square_sums, SOURCE)],
    "detect_peaks": [Variant("wgsl-atomic-slots", detect_peaks_mask, SOURCE)],
}
