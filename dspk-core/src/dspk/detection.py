"""Noise levels and threshold peak detection, after SpikeInterface's.

scipy.signal has neither. :func:`noise_levels` follows SpikeInterface's
``get_noise_levels`` and :func:`detect_peaks` its
``sortingcomponents.peak_detection.detect_peaks`` (methods ``"by_channel"``
and ``"locally_exclusive"``), on an array instead of a recording object, with
dspk's conventions: ``axis`` is the time axis (channels by samples by
default, ``axis=0`` for the raw samples-by-channels layout, read as it lies in
memory); float32 is computed in float32, float64 and integers in float64;
channels are indices ``0 .. C - 1``; lengths are in samples, not milliseconds,
since dspk functions take no sampling rate they do not need.

Differences from SpikeInterface, all deliberate, are listed in each function's
Notes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dspk import geometry, validation
from dspk.arrays import to_numpy
from dspk.dispatch import Call, Signal2D
from dspk.docstrings import shared
from dspk.operations import bucket
from dspk.operations.detection import SIGNS, neighbour_table

__all__ = ["noise_levels", "detect_peaks", "PEAK_FIELDS", "DEFAULT_EXCLUDE"]

#: ``scipy.stats.norm.ppf(0.75)``: the MAD of a unit normal, SpikeInterface's constant.
MAD_TO_STD = 0.6744897501960817

_METHODS = ("mad", "std", "rms")

#: SpikeInterface's default ``exclude_sweep_ms``, 1 ms, at the 30 kHz of Neuropixels probes.
DEFAULT_EXCLUDE = 30

#: The fields of :func:`detect_peaks`'s result (the amplitude takes the signal's dtype).
PEAK_FIELDS = ("sample_index", "channel_index", "amplitude")


def peak_dtype(dtype: Any) -> np.dtype:
    """The structured dtype of peaks of a signal computed in ``dtype``.

    Examples
    --------
    >>> peak_dtype(np.float32).names
    ('sample_index', 'channel_index', 'amplitude')
    """
    return np.dtype([("sample_index", np.int64), ("channel_index", np.int64),
                     ("amplitude", np.dtype(dtype))])


def _recording(call_x: Any, axis: Any, name: str = "x") -> int:
    """Check a 1-D (one channel) or 2-D signal and its time axis."""
    axis = validation.signal_axis(call_x, axis, name)
    if call_x.ndim > 2:
        raise ValueError(f"{name} must be 1-D (one channel) or 2-D (channels by samples); got "
                         f"shape {tuple(call_x.shape)}")
    return axis


def _view(call: Call, x: Any, axis: Any) -> tuple[Signal2D, Any]:
    axis = _recording(x, axis)
    view = Signal2D.of(x.astype(validation.compute_dtype(x), copy=False), axis)
    return view, call.native(view.array)


def _host(call: Call, array: Any) -> np.ndarray:
    return call.backend.to_numpy(array) if call.backend.is_native(array) else np.asarray(array)


@shared
def noise_levels(x, method="mad", *, axis=-1, runtime=None):
    """The noise level of each channel: its median absolute deviation, scaled, or its spread.

    As SpikeInterface's ``get_noise_levels``, over the whole signal.

    Parameters
    ----------
    x : array_like
        The recording: 2-D, channels by samples (``axis=-1``) or samples by
        channels (``axis=0``), or 1-D, one channel.
    method : {"mad", "std", "rms"}, optional
        ``"mad"`` (the default): the median of ``abs(x - median(x))`` over
        time, divided by ``0.6744897501960817`` so that it estimates the
        standard deviation of Gaussian noise, robust to spikes. ``"std"``:
        the standard deviation about the channel's mean. ``"rms"``: the root
        mean square, about zero (for signals already high-passed).
    {recording_axis}
    {runtime}

    Returns
    -------
    levels : ndarray
        float64, shape ``(C,)``: one level per channel.

    Notes
    -----
    SpikeInterface estimates the levels from random chunks of the recording
    (20 chunks of 10000 samples by default) and averages the chunks'
    estimates; dspk uses every sample, so the result is exact and
    repeatable. With one chunk spanning the recording, SpikeInterface's value
    is this one (in float64). For ``"mad"`` on float32 data the medians are of
    float32 values (the centred values are rounded to float32, as NumPy
    computes them) and the middle two of an even count are averaged in
    float64. A NaN on a channel makes that channel's level NaN. Integer
    recordings are computed in float64.

    Examples
    --------
    >>> import numpy as np, dspk
    >>> x = np.random.default_rng(0).standard_normal((2, 100000)) * [[1.0], [3.0]]
    >>> np.round(dspk.noise_levels(x), 1)
    array([1., 3.])
    >>> np.round(dspk.noise_levels(x, "std"), 1)
    array([1., 3.])
    """
    validation.choice(method, _METHODS, "method")
    call, x = Call.start(runtime, x, "x", "noise_levels")
    view, signal = _view(call, x, axis)
    return _estimate(call, view, signal, method)


def _estimate(call: Call, view: Signal2D, signal: Any, method: str) -> np.ndarray:
    """:func:`noise_levels` of a checked signal: float64 host ``(C,)``."""
    if method == "mad":
        median = call.run(view.problem("channel_median", centred=False), signal, view.axis, None)
        spread = call.run(view.problem("channel_median", centred=True), signal, view.axis,
                          _host(call, median))
        return _host(call, spread).astype(np.float64) / MAD_TO_STD
    mean = None
    if method == "std":
        mean = _host(call, call.run(view.problem("channel_mean"), signal, view.axis))
    squares = call.run(view.problem("channel_mean_square", centred=mean is not None), signal,
                       view.axis, mean)
    return np.sqrt(_host(call, squares).astype(np.float64))


def _levels(noise: Any, channels: int) -> np.ndarray:
    values = np.atleast_1d(to_numpy(noise))
    if values.dtype.kind not in "biuf":
        raise TypeError(f"noise_levels must hold real numbers; got dtype {values.dtype}")
    if values.shape != (channels,):
        raise ValueError(f"noise_levels has shape {values.shape}; x has {channels} channel(s), "
                         f"so noise_levels needs one value per channel, shape ({channels},)")
    values = values.astype(np.float64)
    bad = np.flatnonzero(~(np.isfinite(values) & (values >= 0)))
    if bad.size:
        raise ValueError(f"noise_levels must be finite and >= 0; channel {bad[0]} has "
                         f"{values[bad[0]]}")
    return values


def neighbourhoods(positions: Any, radius: Any, channels: int) -> np.ndarray:
    """The kernels' neighbour table (see :func:`dspk.operations.detection.neighbour_table`):
    each channel's others within ``radius``, from :func:`dspk.geometry.within_radius`.

    Examples
    --------
    >>> neighbourhoods([[0, 0], [0, 20], [0, 40]], 25, 3).tolist()
    [[1, -1], [0, 2], [1, -1]]
    """
    table = geometry.within_radius(geometry.check_positions(positions, channels), radius)
    return neighbour_table([row[row >= 0] for row in table], channels)


def checked_peak_options(threshold: Any, sign: Any, exclude: Any, positions: Any,
                         radius: Any) -> tuple[float, str, int]:
    """Check the options that do not depend on the signal; ``threshold``, ``sign``, ``exclude``."""
    threshold = validation.real_number(threshold, "threshold")
    if not 0 < threshold < np.inf:
        raise ValueError(f"threshold must be a finite number > 0; got {threshold}")
    validation.choice(sign, SIGNS, "sign")
    exclude = validation.integer(exclude, "exclude", minimum=0)
    if (positions is None) != (radius is None):
        given, missing = ("radius", "positions") if positions is None else ("positions", "radius")
        raise ValueError(f"{given} was given without {missing}: locally exclusive detection "
                         "needs both (pass neither to detect on each channel alone)")
    return threshold, sign, exclude


@shared
def detect_peaks(x, noise_levels=None, *, threshold=5.0, sign="neg", exclude=DEFAULT_EXCLUDE,
                 positions=None, radius=None, axis=-1, runtime=None):
    """Threshold crossings that are the extremum of their neighbourhood in time (and space).

    As SpikeInterface's ``detect_peaks`` with ``method="by_channel"``, or with
    ``positions`` and ``radius``, ``method="locally_exclusive"``. For
    ``sign="neg"`` a sample ``v = x[c, t]`` is a peak when

    - it crosses the threshold: ``v < -threshold * noise_levels[c]``;
    - it is the minimum of its channel within ``exclude`` samples: ``v <
      x[c, u]`` for the ``exclude`` samples before it and ``v <= x[c, u]``
      for the ``exclude`` samples after it (so of equal values the first is
      the peak);
    - locally exclusive only: the same holds on every other channel within
      ``radius`` of channel ``c`` (its neighbours), and ``v <= x[n, t]`` on
      each neighbour at the same sample (so equal values on several channels
      at one sample are all peaks).

    ``sign="pos"`` mirrors it (maxima above ``+threshold * noise``);
    ``sign="both"`` takes either. Samples beyond the signal's ends are not
    compared (which is SpikeInterface's zero padding, for thresholds >= 0).

    Parameters
    ----------
    x : array_like
        The recording (band-passed): 2-D, channels by samples (``axis=-1``)
        or samples by channels (``axis=0``), or 1-D, one channel.
    noise_levels : array_like, optional
        Each channel's noise level, shape ``(C,)``, finite and ``>= 0``. None
        (the default) computes :func:`dspk.noise_levels` (``"mad"``) of ``x``.
    threshold : float, optional
        The threshold in noise levels, ``> 0`` (SpikeInterface's
        ``detect_threshold``). Default 5.
    sign : {"neg", "pos", "both"}, optional
        The sign of the peaks (SpikeInterface's ``peak_sign``). Default
        ``"neg"``.
    exclude : int, optional
        Samples on each side within which a peak must be the extremum,
        ``>= 0`` (SpikeInterface's ``exclude_sweep_ms`` in samples). The
        default, 30, is SpikeInterface's 1 ms at 30 kHz.
    positions : array_like, optional
        The channels' ``(x, y)`` positions, shape ``(C, 2)`` (see
        :mod:`dspk.geometry`), for locally exclusive detection; with ``radius``.
    radius : float, optional
        Channels at a distance ``<= radius`` (in the units of ``positions``)
        of each other are neighbours (SpikeInterface's ``radius_um``).
    {recording_axis}
    {runtime}

    Returns
    -------
    peaks : ndarray
        A structured NumPy array (also for device input), one element per
        peak, sorted by sample then channel, with fields ``sample_index``
        (int64), ``channel_index`` (int64) and ``amplitude`` (the value of
        ``x`` there, in its computation dtype).

    Notes
    -----
    A NaN is never a peak, and a NaN among the samples a candidate is
    compared with suppresses it: every comparison with NaN is false, as in
    NumPy and SpikeInterface's ``"by_channel"``. The threshold
    ``threshold * noise_levels`` is computed in float64 and rounded to
    ``x``'s dtype before the comparison. Differences from SpikeInterface:
    lengths are in samples; the whole signal is one chunk; SpikeInterface's
    ``segment_index`` field is left out; its ``"locally_exclusive"`` method
    (numba engine, 0.105) first keeps local extrema (one sample either side,
    threshold crossed with ``<=``) and then drops those with a larger
    ``abs(amplitude) / threshold`` among the neighbours' within ``exclude``
    samples, while dspk applies the rule above (SpikeInterface's OpenCL
    engine's, and its earlier numba engine's): they agree except where
    neighbouring channels' thresholds or near-equal extrema differ. With
    ``exclude=0`` a locally exclusive peak is still compared with its
    neighbours at the same sample.

    Examples
    --------
    >>> import numpy as np, dspk
    >>> x = np.random.default_rng(0).standard_normal((3, 3000))
    >>> x[1, 1000:1003] += [-6.0, -12.0, -5.0]  # a spike on channel 1
    >>> x[2, 1001] -= 9.0                        # seen on channel 2 as well
    >>> peaks = dspk.detect_peaks(x, exclude=10)
    >>> peaks[["sample_index", "channel_index"]].tolist()
    [(1001, 1), (1001, 2)]
    >>> positions = [[0, 0], [0, 20], [0, 40]]
    >>> dspk.detect_peaks(x, exclude=10, positions=positions, radius=25)["channel_index"]
    array([1])
    """
    threshold, sign, exclude = checked_peak_options(threshold, sign, exclude, positions,
                                                    radius)
    call, x = Call.start(runtime, x, "x", "detect_peaks")
    view, signal = _view(call, x, axis)
    if noise_levels is None:
        noise = _estimate(call, view, signal, "mad")
    else:
        noise = _levels(noise_levels, view.channels)
    levels = threshold * noise
    neighbours = None if positions is None else neighbourhoods(positions, radius, view.channels)
    problem = view.problem("detect_peaks", sign=sign, exclude=bucket(exclude),
                           neighbours=neighbours is not None)
    samples, channels, amplitudes = call.run(problem, signal, view.axis, levels, sign, exclude,
                                             neighbours)
    samples = _host(call, samples)
    peaks = np.empty(len(samples), peak_dtype(view.array.dtype))
    peaks["sample_index"] = samples
    peaks["channel_index"] = _host(call, channels)
    peaks["amplitude"] = _host(call, amplitudes)
    return peaks
