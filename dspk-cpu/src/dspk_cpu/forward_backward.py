"""Zero-phase filtering composed from a one-pass filter: pad, forward, backward, crop."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dspk_cpu.layout import samples_index

OnePass = Callable[[np.ndarray, int, np.ndarray], tuple[np.ndarray, np.ndarray]]


def extend(x: np.ndarray, axis: int, padtype: str | None, padlen: int) -> np.ndarray:
    """``x`` with ``padlen`` samples added at both ends of the time axis.

    ``"odd"`` reflects about the end sample and negates, ``"even"`` reflects,
    ``"constant"`` repeats the end sample.

    Examples
    --------
    >>> extend(np.array([[1.0, 2.0, 4.0]]), 1, "odd", 2)
    array([[-2.,  0.,  1.,  2.,  4.,  6.,  7.]])
    """
    if padtype is None or padlen == 0:
        return x
    first, last = x[samples_index(axis, slice(0, 1))], x[samples_index(axis, slice(-1, None))]
    if padtype == "constant":
        left = np.repeat(first, padlen, axis=axis)
        right = np.repeat(last, padlen, axis=axis)
    else:
        left = x[samples_index(axis, slice(padlen, 0, -1))]
        right = x[samples_index(axis, slice(-2, -padlen - 2, -1))]
        if padtype == "odd":
            left, right = 2 * first - left, 2 * last - right
    return np.concatenate([left, x, right], axis=axis)


def forward_backward(one_pass: OnePass, x: np.ndarray, axis: int, padtype: str | None,
                     padlen: int, initial: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Filter forward then backward, each pass started from its steady state.

    Parameters
    ----------
    one_pass : callable
        ``one_pass(x, axis, zi) -> (y, zf)``, a causal filter.
    x : ndarray
        2-D signal, time along ``axis``.
    axis : int
        0 or 1.
    padtype, padlen
        As in :func:`dspk.sosfiltfilt`.
    initial : callable
        ``initial(edge)`` gives the pass's initial state for the per-channel
        edge values ``edge`` (steady state times the edge sample).

    Returns
    -------
    ndarray
        The zero-phase result, in ``x``'s memory order.
    """
    ext = extend(x, axis, padtype, padlen)
    edge = ext[samples_index(axis, slice(0, 1))].reshape(-1)
    forward, _ = one_pass(ext, axis, initial(edge))
    backward_in = forward[samples_index(axis, slice(None, None, -1))]
    edge = backward_in[samples_index(axis, slice(0, 1))].reshape(-1)
    backward, _ = one_pass(backward_in, axis, initial(edge))
    end = backward.shape[axis] - padlen
    y = backward[samples_index(axis, slice(end - 1, padlen - 1 if padlen else None, -1))]
    return np.asfortranarray(y) if x.flags.f_contiguous and not x.flags.c_contiguous \
        else np.ascontiguousarray(y)


def sosfiltfilt_with(sosfilt: Callable) -> Callable:
    """The ``sosfiltfilt`` kernel built on a ``sosfilt`` kernel (calling conventions of dspk.plugin)."""

    def sosfiltfilt(sos, x, axis, padtype, padlen, zi):
        return forward_backward(lambda v, ax, z: sosfilt(sos, v, ax, z), x, axis, padtype,
                                padlen, lambda edge: zi[:, None, :] * edge[None, :, None])

    return sosfiltfilt


def filtfilt_with(lfilter: Callable) -> Callable:
    """The ``filtfilt`` kernel built on an ``lfilter`` kernel (calling conventions of dspk.plugin)."""

    def filtfilt(b, a, x, axis, padtype, padlen, zi):
        return forward_backward(lambda v, ax, z: lfilter(b, a, v, ax, z), x, axis, padtype,
                                padlen, lambda edge: edge[:, None] * zi[None, :])

    return filtfilt
