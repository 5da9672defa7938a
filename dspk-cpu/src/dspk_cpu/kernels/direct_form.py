"""lfilter on the calling thread, one channel after another: transposed direct form II
with up to :data:`MAX_ORDER` delays held in registers, in scipy's order of operations
(its results, bit for bit, for real signals).

For small problems (a channel of a thousand samples, a few channels of a few hundred)
the parallel block kernels of :mod:`.iir` cost more in starting their threads than
they save, and scipy's compiled filter spends more in its argument handling than in
filtering. Here the work is one compiled loop per channel; the Python around it finds
the compiled kernel by the few things its specialisation depends on, not by every
argument's type.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dspk_cpu import compiling

MAX_ORDER = 8
"""The highest order filtered here: the delays are eight named registers."""


@njit(inline="always")
def _at(v, k):
    """``v[k]``, or zero past its end."""
    return v[k] if k < v.shape[0] else v.dtype.type(0)


@compiling.cached_jit(nogil=True)
def _filter(b, a, x, y, zi, zf):
    """``y[c] = lfilter(b, a, x[c])`` from delays ``zi[c]``, the final ones to ``zf[c]``
    (``zf`` may be ``zi``); ``b`` and ``a`` of one length, at most ``MAX_ORDER + 1``."""
    b0, b1, b2, b3, b4 = _at(b, 0), _at(b, 1), _at(b, 2), _at(b, 3), _at(b, 4)
    b5, b6, b7, b8 = _at(b, 5), _at(b, 6), _at(b, 7), _at(b, 8)
    a1, a2, a3, a4 = _at(a, 1), _at(a, 2), _at(a, 3), _at(a, 4)
    a5, a6, a7, a8 = _at(a, 5), _at(a, 6), _at(a, 7), _at(a, 8)
    order = a.shape[0] - 1
    for c in range(x.shape[0]):
        state = zi[c]
        z0, z1, z2, z3 = _at(state, 0), _at(state, 1), _at(state, 2), _at(state, 3)
        z4, z5, z6, z7 = _at(state, 4), _at(state, 5), _at(state, 6), _at(state, 7)
        for t in range(x.shape[1]):
            xt = x[c, t]
            yt = b0 * xt + z0
            z0 = z1 + b1 * xt - a1 * yt
            z1 = z2 + b2 * xt - a2 * yt
            z2 = z3 + b3 * xt - a3 * yt
            z3 = z4 + b4 * xt - a4 * yt
            z4 = z5 + b5 * xt - a5 * yt
            z5 = z6 + b6 * xt - a6 * yt
            z6 = z7 + b7 * xt - a7 * yt
            z7 = b8 * xt - a8 * yt
            y[c, t] = yt
        final = (z0, z1, z2, z3, z4, z5, z6, z7)
        for k in range(order):
            zf[c, k] = final[k]


compiling.any_layout(_filter)
_ready: dict[tuple, object] = {}


def lfilter(b, a, x, axis, zi):
    """``scipy.signal.lfilter`` of every channel of the 2-D ``x`` along ``axis`` (0 or 1)
    with ``b`` and ``a`` of one length (at most ``MAX_ORDER + 1``, ``a[0] == 1``), from
    the delays ``zi`` ``(channels, order)`` or zeros; ``(y, zf)``, ``zf`` None without
    ``zi``.

    Examples
    --------
    >>> y, zf = lfilter(np.array([1.0, 0.0]), np.array([1.0, -0.5]), np.ones((1, 3)), 1,
    ...                 np.zeros((1, 1)))
    >>> y, zf
    (array([[1.  , 1.5 , 1.75]]), array([[0.875]]))
    """
    rows = x if axis == 1 else x.T
    y = np.empty(x.shape, x.dtype)
    state = np.zeros((rows.shape[0], len(a) - 1), x.dtype) if zi is None else zi
    zf = state if zi is None else np.empty_like(zi)
    args = (b, a, rows, y if axis == 1 else y.T, state, zf)
    # What the any-layout specialisation's entry point checks: the dtypes (not write
    # access; the kernel writes only y and zf), in a third of compiling.run's time,
    # which reads every argument's whole type.
    key = (x.dtype.char, b.dtype.char, a.dtype.char, state.dtype.char)
    run = _ready.get(key)
    if run is None:
        run = _ready[key] = compiling.runner(_filter, *args)
    run(*args)
    return y, (None if zi is None else zf)
