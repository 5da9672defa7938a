"""Convolution and correlation with scipy.signal's names, parameters and results.

Every form reduces to one kernel operation, ``convolve``: the full 1-D
convolution of each channel with a row of taps. Two-dimensional convolution
sums such 1-D convolutions, one per row of ``in2`` along its shorter axis.

Differences from scipy.signal, all deliberate:

- The convolution runs along one or two axes: arrays of more dimensions convolve
  along ``axes`` (fftconvolve, oaconvolve) of at most two, the others are batches
  (broadcast, as scipy does), one call per batch; ``convolve`` and ``correlate`` of
  arrays of three or more dimensions raise ValueError.
- Complex arrays are convolved from the real convolutions of their parts.
- If either input is float32 the result is float32; scipy would promote a
  float32 signal convolved with float64 taps to float64.
- Empty inputs raise ValueError; scipy returns an empty array.
- ``method`` selects among the runtime's kernels: ``"direct"`` and ``"fft"``
  restrict the tuner to direct or FFT kernels, ``"auto"`` lets it choose.
  Integer inputs to ``convolve``/``correlate`` give integer results, rounded
  from a float64 computation, as scipy's FFT path does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dspk import complex_signals, validation
from dspk.dispatch import Call, Signal2D
from dspk.docstrings import shared
from dspk.operations import bucket

__all__ = ["convolve", "correlate", "fftconvolve", "oaconvolve"]

_MODES = ("full", "valid", "same")
_METHODS = ("auto", "direct", "fft")


def _dtypes(in1: Any, in2: Any) -> tuple[np.dtype, np.dtype]:
    """The computation dtype and, for integer inputs, scipy's integer result dtype."""
    for name, v in (("in1", in1), ("in2", in2)):
        if v.dtype.kind not in "biuf":
            raise TypeError(f"{name} has dtype {v.dtype}, which is not a real number type")
    if np.float32 in (in1.dtype, in2.dtype):
        return np.dtype("float32"), np.dtype("float32")
    result = np.result_type(in1.dtype, in2.dtype)
    return np.dtype("float64"), result


def _axes(axes: Any, ndim: int) -> list[int]:
    if axes is None:
        return list(range(ndim))
    listed = [axes] if np.ndim(axes) == 0 else list(axes)
    checked = [validation.check_axis(a, ndim, "axes") for a in listed]
    if len(set(checked)) != len(checked):
        raise ValueError(f"axes={axes!r} names an axis twice")
    return sorted(checked)


def _prepare(in1, in2, mode, axes, runtime, function):
    call, in1 = Call.start(runtime, in1, "in1", function)
    in2 = call.take(in2, "in2")
    validation.choice(mode, _MODES, "mode")
    if in1.ndim != in2.ndim:
        raise ValueError(f"in1 and in2 must have the same number of dimensions; "
                         f"got {in1.ndim} and {in2.ndim}")
    if in1.ndim == 0:
        raise ValueError("in1 and in2 must have at least one dimension; got scalars")
    for name, v in (("in1", in1), ("in2", in2)):
        if v.size == 0:
            raise ValueError(f"{name} is empty (shape {tuple(v.shape)})")
    axes = _axes(axes, in1.ndim)
    if len(axes) > 2:
        raise ValueError(f"dspk convolves along one or two axes (the others are batches); "
                         f"got {len(axes)} axes of arrays of {in1.ndim} dimensions")
    for i in set(range(in1.ndim)) - set(axes):
        if in1.shape[i] != in2.shape[i] and 1 not in (in1.shape[i], in2.shape[i]):
            raise ValueError(f"in1 and in2 have incompatible shapes {in1.shape} and "
                             f"{in2.shape} along axis {i}, which is not convolved")
    if in1.ndim > 2:  # batches: each swaps, as one array of fewer dimensions would
        return call, in1, in2, axes, False
    swapped = mode == "valid" and not all(in1.shape[i] >= in2.shape[i] for i in axes)
    if swapped:
        if not all(in2.shape[i] >= in1.shape[i] for i in axes):
            raise ValueError("for mode='valid', one input must be at least as large as "
                             "the other along every convolved axis; got shapes "
                             f"{in1.shape} and {in2.shape}")
        in1, in2 = in2, in1
    return call, in1, in2, axes, swapped


def _full_1d(call: Call, x, h, axis: int, method: str):
    """Full convolution along ``axis`` of 2-D ``x`` with taps ``h`` laid out like ``x``."""
    other = 1 - axis
    rows = h.shape[other]
    if x.shape[other] == 1 and rows > 1:
        x = x.repeat(rows, axis=other)
    taps = h if axis == 1 else h.T
    problem = Signal2D.of(x, axis).problem("convolve", taps=bucket(taps.shape[1]),
                                           per_channel=rows > 1, method=method)
    return call.run(problem, call.native(x), call.native(taps), axis)


def _full(call: Call, x, h, axes: list[int], method: str):
    if x.ndim == 1:
        return _full_1d(call, x.reshape(1, -1), h.reshape(1, -1), 1, method).reshape(-1)
    if len(axes) == 1:
        return _full_1d(call, x, h, axes[0], method)
    axis = 1 if h.shape[0] <= h.shape[1] else 0  # the fewest kernel calls
    other = 1 - axis
    pieces = [_full_1d(call, x, h[m:m + 1] if other == 0 else h[:, m:m + 1], axis, method)
              for m in range(h.shape[other])]
    shape = list(pieces[0].shape)
    shape[other] = x.shape[other] + h.shape[other] - 1
    # The shifted pieces are summed on the host: kernels give no array arithmetic.
    out = np.zeros(shape, dtype=x.dtype)
    for m, piece in enumerate(pieces):
        index = [slice(None), slice(None)]
        index[other] = slice(m, m + x.shape[other])
        out[tuple(index)] += call.backend.to_numpy(piece)
    return call.native(out)


def _crop(full, in1_shape, in2_shape, axes, mode):
    """scipy's output size: 'same' centres every axis on ``in1`` (broadcast axes too)."""
    if mode == "full":
        return full
    index = []
    for i, size in enumerate(full.shape):
        if mode == "same":
            keep = in1_shape[i]
        elif i in axes:
            keep = in1_shape[i] - in2_shape[i] + 1
        else:
            keep = size
        start = (size - keep) // 2
        index.append(slice(start, start + keep))
    return full[tuple(index)]


def _over_batches(convolve: Any, in1: Any, in2: Any, axes: list[int], mode: str) -> Any:
    """``convolve`` (of arrays of the convolved ``axes`` only) of each pair of slices of
    ``in1`` and ``in2`` along their other axes, broadcast as scipy broadcasts them; with
    ``mode="same"`` cropped to ``in1``'s size along those axes too, centred, as scipy does."""
    batch = [i for i in range(in1.ndim) if i not in axes]
    shape = np.broadcast_shapes(*(tuple(v.shape[i] for i in batch) for v in (in1, in2)))
    first = list(range(len(batch)))
    a, b = (np.moveaxis(v, batch, first) for v in (in1, in2))
    a = np.broadcast_to(a, shape + a.shape[len(batch):])
    b = np.broadcast_to(b, shape + b.shape[len(batch):])
    out = np.stack([convolve(a[index], b[index]) for index in np.ndindex(shape)])
    out = out.reshape(shape + out.shape[1:])
    if mode == "same":
        out = out[tuple(slice((n - in1.shape[i]) // 2, (n - in1.shape[i]) // 2 + in1.shape[i])
                        for n, i in zip(shape, batch))]
    return np.moveaxis(out, first, batch)


def _convolve(function, in1, in2, mode, axes, method, runtime, integer_result, reverse=False):
    if complex_signals.is_complex(in1) or complex_signals.is_complex(in2):
        call, _ = Call.start(runtime, in1, "in1", function)
        return call.give_back_from(complex_signals.products(
            lambda x, h: _convolve(function, x, h, mode, axes, method, runtime, integer_result,
                                   reverse), in1, in2, conjugate=reverse))
    call, in1, in2, axes, swapped = _prepare(in1, in2, mode, axes, runtime, function)
    if in1.ndim > 2:
        return call.give_back_from(_over_batches(
            lambda x, h: _convolve(function, x, h, mode, None, method, runtime, integer_result,
                                   reverse), in1, in2, axes, mode))
    dtype, result = _dtypes(in1, in2)
    full = tuple(s1 + s2 - 1 if i in axes else max(s1, s2)
                 for i, (s1, s2) in enumerate(zip(in1.shape, in2.shape)))
    validation.output_fits(function, in1, dtype, full)
    x = in1.astype(dtype, copy=False)
    h = in2.astype(dtype, copy=False)
    if reverse:
        h = h[(slice(None, None, -1),) * h.ndim]
    out = _crop(_full(call, call.native(x), h, axes, method), in1.shape, in2.shape, axes, mode)
    if reverse and swapped:  # correlation is not symmetric: undo the swap
        out = out[(slice(None, None, -1),) * out.ndim]
    if integer_result and result.kind in "biu":
        out = out.round().astype(result)
    return call.give_back(out)


@shared
def convolve(in1, in2, mode="full", method="auto", *, runtime=None):
    """Convolve two N-dimensional arrays.

    As :func:`scipy.signal.convolve`, for arrays of one or two dimensions, real or complex.

    Parameters
    ----------
    {convolve_inputs}
    {convolve_method}
    {runtime}

    Returns
    -------
    convolve : array
        The discrete linear convolution of ``in1`` with ``in2``.

    Examples
    --------
    >>> import numpy as np, dspk
    >>> y = dspk.convolve(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]))
    >>> y.round(12) + 0.0
    array([0. , 1. , 2.5, 4. , 1.5])
    """
    validation.choice(method, _METHODS, "method")
    return _convolve("convolve", in1, in2, mode, None, method, runtime, integer_result=True)


@shared
def correlate(in1, in2, mode="full", method="auto", *, runtime=None):
    """Cross-correlate two N-dimensional arrays.

    As :func:`scipy.signal.correlate`, for arrays of one or two dimensions, real or complex.

    Parameters
    ----------
    {convolve_inputs}
    {convolve_method}
    {runtime}

    Returns
    -------
    correlate : array
        The cross-correlation of ``in1`` with ``in2``.

    Examples
    --------
    >>> import numpy as np, dspk
    >>> y = dspk.correlate(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]))
    >>> y.round(12) + 0.0
    array([0.5, 2. , 3.5, 3. , 0. ])
    """
    validation.choice(method, _METHODS, "method")
    return _convolve("correlate", in1, in2, mode, None, method, runtime, integer_result=True,
                     reverse=True)


@shared
def fftconvolve(in1, in2, mode="full", axes=None, *, runtime=None):
    """Convolve two N-dimensional arrays using FFT.

    As :func:`scipy.signal.fftconvolve`, along one or two axes (the others batches):
    the runtime's FFT kernels only.

    Parameters
    ----------
    {convolve_inputs}
    {convolve_axes}
    {runtime}

    Returns
    -------
    out : array
        The discrete linear convolution of ``in1`` with ``in2``.

    Examples
    --------
    >>> import numpy as np, dspk
    >>> x = np.random.default_rng(0).standard_normal((3, 100))
    >>> h = np.hanning(9)[None, :]
    >>> dspk.fftconvolve(x, h, mode="same", axes=1).shape
    (3, 100)
    """
    return _convolve("fftconvolve", in1, in2, mode, axes, "fft", runtime, integer_result=False)


@shared
def oaconvolve(in1, in2, mode="full", axes=None, *, runtime=None):
    """Convolve two N-dimensional arrays using the overlap-add method.

    As :func:`scipy.signal.oaconvolve`, along one or two axes (the others batches):
    the runtime's FFT kernels only, which split long signals into overlapping
    blocks as the tuner sees fit.

    Parameters
    ----------
    {convolve_inputs}
    {convolve_axes}
    {runtime}

    Returns
    -------
    out : array
        The discrete linear convolution of ``in1`` with ``in2``.

    Examples
    --------
    >>> import numpy as np, dspk
    >>> x = np.random.default_rng(0).standard_normal((2, 4000)).astype(np.float32)
    >>> dspk.oaconvolve(x, np.ones((1, 65)) / 65, axes=-1).dtype
    dtype('float32')
    """
    return _convolve("oaconvolve", in1, in2, mode, axes, "fft", runtime, integer_result=False)
