"""Resampling with scipy.signal's names, parameters and results.

``upfirdn`` and ``resample_poly`` run the ``upfirdn`` kernel operation, a
polyphase filter that computes only the output samples asked for and never
forms the upsampled signal. ``resample`` runs the ``resample`` kernel
operation: a real FFT, the spectrum cut or zero-padded and weighted, an
inverse FFT. ``decimate`` composes dspk's own sosfiltfilt, sosfilt, filtfilt,
lfilter and upfirdn exactly as scipy does for each ``ftype`` and
``zero_phase``. Filter design, spectral windows and the samples beyond the
signal's ends (:mod:`dspk.extension`) are computed on the host.

Differences from scipy.signal, all deliberate:

- float32 signals are resampled in float32 whatever the dtype of ``h`` or of
  ``resample_poly``'s window array (scipy gives float64 then); integer
  signals in float64, also when ``resample_poly``'s ``up`` and ``down`` are
  equal, where scipy returns an integer copy.
- Empty signals or taps, ``up``, ``down``, ``q``, ``num`` or ``n`` below 1
  raise ValueError; non-integral rates raise TypeError (scipy's ``upfirdn``
  truncates them silently).
- The extension modes ``"smooth"``, ``"reflect"``, ``"antireflect"`` and
  ``"line"`` need two samples along the axis; scipy crashes, reads out of
  bounds or returns NaN for one.
- ``resample`` resamples real signals in the time domain: complex signals
  raise TypeError, ``domain="freq"`` ValueError, and spectral windows must be
  real.
- ``decimate(ftype="fir")`` needs ``q >= 2`` (the cut-off ``1/q`` must lie
  below Nyquist) and says so; its result is a compact array, not scipy's
  strided view of the filtered signal.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import fft
from scipy import signal as _scipy

from dspk import complex_signals, extension, filtering, validation
from dspk.arrays import to_numpy
from dspk.dispatch import Call, Signal2D
from dspk.docstrings import shared
from dspk.operations import bucket

__all__ = ["upfirdn", "resample_poly", "resample", "decimate"]

#: resample_poly's padtypes that subtract a per-channel background first.
_BACKGROUNDS = {
    "mean": lambda x, axis: x.mean(axis=axis, keepdims=True),
    "median": lambda x, axis: np.median(x, axis=axis, keepdims=True),
    "minimum": lambda x, axis: x.min(axis=axis, keepdims=True),
    "maximum": lambda x, axis: x.max(axis=axis, keepdims=True),
}
PADTYPES = (*_BACKGROUNDS, *extension.MODES)


def _taps(call: Call, h: Any, name: str) -> np.ndarray:
    """Filter taps on the host: a non-empty, finite, real 1-D array."""
    h = to_numpy(h)
    if h.ndim != 1 or h.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of filter taps; "
                         f"got shape {h.shape}")
    if h.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers; got dtype {h.dtype}")
    validation.finite(h, name)
    return h


def _mode(mode: Any, samples: int, name: str) -> str:
    if not isinstance(mode, str):
        raise TypeError(f"{name} must be a string; got {mode!r}")
    mode = validation.choice(mode.lower(), extension.MODES, name)
    if mode in extension.NEEDS_TWO_SAMPLES and samples < 2:
        raise ValueError(f"{name}={mode!r} needs at least 2 samples along axis; x has {samples}")
    return mode


def _full_length(taps: int, samples: int, up: int, down: int) -> int:
    """Samples of upfirdn's whole output."""
    return ((samples - 1) * up + taps - 1) // down + 1


def _extension_size(taps: int, up: int, down: int) -> int:
    """Input samples the filter reaches past each end, rounded up so that
    ``size * up`` is a multiple of ``down`` (the kernel convention)."""
    reach = -(-(taps - 1) // up)
    step = down // math.gcd(up, down)
    return -(-reach // step) * step


def _upfirdn(call: Call, view: Signal2D, h: np.ndarray, up: int, down: int, mode: str,
             cval: float, start: int, stop: int) -> Any:
    """Samples ``start`` to ``stop`` of upfirdn's whole output, as a native 2-D array."""
    left, right = extension.extend(view.array, view.axis, mode, cval,
                                   _extension_size(len(h), up, down), call.native)
    problem = view.problem("upfirdn", phase_taps=bucket(-(-len(h) // up)), up=bucket(up),
                           down=bucket(down))
    return call.run(problem, call.native(h.astype(view.array.dtype)), call.native(view.array),
                    view.axis, up, down, left, right, start, stop)


@shared
def upfirdn(h, x, up=1, down=1, axis=-1, mode="constant", cval=0, *, runtime=None):
    """Upsample, FIR filter, and downsample.

    As :func:`scipy.signal.upfirdn`, on a dspk runtime: a polyphase filter
    [1]_ that computes each output sample from the taps of its phase.

    Parameters
    ----------
    h : array_like
        1-D FIR (finite-impulse response) filter coefficients.
    x : array_like
        Input signal array.
    up : int, optional
        Upsampling rate. Default is 1.
    down : int, optional
        Downsampling rate. Default is 1.
    axis : int, optional
        The axis of the input data array along which to apply the linear
        filter. Default is -1.
    mode : str, optional
        The signal extension mode: ``"constant"``, ``"wrap"``, ``"edge"``,
        ``"smooth"``, ``"symmetric"``, ``"reflect"``, ``"antisymmetric"``,
        ``"antireflect"`` or ``"line"``, as in scipy. ``"smooth"``,
        ``"reflect"``, ``"antireflect"`` and ``"line"`` need at least two
        samples along ``axis``.
    cval : float, optional
        The constant value to use when ``mode == "constant"``.
    {runtime}

    Returns
    -------
    y : ndarray
        The output signal array: ``x``'s shape except along ``axis``, which
        has ``((n - 1) * up + len(h) - 1) // down + 1`` samples.

    References
    ----------
    .. [1] P. P. Vaidyanathan, "Multirate Systems and Filter Banks",
       Prentice Hall, 1993.

    Examples
    --------
    >>> import numpy as np, dspk
    >>> dspk.upfirdn([1, 1, 1], [1, 2, 3], 3)  # upsampling with sample-and-hold
    array([1., 1., 1., 2., 2., 2., 3., 3., 3.])
    >>> dspk.upfirdn([.5, 1, .5], np.arange(10), 2, 3)  # linear interpolation, rate 2/3
    array([0. , 1. , 2.5, 4. , 5.5, 7. , 8.5])
    """
    call, x = Call.start(runtime, x, "x", "upfirdn")
    axis = validation.signal_axis(x, axis)
    if complex_signals.is_complex(h):  # (cval is filtered by both parts)
        return complex_signals.by_coefficient_parts(
            lambda part, _: upfirdn(part, x, up, down, axis, mode, cval, runtime=runtime), h,
            give_back=call.give_back_from)
    if complex_signals.involved(x):  # (cval extends the real part)
        return call.give_back_from(complex_signals.part_by_part(
            lambda part, real: upfirdn(h, part, up, down, axis, mode, cval if real else 0,
                                       runtime=runtime), x))
    dtype = validation.compute_dtype(x)
    h = _taps(call, h, "h")
    up, down = validation.integer(up, "up", minimum=1), validation.integer(down, "down", minimum=1)
    mode = _mode(mode, x.shape[axis], "mode")
    cval = validation.real_number(cval, "cval")
    n_out = _full_length(len(h), x.shape[axis], up, down)
    validation.output_fits("upfirdn", x, dtype, validation.with_length(x.shape, axis, n_out))
    view = Signal2D.of(x.astype(dtype, copy=False), axis)
    y = _upfirdn(call, view, h, up, down, mode, cval, 0, n_out)
    return call.give_back(view.restore(y))


def _orderless(padtype: Any) -> None:
    """Refuse, for complex signals, the padtypes that order samples."""
    if padtype in ("median", "maximum", "minimum"):
        raise ValueError(f"padtype={padtype!r} orders the samples, which complex x lack "
                         "an order for; use 'constant', 'mean' or a reflecting padtype")


def _is_array(window: Any) -> bool:
    """Whether resample_poly's ``window`` gives the taps themselves (an array of any
    library, or a list), not a window to design them with."""
    return isinstance(window, list) or hasattr(window, "shape")


def _complex_window(call: Call, x: Any, up: int, down: int, axis: int, window: Any,
                    padtype: Any, cval: Any, runtime: Any) -> Any:
    """resample_poly with complex taps: linear in them, it runs with their real and
    imaginary parts. A background padtype's background is added once, to the sum:
    scipy subtracts it, filters with zeros beyond the ends, and adds it back."""
    if padtype not in _BACKGROUNDS:
        return complex_signals.by_coefficient_parts(
            lambda part, _: resample_poly(x, up, down, axis, part, padtype, cval,
                                          runtime=runtime), window,
            give_back=call.give_back_from)
    if cval is not None:
        raise ValueError(f"cval={cval!r} has no effect with padtype={padtype!r}; "
                         "it applies to padtype='constant' only")
    host = call.backend.to_numpy(x) if call.backend.is_native(x) else complex_signals.readable(x)
    if complex_signals.is_complex(host):
        _orderless(padtype)
    background = _BACKGROUNDS[padtype](host, axis)
    centred = complex_signals.by_coefficient_parts(
        lambda part, _: resample_poly(host - background, up, down, axis, part, "constant",
                                      runtime=runtime), window)
    return call.give_back_from(centred + background)


def antialiasing_taps(call: Call, window: Any, up: int, down: int) -> tuple[np.ndarray, int]:
    """resample_poly's filter before scaling and padding, and its half length.

    A window named by a string or tuple gives a design kept for the last
    :data:`_DESIGNS_KEPT` ones (``firwin`` costs about 40 us a call).
    """
    if _is_array(window):
        taps = _taps(call, window, "window")
        return taps.astype(np.float64), (taps.size - 1) // 2
    rate = max(up, down)
    half_len = 10 * rate
    try:
        return _designs[window, rate], half_len
    except KeyError:
        pass
    except TypeError:  # a window tuple holding something unhashable: designed each time
        return _scipy.firwin(2 * half_len + 1, 1.0 / rate, window=window), half_len
    taps = _scipy.firwin(2 * half_len + 1, 1.0 / rate, window=window)
    taps.flags.writeable = False
    if len(_designs) >= _DESIGNS_KEPT:
        _designs.pop(next(iter(_designs)))
    _designs[window, rate] = taps
    return taps, half_len


#: How many antialiasing designs :func:`antialiasing_taps` keeps.
_DESIGNS_KEPT = 64
_designs: dict[tuple[Any, int], np.ndarray] = {}


@shared
def resample_poly(x, up, down, axis=0, window=("kaiser", 5.0), padtype="constant", cval=None,
                  *, runtime=None):
    """Resample `x` along the given axis using polyphase filtering.

    As :func:`scipy.signal.resample_poly`, on a dspk runtime: ``x`` is
    upsampled by ``up``, low-pass filtered with a zero-phase FIR filter and
    downsampled by ``down``, computing only the output samples kept (a
    polyphase implementation [1]_).

    Parameters
    ----------
    x : array_like
        The data to be resampled.
    up : int
        The upsampling factor.
    down : int
        The downsampling factor.
    axis : int, optional
        The axis of ``x`` that is resampled. Default is 0, as in scipy.
    window : string, tuple, or array_like, optional
        The window for :func:`scipy.signal.firwin` to design the low-pass
        filter with (cut-off ``1 / max(up, down)``, ``20 * max(up, down) + 1``
        taps), or the FIR filter's taps themselves.
    padtype : string, optional
        ``"constant"``, ``"line"``, ``"mean"``, ``"median"``, ``"maximum"``,
        ``"minimum"`` or any other of :func:`upfirdn`'s modes: how the signal
        is taken to continue beyond its ends. The background modes subtract
        that statistic of each channel, resample, and add it back.
    cval : float, optional
        The value beyond the ends with ``padtype="constant"``; default 0.
    {runtime}

    Returns
    -------
    resampled_x : array
        The resampled array, ``ceil(n * up / down)`` samples along ``axis``
        (``up`` and ``down`` reduced by their greatest common divisor).

    References
    ----------
    .. [1] P. P. Vaidyanathan, "Multirate Systems and Filter Banks",
       Prentice Hall, 1993.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> x = np.random.default_rng(0).standard_normal((3000, 4)).astype(np.float32)
    >>> y = dspk.resample_poly(x, 2, 3)
    >>> y.shape, y.dtype
    ((2000, 4), dtype('float32'))
    >>> bool(np.allclose(y, scipy.signal.resample_poly(x, 2, 3), atol=1e-5))
    True
    """
    call, x = Call.start(runtime, x, "x", "resample_poly")
    axis = validation.signal_axis(x, axis)
    if _is_array(window) and complex_signals.is_complex(window):
        return _complex_window(call, x, up, down, axis, window, padtype, cval, runtime)
    if complex_signals.involved(x):
        _orderless(padtype)
        return call.give_back_from(complex_signals.part_by_part(
            lambda part, real: resample_poly(part, up, down, axis, window, padtype,
                                             cval if real or cval is None else 0,
                                             runtime=runtime), x))
    dtype = validation.compute_dtype(x)
    up, down = validation.integer(up, "up", minimum=1), validation.integer(down, "down", minimum=1)
    validation.choice(padtype, PADTYPES, "padtype")
    if cval is not None and padtype != "constant":
        raise ValueError(f"cval={cval!r} has no effect with padtype={padtype!r}; "
                         "it applies to padtype='constant' only")
    cval = 0.0 if cval is None else validation.real_number(cval, "cval")
    mode = "constant" if padtype in _BACKGROUNDS else _mode(padtype, x.shape[axis], "padtype")
    common = math.gcd(up, down)
    up, down = up // common, down // common
    n_out = -(-x.shape[axis] * up // down)
    validation.output_fits("resample_poly", x, dtype, validation.with_length(x.shape, axis, n_out))
    x = x.astype(dtype, copy=False)
    if up == down == 1:
        return call.give_back(x.copy())
    taps, half_len = antialiasing_taps(call, window, up, down)
    pre_pad = down - half_len % down
    first = (half_len + pre_pad) // down
    # Zeros after the taps until the whole output reaches the last sample kept, as scipy.
    needed = (first + n_out - 1) * down - (x.shape[axis] - 1) * up + 1
    post_pad = max(0, needed - pre_pad - len(taps))
    h = np.concatenate([np.zeros(pre_pad), taps * up, np.zeros(post_pad)])
    background = None
    if padtype in _BACKGROUNDS:  # on the host: a runtime's arrays need not do arithmetic
        x = call.backend.to_numpy(x) if call.backend.is_native(x) else x
        background = _BACKGROUNDS[padtype](x, axis)
        x = x - background
    view = Signal2D.of(x, axis)
    y = view.restore(_upfirdn(call, view, h, up, down, mode, cval, first, first + n_out))
    if background is not None:
        y = call.native(call.backend.to_numpy(y) + background)
    return call.give_back(y)


def _spectral_window(call: Call, window: Any, samples: int) -> np.ndarray:
    """resample's window: one real weight per bin of the two-sided spectrum."""
    if callable(window):
        weights = np.asarray(window(fft.fftfreq(samples)))
    elif hasattr(window, "shape"):
        weights = to_numpy(window)
    else:
        weights = fft.fftshift(_scipy.get_window(window, samples))
    if weights.shape != (samples,):
        raise ValueError(f"window gives weights of shape {weights.shape}; resample needs one "
                         f"per frequency bin of x, shape ({samples},)")
    if weights.dtype.kind not in "biuf":
        raise ValueError(f"window gives {weights.dtype} weights; dspk applies real spectral "
                         "windows only")
    validation.finite(weights, "window")
    return weights.astype(np.float64)


def _even(weights: np.ndarray) -> bool:
    """Whether two-sided spectral ``weights`` (in ``fftfreq`` order) weigh each frequency
    ``f`` as ``-f``, within rounding.

    Examples
    --------
    >>> _even(np.array([1.0, 0.5, 0.5])), _even(np.array([1.0, 0.5, 0.25]))
    (True, False)
    """
    return bool(np.allclose(weights[1:], weights[:0:-1], rtol=0,
                            atol=1e-12 * np.abs(weights).max()))


def _spectral_weights(call: Call, window: Any, samples: int, num: int) -> np.ndarray:
    """What multiplies the first ``min(samples, num) // 2 + 1`` bins of the real FFT.

    The window folded onto the one-sided spectrum, the unpaired bin at
    ``m // 2`` doubled or halved when the shorter length is even, and the
    ``num / samples`` scaling, as scipy.signal.resample does them.
    """
    m = min(samples, num)
    if window is None:
        weights = np.ones(m // 2 + 1)
    else:
        full = _spectral_window(call, window, samples)
        half = samples // 2 + 1
        folded = full[:half].copy()
        folded[1:] = (full[1:half] + full[::-1][:half - 1]) / 2
        weights = folded[:m // 2 + 1]
    if m % 2 == 0 and num != samples:
        weights[m // 2] *= 2 if num < samples else 0.5
    return weights * (num / samples)


@shared
def resample(x, num, t=None, axis=0, window=None, domain="time", *, runtime=None):
    """Resample `x` to `num` samples using the Fourier method along the given `axis`.

    As :func:`scipy.signal.resample`, on a dspk runtime: the real FFT of
    ``x`` is cut or zero-padded to ``num`` samples' worth of bins, treating
    the unpaired bin of an even length as scipy does, and transformed back.
    ``x`` is taken to be periodic.

    Parameters
    ----------
    x : array_like
        The signal, equidistant samples along ``axis``; a complex signal is
        resampled as its real and imaginary parts, with a ``window`` even in
        frequency only.
    num : int
        The number of samples of the resampled output signal.
    t : array_like, optional
        Timestamps of ``x``; only ``t[0]`` and ``t[1]`` are used. When given,
        the timestamps of the output are returned too.
    axis : int, optional
        The time axis of ``x``. Default is 0, as in scipy.
    window : array_like, callable, string, float, or tuple, optional
        A real spectral window applied to the FFT of ``x``: an array of one
        weight per bin of ``fftfreq(n)``, a callable of those frequencies,
        or a :func:`scipy.signal.get_window` specification (fft-shifted).
    domain : {"time"}, optional
        ``"time"``: ``x`` holds samples. scipy's ``"freq"`` (``x`` holds a
        spectrum) is not supported.
    {runtime}

    Returns
    -------
    resampled_x : array
        ``x``'s shape with ``num`` samples along ``axis``.
    resampled_t : ndarray, optional
        ``t[0] + (t[1] - t[0]) * n / num * arange(num)``, only when ``t`` is given.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> x = np.cos(-np.linspace(0, 10, 20, endpoint=False) ** 2 / 6.0)
    >>> y, t = dspk.resample(x, 100, t=np.arange(20) * 0.5)
    >>> y.shape, t[:3]
    ((100,), array([0. , 0.1, 0.2]))
    >>> bool(np.allclose(y, scipy.signal.resample(x, 100)))
    True
    """
    call, x = Call.start(runtime, x, "x", "resample")
    validation.choice(domain, ("time", "freq"), "domain")
    if domain == "freq":
        raise ValueError("domain='freq' (x holds a spectrum) is not supported: dspk resamples "
                         "real signals given in the time domain")
    axis = validation.signal_axis(x, axis)
    samples = x.shape[axis]
    if complex_signals.involved(x):
        if window is not None and not _even(_spectral_window(call, window, samples)):
            raise ValueError("window is not even in frequency (weight(f) != weight(-f), as a "
                             "named window of an odd number of samples): its odd part would "
                             "mix the real and imaginary parts of complex x, which dspk "
                             "resamples apart; pass an even window or real x")
        y = complex_signals.by_parts(
            lambda parts, _: resample(parts, num, None, axis + 1, window, runtime=runtime), x,
            give_back=call.give_back_from)
    else:
        dtype = validation.compute_dtype(x)
        num = validation.integer(num, "num", minimum=1)
        validation.output_fits("resample", x, dtype, validation.with_length(x.shape, axis, num))
        weights = _spectral_weights(call, window, samples, num)
        view = Signal2D.of(x.astype(dtype, copy=False), axis)
        problem = view.problem("resample", num=bucket(num))
        y = call.run(problem, call.native(view.array), view.axis, num,
                     call.native(weights.astype(dtype)))
        y = call.give_back(view.restore(y))
    if t is None:
        return y
    t = np.asarray(t)
    if t.ndim != 1 or t.size < 2:
        raise ValueError(f"t must be 1-D with at least the first two timestamps of x; "
                         f"got shape {t.shape}")
    return y, t[0] + (t[1] - t[0]) * (samples / num) * np.arange(num)


def decimation_filter(ftype: Any, q: int, n: int | None) -> tuple[str, tuple]:
    """scipy.signal.decimate's filter.

    ``("fir", (b,))``, ``("sos", (sos,))`` or ``("ba", (b, a))``.
    """
    if isinstance(ftype, _scipy.dlti):
        system = ftype._as_zpk()
        if system.poles.shape[0] == 0:
            tf = ftype._as_tf()
            return "fir", (np.asarray(tf.num) / np.asarray(tf.den),)
        if np.any(np.iscomplex(system.poles)) or np.iscomplex(system.gain):
            tf = ftype._as_tf()  # as scipy: complex poles run as a transfer function
            return "ba", (tf.num, tf.den)
        return "sos", (_scipy.zpk2sos(system.zeros, system.poles, system.gain),)
    if not isinstance(ftype, str):
        raise ValueError(f"ftype must be 'iir', 'fir' or a scipy.signal.dlti instance; "
                         f"got {ftype!r}")
    validation.choice(ftype, ("iir", "fir"), "ftype")
    if ftype == "iir":
        return "sos", (_scipy.cheby1(8 if n is None else n, 0.05, 0.8 / q, output="sos"),)
    if q < 2:
        raise ValueError("q=1 with ftype='fir': the anti-aliasing cut-off 1/q must lie below "
                         "Nyquist; use q >= 2")
    return "fir", (_scipy.firwin((20 * q if n is None else n) + 1, 1.0 / q, window="hamming"),)


@shared
def decimate(x, q, n=None, ftype="iir", axis=-1, zero_phase=True, *, runtime=None):
    """Downsample the signal after applying an anti-aliasing filter.

    As :func:`scipy.signal.decimate`, on a dspk runtime, with the same
    filters and the same composition: ``ftype="iir"`` runs dspk's
    sosfiltfilt (``zero_phase``) or sosfilt and keeps every ``q``-th sample;
    ``ftype="fir"`` runs dspk's resample_poly (``zero_phase``) or upfirdn.

    Parameters
    ----------
    x : array_like
        The input signal.
    q : int
        The downsampling factor.
    n : int, optional
        The order of the filter (1 less than the length for 'fir'). Defaults
        to 8 for 'iir' and 20 times the downsampling factor for 'fir'.
    ftype : str {'iir', 'fir'} or ``dlti`` instance, optional
        'iir': a Chebyshev type I filter of order ``n`` (0.05 dB ripple,
        cut-off ``0.8 / q``); 'fir': a Hamming-windowed FIR filter of
        ``n + 1`` taps, cut-off ``1 / q``; or a ``scipy.signal.dlti`` system.
    axis : int, optional
        The axis along which to decimate. Default is -1.
    zero_phase : bool, optional
        Filter forward and backward (or, for FIR, centre the filter) so that
        the result has no phase shift. Default True.
    {runtime}

    Returns
    -------
    y : ndarray
        The down-sampled signal, ``ceil(n / q)`` samples along ``axis``.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> x = np.random.default_rng(0).standard_normal((4, 3000))
    >>> y = dspk.decimate(x, 5)
    >>> y.shape, bool(np.allclose(y, scipy.signal.decimate(x, 5)))
    ((4, 600), True)
    """
    q = validation.integer(q, "q", minimum=1)
    n = None if n is None else validation.integer(n, "n", minimum=1)
    kind, coefficients = decimation_filter(ftype, q, n)
    # An IIR decimation runs its kernels through the filtering functions.
    call, x = Call.start(runtime, x, "x", "decimate(ftype='fir')" if kind == "fir" else None)
    axis = validation.signal_axis(x, axis)
    if complex_signals.involved(x):
        return call.give_back_from(complex_signals.part_by_part(
            lambda part, _: decimate(part, q, n, ftype, axis, zero_phase, runtime=runtime), x))
    dtype = validation.compute_dtype(x)
    if kind == "fir":
        b = coefficients[0]
        if zero_phase:
            return call.give_back_from(resample_poly(x, 1, q, axis=axis, window=b,
                                                     runtime=runtime))
        n_out = -(-x.shape[axis] // q)
        validation.output_fits("decimate", x, dtype, validation.with_length(x.shape, axis, n_out))
        view = Signal2D.of(x.astype(dtype, copy=False), axis)
        y = _upfirdn(call, view, b, 1, q, "constant", 0.0, 0, n_out)
        return call.give_back(view.restore(y))
    if kind == "sos":
        run = filtering.sosfiltfilt if zero_phase else filtering.sosfilt
    else:
        run = filtering.filtfilt if zero_phase else filtering.lfilter
    y = run(*coefficients, x, axis=axis, runtime=runtime)
    every_q = tuple(slice(None, None, q) if i == axis else slice(None) for i in range(y.ndim))
    return call.give_back_from(y[every_q].copy(order="K"))
