"""IIR filtering with scipy.signal's names, parameters and results.

Differences from scipy.signal, all deliberate:

- float32 signals give float32 results, filtered in float32 with the
  coefficients cast to float32, except when a pole lies within
  :data:`dspk.validation.FLOAT32_POLE_DISTANCE` of ``z = 1`` (a cut-off
  below about 0.8 % of the sampling rate): float32 arithmetic loses accuracy
  or stability there, so such filters run in float64 and the result is cast
  back. float64 stays float64; integer and float16 signals are filtered in
  float64, as in scipy.
- Empty signals, non-finite or unstable coefficients (a pole outside the unit
  circle) raise :class:`ValueError` instead of returning garbage.
- NaN or infinity in the signal or in ``zi`` propagates through the filter
  (into ``zf`` too), as in scipy.
- ``zi`` may broadcast along dimensions of size 1, as ``lfilter``'s does in scipy.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from scipy import linalg
from scipy import signal as _scipy

from dspk import complex_signals, plans, validation
from dspk.arrays import to_numpy
from dspk.dispatch import Call, Signal2D
from dspk.docstrings import shared
from dspk.operations import bucket
from dspk.plugin import Problem
from dspk.runtime import validate_name

__all__ = ["sosfilt", "sosfiltfilt", "lfilter", "filtfilt", "sosfilt_zi", "lfilter_zi"]

_PADTYPES = ("odd", "even", "constant", None)


def _state(zi: Any, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A filter state checked against ``shape`` (size-1 dimensions broadcast)."""
    zi = to_numpy(zi)
    if zi.shape == shape:
        return zi.astype(dtype)  # a copy: no kernel writes its inputs
    if zi.ndim != len(shape) or any(z not in (s, 1) for z, s in zip(zi.shape, shape)):
        raise ValueError(f"zi has shape {zi.shape}; this call needs {shape}")
    return np.broadcast_to(zi, shape).astype(dtype)


def _zi_to_kernel(zi: np.ndarray, axis: int) -> np.ndarray:
    """A state laid out as ``x`` (time axis at ``axis``) with the time axis moved last."""
    return zi if axis == zi.ndim - 1 else np.moveaxis(zi, axis, -1)


def filter_problem(op: str, view: Signal2D, size: int,
                   complex_coefficients: bool = False) -> Problem:
    """The kernel problem of the filter ``op`` on ``view``: its sections (``sosfilt``,
    ``sosfiltfilt``) or its order (``lfilter``, ``filtfilt``) ``size``, in the bucket of
    sizes that share a kernel and a tuning."""
    size_of = {"sections" if op.startswith("sos") else "order": bucket(size)}
    return view.problem(op, **size_of, **complex_signals.kind_of(complex_coefficients))


def _padlen(padtype: Any, padlen: Any, ntaps: int, samples: int) -> int:
    validation.choice(padtype, _PADTYPES, "padtype")
    if padtype is None:
        return 0
    padlen = 3 * ntaps if padlen is None else validation.integer(padlen, "padlen", minimum=0)
    if samples <= padlen:
        raise ValueError(f"padlen={padlen} must be less than the signal length along axis, "
                         f"which is {samples}")
    return padlen


@shared
def sosfilt(sos, x, axis=-1, zi=None, *, dtype=None, runtime=None):
    """Filter data along one dimension using cascaded second-order sections.

    As :func:`scipy.signal.sosfilt`, on a dspk runtime.

    Parameters
    ----------
    sos : array_like
        Array of second-order filter coefficients, shape ``(n_sections, 6)``,
        with ``sos[:, 3] == 1``.
    {filter_x}
    {filter_axis}
    zi : array_like, optional
        Initial conditions for the cascaded filter delays, shape
        ``(n_sections, ..., 2, ...)``: ``x``'s shape with ``x.shape[axis]``
        replaced by 2.
    {dtype}
    {runtime}

    Returns
    -------
    y : ndarray
        The filtered signal, of ``x``'s shape, in float32 for float32 input.
    zf : ndarray, optional
        Final filter delays, returned only when ``zi`` is given.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> sos = scipy.signal.butter(3, [300, 6000], "bandpass", fs=30000, output="sos")
    >>> x = np.random.default_rng(0).standard_normal((4, 3000)).astype(np.float32)
    >>> y = dspk.sosfilt(sos, x)
    >>> y.dtype, bool(np.allclose(y, scipy.signal.sosfilt(sos, x), atol=1e-5))
    (dtype('float32'), True)
    """
    plan_key = plans.key("sosfilt", x, axis, zi is None,
                         zi is not None and complex_signals.is_complex(zi), dtype, runtime, sos)
    plan = plans.find(plan_key)
    if plan is None:
        complex_sections = complex_signals.is_complex(sos)
        call, taken = Call.start(runtime, x, "x", "sosfilt", complex_sections)
        axis = validation.signal_axis(taken, axis)
        takes = call.backend.takes_complex("sosfilt")
        if complex_signals.involved(taken, zi) and not takes:
            return complex_signals.by_parts(
                lambda parts, state: sosfilt(sos, parts, axis + 1, state, dtype=dtype,
                                             runtime=runtime),
                taken, zi, state_axis=1, give_back=call.give_back_from)
        dtype = complex_signals.complex_if(validation.compute_dtype(
            taken, allow_complex=takes, requested=dtype),
            complex_sections or complex_signals.is_complex(zi))
        sos = validation.sos_array(sos, complex_values=complex_sections)
        validation.output_fits("sosfilt", taken, dtype)
        work = validation.working_dtype(dtype, sos[:, 3:])
        cast = taken.astype(work, copy=False)  # the cast below is then no copy
        problem = filter_problem("sosfilt", Signal2D.of(cast, axis), len(sos), complex_sections)
        plan = plans.keep(plan_key, plans.Plan(call, problem, (
            axis, dtype, work, call.native(sos.astype(work))),
            plans.as_is(call, x, taken, dtype, work)), taken is x)
        x = cast
    elif zi is None and plan.as_is:
        axis, _, _, sos = plan.settings
        return plan.run(sos, x, axis, None)[0]
    call = plan.call
    axis, dtype, work, sos = plan.settings
    view = Signal2D.of(x.astype(work, copy=False), axis)
    n_sections = len(sos)
    state = None
    if zi is not None:
        shape = (n_sections, *x.shape[:axis], 2, *x.shape[axis + 1:])
        state = _zi_to_kernel(_state(zi, shape, work), axis + 1)
        state = state.reshape(n_sections, view.channels, 2)  # in the layout zi came in
    y, zf = plan.run(sos, call.native(view.array), view.axis, call.native(state))
    y = call.give_back(view.restore(y).astype(dtype, copy=False))
    if zi is None:
        return y
    zf = zf.reshape(n_sections, *view.other_shape, 2).astype(dtype, copy=False)
    return y, call.give_back(_last_to(zf, axis + 1))


def _steady_state(form: str, work: np.dtype, *coefficients: np.ndarray) -> np.ndarray:
    """The step response's steady state (scipy's ``sosfilt_zi`` for ``form`` "sos",
    ``lfilter_zi`` for "ba") in ``work``, read-only, kept for the last filters seen.

    Examples
    --------
    >>> _steady_state("ba", np.dtype("float64"), np.array([1.0, 1.0]), np.array([1.0, -0.5]))
    array([3.])
    """
    return _steady_state_of(form, np.dtype(work),
                            *((c.tobytes(), c.dtype, c.shape) for c in coefficients))


@functools.lru_cache(maxsize=64)
def _steady_state_of(form: str, work: np.dtype, *coefficients: tuple) -> np.ndarray:
    arrays = [np.frombuffer(data, dtype).reshape(shape) for data, dtype, shape in coefficients]
    steady = (_scipy.sosfilt_zi if form == "sos" else _scipy.lfilter_zi)(*arrays)
    steady = steady.astype(work)
    steady.flags.writeable = False
    return steady


def _last_to(zf: np.ndarray, position: int) -> np.ndarray:
    """``zf`` with its last axis moved to ``position`` (the inverse of :func:`_zi_to_kernel`).

    Examples
    --------
    >>> _last_to(np.zeros((2, 3, 4)), 1).shape
    (2, 4, 3)
    """
    return zf if position == zf.ndim - 1 else np.moveaxis(zf, -1, position)


@shared
def lfilter(b, a, x, axis=-1, zi=None, *, dtype=None, runtime=None):
    """Filter data along one dimension with an IIR or FIR filter.

    As :func:`scipy.signal.lfilter`, on a dspk runtime.

    Parameters
    ----------
    b : array_like
        The numerator coefficient vector in a 1-D sequence.
    a : array_like
        The denominator coefficient vector in a 1-D sequence; ``a[0]`` must
        not be zero, and the coefficients are normalised by it.
    {filter_x}
    {filter_axis}
    zi : array_like, optional
        Initial conditions for the filter delays: ``x``'s shape with
        ``x.shape[axis]`` replaced by ``max(len(a), len(b)) - 1``.
    {dtype}
    {runtime}

    Returns
    -------
    y : array
        The output of the digital filter.
    zf : array, optional
        Final filter delay values, returned only when ``zi`` is given.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> b, a = scipy.signal.butter(4, 0.1)
    >>> x = np.random.default_rng(0).standard_normal(1000)
    >>> bool(np.allclose(dspk.lfilter(b, a, x), scipy.signal.lfilter(b, a, x)))
    True
    """
    plan_key = plans.key("lfilter", x, axis, zi is None,
                         zi is not None and complex_signals.is_complex(zi), dtype, runtime, b, a)
    plan = plans.find(plan_key)
    if plan is None:
        complex_a = complex_signals.has_complex_values(a)
        call, taken = Call.start(runtime, x, "x", "lfilter", complex_a)
        axis = validation.signal_axis(taken, axis)
        takes = call.backend.takes_complex("lfilter")
        if (complex_signals.is_complex(b) or complex_signals.is_complex(a)) and not complex_a:
            a = np.real(to_numpy(a))  # a complex numerator over a real a: by its parts
            return complex_signals.by_coefficient_parts(
                lambda part, state: lfilter(part, a, taken, axis, state, dtype=dtype,
                                            runtime=runtime), b, zi, call.give_back_from)
        if complex_signals.involved(taken, zi) and not takes:
            return complex_signals.by_parts(
                lambda parts, state: lfilter(b, a, parts, axis + 1, state, dtype=dtype,
                                             runtime=runtime),
                taken, zi, give_back=call.give_back_from)
        dtype = complex_signals.complex_if(validation.compute_dtype(
            taken, allow_complex=takes, requested=dtype),
            complex_a or complex_signals.is_complex(zi))
        b, a = validation.ba_arrays(b, a, complex_values=complex_a)
        validation.output_fits("lfilter", taken, dtype)
        work = validation.working_dtype(dtype, a[None, :])
        cast = taken.astype(work, copy=False)  # the cast below is then no copy
        problem = filter_problem("lfilter", Signal2D.of(cast, axis), len(a) - 1, complex_a)
        plan = plans.keep(plan_key, plans.Plan(call, problem, (
            axis, dtype, work, call.native(b.astype(work)), call.native(a.astype(work))),
            plans.as_is(call, x, taken, dtype, work)), taken is x)
        x = cast
    elif zi is None and plan.as_is:
        axis, _, _, b, a = plan.settings
        return plan.run(b, a, x, axis, None)[0]
    call = plan.call
    axis, dtype, work, b, a = plan.settings
    view = Signal2D.of(x.astype(work, copy=False), axis)
    order = len(a) - 1
    state = None
    if zi is not None:
        shape = (*x.shape[:axis], order, *x.shape[axis + 1:])
        state = _zi_to_kernel(_state(zi, shape, work), axis)
        state = state.reshape(view.channels, order)  # in the layout zi came in
    y, zf = plan.run(b, a, call.native(view.array), view.axis, call.native(state))
    y = call.give_back(view.restore(y).astype(dtype, copy=False))
    if zi is None:
        return y
    zf = zf.reshape(*view.other_shape, order).astype(dtype, copy=False)
    return y, call.give_back(_last_to(zf, axis))


@shared
def sosfiltfilt(sos, x, axis=-1, padtype="odd", padlen=None, *, dtype=None, runtime=None):
    """A forward-backward digital filter using cascaded second-order sections.

    As :func:`scipy.signal.sosfiltfilt`, on a dspk runtime: zero phase, with
    the ends padded and the filter state started at its steady state.

    Parameters
    ----------
    {sos}
    {filter_x}
    {filter_axis}
    {padtype}
    padlen : int or None, optional
        The number of samples to extend ``x`` by at both ends; the default is
        ``3 * (2 * len(sos) + 1 - min((sos[:, 2] == 0).sum(), (sos[:, 5] == 0).sum()))``.
    {dtype}
    {runtime}

    Returns
    -------
    y : ndarray
        The filtered output with the same shape as ``x``.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> sos = scipy.signal.butter(4, 0.125, output="sos")
    >>> x = np.random.default_rng(0).standard_normal((2, 500))
    >>> bool(np.allclose(dspk.sosfiltfilt(sos, x), scipy.signal.sosfiltfilt(sos, x)))
    True
    """
    complex_sections = complex_signals.is_complex(sos)  # else complex x is faster by parts
    call, x = Call.start(runtime, x, "x", "sosfiltfilt", complex_sections)
    axis = validation.signal_axis(x, axis)
    if complex_signals.involved(x) and not complex_sections:
        return complex_signals.by_parts(
            lambda parts, _: sosfiltfilt(sos, parts, axis + 1, padtype, padlen, dtype=dtype,
                                         runtime=runtime), x, give_back=call.give_back_from)
    dtype = complex_signals.complex_if(validation.compute_dtype(
        x, allow_complex=complex_sections, requested=dtype), complex_sections)
    sos = validation.sos_array(sos, complex_values=complex_sections)
    ntaps = 2 * len(sos) + 1 - min((sos[:, 2] == 0).sum(), (sos[:, 5] == 0).sum())
    padlen = _padlen(padtype, padlen, int(ntaps), x.shape[axis])
    validation.output_fits("sosfiltfilt", x, dtype)
    work = validation.working_dtype(dtype, sos[:, 3:])
    zi = _steady_state("sos", work, sos)
    view = Signal2D.of(x.astype(work, copy=False), axis)
    problem = filter_problem("sosfiltfilt", view, len(sos), complex_sections)
    y = call.run(problem, call.native(sos.astype(work)), call.native(view.array), view.axis,
                 padtype, padlen, call.native(zi))
    return call.give_back(view.restore(y).astype(dtype, copy=False))


@shared
def filtfilt(b, a, x, axis=-1, padtype="odd", padlen=None, method="pad", irlen=None, *,
             dtype=None, runtime=None):
    """Apply a digital filter forward and backward to a signal.

    As :func:`scipy.signal.filtfilt`, on a dspk runtime.

    Parameters
    ----------
    b : (N,) array_like
        The numerator coefficient vector of the filter.
    a : (N,) array_like
        The denominator coefficient vector of the filter.
    {filter_x}
    {filter_axis}
    {padtype}
    padlen : int or None, optional
        The number of samples to extend ``x`` by at both ends; the default is
        ``3 * max(len(a), len(b))``.
    method : str, optional
        ``"pad"`` pads the signal; ``"gust"`` uses Gustafsson's method [1]_,
        which chooses the initial states of both passes to match the reversed
        passes (its rows of work run on the runtime's ``lfilter``).
    irlen : int or None, optional
        With ``method="gust"``, the length of the impulse response used to
        correct the ends; None uses the whole signal.
    {dtype}
    {runtime}

    Returns
    -------
    y : ndarray
        The filtered output with the same shape as ``x``.

    References
    ----------
    .. [1] F. Gustafsson, "Determining the initial states in forward-backward
       filtering", IEEE Transactions on Signal Processing, vol. 44, no. 4,
       1996.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> b, a = scipy.signal.butter(3, 0.05)
    >>> x = np.random.default_rng(0).standard_normal(400)
    >>> bool(np.allclose(dspk.filtfilt(b, a, x), scipy.signal.filtfilt(b, a, x)))
    True
    """
    validation.choice(method, ("pad", "gust"), "method")
    if method == "gust":
        return _filtfilt_gust(b, a, x, axis, irlen, dtype, runtime)
    complex_ba = complex_signals.is_complex(b) or complex_signals.is_complex(a)
    call, x = Call.start(runtime, x, "x", "filtfilt", complex_ba)
    axis = validation.signal_axis(x, axis)
    if complex_signals.involved(x) and not complex_ba:  # faster by parts
        return complex_signals.by_parts(
            lambda parts, _: filtfilt(b, a, parts, axis + 1, padtype, padlen, dtype=dtype,
                                      runtime=runtime), x, give_back=call.give_back_from)
    dtype = complex_signals.complex_if(validation.compute_dtype(
        x, allow_complex=complex_ba, requested=dtype), complex_ba)
    b, a = validation.ba_arrays(b, a, complex_values=complex_ba)
    padlen = _padlen(padtype, padlen, len(a), x.shape[axis])
    validation.output_fits("filtfilt", x, dtype)
    work = validation.working_dtype(dtype, a[None, :])
    zi = _steady_state("ba", work, b, a)
    view = Signal2D.of(x.astype(work, copy=False), axis)
    problem = filter_problem("filtfilt", view, len(a) - 1, complex_ba)
    y = call.run(problem, call.native(b.astype(work)), call.native(a.astype(work)),
                 call.native(view.array), view.axis, padtype, padlen, call.native(zi))
    return call.give_back(view.restore(y).astype(dtype, copy=False))


def _state_responses(b: np.ndarray, a: np.ndarray, length: int) -> np.ndarray:
    """``O``: column j is the zero-input response to the unit initial state j."""
    order = len(a) - 1
    zeros = np.zeros(length)
    return np.stack([_scipy.lfilter(b, a, zeros, zi=np.eye(order)[j])[0]
                     for j in range(order)], axis=1)


def gust_matrices(o: Any, s: Any, ends: bool) -> tuple[Any, Any]:
    """Gustafsson's least-squares system and correction, time along their rows.

    ``o`` is the filter's response to each unit initial state (a column each),
    ``s`` the filter run over ``o`` reversed in time. The columns of both
    results act on the initial states ``(u, v)`` (see :func:`_filtfilt_gust`):
    ``system`` maps them to ``y_bf - y_fb``, ``correct`` to what they add to
    ``y_fb``. With ``ends``, the rows are the first and last ``len(o)``
    samples of a longer signal (block diagonal). NumPy or Dask arrays.
    """
    join = linalg.block_diag if ends else (lambda *blocks: np.hstack(blocks))
    return join(s[::-1] - o, o[::-1] - s), join(s[::-1], o[::-1])


def gust_system(b: np.ndarray, a: np.ndarray, length: int,
                ends: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`gust_matrices` of the filter ``(b, a)`` over ``length`` samples, on the host."""
    o = _state_responses(b, a, length)
    return gust_matrices(o, _scipy.lfilter(b, a, o[::-1], axis=0), ends)


def _filtfilt_gust(b, a, x, axis, irlen, dtype, runtime):
    """Zero-phase filtering with Gustafsson's (1996) initial states.

    With ``H`` the causal filter, ``R`` time reversal and ``O`` the filter's
    response to each unit initial state, filtering forward then backward
    from initial states ``u`` (forward) and ``v`` (backward) gives
    ``y_fb = RHRH x + (RHRO) u + (RO) v``, and backward then forward
    ``y_bf = HRHR x + O u + (HRO) v``; ``u`` and ``v`` make the two agree in
    the least-squares sense, which removes the start-up transients at both
    ends. With ``irlen`` only that many samples at each end are corrected.
    The four long passes run on the runtime's ``lfilter`` kernel, the signal
    staying on the device between them; the differences of the two orders
    (at the ends only, with ``irlen``) and the small least-squares problem go
    to the host, where the ends are corrected.
    """
    call, x = Call.start(runtime, x, "x", "filtfilt(method='gust')")
    axis = validation.signal_axis(x, axis)
    if complex_signals.involved(x):
        return complex_signals.by_parts(
            lambda parts, _: _filtfilt_gust(b, a, parts, axis + 1, irlen, dtype, runtime), x,
            give_back=call.give_back_from)
    dtype = validation.compute_dtype(x, requested=dtype)
    b, a = validation.ba_arrays(b, a)
    if irlen is not None:
        irlen = validation.integer(irlen, "irlen", minimum=1)
    validation.output_fits("filtfilt", x, dtype)
    order = len(a) - 1
    if order == 0:
        host = call.backend.to_numpy(x) if call.native_in else x
        y = host.astype(dtype) * dtype.type(b[0] ** 2)
        return call.give_back(call.native(y) if call.native_in else y)
    work = validation.working_dtype(dtype, a[None, :])
    view = Signal2D.of(x.astype(work, copy=False), axis)
    problem = filter_problem("lfilter", view, order)
    coefficients = call.native(b.astype(work)), call.native(a.astype(work))

    def along(part: slice) -> tuple[slice, ...]:  # index of samples ``part`` of the 2-D view
        return (slice(None), part) if view.axis else (part,)

    def forward(v):  # H v, on the runtime
        return call.run(problem, *coefficients, v, view.axis, None)[0]

    def backward(v):  # R H R v
        reverse = along(slice(None, None, -1))
        return forward(v[reverse].copy())[reverse].copy()

    def host(v, part=slice(None)):  # samples ``part`` of ``v`` on the host, time last
        v = v[along(part)]
        v = call.backend.to_numpy(v) if call.backend.is_native(v) else np.asarray(v)
        return (v.T if view.axis == 0 else v).astype(np.float64)

    signal = call.native(view.array)
    y_fb = backward(forward(signal))
    y_bf = forward(backward(signal))
    n = view.samples
    m = n if irlen is None or n <= 2 * irlen else irlen
    system, correct = gust_system(b, a, m, ends=m < n)
    y = host(y_fb)
    if m == n:
        y += linalg.lstsq(system, (host(y_bf) - y).T)[0].T @ correct.T
    else:
        head, tail = slice(0, m), slice(n - m, n)
        delta = np.hstack([host(y_bf, head) - y[:, head], host(y_bf, tail) - y[:, tail]])
        adjust = linalg.lstsq(system, delta.T)[0].T @ correct.T
        y[:, head] += adjust[:, :m]
        y[:, tail] += adjust[:, m:]
    y = view.restore(np.ascontiguousarray(y.T if view.axis == 0 else y).astype(dtype))
    return call.give_back(call.native(y) if call.native_in else y)


def _coefficient_dtype(*arrays: np.ndarray) -> np.dtype:
    single = all(v.dtype in (np.float32, np.complex64) for v in arrays)
    return np.dtype("float32") if single else np.dtype("float64")


@shared
def sosfilt_zi(sos, *, runtime=None):
    """Construct initial conditions for sosfilt for step response steady-state.

    As :func:`scipy.signal.sosfilt_zi`; float32 sections give float32 state.
    This is filter design on the host: ``runtime`` is accepted for
    uniformity and only checked.

    Parameters
    ----------
    {sos}
    {runtime_checked}

    Returns
    -------
    zi : ndarray
        Initial conditions, shape ``(n_sections, 2)``.

    Examples
    --------
    >>> import scipy.signal, dspk
    >>> dspk.sosfilt_zi(scipy.signal.butter(4, 0.2, output="sos")).shape
    (2, 2)
    """
    if runtime is not None:
        validate_name(runtime)
    sos = validation.sos_array(sos)
    return _scipy.sosfilt_zi(sos).astype(_coefficient_dtype(sos))


@shared
def lfilter_zi(b, a, *, runtime=None):
    """Construct initial conditions for lfilter for step response steady-state.

    As :func:`scipy.signal.lfilter_zi`; float32 coefficients give float32
    state. This is filter design on the host: ``runtime`` is accepted for
    uniformity and only checked.

    Parameters
    ----------
    b, a : array_like (1-D)
        The IIR filter coefficients.
    {runtime_checked}

    Returns
    -------
    zi : 1-D ndarray
        The initial state, of length ``max(len(a), len(b)) - 1``.

    Examples
    --------
    >>> import dspk
    >>> dspk.lfilter_zi([1.0, 1.0], [1.0, -0.5])
    array([3.])
    """
    if runtime is not None:
        validate_name(runtime)
    b_in, a_in = np.atleast_1d(to_numpy(b)), np.atleast_1d(to_numpy(a))
    complex_values = complex_signals.is_complex(b_in) or complex_signals.is_complex(a_in)
    b, a = validation.ba_arrays(b_in, a_in, complex_values=complex_values)
    return _scipy.lfilter_zi(b, a).astype(
        complex_signals.complex_if(_coefficient_dtype(b_in, a_in), complex_values))

