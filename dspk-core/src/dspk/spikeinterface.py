"""SpikeInterface preprocessing steps computed by dspk.

Each function takes and returns what SpikeInterface's step of the same name
does: a lazy recording whose traces are computed chunk by chunk as a sorter,
``save()`` (with ``n_jobs`` and any chunking) or ``get_traces`` asks for them.
The recordings are SpikeInterface's own classes with their computing part run
by dspk (on the runtime :mod:`dspk.runtime` chooses), so they keep
SpikeInterface's parameters, margins, dtypes and provenance (``to_dict``,
``save``, pickling into worker processes) as they are.

Needs SpikeInterface (``pip install dspk[spikeinterface]``).

Where dspk computes differently, on purpose:

- Second-order sections filter float32 recordings in float32 (SpikeInterface's
  scipy filters compute in float64): traces agree within float32's tolerance.
  Integer recordings are filtered in float32 too when their output is an
  integer or float32, and rounded as in SpikeInterface (within one count of
  it). Transfer functions (``filter_mode="ba"``) and float64 outputs compute in
  float64.
- ``phase_shift`` shifts chunks in float32 when the output is not float64
  (SpikeInterface: float64), within float32's tolerance or one count.
- ``common_reference`` runs dspk's kernels for the global reference (over all
  channels, over groups, or over ``ref_channel_ids``), the single-channel
  reference and the local one; a reference set per group and a single channel
  per group run SpikeInterface's own code, as does a local reference where a
  tie in distance would give a channel other neighbours than SpikeInterface's.
  The local median of a float64 recording is computed in float64
  (SpikeInterface: float32), and integer outputs of groups are rounded
  (SpikeInterface truncates them).
- ``whiten`` applies SpikeInterface's own ``W`` and ``M`` (estimated by its
  code from its random chunks), in float32 where the output is not float64.
- ``highpass_spatial_filter`` filters each chunk (with the gain control's
  margins, in SpikeInterface's order by depth and with its gain floors) by
  :func:`dspk.highpass_spatial_filter`, in float64 where the output is float64
  (SpikeInterface: float32 always).
- ``interpolate_bad_channels`` and ``detect_and_interpolate_bad_channels``
  apply SpikeInterface's kriging weights (and its detection's bad channels)
  by :func:`dspk.interpolate_bad_channels`, in float32 where the output is not
  float64; integer outputs are rounded (SpikeInterface truncates), within one
  count of it. Every channel bad (named or detected) raises
  :class:`ValueError` where SpikeInterface's traces would be zeros.

Examples
--------
>>> import numpy as np, spikeinterface.core as si
>>> from dspk import spikeinterface as dspk_si
>>> traces = np.random.default_rng(0).standard_normal((30000, 8)).astype("float32")
>>> recording = si.NumpyRecording(traces, sampling_frequency=30000.0)
>>> filtered = dspk_si.bandpass_filter(recording, freq_min=300.0, freq_max=6000.0)
>>> filtered.get_traces(start_frame=1000, end_frame=2000).shape
(1000, 8)
"""

from __future__ import annotations

import numpy as np
from spikeinterface.core.core_tools import define_function_from_class
from spikeinterface.core.recording_tools import get_chunk_with_margin
from spikeinterface.preprocessing.common_reference import (
    CommonReferenceRecording as _SiCommonReferenceRecording,
)
from spikeinterface.preprocessing.common_reference import (
    CommonReferenceRecordingSegment as _SiReferenceSegment,
)
from spikeinterface.preprocessing.filter import BandpassFilterRecording as _SiBandpass
from spikeinterface.preprocessing.filter import FilterRecording as _SiFilterRecording
from spikeinterface.preprocessing.filter import FilterRecordingSegment as _SiFilterSegment
from spikeinterface.preprocessing.filter import HighpassFilterRecording as _SiHighpass
from spikeinterface.preprocessing.highpass_spatial_filter import (
    HighpassSpatialFilterRecording as _SiHighpassSpatial,
)
from spikeinterface.preprocessing.highpass_spatial_filter import (
    HighPassSpatialFilterSegment as _SiHighpassSpatialSegment,
)
from spikeinterface.preprocessing.interpolate_bad_channels import (
    DetectAndInterpolateBadChannelsRecording as _SiDetectAndInterpolate,
)
from spikeinterface.preprocessing.interpolate_bad_channels import (
    InterpolateBadChannelsRecording as _SiInterpolate,
)
from spikeinterface.preprocessing.interpolate_bad_channels import (
    InterpolateBadChannelsSegment as _SiInterpolateSegment,
)
from spikeinterface.preprocessing.phase_shift import PhaseShiftRecording as _SiPhaseShift
from spikeinterface.preprocessing.phase_shift import (
    PhaseShiftRecordingSegment as _SiPhaseShiftSegment,
)
from spikeinterface.preprocessing.whiten import WhitenRecording as _SiWhiten
from spikeinterface.preprocessing.whiten import WhitenRecordingSegment as _SiWhitenSegment

from dspk.bad_channels import interpolate_bad_channels as _interpolate_bad_channels
from dspk.destripe import highpass_spatial_filter as _highpass_spatial_filter
from dspk.filtering import filtfilt, lfilter, sosfilt, sosfiltfilt
from dspk.geometry import annulus as _annulus
from dspk.multichannel import common_reference as _common_reference
from dspk.multichannel import phase_shift as _phase_shift
from dspk.multichannel import whiten as _whiten

__all__ = ["bandpass_filter", "highpass_filter", "filter", "common_reference", "phase_shift",
           "whiten", "highpass_spatial_filter", "interpolate_bad_channels",
           "detect_and_interpolate_bad_channels"]


def _compute_dtype(output: np.dtype, single: bool = True) -> np.dtype:
    """float32 where ``single`` allows it and the output is not float64; else float64."""
    return np.dtype(np.float32 if single and np.dtype(output) != np.float64 else np.float64)


def _as_output(traces: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Computed traces in the recording's dtype, rounded (half to even) for integers."""
    if np.issubdtype(dtype, np.integer):
        traces = np.rint(traces)
    return traces.astype(dtype, copy=False)


class _FilterSegment(_SiFilterSegment):
    """A filter segment whose chunks dspk filters (the parent keeps everything else)."""

    def get_traces(self, start_frame, end_frame, channel_indices):
        traces, left, right = get_chunk_with_margin(
            self.parent_recording_segment, start_frame, end_frame, channel_indices,
            self.margin, add_reflect_padding=self.add_reflect_padding)
        # a transfer function of a band-pass loses float32's digits in its coefficients
        dtype = _compute_dtype(self.dtype, single=self.filter_mode == "sos")
        coefficients = (self.coeff,) if self.filter_mode == "sos" else tuple(self.coeff)
        if self.direction == "forward-backward":
            run = sosfiltfilt if self.filter_mode == "sos" else filtfilt
            filtered = run(*coefficients, traces, axis=0, dtype=dtype)
        else:
            run = sosfilt if self.filter_mode == "sos" else lfilter
            backward = self.direction == "backward"
            chunk = traces[::-1] if backward else traces
            filtered = run(*coefficients, chunk, axis=0, dtype=dtype)
            filtered = filtered[::-1] if backward else filtered
        return _as_output(filtered[left:len(filtered) - right], self.dtype)


class _ComputedByDspk:
    """Mixed into a SpikeInterface recording class before it: once its ``__init__``
    has built the segments, they run :attr:`segment_class`'s ``get_traces`` (a
    subclass of theirs that adds no state)."""

    segment_class: type

    def __init__(self, recording, *args, **kwargs):
        super().__init__(recording, *args, **kwargs)
        for segment in self.segments:
            segment.__class__ = self.segment_class


class FilterRecording(_ComputedByDspk, _SiFilterRecording):
    """SpikeInterface's ``FilterRecording``, filtered by dspk."""

    segment_class = _FilterSegment


class BandpassFilterRecording(_ComputedByDspk, _SiBandpass):
    """SpikeInterface's ``BandpassFilterRecording``, filtered by dspk."""

    segment_class = _FilterSegment


class HighpassFilterRecording(_ComputedByDspk, _SiHighpass):
    """SpikeInterface's ``HighpassFilterRecording``, filtered by dspk."""

    segment_class = _FilterSegment


class _ReferenceSegment(_SiReferenceSegment):
    """A common-reference segment whose reference dspk computes."""

    #: dspk.common_reference's options, set by the recording; None where SpikeInterface's
    #: code computes the reference.
    options: dict | None

    def get_traces(self, start_frame, end_frame, channel_indices):
        if self.options is None:
            return super().get_traces(start_frame, end_frame, channel_indices)
        if channel_indices is None:
            channel_indices = slice(None)
        traces = self.parent_recording_segment.get_traces(start_frame, end_frame, slice(None))
        referenced = _common_reference(traces, operator=self.operator, axis=0, **self.options)
        return _as_output(referenced[:, channel_indices], self.dtype)


def _reference_options(recording) -> dict | None:
    """dspk.common_reference's options for a SpikeInterface reference (its segments share
    them), or None for the forms dspk has not (a reference set per group, a single channel
    per group) and for a local reference whose neighbours would differ from
    SpikeInterface's (ties in distance taken in another order)."""
    segment = recording.segments[0]
    chosen, refs = segment.group_indices, segment.ref_channel_indices
    if chosen is not None:
        if segment.reference != "global" or refs is not None:
            return None
        return dict(groups=[np.asarray(group) for group in chosen])
    if segment.reference == "local":
        options = dict(reference="local", radius=tuple(recording._kwargs["local_radius"]),
                       min_neighbours=recording._kwargs["min_local_neighbors"],
                       positions=recording.get_channel_locations())
        table = _annulus(options["positions"], *options["radius"], options["min_neighbours"])
        theirs = segment.local_kernel != 0
        ours = np.zeros_like(theirs)
        channels, slots = np.nonzero(table >= 0)
        ours[channels, table[channels, slots]] = True
        return options if np.array_equal(ours, theirs) else None
    if refs is None:
        return {}
    return dict(reference="single", ref_channels=np.asarray(refs))


class CommonReferenceRecording(_ComputedByDspk, _SiCommonReferenceRecording):
    """SpikeInterface's ``CommonReferenceRecording``, its reference computed by dspk."""

    segment_class = _ReferenceSegment

    def __init__(self, recording, *args, **kwargs):
        super().__init__(recording, *args, **kwargs)
        options = _reference_options(self)
        for segment in self.segments:
            segment.options = options


class _PhaseShiftSegment(_SiPhaseShiftSegment):
    """A phase-shift segment whose chunks (with SpikeInterface's tapered margins) dspk shifts."""

    def get_traces(self, start_frame, end_frame, channel_indices):
        if channel_indices is None:
            channel_indices = slice(None)
        chunk, left, right = get_chunk_with_margin(
            self.parent_recording_segment, start_frame, end_frame, channel_indices,
            self.margin, dtype=_compute_dtype(self.dtype), add_zeros=True,
            window_on_margin=True)
        shifted = _phase_shift(chunk, self.sample_shifts[channel_indices], margin=0, axis=0)
        return _as_output(shifted[left:len(shifted) - right], self.dtype)


class PhaseShiftRecording(_ComputedByDspk, _SiPhaseShift):
    """SpikeInterface's ``PhaseShiftRecording``, shifted by dspk."""

    segment_class = _PhaseShiftSegment


class _WhitenSegment(_SiWhitenSegment):
    """A whitening segment whose product with SpikeInterface's ``W`` dspk computes."""

    def get_traces(self, start_frame, end_frame, channel_indices):
        traces = self.parent_recording_segment.get_traces(start_frame, end_frame, slice(None))
        traces = traces.astype(_compute_dtype(self.dtype), copy=False)
        if self.M is not None:
            traces = traces - self.M
        # SpikeInterface's traces @ W is W.T @ x on channels by samples (dspk's W @ x)
        whitened = _whiten(traces, W=self.W.T, axis=0)[0][:, channel_indices]
        if self.int_scale is not None:
            whitened *= self.int_scale
        return _as_output(whitened, self.dtype)


class WhitenRecording(_ComputedByDspk, _SiWhiten):
    """SpikeInterface's ``WhitenRecording`` (its ``W`` and ``M``, from its random chunks),
    applied by dspk."""

    segment_class = _WhitenSegment


class _HighpassSpatialSegment(_SiHighpassSpatialSegment):
    """A destriping segment whose chunks (with the gain control's margins) dspk filters."""

    #: dspk.highpass_spatial_filter's options, set by the recording.
    options: dict

    def get_traces(self, start_frame, end_frame, channel_indices):
        if channel_indices is None:
            channel_indices = slice(None)
        margin = 0 if self.window is None else len(self.window) // 2
        traces, left, right = get_chunk_with_margin(
            self.parent_recording_segment, start_frame=start_frame, end_frame=end_frame,
            channel_indices=slice(None), margin=margin)
        traces = traces.astype(_compute_dtype(self.dtype), copy=False)
        if self.order_f is not None:  # SpikeInterface's own order by depth
            traces = traces[:, self.order_f]
        filtered = _highpass_spatial_filter(traces, axis=0, **self.options)
        if self.order_r is not None:
            filtered = filtered[:, self.order_r]
        return _as_output(filtered[left:len(filtered) - right, channel_indices], self.dtype)


class HighpassSpatialFilterRecording(_ComputedByDspk, _SiHighpassSpatial):
    """SpikeInterface's ``HighpassSpatialFilterRecording`` (IBL's destriping), filtered by
    dspk."""

    segment_class = _HighpassSpatialSegment

    def __init__(self, recording, *args, **kwargs):
        super().__init__(recording, *args, **kwargs)
        chosen = self._kwargs
        for segment in self.segments:
            segment.options = dict(
                fs=recording.sampling_frequency, n_channel_pad=chosen["n_channel_pad"],
                n_channel_taper=chosen["n_channel_taper"], apply_agc=segment.window is not None,
                # (SpikeInterface keeps None without the gain control; any length does then)
                agc_window_length_s=chosen["agc_window_length_s"] or 0.1,
                highpass_butter_order=chosen["highpass_butter_order"],
                highpass_butter_wn=chosen["highpass_butter_wn"],
                # the segment's floors, epsilon * rms (SpikeInterface keeps no epsilon)
                epsilon=1.0, rms_values=segment.epsilon_values_for_agc)


class _InterpolateSegment(_SiInterpolateSegment):
    """A bad-channel segment whose interpolation (with SpikeInterface's weights) dspk computes."""

    #: The channels' positions, set by the recording.
    positions: np.ndarray

    def get_traces(self, start_frame, end_frame, channel_indices):
        if channel_indices is None:
            channel_indices = slice(None)
        traces = self.parent_recording_segment.get_traces(start_frame, end_frame, slice(None))
        interpolated = _interpolate_bad_channels(
            traces, self._bad_channel_indices, self.positions, weights=self._weights, axis=0,
            dtype=_compute_dtype(traces.dtype))
        return _as_output(interpolated[:, channel_indices], traces.dtype)


class _InterpolatedByDspk(_ComputedByDspk):
    """Gives each bad-channel segment the channels' positions; refuses to interpolate
    every channel (SpikeInterface's traces would be zeros)."""

    def __init__(self, recording, *args, **kwargs):
        super().__init__(recording, *args, **kwargs)
        if len(self._kwargs["bad_channel_ids"]) == recording.get_num_channels():
            raise ValueError("bad_channel_ids names every channel; there is no good channel "
                             "to interpolate from")
        positions = recording.get_channel_locations()
        for segment in self.segments:
            segment.positions = positions


class InterpolateBadChannelsRecording(_InterpolatedByDspk, _SiInterpolate):
    """SpikeInterface's ``InterpolateBadChannelsRecording`` (its kriging weights), applied by
    dspk."""

    segment_class = _InterpolateSegment


class DetectAndInterpolateBadChannelsRecording(_InterpolatedByDspk, _SiDetectAndInterpolate):
    """SpikeInterface's ``DetectAndInterpolateBadChannelsRecording`` (its detection and
    weights), its interpolation applied by dspk."""

    segment_class = _InterpolateSegment


filter = define_function_from_class(source_class=FilterRecording, name="filter")  # noqa: A001
bandpass_filter = define_function_from_class(source_class=BandpassFilterRecording,
                                             name="bandpass_filter")
highpass_filter = define_function_from_class(source_class=HighpassFilterRecording,
                                             name="highpass_filter")
common_reference = define_function_from_class(source_class=CommonReferenceRecording,
                                              name="common_reference")
phase_shift = define_function_from_class(source_class=PhaseShiftRecording, name="phase_shift")
whiten = define_function_from_class(source_class=WhitenRecording, name="whiten")
highpass_spatial_filter = define_function_from_class(source_class=HighpassSpatialFilterRecording,
                                                     name="highpass_spatial_filter")
interpolate_bad_channels = define_function_from_class(
    source_class=InterpolateBadChannelsRecording, name="interpolate_bad_channels")
detect_and_interpolate_bad_channels = define_function_from_class(
    source_class=DetectAndInterpolateBadChannelsRecording,
    name="detect_and_interpolate_bad_channels")
