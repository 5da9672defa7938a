"""Segments of stft and csd: how many, csd's averages over them, and stft's values.

The averages take the array namespace ``xp`` of the runtime's arrays (NumPy,
CuPy) and the runtime's own segment spectra, and work in blocks of segments
(the mean) or of channels (the median) of about ``block_elements`` values, so
that memory stays bounded however long the signal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: What the ``stft`` kernel returns of the weighted spectra ``z`` (frequency last), as
#: ``VALUES[value](xp, z)``.
VALUES: dict[str, Callable[[Any, Any], Any]] = {
    "complex": lambda xp, z: z,
    "power": lambda xp, z: z.real ** 2 + z.imag ** 2,
    "magnitude": lambda xp, z: xp.abs(z),
    "angle": lambda xp, z: xp.angle(z),
    "phase": lambda xp, z: xp.unwrap(xp.angle(z), axis=-1),
}


def segment_count(samples: int, nperseg: int, step: int) -> int:
    """How many segments of ``nperseg`` samples, ``step`` apart, fit in ``samples``.

    Examples
    --------
    >>> segment_count(1000, 256, 128)
    6
    """
    return (samples - nperseg) // step + 1


def stft_extent(samples: int, nperseg: int, step: int, boundary: str | None,
                pad: int) -> tuple[int, int]:
    """stft's boundary extension at each end and its segment count.

    ``boundary`` (None for none) extends the signal by ``nperseg // 2``
    samples at both ends, and ``pad`` zeros follow.

    Examples
    --------
    >>> stft_extent(1000, 256, 128, "zeros", 0)
    (128, 8)
    """
    edge = nperseg // 2 if boundary is not None else 0
    return edge, segment_count(samples + 2 * edge + pad, nperseg, step)


def bin_count(nfft: int, sides: str) -> int:
    """Frequencies of a one-sided (real) or two-sided FFT of length ``nfft``.

    Examples
    --------
    >>> bin_count(256, "onesided"), bin_count(256, "twosided")
    (129, 256)
    """
    return nfft // 2 + 1 if sides == "onesided" else nfft


def channel_rows(v: Any, rows: slice) -> Any:
    """Channels ``rows`` of channel-major ``v``; a one-channel signal serves all channels,
    and None stays None."""
    return v if v is None or v.shape[0] == 1 else v[rows]


def _blocks(total: int, size: int):
    for first in range(0, total, size):
        yield slice(first, min(first + size, total))


def _product(spectra, vx, vy, rows: slice, segments: slice):
    """conj(X)·Y (|X|² without ``vy``) of channels ``rows`` and segments ``segments``."""
    fx = spectra(channel_rows(vx, rows), segments)
    if vy is None:
        return fx.real ** 2 + fx.imag ** 2
    return fx.conj() * spectra(channel_rows(vy, rows), segments)


def _median(xp, p):
    """The median over segments (axis 1), of real and imaginary parts apart."""
    if p.dtype.kind == "c":
        return xp.median(p.real, axis=1) + 1j * xp.median(p.imag, axis=1)
    return xp.median(p, axis=1)


def averaged_products(xp, spectra: Callable[[Any, slice], Any], vx, vy, nperseg: int,
                      step: int, nfft: int, average: str, block_elements: int):
    """csd's mean or median over segments of conj(X)·Y, or of |X|² without ``vy``.

    Parameters
    ----------
    xp : module
        The arrays' namespace (``numpy``, ``cupy``).
    spectra : callable
        ``spectra(v, segments)``: the FFTs of the detrended, windowed segments
        ``segments`` (a slice, counted from the signal's start) of channel-major
        ``v``, channels x segments x bins.
    vx, vy : array
        Channel-major signals (``vy`` None for auto spectra); one channel
        serves all; segments are those of the longer (the shorter must read
        as zeros past its end, as ``spectra`` sees to).
    nperseg, step, nfft : int
        Samples per segment, hop and FFT length.
    average : str
        ``"mean"`` (summed in float64 or complex128, in blocks of segments) or
        ``"median"`` (in blocks of channels, all segments at once).
    block_elements : int
        About how many product values one block holds.

    Returns
    -------
    array
        Channels x bins.

    Examples
    --------
    Three segments of four samples, two apart, whose sums (the FFT's bin 0)
    are 6, 14 and 22:

    >>> import numpy as np
    >>> v = np.arange(8.0)[None, :]
    >>> def spectra(v, segments):
    ...     starts = range(2 * segments.start, 2 * segments.stop, 2)
    ...     return np.fft.rfft(np.stack([v[:, s:s + 4] for s in starts], axis=1), axis=-1)
    >>> averaged_products(np, spectra, v, None, 4, 2, 4, "median", 8)[:, 0]
    array([196.])
    """
    samples = vx.shape[1] if vy is None else max(vx.shape[1], vy.shape[1])
    count = segment_count(samples, nperseg, step)
    channels = vx.shape[0] if vy is None else max(vx.shape[0], vy.shape[0])
    everything = slice(0, channels)
    if average == "mean":
        accumulate = xp.float64 if vy is None else xp.complex128
        per_block = max(1, block_elements // max(channels * nfft, 1))
        total = sum(_product(spectra, vx, vy, everything, part).sum(axis=1, dtype=accumulate)
                    for part in _blocks(count, per_block))
        return total / count
    per_block = max(1, block_elements // max(count * nfft, 1))
    return xp.concatenate([_median(xp, _product(spectra, vx, vy, rows, slice(0, count)))
                           for rows in _blocks(channels, per_block)])


def weighted(xp, p, weights, cross: bool):
    """csd's averages ``p`` (channels x bins) times ``weights``, in the weights' precision:
    real for auto spectra, complex for cross spectra.

    Examples
    --------
    >>> import numpy as np
    >>> weighted(np, np.ones((1, 2)), np.float32([0.5, 2.0]), cross=True).dtype
    dtype('complex64')
    """
    dtype = xp.result_type(weights.dtype, xp.complex64) if cross else weights.dtype
    return (p * weights).astype(dtype, copy=False)
