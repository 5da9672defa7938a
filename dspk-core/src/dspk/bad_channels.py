"""Bad channels of a probe recording: finding them and interpolating them from their neighbours.

:func:`detect_bad_channels` and :func:`interpolate_bad_channels` follow
SpikeInterface's functions of the same names, which port the International
Brain Laboratory's (IBL) ``detect_bad_channels`` and ``interpolate_bad_channels``
[1]_, on an array instead of a recording object, with dspk's conventions
(see :mod:`dspk.multichannel`): ``axis`` is the time axis, channels are
indices ``0 .. C - 1`` of the other axis, float32 computes in float32.

The array work runs through other dspk operations, so every runtime that has
them runs it: the detection's high-pass filter (:func:`dspk.sosfiltfilt`),
power spectra (:func:`dspk.welch`) and median across channels
(:func:`dspk.common_reference`); the interpolation's product with a
``(C, C)`` matrix (the kernel :func:`dspk.whiten` applies its matrix with).
The per-channel decisions and the matrix are small host computations.

Channel positions are a ``(C, 2)`` array of ``(x, y)`` coordinates in
micrometres, row ``i`` for channel ``i``.

References
----------
.. [1] International Brain Laboratory et al. (2022). Spike sorting pipeline for
   the International Brain Laboratory. https://www.internationalbrainlab.com/repro-ephys
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import numpy as np
import scipy.signal
import scipy.spatial
import scipy.stats

from dspk import validation
from dspk.arrays import to_numpy
from dspk.dispatch import Call, Signal2D
from dspk.docstrings import shared
from dspk.filtering import sosfiltfilt
from dspk.geometry import check_positions
from dspk.kernel_support.copies import copy_in_blocks
from dspk.multichannel import _channels_by_samples, common_reference
from dspk.spectral import welch

__all__ = ["detect_bad_channels", "interpolate_bad_channels"]

#: The methods of :func:`detect_bad_channels`.
METHODS = ("coherence+psd", "mad", "std")
#: The labels of :func:`detect_bad_channels`, by the code IBL gives them (0 to 3).
LABELS = ("good", "dead", "noise", "out")
_BAD = frozenset(LABELS[1:])
_DIRECTIONS = ("x", "y")
_LOCATIONS = ("top", "bottom", "both")
#: About how many values (channels by samples, margins included) of the recording
#: :func:`detect_bad_channels` high-passes and labels in one call of each operation:
#: 16 Mi, 64 MiB in float32 (four 0.3 s chunks of 384 channels at 30 kHz).
_GROUP_ELEMENTS = 1 << 24


class BadChannels(NamedTuple):
    """What :func:`detect_bad_channels` returns; unpacks as SpikeInterface's pair.

    Attributes
    ----------
    indices : ndarray of int64
        The bad channels (those whose label is in ``channel_filters``), ascending.
    labels : ndarray of str
        Each channel's label: ``"good"``, ``"dead"``, ``"noise"`` or ``"out"``.
    """

    indices: np.ndarray
    labels: np.ndarray


# --- positions ---------------------------------------------------------------------------

def depth_order(positions: np.ndarray | None, direction: str) -> np.ndarray | None:
    """The channels sorted by depth (``direction``), ties by the other coordinate; None if sorted.

    SpikeInterface's ``order_channels_by_depth(dimensions=("x", "y"))`` for
    ``direction="y"``: :func:`numpy.lexsort`, bottom (smallest depth) first.
    """
    if positions is None:
        return None
    depth = _DIRECTIONS.index(direction)
    order = np.lexsort((positions[:, 1 - depth], positions[:, depth]))
    return None if np.array_equal(order, np.arange(len(order))) else order


# --- argument checks ---------------------------------------------------------------------

def _real(value: Any, name: str, low: float = -np.inf, high: float = np.inf,
          open_low: bool = False) -> float:
    number = validation.real_number(value, name)
    if not (low < number if open_low else low <= number) or not number < high:
        bounds = f"> {low}" if open_low else f">= {low}"
        raise ValueError(f"{name} must be a finite number {bounds}"
                         + (f" and < {high}" if high < np.inf else "") + f"; got {value!r}")
    return number


def _channel_filters(channel_filters: Any) -> frozenset:
    if channel_filters is None:
        return _BAD
    if isinstance(channel_filters, str) or not isinstance(channel_filters, (set, frozenset,
                                                                             list, tuple)):
        raise TypeError(f"channel_filters must be None or a set of labels among "
                        f"{sorted(_BAD)}; got {channel_filters!r}")
    unknown = set(channel_filters) - _BAD
    if unknown:
        raise ValueError(f"channel_filters names {sorted(map(str, unknown))}, not among the bad "
                         f"labels {sorted(_BAD)}")
    return frozenset(channel_filters)


def _seed(seed: Any) -> int | None:
    if seed is None:
        return None
    return validation.integer(seed, "seed", minimum=0)


# --- detection ---------------------------------------------------------------------------

def chunk_starts(samples: int, size: int, count: int, seed: int | None) -> np.ndarray:
    """SpikeInterface's ``get_random_sample_slices``: ``count`` sorted random starts."""
    rng = np.random.default_rng(seed)
    return np.sort(rng.integers(low=0, high=samples - size, size=count, endpoint=True))


def shrinking_median(values: np.ndarray, size: int) -> np.ndarray:
    """Median filter of ``2 * (size // 2) + 1`` values whose window shrinks at the ends.

    SpikeInterface's ``shrinking_median_filter``: no padding, the window
    clipped to the array.
    """
    half = size // 2
    padded = np.pad(values.astype(np.float64), half, constant_values=np.nan)
    windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * half + 1)
    return np.nanmedian(windows, axis=1)


def ibl_labels(xcorr: np.ndarray, psd_hf: np.ndarray, *, psd_hf_threshold: float,
               dead: float, noisy: float, outside: float, n_neighbors: int,
               location: str) -> np.ndarray:
    """IBL's codes (0 good, 1 dead, 2 noise, 3 out) from channels in depth order."""
    trend = shrinking_median(xcorr, n_neighbors)
    neighbours = xcorr - trend
    codes = np.zeros(len(xcorr), dtype=np.int64)
    codes[neighbours < dead] = 1
    codes[(psd_hf > psd_hf_threshold) | (neighbours > noisy)] = 2
    below = np.flatnonzero(trend < outside + 1)
    if below.size:
        blocks = np.split(below, np.flatnonzero(np.diff(below) > 1) + 1)
        if location in ("top", "both") and blocks[-1][-1] == len(xcorr) - 1:
            codes[blocks[-1]] = 3
        if location in ("bottom", "both") and blocks[0][0] == 0:
            codes[blocks[0]] = 3
    return codes


def _coherence_psd_codes(chunks: np.ndarray, order: np.ndarray | None, fs: float,
                         nperseg: int, nyquist_threshold: float, runtime: Any,
                         **thresholds: Any) -> np.ndarray:
    """The codes of each chunk, shape ``(k, C)``, of ``chunks`` ``(k, C, size)`` (centred
    in place).

    The chunks go through each array operation together: Welch's spectra of all
    their channels in one call, and the median across channels of the chunks
    joined in time (it is taken sample by sample), so that a runtime is called
    three times whatever ``k`` is. The features do not depend on the channels'
    order: only the labelling, which compares neighbours, takes them in depth
    ``order``.
    """
    k, channels, size = chunks.shape
    raw = chunks  # the caller's own: centred in place
    raw -= raw.mean(axis=2, keepdims=True, dtype=np.float64).astype(raw.dtype)
    f, psd = welch(raw.reshape(k * channels, size), fs=fs, window="hann", nperseg=nperseg,
                   runtime=runtime)
    high = f > fs / 2 * nyquist_threshold
    psd_hf = np.asarray(psd, np.float64)[:, high].mean(axis=1).reshape(k, channels)
    # The median across channels, sample by sample: what common_reference subtracts.
    joined = np.ascontiguousarray(raw.transpose(1, 0, 2)).reshape(channels, k * size)
    ref = joined[0].astype(np.float64) - common_reference(joined, runtime=runtime)[0]
    ref = ref.reshape(k, size)
    ref -= ref.mean(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        xcorr = (np.matmul(raw, ref.astype(raw.dtype)[:, :, None])[:, :, 0].astype(np.float64)
                 / np.einsum("ks,ks->k", ref, ref)[:, None])
    depth = slice(None) if order is None else order
    codes = np.empty((k, channels), dtype=np.int64)
    for i in range(k):
        codes[i, depth] = ibl_labels(xcorr[i, depth], psd_hf[i, depth], **thresholds)
    return codes


@shared
def detect_bad_channels(x, fs, method="coherence+psd", *, positions=None, std_mad_threshold=5.0,
                        psd_hf_threshold=0.02, dead_channel_threshold=-0.5,
                        noisy_channel_threshold=1.0, outside_channel_threshold=-0.75,
                        outside_channels_location="top", n_neighbors=11, nyquist_threshold=0.8,
                        direction="y", chunk_duration_s=0.3, num_random_chunks=100,
                        welch_window_ms=10.0, highpass_filter_cutoff=300.0, seed=None,
                        channel_filters=None, axis=-1, runtime=None):
    """Find dead, noisy and out-of-brain channels, as SpikeInterface and the IBL do.

    As SpikeInterface's ``detect_bad_channels``. ``num_random_chunks`` chunks
    of ``chunk_duration_s`` start at random samples (SpikeInterface's choice,
    drawn from ``numpy.random.default_rng(seed)``); each is high-passed
    (unless ``highpass_filter_cutoff`` is None) and the channels labelled on
    it; a channel's label is the one most chunks give it (ties to the first
    of good, dead, noise, out).

    ``"coherence+psd"`` (IBL's method), on each chunk with channels sorted by
    depth and their means removed: ``ref`` is the median across channels at
    each sample, less its mean; each channel's similarity to it is ``xcorr =
    channel . ref / ref . ref``; its ``trend`` is the median of ``xcorr``
    over ``n_neighbors`` channels around it (the window shrinking at the
    probe's ends). A channel is *dead* when ``xcorr - trend`` is below
    ``dead_channel_threshold``; *noise* when that is above
    ``noisy_channel_threshold`` or its mean power above ``nyquist_threshold``
    times the Nyquist frequency (Welch, Hann windows of ``welch_window_ms``)
    is above ``psd_hf_threshold``; *out* (of the brain) when it belongs to the
    run of channels at the top of the probe (``outside_channels_location``)
    whose ``trend`` is below ``outside_channel_threshold + 1``. Out outranks
    noise, which outranks dead.

    ``"std"`` and ``"mad"``: the chunks joined; a channel is *noise* when its
    standard deviation (or median absolute deviation) is above
    ``std_mad_threshold`` times the median of all channels'.

    Parameters
    ----------
    {recording}
    fs : float
        The sampling frequency in Hz.
    method : {"coherence+psd", "mad", "std"}, optional
        The method; default ``"coherence+psd"``.
    positions : array_like, optional
        The channels' ``(x, y)`` positions in micrometres, shape ``(C, 2)``:
        ``"coherence+psd"`` sorts the channels by depth (``direction``, ties
        by the other coordinate) before comparing neighbours. None (the
        default) takes the channels to be in depth order already, the first
        at the bottom (tip) of the probe.
    std_mad_threshold : float, optional
        ``"std"``, ``"mad"``: the multiple of the median deviation above which
        a channel is noise. Default 5.
    psd_hf_threshold : float, optional
        ``"coherence+psd"``: the mean high-frequency power above which a
        channel is noise, in ``x``'s units squared per Hz. Default 0.02, for
        ``x`` in microvolts (IBL suggests 1.4 for LFP bands).
    dead_channel_threshold : float, optional
        ``"coherence+psd"``: ``xcorr - trend`` below it is dead. Default -0.5.
    noisy_channel_threshold : float, optional
        ``"coherence+psd"``: ``xcorr - trend`` above it is noise. Default 1.
    outside_channel_threshold : float, optional
        ``"coherence+psd"``: a ``trend`` below ``1 +`` it, at the end of the
        probe, is out of the brain. Default -0.75.
    outside_channels_location : {"top", "bottom", "both"}, optional
        ``"coherence+psd"``: the end(s) of the probe out-of-brain channels may
        be at. Default ``"top"``.
    n_neighbors : int, optional
        ``"coherence+psd"``: the width of the median filter that gives the
        trend, ``>= 1`` (an even width acts as the next odd one). Default 11.
    nyquist_threshold : float, optional
        ``"coherence+psd"``: the fraction of the Nyquist frequency above which
        power is high-frequency, between 0 and 1. Default 0.8.
    direction : {"x", "y"}, optional
        The coordinate of ``positions`` along the probe's depth. Default ``"y"``.
    chunk_duration_s : float, optional
        The length of each chunk in seconds; default 0.3. A chunk longer than
        the recording is the whole recording.
    num_random_chunks : int, optional
        The number of chunks, ``>= 1``; default 100.
    welch_window_ms : float, optional
        ``"coherence+psd"``: Welch's segment length in milliseconds (``nperseg
        = int(welch_window_ms * fs / 1000)``). Default 10.
    highpass_filter_cutoff : float or None, optional
        The cut-off in Hz of the high-pass filter applied first (a 5th-order
        Butterworth, forward and backward, on each chunk with margins of five
        periods of the cut-off), as SpikeInterface does to a recording not
        yet filtered. None for ``x`` already filtered. Default 300.
    seed : int, optional
        The seed of the chunks' starts. None (the default) draws new ones at
        each call, as SpikeInterface does; pass a seed for reproducible labels.
    channel_filters : set of str, optional
        The labels counted bad in ``indices``: a subset of ``{{"dead", "noise",
        "out"}}``. None (the default) counts all three.
    {recording_axis}
    {runtime}

    Returns
    -------
    indices : ndarray of int64
        The bad channels, ascending: those whose label is in ``channel_filters``.
    labels : ndarray of str
        Each channel's label, shape ``(C,)``: ``"good"``, ``"dead"``,
        ``"noise"`` or ``"out"`` (``"std"`` and ``"mad"`` give only good and
        noise). The pair is a :class:`~dspk.bad_channels.BadChannels` named
        tuple; it unpacks as SpikeInterface's ``(bad_channel_ids, channel_labels)``.

    Warns
    -----
    UserWarning
        When more than a third of the channels are bad (``"coherence+psd"``),
        where the method is known to mislabel good channels as dead.

    Notes
    -----
    Differences from SpikeInterface, deliberate: channels are indices, not
    ids; ``x`` is in the units ``psd_hf_threshold`` is given in
    (SpikeInterface converts to microvolts with the recording's gains);
    ``highpass_filter_cutoff=None`` says ``x`` is filtered (SpikeInterface
    reads it from the recording); chunks start where SpikeInterface's do for
    the same seed, but a chunk longer than the recording is the whole
    recording (SpikeInterface shortens it to one sample less) and a chunk
    drawn more than once is computed once; positions are 2-D, and
    ``direction`` chooses the depth coordinate of the sort (SpikeInterface
    sorts by ``y`` whatever ``direction`` says); ``channel_filters`` applies
    to every method; SpikeInterface's ``"neighborhood_r2"`` method is not
    implemented; float64 input is computed in float64 (SpikeInterface
    computes the features in float32, as dspk does for float32 and integer
    input: an int16 recording's chunks are filtered in float32, half the
    memory traffic of float64).

    Examples
    --------
    >>> import numpy as np, dspk
    >>> rng = np.random.default_rng(0)
    >>> common = rng.standard_normal(30000) * 8          # 1 s at 30 kHz, in microvolts
    >>> x = common + rng.standard_normal((32, 30000)) * 2
    >>> x[5] *= 0.01                                     # a dead channel
    >>> x[20] += rng.standard_normal(30000) * 50         # a noisy one
    >>> bad, labels = dspk.detect_bad_channels(x, 30000, num_random_chunks=5, seed=0)
    >>> bad, labels[[4, 5, 20]]
    (array([ 5, 20]), array(['good', 'dead', 'noise'], dtype='<U5'))
    """
    validation.choice(method, METHODS, "method")
    fs = validation.sampling_rate(fs)
    call, x = Call.start(runtime, x, "x", None)
    if call.native_in:
        x = call.backend.to_numpy(x)
    axis = _channels_by_samples(x, axis)
    dtype = validation.compute_dtype(x, requested=np.float32 if x.dtype.kind in "biu" else None)
    channels, samples = x.shape[1 - axis], x.shape[axis]
    if positions is not None:
        positions = check_positions(positions, channels)
    validation.choice(direction, _DIRECTIONS, "direction")
    validation.choice(outside_channels_location, _LOCATIONS, "outside_channels_location")
    std_mad_threshold = _real(std_mad_threshold, "std_mad_threshold", 0)
    thresholds = dict(
        psd_hf_threshold=_real(psd_hf_threshold, "psd_hf_threshold"),
        dead=_real(dead_channel_threshold, "dead_channel_threshold"),
        noisy=_real(noisy_channel_threshold, "noisy_channel_threshold"),
        outside=_real(outside_channel_threshold, "outside_channel_threshold"),
        n_neighbors=validation.integer(n_neighbors, "n_neighbors", minimum=1),
        location=outside_channels_location)
    nyquist_threshold = _real(nyquist_threshold, "nyquist_threshold", 0, 1, open_low=True)
    size = int(_real(chunk_duration_s, "chunk_duration_s", 0, open_low=True) * fs)
    if size < 1:
        raise ValueError(f"chunk_duration_s={chunk_duration_s!r} is shorter than one sample at "
                         f"fs={fs}")
    size = min(size, samples)
    count = validation.integer(num_random_chunks, "num_random_chunks", minimum=1)
    nperseg = int(_real(welch_window_ms, "welch_window_ms", 0, open_low=True) * fs / 1000)
    if method == "coherence+psd" and not 2 <= nperseg <= size:
        raise ValueError(f"welch_window_ms={welch_window_ms!r} gives nperseg={nperseg} "
                         f"samples; it must be at least 2 and at most a chunk's {size}")
    if method == "coherence+psd" and not np.any(
            np.fft.rfftfreq(nperseg, 1 / fs) > fs / 2 * nyquist_threshold):
        raise ValueError(f"no frequency of Welch's {nperseg}-sample segments lies above "
                         f"nyquist_threshold={nyquist_threshold}; lengthen welch_window_ms")
    sos = None
    if highpass_filter_cutoff is not None:
        cutoff = _real(highpass_filter_cutoff, "highpass_filter_cutoff", 0, fs / 2, open_low=True)
        sos = scipy.signal.butter(5, cutoff, "highpass", fs=fs, output="sos")
        margin = int(5 * (1000.0 / cutoff) * fs / 1000.0)
    filters = _channel_filters(channel_filters)
    starts = chunk_starts(samples, size, count, _seed(seed))

    def high_passed(group: np.ndarray) -> np.ndarray:
        """The chunks at the starts ``group``, high-passed, shape ``(k, C, size)``.

        Chunks whose margins have the same length are filtered in one call,
        stacked along the channels.
        """
        spans = [(int(s), int(s) + size) if sos is None else
                 (max(0, int(s) - margin), min(samples, int(s) + size + margin)) for s in group]
        out = np.empty((len(group), channels, size), dtype)
        lengths = np.array([hi - lo for lo, hi in spans])
        for length in np.unique(lengths):
            members = np.flatnonzero(lengths == length)
            pieces = [x[:, lo:hi] if axis == 1 else x[lo:hi] for lo, hi in
                      (spans[m] for m in members)]
            stacked = np.concatenate(pieces, axis=1 - axis, dtype=dtype)
            if sos is not None:
                stacked = sosfiltfilt(sos, stacked, axis=axis, runtime=runtime)
            stacked = stacked if axis == 1 else stacked.T
            for j, m in enumerate(members):
                skip = int(group[m]) - spans[m][0]
                copy_in_blocks(out[m], stacked[j * channels:(j + 1) * channels,
                                                skip:skip + size])
        return out

    # The chunks go in groups of at most about _GROUP_ELEMENTS values, margins included.
    unique, inverse, repeats = np.unique(starts, return_inverse=True, return_counts=True)
    per_group = max(1, _GROUP_ELEMENTS // (channels * (size + (0 if sos is None else 2 * margin))))
    firsts = range(0, len(unique), per_group)
    labels = np.full(channels, LABELS[0], dtype="<U5")
    if method == "coherence+psd":
        order = depth_order(positions, direction)
        votes = np.zeros((channels, len(LABELS)), dtype=np.int64)
        for first in firsts:
            codes = _coherence_psd_codes(high_passed(unique[first:first + per_group]), order,
                                         fs, nperseg, nyquist_threshold, runtime, **thresholds)
            times = repeats[first:first + per_group]
            np.add.at(votes, (np.arange(channels)[None, :], codes), times[:, None])
        codes = votes.argmax(axis=1)
        labels[:] = np.asarray(LABELS)[codes]
        if np.count_nonzero(codes) > channels / 3:
            warnings.warn("over a third of the channels are bad; with many dead or noisy "
                          "channels the detection may fail (good channels labelled dead)",
                          UserWarning, stacklevel=2)
    else:
        chunks = np.concatenate([high_passed(unique[first:first + per_group])
                                 for first in firsts])[inverse.ravel()]
        joined = chunks.transpose(1, 0, 2).reshape(channels, -1)
        if method == "std":
            deviations = np.std(joined, axis=1, dtype=np.float64)
        else:
            deviations = scipy.stats.median_abs_deviation(joined.astype(np.float64), axis=1)
        labels[deviations > std_mad_threshold * np.median(deviations)] = "noise"
    indices = np.flatnonzero(np.isin(labels, list(filters))).astype(np.int64)
    return BadChannels(indices, labels)


# --- interpolation -----------------------------------------------------------------------

def kriging_weights(good: np.ndarray, bad: np.ndarray, sigma_um: float, p: float,
                    threshold: float = 0.005) -> np.ndarray:
    """SpikeInterface's ``get_kriging_channel_weights``: ``(n_good, n_bad)`` weights.

    ``exp(-(d / sigma_um) ** p)`` of the distances, those below ``threshold``
    set to zero, each column normalised to sum to one, then those below
    ``threshold`` set to zero again (a column with no weight left is zeros).
    """
    weights = np.exp(-(scipy.spatial.distance.cdist(good, bad) / sigma_um) ** p)
    weights[weights < threshold] = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        weights /= weights.sum(axis=0)[None, :]
    weights[(weights < threshold) | np.isnan(weights)] = 0
    return weights


def _bad_indices(bad_channels: Any, channels: int) -> np.ndarray:
    try:
        values = np.asarray(to_numpy(bad_channels))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"bad_channels must be a sequence of channel indices ({exc})") from None
    if values.ndim != 1:
        raise ValueError(f"bad_channels must be a 1-D sequence of channel indices; got shape "
                         f"{values.shape}")
    if values.size == 0:
        return values.astype(np.int64)
    if values.dtype.kind not in "iu":
        raise TypeError(f"bad_channels must hold integer channel indices; got dtype "
                        f"{values.dtype}")
    outside = values[(values < 0) | (values >= channels)]
    if outside.size:
        raise ValueError(f"bad_channels names channel {outside[0]}, out of range for "
                         f"{channels} channels (indices 0 to {channels - 1})")
    unique, counts = np.unique(values, return_counts=True)
    if np.any(counts > 1):
        raise ValueError(f"bad_channels names channel {unique[counts > 1][0]} more than once")
    if unique.size == channels:
        raise ValueError("bad_channels names every channel; there is no good channel to "
                         "interpolate from")
    return unique.astype(np.int64)


def recommended_sigma_um(positions: np.ndarray) -> float:
    """SpikeInterface's ``estimate_recommended_sigma_um``: the commonest step between depths."""
    steps = np.diff(np.unique(positions[:, 1]))
    if steps.size == 0:
        raise ValueError("sigma_um=None takes the commonest distance between the channels' "
                         "depths (y), but every channel is at one depth; pass sigma_um")
    return float(scipy.stats.mode(steps, keepdims=False)[0])


def _given_weights(weights: Any, good: int, bad: int) -> np.ndarray:
    values = np.asarray(to_numpy(weights))
    if values.dtype.kind not in "biuf":
        raise TypeError(f"weights must hold real numbers; got dtype {values.dtype}")
    if values.shape != (good, bad):
        raise ValueError(f"weights has shape {values.shape}; {good} good and {bad} bad "
                         f"channel(s) need ({good}, {bad})")
    validation.finite(values, "weights")
    return values.astype(np.float64)


@shared
def interpolate_bad_channels(x, bad_channels, positions, *, sigma_um=None, p=1.3, weights=None,
                             axis=-1, dtype=None, runtime=None):
    """Replace bad channels by a weighted sum of the good ones near them (kriging).

    As SpikeInterface's ``interpolate_bad_channels`` (IBL's method): bad
    channel ``b`` becomes ``sum_g w[g, b] * x[g]`` over the good channels
    ``g``, with weights that fall off with distance ``d`` as ``exp(-(d /
    sigma_um) ** p)``; weights below 0.005 are dropped, each bad channel's
    weights normalised to sum to one, and those then below 0.005 dropped
    again. Good channels are unchanged. The product runs on the runtime as
    one ``(C, C)`` matrix applied to the recording.

    Parameters
    ----------
    {recording}
    bad_channels : array_like of int
        The indices of the channels to replace (such as the ``indices`` of
        :func:`detect_bad_channels`), each once; not every channel.
    positions : array_like
        The channels' ``(x, y)`` positions in micrometres, shape ``(C, 2)``.
    sigma_um : float, optional
        The distance scale of the weights, ``> 0``. None (the default) takes
        the commonest distance between consecutive distinct depths (``y``), as
        SpikeInterface does: the pitch of the probe's rows, 20 on
        Neuropixels 1.0 and 2.0 probes.
    p : float, optional
        The exponent of the distance, ``> 0``. Default 1.3.
    weights : array_like, optional
        Weights ``(n_good, n_bad)`` to use instead, rows the good channels
        and columns the bad ones, both in ascending order.
    {recording_axis}
    {dtype}
    {runtime}

    Returns
    -------
    y : ndarray
        The recording with the bad channels interpolated, ``x``'s shape.

    Notes
    -----
    Differences from SpikeInterface: channels are indices, not ids; a
    channel named twice, or every channel, raises :class:`ValueError`;
    integer recordings give float64 (SpikeInterface writes the interpolated
    values into the recording's dtype); float32 is computed in float32.

    Examples
    --------
    >>> import numpy as np, dspk
    >>> positions = np.array([[0, 0], [0, 20], [0, 40]])
    >>> x = np.array([[1.0, 2.0], [9.0, 9.0], [3.0, 4.0]])
    >>> dspk.interpolate_bad_channels(x, [1], positions)
    array([[1., 2.],
           [2., 3.],
           [3., 4.]])
    """
    call, x = Call.start(runtime, x, "x", "interpolate_bad_channels")
    axis = _channels_by_samples(x, axis)
    dtype = validation.compute_dtype(x, requested=dtype)
    channels = x.shape[1 - axis]
    positions = check_positions(positions, channels)
    bad = _bad_indices(bad_channels, channels)
    good = np.setdiff1d(np.arange(channels), bad)
    if weights is None:
        if sigma_um is None:
            sigma_um = recommended_sigma_um(positions)
        sigma_um = _real(sigma_um, "sigma_um", 0, open_low=True)
        p = _real(p, "p", 0, open_low=True)
        weights = kriging_weights(positions[good], positions[bad], sigma_um, p)
    else:
        weights = _given_weights(weights, good.size, bad.size)
    validation.output_fits("interpolate_bad_channels", x, dtype)
    matrix = np.eye(channels)
    matrix[bad] = 0
    matrix[np.ix_(bad, good)] = weights.T
    view = Signal2D.of(x.astype(dtype, copy=False), axis)
    y = call.run(view.problem("apply_channel_matrix"), call.native(matrix.astype(dtype)),
                 call.native(view.array), view.axis, None)
    return call.give_back(y)
