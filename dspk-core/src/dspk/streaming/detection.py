"""Peak detection over a stream: every peak once, with its sample index in the whole signal."""

from __future__ import annotations

import numpy as np

from dspk.arrays import to_numpy
from dspk.detection import DEFAULT_EXCLUDE, checked_peak_options, detect_peaks, peak_dtype
from dspk.docstrings import shared
from dspk.streaming.base import Stream

__all__ = ["DetectPeaksStream"]


@shared
class DetectPeaksStream(Stream):
    """:func:`dspk.detect_peaks` over a stream: exact, each peak given once.

    A sample is a peak or not once the ``exclude`` samples after it have
    arrived, so each push reports the peaks up to ``exclude`` samples before
    the end of what has arrived, and keeps the last ``2 * exclude`` samples
    (the undecided ones and the context before them) for the next chunk;
    :meth:`finish` decides the rest, with the signal's end as the one-shot's.
    The peaks of all the calls, joined, are ``detect_peaks`` of the whole
    signal, with the same ``noise_levels``.

    Parameters
    ----------
    noise_levels : array_like
        Each channel's noise level, shape ``(C,)``: a stream cannot compute
        them from a signal it has not seen (compute them with
        :func:`dspk.noise_levels` on a first stretch of the recording, as
        SpikeInterface does from random chunks).
    threshold, sign, exclude, positions, radius
        As :func:`dspk.detect_peaks`'s.
    {stream_axis}
    {runtime}

    Notes
    -----
    :meth:`push` and :meth:`finish` return structured arrays of peaks, not
    samples, so this stream can be the last stage of a
    :class:`~dspk.streaming.StreamChain` only by hand: push the chain's
    output into it.

    Examples
    --------
    >>> import numpy as np, dspk
    >>> from dspk.streaming import DetectPeaksStream
    >>> x = np.random.default_rng(0).standard_normal((4, 10000))
    >>> noise = dspk.noise_levels(x)
    >>> stream = DetectPeaksStream(noise, threshold=3.5, exclude=10)
    >>> peaks = np.concatenate([stream.push(x[:, :777]), stream.push(x[:, 777:]),
    ...                         stream.finish()])
    >>> bool(np.array_equal(peaks, dspk.detect_peaks(x, noise, threshold=3.5, exclude=10)))
    True
    """

    gives_samples = False

    def __init__(self, noise_levels, *, threshold=5.0, sign="neg", exclude=DEFAULT_EXCLUDE,
                 positions=None, radius=None, axis=-1, runtime=None):
        super().__init__(axis, runtime)
        _, _, self.exclude = checked_peak_options(threshold, sign, exclude, positions, radius)
        self._noise = to_numpy(noise_levels)
        self._options = {"threshold": threshold, "sign": sign, "exclude": self.exclude,
                         "positions": positions, "radius": radius}
        self._buffer: np.ndarray | None = None
        self._start = 0    # the buffer's first sample, in the whole signal
        self._decided = 0  # peaks before this sample have been given

    def _peaks(self, stop: int) -> np.ndarray:
        """The buffer's peaks from the first undecided sample to ``stop`` (whole-signal
        indices), with whole-signal indices."""
        peaks = detect_peaks(self._buffer, self._noise, axis=self.axis, runtime=self.runtime,
                             **self._options)
        peaks["sample_index"] += self._start
        index = peaks["sample_index"]
        return peaks[(index >= self._decided) & (index < stop)]

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        self._buffer = chunk if self._buffer is None else self._join(self._buffer, chunk)
        end = self._start + self._length(self._buffer)
        stop = end - self.exclude
        if stop <= self._decided:
            return self._empty()
        peaks = self._peaks(stop)
        self._decided = stop
        keep_from = max(self._start, stop - self.exclude)
        self._buffer = self._cut(self._buffer, keep_from - self._start, None).copy()
        self._start = keep_from
        return peaks

    def _finish(self) -> np.ndarray:
        end = self._start + self._length(self._buffer)
        return self._peaks(end) if end > self._decided else self._empty()

    def _empty(self) -> np.ndarray:
        return np.empty(0, peak_dtype(self.dtype if self.dtype is not None else np.float64))
