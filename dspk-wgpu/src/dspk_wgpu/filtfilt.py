"""sosfiltfilt and filtfilt on the GPU: two fused passes, no padded copy of the input.

scipy extends the signal by ``padlen`` samples at both ends (odd, even or
constant), filters it forward from ``zi`` times its first sample, filters the
reversed result from ``zi`` times its first sample, reverses again and keeps
the middle ``n`` samples. Here both passes are :class:`~dspk_wgpu.iir.Pass`
runs of the same schedule and launch (time-parallel or sequential, see
:mod:`dspk_wgpu.iir`), submitted together:

- the forward pass reads ``x`` through the extension's index function (the
  extended signal is never stored) and writes the forward output of
  ``n + 2 padlen`` samples per channel, the only intermediate;
- the backward pass reads that output backwards (a negative time stride),
  starts from ``zi`` times its last sample, and writes only its middle ``n``
  samples, backwards, into the result.

``zi`` (``sosfilt_zi`` or ``lfilter_zi``, computed on the host by the core) is
laid out (section, delay), which is how the shader scales it per channel.
"""

from __future__ import annotations

import sys
from functools import partial

from dspk.plugin import source_hash
from dspk_wgpu import iir, layout
from dspk_wgpu.iir import CROP, EXTENSIONS, STEADY_STATE, Cascade, Pass, addressed


def zero_phase(plan, cascade: Cascade, x, axis: int, padtype, padlen: int, zi):
    """Forward-backward filtering of ``x`` along ``axis`` with ``plan`` (a schedule maker).

    Parameters
    ----------
    plan : callable
        ``plan(cascade, run)`` makes each pass's :class:`~dspk_wgpu.iir.Schedule`:
        :func:`dspk_wgpu.iir.time_parallel` or :func:`dspk_wgpu.iir.sequential`
        with its launch.
    cascade : dspk_wgpu.iir.Cascade
        The filter.
    x : WgpuArray
        2-D signal, time along ``axis``.
    padtype, padlen
        As the sosfiltfilt/filtfilt kernel conventions say; None pads nothing.
    zi : WgpuArray
        The steady state for a unit step, ``(sections, order)`` in any shape.

    Returns
    -------
    WgpuArray
        The zero-phase result, C-contiguous, in ``x``'s orientation.
    """
    layout.precision_of(x, cascade.rows, zi)
    samples, channels = x.shape[axis], x.shape[1 - axis]
    pad = 0 if padtype is None else padlen
    extended = samples + 2 * pad
    forward_out = x.gpu.empty(channels * extended * x.dtype.itemsize)
    y = layout.output_like(x, axis, samples)
    steady = layout.dense(zi).buffer
    _, y_sc, y_st = layout.addressing(y, axis)
    forward = Pass(channels, extended, addressed(x, axis), (forward_out, 0, extended, 1),
                   EXTENSIONS[padtype], pad, STEADY_STATE, steady)
    backward = Pass(channels, extended, (forward_out, extended - 1, extended, -1),
                    (y.buffer, (extended - 1 - pad) * y_st, y_sc, -y_st),
                    CROP, pad, STEADY_STATE, steady)
    x.gpu.run(plan(cascade, forward).dispatches + plan(cascade, backward).dispatches)
    return y


def _sosfiltfilt(schedule):
    """A sosfiltfilt kernel on ``schedule`` (time-parallel or sequential)."""
    def kernel(sos, x, axis, padtype, padlen, zi, launch):
        return zero_phase(partial(schedule, launch=launch), Cascade(sos, 2), x, axis, padtype,
                          padlen, zi)
    return kernel


def _filtfilt(schedule):
    """A filtfilt kernel on ``schedule`` (time-parallel or sequential)."""
    def kernel(b, a, x, axis, padtype, padlen, zi, launch):
        return zero_phase(partial(schedule, launch=launch), Cascade.from_ba(b, a), x, axis,
                          padtype, padlen, zi)
    return kernel


def sections_fit(problem) -> bool:
    """Whether a sosfiltfilt problem's sections fit one shader pass."""
    return problem.param("sections", 1) <= iir.MAX_SECTIONS


SOURCE = source_hash(sys.modules[__name__], iir.SOURCE)

VARIANTS = {
    "sosfiltfilt": iir.schedule_variants(_sosfiltfilt, SOURCE, sections_fit),
    "filtfilt": iir.schedule_variants(_filtfilt, SOURCE, iir.order_fits),
}
