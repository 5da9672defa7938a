"""upfirdn on a polyphase kernel (``kernels/upfirdn.cu``) that never forms the upsampled signal.

Each output sample sums only the taps of its phase, ``ceil(taps / up)`` at
most, reading ``x`` (or its extension samples) directly. resample_poly and
decimate reach this kernel through the core.
"""

from __future__ import annotations

import sys

import cupy as cp

from dspk.plugin import Variant, source_hash
from dspk_cuda import layout, sources
from dspk_cuda.layout import THREADS, blocks_for, i32, i64


def upfirdn(h, x, axis, up, down, left, right, start, stop):
    """upfirdn kernel: samples ``start:stop`` of the polyphase filter's output."""
    channels, samples = x.shape[1 - axis], x.shape[axis]
    count = stop - start
    y = layout.output_like(cp, x, axis, count)
    h = cp.ascontiguousarray(h.ravel())
    if left is None:
        extension, left, right = 0, x, x  # never read
    else:
        extension = left.shape[axis]
    x_cs, x_ts = layout.addressing(x, axis)
    l_cs, l_ts = layout.addressing(left, axis)
    r_cs, r_ts = layout.addressing(right, axis)
    y_cs, y_ts = layout.addressing(y, axis)
    run = sources.kernel("upfirdn", x.dtype, "upfirdn_polyphase<{t}>")
    run((blocks_for(channels * count),), (THREADS,),
        (h, i32(h.size), i32(up), i32(down), x, i64(x_cs), i64(x_ts), i64(samples),
         left, i64(l_cs), i64(l_ts), right, i64(r_cs), i64(r_ts), i64(extension),
         i64(start), y, i64(y_cs), i64(y_ts), i64(count), i64(channels),
         i32(abs(y_ts) < abs(y_cs))))
    return y


SOURCE = source_hash(sys.modules[__name__], sources.text("upfirdn"))
VARIANTS = {"upfirdn": [Variant("cuda-polyphase", upfirdn, SOURCE)]}
