"""Resampling streams: polyphase filters and decimation, exact."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dspk import validation
from dspk.dispatch import Call
from dspk.docstrings import shared
from dspk.resampling import antialiasing_taps, decimation_filter, upfirdn
from dspk.runtime import resolve
from dspk.streaming.base import Stream, StreamChain
from dspk.streaming.filters import CausalStream, ZeroPhaseStream, one_pass

__all__ = ["ResamplePolyStream", "DecimateStream"]


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


@shared
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
    {runtime}

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
        cval = 0.0 if cval is None else validation.real_number(cval, "cval")
        common = math.gcd(up, down)
        up, down = up // common, down // common
        if up == down == 1:
            h, first = np.ones(1), 0
        else:
            taps, half_len = antialiasing_taps(Call(resolve(runtime), False), window, up, down)
            pre_pad = down - half_len % down
            h, first = np.concatenate([np.zeros(pre_pad), taps * up]), (half_len + pre_pad) // down
        super().__init__(h, up, down, first, cval, axis, runtime)


class _EveryQth(Stream):
    """Keeps the samples whose index in the whole signal is a multiple of ``q``."""

    def __init__(self, q: int, axis: Any, runtime: str | None):
        super().__init__(axis, runtime)
        self._q = q

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        return self._cut(chunk, -self._received % self._q, None, self._q).copy(order="K")



@shared
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
    {stream_axis}
    zero_phase : bool, optional
        Zero-phase filtering, as :func:`dspk.decimate`'s. Default True.
    margin, tol : optional
        For zero-phase IIR filters, as :class:`SosfiltfiltStream`'s.
    {runtime}

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
            design = one_pass(coefficients[0] if kind == "sos" else coefficients)
            if zero_phase:
                stage = ZeroPhaseStream(design, axis, "odd", None, margin, tol, runtime)
            else:
                if margin is not None or tol is not None:
                    raise ValueError("margin and tol apply to zero-phase filters only")
                stage = CausalStream(design, axis, None, runtime)
            stages = (stage, _EveryQth(q, axis, runtime))
        super().__init__(*stages)

