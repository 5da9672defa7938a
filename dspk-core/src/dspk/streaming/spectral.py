"""Spectral streams: a running Welch average."""

from __future__ import annotations

import numpy as np
from scipy import signal as _scipy

from dspk import spectral, validation
from dspk.arrays import to_numpy
from dspk.streaming.base import Stream, count

__all__ = ["WelchStream"]

_SPECTRAL_DTYPES = tuple(np.dtype(t) for t in ("float32", "float64", "complex64", "complex128"))


class WelchStream(Stream):
    """:func:`dspk.welch` over a stream: a running mean of the segments' periodograms.

    The segments are those of one :func:`dspk.welch` over the whole signal
    (segments that straddle chunks included), so :meth:`result` equals it to
    rounding. ``push`` returns None; :meth:`result` gives the estimate so
    far, and :meth:`finish` the final one.

    Parameters
    ----------
    fs, window, detrend, return_onesided, scaling, axis
        As :func:`dspk.welch`'s.
    nperseg : int, optional
        Length of each segment. Default 256 (a stream has no length to take
        the minimum with).
    noverlap, nfft : int, optional
        As :func:`dspk.welch`'s.
    runtime : str, optional
        The runtime to run on.

    Attributes
    ----------
    nperseg, noverlap, nfft : int
        The segments' length, overlap and FFT length.

    Notes
    -----
    Only ``average="mean"`` streams: a median needs every segment at once.

    Examples
    --------
    >>> import numpy as np, scipy.signal
    >>> from dspk.streaming import WelchStream
    >>> x = np.random.default_rng(0).standard_normal((3, 5000))
    >>> stream = WelchStream(fs=1000.0, nperseg=512)
    >>> for start in range(0, 5000, 700):
    ...     stream.push(x[:, start:start + 700])
    >>> f, pxx = stream.finish()
    >>> bool(np.allclose(pxx, scipy.signal.welch(x, fs=1000.0, nperseg=512)[1]))
    True
    """

    gives_samples = False

    def __init__(self, fs=1.0, window="hann_periodic", nperseg=256, noverlap=None, nfft=None,
                 detrend="constant", return_onesided=True, scaling="density", axis=-1, *,
                 runtime=None):
        super().__init__(axis, runtime)
        nperseg = validation.integer(nperseg, "nperseg", minimum=1)
        if isinstance(window, (str, tuple)):
            try:
                window = _scipy.get_window(window, nperseg)
            except (ValueError, TypeError) as exc:
                raise ValueError(f"window={window!r} is not a window scipy.signal.get_window "
                                 f"knows: {exc}") from None
        window = to_numpy(window)
        if window.ndim != 1 or window.size == 0:
            raise ValueError(f"window must be a name or a non-empty 1-D array; got shape "
                             f"{window.shape}")
        self.nperseg = window.size
        self.noverlap = self.nperseg // 2 if noverlap is None else count(noverlap, "noverlap")
        if self.noverlap >= self.nperseg:
            raise ValueError(f"noverlap={self.noverlap} must be less than "
                             f"nperseg={self.nperseg}")
        self.nfft = self.nperseg if nfft is None else count(nfft, "nfft")
        if self.nfft < self.nperseg:
            raise ValueError(f"nfft={nfft} must be at least nperseg={self.nperseg}")
        spectral.sampling_rate(fs)
        spectral.detrend_kind(detrend)
        validation.choice(scaling, ("density", "spectrum"), "scaling")
        self._step = self.nperseg - self.noverlap
        self._options = {"fs": fs, "window": window, "noverlap": noverlap, "nfft": nfft,
                         "detrend": detrend, "return_onesided": return_onesided,
                         "scaling": scaling}
        self._buffer: np.ndarray | None = None
        self._sum: np.ndarray | None = None
        self._segments = 0
        self._frequencies: np.ndarray | None = None

    def _compute_dtype(self, chunk: np.ndarray) -> np.dtype:
        if chunk.dtype in _SPECTRAL_DTYPES:
            return chunk.dtype
        if chunk.dtype.kind == "c":
            return np.dtype(np.complex128)
        return validation.compute_dtype(chunk, "chunk")

    def push(self, chunk) -> None:
        """Take the next chunk into the average; returns None."""
        super().push(chunk)

    def _push(self, chunk: np.ndarray) -> None:
        self._buffer = self._join(self._buffer, chunk)
        count = (self._length(self._buffer) - self.nperseg) // self._step + 1
        if count < 1:
            return
        used = self._cut(self._buffer, 0, (count - 1) * self._step + self.nperseg)
        f, pxx = spectral.welch(used, axis=self.axis, runtime=self.runtime, **self._options)
        total = pxx.astype(np.result_type(pxx.dtype, np.float64)) * count
        self._sum = total if self._sum is None else self._sum + total
        self._segments += count
        self._frequencies = f
        self._buffer = self._cut(self._buffer, count * self._step, None).copy()

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """The estimate so far: ``(f, Pxx)``, as :func:`dspk.welch` returns them."""
        if self._segments == 0:
            raise ValueError(f"fewer than nperseg={self.nperseg} samples have arrived: there "
                             "is no segment to average yet")
        real = np.finfo(self.dtype).dtype
        return self._frequencies, (self._sum / self._segments).astype(real)

    def _finish(self) -> tuple[np.ndarray, np.ndarray]:
        return self.result()
