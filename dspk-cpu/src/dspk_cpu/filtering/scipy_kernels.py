"""Variants built on scipy.signal and scipy.fft, run on several threads or on one.

scipy filters one channel at a time; the threaded variants split the channels
into one slice per thread (scipy releases the GIL inside its filter loops and
FFTs). The one-thread variants call scipy's compiled filters (``_sosfilt``,
``_linear_filter``) directly on the calling thread, without scipy.signal's
argument handling: the fastest for small problems, such as a streaming chunk,
where threads and checks cost more than the filtering. The zero-phase filters
pad, filter forward, then backward, and crop.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import fft, signal
from scipy.fft import _pocketfft
from scipy.signal._sigtools import _linear_filter
from scipy.signal._sosfilt import _sosfilt

from dspk_cpu import memory
from dspk_cpu.layout import channels_index, samples_index
from dspk_cpu.threads import fft_workers, on_channel_slices

OnePass = Callable[[np.ndarray, int, np.ndarray], tuple[np.ndarray, np.ndarray]]


def sosfilt(sos, x, axis, zi):
    """scipy.signal.sosfilt over channel slices; ``zi`` as (n_sections, C, 2)."""
    y = memory.empty_like(x)
    zf = None if zi is None else np.empty_like(zi)

    def work(part):
        if zi is None:
            index = channels_index(axis, part)
            y[index] = signal.sosfilt(sos, x[index], axis=axis)
            return
        state = zi[:, part, :] if axis == 1 else zi[:, part, :].transpose(0, 2, 1)
        index = channels_index(axis, part)
        y[index], out = signal.sosfilt(sos, x[index], axis=axis, zi=state)
        zf[:, part, :] = out if axis == 1 else out.transpose(0, 2, 1)

    on_channel_slices(work, x.shape[1 - axis])
    return y, zf


def lfilter(b, a, x, axis, zi):
    """scipy.signal.lfilter over channel slices; ``zi`` as (C, K - 1)."""
    y = memory.empty_like(x)
    zf = None if zi is None else np.empty_like(zi)

    def work(part):
        if zi is None:
            index = channels_index(axis, part)
            y[index] = signal.lfilter(b, a, x[index], axis=axis)
            return
        state = zi[part] if axis == 1 else zi[part].T
        index = channels_index(axis, part)
        y[index], out = signal.lfilter(b, a, x[index], axis=axis, zi=state)
        zf[part] = out if axis == 1 else out.T

    on_channel_slices(work, x.shape[1 - axis])
    return y, zf


def sosfilt_one_thread(sos, x, axis, zi):
    """scipy's compiled cascade on the calling thread; ``zi`` as (n_sections, C, 2).

    Examples
    --------
    >>> sos = np.array([[1.0, 0.0, 0.0, 1.0, -0.5, 0.0]])
    >>> sosfilt_one_thread(sos, np.ones((1, 3)), 1, None)[0]
    array([[1.  , 1.5 , 1.75]])
    """
    y = np.array(x.T if axis == 0 else x, order="C")  # channels x samples, filtered in place
    channels, sections = y.shape[0], sos.shape[0]
    state = (np.zeros((channels, sections, 2), x.dtype) if zi is None
             else np.ascontiguousarray(zi.transpose(1, 0, 2)))
    _sosfilt(np.ascontiguousarray(sos), y, state)
    return (y.T if axis == 0 else y), (None if zi is None else state.transpose(1, 0, 2))


def lfilter_one_thread(b, a, x, axis, zi):
    """scipy's compiled direct form II transposed filter on the calling thread; ``zi`` as
    (C, K - 1).

    Examples
    --------
    >>> lfilter_one_thread(np.array([1.0, 0.0]), np.array([1.0, -0.5]), np.ones((1, 3)), 1,
    ...                    None)[0]
    array([[1.  , 1.5 , 1.75]])
    """
    if zi is None:
        return _linear_filter(b, a, x, axis), None
    y, zf = _linear_filter(b, a, x, axis, zi if axis == 1 else zi.T)
    return y, (zf if axis == 1 else zf.T)


class KeptState:
    """scipy's compiled one-pass filters over successive chunks of the same channels,
    the state kept in their own layout from chunk to chunk: a stream's filter for a
    channel or two (:meth:`dspk_cpu.backend.CpuBackend.causal_filter`), which the
    numba kernels would filter in blocks of lanes left mostly empty.

    Parameters
    ----------
    kind : {"sos", "tf"}
        Sections ``coefficients = (sos,)`` or a transfer function ``(b, a)``.
    coefficients : tuple of ndarray
        Of the signal's dtype.
    zi : ndarray
        The state to start from: ``(n_sections, C, 2)`` or ``(C, K - 1)``.

    Examples
    --------
    >>> b, a = np.array([1.0, 0.0]), np.array([1.0, -0.5])
    >>> kept = KeptState("tf", (b, a), np.zeros((1, 1)))
    >>> kept(np.ones((2, 1)), 0), kept(np.ones((1, 1)), 0)
    (array([[1. ],
           [1.5]]), array([[1.75]]))
    >>> kept.zf()
    array([[0.875]])
    """

    def __init__(self, kind, coefficients, zi):
        self._kind, self._coefficients = kind, tuple(map(np.ascontiguousarray, coefficients))
        # (C, n_sections, 2) for _sosfilt, which updates it in place; (C, K - 1)
        self._state = np.array(zi.transpose(1, 0, 2) if kind == "sos" else zi, order="C")

    def __call__(self, x, axis):
        if self._kind == "sos":
            y = np.array(x.T if axis == 0 else x, order="C")  # filtered in place
            _sosfilt(*self._coefficients, y, self._state)
            return y.T if axis == 0 else y
        y, zf = _linear_filter(*self._coefficients, x, axis,
                               self._state if axis == 1 else self._state.T)
        self._state = zf if axis == 1 else zf.T
        return y

    def zf(self):
        return (self._state.transpose(1, 0, 2) if self._kind == "sos" else self._state).copy()


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


def sosfiltfilt(sos, x, axis, padtype, padlen, zi):
    """:func:`sosfilt` forward and backward, each pass from ``zi`` times its edge sample."""
    return forward_backward(lambda v, ax, z: sosfilt(sos, v, ax, z), x, axis, padtype,
                            padlen, lambda edge: zi[:, None, :] * edge[None, :, None])


def filtfilt(b, a, x, axis, padtype, padlen, zi):
    """:func:`lfilter` forward and backward, each pass from ``zi`` times its edge sample."""
    return forward_backward(lambda v, ax, z: lfilter(b, a, v, ax, z), x, axis, padtype,
                            padlen, lambda edge: edge[:, None] * zi[None, :])


def sosfiltfilt_one_thread(sos, x, axis, padtype, padlen, zi):
    """:func:`sosfilt_one_thread` forward and backward."""
    return forward_backward(lambda v, ax, z: sosfilt_one_thread(sos, v, ax, z), x, axis,
                            padtype, padlen, lambda edge: zi[:, None, :] * edge[None, :, None])


def filtfilt_one_thread(b, a, x, axis, padtype, padlen, zi):
    """:func:`lfilter_one_thread` forward and backward."""
    return forward_backward(lambda v, ax, z: lfilter_one_thread(b, a, v, ax, z), x, axis,
                            padtype, padlen, lambda edge: edge[:, None] * zi[None, :])


def convolve_fft(x, h, axis):
    """Full convolution by one real FFT of a fast length, on all threads (one for a small
    signal; pocketfft's own functions: scipy.fft's backend dispatch costs 1.4 us a
    transform on small arrays)."""
    length = x.shape[axis] + h.shape[1] - 1
    size = fft.next_fast_len(length, real=True)
    taps = h if axis == 1 else h.T
    workers = fft_workers(x.nbytes)
    spectrum = (_pocketfft.rfft(x, size, axis, None, False, workers)
                * _pocketfft.rfft(taps, size, axis, None, False, workers))
    y = _pocketfft.irfft(spectrum, size, axis, None, True, workers)
    return y[channels_index(1 - axis, slice(0, length))]


def convolve_overlap_add(x, h, axis):
    """Full convolution by scipy's overlap-add, in blocks sized to the taps."""
    return signal.oaconvolve(x, h if axis == 1 else h.T, mode="full", axes=axis)
