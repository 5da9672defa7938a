"""The ``hilbert`` kernel: the analytic signal from one real FFT and one inverse real FFT.

The analytic signal of a real ``x`` of ``n`` samples is ``x + 1j * h`` where ``h``,
the Hilbert transform, has the spectrum ``-1j * sign(k) * X[k]``: the real part is
``x`` itself (truncated or zero-padded to ``n``), and ``h`` is real, so it comes from
an inverse *real* FFT of the one-sided spectrum turned by a quarter period, with the
bins at zero and at ``n / 2`` cleared. That costs one real FFT and one inverse real
FFT instead of scipy's forward and inverse complex FFTs of ``n`` points, all in the
input's precision.

Channels are taken a few at a time, so that the spectrum and the transform of each
group stay in cache until they are joined into the complex output in one pass.
Arrays are handled in their memory order: the time axis of ``x`` is contiguous
(channel-major) or its channels are (sample-major), and the output follows ``x``.
"""

from __future__ import annotations

import numpy as np
from scipy.fft import _pocketfft

from dspk.plugin import layout_of
from dspk_cpu import compiling, memory
from dspk_cpu.spectral import halfsize
from dspk_cpu.threads import fft_workers, on_channel_slices

#: Samples (channels x FFT length) per group of channels transformed together.
GROUP_SAMPLES = 1 << 21


@compiling.cached_jit(nogil=True)
def _quarter_turn(spectrum, n, axis):
    """Multiply the one-sided spectrum by ``-1j`` in place; clear the bins 0 and ``n / 2``.

    ``axis`` is the frequency axis of the 2-D ``spectrum``.
    """
    rows, cols = spectrum.shape
    for i in range(rows):
        for j in range(cols):
            v = spectrum[i, j]
            spectrum[i, j] = complex(v.imag, -v.real)
    bins = spectrum.shape[axis]
    cleared = (0, bins - 1) if n % 2 == 0 else (0, 0)
    for k in cleared:
        if axis == 1:
            for i in range(rows):
                spectrum[i, k] = 0
        else:
            for j in range(cols):
                spectrum[k, j] = 0


@compiling.cached_jit(nogil=True)
def _join(real, imag, out, axis):
    """``out = real + 1j * imag`` along time axis ``axis``; ``real`` may be shorter (zeros)."""
    rows, cols = out.shape
    m = real.shape[axis]
    if axis == 1:
        for i in range(rows):
            for j in range(m):
                out[i, j] = complex(real[i, j], imag[i, j])
            for j in range(m, cols):
                out[i, j] = complex(0, imag[i, j])
    else:
        for i in range(m):
            for j in range(cols):
                out[i, j] = complex(real[i, j], imag[i, j])
        for i in range(m, rows):
            for j in range(cols):
                out[i, j] = complex(0, imag[i, j])


def _analytic_group(x, out, axis, n, workers):
    """The analytic signal of the channels of ``x`` into ``out``; time along ``axis``."""
    if n % 2 == 0:
        halfsize.analytic_into(x, axis, n, workers, out)
        return
    spectrum = _pocketfft.rfft(x, n, axis, None, False, workers)
    _quarter_turn(spectrum, n, axis)
    transform = _pocketfft.irfft(spectrum, n, axis, None, True, workers)
    kept = (slice(None), slice(0, n)) if axis == 1 else (slice(0, n), slice(None))
    _join(x[kept], transform, out, axis)


def _in_memory_order(x, axis, n):
    """``x`` viewed with its contiguous axis last, the time axis of that view, and the output.

    The output is allocated in that view's shape (C order) and returned also as a view
    with ``x``'s axes.
    """
    view = x if (layout_of(x, axis) == "channel-major") == (axis == 1) else x.T
    time_axis = axis if view is x else 1 - axis
    shape = list(view.shape)
    shape[time_axis] = n
    out = memory.empty(shape, np.result_type(x.dtype, np.complex64))
    return view, time_axis, out, out if view is x else out.T


def _groups(channels, n, at_least):
    """Slices of ``range(channels)`` of about :data:`GROUP_SAMPLES` samples, ``at_least`` wide.

    pocketfft runs four rows at a time in SIMD registers, so groups have at least four.
    """
    size = max(at_least, GROUP_SAMPLES // n, 4)
    return [slice(c, min(c + size, channels)) for c in range(0, channels, size)]


def _run_groups(view, time_axis, out, n, part, workers, at_least):
    for group in _groups(part.stop - part.start, n, at_least):
        rows = slice(part.start + group.start, part.start + group.stop)
        index = (rows, slice(None)) if time_axis == 1 else (slice(None), rows)
        _analytic_group(view[index], out[index], time_axis, n, workers)


def analytic_groups(x, axis, n):
    """Groups of channels one after another, each FFT shared by pocketfft's threads (one
    thread for a small signal)."""
    view, time_axis, out, result = _in_memory_order(x, axis, n)
    workers = fft_workers(x.nbytes)
    _run_groups(view, time_axis, out, n, slice(0, view.shape[1 - time_axis]), workers,
                4 * workers)
    return result


def analytic_channel_threads(x, axis, n):
    """One slice of channels per thread, each in groups on that thread alone."""
    view, time_axis, out, result = _in_memory_order(x, axis, n)
    on_channel_slices(lambda part: _run_groups(view, time_axis, out, n, part, 1, 4),
                      view.shape[1 - time_axis])
    return result


def analytic_one_thread(x, axis, n):
    """Groups of channels one after another on the calling thread: for small arrays,
    where starting threads costs more than they save."""
    view, time_axis, out, result = _in_memory_order(x, axis, n)
    _run_groups(view, time_axis, out, n, slice(0, view.shape[1 - time_axis]), 1, 4)
    return result
