"""Destriping: the IBL's spatial high-pass filter across a probe's channels.

:func:`highpass_spatial_filter` follows SpikeInterface's function of the same
name, a port of the International Brain Laboratory's ``kfilt`` [1]_, on an
array instead of a recording object, with dspk's conventions (see
:mod:`dspk.multichannel`). Its array work runs through other dspk operations,
so every runtime that has them runs it: the automatic gain control's moving
average (:func:`dspk.fftconvolve` along time) and the Butterworth filter
along the channels (:func:`dspk.sosfiltfilt` across the channel axis); the
padding, taper and gains are elementwise host work.

References
----------
.. [1] International Brain Laboratory et al. (2022). Spike sorting pipeline for
   the International Brain Laboratory. https://www.internationalbrainlab.com/repro-ephys
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.signal

from dspk import validation
from dspk.arrays import to_numpy
from dspk.bad_channels import depth_order
from dspk.convolution import fftconvolve
from dspk.dispatch import Call
from dspk.docstrings import shared
from dspk.filtering import sosfiltfilt
from dspk.geometry import check_positions
from dspk.multichannel import _channels_by_samples

__all__ = ["highpass_spatial_filter"]

_DIRECTIONS = ("x", "y")


def cosine_taper(channels: int, width: int) -> np.ndarray:
    """SpikeInterface's taper: half cosines up over the first ``width`` channels, down at the end.

    The product of IBL's ``fcn_cosine([0, width])`` and ``1 -
    fcn_cosine([channels - width, channels])`` at ``0 .. channels - 1``.
    """
    i = np.arange(channels, dtype=np.float64)
    up = (1 - np.cos(np.clip(i / width, 0, 1) * np.pi)) / 2
    down = (1 - np.cos(np.clip((i - (channels - width)) / width, 0, 1) * np.pi)) / 2
    return up * (1 - down)


def agc_window(length_s: float, fs: float) -> np.ndarray:
    """The gain control's Hann window, ``round(length_s * fs / 2) * 2 + 1`` long, summing to 1."""
    window = np.hanning(int(np.round(length_s * fs / 2) * 2 + 1))
    return window / window.sum()


def _count(value: Any, name: str, channels: int, default: int) -> int:
    if value is None:
        return default
    count = validation.integer(value, name, minimum=0)
    if count > channels:
        raise ValueError(f"{name}={count} is more than the signal's {channels} channel(s)")
    return count


def _rms_values(rms_values: Any, channels: int) -> np.ndarray | None:
    if rms_values is None:
        return None
    values = np.atleast_1d(to_numpy(rms_values))
    if values.dtype.kind not in "biuf":
        raise TypeError(f"rms_values must hold real numbers; got dtype {values.dtype}")
    if values.shape != (channels,):
        raise ValueError(f"rms_values has shape {values.shape}; x has {channels} channel(s), "
                         f"so rms_values needs shape ({channels},)")
    validation.finite(values, "rms_values")
    return values.astype(np.float64)


def _positive(value: Any, name: str, below: float = np.inf) -> float:
    number = validation.real_number(value, name)
    if not 0 < number < below:
        bound = f" and < {below}" if below < np.inf else " and finite"
        raise ValueError(f"{name} must be a number > 0{bound}; got {value!r}")
    return number


@shared
def highpass_spatial_filter(x, fs, *, positions=None, n_channel_pad=60, n_channel_taper=0,
                            direction="y", apply_agc=True, agc_window_length_s=0.1,
                            highpass_butter_order=3, highpass_butter_wn=0.01, epsilon=0.003,
                            rms_values=None, axis=-1, dtype=None, runtime=None):
    """Destripe a recording: high-pass filter it across channels, along the probe's depth.

    As SpikeInterface's ``highpass_spatial_filter`` (IBL's ``kfilt``), which
    removes stripes, artefacts common to many channels that change slowly
    along the probe (a common median reference removes only what is common
    to all). With the channels sorted by depth:

    1. Automatic gain control (when ``apply_agc``): each channel is divided
       by ``max(epsilon * rms, gain)``, its gain being the moving average of
       its absolute value under a Hann window of ``agc_window_length_s``
       (:func:`dspk.fftconvolve`, ``mode="same"``). A channel of zeros is
       left as it is.
    2. ``n_channel_pad`` channels mirrored at each end (the end channels
       included), and a cosine taper over ``n_channel_taper`` channels at each
       end of the padded array (none when 0).
    3. A Butterworth high-pass filter of order ``highpass_butter_order`` and
       cut-off ``highpass_butter_wn`` (a fraction of the spatial Nyquist
       frequency), forward and backward across the channels at each sample
       (:func:`dspk.sosfiltfilt`, scipy's default odd padding).
    4. The padding removed, the gains multiplied back, the channels put back
       in their order.

    Parameters
    ----------
    {recording}
    fs : float
        The sampling frequency in Hz (for the gain control's window).
    positions : array_like, optional
        The channels' ``(x, y)`` positions, shape ``(C, 2)``. When the depths
        (``direction``) are not in ascending order, the channels are sorted
        by depth, ties by the other coordinate. None (the default) takes the
        channels to be in depth order already.
    n_channel_pad : int, optional
        Channels mirrored at each end before filtering, at most ``C``; None
        or 0 for none. Default 60.
    n_channel_taper : int, optional
        Channels tapered at each end of the padded array, at most ``C``; None
        takes ``n_channel_pad``. Default 0 (no taper), as in SpikeInterface.
    direction : {"x", "y"}, optional
        The coordinate of ``positions`` along the probe's depth. Default ``"y"``.
    apply_agc : bool, optional
        Apply the automatic gain control. Default True.
    agc_window_length_s : float, optional
        The gain control's window in seconds, ``> 0``. Default 0.1.
    highpass_butter_order : int, optional
        The spatial filter's order, ``>= 1``. Default 3.
    highpass_butter_wn : float, optional
        The spatial filter's cut-off, between 0 and 1 (1 is the Nyquist
        frequency of the channel spacing). Default 0.01.
    epsilon : float, optional
        The floor of the gains, as a fraction of each channel's RMS, ``>= 0``.
        Default 0.003.
    rms_values : array_like, optional
        Each channel's RMS, shape ``(C,)``, for the floor. None (the default)
        computes it over all of ``x``.
    {recording_axis}
    {dtype}
    {runtime}

    Returns
    -------
    y : ndarray
        The destriped recording, ``x``'s shape.

    Notes
    -----
    Differences from SpikeInterface, deliberate: the default RMS comes from
    the whole of ``x`` (SpikeInterface estimates it from random chunks);
    positions are 2-D, and ``direction`` chooses the depth coordinate of the
    sort (SpikeInterface sorts by ``y`` whatever ``direction`` says, when the
    depths are not ascending); float32 is computed in float32 and float64 in
    float64 (SpikeInterface computes the gains in float32); integer
    recordings give float64 (SpikeInterface rounds back to integers). On a
    whole signal SpikeInterface's gain control has no margin beyond the ends,
    so the moving average is zero-padded there, as here.

    Examples
    --------
    >>> import numpy as np, dspk
    >>> rng = np.random.default_rng(0)
    >>> stripe = rng.standard_normal(3000) * np.linspace(1, 2, 64)[:, None]
    >>> x = stripe + 0.1 * rng.standard_normal((64, 3000))
    >>> y = dspk.highpass_spatial_filter(x, 30000)
    >>> y.shape, bool(np.std(y) < 0.2 * np.std(x))
    ((64, 3000), True)
    """
    fs = validation.sampling_rate(fs)
    call, x = Call.start(runtime, x, "x", None)
    if call.native_in:
        x = call.backend.to_numpy(x)
    axis = _channels_by_samples(x, axis)
    dtype = validation.compute_dtype(x, requested=dtype)
    channels = x.shape[1 - axis]
    setup = Destriping(fs, channels, positions=positions, n_channel_pad=n_channel_pad,
                       n_channel_taper=n_channel_taper, direction=direction,
                       apply_agc=apply_agc, agc_window_length_s=agc_window_length_s,
                       highpass_butter_order=highpass_butter_order,
                       highpass_butter_wn=highpass_butter_wn, epsilon=epsilon,
                       rms_values=rms_values)
    validation.output_fits("highpass_spatial_filter", x, dtype)

    # Channels by samples, in the caller's memory layout (axis=0 is a transposed view).
    traces = (x if axis == 1 else x.T).astype(dtype, copy=False)
    gain = zeros = None
    if setup.apply_agc:
        if setup.rms is None:
            setup.rms = np.sqrt(np.einsum("ij,ij->i", traces, traces, dtype=np.float64)
                                / traces.shape[1])
        gain = fftconvolve(np.abs(traces), setup.window[None, :].astype(dtype), mode="same",
                           axes=1, runtime=runtime)
        zeros = ~traces.any(axis=1)
    filtered = setup.apply(traces, gain, zeros, "F" if axis == 0 else "C", runtime)
    return call.give_back_from(filtered if axis == 1 else filtered.T)


class Destriping:
    """The checked options of :func:`highpass_spatial_filter` and its steps after the gains.

    Everything but the gain control's moving average works sample by sample, so
    :func:`highpass_spatial_filter` and :class:`dspk.streaming.HighpassSpatialFilterStream`
    share this, each giving the gains of the samples it filters. ``rms`` is the
    channels' RMS in their own order (None until known), ``window`` the gain
    control's (float64), ``margin`` half its length: the samples each gain looks
    at on either side.

    Parameters
    ----------
    fs : float
        The sampling frequency in Hz.
    channels : int
        The channel count.
    positions, n_channel_pad, n_channel_taper, direction, apply_agc, agc_window_length_s
        As :func:`highpass_spatial_filter`'s.
    highpass_butter_order, highpass_butter_wn, epsilon, rms_values
        As :func:`highpass_spatial_filter`'s.
    """

    def __init__(self, fs: float, channels: int, *, positions=None, n_channel_pad=60,
                 n_channel_taper=0, direction="y", apply_agc=True, agc_window_length_s=0.1,
                 highpass_butter_order=3, highpass_butter_wn=0.01, epsilon=0.003,
                 rms_values=None):
        validation.choice(direction, _DIRECTIONS, "direction")
        self.channels, self.order = channels, None
        if positions is not None:
            positions = check_positions(positions, channels)
            depth = positions[:, _DIRECTIONS.index(direction)]
            if np.any(np.diff(depth) < 0):
                self.order = depth_order(positions, direction)
        self.pad = _count(n_channel_pad, "n_channel_pad", channels, 0)
        self.taper = _count(n_channel_taper, "n_channel_taper", channels, self.pad)
        if not isinstance(apply_agc, (bool, np.bool_)):
            raise TypeError(f"apply_agc must be True or False; got {apply_agc!r}")
        self.apply_agc = bool(apply_agc)
        order_n = validation.integer(highpass_butter_order, "highpass_butter_order", minimum=1)
        wn = _positive(highpass_butter_wn, "highpass_butter_wn", 1)
        self.sos = scipy.signal.butter(order_n, wn, "highpass", output="sos")
        # scipy's (and dspk's) default padding of sosfiltfilt: 3 * (2 * sections + 1 - zeros).
        sos = self.sos
        padlen = 3 * (2 * len(sos) + 1 - min((sos[:, 2] == 0).sum(), (sos[:, 5] == 0).sum()))
        if channels + 2 * self.pad <= padlen:
            raise ValueError(f"x has {channels} channel(s), {channels + 2 * self.pad} with "
                             f"n_channel_pad={self.pad} at each end; the spatial filter of "
                             f"order {order_n} needs more than {padlen}")
        self.window, self.margin, self.rms, self.eps = None, 0, None, 0.0
        if self.apply_agc:
            self.window = agc_window(_positive(agc_window_length_s, "agc_window_length_s"), fs)
            self.margin = len(self.window) // 2
            self.eps = validation.real_number(epsilon, "epsilon")
            if not 0 <= self.eps < np.inf:
                raise ValueError(f"epsilon must be a finite number >= 0; got {epsilon!r}")
            self.rms = _rms_values(rms_values, channels)

    def apply(self, traces: np.ndarray, gain: np.ndarray | None, zeros: np.ndarray | None,
              layout: str, runtime: Any) -> np.ndarray:
        """Destripe ``traces`` (channels by samples) whose gains are ``gain`` (None: no AGC).

        Parameters
        ----------
        traces : ndarray
            Channels by samples, in the caller's channel order.
        gain : ndarray or None
            The gain control's moving average at the same samples (changed in place).
        zeros : ndarray or None
            The channels of zeros, which stay so with a gain of 0.
        layout : {"C", "F"}
            The memory order of the padded array.
        runtime : str or None
            The runtime of the spatial filter.
        """
        dtype, channels, pad = traces.dtype, self.channels, self.pad
        if self.order is not None:
            traces = traces[self.order]
            if gain is not None:
                gain, zeros = gain[self.order], zeros[self.order]
        padded = np.empty((channels + 2 * pad, traces.shape[1]), dtype, order=layout)
        if gain is not None:
            rms = self.rms if self.order is None else self.rms[self.order]
            # The floor in the gains' dtype: rounding is monotonic, so the maximum is the
            # same as in float64 rounded, without a float64 array of the chunk's size.
            floor = np.maximum((self.eps * rms).astype(dtype)[:, None], gain)
            floor[zeros] = 1  # channels of zeros stay so
            gain[zeros] = 0  # their gains, exactly (the FFT leaves round-off)
            np.divide(traces, floor, out=padded[pad:pad + channels])
            del floor
        else:
            padded[pad:pad + channels] = traces
        traces = padded[pad:pad + channels]
        if pad:
            padded[:pad] = traces[:pad][::-1]
            padded[pad + channels:] = traces[-pad:][::-1]
        if self.taper:
            padded *= cosine_taper(len(padded), self.taper).astype(dtype)[:, None]
        filtered = sosfiltfilt(self.sos, padded, axis=0, runtime=runtime)[pad:pad + channels]
        if gain is not None:
            np.multiply(filtered, gain, out=filtered)
        if self.order is not None:
            restored = np.empty_like(filtered)
            restored[self.order] = filtered
            filtered = restored
        return filtered
