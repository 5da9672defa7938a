"""Segment-averaged spectra, Welch's method: welch, csd, periodogram, coherence."""

from __future__ import annotations

from typing import Any

import numpy as np

from dspk import validation
from dspk.arrays import to_numpy
from dspk.dispatch import Call, Signal2D
from dspk.docstrings import shared
from dspk.spectral.common import (
    complex_dtype,
    like_input,
    problem_of,
    real_dtype,
)
from dspk.spectral.detrending import each_segment, host_detrended

__all__ = ["welch", "csd", "periodogram", "coherence"]

_AVERAGES = ("mean", "median")


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
    x_axis = validation.signal_axis(x, axis)
    y_axis = None if y is None else validation.signal_axis(y, axis, "y")
    fs = validation.sampling_rate(fs)
    validation.choice(average, _AVERAGES, "average")
    dtype = validation.compute_dtype(x, "x", allow_complex=True)
    if y is not None:
        dtype = np.result_type(dtype, validation.compute_dtype(y, "y", allow_complex=True))
    length = x.shape[x_axis] if y is None else max(x.shape[x_axis], y.shape[y_axis])
    segments = validation.Segments.check(window, nperseg, noverlap, nfft, detrend, length,
                                         return_onesided).sides_of(dtype)
    shape = list(_outer_shape(x, x_axis, y, y_axis))
    shape.insert(validation.check_axis(axis, len(shape) + 1), segments.bins)
    out_dtype = real_dtype(dtype) if y is None else complex_dtype(dtype)
    validation.output_fits(name, x, out_dtype, tuple(shape))
    count = segments.count(length)
    weights = segments.scale(fs, scaling) * segments.doubling()
    if average == "median":
        weights /= _median_bias(count)
    signals = [v.astype(dtype, copy=False) for v in ([x] if y is None else [x, y])]
    axes = [x_axis] if y is None else [x_axis, y_axis]
    if callable(segments.detrend):
        signals, segments = host_detrended(call, signals, axes, length, segments,
                                            each_segment(segments.detrend))
    if y is None:
        out_view = Signal2D.of(signals[0], x_axis)
        x_array, y_array = out_view.array, None
    else:
        x_array, y_array, out_view = _paired_views(signals[0], x_axis, signals[1], y_axis, axis)
    problem = problem_of("csd", out_view, dtype, average=average, cross=y is not None,
                       complex=dtype.kind == "c", **segments.params())
    real = real_dtype(dtype)
    p = call.run(problem, call.native(x_array), call.native(y_array), out_view.axis,
                 call.native(segments.window.astype(real)), segments.step, segments.nfft,
                 segments.detrend, segments.sides, call.native(weights.astype(real)), average)
    return like_input(call, segments.frequencies(fs)), call.give_back(out_view.restore(p))


@shared
def welch(x, fs=1.0, window="hann_periodic", nperseg=None, noverlap=None, nfft=None,
          detrend="constant", return_onesided=True, scaling="density", axis=-1, average="mean",
          *, runtime=None):
    """Estimate power spectral density using Welch's method.

    As :func:`scipy.signal.welch`, on a dspk runtime: segments are cut,
    detrended, windowed, transformed and averaged [1]_ in one kernel, without
    forming the segments x frequencies array of every channel.

    Parameters
    ----------
    {series}
    {fs}
    {welch_segments}
    {return_onesided}
    {scaling}
    axis : int, optional
        Axis along which the periodogram is computed. Default is -1.
    average : {'mean', 'median'}, optional
        How segments are averaged (the median is corrected for its bias).
    {runtime}

    Returns
    -------
    f : ndarray
        Array of sample frequencies (float64).
    Pxx : ndarray
        Power spectral density or power spectrum of ``x``, frequencies along
        ``axis``; float32 for float32 or complex64 input.

    References
    ----------
    .. [1] P. D. Welch, "The use of fast Fourier transform for the estimation
       of power spectra: A method based on time averaging over short,
       modified periodograms", IEEE Transactions on Audio and
       Electroacoustics, vol. 15, no. 2, 1967.

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


@shared
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
    {series_xy}
    {fs}
    {welch_segments}
    {return_onesided}
    scaling : {'density', 'spectrum'}, optional
        Cross spectral density (default) or cross spectrum.
    axis : int, optional
        Axis along which the CSD is computed. Default is -1.
    average : {'mean', 'median'}, optional
        How segments are averaged; the median takes real and imaginary parts apart.
    {runtime}

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


@shared
def periodogram(x, fs=1.0, window="boxcar", nfft=None, detrend="constant", return_onesided=True,
                scaling="density", axis=-1, *, runtime=None):
    """Estimate power spectral density using a periodogram.

    As :func:`scipy.signal.periodogram`, on a dspk runtime: one segment as
    long as the signal (or ``nfft``, when shorter: the signal is cropped).

    Parameters
    ----------
    {series}
    {fs}
    window : str or tuple or array_like, optional
        Window name or values (as long as the segment); None means ``'boxcar'``.
    nfft : int, optional
        FFT length; default the length of ``x`` along ``axis``.
    {detrend}
    {return_onesided}
    {scaling}
    axis : int, optional
        Axis along which the periodogram is computed. Default is -1.
    {runtime}

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
    index = validation.signal_axis(x, axis)
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


@shared
def coherence(x, y, fs=1.0, window="hann_periodic", nperseg=None, noverlap=None, nfft=None,
              detrend="constant", axis=-1, *, runtime=None):
    """Estimate the magnitude squared coherence estimate, Cxy, using Welch's method.

    As :func:`scipy.signal.coherence`, on a dspk runtime:
    ``|Pxy|² / (Pxx Pyy)`` from :func:`csd` and :func:`welch`.

    Parameters
    ----------
    {series_xy}
    {fs}
    {welch_segments}
    axis : int, optional
        Axis along which the coherence is computed. Default is -1.
    {runtime}

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
