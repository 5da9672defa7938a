"""Spectral streams: a running Welch average."""

from __future__ import annotations

import numpy as np

from dspk import spectral, validation
from dspk.docstrings import shared
from dspk.streaming.base import Stream

__all__ = ["WelchStream"]


@shared
class WelchStream(Stream):
    """:func:`dspk.welch` over a stream: a running mean of the segments' periodograms.

    The segments are those of one :func:`dspk.welch` over the whole signal
    (segments that straddle chunks included), so :meth:`result` equals it to
    rounding. ``push`` returns None; :meth:`result` gives the estimate so
    far, and :meth:`finish` the final one.

    Parameters
    ----------
    {fs}
    {window}
    nperseg : int, optional
        Length of each segment. Default 256 (a stream has no length to take
        the minimum with).
    {noverlap}
    {nfft}
    {detrend}
    {return_onesided}
    {scaling}
    {stream_axis}
    {runtime}

    Attributes
    ----------
    segments : dspk.validation.Segments
        The segments, checked as :func:`dspk.welch` checks them.
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
        # An array window sets the segments' length: the default nperseg is a named one's.
        named = isinstance(window, (str, tuple))
        if noverlap is not None:
            validation.integer(noverlap, "noverlap", minimum=0)  # a stream reads every sample
        self.segments = validation.Segments.check(window, nperseg if named else None, noverlap,
                                                  nfft, detrend, onesided=return_onesided)
        validation.sampling_rate(fs)
        validation.choice(scaling, validation.SCALINGS, "scaling")
        self._options = {"fs": fs, "window": self.segments.window, "noverlap": noverlap,
                         "nfft": nfft, "detrend": detrend, "return_onesided": return_onesided,
                         "scaling": scaling}
        self._buffer: np.ndarray | None = None
        self._sum: np.ndarray | None = None
        self._segments = 0
        self._frequencies: np.ndarray | None = None

    @property
    def nperseg(self) -> int:
        return self.segments.nperseg

    @property
    def noverlap(self) -> int:
        return self.segments.noverlap

    @property
    def nfft(self) -> int:
        return self.segments.nfft

    def _compute_dtype(self, chunk: np.ndarray) -> np.dtype:
        return validation.compute_dtype(chunk, "chunk", allow_complex=True)

    def push(self, chunk) -> None:
        """Take the next chunk into the average; returns None.

        Parameters
        ----------
        chunk : array_like
            The next samples, time along ``axis``; the same shape along the
            other axes as the first chunk. Chunks of no samples are allowed.
        """
        super().push(chunk)

    def _push(self, chunk: np.ndarray) -> None:
        self._buffer = self._join(self._buffer, chunk)
        step = self.segments.step
        whole = self.segments.count(self._length(self._buffer))
        if whole < 1:
            return
        used = self._cut(self._buffer, 0, (whole - 1) * step + self.nperseg)
        f, pxx = spectral.welch(used, axis=self.axis, runtime=self.runtime, **self._options)
        total = pxx.astype(np.result_type(pxx.dtype, np.float64)) * whole
        self._sum = total if self._sum is None else self._sum + total
        self._segments += whole
        self._frequencies = f
        self._buffer = self._cut(self._buffer, whole * step, None).copy()

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """The estimate so far: ``(f, Pxx)``, as :func:`dspk.welch` returns them."""
        if self._segments == 0:
            raise ValueError(f"fewer than nperseg={self.nperseg} samples have arrived: there "
                             "is no segment to average yet")
        real = np.finfo(self.dtype).dtype
        return self._frequencies, (self._sum / self._segments).astype(real)

    def _finish(self) -> tuple[np.ndarray, np.ndarray]:
        return self.result()
