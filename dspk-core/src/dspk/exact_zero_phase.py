"""Zero-phase filtering of a recording on disk, exact at every chunk: three passes.

A zero-phase filter's output at one sample depends on the whole signal: its
backward pass starts at the recording's end. A stream that sees the
recording once must start each backward pass a margin ahead instead
(:class:`dspk.streaming.SosfiltfiltStream`: within a stated bound). A
recording on disk can be read again, and a causal filter's whole past is
its state, a few numbers per channel; so :class:`ExactZeroPhase`, given a
way to read its input again, keeps only the forward and the backward
pass's states at each chunk boundary:

1. forward, in order: the forward pass's state at each chunk's start (the
   left end padded as the one-shot filter pads it);
2. backward, in reverse order: each chunk's forward output computed again
   from its state, filtered backward (from the right end's padding), for the
   backward pass's state at each chunk's end;
3. the run itself, in order (:meth:`ExactZeroPhase.push`): each chunk's
   forward output from its forward state, filtered backward from its
   backward state: the one-shot result, chunk by chunk, with no latency.

The input is read three times and filtered forward three times and backward
twice; the states take ``2 * channels * 2 * sections`` numbers per chunk.

Examples
--------
>>> import numpy as np, scipy.signal
>>> from dspk.exact_zero_phase import ExactZeroPhase
>>> sos = scipy.signal.butter(2, 0.002, "highpass", output="sos")  # rings for ever
>>> x = np.random.default_rng(0).standard_normal((9000, 2)).cumsum(axis=0)
>>> stream = ExactZeroPhase(sos, lambda start, stop: x[start:stop], len(x), step=1000)
>>> y = np.concatenate([stream.push(x[s:s + 1000]) for s in range(0, 9000, 1000)])
>>> bool(np.allclose(y, scipy.signal.sosfiltfilt(sos, x, axis=0), rtol=0, atol=1e-9))
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dspk import validation
from dspk.streaming import SosfiltfiltStream
from dspk.streaming.base import Stream
from dspk.streaming.filters import extension, one_pass, zero_phase_lengths, zero_phase_margin

__all__ = ["ExactZeroPhase"]


class ExactZeroPhase(Stream):
    """:func:`dspk.sosfiltfilt` of a signal that can be read again, pushed chunk by chunk.

    The chunks pushed must be the ``step``-sample chunks of the signal, in
    order (the last one shorter); the two passes that find the states run
    at the first push.

    Parameters
    ----------
    sos : array_like
        Second-order sections, as :func:`dspk.sosfiltfilt`'s.
    read : callable
        ``read(start, stop)``: samples ``start`` to ``stop`` of the signal,
        samples by channels.
    samples : int
        The signal's length.
    step : int
        Samples per chunk.
    padtype : {"odd", "even", "constant", None}, optional
        As :func:`dspk.sosfiltfilt`'s; its default ``padlen``.
    runtime : str, optional
        The runtime that filters.
    """

    def __init__(self, sos: Any, read: Callable[[int, int], np.ndarray], samples: int,
                 step: int, padtype: Any = "odd", runtime: str | None = None):
        super().__init__(0, runtime)
        self._filter = one_pass(sos)
        self._read = read
        self._samples = validation.integer(samples, "samples", minimum=1)
        self._step = validation.integer(step, "step", minimum=1)
        self._padtype = padtype
        self.padlen = zero_phase_lengths(self._filter, padtype, None, 0, None)[0]
        if self._samples <= self.padlen:
            raise ValueError(f"the signal has {self._samples} samples; a zero-phase filter "
                             f"needs more than padlen={self.padlen}")
        self._forward: list[np.ndarray | None] = []   # the forward state at each chunk's start
        self._backward: list[np.ndarray | None] = []  # the backward state at each chunk's end
        self._next = 0

    def one_pass(self, tol: float = 1e-9) -> SosfiltfiltStream:
        """The one-pass stream of the same filter, within ``tol``: for estimates over
        stretches of the signal, where this stream's chunks cannot be pushed."""
        return SosfiltfiltStream(self._filter.sos, 0, padtype=self._padtype,
                                 margin=zero_phase_margin(self._filter.sos, tol=tol),
                                 runtime=self.runtime)

    def _run(self, x: np.ndarray, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self._filter.run(x, 0, state, self.runtime)

    def _working(self, x: np.ndarray) -> np.ndarray:
        return x.astype(self._filter.working_dtype(x.dtype), copy=False)

    def _chunk(self, start: int) -> np.ndarray:
        return self._working(self._read(start, min(start + self._step, self._samples)))

    def _find_states(self) -> None:
        """Passes 1 and 2: the forward and backward states at the chunk boundaries."""
        n, padlen, padtype = self._samples, self.padlen, self._padtype
        head = self._working(self._read(0, padlen + 1))
        if padlen:  # the left padding, filtered from the steady state at its first sample
            left = extension(head, 0, padtype, padlen, at_start=True)
            state = self._run(left, self._filter.steady(left[:1], 0))[1]
        else:
            state = self._filter.steady(head[:1], 0)
        for start in range(0, n, self._step):
            self._forward.append(state)
            y, state = self._run(self._chunk(start), state)
        if padlen:  # the right padding, forward then back
            tail = self._working(self._read(n - padlen - 1, n))
            y = self._run(extension(tail, 0, padtype, padlen, at_start=False), state)[0]
            state = self._run(y[::-1], self._filter.steady(y[-1:], 0))[1]
        else:
            state = self._filter.steady(y[-1:], 0)
        for index in reversed(range(len(self._forward))):
            self._backward.append(state)
            y = self._run(self._chunk(index * self._step), self._forward[index])[0]
            state = self._run(y[::-1], state)[1]
        self._backward.reverse()

    def _push(self, chunk: np.ndarray) -> np.ndarray:
        if not self._forward:
            self._find_states()
        index, start = self._next, self._next * self._step
        expected = min(self._step, self._samples - start)
        if len(chunk) != expected:
            raise ValueError(f"chunk {index} has {len(chunk)} samples; this stream takes the "
                             f"signal's {self._step}-sample chunks in order ({expected} here)")
        self._next += 1
        y = self._run(self._working(chunk), self._forward[index])[0]
        self._forward[index] = None  # each state serves once
        z = self._run(y[::-1], self._backward[index])[0][::-1]
        self._backward[index] = None
        return z.astype(chunk.dtype, copy=False)

    def _finish(self) -> np.ndarray:
        if self._next * self._step < self._samples:
            raise ValueError(f"finished after {self._next} chunks; the signal has "
                             f"{-(-self._samples // self._step)}")
        return self._empty()
