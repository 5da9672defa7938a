"""Complex signals through the real kernels.

A filter with real coefficients is linear and maps real signals to real ones,
so its output for a complex signal ``x = u + iv`` (and a complex initial state
``zi = p + iq``) is its output for ``u`` (from ``p``) plus ``i`` times its output
for ``v`` (from ``q``). :func:`by_parts` stacks the two parts as one real signal
with twice the channels, runs the operation once on every runtime's real
kernels, and joins the halves of the result: complex64 in, complex64 out, as
float32 in gives float32 out. :func:`part_by_part` runs the parts one after
the other (for operations with an affine term), :func:`products` a bilinear
operation (a convolution) of two arrays from the products of their parts.

An operation linear in its coefficients (an FIR filter's taps ``h``, the
numerator ``b`` of a transfer function whose denominator is real) takes complex
coefficients the same way: :func:`by_coefficient_parts` runs it with their real
and with their imaginary parts. Dividing by a complex denominator mixes the
parts: such a call runs only on a runtime whose kernels take complex data
(``Backend.takes_complex``; the default order passes over the others), with a
variant that supports complex coefficients (the problem's parameter of
:func:`kind_of`).

Examples
--------
>>> import numpy as np, scipy.signal, dspk
>>> sos = scipy.signal.butter(4, 0.2, output="sos")
>>> x = np.exp(2j * np.pi * 0.01 * np.arange(200)).astype(np.complex64)
>>> y = dspk.sosfilt(sos, x)
>>> y.dtype, bool(np.allclose(y, scipy.signal.sosfilt(sos, x), atol=1e-5))
(dtype('complex64'), True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dspk.arrays import to_numpy


def involved(x: Any, *states: Any) -> bool:
    """Whether the signal ``x`` (an array) or any of ``states`` (array_like or None) is
    complex.

    Examples
    --------
    >>> involved(np.zeros(3), None), involved(np.zeros(3), [1j])
    (False, True)
    """
    return any(v is not None and is_complex(v) for v in (x, *states))


def is_complex(array: Any) -> bool:
    """Whether ``array`` (any array, tensor or array_like) holds complex numbers, read from
    its dtype without converting it.

    Examples
    --------
    >>> is_complex(np.zeros(2, np.complex64)), is_complex([1.0, 2.0])
    (True, False)
    """
    dtype = getattr(array, "dtype", None)
    if dtype is None:
        return bool(np.iscomplexobj(array))
    kind = getattr(dtype, "kind", None)  # NumPy's, CuPy's, JAX's; torch's dtypes say is_complex
    return kind == "c" if kind is not None else bool(getattr(dtype, "is_complex", False))


def products(function: Callable[[Any, Any], Any], in1: Any, in2: Any,
             conjugate: bool = False) -> Any:
    """``function`` (bilinear, real for real inputs: a convolution) of complex ``in1`` and
    ``in2`` from the real ``function`` of their parts: ``(a + ib) * (c + id)`` is
    ``a*c - b*d + i(a*d + b*c)``; with ``conjugate``, of ``in1`` and ``in2``'s conjugate
    (a correlation). The parts a real input lacks are not computed.

    Examples
    --------
    >>> products(np.multiply, np.array([1 + 2j]), np.array([3 - 1j]))
    array([5.+5.j])
    """
    a, b = _parts(in1)
    c, d = _parts(in2)
    if conjugate and d is not None:
        d = -d
    real = function(a, c)
    if b is not None and d is not None:
        real = real - function(b, d)
    imaginary = [function(u, v) for u, v in ((a, d), (b, c)) if u is not None and v is not None]
    return real + 1j * (imaginary[0] if len(imaginary) == 1 else imaginary[0] + imaginary[1])


def has_complex_values(coefficients: Any) -> bool:
    """Whether ``coefficients`` (array_like) hold a number with a nonzero imaginary part.

    Examples
    --------
    >>> has_complex_values([1.0, 0.5 + 0j]), has_complex_values(np.array([1.0, 0.5j]))
    (False, True)
    """
    return is_complex(coefficients) and bool(np.any(to_numpy(coefficients).imag != 0))


def complex_if(dtype: np.dtype, complex_result: bool) -> np.dtype:
    """``dtype`` (a signal's computation dtype), made complex of its precision where
    ``complex_result`` (complex coefficients or states).

    Examples
    --------
    >>> complex_if(np.dtype("float32"), True)
    dtype('complex64')
    """
    return np.result_type(dtype, np.complex64) if complex_result else dtype


def kind_of(complex_coefficients: bool) -> dict[str, str]:
    """The kernel problem's parameter that marks complex coefficients (none for real ones,
    whose problems stay as they were): a runtime's variants that take complex signals
    but filter with real coefficients say so by it (``Variant.supports``)."""
    return {"coefficients": "complex"} if complex_coefficients else {}


def by_coefficient_parts(function: Callable[[Any, Any], Any], coefficients: Any,
                         zi: Any = None, give_back: Callable[[Any], Any] = lambda y: y) -> Any:
    """``function(part, state)``, linear in its coefficients ``part`` and in its initial
    state, for complex ``coefficients``: its result for their real parts (from ``zi``)
    plus ``i`` times its result for their imaginary parts (from a zero state), through
    ``give_back``; the pair ``(y, zf)`` joined the same way where ``zi`` is given.

    Examples
    --------
    >>> by_coefficient_parts(lambda h, _: np.convolve(h, [1.0, 2.0]), np.array([1j, 1.0]))
    array([0.+1.j, 1.+2.j, 2.+0.j])
    """
    values = to_numpy(coefficients)
    if zi is None:
        return give_back(_plus_i(function(values.real, None), function(values.imag, None)))
    (y, zf), (y_imaginary, zf_imaginary) = (function(values.real, zi),
                                            function(values.imag, np.zeros(np.shape(zi))))
    return give_back(_plus_i(y, y_imaginary)), give_back(_plus_i(zf, zf_imaginary))


def _plus_i(real: Any, imaginary: Any) -> Any:
    """``real + 1j * imaginary`` for two results of a public function (any kind of array;
    a runtime's array without arithmetic on the host, for the caller to give back)."""
    real, imaginary = readable(real), readable(imaginary)
    return real + 1j * imaginary


def _parts(array: Any) -> tuple[Any, Any]:
    """The real and imaginary parts of ``array``; None for the imaginary part of a real one."""
    array = readable(array)
    return (array.real, array.imag) if is_complex(array) else (array, None)


def by_parts(function: Callable[[Any, Any], Any], x: Any, zi: Any = None,
             state_axis: int = 0, give_back: Callable[[Any], Any] = lambda y: y) -> Any:
    """``function(parts, state_parts)`` on the real and imaginary parts of ``x``, stacked
    along a new first axis, and of ``zi`` (None or not), stacked along ``state_axis``;
    the complex result, or ``(y, zf)`` where ``zi`` is given, each through ``give_back``.

    The caller's time axis, counted from the front, moves up by one in ``parts``.

    Examples
    --------
    >>> by_parts(lambda parts, _: 2 * parts, np.array([1 + 2j, 3j]))
    array([2.+4.j, 0.+6.j])
    """
    state = None if zi is None else _stacked(zi, state_axis)
    result = function(_stacked(x, 0), state)
    if zi is None:
        return give_back(_joined(result, 0))
    y, zf = result
    return give_back(_joined(y, 0)), give_back(_joined(zf, state_axis))


def part_by_part(function: Callable[[Any, bool], Any], x: Any) -> Any:
    """``function(x.real, True) + 1j * function(x.imag, False)``: for operations that are
    affine rather than linear (a constant extension ``cval`` belongs to the real part),
    or whose arguments forbid stacking the parts.

    Examples
    --------
    >>> part_by_part(lambda v, real: v + (1.0 if real else 0.0), np.array([1 + 2j]))
    array([2.+2.j])
    """
    x = readable(x)
    return function(x.real, True) + 1j * function(x.imag, False)


def _stacked(array: Any, axis: int) -> Any:
    """The real and imaginary parts of ``array`` (NumPy, CuPy or array_like) stacked along
    a new ``axis``, in the real precision."""
    array = readable(array)
    return np.stack([array.real, array.imag], axis=axis)


def readable(array: Any) -> Any:
    """``array`` as one whose parts can be read: NumPy for a sequence, and a host copy of
    a runtime's array that has no ``real`` (a wgpu array; the caller gives the result
    back as its kind)."""
    if isinstance(array, (list, tuple)) or not hasattr(array, "real"):
        return to_numpy(array)
    return array


def _joined(parts: Any, axis: int) -> Any:
    """The complex array whose real and imaginary parts are ``parts`` along ``axis``
    (written into one new array: no temporaries)."""
    before = (slice(None),) * axis
    real, imaginary = parts[before + (0,)], parts[before + (1,)]
    joined = np.empty_like(real, dtype=np.result_type(real.dtype, np.complex64))
    joined.real, joined.imag = real, imaginary
    return joined
