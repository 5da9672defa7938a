"""Every segment's spectrum and back: stft, spectrogram, istft."""

from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np

from dspk import validation
from dspk.arrays import to_numpy
from dspk.dispatch import Call, Signal2D
from dspk.docstrings import shared
from dspk.operations import bucket
from dspk.operations.spectral import BOUNDARY_PADDING
from dspk.plugin import Problem
from dspk.spectral.common import (
    complex_dtype,
    like_input,
    problem_of,
    real_dtype,
)
from dspk.spectral.detrending import all_segments, host_detrended

__all__ = ["stft", "spectrogram", "istft"]

_BOUNDARIES = (*BOUNDARY_PADDING, None)
_MODES = {"psd": "power", "complex": "complex", "magnitude": "magnitude", "angle": "angle",
          "phase": "phase"}


def _restore_segments(view: Signal2D, z: Any, axis: int, ndim: int) -> Any:
    """A kernel's (channels, frequencies, segments) result in the caller's shape.

    Frequencies take the time axis's place; segments come last.
    """
    if ndim == 1:
        return z.reshape(z.shape[1:])
    if ndim == 2:
        return z
    other = len(view.other_shape)
    order = list(range(other))
    order.insert(axis, other)
    return z.reshape(*view.other_shape, *z.shape[-2:]).transpose(*order, other + 1)


def _extension(length: int, segments: validation.Segments, boundary: str | None,
               padded: bool) -> tuple[int, int]:
    """Samples added at both ends by ``boundary``, and zeros appended by ``padded``."""
    nperseg = segments.nperseg
    edge = nperseg // 2 if boundary is not None else 0
    extended = length + 2 * edge
    return edge, (-(extended - nperseg) % segments.step) % nperseg if padded else 0


def _segment_times(samples: int, segments: validation.Segments, extended: bool,
                   fs: float) -> np.ndarray:
    """Each segment's centre in seconds, counted from the signal's start before extension."""
    half = segments.nperseg / 2
    times = np.arange(half, samples - half + 1, segments.step) / fs
    if extended:
        times -= half / fs
    return times


def _host_extended(call: Call, x, axis: int, edge: int, boundary: str | None, pad: int):
    """``x`` on the host, extended at both ends and zero-padded as the stft kernel does."""
    v = to_numpy(x)
    widths = [(0, 0)] * v.ndim
    if edge:
        widths[axis] = (edge, edge)
        v = np.pad(v, widths, **BOUNDARY_PADDING[boundary])
    widths[axis] = (0, pad)
    return np.pad(v, widths)


def _segment_spectra(call: Call, x, fs, window, nperseg, noverlap, nfft, detrend,
                     return_onesided, scaling, axis, value, boundary=None, padded=False,
                     overlap_fraction=2):
    """Frequencies, times and every segment's spectrum as ``value`` says (scipy's stft path)."""
    index = validation.signal_axis(x, axis)
    fs = validation.sampling_rate(fs)
    validation.choice(boundary, _BOUNDARIES, "boundary")
    dtype = validation.compute_dtype(x, "x", allow_complex=True)
    if dtype.kind == "c" and return_onesided:
        warnings.warn("Input data is complex, switching to return_onesided=False", stacklevel=3)
    segments = validation.Segments.check(window, nperseg, noverlap, nfft, detrend,
                                         x.shape[index], return_onesided,
                                         overlap_fraction).sides_of(dtype)
    edge, pad = _extension(x.shape[index], segments, boundary, padded)
    samples = x.shape[index] + 2 * edge + pad
    times = _segment_times(samples, segments, boundary is not None, fs)
    validation.output_fits(
        "stft" if value == "complex" else "spectrogram", x,
        complex_dtype(dtype) if value == "complex" else real_dtype(dtype),
        (*x.shape[:index], *x.shape[index + 1:], segments.bins, len(times)))
    x = x.astype(dtype, copy=False)
    scale = segments.scale(fs, scaling)
    weights = np.sqrt(scale * segments.doubling() if value == "power" else
                      np.full(segments.bins, scale))
    if callable(segments.detrend):
        extended = _host_extended(call, x, index, edge, boundary, pad)
        (x,), segments = host_detrended(call, [extended], [index], samples, segments,
                                         all_segments(segments.detrend, operator.index(axis)))
        boundary, pad = None, 0
    view = Signal2D.of(x, index)
    problem = problem_of("stft", view, dtype, value=value, complex=dtype.kind == "c",
                       **segments.params())
    real = real_dtype(dtype)
    z = call.run(problem, call.native(view.array), view.axis,
                 call.native(segments.window.astype(real)), segments.step, segments.nfft,
                 segments.detrend, segments.sides, boundary, pad,
                 call.native(weights.astype(real)), value)
    return (like_input(call, segments.frequencies(fs)), like_input(call, times),
            call.give_back(_restore_segments(view, z, index, x.ndim)))


@shared
def stft(x, fs=1.0, window="hann_periodic", nperseg=256, noverlap=None, nfft=None,
         detrend=False, return_onesided=True, boundary="zeros", padded=True, axis=-1,
         scaling="spectrum", *, runtime=None):
    """Compute the Short Time Fourier Transform (legacy function).

    As :func:`scipy.signal.stft`, on a dspk runtime.

    Parameters
    ----------
    {series}
    {fs}
    {window}
    nperseg : int, optional
        Length of each segment. Defaults to 256 (which must not exceed the
        signal's length).
    {noverlap}
    {nfft}
    detrend : str or callable or False, optional
        None by default; ``'constant'``, ``'linear'`` or a callable (run once
        on all segments, on the host).
    {return_onesided_warned}
    boundary : str or None, optional
        Extend the signal by ``nperseg // 2`` samples at both ends:
        ``'zeros'`` (default), ``'even'``, ``'odd'``, ``'constant'`` or None.
    padded : bool, optional
        Zero-pad the end so that the last segment is whole (default True).
    axis : int, optional
        Axis along which the STFT is computed. Default is -1.
    scaling : {'spectrum', 'psd'}, optional
        Scale each segment's spectrum to magnitude (default) or to a density.
    {runtime}

    Returns
    -------
    f : ndarray
        Array of sample frequencies.
    t : ndarray
        Array of segment times.
    Zxx : ndarray
        STFT of ``x``: frequencies along ``axis``, segments last; complex64
        for float32 input.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> x = np.random.default_rng(0).standard_normal((2, 1000))
    >>> f, t, z = dspk.stft(x, nperseg=100)
    >>> z.shape, bool(np.allclose(z, scipy.signal.stft(x, nperseg=100)[2]))
    ((2, 51, 21), True)
    """
    validation.choice(scaling, ("spectrum", "psd"), "scaling")
    call, x = Call.start(runtime, x, "x", "stft")
    return _segment_spectra(call, x, fs, window, nperseg, noverlap, nfft, detrend,
                            return_onesided, "density" if scaling == "psd" else "spectrum",
                            axis, "complex", boundary, padded)


@shared
def spectrogram(x, fs=1.0, window=("tukey_periodic", 0.25), nperseg=None, noverlap=None,
                nfft=None, detrend="constant", return_onesided=True, scaling="density", axis=-1,
                mode="psd", *, runtime=None):
    """Compute a spectrogram with consecutive Fourier transforms (legacy function).

    As :func:`scipy.signal.spectrogram`, on a dspk runtime.

    Parameters
    ----------
    {series}
    {fs}
    window : str or tuple or array_like, optional
        Window name or values; defaults to ``('tukey_periodic', 0.25)``.
    {nperseg}
    noverlap : int, optional
        Samples shared by consecutive segments; default ``nperseg // 8``.
    {nfft}
    detrend : str or callable or False, optional
        ``'constant'`` (default), ``'linear'``, False or a callable (run once
        on all segments, on the host).
    {return_onesided_warned}
    {scaling}
    axis : int, optional
        Axis along which the spectrogram is computed. Default is -1.
    mode : {'psd', 'complex', 'magnitude', 'angle', 'phase'}, optional
        What to return of each segment's spectrum: the power (default), the
        complex spectrum, its magnitude, its angle, or its angle unwrapped
        along frequency.
    {runtime}

    Returns
    -------
    f : ndarray
        Array of sample frequencies.
    t : ndarray
        Array of segment times.
    Sxx : ndarray
        Spectrogram of ``x``: frequencies along ``axis``, segments last.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> x = np.random.default_rng(0).standard_normal((3, 2000))
    >>> f, t, sxx = dspk.spectrogram(x, fs=100.0)
    >>> sxx.shape, bool(np.allclose(sxx, scipy.signal.spectrogram(x, fs=100.0)[2]))
    ((3, 129, 8), True)
    """
    if mode not in _MODES:
        raise ValueError(f"mode={mode!r} is not one of {', '.join(map(repr, _MODES))}")
    call, x = Call.start(runtime, x, "x", "spectrogram")
    return _segment_spectra(call, x, fs, window, nperseg, noverlap, nfft, detrend,
                            return_onesided, scaling, axis, _MODES[mode], overlap_fraction=8)


def _squared_window_sum(window: np.ndarray, step: int, count: int) -> np.ndarray:
    """The sum of ``count`` copies of ``window ** 2``, each ``step`` after the last."""
    per_segment = -(-len(window) // step)
    padded = np.zeros(per_segment * step)
    padded[:len(window)] = window ** 2
    total = np.zeros((count + per_segment - 1, step))
    for block, values in enumerate(padded.reshape(per_segment, step)):
        total[block:block + count] += values
    return total.ravel()[:len(window) + (count - 1) * step]


def _inverse_lengths(bins: int, onesided: bool, nperseg: Any, nfft: Any,
                     noverlap: Any) -> tuple[int, int, int]:
    """istft's segment length, FFT length and hop, checked; defaults from ``bins`` frequencies."""
    implied = 2 * (bins - 1) if onesided else bins
    if nperseg is None and implied < 1:
        raise ValueError(f"nperseg: Zxx has {bins} frequency along freq_axis, too few to "
                         "imply a segment length; pass nperseg")
    nperseg = implied if nperseg is None else validation.integer(nperseg, "nperseg", minimum=1)
    if nfft is None:
        nfft = nperseg if onesided and nperseg == implied + 1 else implied
    else:
        nfft = validation.integer(nfft, "nfft", minimum=1)
    if nfft < nperseg:
        raise ValueError(f"nfft={nfft} must be at least nperseg={nperseg} (by default nfft "
                         "is implied by Zxx's frequencies)")
    noverlap = nperseg // 2 if noverlap is None else validation.integer(noverlap, "noverlap")
    if noverlap >= nperseg:
        raise ValueError(f"noverlap={noverlap} must be less than nperseg={nperseg}")
    return nperseg, nfft, nperseg - noverlap


def _overlap_divisor(window: np.ndarray, step: int, count: int, trim: int,
                     boundary: bool) -> np.ndarray:
    """What istft divides its output by: the overlap-added squared window, where not tiny.

    ``trim`` samples are cut from both ends; a tiny value anywhere (the
    NOLA condition failing) is warned about, as scipy does, and left at 1.
    """
    norm = _squared_window_sum(window, step, count)
    norm = norm[trim:len(norm) - trim]
    if norm.size == 0:
        raise ValueError(f"Zxx has {count} segment(s): too few to leave any sample once the "
                         "boundary extension is cut off")
    if np.any(norm <= 1e-10):
        warnings.warn("NOLA condition failed, STFT may not be invertible."
                      + ("" if boundary else " Possibly due to missing boundary"), stacklevel=3)
    return np.where(norm > 1e-10, norm, 1.0)


@shared
def istft(Zxx, fs=1.0, window="hann_periodic", nperseg=None, noverlap=None, nfft=None,
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2, scaling="spectrum",
          *, runtime=None):
    """Perform the inverse Short Time Fourier transform (legacy function).

    As :func:`scipy.signal.istft`, on a dspk runtime: each segment is
    inverted, windowed and overlap-added in the kernel, and divided by the
    overlap-added squared window.

    Parameters
    ----------
    Zxx : array_like
        STFT of the signal to be reconstructed; at least 2-D.
    {fs}
    {window}
    nperseg : int, optional
        Samples per segment; default ``2 * (bins - 1)`` for one-sided input,
        else the number of frequencies.
    {noverlap}
    nfft : int, optional
        FFT length; by default the one ``Zxx``'s frequencies imply (or
        ``nperseg`` when that is one more, for odd segments).
    input_onesided : bool, optional
        Whether ``Zxx`` holds one side (real output, default) or two sides.
    boundary : bool, optional
        Whether the STFT extended the signal at both ends (its ``boundary``
        was not None): the extension is cut off again. Default True.
    time_axis : int, optional
        Where the segments of ``Zxx`` are; default -1.
    freq_axis : int, optional
        Where the frequencies of ``Zxx`` are; default -2.
    scaling : {'spectrum', 'psd'}, optional
        The scaling the STFT used. Default ``'spectrum'``.
    {runtime}

    Returns
    -------
    t : ndarray
        Array of output times, ``arange(length) / fs``.
    x : ndarray
        The signal; its time axis is ``time_axis``, counted without the
        frequency axis. float32 for complex64 input.

    Warns
    -----
    UserWarning
        When the overlap-added squared window is tiny somewhere (the NOLA
        condition fails): those samples are not divided.

    Examples
    --------
    >>> import numpy as np, dspk
    >>> x = np.random.default_rng(0).standard_normal((2, 1000))
    >>> f, t, z = dspk.stft(x, nperseg=128)
    >>> times, y = dspk.istft(z, nperseg=128)
    >>> bool(np.allclose(y[:, :1000], x))
    True
    """
    call, z = Call.start(runtime, Zxx, "Zxx", "istft")
    if z.ndim < 2:
        raise ValueError(f"Zxx must have at least 2 dimensions (frequencies and segments); "
                         f"got {z.ndim}")
    t_axis = validation.check_axis(time_axis, z.ndim, "time_axis")
    f_axis = validation.check_axis(freq_axis, z.ndim, "freq_axis")
    if t_axis == f_axis:
        raise ValueError(f"time_axis and freq_axis must differ; both are axis {t_axis}")
    if z.size == 0:
        raise ValueError(f"Zxx is empty (shape {tuple(z.shape)})")
    dtype = complex_dtype(validation.compute_dtype(z, "Zxx", allow_complex=True))
    fs = validation.sampling_rate(fs)
    validation.choice(scaling, ("spectrum", "psd"), "scaling")
    bins, count = z.shape[f_axis], z.shape[t_axis]
    nperseg, nfft, step = _inverse_lengths(bins, input_onesided, nperseg, nfft, noverlap)
    window = validation.window_values(window, nperseg)
    gain = window.sum() if scaling == "spectrum" else np.sqrt(fs * (window ** 2).sum())
    trim = nperseg // 2 if boundary else 0
    divisor = _overlap_divisor(window, step, count, trim, boundary)
    validation.output_fits("istft", z, real_dtype(dtype),
                           (*(z.shape[i] for i in range(z.ndim) if i not in (f_axis, t_axis)),
                            divisor.size))
    outer = [i for i in range(z.ndim) if i not in (f_axis, t_axis)]
    outer_shape = tuple(z.shape[i] for i in outer)
    stacked = z.astype(dtype, copy=False).transpose(*outer, f_axis, t_axis)
    stacked = stacked.reshape(-1, bins, count)
    real = real_dtype(dtype)
    sides = "onesided" if input_onesided else "twosided"
    problem = Problem.make("istft", real, stacked.shape[0], divisor.size, "channel-major",
                           segment=bucket(nfft), hop=bucket(step), sides=sides)
    x = call.run(problem, call.native(stacked), call.native((window * gain).astype(real)), step,
                 nfft, sides, call.native(divisor.astype(real)), trim)
    order = list(range(len(outer_shape)))
    order.insert(t_axis - (f_axis < t_axis), len(outer_shape))
    x = x.reshape(*outer_shape, divisor.size).transpose(*order)
    return like_input(call, np.arange(divisor.size) / fs), call.give_back(x)
