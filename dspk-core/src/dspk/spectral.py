"""Spectral analysis with scipy.fft's and scipy.signal's names, parameters and results.

The operations reduce to six kernel operations (see :mod:`dspk.plugin`):
``fft`` (:func:`rfft`, :func:`irfft`, :func:`fft`, :func:`ifft`),
``hilbert``, ``detrend``, ``csd`` (:func:`welch`, :func:`csd`,
:func:`periodogram`, :func:`coherence`: segments framed, detrended,
windowed, transformed and averaged in one kernel), ``stft`` (:func:`stft`,
:func:`spectrogram`: every segment's spectrum) and ``istft``. The core
designs windows with :func:`scipy.signal.get_window` and computes scaling
constants, frequencies and times on the host.

Differences from scipy, all deliberate:

- float32 (complex64) input is computed in float32 and gives float32
  (complex64) results; integer, boolean and float16 input is computed in
  float64 (scipy.fft computes float16 in float32, and scipy's ``welch``
  family returns float32 for 8- and 16-bit integers). Two signals of
  different precision (``csd``, ``coherence``) are computed in the wider one.
- Empty input raises ValueError; scipy returns empty arrays.
- An explicit ``nperseg`` larger than the signal raises ValueError; scipy
  warns and shrinks it. When ``nperseg`` is None (``welch``, ``csd``,
  ``coherence``, ``spectrogram``) it is ``min(256, length)`` without a
  warning, which gives scipy's result. ``stft``'s default ``nperseg=256``
  is explicit: signals shorter than 256 samples need a smaller one.
- ``fs`` must be a positive finite number; ``nperseg``, ``noverlap``,
  ``nfft`` and ``n`` must be integers (scipy truncates floats); ``detrend``
  must be ``'constant'``, ``'linear'`` (or ``'c'``, ``'l'``), False, None
  or a callable; ``average`` is checked even when there is one segment.
- A ``detrend`` callable runs on the host, as scipy calls it (once per
  segment in ``welch``/``csd``, once on all segments in
  ``stft``/``spectrogram``), on segments already in the computation's
  dtype; its segments then go to the runtime. The built-in detrends run in
  the kernel.
- ``csd``/``coherence`` with a complex ``y`` and a real ``x`` switch to two
  sides as a complex ``x`` does (scipy raises); ``stft`` and ``spectrogram``
  warn on complex input as scipy does.
- ``istft`` returns times along the output's time axis; scipy's follow its
  first axis, which differs for more than one channel. An ``istft`` whose
  output would be empty raises ValueError.
- The FFTs accept ``overwrite_x`` and never overwrite; ``workers`` is
  checked and left to the runtime (the cpu runtime uses
  ``DSPK_NUM_THREADS``); ``plan`` must be None, as in scipy.
- ``detrend`` computes float16 in float64 and accepts ``overwrite_data``
  without overwriting; break points must lie within the signal.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from dspk import validation
from dspk.arrays import to_numpy
from dspk.dispatch import Call, Signal2D
from dspk.operations import bucket
from dspk.operations.spectral import BOUNDARY_PADDING
from dspk.plugin import Problem, UnsupportedDtype, layout_of
from dspk.validation import detrend_kind, sampling_rate  # noqa: F401 (importable from here)

__all__ = ["rfft", "irfft", "fft", "ifft", "hilbert", "detrend", "periodogram", "welch",
           "csd", "coherence", "spectrogram", "stft", "istft"]

_NORMS = (None, "backward", "ortho", "forward")
_AVERAGES = ("mean", "median")
_BOUNDARIES = (*BOUNDARY_PADDING, None)
_MODES = {"psd": "power", "complex": "complex", "magnitude": "magnitude", "angle": "angle",
          "phase": "phase"}


# --- arguments -------------------------------------------------------------------------

def computation_dtype(x: Any, name: str) -> np.dtype:
    """The dtype ``x`` is computed in: float32/64 and complex64/128 stay, other reals float64."""
    if x.dtype.kind == "c":
        if x.dtype not in (np.complex64, np.complex128):
            raise TypeError(f"{name} has dtype {x.dtype}; dspk computes complex64 or complex128")
        return np.dtype(x.dtype)
    return validation.compute_dtype(x, name)


def _real(dtype: np.dtype) -> np.dtype:
    return np.finfo(dtype).dtype


def _complex(dtype: np.dtype) -> np.dtype:
    return np.result_type(dtype, np.complex64)


def _like_input(call: Call, array: np.ndarray) -> Any:
    """A host-computed result (frequencies, times) in the kind of array the caller passed.

    A device without float64 arrays (wgpu) gets these axes in float32.
    """
    if not call.native_in:
        return array
    try:
        return call.native(array)
    except UnsupportedDtype:
        return call.native(array.astype(np.float32))


def _problem(op: str, view: Signal2D, dtype: np.dtype, samples: int | None = None,
             **params: Any) -> Problem:
    return Problem.make(op, _real(dtype), view.channels,
                        view.samples if samples is None else samples,
                        layout_of(view.array, view.axis), **params)


# --- FFTs --------------------------------------------------------------------------------

def _check_fft_options(norm: Any, workers: Any, plan: Any) -> str:
    if plan is not None:
        raise NotImplementedError("plan: precomputed plans are not supported; pass plan=None")
    if workers is not None and validation.integer(workers, "workers") == 0:
        raise ValueError("workers must not be zero")
    return validation.choice(norm, _NORMS, "norm") or "backward"


def _transform(kind, x, n, axis, norm, workers, plan, runtime):
    norm = _check_fft_options(norm, workers, plan)
    call, x = Call.start(runtime, x, "x", kind)
    axis = validation.signal(x, axis)
    dtype = computation_dtype(x, "x")
    if kind == "rfft" and dtype.kind == "c":
        raise TypeError(f"x must be real for rfft; got dtype {x.dtype}")
    if kind == "irfft":
        dtype = _complex(dtype)
    length = x.shape[axis]
    if n is None:
        n = 2 * (length - 1) if kind == "irfft" else length
        if n < 1:
            raise ValueError(f"n: irfft of {length} point(s) gives 2 * ({length} - 1) = 0 "
                             "samples; pass a positive n")
    n = validation.integer(n, "n", minimum=1)
    out_samples = n // 2 + 1 if kind == "rfft" else n
    validation.output_fits(kind, x, _real(dtype) if kind == "irfft" else _complex(dtype),
                           validation.with_length(x.shape, axis, out_samples))
    view = Signal2D.of(x.astype(dtype, copy=False), axis)
    problem = _problem("fft", view, dtype, n, kind=kind, complex=dtype.kind == "c")
    y = call.run(problem, call.native(view.array), view.axis, n, kind, norm)
    return call.give_back(view.restore(y))


def rfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None,
         runtime=None):
    """Compute the 1-D discrete Fourier Transform for real input.

    As :func:`scipy.fft.rfft`, on a dspk runtime.

    Parameters
    ----------
    x : array_like
        Real input array.
    n : int, optional
        Number of points along ``axis`` to use: the input is cropped or
        zero-padded to it. Default: the length of ``x`` along ``axis``.
    axis : int, optional
        Axis over which to compute the FFT. Default is -1.
    norm : {"backward", "ortho", "forward"}, optional
        Normalization mode; None means "backward".
    overwrite_x : bool, optional
        Accepted for compatibility; dspk never overwrites ``x``.
    workers : int, optional
        Checked (it must not be zero) and otherwise left to the runtime,
        which chooses its own threads.
    plan : None
        Must be None, as in scipy.
    runtime : str, optional
        The runtime to run on (see :mod:`dspk.runtime`).

    Returns
    -------
    out : complex ndarray
        ``n // 2 + 1`` frequencies along ``axis``; complex64 for float32 input.

    Examples
    --------
    >>> import numpy as np, scipy.fft, dspk
    >>> x = np.random.default_rng(0).standard_normal((3, 100)).astype(np.float32)
    >>> y = dspk.rfft(x)
    >>> y.dtype, y.shape, bool(np.allclose(y, scipy.fft.rfft(x), atol=1e-4))
    (dtype('complex64'), (3, 51), True)
    """
    return _transform("rfft", x, n, axis, norm, workers, plan, runtime)


def irfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None,
          runtime=None):
    """Compute the inverse of :func:`rfft`.

    As :func:`scipy.fft.irfft`, on a dspk runtime. Parameters as
    :func:`rfft`, except that ``x`` is the one-sided spectrum (real input is
    taken as complex) and ``n``, the output length, defaults to
    ``2 * (m - 1)`` for ``m`` input points.

    Parameters
    ----------
    x : array_like
        The one-sided spectrum.
    n : int, optional
        Length of the transformed axis of the output.
    axis : int, optional
        Axis over which to compute the inverse FFT. Default is -1.
    norm : {"backward", "ortho", "forward"}, optional
        Normalization mode; None means "backward".
    overwrite_x : bool, optional
        Accepted for compatibility; dspk never overwrites ``x``.
    workers : int, optional
        Checked and left to the runtime.
    plan : None
        Must be None.
    runtime : str, optional
        The runtime to run on.

    Returns
    -------
    out : ndarray
        Real, ``n`` samples along ``axis``; float32 for complex64 input.

    Examples
    --------
    >>> import numpy as np, dspk
    >>> x = np.random.default_rng(0).standard_normal(64)
    >>> bool(np.allclose(dspk.irfft(dspk.rfft(x), n=64), x))
    True
    """
    return _transform("irfft", x, n, axis, norm, workers, plan, runtime)


def fft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None,
        runtime=None):
    """Compute the 1-D discrete Fourier Transform.

    As :func:`scipy.fft.fft`, on a dspk runtime; ``x`` may be real or complex.

    Parameters
    ----------
    x : array_like
        Input array, real or complex.
    n : int, optional
        Length of the transformed axis (cropped or zero-padded).
    axis : int, optional
        Axis over which to compute the FFT. Default is -1.
    norm : {"backward", "ortho", "forward"}, optional
        Normalization mode; None means "backward".
    overwrite_x : bool, optional
        Accepted for compatibility; dspk never overwrites ``x``.
    workers : int, optional
        Checked and left to the runtime.
    plan : None
        Must be None.
    runtime : str, optional
        The runtime to run on.

    Returns
    -------
    out : complex ndarray
        ``n`` frequencies along ``axis``; complex64 for float32 or complex64 input.

    Examples
    --------
    >>> import numpy as np, scipy.fft, dspk
    >>> x = np.exp(2j * np.pi * np.arange(8) / 8)
    >>> bool(np.allclose(dspk.fft(x), scipy.fft.fft(x)))
    True
    """
    return _transform("fft", x, n, axis, norm, workers, plan, runtime)


def ifft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None,
         runtime=None):
    """Compute the 1-D inverse discrete Fourier Transform.

    As :func:`scipy.fft.ifft`, on a dspk runtime; parameters as :func:`fft`.

    Parameters
    ----------
    x : array_like
        Input array, real or complex.
    n : int, optional
        Length of the transformed axis (cropped or zero-padded).
    axis : int, optional
        Axis over which to compute the inverse FFT. Default is -1.
    norm : {"backward", "ortho", "forward"}, optional
        Normalization mode; None means "backward".
    overwrite_x : bool, optional
        Accepted for compatibility; dspk never overwrites ``x``.
    workers : int, optional
        Checked and left to the runtime.
    plan : None
        Must be None.
    runtime : str, optional
        The runtime to run on.

    Returns
    -------
    out : complex ndarray
        ``n`` samples along ``axis``.

    Examples
    --------
    >>> import numpy as np, dspk
    >>> x = np.random.default_rng(0).standard_normal(10) + 1j
    >>> bool(np.allclose(dspk.ifft(dspk.fft(x)), x))
    True
    """
    return _transform("ifft", x, n, axis, norm, workers, plan, runtime)


# --- Hilbert and detrend -----------------------------------------------------------------

def hilbert(x, N=None, axis=-1, *, runtime=None):
    """FFT-based computation of the analytic signal.

    As :func:`scipy.signal.hilbert`, on a dspk runtime.

    Parameters
    ----------
    x : array_like
        Real signal data.
    N : int, optional
        Number of Fourier components (the output length); default ``x.shape[axis]``.
    axis : int, optional
        Axis along which to do the transformation. Default is -1.
    runtime : str, optional
        The runtime to run on.

    Returns
    -------
    xa : complex ndarray
        Analytic signal of ``x``, ``N`` samples along ``axis``; complex64 for
        float32 input.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> x = np.random.default_rng(0).standard_normal((2, 101))
    >>> bool(np.allclose(dspk.hilbert(x), scipy.signal.hilbert(x)))
    True
    """
    call, x = Call.start(runtime, x, "x", "hilbert")
    axis = validation.signal(x, axis)
    if x.dtype.kind == "c":
        raise ValueError(f"x must be real; got dtype {x.dtype}")
    dtype = validation.compute_dtype(x)
    n = x.shape[axis] if N is None else validation.integer(N, "N", minimum=1)
    validation.output_fits("hilbert", x, _complex(dtype), validation.with_length(x.shape, axis, n))
    view = Signal2D.of(x.astype(dtype, copy=False), axis)
    y = call.run(_problem("hilbert", view, dtype, n), call.native(view.array), view.axis, n)
    return call.give_back(view.restore(y))


def _break_points(call: Call, bp: Any, length: int) -> tuple[int, ...]:
    """0, the break points and ``length``: sorted, without repeats."""
    points = np.atleast_1d(to_numpy(bp))
    if points.ndim != 1 or (points.size and points.dtype.kind not in "iu"):
        raise TypeError(f"bp must be an integer or a 1-D sequence of integers; got {bp!r}")
    if points.size and (points.min() < 0 or points.max() > length):
        raise ValueError(f"bp must lie between 0 and {length}, the length of data along axis; "
                         f"got {bp!r}")
    return tuple(int(p) for p in np.unique(np.concatenate([[0], points, [length]])))


def detrend(data, axis=-1, type="linear", bp=0, overwrite_data=False, *, runtime=None):
    """Remove linear or constant trend along axis from data.

    As :func:`scipy.signal.detrend`, on a dspk runtime.

    Parameters
    ----------
    data : array_like
        The input data, real or complex.
    axis : int, optional
        The axis along which to detrend the data. Default is -1.
    type : {'linear', 'constant'}, optional
        Subtract the least-squares line (default) or the mean; ``'l'`` and
        ``'c'`` are accepted too.
    bp : array_like of ints, optional
        Break points: with ``type='linear'``, each piece between two of them
        gets its own line. Ignored for ``'constant'``.
    overwrite_data : bool, optional
        Accepted for compatibility; dspk never overwrites ``data``.
    runtime : str, optional
        The runtime to run on.

    Returns
    -------
    ret : ndarray
        The detrended input data; float32 stays float32.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> x = np.random.default_rng(0).standard_normal((3, 200)) + np.linspace(0, 5, 200)
    >>> bool(np.allclose(dspk.detrend(x, bp=[50, 120]), scipy.signal.detrend(x, bp=[50, 120])))
    True
    """
    call, data = Call.start(runtime, data, "data", "detrend")
    axis = validation.signal(data, axis, "data")
    if not isinstance(type, str) or type not in validation.TRENDS:
        raise ValueError(f"type={type!r} is not 'linear' or 'constant' (or 'l', 'c')")
    kind = validation.TRENDS[type]
    dtype = computation_dtype(data, "data")
    length = data.shape[axis]
    pieces = (0, length) if kind == "constant" else _break_points(call, bp, length)
    validation.output_fits("detrend", data, dtype)
    view = Signal2D.of(data.astype(dtype, copy=False), axis)
    y = call.run(_problem("detrend", view, dtype, kind=kind), call.native(view.array),
                 view.axis, kind, pieces)
    return call.give_back(view.restore(y))


# --- segments ----------------------------------------------------------------------------

def _presegmented(v: np.ndarray, axis: int, length: int, segments: validation.Segments,
                  detrend_each: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``v`` cut into segments on the host, detrended there, and laid end to end.

    ``v`` is zero-padded to ``length`` first. The result has the time axis
    at ``axis`` and holds the segments without overlap, so that the kernel
    cuts it again with a step of ``nperseg`` and no detrend.
    """
    moved = np.moveaxis(v, axis, -1)
    moved = np.pad(moved, [(0, 0)] * (moved.ndim - 1) + [(0, length - moved.shape[-1])])
    pieces = sliding_window_view(moved, segments.nperseg, axis=-1)[..., ::segments.step, :]
    pieces = np.array(pieces)
    detrended = np.asarray(detrend_each(pieces))
    if detrended.shape != pieces.shape:
        raise ValueError(f"detrend returned shape {detrended.shape}; expected {pieces.shape}")
    laid = detrended.astype(v.dtype, copy=False).reshape(*pieces.shape[:-2], -1)
    return np.moveaxis(laid, -1, axis)


def _each_segment(detrend: Callable) -> Callable[[np.ndarray], np.ndarray]:
    """scipy's welch and csd call ``detrend`` on one segment at a time."""
    def apply(pieces):
        return np.stack([detrend(pieces[..., k, :]) for k in range(pieces.shape[-2])], axis=-2)
    return apply


def _all_segments(detrend: Callable, axis: int) -> Callable[[np.ndarray], np.ndarray]:
    """scipy's stft and spectrogram call ``detrend`` once, samples moved to ``axis`` unless -1."""
    def apply(pieces):
        if axis == -1:
            return detrend(pieces)
        return np.moveaxis(detrend(np.moveaxis(pieces, -1, axis)), axis, -1)
    return apply


def _host_detrended(call: Call, signals: list, axes: list, length: int, segments: validation.Segments,
                    detrend_each: Callable) -> tuple[list, validation.Segments]:
    """Signals with their segments detrended on the host by a callable, and their segments."""
    laid = [_presegmented(to_numpy(v), a, length, segments, detrend_each)
            for v, a in zip(signals, axes)]
    return laid, replace(segments, step=segments.nperseg, detrend=None)


def _median_bias(count: int) -> float:
    """How much the median of ``count`` periodograms underestimates their mean."""
    k = np.arange(1, (count - 1) // 2 + 1)
    return float(1 + np.sum(1 / (2 * k + 1) - 1 / (2 * k)))


# --- averaged spectra: welch, csd, periodogram, coherence --------------------------------

def _outer_shape(x, x_axis: int, y, y_axis: int | None) -> tuple[int, ...]:
    """The result's shape without its frequency axis: ``x``'s and ``y``'s, broadcast."""
    x_outer = x.shape[:x_axis] + x.shape[x_axis + 1:]
    if y is None:
        return x_outer
    y_outer = y.shape[:y_axis] + y.shape[y_axis + 1:]
    try:
        return np.broadcast_shapes(x_outer, y_outer)
    except ValueError:
        raise ValueError(f"x and y cannot be broadcast together: their shapes without the time "
                         f"axis are {x_outer} and {y_outer}") from None


def _paired_views(x, x_axis: int, y, y_axis: int, axis: Any) -> tuple[Any, Any, Signal2D]:
    """2-D arrays of ``x`` and ``y`` with one time axis, and the view the result takes.

    A signal whose other dimensions are all of size 1 stays one channel (the
    kernel shares it among all); other mismatches are broadcast here. The
    arrays' time axis is the result view's ``axis``.
    """
    x_outer = x.shape[:x_axis] + x.shape[x_axis + 1:]
    y_outer = y.shape[:y_axis] + y.shape[y_axis + 1:]
    outer = _outer_shape(x, x_axis, y, y_axis)
    out_axis = validation.check_axis(axis, len(outer) + 1)

    def full(v, v_axis):
        return np.broadcast_to(v, outer[:out_axis] + (v.shape[v_axis],) + outer[out_axis:])

    if x_outer != outer and y_outer != outer:
        x, x_axis, x_outer = full(x, x_axis), out_axis, outer
    views = []
    for v, v_axis, v_outer in ((x, x_axis, x_outer), (y, y_axis, y_outer)):
        if v_outer != outer and np.prod(v_outer, dtype=int) != 1:
            v, v_axis = full(v, v_axis), out_axis
        views.append(Signal2D.of(v, v_axis))
    result = views[0] if x_outer == outer else views[1]
    arrays = [v.array if v.axis == result.axis else v.array.T for v in views]
    return arrays[0], arrays[1], result


def _averaged(name, call: Call, x, y, fs, window, nperseg, noverlap, nfft, detrend,
              return_onesided, scaling, axis, average):
    """Frequencies and the segment-averaged |X|² (``y`` None) or conj(X)·Y, as scipy's csd.

    ``name`` is the public function's, for errors.
    """
    x_axis = validation.signal(x, axis)
    y_axis = None if y is None else validation.signal(y, axis, "y")
    fs = validation.sampling_rate(fs)
    validation.choice(average, _AVERAGES, "average")
    dtype = computation_dtype(x, "x")
    if y is not None:
        dtype = np.result_type(dtype, computation_dtype(y, "y"))
    length = x.shape[x_axis] if y is None else max(x.shape[x_axis], y.shape[y_axis])
    segments = validation.Segments.check(window, nperseg, noverlap, nfft, detrend, length,
                                         return_onesided).sides_of(dtype)
    shape = list(_outer_shape(x, x_axis, y, y_axis))
    shape.insert(validation.check_axis(axis, len(shape) + 1), segments.bins)
    validation.output_fits(name, x, _real(dtype) if y is None else _complex(dtype), tuple(shape))
    count = segments.count(length)
    weights = segments.scale(fs, scaling) * segments.doubling()
    if average == "median":
        weights /= _median_bias(count)
    signals = [v.astype(dtype, copy=False) for v in ([x] if y is None else [x, y])]
    axes = [x_axis] if y is None else [x_axis, y_axis]
    if callable(segments.detrend):
        signals, segments = _host_detrended(call, signals, axes, length, segments,
                                            _each_segment(segments.detrend))
    if y is None:
        out_view = Signal2D.of(signals[0], x_axis)
        x_array, y_array = out_view.array, None
    else:
        x_array, y_array, out_view = _paired_views(signals[0], x_axis, signals[1], y_axis, axis)
    problem = _problem("csd", out_view, dtype, average=average, cross=y is not None,
                       complex=dtype.kind == "c", **segments.params())
    real = _real(dtype)
    p = call.run(problem, call.native(x_array), call.native(y_array), out_view.axis,
                 call.native(segments.window.astype(real)), segments.step, segments.nfft,
                 segments.detrend, segments.sides, call.native(weights.astype(real)), average)
    return _like_input(call, segments.frequencies(fs)), call.give_back(out_view.restore(p))


def welch(x, fs=1.0, window="hann_periodic", nperseg=None, noverlap=None, nfft=None,
          detrend="constant", return_onesided=True, scaling="density", axis=-1, average="mean",
          *, runtime=None):
    """Estimate power spectral density using Welch's method.

    As :func:`scipy.signal.welch`, on a dspk runtime: segments are cut,
    detrended, windowed, transformed and averaged in one kernel, without
    forming the segments x frequencies array of every channel.

    Parameters
    ----------
    x : array_like
        Time series of measurement values, real or complex.
    fs : float, optional
        Sampling frequency of ``x``. Defaults to 1.0.
    window : str or tuple or array_like, optional
        A window name (with parameters, as a tuple) for
        :func:`scipy.signal.get_window`, or the window's values. Defaults to
        ``'hann_periodic'``.
    nperseg : int, optional
        Length of each segment; default ``min(256, length)`` for a named
        window, else the window's length. It may not exceed the signal's length.
    noverlap : int, optional
        Samples shared by consecutive segments; default ``nperseg // 2``.
    nfft : int, optional
        FFT length (segments are zero-padded); default ``nperseg``.
    detrend : str or callable or False, optional
        ``'constant'`` (default), ``'linear'``, False (none), or a callable
        applied to each segment on the host.
    return_onesided : bool, optional
        Return a one-sided spectrum for real data (default); complex data
        always gives two sides.
    scaling : {'density', 'spectrum'}, optional
        Power spectral density in V²/Hz (default) or power spectrum in V².
    axis : int, optional
        Axis along which the periodogram is computed. Default is -1.
    average : {'mean', 'median'}, optional
        How segments are averaged (the median is corrected for its bias).
    runtime : str, optional
        The runtime to run on.

    Returns
    -------
    f : ndarray
        Array of sample frequencies (float64).
    Pxx : ndarray
        Power spectral density or power spectrum of ``x``, frequencies along
        ``axis``; float32 for float32 or complex64 input.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> x = np.random.default_rng(0).standard_normal((4, 3000)).astype(np.float32)
    >>> f, pxx = dspk.welch(x, fs=1000.0, nperseg=512)
    >>> f_ref, pxx_ref = scipy.signal.welch(x.astype(np.float64), fs=1000.0, nperseg=512)
    >>> pxx.dtype, pxx.shape, bool(np.allclose(pxx, pxx_ref, rtol=1e-3, atol=1e-7))
    (dtype('float32'), (4, 257), True)
    """
    call, x = Call.start(runtime, x, "x", "welch")
    return _averaged("welch", call, x, None, fs, window, nperseg, noverlap, nfft, detrend,
                     return_onesided, scaling, axis, average)


def csd(x, y, fs=1.0, window="hann_periodic", nperseg=None, noverlap=None, nfft=None,
        detrend="constant", return_onesided=True, scaling="density", axis=-1, average="mean",
        *, runtime=None):
    """Estimate the cross power spectral density, Pxy, using Welch's method.

    As :func:`scipy.signal.csd`, on a dspk runtime; parameters as
    :func:`welch`. ``x`` and ``y`` broadcast over their dimensions other
    than ``axis``; the shorter is zero-padded at its end. Passing the same
    object as ``x`` and ``y`` gives :func:`welch`'s real result, as in scipy.

    Parameters
    ----------
    x, y : array_like
        Time series of measurement values.
    fs : float, optional
        Sampling frequency. Defaults to 1.0.
    window : str or tuple or array_like, optional
        Window name or values; defaults to ``'hann_periodic'``.
    nperseg : int, optional
        Length of each segment.
    noverlap : int, optional
        Samples shared by consecutive segments; default ``nperseg // 2``.
    nfft : int, optional
        FFT length; default ``nperseg``.
    detrend : str or callable or False, optional
        ``'constant'`` (default), ``'linear'``, False or a callable.
    return_onesided : bool, optional
        One-sided spectrum for real data (default).
    scaling : {'density', 'spectrum'}, optional
        Cross spectral density (default) or cross spectrum.
    axis : int, optional
        Axis along which the CSD is computed. Default is -1.
    average : {'mean', 'median'}, optional
        How segments are averaged; the median takes real and imaginary parts apart.
    runtime : str, optional
        The runtime to run on.

    Returns
    -------
    f : ndarray
        Array of sample frequencies.
    Pxy : ndarray
        Cross spectral density or cross power spectrum of ``x`` and ``y``;
        complex64 for float32 input.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> rng = np.random.default_rng(0)
    >>> x, y = rng.standard_normal((2, 3, 2000))
    >>> f, pxy = dspk.csd(x, y, nperseg=128)
    >>> bool(np.allclose(pxy, scipy.signal.csd(x, y, nperseg=128)[1]))
    True
    """
    call, x = Call.start(runtime, x, "x", "csd")
    same = y is x
    y = None if same else call.take(y, "y")
    return _averaged("csd", call, x, y, fs, window, nperseg, noverlap, nfft, detrend,
                     return_onesided, scaling, axis, average)


def periodogram(x, fs=1.0, window="boxcar", nfft=None, detrend="constant", return_onesided=True,
                scaling="density", axis=-1, *, runtime=None):
    """Estimate power spectral density using a periodogram.

    As :func:`scipy.signal.periodogram`, on a dspk runtime: one segment as
    long as the signal (or ``nfft``, when shorter: the signal is cropped).

    Parameters
    ----------
    x : array_like
        Time series of measurement values.
    fs : float, optional
        Sampling frequency. Defaults to 1.0.
    window : str or tuple or array_like, optional
        Window name or values (as long as the segment); None means ``'boxcar'``.
    nfft : int, optional
        FFT length; default the length of ``x`` along ``axis``.
    detrend : str or callable or False, optional
        ``'constant'`` (default), ``'linear'``, False or a callable.
    return_onesided : bool, optional
        One-sided spectrum for real data (default).
    scaling : {'density', 'spectrum'}, optional
        Power spectral density (default) or power spectrum.
    axis : int, optional
        Axis along which the periodogram is computed. Default is -1.
    runtime : str, optional
        The runtime to run on.

    Returns
    -------
    f : ndarray
        Array of sample frequencies.
    Pxx : ndarray
        Power spectral density or power spectrum of ``x``.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> x = np.random.default_rng(0).standard_normal((2, 1000))
    >>> f, pxx = dspk.periodogram(x, fs=100.0, window="hann")
    >>> bool(np.allclose(pxx, scipy.signal.periodogram(x, fs=100.0, window="hann")[1]))
    True
    """
    call, x = Call.start(runtime, x, "x", "periodogram")
    index = validation.signal(x, axis)
    length = x.shape[index]
    nfft = None if nfft is None else validation.integer(nfft, "nfft", minimum=1)
    if nfft is not None and nfft < length:
        x = x[(slice(None),) * index + (slice(0, nfft),)]
        nperseg, nfft = nfft, None
    else:
        nperseg = length
    window = "boxcar" if window is None else window
    size = None if isinstance(window, (str, tuple)) else np.size(to_numpy(window))
    if size not in (None, nperseg):
        raise ValueError(f"window must have {nperseg} samples, as many as x along axis "
                         f"(or nfft, when smaller); got {size}")
    return _averaged("periodogram", call, x, None, fs, window, nperseg, 0, nfft, detrend,
                     return_onesided, scaling, axis, "mean")


def coherence(x, y, fs=1.0, window="hann_periodic", nperseg=None, noverlap=None, nfft=None,
              detrend="constant", axis=-1, *, runtime=None):
    """Estimate the magnitude squared coherence estimate, Cxy, using Welch's method.

    As :func:`scipy.signal.coherence`, on a dspk runtime:
    ``|Pxy|² / (Pxx Pyy)`` from :func:`csd` and :func:`welch`.

    Parameters
    ----------
    x, y : array_like
        Time series of measurement values.
    fs : float, optional
        Sampling frequency. Defaults to 1.0.
    window : str or tuple or array_like, optional
        Window name or values; defaults to ``'hann_periodic'``.
    nperseg : int, optional
        Length of each segment.
    noverlap : int, optional
        Samples shared by consecutive segments; default ``nperseg // 2``.
    nfft : int, optional
        FFT length; default ``nperseg``.
    detrend : str or callable or False, optional
        ``'constant'`` (default), ``'linear'``, False or a callable.
    axis : int, optional
        Axis along which the coherence is computed. Default is -1.
    runtime : str, optional
        The runtime to run on.

    Returns
    -------
    f : ndarray
        Array of sample frequencies.
    Cxy : ndarray
        Magnitude squared coherence of ``x`` and ``y``.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> rng = np.random.default_rng(0)
    >>> x = rng.standard_normal((2, 2000))
    >>> y = x + rng.standard_normal((2, 2000))
    >>> f, cxy = dspk.coherence(x, y, nperseg=100)
    >>> bool(np.allclose(cxy, scipy.signal.coherence(x, y, nperseg=100)[1]))
    True
    """
    options = {"fs": fs, "window": window, "nperseg": nperseg, "noverlap": noverlap,
               "nfft": nfft, "detrend": detrend, "axis": axis, "runtime": runtime}
    freqs, pxx = welch(x, **options)
    _, pyy = welch(y, **options)
    _, pxy = csd(x, y, **options)
    return freqs, abs(pxy) ** 2 / pxx / pyy


# --- every segment's spectrum: stft, spectrogram, istft ----------------------------------

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


def _segment_times(samples: int, segments: validation.Segments, extended: bool, fs: float) -> np.ndarray:
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
    index = validation.signal(x, axis)
    fs = validation.sampling_rate(fs)
    validation.choice(boundary, _BOUNDARIES, "boundary")
    dtype = computation_dtype(x, "x")
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
        _complex(dtype) if value == "complex" else _real(dtype),
        (*x.shape[:index], *x.shape[index + 1:], segments.bins, len(times)))
    x = x.astype(dtype, copy=False)
    scale = segments.scale(fs, scaling)
    weights = np.sqrt(scale * segments.doubling() if value == "power" else
                      np.full(segments.bins, scale))
    if callable(segments.detrend):
        extended = _host_extended(call, x, index, edge, boundary, pad)
        (x,), segments = _host_detrended(call, [extended], [index], samples, segments,
                                         _all_segments(segments.detrend, operator.index(axis)))
        boundary, pad = None, 0
    view = Signal2D.of(x, index)
    problem = _problem("stft", view, dtype, value=value, complex=dtype.kind == "c",
                       **segments.params())
    real = _real(dtype)
    z = call.run(problem, call.native(view.array), view.axis,
                 call.native(segments.window.astype(real)), segments.step, segments.nfft, segments.detrend, segments.sides, boundary, pad,
                 call.native(weights.astype(real)), value)
    return (_like_input(call, segments.frequencies(fs)), _like_input(call, times),
            call.give_back(_restore_segments(view, z, index, x.ndim)))


def stft(x, fs=1.0, window="hann_periodic", nperseg=256, noverlap=None, nfft=None,
         detrend=False, return_onesided=True, boundary="zeros", padded=True, axis=-1,
         scaling="spectrum", *, runtime=None):
    """Compute the Short Time Fourier Transform (legacy function).

    As :func:`scipy.signal.stft`, on a dspk runtime.

    Parameters
    ----------
    x : array_like
        Time series of measurement values, real or complex.
    fs : float, optional
        Sampling frequency. Defaults to 1.0.
    window : str or tuple or array_like, optional
        Window name or values; defaults to ``'hann_periodic'``.
    nperseg : int, optional
        Length of each segment. Defaults to 256 (which must not exceed the
        signal's length).
    noverlap : int, optional
        Samples shared by consecutive segments; default ``nperseg // 2``.
    nfft : int, optional
        FFT length; default ``nperseg``.
    detrend : str or callable or False, optional
        None by default; ``'constant'``, ``'linear'`` or a callable (run once
        on all segments, on the host).
    return_onesided : bool, optional
        One-sided spectrum for real data (default); complex data gives two
        sides, with a warning.
    boundary : str or None, optional
        Extend the signal by ``nperseg // 2`` samples at both ends:
        ``'zeros'`` (default), ``'even'``, ``'odd'``, ``'constant'`` or None.
    padded : bool, optional
        Zero-pad the end so that the last segment is whole (default True).
    axis : int, optional
        Axis along which the STFT is computed. Default is -1.
    scaling : {'spectrum', 'psd'}, optional
        Scale each segment's spectrum to magnitude (default) or to a density.
    runtime : str, optional
        The runtime to run on.

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


def spectrogram(x, fs=1.0, window=("tukey_periodic", 0.25), nperseg=None, noverlap=None,
                nfft=None, detrend="constant", return_onesided=True, scaling="density", axis=-1,
                mode="psd", *, runtime=None):
    """Compute a spectrogram with consecutive Fourier transforms (legacy function).

    As :func:`scipy.signal.spectrogram`, on a dspk runtime.

    Parameters
    ----------
    x : array_like
        Time series of measurement values, real or complex.
    fs : float, optional
        Sampling frequency. Defaults to 1.0.
    window : str or tuple or array_like, optional
        Window name or values; defaults to ``('tukey_periodic', 0.25)``.
    nperseg : int, optional
        Length of each segment; default ``min(256, length)`` for a named
        window, else the window's length.
    noverlap : int, optional
        Samples shared by consecutive segments; default ``nperseg // 8``.
    nfft : int, optional
        FFT length; default ``nperseg``.
    detrend : str or callable or False, optional
        ``'constant'`` (default), ``'linear'``, False or a callable (run once
        on all segments, on the host).
    return_onesided : bool, optional
        One-sided spectrum for real data (default).
    scaling : {'density', 'spectrum'}, optional
        Power spectral density (default) or power spectrum.
    axis : int, optional
        Axis along which the spectrogram is computed. Default is -1.
    mode : {'psd', 'complex', 'magnitude', 'angle', 'phase'}, optional
        What to return of each segment's spectrum: the power (default), the
        complex spectrum, its magnitude, its angle, or its angle unwrapped
        along frequency.
    runtime : str, optional
        The runtime to run on.

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
    fs : float, optional
        Sampling frequency. Defaults to 1.0.
    window : str or tuple or array_like, optional
        Window name or values; defaults to ``'hann_periodic'``.
    nperseg : int, optional
        Samples per segment; default ``2 * (bins - 1)`` for one-sided input,
        else the number of frequencies.
    noverlap : int, optional
        Samples shared by consecutive segments; default ``nperseg // 2``.
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
    runtime : str, optional
        The runtime to run on.

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
    dtype = _complex(computation_dtype(z, "Zxx"))
    fs = validation.sampling_rate(fs)
    validation.choice(scaling, ("spectrum", "psd"), "scaling")
    bins, count = z.shape[f_axis], z.shape[t_axis]
    nperseg, nfft, step = _inverse_lengths(bins, input_onesided, nperseg, nfft, noverlap)
    window = validation.window_values(window, nperseg)
    gain = window.sum() if scaling == "spectrum" else np.sqrt(fs * (window ** 2).sum())
    trim = nperseg // 2 if boundary else 0
    divisor = _overlap_divisor(window, step, count, trim, boundary)
    validation.output_fits("istft", z, _real(dtype),
                           (*(z.shape[i] for i in range(z.ndim) if i not in (f_axis, t_axis)),
                            divisor.size))
    outer = [i for i in range(z.ndim) if i not in (f_axis, t_axis)]
    outer_shape = tuple(z.shape[i] for i in outer)
    stacked = z.astype(dtype, copy=False).transpose(*outer, f_axis, t_axis)
    stacked = stacked.reshape(-1, bins, count)
    real = _real(dtype)
    sides = "onesided" if input_onesided else "twosided"
    problem = Problem.make("istft", real, stacked.shape[0], divisor.size, "channel-major",
                           segment=bucket(nfft), hop=bucket(step), sides=sides)
    x = call.run(problem, call.native(stacked), call.native((window * gain).astype(real)), step, nfft,
                 sides, call.native(divisor.astype(real)), trim)
    order = list(range(len(outer_shape)))
    order.insert(t_axis - (f_axis < t_axis), len(outer_shape))
    x = x.reshape(*outer_shape, divisor.size).transpose(*order)
    return _like_input(call, np.arange(divisor.size) / fs), call.give_back(x)
