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
  read after ``margin`` zeros, bin ``k`` times ``exp(-2 pi i k shift / L)``,
  the inverse real FFT, of which the ``n`` samples from ``margin`` are written.
  The rotation is the product of the factors ``exp(-2 pi i 2^j shift / L)``
  of the bits ``j`` of ``k``, computed on the host in float64 (each turn's
  fraction reduced before the exponential; shaders have no float64 cosine).

The shaders compute in the signal's precision: float32, or float64 where the
device has ``shader-f64``.

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
from dspk_wgpu.gpu import REAL_BYTES, Dispatch, real_dtype, shader_source

_ANALYTIC, _WEIGHTS, _ROTATION = 0, 1, 2


def _multiply(real, mode, table, spectrum, rows, count, row_stride, n=0):
    return Dispatch("fourier_spectrum", real, (mode, rows, count, row_stride, n),
                    (table, spectrum), fft.grid(rows * count))


def _spectrum(gpu, real, rows, bins):
    """A dense work buffer of ``rows`` spectra of ``bins`` complex values."""
    return gpu.zeros(rows * bins * 2 * REAL_BYTES[real])


def rotation_factors(shifts, length: int, bins: int) -> np.ndarray:
    """``exp(-2 pi i 2^j shift / length)`` for every shift and ``2^j < bins``, complex128
    ``(shifts, bits)``: bin ``k`` of a channel turns by the product of the factors of
    ``k``'s set bits.

    Examples
    --------
    >>> factors = rotation_factors([0.25], 8, 5)
    >>> k = 3
    >>> bool(np.isclose(factors[0, 0] * factors[0, 1], np.exp(-2j * np.pi * k * 0.25 / 8)))
    True
    """
    turns = np.asarray(shifts, np.float64).reshape(-1, 1) / length
    bits = max(1, (bins - 1).bit_length())
    # Scaling by 2^j is exact, so each fraction is the exact one of the rounded turn.
    fractions = np.mod(turns * 2.0 ** np.arange(bits), 1.0)
    return np.exp(-2j * np.pi * fractions)


def analytic(x, axis, n, strategy="workgroup"):
    """hilbert kernel: the analytic signal of every channel from its ``n``-point FFT."""
    gpu, rows, real = x.gpu, x.shape[1 - axis], layout.precision_of(x)
    y = layout.output_like(x, axis, n, real_dtype(real, True))
    spectrum = _spectrum(gpu, real, rows, n)
    dispatches = fft.plan(gpu, strategy, "fft", n, "backward", rows, View.of(x, axis),
                          View.dense(spectrum, real, n))
    unused_table = gpu.zeros(4)
    dispatches.append(_multiply(real, _ANALYTIC, unused_table, spectrum, rows, n, n, n))
    dispatches += fft.plan(gpu, strategy, "ifft", n, "backward", rows,
                           View.dense(spectrum, real, n), View.of(y, axis))
    gpu.run(dispatches)
    return y


def resample(x, axis, num, weights, strategy="workgroup"):
    """resample kernel: ``irfft(rfft(x)[:m] * weights, num)`` along ``axis``."""
    gpu, rows, n = x.gpu, x.shape[1 - axis], x.shape[axis]
    real = layout.precision_of(x, weights)
    bins, kept = n // 2 + 1, weights.shape[0]
    y = layout.output_like(x, axis, num)
    spectrum = _spectrum(gpu, real, rows, bins)
    dispatches = fft.plan(gpu, strategy, "rfft", n, "backward", rows, View.of(x, axis),
                          View.dense(spectrum, real, bins))
    dispatches.append(_multiply(real, _WEIGHTS, layout.dense(weights).buffer, spectrum, rows,
                                kept, bins))
    dispatches += fft.plan(gpu, strategy, "irfft", num, "backward", rows,
                           View.dense(spectrum, real, bins, kept), View.of(y, axis))
    gpu.run(dispatches)
    return y


def shift_phase(x, axis, shifts, margin, strategy="workgroup"):
    """phase_shift kernel: each channel delayed by its (fractional) shift through a padded FFT."""
    gpu, rows, n = x.gpu, x.shape[1 - axis], x.shape[axis]
    real = layout.precision_of(x)
    length = n + 2 * margin
    bins = length // 2 + 1
    y = layout.output_like(x, axis, n)
    spectrum = _spectrum(gpu, real, rows, bins)
    factors = rotation_factors(shifts, length, bins)
    table = gpu.upload(factors.astype(real_dtype(real, True)))
    dispatches = fft.plan(gpu, strategy, "rfft", length, "backward", rows,
                          replace(View.of(x, axis), shift=margin),
                          View.dense(spectrum, real, bins))
    dispatches.append(_multiply(real, _ROTATION, table, spectrum, rows, bins, bins,
                                factors.shape[1]))
    dispatches += fft.plan(gpu, strategy, "irfft", length, "backward", rows,
                           View.dense(spectrum, real, bins),
                           replace(View.of(y, axis), shift=margin))
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
