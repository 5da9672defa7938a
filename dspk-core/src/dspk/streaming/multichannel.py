"""Streams across channels: common reference and bad-channel interpolation (exact, sample by
sample), phase shift (tapered blocks) and destriping (exact, half a gain window behind)."""

from __future__ import annotations

import numpy as np
from scipy import fft

from dspk import validation
from dspk.arrays import to_numpy
from dspk.bad_channels import interpolate_bad_channels
from dspk.convolution import fftconvolve
from dspk.destripe import Destriping
from dspk.docstrings import shared
from dspk.multichannel import DEFAULT_MARGIN, common_reference, phase_shift
from dspk.streaming.base import Stream

__all__ = ["CommonReferenceStream", "InterpolateBadChannelsStream", "PhaseShiftStream",
           "HighpassSpatialFilterStream"]


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



@shared
class HighpassSpatialFilterStream(Stream):
    """:func:`dspk.highpass_spatial_filter` (destriping) over a stream, exact.

    The spatial filter works on each sample on its own; the automatic gain
    control's moving average along time looks ``margin`` samples (half its
    window) ahead, so the output lags the input by ``margin`` samples, and
    the signal's ends are padded with zeros, as the one-shot's ``"same"``
    convolution pads them. The gains are the moving average of the samples
    held (the chunk and ``2 * margin`` samples before it), a ``"valid"``
    :func:`dspk.fftconvolve`: the one-shot's to rounding.

    Parameters
    ----------
    fs : float
        The sampling frequency in Hz (for the gain control's window).
    positions, n_channel_pad, n_channel_taper, direction, apply_agc, agc_window_length_s
        As :func:`dspk.highpass_spatial_filter`'s.
    highpass_butter_order, highpass_butter_wn, epsilon
        As :func:`dspk.highpass_spatial_filter`'s.
    rms_values : array_like
        Each channel's RMS, shape ``(C,)``, for the gains' floor: needed with
        ``apply_agc`` (the one-shot's default, the RMS of the whole signal,
        is unknown until its end). Estimate it from a part of the signal, as
        ``dspk filter --destripe`` does.
    {stream_axis}
    {runtime}

    Attributes
    ----------
    margin : int
        The samples the output lags the input: half the gain control's
        window, 0 without it.

    Notes
    -----
    A channel whose samples held are all zeros is given gains of 0, as the
    one-shot gives a channel of zeros over the whole signal (elsewhere the
    one-shot's gain there is FFT round-off, so both outputs are 0 to it).

    Examples
    --------
    >>> import numpy as np, dspk
    >>> from dspk.streaming import HighpassSpatialFilterStream
    >>> rng = np.random.default_rng(0)
    >>> x = rng.standard_normal((3000, 64)) + rng.standard_normal((3000, 1))  # samples by channels
    >>> rms = np.sqrt(np.mean(x ** 2, axis=0))
    >>> stream = HighpassSpatialFilterStream(30000, rms_values=rms, axis=0)
    >>> stream.margin, stream.push(x[:1000]).shape  # the output lags
    (1500, (0, 64))
    >>> y = np.concatenate([stream.push(x[1000:]), stream.finish()])
    >>> bool(np.allclose(y, dspk.highpass_spatial_filter(x, 30000, rms_values=rms, axis=0)))
    True
    """

    def __init__(self, fs, *, positions=None, n_channel_pad=60, n_channel_taper=0,
                 direction="y", apply_agc=True, agc_window_length_s=0.1,
                 highpass_butter_order=3, highpass_butter_wn=0.01, epsilon=0.003,
                 rms_values=None, axis=-1, runtime=None):
        super().__init__(axis, runtime)
        self._fs = validation.sampling_rate(fs)
        if not isinstance(apply_agc, (bool, np.bool_)):
            raise TypeError(f"apply_agc must be True or False; got {apply_agc!r}")
        if apply_agc and rms_values is None:
            raise ValueError("a stream needs rms_values with apply_agc: the RMS of the whole "
                             "signal is unknown until its end; estimate it from a part")
        self._options = {"positions": positions, "n_channel_pad": n_channel_pad,
                         "n_channel_taper": n_channel_taper, "direction": direction,
                         "apply_agc": apply_agc, "agc_window_length_s": agc_window_length_s,
                         "highpass_butter_order": highpass_butter_order,
                         "highpass_butter_wn": highpass_butter_wn, "epsilon": epsilon,
                         "rms_values": rms_values}
        known = positions if positions is not None else rms_values
        self._setup = (None if known is None else
                       Destriping(self._fs, len(to_numpy(known)), **self._options))
        self.margin = 0 if self._setup is None else self._setup.margin
        self._buffer: np.ndarray | None = None

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        if chunk.ndim != 2:
            raise ValueError(f"chunks must be 2-D, channels by samples or samples by channels; "
                             f"got {chunk.ndim}-D")
        channels = chunk.shape[1 - self.axis]
        if self._setup is None:
            self._setup = Destriping(self._fs, channels, **self._options)
        elif self._setup.channels != channels:
            raise ValueError(f"the chunks have {channels} channel(s); positions and rms_values "
                             f"give {self._setup.channels}")
        if not self.margin:
            return self._destripe(chunk, None, None)
        if self._buffer is None:
            self._buffer = self._zeros(self.margin)
        self._buffer = self._join(self._buffer, chunk)
        if self._length(self._buffer) <= 2 * self.margin:
            return self._empty()
        return self._emit()

    def _finish(self) -> np.ndarray:
        if not self.margin:
            return self._empty()
        self._buffer = self._join(self._buffer, self._zeros(self.margin))
        if self._length(self._buffer) <= 2 * self.margin:
            return self._empty()
        return self._emit()

    def _zeros(self, n: int) -> np.ndarray:
        shape = list(self._like.shape)
        shape[self.axis] = n
        return np.zeros(shape, self.dtype)

    def _emit(self) -> np.ndarray:
        """Destripe the buffer's samples that have ``margin`` samples on both sides."""
        m, n = self.margin, self._length(self._buffer)
        traces = self._buffer if self.axis == 1 else self._buffer.T
        window = self._setup.window[None, :].astype(self.dtype)
        gain = fftconvolve(np.abs(traces), window, mode="valid", axes=1, runtime=self.runtime)
        y = self._destripe(self._cut(self._buffer, m, n - m), np.asarray(gain),
                           ~traces.any(axis=1))
        self._buffer = self._cut(self._buffer, n - 2 * m, None).copy()
        return y

    def _destripe(self, chunk: np.ndarray, gain: np.ndarray | None,
                  zeros: np.ndarray | None) -> np.ndarray:
        traces = chunk if self.axis == 1 else chunk.T
        y = self._setup.apply(traces, gain, zeros, "F" if self.axis == 0 else "C",
                              self.runtime)
        return np.asarray(y if self.axis == 1 else y.T)
