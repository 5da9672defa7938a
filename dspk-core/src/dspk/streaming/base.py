"""What every stream shares: the :class:`Stream` base class and :class:`StreamChain`."""

from __future__ import annotations

from typing import Any

import numpy as np

from dspk import validation
from dspk.arrays import owner, to_numpy
from dspk.runtime import validate_name

__all__ = ["Stream", "StreamChain"]


def along(axis: int, ndim: int, part: slice) -> tuple[slice, ...]:
    """The index of ``part`` along ``axis`` of an array of ``ndim`` dimensions."""
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

    Attributes
    ----------
    gives_samples : bool
        Whether the output is samples, which a :class:`StreamChain`'s next
        stage can take (a spectrum is not).

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

    gives_samples = True

    def __init__(self, axis: Any, runtime: str | None):
        axis = validation.integer(axis, "axis")
        if runtime is not None:
            validate_name(runtime)
        self.axis = axis
        self.runtime = runtime
        self._like: np.ndarray | None = None
        self._received = 0
        self._finished = False
        self._origin = None  # where the last chunk's kind of array comes from (None: NumPy)

    def push(self, chunk) -> np.ndarray:
        """Process the next chunk; return the output ready so far (maybe no samples).

        Parameters
        ----------
        chunk : array_like
            The next samples, time along ``axis``; the same shape along the
            other axes as the first chunk. Chunks of no samples are allowed.

        Returns
        -------
        array
            The next samples of the output, time along ``axis``, as the kind of
            array ``chunk`` is (the stream computes on the host: a device
            chunk's output goes back to the device).
        """
        if self._finished:
            raise ValueError("push() after finish(): the stream has ended")
        self._origin = owner(chunk)
        chunk = self._accept(chunk)
        if self._length(chunk) == 0:
            return self._give_back(self._empty())
        y = self._push(chunk)
        self._received += self._length(chunk)
        return self._give_back(y)

    def finish(self) -> np.ndarray:
        """End the stream: return the output not given yet, as the last chunk's kind."""
        if self._finished:
            raise ValueError("finish() was called already: the stream has ended")
        if self._received == 0:
            raise ValueError("the stream received no samples; there is nothing to finish")
        self._finished = True
        return self._give_back(self._finish())

    def _give_back(self, y: Any) -> Any:
        """An output (an array, or a tuple of them) as the kind of the last chunk."""
        if self._origin is None:
            return y
        if isinstance(y, tuple):
            return tuple(self._give_back(part) for part in y)
        return self._origin.asarray(np.ascontiguousarray(y)) if isinstance(y, np.ndarray) else y

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
            self._others = chunk.shape[:self.axis] + chunk.shape[self.axis + 1:]
        shape, axis = chunk.shape, self.axis
        if chunk.ndim != self._like.ndim or (
                shape[:axis] + shape[axis + 1:] != self._others):
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
        return x[along(self.axis, x.ndim, slice(start, stop, step))]

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
        for stage in stages:
            if not stage.gives_samples:
                raise TypeError(f"a {type(stage).__name__} gives no samples to pass on: it "
                                "cannot be a stage")
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

