"""Block transitions of IIR cascades, for filters run in time-parallel blocks.

A cascade of sections of one order ``M`` in transposed direct form II (sos
rows, ``M = 2``; lfilter's ``b, a`` as one section of order ``K - 1``) has a
state of ``D = sections * M`` numbers, ordered (section, delay) as scipy's
``zi``. Over ``L`` zero input samples the state maps as ``s -> T s``. A
runtime filters blocks of ``L`` samples from zero states in parallel and
scans their final states with the powers ``T ** (2 ** k)`` (Kogge-Stone
[1]_; a linear recurrence solved as a prefix scan [2]_), which gives every
block its true start.

One precision policy: ``T`` is the one-sample transition raised to the
``L``-th power by repeated squaring in :data:`WIDE`, and so are its powers;
each result is rounded once, to float64 or the signal's dtype. Filters with
poles near ``z = 1`` have transitions whose entries cancel heavily, which
a float64 computation would leave in error.

References
----------
.. [1] P. M. Kogge and H. S. Stone, "A parallel algorithm for the efficient
   solution of a general class of recurrence equations", IEEE Transactions
   on Computers, vol. C-22, no. 8, 1973.
.. [2] G. E. Blelloch, "Prefix sums and their applications", Technical
   Report CMU-CS-90-190, School of Computer Science, Carnegie Mellon
   University, 1990.
"""

from __future__ import annotations

import functools

import numpy as np

#: Host precision of transitions: x86's 80-bit long double where NumPy has it.
WIDE = np.longdouble


def one_step(rows: np.ndarray, order: int) -> np.ndarray:
    """The zero-input one-sample transition of a cascade's state, in :data:`WIDE`.

    Parameters
    ----------
    rows : ndarray
        One section per row, ``[b0 .. bM, a0 .. aM]`` with ``M = order`` and
        ``a0 == 1``.
    order : int
        ``M``, at least 1.

    Returns
    -------
    ndarray
        ``(D, D)``: component ``i`` of the state after one sample is row ``i``
        times the state before.

    Examples
    --------
    >>> one_step(np.array([[1.0, 0.0, 1.0, -0.5]]), 1).astype(float)
    array([[0.5]])
    """
    c = np.asarray(rows).astype(WIDE)
    sections, size = len(c), len(c) * order
    z = np.eye(size, dtype=WIDE).reshape(sections, order, size)  # z[s, k, column]
    v = np.zeros(size, WIDE)                                      # a section's input
    for s, row in enumerate(c):
        b, a = row[:order + 1], row[order + 1:]
        out = b[0] * v + z[s, 0]
        for k in range(order - 1):
            z[s, k] = b[k + 1] * v - a[k + 1] * out + z[s, k + 1]
        z[s, order - 1] = b[order] * v - a[order] * out
        v = out
    return z.reshape(size, size)


@functools.lru_cache(maxsize=64)
def _block(coefficients: bytes, sections: int, order: int, length: int) -> np.ndarray:
    """``T`` in :data:`WIDE`, from the rows' float64 bytes, by repeated squaring."""
    square = one_step(np.frombuffer(coefficients).reshape(sections, -1), order)
    block = np.eye(len(square), dtype=WIDE)
    while length:
        if length & 1:
            block = square @ block
        square = square @ square
        length >>= 1
    return block


@functools.lru_cache(maxsize=64)
def _powers(coefficients: bytes, sections: int, order: int, length: int,
            steps: int) -> np.ndarray:
    """``T ** (2 ** k)`` for ``k < steps`` in :data:`WIDE`."""
    powers = [_block(coefficients, sections, order, length)]
    for _ in range(steps - 1):
        powers.append(powers[-1] @ powers[-1])
    return np.asarray(powers)


def scan_powers(rows: np.ndarray, order: int, length: int, steps: int,
                dtype=np.float64) -> np.ndarray:
    """``T ** (2 ** k)`` for ``k < max(steps, 1)``, ``T`` the state's map over ``length`` zero
    samples, each rounded once to ``dtype``.

    ``rows`` and ``order`` as in :func:`one_step`. The powers of the last 64
    filters and lengths asked for are kept.

    Examples
    --------
    >>> from scipy import signal
    >>> sos = signal.butter(2, 0.3, output="sos")
    >>> powers = scan_powers(sos, 2, 5, 2)
    >>> _, zf = signal.sosfilt(sos, np.zeros(10), zi=np.array([[1.0, 0.0]]))
    >>> powers.shape, bool(np.allclose(powers[1][:, 0], zf.ravel()))
    ((2, 2, 2), True)
    """
    host = np.ascontiguousarray(rows, dtype=np.float64)
    return _powers(host.tobytes(), len(host), order, length, max(steps, 1)).astype(dtype)


def block_transition(rows: np.ndarray, order: int, length: int) -> np.ndarray:
    """``T``, the state's map over ``length`` zero samples, in float64.

    Examples
    --------
    >>> from scipy import signal
    >>> sos = signal.butter(2, 0.3, output="sos")
    >>> _, zf = signal.sosfilt(sos, np.zeros(5), zi=np.array([[1.0, 0.0]]))
    >>> bool(np.allclose(block_transition(sos, 2, 5)[:, 0], zf.ravel()))
    True
    """
    return scan_powers(rows, order, length, 1)[0]

