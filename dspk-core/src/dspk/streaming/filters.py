"""Filter streams: causal filters, exact; zero-phase filters, within a margin's bound."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import signal as _scipy

from dspk import validation
from dspk.arrays import to_numpy
from dspk.designs import Filter
from dspk.dispatch import Call, Signal2D
from dspk.docstrings import shared
from dspk.filtering import filter_problem, filtfilt, lfilter, sosfilt, sosfiltfilt
from dspk.plugin import CausalFilter, KernelNotReady, deferring
from dspk.streaming.base import Stream, along
from dspk.tuning import tuner

__all__ = ["SosfiltStream", "LfilterStream", "SosfiltfiltStream", "FiltfiltStream",
           "filter_stream", "zero_phase_margin"]

#: The default bound on the impulse-response tail beyond a zero-phase stream's margin.
DEFAULT_TOLERANCE = 1e-12

_PADTYPES = ("odd", "even", "constant", None)
#: The longest margin a zero-phase stream computes (140 s at 30 kHz): a filter whose
#: response takes longer to decay is refused, before gigabytes of impulse response.
_LONGEST_IMPULSE_RESPONSE = 1 << 22


class OnePass:
    """A causal filter as the streams use it; subclasses run it with a dspk operation.

    Its state has the layout of the operation's ``zi``: ``state_shape`` per
    channel, with ``lead`` dimensions before the channels (the sections).
    """

    state_shape: tuple[int, ...]
    lead: int
    #: The dspk operation that runs it.
    op: str

    def __init__(self):
        self._working: dict[np.dtype, np.dtype] = {}

    def denominators(self) -> np.ndarray:
        raise NotImplementedError

    def coefficients(self) -> tuple[np.ndarray, ...]:
        """The normalised coefficients, as the operation's variants take them."""
        raise NotImplementedError

    def variant_state(self, state: np.ndarray, axis: int) -> np.ndarray:
        """A 2-D signal's state (``zi`` layout, time axis ``axis``) as the operation's
        variants take it: the channels at index :attr:`lead`."""
        return np.moveaxis(state, self.lead + 1 - axis, self.lead)

    def from_variant_state(self, state: np.ndarray, axis: int) -> np.ndarray:
        """The inverse of :meth:`variant_state`."""
        return np.moveaxis(state, self.lead, self.lead + 1 - axis)

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


class _Sections(OnePass):
    """Second-order sections, as dspk.sosfilt runs them."""

    def __init__(self, sos: Any):
        super().__init__()
        self.sos = validation.sos_array(sos).astype(np.float64)
        self._steady = _scipy.sosfilt_zi(self.sos)
        self.state_shape, self.lead, self.op = (len(self.sos), 2), 1, "sosfilt"

    def denominators(self) -> np.ndarray:
        return self.sos[:, 3:]

    def coefficients(self) -> tuple[np.ndarray, ...]:
        return (self.sos,)

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


class _TransferFunction(OnePass):
    """A transfer function ``(b, a)``, as dspk.lfilter runs it."""

    def __init__(self, b: Any, a: Any):
        super().__init__()
        self.b, self.a = validation.ba_arrays(b, a)
        self._steady = _scipy.lfilter_zi(self.b, self.a) if len(self.a) > 1 else np.zeros(0)
        self.state_shape, self.lead, self.op = (len(self.a) - 1,), 0, "lfilter"

    def denominators(self) -> np.ndarray:
        return self.a[np.newaxis]

    def coefficients(self) -> tuple[np.ndarray, ...]:
        return self.b, self.a

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


def one_pass(design: Any) -> OnePass:
    """Sections from an ``(n, 6)`` array, a transfer function from a ``(b, a)`` pair."""
    if isinstance(design, tuple):
        if len(design) != 2:
            raise ValueError(f"a transfer function is a pair (b, a); got {len(design)} items")
        return _TransferFunction(*design)
    return _Sections(design)


def _decay_margin(design: OnePass, tol: Any) -> int:
    """The fewest samples ``M`` with ``sum(|h[k]|, k >= M) <= tol``, ``h`` the impulse response."""
    validation.real_number(tol, "tol")
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
    return _decay_margin(one_pass(design), tol)


# --- causal filters: exact ---------------------------------------------------------------

class CausalStream(Stream):
    """A one-pass filter whose state is carried from chunk to chunk.

    Real 2-D chunks go to the runtime's kept filter where it has one
    (:meth:`dspk.plugin.Backend.causal_filter`), which holds the state in its own
    layout between chunks: the runtime, and the variant the operation's tuner
    chooses for the first such chunk, are then the stream's for its life. Other
    chunks, and every chunk while the filter's kernel is still being built, go
    through the operation with ``zi``; the results are the same.
    """

    def __init__(self, design: OnePass, axis: Any, zi: Any, runtime: str | None):
        super().__init__(axis, runtime)
        self._filter = design
        self._state = None if zi is None else to_numpy(zi)
        self._kept: CausalFilter | None = None  # the runtime's filter, holding the state
        self._keeps = True  # whether the runtime may have one, until it is asked

    def _compute_dtype(self, chunk: np.ndarray) -> np.dtype:
        return validation.compute_dtype(chunk, "chunk", allow_complex=True)

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        x = chunk.astype(self._filter.working_dtype(chunk.dtype), copy=False)
        if self._state is None and self._kept is None:
            self._state = self._filter.zeros(x, self.axis)
        y = (self._through_kept(x) if self._keeps and x.ndim == 2 and not tuner.forcing()
             else None)
        if y is None:
            self._release()
            y, self._state = self._filter.run(x, self.axis, self._state, self.runtime)
        return y.astype(chunk.dtype, copy=False)

    def _through_kept(self, x: np.ndarray) -> np.ndarray | None:
        """``x`` filtered by the runtime's kept filter, made first where there is none;
        None where the runtime has none or its kernel is not built yet."""
        if self._kept is None:
            if self._state.shape != self._filter.zeros(x, self.axis).shape:
                return None  # a zi to broadcast or refuse: the operation's checks first
            call, _ = Call.start(self.runtime, x, "chunk", self._filter.op)
            if not call.native_in or x.dtype.kind != "f" or np.iscomplexobj(self._state):
                self._keeps = False
                return None
            op, work = self._filter.op, x.dtype
            coefficients = tuple(c.astype(work) for c in self._filter.coefficients())
            zi = np.array(self._filter.variant_state(self._state.astype(work), self.axis))
            view = Signal2D.of(x, self.axis)
            variant = tuner.choose(  # what the operation runs this chunk with
                call.backend, filter_problem(op, view, self._filter.state_shape[0]),
                (*coefficients, view.array, view.axis, zi))
            self._kept = call.backend.causal_filter(op, coefficients, zi, variant.name)
            if self._kept is None:
                self._keeps = False
                return None
            self._state = None
        with deferring():
            try:
                return self._kept(x, self.axis)
            except KernelNotReady:
                return None

    def _release(self) -> None:
        """Take the state back from the kept filter, which is dropped."""
        if self._kept is not None:
            self._state = self._filter.from_variant_state(self._kept.zf(), self.axis)
            self._kept = None

    @property
    def settling(self) -> int:
        """Samples after which the output no longer depends on how the stream started: where
        the impulse response's tail falls below :data:`DEFAULT_TOLERANCE` (a
        :class:`ValueError` for a filter whose response does not decay)."""
        return _decay_margin(self._filter, DEFAULT_TOLERANCE)

    @property
    def zf(self) -> np.ndarray | None:
        """The filter state after the last chunk, as ``sosfilt``'s or ``lfilter``'s ``zf``."""
        if self._kept is not None:
            return self._filter.from_variant_state(self._kept.zf(), self.axis).astype(
                self.dtype, copy=False)
        return None if self._state is None else self._state.astype(self.dtype, copy=False)


@shared
class SosfiltStream(CausalStream):
    """:func:`dspk.sosfilt` over a stream, exact at every chunk boundary.

    Parameters
    ----------
    {sos}
    {stream_axis}
    zi : array_like, optional
        The initial state, as :func:`dspk.sosfilt`'s ``zi`` for the first
        chunk (its time axis replaced by 2); zeros by default.
    {runtime}

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


@shared
class LfilterStream(CausalStream):
    """:func:`dspk.lfilter` over a stream, exact at every chunk boundary.

    Parameters
    ----------
    {ba}
    {stream_axis}
    zi : array_like, optional
        The initial state, as :func:`dspk.lfilter`'s ``zi`` for the first
        chunk; zeros by default.
    {runtime}

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

def zero_phase_lengths(design: OnePass, padtype: Any, padlen: Any, margin: Any,
                        tol: Any) -> tuple[int, int]:
    """The checked ``padlen`` (0 without padding) and ``margin`` of a zero-phase filter."""
    validation.choice(padtype, _PADTYPES, "padtype")
    if margin is not None and tol is not None:
        raise ValueError("give margin or tol, not both: the margin follows from tol")
    if padtype is None:
        padlen = 0
    elif padlen is None:
        padlen = design.default_padlen()
    else:
        padlen = validation.integer(padlen, "padlen", minimum=0)
    margin = (_decay_margin(design, DEFAULT_TOLERANCE if tol is None else tol)
              if margin is None else validation.integer(margin, "margin", minimum=0))
    return padlen, margin


class ZeroPhaseStream(Stream):
    """Forward exactly; backward from ``margin`` samples ahead of the samples emitted."""

    def __init__(self, design: OnePass, axis: Any, padtype: Any, padlen: Any, margin: Any,
                 tol: Any, runtime: str | None):
        super().__init__(axis, runtime)
        self._filter = design
        self._padtype = padtype
        self.padlen, self.margin = zero_phase_lengths(design, padtype, padlen, margin, tol)
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
        return extension(x, self.axis, self._padtype, self.padlen, at_start)


def extension(x: Any, axis: int, padtype: str, n: int, at_start: bool) -> Any:
    """The ``n`` samples that the zero-phase filters pad before ``x`` (or after it) along
    ``axis`` with ``padtype`` ("odd", "even" or "constant"); NumPy or Dask arrays.

    Examples
    --------
    >>> x = np.array([[1.0, 2.0, 4.0]])
    >>> extension(x, 1, "odd", 2, at_start=True), extension(x, 1, "even", 2, at_start=False)
    (array([[-2.,  0.]]), array([[2., 1.]]))
    """
    def cut(*bounds):
        return x[along(axis, x.ndim, slice(*bounds))]

    if at_start:
        edge, mirror = cut(0, 1), cut(n, 0, -1)
    else:
        edge, mirror = cut(-1, None), cut(-2, -n - 2, -1)
    if padtype == "constant":
        return np.repeat(edge, n, axis=axis)
    return 2 * edge - mirror if padtype == "odd" else mirror


@shared
class SosfiltfiltStream(ZeroPhaseStream):
    """:func:`dspk.sosfiltfilt` over a stream, within a bound set by a margin.

    The forward pass is exact; each backward pass starts ``margin`` samples
    beyond the samples it emits, so the output lags the input by ``margin``
    samples (and by ``padlen`` at the start); :meth:`finish` gives the rest.
    Both ends are padded as :func:`dspk.sosfiltfilt` pads them, so they are
    exact; elsewhere the error is at most ``2 * tol * max|v|`` (``v`` the
    forward-filtered signal; see the module's notes).

    Parameters
    ----------
    {sos}
    {stream_axis}
    padtype : {"odd", "even", "constant", None}, optional
        How the ends are padded, as in :func:`dspk.sosfiltfilt`. Default "odd".
    padlen : int, optional
        Samples padded at each end; :func:`dspk.sosfiltfilt`'s default.
    margin : int, optional
        Samples of look-ahead of each backward pass; by default
        :func:`zero_phase_margin` of ``tol``. Give ``margin`` or ``tol``.
    {tol}
    {runtime}

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


@shared
class FiltfiltStream(ZeroPhaseStream):
    """:func:`dspk.filtfilt` (``method="pad"``) over a stream, within a bound set by a margin.

    As :class:`SosfiltfiltStream`, for a transfer function ``(b, a)``.

    Parameters
    ----------
    {ba}
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


@shared
def filter_stream(design, axis=-1, *, margin=None, tol=None, runtime=None):
    """The stream of a :class:`dspk.Filter`: zero phase or causal, as the filter says.

    Parameters
    ----------
    design : dspk.Filter
        A designed filter, such as ``dspk.Filter.bandpass(300, 6000, fs=30000)``.
    {stream_axis}
    margin, tol : optional
        For a zero-phase filter, as :class:`SosfiltfiltStream`'s.
    {runtime}

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

