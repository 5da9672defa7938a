"""Streams across channels: common reference and bad-channel interpolation (exact, sample by
sample) and phase shift (tapered blocks)."""

from __future__ import annotations

import numpy as np
from scipy import fft

from dspk import validation
from dspk.arrays import to_numpy
from dspk.bad_channels import interpolate_bad_channels
from dspk.docstrings import shared
from dspk.multichannel import DEFAULT_MARGIN, common_reference, phase_shift
from dspk.streaming.base import Stream

__all__ = ["CommonReferenceStream", "InterpolateBadChannelsStream", "PhaseShiftStream"]


@shared
class CommonReferenceStream(Stream):
    """:func:`dspk.common_reference` over a stream: each sample on its own, exact.

    Parameters
    ----------
    reference, operator, groups, axis
        As :func:`dspk.common_reference`'s.
    ref_channels, radius, min_neighbours, positions
        As :func:`dspk.common_reference`'s (the ``"single"`` and ``"local"``
        references).
    {runtime}

    Examples
    --------
    >>> import numpy as np, dspk
    >>> from dspk.streaming import CommonReferenceStream
    >>> x = np.random.default_rng(0).standard_normal((100, 8))  # samples by channels
    >>> stream = CommonReferenceStream(axis=0)
    >>> y = np.concatenate([stream.push(x[:30]), stream.push(x[30:]), stream.finish()])
    >>> bool(np.array_equal(y, dspk.common_reference(x, axis=0)))
    True
    """

    def __init__(self, reference="global", operator="median", groups=None, axis=-1, *,
                 ref_channels=None, radius=(30.0, 55.0), min_neighbours=5, positions=None,
                 runtime=None):
        super().__init__(axis, runtime)
        validation.choice(reference, ("global", "single", "local"), "reference")
        validation.choice(operator, ("median", "average"), "operator")
        self._options = {"reference": reference, "operator": operator, "groups": groups,
                         "ref_channels": ref_channels, "radius": radius,
                         "min_neighbours": min_neighbours, "positions": positions}

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        return common_reference(chunk, axis=self.axis, runtime=self.runtime, **self._options)


@shared
class InterpolateBadChannelsStream(Stream):
    """:func:`dspk.interpolate_bad_channels` over a stream: each sample on its own, exact.

    Parameters
    ----------
    bad_channels, positions, sigma_um, p
        As :func:`dspk.interpolate_bad_channels`'s.
    {stream_axis}
    {runtime}

    Examples
    --------
    >>> import numpy as np, dspk
    >>> from dspk.streaming import InterpolateBadChannelsStream
    >>> x = np.random.default_rng(0).standard_normal((100, 3))  # samples by channels
    >>> positions = [[0, 0], [0, 20], [0, 40]]
    >>> stream = InterpolateBadChannelsStream([1], positions, axis=0)
    >>> y = np.concatenate([stream.push(x[:30]), stream.push(x[30:]), stream.finish()])
    >>> bool(np.array_equal(y, dspk.interpolate_bad_channels(x, [1], positions, axis=0)))
    True
    """

    def __init__(self, bad_channels, positions, *, sigma_um=None, p=1.3, axis=-1,
                 runtime=None):
        super().__init__(axis, runtime)
        self._arguments = (to_numpy(bad_channels), to_numpy(positions))
        self._options = {"sigma_um": sigma_um, "p": p}

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        return interpolate_bad_channels(chunk, *self._arguments, axis=self.axis,
                                        runtime=self.runtime, **self._options)


def taper(margin: int) -> np.ndarray:
    """Weights of a left margin: a squared sine rising over its outer half, then ones."""
    rise = margin - margin // 2
    ramp = np.sin(np.pi / 2 * (np.arange(rise) + 0.5) / max(rise, 1)) ** 2
    return np.concatenate([ramp, np.ones(margin // 2)])


def fast_length_below(n: int) -> int:
    """The largest length ``<= n`` whose real FFT is fast (:func:`scipy.fft.next_fast_len`'s).

    Examples
    --------
    >>> fast_length_below(35168)  # 2**5 * 7 * 157: 157 is a slow prime factor
    34992
    """
    length = n
    while fft.next_fast_len(length, real=True) != length:
        length -= 1
    return length


@shared
class PhaseShiftStream(Stream):
    """:func:`dspk.phase_shift` over a stream, in blocks with tapered margins.

    Each block is shifted with ``margin`` samples of the signal on each side
    as context (zeros before the first sample and after the last, as the
    one-shot pads), tapered to zero over the margin's outer half with a
    squared sine so that the block's circular FFT sees no jump; the block's
    middle is the output, and whole-sample shifts up to ``margin // 2`` are
    exact. A block is shifted once at least ``2 * margin`` new samples have
    arrived, so the output lags the input by ``margin`` to ``3 * margin``
    samples (more when a block is shortened to a length whose FFT is fast:
    a length with a large prime factor costs several times as much).

    Parameters
    ----------
    shifts : array_like
        The delay of each channel in samples, as :func:`dspk.phase_shift`'s.
    margin : int, optional
        Samples of context on each side of a block. Default 1200.
    {stream_axis}
    {runtime}

    Notes
    -----
    A fractional delay is an interpolation whose kernel, a sinc, decays as
    ``1 / k`` only, so no finite context reproduces the one-shot result of a
    signal with power up to the Nyquist frequency: for white noise the
    relative error is about 1e-2. For a signal band-limited below about
    0.4 times the sampling rate (after a 6 kHz low-pass at 30 kHz), the taper
    brings it to about 1e-7 with ``margin=200`` and 1e-9 with the default
    1200 (relative to the signal's largest value), except near the ends of
    the signal: there the one-shot's zero padding makes a jump whose ringing
    also decays as ``1 / k``, and the stream reproduces it only within its
    last block. A signal that reaches :meth:`finish` in one block gives
    exactly ``phase_shift(x, shifts, margin=margin)``.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> from dspk.streaming import PhaseShiftStream
    >>> sos = scipy.signal.butter(3, [300, 6000], "bandpass", fs=30000, output="sos")
    >>> noise = np.random.default_rng(0).standard_normal((2, 20000))
    >>> x = scipy.signal.sosfiltfilt(sos, noise) * scipy.signal.windows.tukey(20000)
    >>> stream = PhaseShiftStream([0.25, 0.5])
    >>> parts = [stream.push(x[:, i:i + 5000]) for i in range(0, 20000, 5000)]
    >>> y = np.concatenate([*parts, stream.finish()], axis=-1)
    >>> reference = dspk.phase_shift(x, [0.25, 0.5])
    >>> bool(np.abs(y - reference).max() < 1e-7 * np.abs(reference).max())
    True
    """

    def __init__(self, shifts, *, margin=DEFAULT_MARGIN, axis=-1, runtime=None):
        super().__init__(axis, runtime)
        self._shifts = np.atleast_1d(to_numpy(shifts))
        if self._shifts.ndim != 1 or self._shifts.dtype.kind not in "biuf":
            raise ValueError(f"shifts must be real numbers of samples, one per channel; got "
                             f"shape {self._shifts.shape}, dtype {self._shifts.dtype}")
        validation.finite(self._shifts, "shifts")
        self.margin = validation.integer(margin, "margin", minimum=0)
        self._ramp = taper(self.margin)
        self._buffer: np.ndarray | None = None

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        if self._buffer is None:
            channels = 1 if chunk.ndim == 1 else chunk.size // self._length(chunk)
            if self._shifts.size != channels:
                raise ValueError(f"shifts has {self._shifts.size} value(s); the chunks have "
                                 f"{channels} channel(s), which need one each")
            self._buffer = self._zeros(self.margin)
        self._buffer = self._join(self._buffer, chunk)
        n = self._length(self._buffer)
        if n - 2 * self.margin < max(2 * self.margin, 1):
            return self._empty()
        fast = fast_length_below(n)
        return self._emit(fast if fast - 2 * self.margin >= max(2 * self.margin, 1) else n)

    def _finish(self) -> np.ndarray:
        self._buffer = self._join(self._buffer, self._zeros(self.margin))
        if self._length(self._buffer) == 2 * self.margin:
            return self._empty()
        return self._emit(self._length(self._buffer))

    def _zeros(self, n: int) -> np.ndarray:
        shape = list(self._like.shape)
        shape[self.axis] = n
        return np.zeros(shape, self.dtype)

    def _emit(self, n: int) -> np.ndarray:
        """Shift the buffer's first ``n`` samples; give their middle; keep what follows."""
        m = self.margin
        block = self._cut(self._buffer, 0, n).copy()
        if m:
            shape = [1] * block.ndim
            shape[self.axis] = m
            ramp = self._ramp.astype(self.dtype).reshape(shape)
            self._cut(block, 0, m)[...] *= ramp
            self._cut(block, n - m, None)[...] *= self._flip(ramp)
        y = phase_shift(block, self._shifts, margin=0, axis=self.axis, runtime=self.runtime)
        self._buffer = self._cut(self._buffer, n - 2 * m, None).copy()
        return self._cut(y, m, n - m).copy(order="K")

