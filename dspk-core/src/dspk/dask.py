"""dspk operations on Dask arrays chunked along time, for recordings beyond one machine.

An optional extra: ``pip install "dspk[dask]"``. Each function takes a 2-D
Dask array, channels by samples (``axis=-1``) or samples by channels
(``axis=0``), chunked along time, and returns a lazy Dask array (with
``dask.distributed``, on whatever cluster the current ``Client`` points at);
every block runs the one-shot dspk operation on the workers, on the
``runtime`` given. The channels are gathered into one chunk.

- :func:`sosfilt` and :func:`lfilter` are **exact** across blocks, without
  making a block wait for its predecessor's output. First every block is
  filtered from rest, in parallel, for its final state ``z_k``. Then a pass
  along the blocks, over a few numbers per channel, gives each block's true
  initial state: ``s_{k+1} = z_k + A^{n_k} s_k``, with ``A^{n_k}`` the
  filter's zero-input state transition over the block's ``n_k`` samples (a
  small matrix). Last every block is filtered from its true state, in
  parallel. The filtering is done twice; nothing else grows with the data.
- :func:`sosfiltfilt` and :func:`filtfilt` are **exact** too, at any
  chunking: they take the one-shot steps on the whole array, each pass exact
  as above. The array is padded at its ends (a chunk of ``padlen`` samples
  each side); the forward pass starts from the filter's steady state at the
  first sample; its output, reversed, is filtered again from the steady
  state at its last sample, reversed back and cropped. Each block is
  filtered four times (twice per pass), and the backward pass waits for the
  forward pass's last block. :func:`filtfilt` with ``method="gust"`` takes
  Gustafsson's steps the same way, its least squares over all the samples
  solved by Dask's tall-skinny QR.
- Given ``margin`` or ``tol``, they run instead in one pass, as
  :func:`phase_shift` does: each block with ``margin`` samples of its
  neighbours (``map_overlap``), the margin of
  :func:`dspk.streaming.zero_phase_margin`, far enough for both passes to
  have forgotten how they started; the result is then within a stated bound
  of the one-shot one. :func:`phase_shift` uses
  :class:`dspk.streaming.PhaseShiftStream`'s tapered margins. The ends of the
  array are padded as the one-shot operations pad them; chunks along time
  must be at least ``margin`` samples long.
- :func:`common_reference` works sample by sample: block by block.
- :func:`welch` averages, block by block, the segments that start in each
  block (reading the next block's first samples for those that straddle),
  so it averages exactly the segments of one :func:`dspk.welch`.

Examples
--------
>>> import dask.array as da, numpy as np, scipy.signal
>>> import dspk.dask
>>> sos = scipy.signal.butter(3, [300, 6000], "bandpass", fs=30000, output="sos")
>>> x = np.random.default_rng(0).standard_normal((4, 9000))
>>> y = dspk.dask.sosfilt(sos, da.from_array(x, chunks=(4, 2000)))
>>> bool(np.allclose(y.compute(), scipy.signal.sosfilt(sos, x), rtol=0, atol=1e-12))
True
"""

from __future__ import annotations

import itertools
from typing import Any

import dask
import dask.array as da
import numpy as np
from scipy import linalg

from dspk import filtering, multichannel, validation
from dspk.docstrings import shared
from dspk.spectral.common import real_dtype
from dspk.streaming import WelchStream
from dspk.streaming.base import along
from dspk.streaming.filters import OnePass, extension, one_pass, zero_phase_lengths
from dspk.streaming.multichannel import taper

__all__ = ["sosfilt", "lfilter", "sosfiltfilt", "filtfilt", "phase_shift", "common_reference",
           "welch"]


def _signal(x: Any, axis: Any) -> tuple[da.Array, int]:
    """A 2-D Dask array with its channels in one chunk, and its time axis."""
    if not isinstance(x, da.Array):
        raise TypeError(f"x must be a dask array; got {type(x).__name__} (use the functions "
                        "of dspk itself for NumPy arrays)")
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D, channels by samples (or samples by channels with "
                         f"axis=0); got shape {x.shape}")
    axis = validation.check_axis(axis, 2)
    if x.size == 0:
        raise ValueError(f"x is empty (shape {x.shape}); there is nothing to process")
    return x.rechunk({1 - axis: -1}), axis


def _time_blocks(x: da.Array) -> list:
    """The delayed blocks of ``x`` in time order (its channels are one chunk)."""
    return list(x.to_delayed().ravel())


def _block_shape(x: da.Array, axis: int, samples: int) -> tuple[int, int]:
    shape = list(x.shape)
    shape[axis] = samples
    return tuple(shape)


# --- causal filters: exact ---------------------------------------------------------------

def _final_state(design: OnePass, block: np.ndarray, axis: int, work: np.dtype,
                 runtime: str | None) -> np.ndarray:
    x = block.astype(work, copy=False)
    zeros = design.state_array(np.zeros((x.shape[1 - axis], _state_size(design)), work), axis)
    _, zf = design.run(x, axis, zeros, runtime)
    return design.state_vectors(zf, axis).astype(np.float64)


def _advance(transition: np.ndarray, state: np.ndarray, final: np.ndarray) -> np.ndarray:
    return final + state @ transition.T


def _filter_from(design: OnePass, block: np.ndarray, axis: int, state: np.ndarray,
                 work: np.dtype, dtype: np.dtype, runtime: str | None) -> np.ndarray:
    x = block.astype(work, copy=False)
    y, _ = design.run(x, axis, design.state_array(state, axis).astype(work), runtime)
    return y.astype(dtype, copy=False)


def _state_size(design: OnePass) -> int:
    return int(np.prod(design.state_shape))


def _causal(design: OnePass, x: Any, axis: Any, zi: Any, runtime: str | None):
    x, axis = _signal(x, axis)
    dtype = validation.compute_dtype(x)
    channels = x.shape[1 - axis]
    if zi is None:
        state = np.zeros((channels, _state_size(design)))
    else:
        expected = design.state_array(np.zeros((channels, _state_size(design))), axis).shape
        zi = np.asarray(zi, dtype=np.float64)
        if zi.shape != expected:
            raise ValueError(f"zi has shape {zi.shape}; this call needs {expected}")
        state = design.state_vectors(zi, axis)
    y, state = _exact(design, x, axis, dask.delayed(state), dtype, runtime)
    if zi is None:
        return y
    zf = dask.delayed(design.state_array)(state, axis)
    return y, da.from_delayed(zf, expected, np.float64).astype(dtype)


def _exact(design: OnePass, x: da.Array, axis: int, state: Any, dtype: np.dtype,
           runtime: str | None) -> tuple[da.Array, Any]:
    """``x`` filtered from the delayed ``state`` (rows of channel states, float64),
    exactly across its blocks, and the delayed final state."""
    work = design.working_dtype(dtype)
    transitions = {n: design.transition(n) for n in set(x.chunks[axis])}
    outputs = []
    for block, samples in zip(_time_blocks(x), x.chunks[axis]):
        y = dask.delayed(_filter_from)(design, block, axis, state, work, dtype, runtime)
        outputs.append(da.from_delayed(y, _block_shape(x, axis, samples), dtype))
        final = dask.delayed(_final_state)(design, block, axis, work, runtime)
        state = dask.delayed(_advance)(transitions[samples], state, final)
    return da.concatenate(outputs, axis=axis), state


@shared
def sosfilt(sos, x, axis=-1, zi=None, *, runtime=None):
    """:func:`dspk.sosfilt` of a Dask array chunked along time, exact across its blocks.

    Parameters
    ----------
    {sos}
    x : dask.array.Array
        2-D: channels by samples (``axis=-1``) or samples by channels (``axis=0``).
    axis : int, optional
        The time axis. Default -1.
    zi : array_like, optional
        Initial state, as :func:`dspk.sosfilt`'s.
    {runtime_workers}

    Returns
    -------
    y : dask.array.Array
        The filtered signal, lazily.
    zf : dask.array.Array, optional
        The final state, only when ``zi`` is given.

    Examples
    --------
    >>> import dask.array as da, numpy as np, scipy.signal
    >>> import dspk.dask
    >>> sos = scipy.signal.butter(4, 0.1, output="sos")
    >>> x = np.random.default_rng(0).standard_normal((1000, 3))  # samples by channels
    >>> y = dspk.dask.sosfilt(sos, da.from_array(x, chunks=(300, 3)), axis=0)
    >>> bool(np.allclose(y.compute(), scipy.signal.sosfilt(sos, x, axis=0)))
    True
    """
    return _causal(one_pass(sos), x, axis, zi, runtime)


@shared
def lfilter(b, a, x, axis=-1, zi=None, *, runtime=None):
    """:func:`dspk.lfilter` of a Dask array chunked along time, exact across its blocks.

    Parameters
    ----------
    {ba}
    x, axis, zi, runtime
        As :func:`sosfilt`'s; ``zi`` as :func:`dspk.lfilter`'s.

    Returns
    -------
    y : dask.array.Array
        The filtered signal, lazily.
    zf : dask.array.Array, optional
        The final state, only when ``zi`` is given.

    Examples
    --------
    >>> import dask.array as da, numpy as np, scipy.signal
    >>> import dspk.dask
    >>> b, a = scipy.signal.butter(3, 0.2)
    >>> x = np.random.default_rng(0).standard_normal((2, 1000))
    >>> y = dspk.dask.lfilter(b, a, da.from_array(x, chunks=(2, 128)))
    >>> bool(np.allclose(y.compute(), scipy.signal.lfilter(b, a, x)))
    True
    """
    return _causal(one_pass((b, a)), x, axis, zi, runtime)


# --- zero-phase filters and phase shift: overlapping blocks ----------------------------------

def _overlapping(x: da.Array, axis: int, margin: int, function, boundary, dtype: np.dtype):
    """``function`` of each block with ``margin`` samples of its neighbours on both sides."""
    shortest = min(x.chunks[axis])
    if len(x.chunks[axis]) > 1 and shortest < margin:
        raise ValueError(f"x has a chunk of {shortest} samples along time, shorter than the "
                         f"margin of {margin}; rechunk x along time to at least {margin}")
    return x.map_overlap(function, depth={axis: margin, 1 - axis: 0}, boundary=boundary,
                         dtype=dtype, meta=np.empty((0, 0), dtype))


def _zero_phase(design: OnePass, x, axis, padtype, padlen, margin, tol, runtime):
    x, axis = _signal(x, axis)
    exact = margin is None and tol is None
    # (exact: no margin to find, which a filter ringing for ever would not have)
    padlen, margin = zero_phase_lengths(design, padtype, padlen, 0 if exact else margin, tol)
    if x.shape[axis] <= padlen:
        raise ValueError(f"padlen={padlen} must be less than the signal length along axis, "
                         f"which is {x.shape[axis]}")
    dtype = validation.compute_dtype(x)
    x = x.astype(dtype)
    if exact:
        return _zero_phase_exact(design, x, axis, padtype, padlen, dtype, runtime)
    # Each block and its margins must be longer than padlen, as a whole signal must be.
    margin = max(margin, padlen)

    def run(block: np.ndarray) -> np.ndarray:
        return design.zero_phase(block, axis, padtype, padlen, runtime).astype(dtype, copy=False)

    return _overlapping(x, axis, margin, run, "none", dtype)


def _zero_phase_exact(design: OnePass, x: da.Array, axis: int, padtype: Any, padlen: int,
                      dtype: np.dtype, runtime: str | None) -> da.Array:
    """The one-shot zero-phase filter's steps on the whole of ``x``, each pass exact
    across the blocks (:func:`_exact`): pad, forward from the steady state at the first
    sample, backward from the steady state at the last forward output, crop."""
    n = x.shape[axis]
    if padlen:
        x = da.concatenate([extension(x, axis, padtype, padlen, at_start=True), x,
                            extension(x, axis, padtype, padlen, at_start=False)], axis=axis)
    for _ in range(2):  # forward, then backward over the reversed forward output
        start = dask.delayed(_steady_state)(design, x[along(axis, 2, slice(0, 1))], axis)
        x = _exact(design, x, axis, start, dtype, runtime)[0][along(axis, 2, slice(None, None, -1))]
    return x[along(axis, 2, slice(padlen, padlen + n))]


def _steady_state(design: OnePass, edge: np.ndarray, axis: int) -> np.ndarray:
    """Rows of channel states (float64) of a filter that has long seen ``edge``."""
    return design.state_vectors(design.steady(edge, axis), axis).astype(np.float64)


@shared
def sosfiltfilt(sos, x, axis=-1, padtype="odd", padlen=None, *, margin=None, tol=None,
                runtime=None):
    """:func:`dspk.sosfiltfilt` of a Dask array chunked along time, exact across its blocks.

    The one-shot result within floating-point tolerance, at any chunking (see
    the module's notes for the method). Given ``margin`` or ``tol``, one pass
    instead: each block is filtered with ``margin`` samples of its
    neighbours on each side, which both passes have forgotten by the block,
    and the result differs from one :func:`dspk.sosfiltfilt` by about
    ``tol`` times the signal's scale (see :mod:`dspk.streaming` for the
    bound).

    Parameters
    ----------
    {sos}
    {dask_x}
    axis, padtype, padlen
        As :func:`dspk.sosfiltfilt`'s.
    {dask_margin}
    {tol}
    {runtime_workers}

    Returns
    -------
    {dask_filtered}

    Examples
    --------
    >>> import dask.array as da, numpy as np, scipy.signal
    >>> import dspk.dask
    >>> sos = scipy.signal.butter(3, [300, 6000], "bandpass", fs=30000, output="sos")
    >>> x = np.random.default_rng(0).standard_normal((4, 12000))
    >>> chunked = da.from_array(x, chunks=(4, 3000))
    >>> y = dspk.dask.sosfiltfilt(sos, chunked)
    >>> bool(np.allclose(y.compute(), scipy.signal.sosfiltfilt(sos, x), rtol=0, atol=1e-12))
    True
    >>> y = dspk.dask.sosfiltfilt(sos, chunked, tol=1e-9)  # one pass, within 1e-9
    >>> bool(np.allclose(y.compute(), scipy.signal.sosfiltfilt(sos, x), rtol=0, atol=1e-8))
    True
    """
    return _zero_phase(one_pass(sos), x, axis, padtype, padlen, margin, tol, runtime)


@shared
def filtfilt(b, a, x, axis=-1, padtype="odd", padlen=None, method="pad", irlen=None, *,
             margin=None, tol=None, runtime=None):
    """:func:`dspk.filtfilt` of a Dask array chunked along time, exact across its blocks.

    As :func:`sosfiltfilt`, for a transfer function ``(b, a)``. With
    ``method="gust"``, Gustafsson's initial states, exact too: the one-shot's
    steps (see :func:`dspk.filtfilt`) on the whole array, its four passes
    exact across blocks, its least-squares problem solved by Dask's tall-skinny
    QR over the samples (by SciPy's ``lstsq`` on the ends, with ``irlen``).

    Parameters
    ----------
    {ba}
    {dask_x}
    axis, padtype, padlen, method, irlen
        As :func:`dspk.filtfilt`'s.
    {dask_margin}
        ``method="pad"`` only.
    {tol}
        ``method="pad"`` only.
    {runtime_workers}

    Returns
    -------
    {dask_filtered}

    Examples
    --------
    >>> import dask.array as da, numpy as np, scipy.signal
    >>> import dspk.dask
    >>> b, a = scipy.signal.butter(3, 0.05)
    >>> x = np.random.default_rng(0).standard_normal((2, 6000))
    >>> y = dspk.dask.filtfilt(b, a, da.from_array(x, chunks=(2, 2000)))
    >>> bool(np.allclose(y.compute(), scipy.signal.filtfilt(b, a, x), rtol=0, atol=1e-10))
    True
    >>> y = dspk.dask.filtfilt(b, a, da.from_array(x, chunks=(2, 2000)), method="gust")
    >>> expected = scipy.signal.filtfilt(b, a, x, method="gust")
    >>> bool(np.allclose(y.compute(), expected, rtol=0, atol=1e-10))
    True
    """
    validation.choice(method, ("pad", "gust"), "method")
    if method == "pad":
        return _zero_phase(one_pass((b, a)), x, axis, padtype, padlen, margin, tol, runtime)
    if margin is not None or tol is not None:
        raise ValueError("margin and tol apply to method='pad'; method='gust' is exact at any "
                         "chunking")
    x, axis = _signal(x, axis)
    if irlen is not None:
        irlen = validation.integer(irlen, "irlen", minimum=1)
    dtype = validation.compute_dtype(x)
    y = _gust(one_pass((b, a)), (x if axis else x.T).astype(dtype), irlen, dtype, runtime)
    return y if axis else y.T


def _gust(design: OnePass, x: da.Array, irlen: int | None, dtype: np.dtype,
          runtime: str | None) -> da.Array:
    """:func:`dspk.filtfilt`'s Gustafsson steps on channels-by-samples ``x``, each pass
    exact across the blocks (:func:`_exact`)."""
    b, order, n = design.b, len(design.a) - 1, x.shape[1]
    if order == 0:
        return x * dtype.type(b[0] ** 2)
    reverse = (slice(None), slice(None, None, -1))

    def forward(v: da.Array, states: np.ndarray) -> da.Array:
        return _exact(design, v, 1, dask.delayed(states), v.dtype, runtime)[0]

    def backward(v: da.Array) -> da.Array:
        return forward(v[reverse], np.zeros((len(v), order)))[reverse]

    rest = np.zeros((len(x), order))
    y_fb = backward(forward(x, rest)).astype(np.float64)
    delta = forward(backward(x), rest).astype(np.float64) - y_fb
    m = n if irlen is None or n <= 2 * irlen else irlen
    if m < n:  # the ends only: a small problem, solved as the one-shot solves it
        system, correct = filtering.gust_system(design.b, design.a, m, ends=True)
        ends = da.concatenate([delta[:, :m], delta[:, n - m:]], axis=1)
        adjust = da.from_delayed(dask.delayed(_least_squares)(system, ends, correct),
                                 (len(x), 2 * m), np.float64)
        y = da.concatenate([y_fb[:, :m] + adjust[:, :m], y_fb[:, m:n - m],
                            y_fb[:, n - m:] + adjust[:, m:]], axis=1)
        return y.astype(dtype)
    # The responses to unit initial states (one per row) and the filter run over them
    # reversed, as long as the signal: time along the rows of the system, as Dask's QR takes.
    o = forward(da.zeros((order, n), chunks=(order, x.chunks[1])), np.eye(order))
    s = forward(o[reverse], np.zeros((order, order)))
    system, correct = filtering.gust_matrices(o.T, s.T, ends=False)
    rows = max(max(x.chunks[1]), 2 * system.shape[1])  # QR blocks at least as tall as wide
    states = da.linalg.lstsq(system.rechunk((rows, -1)), delta.T.rechunk((rows, -1)))[0]
    return (y_fb + states.T @ correct.T).astype(dtype)


def _least_squares(system: np.ndarray, delta: np.ndarray, correct: np.ndarray) -> np.ndarray:
    """What the least-squares initial states add to each row of ``delta``'s samples."""
    return linalg.lstsq(system, delta.T)[0].T @ correct.T


@shared
def phase_shift(x, shifts, *, margin=multichannel.DEFAULT_MARGIN, axis=-1, runtime=None):
    """:func:`dspk.phase_shift` of a Dask array, block by block with tapered margins.

    As :class:`dspk.streaming.PhaseShiftStream`: each block is shifted with
    ``margin`` samples of its neighbours on each side (zeros beyond the ends
    of the array, as the one-shot pads), tapered over the margin's outer
    half; see that class's Notes for the accuracy. An array of one chunk
    gives exactly ``dspk.phase_shift(x, shifts, margin=margin)``.

    Parameters
    ----------
    {dask_x}
    shifts : array_like
        The delay of each channel, in samples.
    margin : int, optional
        Samples of context on each side of a block. Default 1200.
    axis : int, optional
        The time axis. Default -1.
    {runtime_workers}

    Returns
    -------
    dask.array.Array
        The shifted signal, lazily.

    Examples
    --------
    >>> import dask.array as da, numpy as np, dspk.dask
    >>> x = np.random.default_rng(0).standard_normal((2, 3000))
    >>> y = dspk.dask.phase_shift(da.from_array(x, chunks=(2, 1000)), [0, 3], margin=100)
    >>> bool(np.allclose(y.compute()[1, 3:], x[1, :-3]))
    True
    """
    x, axis = _signal(x, axis)
    dtype = validation.compute_dtype(x)
    shifts = np.atleast_1d(np.asarray(shifts))
    if shifts.shape != (x.shape[1 - axis],):
        raise ValueError(f"shifts has shape {shifts.shape}; x has {x.shape[1 - axis]} "
                         f"channel(s), so shifts needs one value per channel")
    margin = validation.integer(margin, "margin", minimum=0)
    ramp = taper(margin)
    shape = [1, 1]
    shape[axis] = margin

    def run(block: np.ndarray) -> np.ndarray:
        block = block.astype(dtype)  # a copy: the taper must not touch x
        n = block.shape[axis]
        if margin:
            edges = [slice(None), slice(None)]
            edges[axis] = slice(0, margin)
            block[tuple(edges)] *= ramp.reshape(shape)
            edges[axis] = slice(n - margin, n)
            block[tuple(edges)] *= ramp[::-1].reshape(shape)
        return multichannel.phase_shift(block, shifts, margin=0, axis=axis, runtime=runtime)

    return _overlapping(x, axis, margin, run, 0, dtype)


@shared
def common_reference(x, reference="global", operator="median", groups=None, axis=-1, *,
                     runtime=None):
    """:func:`dspk.common_reference` of a Dask array, block by block (exact).

    Parameters
    ----------
    x : dask.array.Array
        2-D; its channels are gathered into one chunk.
    reference, operator, groups, axis
        As :func:`dspk.common_reference`'s.
    {runtime_workers}

    Returns
    -------
    dask.array.Array
        The re-referenced signal, lazily.

    Examples
    --------
    >>> import dask.array as da, numpy as np, dspk, dspk.dask
    >>> x = np.random.default_rng(0).standard_normal((500, 8))
    >>> y = dspk.dask.common_reference(da.from_array(x, chunks=(100, 4)), axis=0)
    >>> bool(np.array_equal(y.compute(), dspk.common_reference(x, axis=0)))
    True
    """
    x, axis = _signal(x, axis)
    validation.choice(reference, ("global",), "reference")
    validation.choice(operator, ("median", "average"), "operator")
    multichannel.channel_groups(groups, x.shape[1 - axis])
    dtype = validation.compute_dtype(x)

    def run(block: np.ndarray) -> np.ndarray:
        return multichannel.common_reference(block, reference, operator, groups, axis,
                                             runtime=runtime)

    return x.map_blocks(run, dtype=dtype, meta=np.empty((0, 0), dtype))


def _segment_sum(block: np.ndarray, axis: int, count: int, options: dict,
                 runtime: str | None) -> np.ndarray:
    """The sum of the periodograms of ``count`` segments laid from ``block``'s start."""
    stream = WelchStream(axis=axis, runtime=runtime, **options)
    stream.push(block)
    _, mean = stream.result()
    return mean.astype(np.result_type(mean.dtype, np.float64)) * count


@shared
def welch(x, fs=1.0, window="hann_periodic", nperseg=256, noverlap=None, nfft=None,
          detrend="constant", return_onesided=True, scaling="density", axis=-1, *,
          runtime=None):
    """:func:`dspk.welch` of a Dask array: the mean of its segments' periodograms.

    The segments are those of one :func:`dspk.welch`; each block averages
    those that start in it, reading the first samples of the next blocks for
    the segments that straddle, and the blocks' sums are added.

    Parameters
    ----------
    x : dask.array.Array
        2-D; its channels are gathered into one chunk.
    fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling, axis
        As :class:`dspk.streaming.WelchStream`'s (``nperseg`` defaults to 256).
    {runtime_workers}

    Returns
    -------
    f : ndarray
        The frequencies.
    Pxx : dask.array.Array
        The power spectral density (or spectrum), frequencies along ``axis``, lazily.

    Examples
    --------
    >>> import dask.array as da, numpy as np, scipy.signal, dspk.dask
    >>> x = np.random.default_rng(0).standard_normal((3, 5000))
    >>> f, pxx = dspk.dask.welch(da.from_array(x, chunks=(3, 1200)), fs=1000.0, nperseg=512)
    >>> bool(np.allclose(pxx.compute(), scipy.signal.welch(x, fs=1000.0, nperseg=512)[1]))
    True
    """
    x, axis = _signal(x, axis)
    options = {"fs": fs, "window": window, "nperseg": nperseg, "noverlap": noverlap,
               "nfft": nfft, "detrend": detrend, "return_onesided": return_onesided,
               "scaling": scaling}
    stream = WelchStream(axis=axis, runtime=runtime, **options)  # checks the options
    segments = stream.segments.sides_of(x.dtype)
    length, size = x.shape[axis], segments.nperseg
    starts = np.arange(0, length - size + 1, segments.step)
    if starts.size == 0:
        raise ValueError(f"nperseg={size} is larger than the signal, which has {length} "
                         "samples along axis")
    edges = np.cumsum((0, *x.chunks[axis]))
    partial = []
    for begin, end in itertools.pairwise(edges):
        own = starts[(starts >= begin) & (starts < end)]
        if own.size == 0:
            continue
        region = [slice(None), slice(None)]
        region[axis] = slice(int(own[0]), int(own[-1]) + size)
        block = x[tuple(region)].rechunk({axis: -1}).to_delayed().ravel()[0]
        partial.append(dask.delayed(_segment_sum)(block, axis, own.size, options, runtime))
    shape = [x.shape[1 - axis], x.shape[1 - axis]]
    shape[axis] = segments.bins
    dtype = real_dtype(validation.compute_dtype(x, "x", allow_complex=True))
    total = da.stack([da.from_delayed(p, tuple(shape), np.float64) for p in partial]).sum(0)
    f = segments.frequencies(validation.sampling_rate(fs))
    return f, (total / starts.size).astype(dtype)
