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
  :class:`CommonReferenceStream` (which works sample by sample).
  :class:`WelchStream` averages the same segments as one :func:`dspk.welch`.
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
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from scipy import signal as _scipy

from dspk import spectral, validation
from dspk.arrays import to_numpy
from dspk.designs import Filter
from dspk.dispatch import Call
from dspk.filtering import filtfilt, lfilter, sosfilt, sosfiltfilt
from dspk.multichannel import DEFAULT_MARGIN, common_reference, phase_shift
from dspk.resampling import antialiasing_taps, decimation_filter, upfirdn
from dspk.runtime import resolve, validate_name

__all__ = ["Stream", "SosfiltStream", "LfilterStream", "SosfiltfiltStream", "FiltfiltStream",
           "ResamplePolyStream", "DecimateStream", "CommonReferenceStream", "PhaseShiftStream",
           "WelchStream", "StreamChain", "filter_stream", "zero_phase_margin"]

#: The default bound on the impulse-response tail beyond a zero-phase stream's margin.
DEFAULT_TOLERANCE = 1e-12

_PADTYPES = ("odd", "even", "constant", None)
_SPECTRAL_DTYPES = tuple(np.dtype(t) for t in ("float32", "float64", "complex64", "complex128"))
#: The longest margin a zero-phase stream computes (140 s at 30 kHz): a filter whose
#: response takes longer to decay is refused, before gigabytes of impulse response.
_LONGEST_IMPULSE_RESPONSE = 1 << 22


def _count(value: Any, name: str) -> int:
    """A number of samples: an integer >= 0."""
    return validation.integer(value, name, minimum=0)


def _along(axis: int, ndim: int, part: slice) -> tuple[slice, ...]:
    """Index of ``part`` of the time axis."""
    index = [slice(None)] * ndim
    index[axis] = part
    return tuple(index)


class Stream:
    """What every stream shares: ``push``, ``finish`` and the checks of chunks.

    A new stream overrides ``_push(chunk)`` (and ``_finish()``, by default no
    samples); the chunks it gets are checked, in the stream's dtype, and not
    empty.

    Parameters
    ----------
    axis : int
        The time axis of the chunks.
    runtime : str or None
        The runtime the operations run on (see :mod:`dspk.runtime`).

    Examples
    --------
    >>> import numpy as np
    >>> from dspk.streaming import Stream
    >>> class Negate(Stream):
    ...     def _push(self, chunk):
    ...         return -chunk
    >>> stream = Negate(axis=-1, runtime=None)
    >>> stream.push(np.arange(3)), stream.finish()
    (array([-0., -1., -2.]), array([], dtype=float64))
    """

    def __init__(self, axis: Any, runtime: str | None):
        axis = validation.integer(axis, "axis")
        if runtime is not None:
            validate_name(runtime)
        self.axis = axis
        self.runtime = runtime
        self._like: np.ndarray | None = None
        self._received = 0
        self._finished = False

    def push(self, chunk) -> np.ndarray:
        """Process the next chunk; return the output ready so far (maybe no samples).

        Parameters
        ----------
        chunk : array_like
            The next samples, time along ``axis``; the same shape along the
            other axes as the first chunk. Chunks of no samples are allowed.

        Returns
        -------
        ndarray
            The next samples of the output, time along ``axis``.
        """
        if self._finished:
            raise ValueError("push() after finish(): the stream has ended")
        chunk = self._accept(chunk)
        if self._length(chunk) == 0:
            return self._empty()
        y = self._push(chunk)
        self._received += self._length(chunk)
        return y

    def finish(self) -> np.ndarray:
        """End the stream: return the output not given yet."""
        if self._finished:
            raise ValueError("finish() was called already: the stream has ended")
        if self._received == 0:
            raise ValueError("the stream received no samples; there is nothing to finish")
        self._finished = True
        return self._finish()

    # --- for subclasses --------------------------------------------------------------

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _finish(self) -> np.ndarray:
        return self._empty()

    def _compute_dtype(self, chunk: np.ndarray) -> np.dtype:
        return validation.compute_dtype(chunk, "chunk")

    @property
    def dtype(self) -> np.dtype | None:
        """The dtype of the computation and of the output; None before the first chunk."""
        return None if self._like is None else self._like.dtype

    def _accept(self, chunk: Any) -> np.ndarray:
        chunk = to_numpy(chunk)
        if chunk.ndim == 0:
            raise ValueError("chunk must have at least one dimension (time); got a scalar")
        dtype = self._compute_dtype(chunk)
        if self._like is None:
            self.axis = validation.check_axis(self.axis, chunk.ndim)
            shape = list(chunk.shape)
            shape[self.axis] = 0
            self._like = np.empty(shape, dtype)
        if chunk.ndim != self._like.ndim or any(
                s != t for i, (s, t) in enumerate(zip(chunk.shape, self._like.shape))
                if i != self.axis):
            raise ValueError(f"chunk has shape {chunk.shape}; this stream's chunks have the shape "
                             f"{self._shape_text()} of its first chunk along the other axes")
        if dtype != self._like.dtype:
            raise ValueError(f"chunk is computed in {dtype}; this stream computes in "
                             f"{self._like.dtype}, from its first chunk (cast the chunk)")
        return chunk.astype(dtype, copy=False)

    def _shape_text(self) -> str:
        return str(tuple("n" if i == self.axis else s for i, s in enumerate(self._like.shape)))

    def _empty(self) -> np.ndarray:
        return np.empty_like(self._like)

    def _length(self, x: np.ndarray | None) -> int:
        return 0 if x is None else x.shape[self.axis]

    def _cut(self, x: np.ndarray, start: int | None, stop: int | None = None,
             step: int | None = None) -> np.ndarray:
        return x[_along(self.axis, x.ndim, slice(start, stop, step))]

    def _join(self, *parts: np.ndarray | None) -> np.ndarray:
        parts = [p for p in parts if p is not None]
        return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=self.axis)

    def _last(self, n: int, *parts: np.ndarray | None) -> np.ndarray:
        """A copy of the last ``n`` samples of ``parts`` joined, without joining them all."""
        kept = []
        for part in reversed([p for p in parts if p is not None]):
            take = min(n, self._length(part))
            kept.insert(0, self._cut(part, self._length(part) - take, None))
            n -= take
            if n == 0:
                break
        return np.concatenate(kept, axis=self.axis)

    def _flip(self, x: np.ndarray) -> np.ndarray:
        return self._cut(x, None, None, -1)


# --- the one-pass filters under the filter streams -------------------------------------------

class _OnePass:
    """A causal filter as the streams use it; subclasses run it with a dspk operation.

    Its state has the layout of the operation's ``zi``: ``state_shape`` per
    channel, with ``lead`` dimensions before the channels (the sections).
    """

    state_shape: tuple[int, ...]
    lead: int

    def __init__(self):
        self._working: dict[np.dtype, np.dtype] = {}

    def denominators(self) -> np.ndarray:
        raise NotImplementedError

    def working_dtype(self, dtype: np.dtype) -> np.dtype:
        """The dtype the filter runs in for signals of ``dtype`` (float64 near ``z = 1``)."""
        if dtype not in self._working:
            self._working[dtype] = validation.working_dtype(dtype, self.denominators())
        return self._working[dtype]

    def pole_radius(self) -> float:
        return max((np.abs(np.roots(row)).max(initial=0.0) for row in self.denominators()),
                   default=0.0)

    def state_vectors(self, state: np.ndarray, axis: int) -> np.ndarray:
        """A 2-D signal's state (``zi`` layout, time axis ``axis``) as one row per channel."""
        rows = np.moveaxis(state, self.lead + 1 - axis, 0)
        return rows.reshape(len(rows), -1)

    def state_array(self, vectors: np.ndarray, axis: int) -> np.ndarray:
        """Rows of channel states in the ``zi`` layout of a 2-D signal with time axis ``axis``."""
        return np.moveaxis(vectors.reshape(len(vectors), *self.state_shape), 0,
                           self.lead + 1 - axis)

    def transition(self, n: int) -> np.ndarray:
        """The matrix that takes a channel's state across ``n`` samples of zeros."""
        size = int(np.prod(self.state_shape))
        basis = self.state_array(np.eye(size), axis=1)
        one_step = self.state_vectors(self._host_final(np.zeros((size, 1)), basis), axis=1).T
        return np.linalg.matrix_power(one_step, n)

    def _host_final(self, x: np.ndarray, state: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class _Sections(_OnePass):
    """Second-order sections, as dspk.sosfilt runs them."""

    def __init__(self, sos: Any):
        super().__init__()
        self.sos = validation.sos_array(sos).astype(np.float64)
        self._steady = _scipy.sosfilt_zi(self.sos)
        self.state_shape, self.lead = (len(self.sos), 2), 1

    def denominators(self) -> np.ndarray:
        return self.sos[:, 3:]

    def run(self, x, axis, state, runtime):
        return sosfilt(self.sos, x, axis=axis, zi=state, runtime=runtime)

    def zero_phase(self, x, axis, padtype, padlen, runtime):
        return sosfiltfilt(self.sos, x, axis=axis, padtype=padtype, padlen=padlen,
                           runtime=runtime)

    def zeros(self, x: np.ndarray, axis: int) -> np.ndarray:
        shape = list(x.shape)
        shape[axis] = 2
        return np.zeros((len(self.sos), *shape), x.dtype)

    def steady(self, edge: np.ndarray, axis: int) -> np.ndarray:
        """The state of a filter that has long seen the samples ``edge`` (size 1 along ``axis``)."""
        shape = [1] * (edge.ndim + 1)
        shape[0], shape[axis + 1] = len(self.sos), 2
        return self._steady.astype(edge.dtype).reshape(shape) * edge[np.newaxis]

    def impulse_response(self, n: int) -> np.ndarray:
        return _scipy.sosfilt(self.sos, _impulse(n))

    def _host_final(self, x: np.ndarray, state: np.ndarray) -> np.ndarray:
        return _scipy.sosfilt(self.sos, x, axis=1, zi=state)[1]

    def default_padlen(self) -> int:
        sos = self.sos
        return 3 * int(2 * len(sos) + 1 - min((sos[:, 2] == 0).sum(), (sos[:, 5] == 0).sum()))


class _TransferFunction(_OnePass):
    """A transfer function ``(b, a)``, as dspk.lfilter runs it."""

    def __init__(self, b: Any, a: Any):
        super().__init__()
        self.b, self.a = validation.ba_arrays(b, a)
        self._steady = _scipy.lfilter_zi(self.b, self.a) if len(self.a) > 1 else np.zeros(0)
        self.state_shape, self.lead = (len(self.a) - 1,), 0

    def denominators(self) -> np.ndarray:
        return self.a[np.newaxis]

    def run(self, x, axis, state, runtime):
        return lfilter(self.b, self.a, x, axis=axis, zi=state, runtime=runtime)

    def zero_phase(self, x, axis, padtype, padlen, runtime):
        return filtfilt(self.b, self.a, x, axis=axis, padtype=padtype, padlen=padlen,
                        runtime=runtime)

    def zeros(self, x: np.ndarray, axis: int) -> np.ndarray:
        shape = list(x.shape)
        shape[axis] = len(self.a) - 1
        return np.zeros(shape, x.dtype)

    def steady(self, edge: np.ndarray, axis: int) -> np.ndarray:
        shape = [1] * edge.ndim
        shape[axis] = len(self.a) - 1
        return self._steady.astype(edge.dtype).reshape(shape) * edge

    def impulse_response(self, n: int) -> np.ndarray:
        return _scipy.lfilter(self.b, self.a, _impulse(n))

    def _host_final(self, x: np.ndarray, state: np.ndarray) -> np.ndarray:
        return _scipy.lfilter(self.b, self.a, x, axis=1, zi=state)[1]

    def default_padlen(self) -> int:
        return 3 * len(self.a)


def _impulse(n: int) -> np.ndarray:
    delta = np.zeros(n)
    delta[0] = 1.0
    return delta


def _one_pass(design: Any) -> _OnePass:
    """Sections from an ``(n, 6)`` array, a transfer function from a ``(b, a)`` pair."""
    if isinstance(design, tuple):
        if len(design) != 2:
            raise ValueError(f"a transfer function is a pair (b, a); got {len(design)} items")
        return _TransferFunction(*design)
    return _Sections(design)


def _decay_margin(design: _OnePass, tol: Any) -> int:
    """The fewest samples ``M`` with ``sum(|h[k]|, k >= M) <= tol``, ``h`` the impulse response."""
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real):
        raise TypeError(f"tol must be a real number; got {tol!r}")
    if not 0 < tol < 1:
        raise ValueError(f"tol must lie between 0 and 1; got {tol!r}")
    radius = design.pole_radius()
    if radius >= 1 - 1e-12:
        raise ValueError(f"the filter has a pole of magnitude {radius:.6g}: its impulse response "
                         "does not decay, so no margin bounds a zero-phase stream's error; "
                         "pass margin= explicitly")
    # The slowest pole alone needs log(tol) / log(radius) samples: a lower bound.
    n = 64 if radius == 0 else max(64, math.ceil(math.log(tol) / math.log(radius)))
    while n <= _LONGEST_IMPULSE_RESPONSE:
        tail = np.cumsum(np.abs(design.impulse_response(2 * n))[::-1])[::-1]
        # The tail beyond 2n is negligible once the second half holds less than tol / 4.
        if tail[n] <= tol / 4:
            return int(np.argmax(tail <= tol / 2))
        n *= 2
    raise ValueError(f"the filter's impulse response decays too slowly to bound a zero-phase "
                     f"stream's error (its slowest pole, of magnitude {radius:.12g}, needs "
                     f"more than {_LONGEST_IMPULSE_RESPONSE} samples); pass margin= explicitly")


def zero_phase_margin(design, tol=DEFAULT_TOLERANCE):
    """The margin a zero-phase stream needs: where the filter's impulse response has decayed.

    Parameters
    ----------
    design : array_like or tuple
        Second-order sections ``(n_sections, 6)``, or a pair ``(b, a)``.
    tol : float, optional
        The bound on ``sum(|h[k]|, k >= margin)``, ``h`` the filter's impulse
        response. Default 1e-12.

    Returns
    -------
    int
        The fewest samples ``M`` whose impulse-response tail is at most ``tol``.

    Examples
    --------
    >>> import scipy.signal
    >>> from dspk.streaming import zero_phase_margin
    >>> sos = scipy.signal.butter(3, [300, 6000], "bandpass", fs=30000, output="sos")
    >>> 500 < zero_phase_margin(sos) < 2000
    True
    """
    return _decay_margin(_one_pass(design), tol)


# --- causal filters: exact ---------------------------------------------------------------

class _CausalStream(Stream):
    """A one-pass filter whose state is carried from chunk to chunk."""

    def __init__(self, design: _OnePass, axis: Any, zi: Any, runtime: str | None):
        super().__init__(axis, runtime)
        self._filter = design
        self._state = None if zi is None else to_numpy(zi)

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        x = chunk.astype(self._filter.working_dtype(chunk.dtype), copy=False)
        if self._state is None:
            self._state = self._filter.zeros(x, self.axis)
        y, self._state = self._filter.run(x, self.axis, self._state, self.runtime)
        return y.astype(chunk.dtype, copy=False)

    @property
    def zf(self) -> np.ndarray | None:
        """The filter state after the last chunk, as ``sosfilt``'s or ``lfilter``'s ``zf``."""
        return None if self._state is None else self._state.astype(self.dtype, copy=False)


class SosfiltStream(_CausalStream):
    """:func:`dspk.sosfilt` over a stream, exact at every chunk boundary.

    Parameters
    ----------
    sos : array_like
        Second-order sections, shape ``(n_sections, 6)``.
    axis : int, optional
        The time axis of the chunks. Default -1.
    zi : array_like, optional
        The initial state, as :func:`dspk.sosfilt`'s ``zi`` for the first
        chunk (its time axis replaced by 2); zeros by default.
    runtime : str, optional
        The runtime to run on.

    Examples
    --------
    >>> import numpy as np, scipy.signal
    >>> from dspk.streaming import SosfiltStream
    >>> sos = scipy.signal.butter(3, [300, 6000], "bandpass", fs=30000, output="sos")
    >>> x = np.random.default_rng(0).standard_normal((4, 3000))
    >>> stream = SosfiltStream(sos)
    >>> y = np.concatenate([stream.push(x[:, :1000]), stream.push(x[:, 1000:]), stream.finish()],
    ...                    axis=-1)
    >>> bool(np.allclose(y, scipy.signal.sosfilt(sos, x), rtol=0, atol=1e-12))
    True
    """

    def __init__(self, sos, axis=-1, zi=None, *, runtime=None):
        super().__init__(_Sections(sos), axis, zi, runtime)


class LfilterStream(_CausalStream):
    """:func:`dspk.lfilter` over a stream, exact at every chunk boundary.

    Parameters
    ----------
    b, a : array_like
        The transfer function's numerator and denominator.
    axis : int, optional
        The time axis of the chunks. Default -1.
    zi : array_like, optional
        The initial state, as :func:`dspk.lfilter`'s ``zi`` for the first
        chunk; zeros by default.
    runtime : str, optional
        The runtime to run on.

    Examples
    --------
    >>> import numpy as np, scipy.signal
    >>> from dspk.streaming import LfilterStream
    >>> b, a = scipy.signal.butter(4, 0.1)
    >>> x = np.random.default_rng(0).standard_normal(1000)
    >>> stream = LfilterStream(b, a)
    >>> y = np.concatenate([stream.push(x[:1]), stream.push(x[1:700]), stream.push(x[700:])])
    >>> bool(np.allclose(y, scipy.signal.lfilter(b, a, x), rtol=0, atol=1e-12))
    True
    """

    def __init__(self, b, a, axis=-1, zi=None, *, runtime=None):
        super().__init__(_TransferFunction(b, a), axis, zi, runtime)


# --- zero-phase filters: a margin the impulse response sets ---------------------------------

def _zero_phase_lengths(design: _OnePass, padtype: Any, padlen: Any, margin: Any,
                        tol: Any) -> tuple[int, int]:
    """The checked ``padlen`` (0 without padding) and ``margin`` of a zero-phase filter."""
    validation.choice(padtype, _PADTYPES, "padtype")
    if margin is not None and tol is not None:
        raise ValueError("give margin or tol, not both: the margin follows from tol")
    if padtype is None:
        padlen = 0
    else:
        padlen = design.default_padlen() if padlen is None else _count(padlen, "padlen")
    margin = (_decay_margin(design, DEFAULT_TOLERANCE if tol is None else tol)
              if margin is None else _count(margin, "margin"))
    return padlen, margin


class _ZeroPhaseStream(Stream):
    """Forward exactly; backward from ``margin`` samples ahead of the samples emitted."""

    def __init__(self, design: _OnePass, axis: Any, padtype: Any, padlen: Any, margin: Any,
                 tol: Any, runtime: str | None):
        super().__init__(axis, runtime)
        self._filter = design
        self._padtype = padtype
        self.padlen, self.margin = _zero_phase_lengths(design, padtype, padlen, margin, tol)
        self._head: np.ndarray | None = None      # samples before the forward pass starts
        self._tail: np.ndarray | None = None      # the last padlen + 1 samples
        self._state: np.ndarray | None = None     # of the forward pass
        self._pending: np.ndarray | None = None   # forward-filtered, not yet emitted

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        x = chunk.astype(self._filter.working_dtype(chunk.dtype), copy=False)
        self._tail = self._last(self.padlen + 1, self._tail, x)
        if self._state is None:
            self._head = self._join(self._head, x)
            if self._length(self._head) <= self.padlen:
                return self._empty()
            x, self._head = self._head, None
            extended = self._join(self._extension(x, at_start=True), x)
            start = self._filter.steady(self._cut(extended, 0, 1), self.axis)
            v, self._state = self._filter.run(extended, self.axis, start, self.runtime)
            v = self._cut(v, self.padlen, None)
        else:
            v, self._state = self._filter.run(x, self.axis, self._state, self.runtime)
        ready = self._length(self._pending) + self._length(v) - self.margin
        if ready <= 0:
            self._pending = self._join(self._pending, v)
            return self._empty()
        y = self._cut(self._backward(self._pending, v), 0, ready)
        self._pending = self._last(self.margin, self._pending, v)
        return y.astype(chunk.dtype, order="K")

    def _finish(self) -> np.ndarray:
        if self._state is None:  # the signal is too short to pad: the one-shot says so
            y = self._filter.zero_phase(self._head, self.axis, self._padtype, self.padlen,
                                        self.runtime)
            return y.astype(self.dtype, copy=False)
        v = None
        if self.padlen:
            v, _ = self._filter.run(self._extension(self._tail, at_start=False), self.axis,
                                    self._state, self.runtime)
        y = self._backward(self._pending, v)
        return self._cut(y, 0, self._length(y) - self.padlen).astype(self.dtype, order="K")

    def _backward(self, *parts: np.ndarray | None) -> np.ndarray:
        """The backward pass over ``parts`` joined, from the steady state at their end."""
        # Joined reversed in one copy, contiguous as the forward pass's input, so that one
        # compiled kernel serves both passes.
        reversed_v = np.concatenate([self._flip(p) for p in reversed(parts) if p is not None],
                                    axis=self.axis)
        start = self._filter.steady(self._cut(reversed_v, 0, 1), self.axis)
        y, _ = self._filter.run(reversed_v, self.axis, start, self.runtime)
        return self._flip(y)

    def _extension(self, x: np.ndarray, at_start: bool) -> np.ndarray:
        """The ``padlen`` samples padded before ``x`` (or after it), as sosfiltfilt pads."""
        n = self.padlen
        if at_start:
            edge, mirror = self._cut(x, 0, 1), self._cut(x, n, 0, -1)
        else:
            edge, mirror = self._cut(x, -1, None), self._cut(x, -2, -n - 2, -1)
        if self._padtype == "constant":
            return np.repeat(edge, n, axis=self.axis)
        return 2 * edge - mirror if self._padtype == "odd" else mirror


class SosfiltfiltStream(_ZeroPhaseStream):
    """:func:`dspk.sosfiltfilt` over a stream, within a bound set by a margin.

    The forward pass is exact; each backward pass starts ``margin`` samples
    beyond the samples it emits, so the output lags the input by ``margin``
    samples (and by ``padlen`` at the start); :meth:`finish` gives the rest.
    Both ends are padded as :func:`dspk.sosfiltfilt` pads them, so they are
    exact; elsewhere the error is at most ``2 * tol * max|v|`` (``v`` the
    forward-filtered signal; see the module's notes).

    Parameters
    ----------
    sos : array_like
        Second-order sections, shape ``(n_sections, 6)``.
    axis : int, optional
        The time axis of the chunks. Default -1.
    padtype : {"odd", "even", "constant", None}, optional
        How the ends are padded, as in :func:`dspk.sosfiltfilt`. Default "odd".
    padlen : int, optional
        Samples padded at each end; :func:`dspk.sosfiltfilt`'s default.
    margin : int, optional
        Samples of look-ahead of each backward pass; by default
        :func:`zero_phase_margin` of ``tol``. Give ``margin`` or ``tol``.
    tol : float, optional
        The bound on the impulse-response tail beyond the margin; default 1e-12.
    runtime : str, optional
        The runtime to run on.

    Attributes
    ----------
    margin : int
        The look-ahead, in samples.
    padlen : int
        The samples padded at each end.

    Examples
    --------
    >>> import numpy as np, scipy.signal
    >>> from dspk.streaming import SosfiltfiltStream
    >>> sos = scipy.signal.butter(3, [300, 6000], "bandpass", fs=30000, output="sos")
    >>> x = np.random.default_rng(0).standard_normal((4, 9000))
    >>> stream = SosfiltfiltStream(sos)
    >>> parts = [stream.push(x[:, i:i + 1000]) for i in range(0, 9000, 1000)]
    >>> y = np.concatenate([*parts, stream.finish()], axis=-1)
    >>> bool(np.allclose(y, scipy.signal.sosfiltfilt(sos, x), rtol=0, atol=1e-10))
    True
    """

    def __init__(self, sos, axis=-1, padtype="odd", padlen=None, *, margin=None, tol=None,
                 runtime=None):
        super().__init__(_Sections(sos), axis, padtype, padlen, margin, tol, runtime)


class FiltfiltStream(_ZeroPhaseStream):
    """:func:`dspk.filtfilt` (``method="pad"``) over a stream, within a bound set by a margin.

    As :class:`SosfiltfiltStream`, for a transfer function ``(b, a)``.

    Parameters
    ----------
    b, a : array_like
        The transfer function's numerator and denominator.
    axis, padtype, padlen, margin, tol, runtime
        As :class:`SosfiltfiltStream`'s; ``padlen`` defaults to
        ``3 * max(len(a), len(b))``, as in :func:`dspk.filtfilt`.

    Examples
    --------
    >>> import numpy as np, scipy.signal
    >>> from dspk.streaming import FiltfiltStream
    >>> b, a = scipy.signal.butter(3, 0.05)
    >>> x = np.random.default_rng(0).standard_normal(5000)
    >>> stream = FiltfiltStream(b, a)
    >>> y = np.concatenate([stream.push(x[:2500]), stream.push(x[2500:]), stream.finish()])
    >>> bool(np.allclose(y, scipy.signal.filtfilt(b, a, x), rtol=0, atol=1e-10))
    True
    """

    def __init__(self, b, a, axis=-1, padtype="odd", padlen=None, *, margin=None, tol=None,
                 runtime=None):
        super().__init__(_TransferFunction(b, a), axis, padtype, padlen, margin, tol, runtime)


def filter_stream(design, axis=-1, *, margin=None, tol=None, runtime=None):
    """The stream of a :class:`dspk.Filter`: zero phase or causal, as the filter says.

    Parameters
    ----------
    design : dspk.Filter
        A designed filter, such as ``dspk.Filter.bandpass(300, 6000, fs=30000)``.
    axis : int, optional
        The time axis of the chunks. Default -1.
    margin, tol : optional
        For a zero-phase filter, as :class:`SosfiltfiltStream`'s.
    runtime : str, optional
        The runtime to run on.

    Returns
    -------
    SosfiltfiltStream or SosfiltStream

    Examples
    --------
    >>> from dspk.designs import Filter
    >>> from dspk.streaming import filter_stream
    >>> type(filter_stream(Filter.highpass(300, fs=30000, zero_phase=False))).__name__
    'SosfiltStream'
    """
    if not isinstance(design, Filter):
        raise TypeError(f"design must be a dspk.Filter; got {type(design).__name__}")
    if design.zero_phase:
        return SosfiltfiltStream(design.sos, axis, margin=margin, tol=tol, runtime=runtime)
    if margin is not None or tol is not None:
        raise ValueError("margin and tol apply to zero-phase filters only; this one is causal")
    return SosfiltStream(design.sos, axis, runtime=runtime)


# --- resampling: polyphase filters, exact -----------------------------------------------------

class _Polyphase(Stream):
    """Samples ``first + m`` (``m = 0, 1, ...``) of ``upfirdn(h, x, up, down)``.

    The buffer holds ``x`` from sample ``start``, a multiple of ``down``, so
    that its own upfirdn output is the whole one's from sample
    ``start * up / down`` (``up`` and ``down`` coprime).
    """

    def __init__(self, h: np.ndarray, up: int, down: int, first: int, cval: float, axis: Any,
                 runtime: str | None):
        super().__init__(axis, runtime)
        self._h, self._up, self._down, self._first, self._cval = h, up, down, first, cval
        self._buffer: np.ndarray | None = None
        self._start = 0
        self._next = 0

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        self._buffer = self._join(self._buffer, chunk)
        end = self._start + self._length(self._buffer)
        # Output k of upfirdn reads x up to sample k * down // up.
        return self._emit((end - 1) * self._up // self._down - self._first + 1)

    def _finish(self) -> np.ndarray:
        return self._emit(-(-self._received * self._up // self._down))

    def _emit(self, stop: int) -> np.ndarray:
        if stop <= self._next:
            return self._empty()
        full = upfirdn(self._h, self._buffer, self._up, self._down, axis=self.axis,
                       mode="constant", cval=self._cval, runtime=self.runtime)
        offset = self._first - self._start * self._up // self._down
        y = self._cut(full, offset + self._next, offset + stop)
        self._next = stop
        # The earliest sample the next output reads, rounded down to a multiple of down.
        reach = (self._first + stop) * self._down - len(self._h) + 1
        keep = min(max(0, -(-reach // self._up)), self._start + self._length(self._buffer))
        keep -= keep % self._down
        self._buffer = self._cut(self._buffer, keep - self._start, None).copy()
        self._start = keep
        return y.copy(order="K")


class ResamplePolyStream(_Polyphase):
    """:func:`dspk.resample_poly` over a stream, exact at every chunk boundary.

    The polyphase filter's phase is carried from chunk to chunk; the output
    lags the input by half the filter. Only ``padtype="constant"`` streams:
    the other padtypes need the whole signal (its mean, median, ...) or its
    far end before the first output.

    Parameters
    ----------
    up, down : int
        The upsampling and downsampling factors.
    axis : int, optional
        The time axis of the chunks. Default 0, as in scipy.
    window : string, tuple, or array_like, optional
        As :func:`dspk.resample_poly`'s. Default ``("kaiser", 5.0)``.
    padtype : {"constant"}, optional
        The signal is ``cval`` beyond its ends.
    cval : float, optional
        The value beyond the ends; default 0.
    runtime : str, optional
        The runtime to run on.

    Examples
    --------
    >>> import numpy as np, scipy.signal
    >>> from dspk.streaming import ResamplePolyStream
    >>> x = np.random.default_rng(0).standard_normal((3000, 4))
    >>> stream = ResamplePolyStream(2, 3)
    >>> y = np.concatenate([stream.push(x[:1234]), stream.push(x[1234:]), stream.finish()])
    >>> y.shape, bool(np.allclose(y, scipy.signal.resample_poly(x, 2, 3), rtol=0, atol=1e-12))
    ((2000, 4), True)
    """

    def __init__(self, up, down, axis=0, window=("kaiser", 5.0), padtype="constant", cval=None,
                 *, runtime=None):
        up = validation.integer(up, "up", minimum=1)
        down = validation.integer(down, "down", minimum=1)
        if padtype != "constant":
            raise ValueError(f"padtype={padtype!r} cannot stream: it needs the whole signal or "
                             "its far end before the first output; a stream pads with "
                             "padtype='constant'")
        cval = 0.0 if cval is None else _real(cval, "cval")
        common = math.gcd(up, down)
        up, down = up // common, down // common
        if up == down == 1:
            h, first = np.ones(1), 0
        else:
            taps, half_len = antialiasing_taps(Call(resolve(runtime), False), window, up, down)
            pre_pad = down - half_len % down
            h, first = np.concatenate([np.zeros(pre_pad), taps * up]), (half_len + pre_pad) // down
        super().__init__(h, up, down, first, cval, axis, runtime)


def _real(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {value!r}")
    return float(value)


class _EveryQth(Stream):
    """Keeps the samples whose index in the whole signal is a multiple of ``q``."""

    def __init__(self, q: int, axis: Any, runtime: str | None):
        super().__init__(axis, runtime)
        self._q = q

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        return self._cut(chunk, -self._received % self._q, None, self._q).copy(order="K")


class StreamChain(Stream):
    """Streams one after another: each stage's output is the next one's input.

    Parameters
    ----------
    *stages : Stream
        The stages, in order.

    Examples
    --------
    >>> import numpy as np, scipy.signal, dspk
    >>> from dspk.streaming import CommonReferenceStream, SosfiltStream, StreamChain
    >>> sos = scipy.signal.butter(3, [300, 6000], "bandpass", fs=30000, output="sos")
    >>> chain = StreamChain(SosfiltStream(sos), CommonReferenceStream())
    >>> x = np.random.default_rng(0).standard_normal((8, 3000))
    >>> y = np.concatenate([chain.push(x[:, :1000]), chain.push(x[:, 1000:]), chain.finish()],
    ...                    axis=-1)
    >>> bool(np.allclose(y, dspk.common_reference(scipy.signal.sosfilt(sos, x))))
    True
    """

    def __init__(self, *stages: Stream):
        if not stages or not all(isinstance(s, Stream) for s in stages):
            raise TypeError("StreamChain takes one or more streams")
        if any(isinstance(s, WelchStream) for s in stages):
            raise TypeError("a WelchStream gives a spectrum, not samples: it cannot be a stage")
        super().__init__(stages[0].axis, stages[0].runtime)
        self.stages = stages

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        for stage in self.stages:
            chunk = stage.push(chunk)
        return chunk

    def _finish(self) -> np.ndarray:
        out = self.stages[0].finish()
        for stage in self.stages[1:]:
            out = np.concatenate([stage.push(out), stage.finish()], axis=stage.axis)
        return out


class DecimateStream(StreamChain):
    """:func:`dspk.decimate` over a stream.

    Exact for ``ftype="fir"`` and for causal IIR filters (``zero_phase=False``);
    a zero-phase IIR filter runs as a :class:`SosfiltfiltStream` (or
    :class:`FiltfiltStream`), within its bound. The phase of the sample kept
    is carried from chunk to chunk.

    Parameters
    ----------
    q : int
        The downsampling factor.
    n : int, optional
        The filter order, as :func:`dspk.decimate`'s.
    ftype : str {'iir', 'fir'} or ``dlti`` instance, optional
        The anti-aliasing filter, as :func:`dspk.decimate`'s. Default 'iir'.
    axis : int, optional
        The time axis of the chunks. Default -1.
    zero_phase : bool, optional
        Zero-phase filtering, as :func:`dspk.decimate`'s. Default True.
    margin, tol : optional
        For zero-phase IIR filters, as :class:`SosfiltfiltStream`'s.
    runtime : str, optional
        The runtime to run on.

    Examples
    --------
    >>> import numpy as np, scipy.signal
    >>> from dspk.streaming import DecimateStream
    >>> x = np.random.default_rng(0).standard_normal((2, 4000))
    >>> stream = DecimateStream(4, ftype="fir")
    >>> y = np.concatenate([stream.push(x[:, :1001]), stream.push(x[:, 1001:]), stream.finish()],
    ...                    axis=-1)
    >>> bool(np.allclose(y, scipy.signal.decimate(x, 4, ftype="fir"), rtol=0, atol=1e-12))
    True
    """

    def __init__(self, q, n=None, ftype="iir", axis=-1, zero_phase=True, *, margin=None,
                 tol=None, runtime=None):
        q = validation.integer(q, "q", minimum=1)
        n = None if n is None else validation.integer(n, "n", minimum=1)
        kind, coefficients = decimation_filter(ftype, q, n)
        if kind == "fir" and (margin is not None or tol is not None):
            raise ValueError("margin and tol apply to zero-phase IIR filters only")
        if kind == "fir" and zero_phase:
            stages = (ResamplePolyStream(1, q, axis, window=coefficients[0], runtime=runtime),)
        elif kind == "fir":
            stages = (_Polyphase(np.asarray(coefficients[0], np.float64), 1, q, 0, 0.0, axis,
                                 runtime),)
        else:
            design = _one_pass(coefficients[0] if kind == "sos" else coefficients)
            if zero_phase:
                stage = _ZeroPhaseStream(design, axis, "odd", None, margin, tol, runtime)
            else:
                if margin is not None or tol is not None:
                    raise ValueError("margin and tol apply to zero-phase filters only")
                stage = _CausalStream(design, axis, None, runtime)
            stages = (stage, _EveryQth(q, axis, runtime))
        super().__init__(*stages)


# --- operations across channels ---------------------------------------------------------------

class CommonReferenceStream(Stream):
    """:func:`dspk.common_reference` over a stream: each sample on its own, exact.

    Parameters
    ----------
    reference, operator, groups, axis
        As :func:`dspk.common_reference`'s.
    runtime : str, optional
        The runtime to run on.

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
                 runtime=None):
        super().__init__(axis, runtime)
        validation.choice(reference, ("global",), "reference")
        validation.choice(operator, ("median", "average"), "operator")
        self._options = {"reference": reference, "operator": operator, "groups": groups}

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        return common_reference(chunk, axis=self.axis, runtime=self.runtime, **self._options)


def _taper(margin: int) -> np.ndarray:
    """Weights of a left margin: a squared sine rising over its outer half, then ones."""
    rise = margin - margin // 2
    ramp = np.sin(np.pi / 2 * (np.arange(rise) + 0.5) / max(rise, 1)) ** 2
    return np.concatenate([ramp, np.ones(margin // 2)])


class PhaseShiftStream(Stream):
    """:func:`dspk.phase_shift` over a stream, in blocks with tapered margins.

    Each block is shifted with ``margin`` samples of the signal on each side
    as context (zeros before the first sample and after the last, as the
    one-shot pads), tapered to zero over the margin's outer half with a
    squared sine so that the block's circular FFT sees no jump; the block's
    middle is the output, and whole-sample shifts up to ``margin // 2`` are
    exact. A block is shifted once at least ``2 * margin`` new samples have
    arrived, so the output lags the input by ``margin`` to ``3 * margin``
    samples.

    Parameters
    ----------
    shifts : array_like
        The delay of each channel in samples, as :func:`dspk.phase_shift`'s.
    margin : int, optional
        Samples of context on each side of a block. Default 1200.
    axis : int, optional
        The time axis of the chunks. Default -1.
    runtime : str, optional
        The runtime to run on.

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
        self.margin = _count(margin, "margin")
        self._ramp = _taper(self.margin)
        self._buffer: np.ndarray | None = None

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        if self._buffer is None:
            channels = 1 if chunk.ndim == 1 else chunk.size // self._length(chunk)
            if self._shifts.size != channels:
                raise ValueError(f"shifts has {self._shifts.size} value(s); the chunks have "
                                 f"{channels} channel(s), which need one each")
            self._buffer = self._zeros(self.margin)
        self._buffer = self._join(self._buffer, chunk)
        if self._length(self._buffer) - 2 * self.margin < max(2 * self.margin, 1):
            return self._empty()
        return self._emit()

    def _finish(self) -> np.ndarray:
        self._buffer = self._join(self._buffer, self._zeros(self.margin))
        if self._length(self._buffer) == 2 * self.margin:
            return self._empty()
        return self._emit()

    def _zeros(self, n: int) -> np.ndarray:
        shape = list(self._like.shape)
        shape[self.axis] = n
        return np.zeros(shape, self.dtype)

    def _emit(self) -> np.ndarray:
        m, n = self.margin, self._length(self._buffer)
        block = self._buffer.copy()
        if m:
            shape = [1] * block.ndim
            shape[self.axis] = m
            ramp = self._ramp.astype(self.dtype).reshape(shape)
            self._cut(block, 0, m)[...] *= ramp
            self._cut(block, n - m, None)[...] *= self._flip(ramp)
        y = phase_shift(block, self._shifts, margin=0, axis=self.axis, runtime=self.runtime)
        self._buffer = self._cut(self._buffer, n - 2 * m, None).copy()
        return self._cut(y, m, n - m).copy(order="K")


# --- spectra ----------------------------------------------------------------------------------

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
        self.noverlap = self.nperseg // 2 if noverlap is None else _count(noverlap, "noverlap")
        if self.noverlap >= self.nperseg:
            raise ValueError(f"noverlap={self.noverlap} must be less than "
                             f"nperseg={self.nperseg}")
        self.nfft = self.nperseg if nfft is None else _count(nfft, "nfft")
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
