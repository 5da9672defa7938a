"""Scaled int16: the form recordings are stored in, for results kept in memory.

:func:`to_int16` is what ``dspk filter`` writes to an int16 file
(``round(y * scale)``, clipped to -32768..32767), for arrays: a float32 result
of 384 channels takes half its memory again as int16.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from dspk.arrays import owner, to_numpy

__all__ = ["to_int16"]

_INT16 = np.iinfo(np.int16)
#: Samples converted at a time, so that scaling, rounding, the range check and
#: the cast each read a slice still in cache.
_BLOCK_ELEMENTS = 1 << 18
_NONFINITE = ("raise", "zero")


def int16_into(y: np.ndarray, scale: float, out: np.ndarray) -> tuple[int, int]:
    """Write ``round(y * scale)`` of a 2-D float array into the int16 array ``out``.

    Values beyond int16's range are clipped to it; NaN and infinity become 0.
    The arithmetic is float32's, block by block.

    Returns
    -------
    clipped, nonfinite : int
        How many samples were clipped, and how many were NaN or infinite.

    Examples
    --------
    >>> out = np.empty((1, 4), np.int16)
    >>> int16_into(np.array([[0.4, -1.6, 1e6, np.nan]]), 1.0, out), out
    ((1, 1), array([[    0,    -2, 32767,     0]], dtype=int16))
    """
    clipped = nonfinite = 0
    if not y.size:
        return clipped, nonfinite
    rows = max(1, _BLOCK_ELEMENTS // y.shape[1])
    for start in range(0, len(y), rows):
        rounded = np.multiply(y[start:start + rows], np.float32(scale), dtype=np.float32)
        np.rint(rounded, out=rounded)
        if not (rounded.min() >= _INT16.min and rounded.max() <= _INT16.max):
            finite = np.isfinite(rounded)
            nonfinite += rounded.size - int(np.count_nonzero(finite))
            rounded[~finite] = 0
            clipped += int(np.count_nonzero((rounded < _INT16.min) | (rounded > _INT16.max)))
            np.clip(rounded, _INT16.min, _INT16.max, out=rounded)
        out[start:start + rows] = rounded
    return clipped, nonfinite


def to_int16(y, scale=1.0, *, nonfinite="raise"):
    """A float signal as scaled int16: ``round(y * scale)``, clipped to int16's range.

    The conversion ``dspk filter`` applies to an int16 output file, for an
    array in memory: with ``scale=1`` a recording filtered from int16 ADC
    counts (``dtype=np.float32``) goes back to ADC counts in half the memory
    of its float32 result. Values beyond -32768..32767 are clipped with a
    :class:`RuntimeWarning` that counts them.

    Parameters
    ----------
    y : array_like
        Real float or integer samples, any shape. An array of a runtime (such as
        CuPy) comes back as one; the conversion runs on the host.
    scale : float, optional
        The factor applied before rounding; finite and > 0. Default 1.
    nonfinite : {"raise", "zero"}, optional
        NaN or infinity in ``y``: a :class:`ValueError` (default), or written as 0
        with a :class:`RuntimeWarning` that counts them.

    Returns
    -------
    array of int16
        ``y``'s shape.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> raw = np.random.default_rng(0).integers(-500, 500, (4, 3000)).astype(np.int16)
    >>> sos = scipy.signal.butter(3, 300, "highpass", fs=30000, output="sos")
    >>> y = dspk.sosfilt(sos, raw, dtype=np.float32)
    >>> y16 = dspk.to_int16(y)
    >>> y16.dtype, int(np.abs(y16 - np.rint(y)).max())
    (dtype('int16'), 0)
    """
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real) or not (
            np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a finite number > 0; got {scale!r}")
    if nonfinite not in _NONFINITE:
        raise ValueError(f"nonfinite={nonfinite!r} is not one of "
                         f"{', '.join(map(repr, _NONFINITE))}")
    origin = owner(y)
    host = origin.to_numpy(y) if origin is not None else to_numpy(y)
    if host.dtype.kind not in "biuf":
        raise TypeError(f"y must hold real numbers; got dtype {host.dtype}")
    if nonfinite == "raise" and host.dtype.kind == "f" and host.size and not (
            np.isfinite(host.min()) and np.isfinite(host.max())):
        bad = np.argwhere(~np.isfinite(host))
        raise ValueError(f"y holds {len(bad)} NaN or infinite sample(s), the first at index "
                         f"{tuple(int(i) for i in bad[0])}; int16 cannot hold them: pass "
                         "nonfinite='zero' to write them as 0")
    rows = host.reshape(-1, host.shape[-1]) if host.ndim > 1 else host.reshape(1, -1)
    out = np.empty(rows.shape, np.int16)
    clipped, nonfinite_count = int16_into(rows, float(scale), out)
    if clipped:
        warnings.warn(f"to_int16: {clipped} sample(s) beyond int16's range were clipped "
                      f"(scale={scale!r})", RuntimeWarning, stacklevel=2)
    if nonfinite_count:
        warnings.warn(f"to_int16: {nonfinite_count} NaN or infinite sample(s) written as 0",
                      RuntimeWarning, stacklevel=2)
    out = out.reshape(host.shape)
    return out if origin is None else origin.asarray(out)
