"""hilbert, resample and phase_shift on the GPU: FFTs around one spectral product.

Each operation is one command buffer: the forward transform of every channel
into a dense spectrum on the device (:func:`dspk_wgpu.fft.plan`), one small
shader (``fourier_spectrum``) that multiplies the spectrum in place, and the
inverse transform into the result:

* hilbert: the ``n``-point complex FFT, times the analytic-signal weights
  (1, 2, ..., 2, 1 or 0 at ``n / 2``, 0 above), the inverse FFT;
* resample: the real FFT of the ``n`` samples, its first ``m`` bins times the
  given weights, the inverse real FFT of length ``num`` (bins beyond ``m``
  read as zeros);
* phase_shift: the real FFT of length ``L = n + 2 margin`` of each channel
  read after ``margin`` zeros, bin ``k`` times ``exp(-2 pi i k shift / L)``
  (the turn's fraction ``k shift / L`` reduced before the exponential),
  the inverse real FFT, of which the ``n`` samples from ``margin`` are written.

Every operation has one variant per FFT strategy (:data:`dspk_wgpu.fft.STRATEGIES`).
"""

from __future__ import annotations

import functools
import sys
from dataclasses import replace

import numpy as np
from dspk.plugin import Variant, source_hash

from dspk_wgpu import fft, layout
from dspk_wgpu.fft import View
from dspk_wgpu.gpu import Dispatch, shader_source

_ANALYTIC, _WEIGHTS, _ROTATION = 0, 1, 2


def _multiply(mode, table, spectrum, rows, count, row_stride, n=0):
    return Dispatch("fourier_spectrum", "f32", (mode, rows, count, row_stride, n),
                    (table, spectrum),
                    fft.grid(rows * count))


def analytic(x, axis, n, strategy="workgroup"):
    """hilbert kernel: the analytic signal of every channel from its ``n``-point FFT."""
    layout.float32_only("hilbert", x)
    gpu, rows = x.gpu, x.shape[1 - axis]
    y = layout.output_like(x, axis, n, np.complex64)
    spectrum = gpu.zeros(rows * n * 8)
    dispatches = fft.plan(gpu, strategy, "fft", n, "backward", rows, View.of(x, axis),
                          View.dense(spectrum, n))
    unused_table = gpu.zeros(4)
    dispatches.append(_multiply(_ANALYTIC, unused_table, spectrum, rows, n, n, n))
    dispatches += fft.plan(gpu, strategy, "ifft", n, "backward", rows, View.dense(spectrum, n),
                           View.of(y, axis))
    gpu.run(dispatches)
    return y


def resample(x, axis, num, weights, strategy="workgroup"):
    """resample kernel: ``irfft(rfft(x)[:m] * weights, num)`` along ``axis``."""
    layout.float32_only("resample", x, weights)
    gpu, rows, n = x.gpu, x.shape[1 - axis], x.shape[axis]
    bins, kept = n // 2 + 1, weights.shape[0]
    y = layout.output_like(x, axis, num)
    spectrum = gpu.zeros(rows * bins * 8)
    dispatches = fft.plan(gpu, strategy, "rfft", n, "backward", rows, View.of(x, axis),
                          View.dense(spectrum, bins))
    dispatches.append(_multiply(_WEIGHTS, layout.dense(weights).buffer, spectrum, rows, kept,
                                bins))
    dispatches += fft.plan(gpu, strategy, "irfft", num, "backward", rows,
                           View.dense(spectrum, bins, kept), View.of(y, axis))
    gpu.run(dispatches)
    return y


def shift_phase(x, axis, shifts, margin, strategy="workgroup"):
    """phase_shift kernel: each channel delayed by its (fractional) shift through a padded FFT."""
    layout.float32_only("phase_shift", x)
    gpu, rows, n = x.gpu, x.shape[1 - axis], x.shape[axis]
    length = n + 2 * margin
    bins = length // 2 + 1
    y = layout.output_like(x, axis, n)
    spectrum = gpu.zeros(rows * bins * 8)
    turns = gpu.upload((np.asarray(shifts, np.float64) / length).astype(np.float32))
    dispatches = fft.plan(gpu, strategy, "rfft", length, "backward", rows,
                          replace(View.of(x, axis), shift=margin), View.dense(spectrum, bins))
    dispatches.append(_multiply(_ROTATION, turns, spectrum, rows, bins, bins))
    dispatches += fft.plan(gpu, strategy, "irfft", length, "backward", rows,
                           View.dense(spectrum, bins), replace(View.of(y, axis), shift=margin))
    gpu.run(dispatches)
    return y


SOURCE = source_hash(sys.modules[__name__], fft.SOURCE, shader_source("fourier_spectrum"))


def _variants(run):
    return [Variant(f"wgsl-stockham-{strategy}", functools.partial(run, strategy=strategy),
                    SOURCE) for strategy in fft.STRATEGIES]


VARIANTS = {
    "hilbert": _variants(analytic),
    "resample": _variants(resample),
    "phase_shift": _variants(shift_phase),
}
