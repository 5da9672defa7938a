"""Streams: dspk operations over a signal that arrives in chunks of any length.

A recording too long for memory is processed chunk by chunk. Every stream has
two methods:

``push(chunk)``
    Takes the next chunk (time along ``axis``, every chunk of the same shape
    along the other axes) and returns the output that is ready: it may have
    fewer samples than the chunk, or none, when the operation needs samples
    that have not arrived yet.
``finish()``
    Returns the rest of the output, once the last chunk has been pushed.

The outputs of all the calls, joined along the time axis, are the output of
the operation over the whole signal:

- **Exact** (to floating-point rounding): :class:`SosfiltStream` and
  :class:`LfilterStream` (the filter state is carried from chunk to chunk),
  :class:`ResamplePolyStream` and :class:`DecimateStream` with FIR filters or
  causal IIR filters (the polyphase filter's phase, or the IIR filter's
  state and the phase of the samples kept, is carried), and
  :class:`CommonReferenceStream` and :class:`InterpolateBadChannelsStream`
  (which work sample by sample), :class:`HighpassSpatialFilterStream`
  (sample by sample, with half the gain control's window of look-ahead).
  :class:`WelchStream` averages the same segments as one :func:`dspk.welch`.
  :class:`DetectPeaksStream` gives every peak of :func:`dspk.detect_peaks`
  once (structured arrays of peaks, not samples).
- **Within a stated bound**: :class:`SosfiltfiltStream` and
  :class:`FiltfiltStream` filter forward exactly and start each backward
  pass ``margin`` samples beyond the samples they emit, from the steady state
  of the last sample there. The backward filter forgets its start as its
  impulse response ``h`` decays, so at every sample the error is at most
  ``tail(margin) * max|v - v_p|``, where ``tail(M) = sum(|h[k]|, k >= M)``,
  ``v`` is the forward-filtered signal and ``v_p`` its value where the pass
  started: at most ``2 * tol * max|v|`` with the margin that
  :func:`zero_phase_margin` derives from ``tol``. Both ends are exact: they
  are padded and started as :func:`dspk.sosfiltfilt` pads and starts them.
  :class:`PhaseShiftStream` shifts blocks with ``margin`` real samples of
  context on each side, tapered; see its Notes for its accuracy.

Streams keep their buffers as NumPy arrays on the host and run their
operations on the ``runtime`` given; float32 chunks are computed and returned
in float32, integer chunks in float64, as the one-shot operations do. A
stream's parameters are checked when it is made; the chunks' shape and dtype
are fixed by the first chunk.

The package has one module per family: :mod:`~dspk.streaming.base` (the
:class:`Stream` base class, :class:`StreamChain`), :mod:`~dspk.streaming.filters`,
:mod:`~dspk.streaming.resampling`, :mod:`~dspk.streaming.multichannel`,
:mod:`~dspk.streaming.spectral` and :mod:`~dspk.streaming.detection`.
"""

from dspk.multichannel import DEFAULT_MARGIN  # noqa: F401 (importable from here, as before)
from dspk.streaming.base import Stream, StreamChain
from dspk.streaming.detection import DetectPeaksStream
from dspk.streaming.filters import (
    DEFAULT_TOLERANCE,  # noqa: F401 (importable from here, as before)
    FiltfiltStream,
    LfilterStream,
    SosfiltfiltStream,
    SosfiltStream,
    filter_stream,
    zero_phase_margin,
)
from dspk.streaming.multichannel import (
    CommonReferenceStream,
    HighpassSpatialFilterStream,
    InterpolateBadChannelsStream,
    PhaseShiftStream,
)
from dspk.streaming.resampling import DecimateStream, ResamplePolyStream
from dspk.streaming.spectral import WelchStream

__all__ = ["Stream", "SosfiltStream", "LfilterStream", "SosfiltfiltStream", "FiltfiltStream",
           "ResamplePolyStream", "DecimateStream", "CommonReferenceStream",
           "InterpolateBadChannelsStream", "PhaseShiftStream", "HighpassSpatialFilterStream",
           "WelchStream", "DetectPeaksStream", "StreamChain", "filter_stream",
           "zero_phase_margin"]
