"""upfirdn on the GPU: a polyphase filter, one invocation per output sample.

Output ``k`` of upfirdn is ``sum_j h[j] u[k down - j]``, ``u`` the signal
upsampled by ``up`` with zeros. With ``t = k down``, only the taps
``h[t % up + up m]`` meet non-zero samples, ``x[t // up - m]``, so each output
is a dot product of one phase's ``ceil(len(h) / up)`` taps with consecutive
input samples, and the upsampled signal is never formed. Samples beyond the
ends come from the core's ``left`` and ``right`` extensions (made dense here).

Neighbouring invocations compute neighbouring outputs of one channel for
channel-major data, and the same output of neighbouring channels for
sample-major data, so that their reads of ``x`` fall together. A dispatch
covers at most :data:`~dspk_wgpu.gpu.LOOP_BUDGET` taps per output; longer
filters take several dispatches that add to the output. The shader computes in
the signal's precision: float32, or float64 where the device has ``shader-f64``.
"""

from __future__ import annotations

import math
import sys

from dspk.plugin import Variant, layout_of, source_hash
from dspk_wgpu import layout
from dspk_wgpu.gpu import LOOP_BUDGET, Dispatch, shader_source

#: Invocations per workgroup (the shader's ``workgroup_size``).
WORKGROUP = 64


def grid(invocations: int) -> tuple[int, int, int]:
    """Workgroups for ``invocations`` flat invocations, no grid dimension above 65,535.

    Examples
    --------
    >>> grid(64 * 70000)
    (65535, 2, 1)
    """
    groups = max(1, math.ceil(invocations / WORKGROUP))
    across = min(groups, 65535)
    return across, math.ceil(groups / across), 1


def upfirdn_polyphase(h, x, axis, up, down, left, right, start, stop):
    """upfirdn kernel: outputs ``start`` to ``stop``, each from the taps of its phase."""
    real = layout.precision_of(x, h, left, right)
    gpu = x.gpu
    samples, channels = x.shape[axis], x.shape[1 - axis]
    count = stop - start
    y = layout.output_like(x, axis, count)
    if count == 0:
        return y
    h = layout.dense(h)
    taps = h.shape[0]
    width = math.ceil(taps / up)
    if left is None:
        edge, left_buffer, right_buffer = 0, h.buffer, h.buffer
    else:
        edge = left.shape[axis]
        left_buffer, right_buffer = layout.dense(left).buffer, layout.dense(right).buffer
    x_offset, x_sc, x_st = layout.addressing(x, axis)
    channels_fast = int(layout_of(x, axis) == "sample-major")
    dispatches = []
    for m0 in range(0, width, LOOP_BUDGET):
        params = (samples, channels, up, down, start, count, taps, m0, LOOP_BUDGET, int(m0 > 0),
                  x_offset, x_sc, x_st, edge, axis, channels_fast)
        dispatches.append(Dispatch("upfirdn_polyphase", real, params,
                                   (h.buffer, x.buffer, left_buffer, right_buffer, y.buffer),
                                   grid(channels * count)))
    gpu.run(dispatches)
    return y


SOURCE = source_hash(sys.modules[__name__], shader_source("upfirdn_polyphase"))

VARIANTS = {"upfirdn": [Variant("wgsl-polyphase", upfirdn_polyphase, SOURCE)]}
