"""The FFTs (rfft, irfft, fft, ifft) and the analytic signal (hilbert)."""

from __future__ import annotations

from typing import Any

from dspk import plans, validation
from dspk.dispatch import Call, Signal2D
from dspk.docstrings import shared
from dspk.spectral.common import complex_dtype, problem_of, real_dtype

__all__ = ["rfft", "irfft", "fft", "ifft", "hilbert"]

_NORMS = (None, "backward", "ortho", "forward")


def _check_fft_options(norm: Any, workers: Any, plan: Any) -> str:
    if plan is not None:
        raise NotImplementedError("plan: precomputed plans are not supported; pass plan=None")
    if workers is not None and validation.integer(workers, "workers") == 0:
        raise ValueError("workers must not be zero")
    return validation.choice(norm, _NORMS, "norm") or "backward"


def _transform(kind, x, n, axis, norm, workers, fft_plan, runtime):
    plan_key = plans.key(kind, x, n, axis, norm, workers, fft_plan, runtime)
    plan = plans.find(plan_key)
    if plan is None:
        norm = _check_fft_options(norm, workers, fft_plan)
        call, taken = Call.start(runtime, x, "x", kind)
        axis = validation.signal_axis(taken, axis)
        dtype = validation.compute_dtype(taken, "x", allow_complex=True)
        if kind == "rfft" and dtype.kind == "c":
            raise TypeError(f"x must be real for rfft; got dtype {taken.dtype}")
        if kind == "irfft":
            dtype = complex_dtype(dtype)
        length = taken.shape[axis]
        if n is None:
            n = 2 * (length - 1) if kind == "irfft" else length
            if n < 1:
                raise ValueError(f"n: irfft of {length} point(s) gives 2 * ({length} - 1) = 0 "
                                 "samples; pass a positive n")
        n = validation.integer(n, "n", minimum=1)
        out_samples = n // 2 + 1 if kind == "rfft" else n
        validation.output_fits(
            kind, taken, real_dtype(dtype) if kind == "irfft" else complex_dtype(dtype),
            validation.with_length(taken.shape, axis, out_samples))
        cast = taken.astype(dtype, copy=False)  # the cast below is then no copy
        problem = problem_of("fft", Signal2D.of(cast, axis), dtype, n, kind=kind,
                             complex=dtype.kind == "c")
        plan = plans.keep(plan_key, plans.Plan(call, problem, (axis, dtype, n, norm),
                                               plans.as_is(call, x, taken, dtype)), taken is x)
        x = cast
    elif plan.as_is:
        axis, _, n, norm = plan.settings
        return plan.run(x, axis, n, kind, norm)
    call = plan.call
    axis, dtype, n, norm = plan.settings
    view = Signal2D.of(x.astype(dtype, copy=False), axis)
    y = plan.run(call.native(view.array), view.axis, n, kind, norm)
    return call.give_back(view.restore(y))


@shared
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
    {fft_options}
    {runtime}

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


@shared
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
    {fft_options}
    {runtime}

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


@shared
def fft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None,
        runtime=None):
    """Compute the 1-D discrete Fourier Transform.

    As :func:`scipy.fft.fft`, on a dspk runtime; ``x`` may be real or complex.

    Parameters
    ----------
    {fft_x}
    {fft_n}
    axis : int, optional
        Axis over which to compute the FFT. Default is -1.
    {fft_options}
    {runtime}

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


@shared
def ifft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None,
         runtime=None):
    """Compute the 1-D inverse discrete Fourier Transform.

    As :func:`scipy.fft.ifft`, on a dspk runtime; parameters as :func:`fft`.

    Parameters
    ----------
    {fft_x}
    {fft_n}
    axis : int, optional
        Axis over which to compute the inverse FFT. Default is -1.
    {fft_options}
    {runtime}

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

@shared
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
    {runtime}

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
    plan_key = plans.key("hilbert", x, N, axis, runtime)
    plan = plans.find(plan_key)
    if plan is None:
        call, taken = Call.start(runtime, x, "x", "hilbert")
        axis = validation.signal_axis(taken, axis)
        if taken.dtype.kind == "c":
            raise ValueError(f"x must be real; got dtype {taken.dtype}")
        dtype = validation.compute_dtype(taken)
        n = taken.shape[axis] if N is None else validation.integer(N, "N", minimum=1)
        validation.output_fits("hilbert", taken, complex_dtype(dtype),
                               validation.with_length(taken.shape, axis, n))
        cast = taken.astype(dtype, copy=False)  # the cast below is then no copy
        problem = problem_of("hilbert", Signal2D.of(cast, axis), dtype, n)
        plan = plans.keep(plan_key, plans.Plan(call, problem, (axis, dtype, n),
                                               plans.as_is(call, x, taken, dtype)), taken is x)
        x = cast
    elif plan.as_is:
        axis, _, n = plan.settings
        return plan.run(x, axis, n)
    call = plan.call
    axis, dtype, n = plan.settings
    view = Signal2D.of(x.astype(dtype, copy=False), axis)
    return call.give_back(view.restore(plan.run(call.native(view.array), view.axis, n)))
