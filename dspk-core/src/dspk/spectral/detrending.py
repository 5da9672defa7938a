"""Trends removed: :func:`detrend`, and segments detrended on the host by a callable."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from dspk import validation
from dspk.arrays import to_numpy
from dspk.dispatch import Call, Signal2D
from dspk.docstrings import shared
from dspk.spectral.common import problem_of

__all__ = ["detrend"]


def _break_points(call: Call, bp: Any, length: int) -> tuple[int, ...]:
    """0, the break points and ``length``: sorted, without repeats."""
    points = np.atleast_1d(to_numpy(bp))
    if points.ndim != 1 or (points.size and points.dtype.kind not in "iu"):
        raise TypeError(f"bp must be an integer or a 1-D sequence of integers; got {bp!r}")
    if points.size and (points.min() < 0 or points.max() > length):
        raise ValueError(f"bp must lie between 0 and {length}, the length of data along axis; "
                         f"got {bp!r}")
    return tuple(int(p) for p in np.unique(np.concatenate([[0], points, [length]])))


@shared
def detrend(data, axis=-1, type="linear", bp=0, overwrite_data=False, *, runtime=None):
    """Remove linear or constant trend along axis from data.

    As :func:`scipy.signal.detrend`, on a dspk runtime.

    Parameters
    ----------
    data : array_like
        The input data, real or complex.
    axis : int, optional
        The axis along which to detrend the data. Default is -1.
    type : {'linear', 'constant'}, optional
        Subtract the least-squares line (default) or the mean; ``'l'`` and
        ``'c'`` are accepted too.
    bp : array_like of ints, optional
        Break points: with ``type='linear'``, each piece between two of them
        gets its own line. Ignored for ``'constant'``.
    overwrite_data : bool, optional
        Accepted for compatibility; dspk never overwrites ``data``.
    {runtime}

    Returns
    -------
    ret : ndarray
        The detrended input data; float32 stays float32.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> x = np.random.default_rng(0).standard_normal((3, 200)) + np.linspace(0, 5, 200)
    >>> bool(np.allclose(dspk.detrend(x, bp=[50, 120]), scipy.signal.detrend(x, bp=[50, 120])))
    True
    """
    call, data = Call.start(runtime, data, "data", "detrend")
    axis = validation.signal_axis(data, axis, "data")
    if not isinstance(type, str) or type not in validation.TRENDS:
        raise ValueError(f"type={type!r} is not 'linear' or 'constant' (or 'l', 'c')")
    kind = validation.TRENDS[type]
    dtype = validation.compute_dtype(data, "data", allow_complex=True)
    length = data.shape[axis]
    pieces = (0, length) if kind == "constant" else _break_points(call, bp, length)
    validation.output_fits("detrend", data, dtype)
    view = Signal2D.of(data.astype(dtype, copy=False), axis)
    y = call.run(problem_of("detrend", view, dtype, kind=kind), call.native(view.array),
                 view.axis, kind, pieces)
    return call.give_back(view.restore(y))


# --- segments ----------------------------------------------------------------------------

def _presegmented(v: np.ndarray, axis: int, length: int, segments: validation.Segments,
                  detrend_each: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``v`` cut into segments on the host, detrended there, and laid end to end.

    ``v`` is zero-padded to ``length`` first. The result has the time axis
    at ``axis`` and holds the segments without overlap, so that the kernel
    cuts it again with a step of ``nperseg`` and no detrend.
    """
    moved = np.moveaxis(v, axis, -1)
    moved = np.pad(moved, [(0, 0)] * (moved.ndim - 1) + [(0, length - moved.shape[-1])])
    pieces = sliding_window_view(moved, segments.nperseg, axis=-1)[..., ::segments.step, :]
    pieces = np.array(pieces)
    detrended = np.asarray(detrend_each(pieces))
    if detrended.shape != pieces.shape:
        raise ValueError(f"detrend returned shape {detrended.shape}; expected {pieces.shape}")
    laid = detrended.astype(v.dtype, copy=False).reshape(*pieces.shape[:-2], -1)
    return np.moveaxis(laid, -1, axis)


def each_segment(detrend: Callable) -> Callable[[np.ndarray], np.ndarray]:
    """scipy's welch and csd call ``detrend`` on one segment at a time."""
    def apply(pieces):
        return np.stack([detrend(pieces[..., k, :]) for k in range(pieces.shape[-2])], axis=-2)
    return apply


def all_segments(detrend: Callable, axis: int) -> Callable[[np.ndarray], np.ndarray]:
    """scipy's stft and spectrogram call ``detrend`` once, samples moved to ``axis`` unless -1."""
    def apply(pieces):
        if axis == -1:
            return detrend(pieces)
        return np.moveaxis(detrend(np.moveaxis(pieces, -1, axis)), axis, -1)
    return apply


def host_detrended(call: Call, signals: list, axes: list, length: int,
                   segments: validation.Segments,
                   detrend_each: Callable) -> tuple[list, validation.Segments]:
    """Signals with their segments detrended on the host by a callable, and their segments."""
    laid = [_presegmented(to_numpy(v), a, length, segments, detrend_each)
            for v, a in zip(signals, axes)]
    return laid, replace(segments, step=segments.nperseg, detrend=None)
