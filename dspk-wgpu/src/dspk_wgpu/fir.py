"""convolve on the GPU: direct tiles with the taps in workgroup memory.

A workgroup computes 256 consecutive outputs of one channel. Taps go through
workgroup memory 256 at a time, beside the 511 input samples they meet, so each
input sample and tap is read from the storage buffer once per tile. A dispatch
covers at most :data:`TAPS_PER_DISPATCH` taps (its loop stays within the
loop budget); later dispatches add to the output.
"""

from __future__ import annotations

import math
import sys

from dspk.plugin import Variant, source_hash

from dspk_wgpu import layout
from dspk_wgpu.gpu import Dispatch, shader_source

#: Outputs per workgroup, and taps per pass through workgroup memory.
TILE = 256

#: Taps one dispatch covers: 16 tiles of 256, 4096 loop iterations.
TAPS_PER_DISPATCH = 16 * TILE


def convolve_direct(x, h, axis):
    """convolve kernel: full convolution of each channel with its row of ``h``."""
    samples, channels = x.shape[axis], x.shape[1 - axis]
    rows, taps = h.shape
    out_len = samples + taps - 1
    y = layout.output_like(x, axis, out_len)
    x_offset, x_sc, x_st = layout.addressing(x, axis)
    _, y_sc, y_st = layout.addressing(y, axis)
    h_offset, h_sr, h_st = layout.addressing(h, 1)
    dispatches = []
    for tap0 in range(0, taps, TAPS_PER_DISPATCH):
        tap_count = min(TAPS_PER_DISPATCH, taps - tap0)
        for tile0, tiles in layout.batches(math.ceil(out_len / TILE)):
            params = (samples, taps, rows, out_len, tap0, tap_count, int(tap0 > 0), x_offset,
                      x_sc, x_st, y_sc, y_st, h_offset, h_sr, h_st, tile0)
            dispatches.append(Dispatch("convolve_direct", params, (x.buffer, h.buffer, y.buffer),
                                       (tiles, channels, 1)))
    x.gpu.run(dispatches)
    return y


SOURCE = source_hash(sys.modules[__name__], shader_source("convolve_direct"))

VARIANTS = {"convolve": [Variant("wgsl-direct-tiled", convolve_direct, SOURCE)]}
