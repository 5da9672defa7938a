"""Kernel calls on host arrays too large for one call on a runtime's device.

A backend may cap the size of one array a kernel takes
(:meth:`dspk.plugin.Backend.max_array_bytes`: a GPU's largest storage-buffer
binding, say). A host signal above that cap is never moved to the device whole,
and a host signal whose results or work arrays turn out above it (the backend
raises :class:`dspk.plugin.ArrayTooLarge`) is taken back:
:func:`run_in_pieces` runs the kernel on pieces of it and assembles the result
on the host, as the operation's entry in the catalogue
(:class:`~dspk.operations.base.Pieces`) says:

- **along channels**: every operation that treats channels independently
  (filters, FFTs, spectra, resampling, phase shift). Per-channel arguments
  (``zi``, per-channel taps, shifts) are cut alike and per-channel results
  (``zf``) joined. The pieces are exactly the one-shot result.
- **along time**: operations that mix channels sample by sample (the common
  reference, a channel matrix), joined along time; and channel statistics,
  whose pieces are combined as means weighted by their sample counts.
- **on the host**: statistics that do not combine from pieces (a median over
  every sample) are computed with NumPy from the host signal.
- A signal whose single channel is above the cap is cut along time too when
  the operation carries its state across pieces exactly (``sosfilt`` and
  ``lfilter``, through ``zi``/``zf``). Otherwise :class:`dspk.plugin.ArrayTooLarge`
  says so.

The group of channels per piece starts from the cap over the bytes of one
channel, and halves whenever the backend raises ``ArrayTooLarge`` (a result
larger than its input, such as a complex spectrum).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dspk.operations import OPERATIONS
from dspk.operations.base import OTHER, Pieces, device_args
from dspk.plugin import ArrayTooLarge, Problem

if TYPE_CHECKING:
    from dspk.dispatch import Call

def _channel_axis(spec: Any, axis: int | None) -> int:
    return 1 - axis if spec == OTHER else int(spec)


def _cut(array: Any, spec: Any, axis: int | None, part: slice) -> Any:
    if array is None or not hasattr(array, "shape"):
        return array
    channel_axis = _channel_axis(spec, axis)
    if array.shape[channel_axis] == 1:
        return array
    index = [slice(None)] * array.ndim
    index[channel_axis] = part
    return array[tuple(index)]


def too_large(call: Call, args: tuple) -> bool:
    """Whether some host array among ``args`` is above the backend's cap."""
    limit = call.backend.max_array_bytes()
    return limit is not None and any(
        isinstance(a, np.ndarray) and not call.backend.is_native(a) and a.nbytes > limit
        for a in args)


def can_split(problem: Problem) -> bool:
    """Whether the catalogue says how ``problem``'s operation runs in pieces."""
    return OPERATIONS[problem.op].pieces is not None


def run_in_pieces(call: Call, problem: Problem, args: tuple) -> Any:
    """Run ``problem`` on ``args`` in pieces that fit the backend; host results."""
    spec: Pieces | None = OPERATIONS[problem.op].pieces
    limit = call.backend.max_array_bytes()
    if spec is None:
        raise ArrayTooLarge(f"{problem.op} on {call.backend.name!r} takes at most "
                            f"{limit} bytes per array and cannot run in pieces")
    axis = None if spec.axis is None else args[spec.axis]
    first = next(iter(spec.signals))
    signal = args[first]
    if spec.along == "host":
        return spec.on_host(*(call.backend.to_numpy(a) if call.backend.is_native(a) else a
                              for a in args))
    if spec.along == "time":
        return _along_time(call, problem, args, spec, axis, limit)
    channels = signal.shape[_channel_axis(spec.signals[first], axis)]
    per_channel_bytes = signal.nbytes // max(channels, 1)
    group = max(1, min(channels, limit // max(per_channel_bytes, 1)))
    while True:
        try:
            return _along_channels(call, problem, args, spec, axis, channels, group)
        except ArrayTooLarge:
            if group > 1:
                group = max(1, group // 2)
            elif spec.carries_state is not None:
                return _along_time_with_state(call, problem, args, spec, axis, limit)
            else:
                raise ArrayTooLarge(
                    f"one channel of {problem.op} ({per_channel_bytes} bytes of input, with "
                    "the outputs and work arrays it needs) does not fit in what runtime "
                    f"{call.backend.name!r} takes in one array ({limit} "
                    "bytes), and this operation cannot be cut along time exactly; use "
                    "runtime='cpu', or a stream (see dspk.streaming)") from None


def _run_piece(call: Call, problem: Problem, args: list) -> tuple:
    from dspk.tuning import tuner

    args = device_args(call.backend, problem.dtype, args)
    result = tuner.run(call.backend, problem, tuple(args))
    results = result if isinstance(result, tuple) else (result,)
    return tuple(None if r is None else call.backend.to_numpy(r) for r in results)


def _piece_problem(problem: Problem, channels: int, samples: int) -> Problem:
    return Problem(problem.op, problem.dtype, channels, samples, problem.layout,
                   problem.params)


def _along_channels(call, problem, args, spec, axis, channels, group):
    outputs = []
    for start in range(0, channels, group):
        part = slice(start, min(start + group, channels))
        piece = list(args)
        for position, channel_spec in {**spec.signals, **spec.per_channel}.items():
            piece[position] = _cut(args[position], channel_spec, axis, part)
        size = part.stop - part.start
        samples = problem.samples
        outputs.append(_run_piece(call, _piece_problem(problem, size, samples), piece))
    joined = tuple(None if parts[0] is None else
                   np.concatenate(parts, axis=_channel_axis(result, axis))
                   for result, parts in zip(spec.results, zip(*outputs)))
    return joined if len(joined) > 1 else joined[0]


def _time_slices(samples: int, per_sample_bytes: int, limit: int):
    step = max(1, limit // max(per_sample_bytes, 1))
    return [slice(t, min(t + step, samples)) for t in range(0, samples, step)]


def _along_time(call, problem, args, spec, axis, limit):
    first = next(iter(spec.signals))
    signal = args[first]
    samples = signal.shape[axis]
    outputs, counts = [], []
    for part in _time_slices(samples, signal.nbytes // max(samples, 1), limit):
        piece = list(args)
        for position in spec.signals:
            index = [slice(None)] * 2
            index[axis] = part
            piece[position] = args[position][tuple(index)]
        size = part.stop - part.start
        outputs.append(_run_piece(call, _piece_problem(problem, problem.channels, size), piece))
        counts.append(size)
    joined = []
    for result, parts in zip(spec.results, zip(*outputs)):
        if result == "weighted-mean":
            joined.append(sum(np.asarray(p, np.float64) * n for p, n in zip(parts, counts))
                          / samples)
        else:
            joined.append(np.concatenate(parts, axis=axis))
    return tuple(joined) if len(joined) > 1 else joined[0]


def _along_time_with_state(call, problem, args, spec, axis, limit):
    """``(y, zf)`` of a causal filter over time pieces, each starting from the last's state."""
    first = next(iter(spec.signals))
    signal = args[first]
    samples = signal.shape[axis]
    channel_axis = _channel_axis(spec.signals[first], axis)
    state_position = spec.carries_state
    given = args[state_position]
    state = given if given is not None else _zero_state(call, problem, args, spec, axis)
    outputs = []
    for start in range(0, signal.shape[channel_axis]):
        part = slice(start, start + 1)
        piece_state = _cut(state, spec.per_channel[state_position], axis, part)
        ys = []
        for span in _time_slices(samples, signal.dtype.itemsize, limit // 2):
            piece = list(args)
            index = [slice(None)] * 2
            index[axis], index[channel_axis] = span, part
            piece[first] = signal[tuple(index)]
            piece[state_position] = piece_state
            y, piece_state = _run_piece(
                call, _piece_problem(problem, 1, span.stop - span.start), piece)
            ys.append(y)
        outputs.append((np.concatenate(ys, axis=axis), piece_state))
    y = np.concatenate([o[0] for o in outputs], axis=channel_axis)
    zf = np.concatenate([o[1] for o in outputs],
                        axis=_channel_axis(spec.per_channel[state_position], axis))
    return y, (zf if given is not None else None)


def _zero_state(call, problem, args, spec, axis):
    """Zeros in the shape ``zi`` has for this kernel: (sections, C, 2) or (C, K - 1)."""
    first = next(iter(spec.signals))
    channels = args[first].shape[_channel_axis(spec.signals[first], axis)]
    dtype = args[first].dtype
    if problem.op == "sosfilt":
        return np.zeros((args[0].shape[0], channels, 2), dtype)
    return np.zeros((channels, args[0].shape[0] - 1), dtype)
