"""detrend on the GPU: partial sums per chunk, then each piece's fit subtracted.

Every piece between two break points is cut into chunks of at most
:data:`CHUNK` samples. Two dispatches do the rest:

1. ``detrend_sums``: a workgroup per (chunk, channel) adds up ``x`` and
   ``x * r`` over its chunk (``r`` the sample index less the piece's centre,
   so that the mean and the slope are independent sums), ending in a tree
   reduction in workgroup memory;
2. ``detrend_apply``: a workgroup per (chunk, channel) adds its piece's
   partial sums into the mean and the least-squares slope and writes
   ``x - mean - slope * r``.

Complex data is detrended as real data with twice the channels (real and
imaginary parts are independent). The shaders compute in the data's precision:
float32, or float64 where the device has ``shader-f64``. :func:`chunk_sums` (step 1 alone) also
serves :mod:`dspk_wgpu.multichannel`'s channel means.
"""

from __future__ import annotations

import sys

import numpy as np

from dspk.plugin import Variant, source_hash
from dspk_wgpu import layout
from dspk_wgpu.gpu import LOOP_BUDGET, REAL_BYTES, Dispatch, real_dtype, shader_source

#: Samples per chunk: 256 lanes, each looping over at most 64 samples.
CHUNK = 256 * 64

assert CHUNK // 256 <= LOOP_BUDGET


def chunk_table(pieces) -> np.ndarray:
    """Per chunk: start, stop, its piece's first chunk and chunk count, first sample, length.

    Examples
    --------
    >>> chunk_table((0, 5, 40000)).tolist()[:2]
    [[0, 5, 0, 1, 0, 5], [5, 16389, 1, 3, 5, 39995]]
    """
    rows = []
    for lo, hi in zip(pieces[:-1], pieces[1:]):
        starts = range(lo, hi, CHUNK)
        first = len(rows)
        rows += [[s, min(s + CHUNK, hi), first, len(starts), lo, hi - lo] for s in starts]
    return np.asarray(rows, np.int32).reshape(-1, 6)


class ChunkSums:
    """Step 1 for one signal: the chunk table and the dispatches that fill the sums.

    ``sums`` holds ``(chunk, channel, 2)`` numbers in ``x``'s precision: the sums
    of ``x`` and of ``x * r``, ``channel`` counting real components (``2 C`` for
    complex data).
    """

    def __init__(self, x, axis: int, pieces):
        self.gpu = x.gpu
        self.real = layout.precision_of(x)
        self.components = 2 if x.dtype.kind == "c" else 1
        self.channels = x.shape[1 - axis] * self.components
        self.table = chunk_table(pieces)
        self.chunks = self.gpu.upload(self.table)
        self.sums = self.gpu.empty(len(self.table) * self.channels * 2 * REAL_BYTES[self.real])
        offset, x_sc, x_st = layout.addressing(x, axis)
        self.x_addressing = (offset, x_sc, x_st)
        self.dispatches = [
            Dispatch("detrend_sums", self.real,
                     (self.channels, self.components, first, *self.x_addressing),
                     (self.chunks, x.buffer, self.sums), (count, self.channels, 1))
            for first, count in layout.batches(len(self.table))]

    def host(self) -> np.ndarray:
        """The sums after running :attr:`dispatches`, float64 ``(chunk, channel, 2)``."""
        dtype = real_dtype(self.real)
        raw = self.gpu.read(self.sums, len(self.table) * self.channels * 2 * dtype.itemsize)
        return np.frombuffer(raw, dtype).reshape(-1, self.channels, 2).astype(np.float64)


def detrend_chunks(x, axis, kind, bp):
    """detrend kernel: chunk sums, then each piece's mean (and slope) subtracted."""
    sums = ChunkSums(x, axis, bp)
    y = layout.output_like(x, axis, x.shape[axis])
    _, y_sc, y_st = layout.addressing(y, axis)
    offset, x_sc, x_st = sums.x_addressing
    linear = int(kind == "linear")
    dispatches = list(sums.dispatches)
    for first, count in layout.batches(len(sums.table)):
        params = (sums.channels, sums.components, first, offset, x_sc, x_st, y_sc, y_st, linear)
        dispatches.append(Dispatch("detrend_apply", sums.real, params,
                                   (sums.chunks, sums.sums, x.buffer, y.buffer),
                                   (count, sums.channels, 1)))
    x.gpu.run(dispatches)
    return y


SOURCE = source_hash(sys.modules[__name__], shader_source("detrend_sums"),
                     shader_source("detrend_apply"))

VARIANTS = {"detrend": [Variant("wgsl-chunk-sums", detrend_chunks, SOURCE)]}
