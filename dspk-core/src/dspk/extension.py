"""The samples beyond both ends of a signal, as scipy.signal.upfirdn's ``mode`` defines them.

A filter that reaches past the ends of a signal reads these samples. Every
extended sample is a linear combination ``s * x[i] + a * x[0] + c * x[n - 1]``
of the signal's own samples, so the core builds the few samples a kernel
needs with one gather and two broadcasts, on any runtime's arrays, and the
kernels never learn the modes. The right end is the left end of the reversed
signal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

MODES = ("constant", "wrap", "edge", "smooth", "symmetric", "reflect", "antisymmetric",
         "antireflect", "line")

#: Modes defined only for signals of at least two samples.
NEEDS_TWO_SAMPLES = ("smooth", "reflect", "antireflect", "line")


def _rule(mode: str, n: int, size: int) -> tuple[np.ndarray, ...]:
    """``(i, s, a, c)`` for the ``size`` samples left of ``x[0]``, nearest first.

    Examples
    --------
    >>> [v.tolist() for v in _rule("symmetric", 3, 4)]
    [[0, 1, 2, 2], [1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
    """
    p = np.arange(size)
    zero, one = np.zeros(size), np.ones(size)
    if mode == "edge":
        return np.zeros(size, int), one, zero, zero
    if mode == "wrap":
        return n - 1 - p % n, one, zero, zero
    if mode in ("symmetric", "antisymmetric"):
        q = p % (2 * n)
        index = np.where(q < n, q, 2 * n - 1 - q)
        return index, (np.where(q < n, -1.0, 1.0) if mode == "antisymmetric" else one), zero, zero
    if mode in ("reflect", "antireflect"):
        q = p % (2 * (n - 1))
        inner = q < n - 1
        index = np.where(inner, q + 1, 2 * n - 3 - q)
        if mode == "reflect":
            return index, one, zero, zero
        m = p // (n - 1)  # how many whole signal rises the extension has fallen
        return index, np.where(inner, -1.0, 1.0), np.where(inner, 2.0 + m, 1.0 + m), \
            np.where(inner, -m, -1.0 - m)
    if mode == "smooth":
        return np.ones(size, int), -(p + 1.0), p + 2.0, zero
    if mode == "line":
        step = (p + 1.0) / (n - 1)
        return np.full(size, n - 1), -step, 1.0 + step, zero
    raise ValueError(f"mode={mode!r} is not one of {', '.join(map(repr, MODES))}")


def _combine(x: Any, axis: int, rule: tuple[np.ndarray, ...], first: int, last: int,
             native: Callable[[np.ndarray], Any]) -> Any:
    index, scale, a, c = rule
    shape = [1, 1]
    shape[axis] = len(index)

    def along(values: np.ndarray) -> Any:
        return native(values.astype(x.dtype).reshape(shape))

    out = x.take(native(index), axis=axis) * along(scale)
    for weights, at in ((a, first), (c, last)):
        if np.any(weights):
            out = out + x.take(native(np.array([at])), axis=axis) * along(weights)
    return out


def _edges_on_host(x: Any, axis: int,
                   size: int) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """The samples an extension of ``size`` can read, on the host, and the map from a
    sample's index in ``x`` to its index there.

    Every rule reads samples within ``size`` of an end, so device arrays without
    gathers (such as the wgpu runtime's) send only their two edges to the host.
    """
    n = x.shape[axis]
    keep = size + 1
    if isinstance(x, np.ndarray) or 2 * keep >= n:
        return np.asarray(x), lambda index: index

    def part(start: int, stop: int) -> np.ndarray:
        return np.asarray(x[(slice(None), slice(start, stop)) if axis == 1
                            else (slice(start, stop), slice(None))])

    edges = np.concatenate([part(0, keep), part(n - keep, n)], axis=axis)
    return edges, lambda index: np.where(index < keep, index, index - (n - 2 * keep))


def extend(x: Any, axis: int, mode: str, cval: float, size: int,
           native: Callable[[np.ndarray], Any]) -> tuple[Any, Any]:
    """The ``size`` samples before and after a 2-D signal along ``axis``.

    Parameters
    ----------
    x : array
        2-D signal, time along ``axis`` (0 or 1), of at least two samples for
        the modes in :data:`NEEDS_TWO_SAMPLES`.
    axis : int
        The time axis.
    mode : str
        One of :data:`MODES`.
    cval : float
        The value of ``"constant"`` extension.
    size : int
        Samples wanted at each end.
    native : callable
        Turns a NumPy array into the runtime's native array.

    Returns
    -------
    left, right : array or None
        Laid out like ``x`` with ``size`` samples along ``axis``: ``left``
        ends just before ``x[0]``, ``right`` starts just after ``x[n - 1]``.
        Both are None when they would be zeros.

    Examples
    --------
    >>> x = np.array([[1.0, 2.0, 4.0]])
    >>> extend(x, 1, "reflect", 0.0, 2, np.asarray)
    (array([[4., 2.]]), array([[2., 1.]]))
    >>> extend(x, 1, "line", 0.0, 2, np.asarray)
    (array([[-2. , -0.5]]), array([[5.5, 7. ]]))
    """
    if size == 0 or (mode == "constant" and cval == 0):
        return None, None
    if mode == "constant":
        shape = list(x.shape)
        shape[axis] = size
        fill = native(np.full(shape, cval, dtype=x.dtype))
        return fill, fill
    n = x.shape[axis]
    index, scale, a, c = _rule(mode, n, size)
    left_rule = (index[::-1], scale[::-1], a[::-1], c[::-1])
    right_rule = (n - 1 - index, scale, c, a)
    if hasattr(x, "take") and not isinstance(x, np.ndarray):  # on the device
        return (_combine(x, axis, left_rule, 0, n - 1, native),
                _combine(x, axis, right_rule, 0, n - 1, native))
    edges, position = _edges_on_host(x, axis, size)
    last = int(position(np.array(n - 1)))
    return tuple(native(_combine(edges, axis, (position(rule[0]), *rule[1:]), 0, last, np.asarray))
                 for rule in (left_rule, right_rule))
