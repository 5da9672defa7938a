"""IIR filters over many channels: cascaded second-order sections and transfer functions,
one pass (sosfilt, lfilter) or forward and backward fused (sosfiltfilt, filtfilt).

Channels are filtered in blocks of one cache line (:func:`tiles.lanes`: 16 float32 or
8 float64 channels), split into one contiguous run of blocks per thread. A block walks
through time ``CHUNK`` samples (a multiple of every block width) at a time (when
channels are the contiguous axis, each chunk goes through all of a thread's blocks, so
that whole rows are read): the chunk is staged into a small scratch array
``work[sample, lane]`` (a tile transpose when time is the contiguous axis, a row copy
when channels are), filtered in place, and staged out. The filter's state lives in a
stack array that LLVM keeps in registers, so one sample of a block costs one SIMD
multiply-add per coefficient and nothing else; the sample loop is bounded by the
recurrence's latency, the whole kernel by memory.

A second-order-section cascade is filtered ``group`` sections (at most
:data:`MAX_GROUP`) per sweep over the chunk, all fused; longer cascades take several
sweeps of the L1-resident chunk, the last padded with identity sections (``b = [1, 0,
0]``, ``a = [1, 0, 0]``: exact). A transfer function of order ``K - 1`` keeps its
``K - 1`` delays in registers. Each distinct ``group``, order and block width compiles
its own kernels (cached on disk), so both come in powers of two, the tuner's buckets: a
group of 1, 2 or 4 sections (a 3-section cascade gets one identity section), and
orders 1, 2, 4, 8, ... (a transfer function of order 5 gets three zero coefficients
and delays that stay zero).

The zero-phase kernels fuse everything per block (per run of blocks when channels are
the contiguous axis, each chunk then visiting all the run's blocks): the left extension of the
signal is
generated in scratch and filtered forward (its outputs dropped); the signal is filtered
forward into the output; the right extension is generated and filtered forward in
scratch; the backward pass starts from the steady state times that scratch's last
output, runs back through the scratch, then back through the output in place. The extra
memory is a scratch of ``padlen`` samples per block of a run: no padded copy of the
signal.

A complex signal's one-pass kernel is the same code with the real and imaginary parts of
each channel as two adjacent lanes (:func:`_load_parts`, :func:`_store_parts`): complex64
moves as 8-byte units through the float64 tile transposes, so that nothing is copied
apart and joined again; complex128 goes sample by sample.

Outputs from :data:`STREAM_FROM_BYTES` are stored with non-temporal hints
(:func:`tiles.transpose_tile_stream`, :func:`tiles.copy_line_stream`) when their rows
are aligned to cache lines: they are not read again by the kernel, and skipping the
read-for-ownership saves a third of the memory traffic.
"""

import functools
import types

import numpy as np
from numba import carray, njit, prange

from dspk.plugin import KernelNotReady
from dspk_cpu import compiling, memory
from dspk_cpu.kernels.channel_blocks import CHUNK, is_time_major
from dspk_cpu.kernels.tiles import (
    LINE,
    copy_line,
    copy_line_stream,
    lanes,
    stack_array,
    store_fence,
    transpose_tile,
    transpose_tile_stream,
)
from dspk_cpu.threads import numba_parallel, use_numba_threads

MAX_GROUP = 4
"""Second-order sections fused in one sweep over a chunk."""

STREAM_FROM_BYTES = 1 << 20
"""Outputs smaller than this are not streamed (nor aligned): they stay in cache, where
the caller reads them next, and aligning costs a small call's microseconds."""

PADTYPES = {None: 0, "odd": 1, "even": 2, "constant": 3}
"""How the zero-phase kernels encode ``padtype``."""


@njit
def _load(x, c0, t0, m, work, time_major):
    """``work[t, j] = x[c0 + j, t0 + t]`` for ``t < m``; lanes past the last channel are 0."""
    width = work.shape[1]
    nb = min(width, x.shape[0] - c0)
    full = 0
    if nb == width and time_major:
        full = m - m % width
        for tt in range(0, full, width):
            transpose_tile(x, c0, t0 + tt, work, tt, 0)
    elif nb == width:
        full = m
        for t in range(m):
            copy_line(x, c0, t0 + t, work, t, 0)
    for t in range(full, m):
        for j in range(nb):
            work[t, j] = x[c0 + j, t0 + t]
        for j in range(nb, width):
            work[t, j] = 0


@njit
def _store(work, y, c0, t0, m, time_major, stream):
    """``y[c0 + j, t0 + t] = work[t, j]`` for ``t < m`` and the block's channels.

    With ``stream``, whole tiles (or lines, when channels are the contiguous axis) are
    stored non-temporally: each must then start a 64-byte line (``t0`` a multiple of
    the block width, and ``y``'s rows aligned).
    """
    width = work.shape[1]
    nb = min(width, y.shape[0] - c0)
    full = 0
    if nb == width and time_major:
        full = m - m % width
        if stream:
            for tt in range(0, full, width):
                transpose_tile_stream(work, tt, 0, y, c0, t0 + tt)
        else:
            for tt in range(0, full, width):
                transpose_tile(work, tt, 0, y, c0, t0 + tt)
    elif nb == width:
        full = m
        if stream:
            for t in range(m):
                copy_line_stream(work, t, 0, y, c0, t0 + t)
        else:
            for t in range(m):
                copy_line(work, t, 0, y, c0, t0 + t)
    for t in range(full, m):
        for j in range(nb):
            y[c0 + j, t0 + t] = work[t, j]


@njit
def _lane_count(x):
    """The lanes a (channels, samples) array takes: one per channel."""
    return x.shape[0]


@njit
def _part_lanes(x):
    """The lanes a complex (channels, samples) array takes: two per channel."""
    return 2 * x.shape[0]


@njit
def _load_parts(x, l0, t0, m, work, time_major):
    """``work[t, 2j + p]`` = part ``p`` (real, imaginary) of ``x[l0 // 2 + j, t0 + t]``, for
    complex ``x``; lanes past the last channel are 0."""
    c0 = l0 // 2
    if x.itemsize == 8:  # complex64: pairs of float32 move as float64
        _load(x.view(np.float64), c0, t0, m, work.view(np.float64), time_major)
        return
    width = work.shape[1]
    nb = min(width // 2, x.shape[0] - c0)
    for t in range(m):
        for j in range(nb):
            v = x[c0 + j, t0 + t]
            work[t, 2 * j] = v.real
            work[t, 2 * j + 1] = v.imag
        for j in range(2 * nb, width):
            work[t, j] = 0


@njit
def _store_parts(work, y, l0, t0, m, time_major, stream):
    """The inverse of :func:`_load_parts` for the block's channels (``stream`` as
    :func:`_store`; complex128 is stored sample by sample)."""
    c0 = l0 // 2
    if y.itemsize == 8:
        _store(work.view(np.float64), y.view(np.float64), c0, t0, m, time_major, stream)
        return
    nb = min(work.shape[1] // 2, y.shape[0] - c0)
    for t in range(m):
        for j in range(nb):
            y[c0 + j, t0 + t] = work[t, 2 * j] + 1j * work[t, 2 * j + 1]


@njit
def _extension(x, c0, i, j, left, padlen, padtype):
    """Sample ``i`` of the left or right extension of channel ``c0 + j`` (scipy's rules)."""
    n = x.shape[1]
    end = 0 if left else n - 1
    if padtype == 3:
        return x[c0 + j, end]
    inner = x[c0 + j, padlen - i] if left else x[c0 + j, n - 2 - i]
    if padtype == 1:
        return 2 * x[c0 + j, end] - inner
    return inner


@njit
def _fill_extension(x, c0, padlen, padtype, left, edge, row0):
    """``edge[row0 + i, j]``: sample ``i`` of the block's left or right extension (0 past
    the last channel)."""
    width = edge.shape[1]
    nb = min(width, x.shape[0] - c0)
    for i in range(padlen):
        for j in range(nb):
            edge[row0 + i, j] = _extension(x, c0, i, j, left, padlen, padtype)
        for j in range(nb, width):
            edge[row0 + i, j] = 0


def _blocks(n_channels, width, threads):
    """Number of channel blocks and of thread groups (Python and numba)."""
    n_blocks = (n_channels + width - 1) // width
    return n_blocks, min(n_blocks, threads)


_blocks_jit = njit(_blocks)


@functools.cache
def _kernels(kind, size, width):
    """Compile the one-pass and zero-phase kernels of one recurrence.

    Parameters
    ----------
    kind : {"sos", "tf"}
        Cascaded second-order sections (``size`` sections per sweep) or one transfer
        function (of order ``size``).
    size : int
        Sections fused per sweep, or the order.
    width : int
        Channels per block (16 for float32, 8 for float64).

    Returns
    -------
    one_pass, zero_phase, one_pass_parts : numba dispatchers
        ``one_pass(coef, x, y, state, threads, stream)`` filters every channel of the
        (channels, samples) array ``x`` into ``y``, starting from and leaving the state
        ``state[row, block * width + lane]`` (a row per delay, a column per lane: a
        channel's state is a column, so states convert to and from the channels'
        ``zi`` layout by strided views and copies along channels).
        ``zero_phase(coef, zi, x, y, padtype, padlen, threads, stream)`` writes the
        zero-phase result, ``zi[row]`` being the steady state per unit input.

        ``one_pass_parts`` is ``one_pass`` for a complex ``x`` and ``y``, whose blocks hold
        ``width // 2`` channels, the real and imaginary parts as adjacent lanes.

        ``coef`` is ``(sweeps * size, 6)`` sections for "sos", each sweep's state taking
        rows ``2 * size * sweep`` onwards; for "tf" it is ``(2, size + 1)``, ``b`` then
        ``a``, with one sweep of ``size`` state rows.
    """
    sos = kind == "sos"
    rows = 2 * size if sos else size
    n_state = rows * width
    n_coef = 6 * size if sos else 2 * (size + 1)
    coef_shape = (size, 6) if sos else (2, size + 1)

    def sweep(coef, s, state, b, work, row0, m, reverse):
        """Filter ``work[row0:row0 + m]`` (backwards when ``reverse``) through sweep
        ``s``, from and back to block ``b``'s state rows of that sweep."""
        c = carray(stack_array(n_coef, work.dtype), coef_shape)
        z = carray(stack_array(n_state, work.dtype), (rows, width))
        v = carray(stack_array(width, work.dtype), (width,))
        for r in range(coef_shape[0]):
            for k in range(coef_shape[1]):
                c[r, k] = coef[s * size + r, k] if sos else coef[r, k]
        for r in range(rows):
            for j in range(width):
                z[r, j] = state[s * rows + r, b * width + j]
        for i in range(m):
            t = row0 + (m - 1 - i if reverse else i)
            for j in range(width):
                v[j] = work[t, j]
            if sos:
                for g in range(size):
                    for j in range(width):
                        xv = v[j]
                        w = c[g, 0] * xv + z[2 * g, j]
                        z[2 * g, j] = (c[g, 1] * xv + z[2 * g + 1, j]) - c[g, 4] * w
                        z[2 * g + 1, j] = c[g, 2] * xv - c[g, 5] * w
                        v[j] = w
            else:
                for j in range(width):
                    xv = v[j]
                    w = c[0, 0] * xv + z[0, j]
                    for k in range(size - 1):
                        z[k, j] = (c[0, k + 1] * xv + z[k + 1, j]) - c[1, k + 1] * w
                    z[size - 1, j] = c[0, size] * xv - c[1, size] * w
                    v[j] = w
            for j in range(width):
                work[t, j] = v[j]
        for r in range(rows):
            for j in range(width):
                state[s * rows + r, b * width + j] = z[r, j]

    def one_pass(coef, x, y, state, threads, stream):
        n_samples = x.shape[1]
        time_major = is_time_major(x)
        n_blocks, n_groups = _blocks_jit(_lane_count(x), width, threads)
        for g in prange(n_groups):
            work = np.empty((CHUNK, width), state.dtype)  # real, for complex x too
            first, stop = g * n_blocks // n_groups, (g + 1) * n_blocks // n_groups
            # Time-major: one block through all of time; else each chunk of samples
            # through all the group's blocks, reading whole rows.
            span = 1 if time_major else stop - first
            for lo in range(first, stop, span):
                for t0 in range(0, n_samples, CHUNK):
                    m = min(CHUNK, n_samples - t0)
                    for b in range(lo, min(lo + span, stop)):
                        _load(x, b * width, t0, m, work, time_major)
                        for s in range(coef.shape[0] // size if sos else 1):
                            _sweep(coef, s, state, b, work, 0, m, False)
                        _store(work, y, b * width, t0, m, time_major, stream)
            if stream:
                store_fence()

    def zero_phase(coef, zi, x, y, padtype, padlen, threads, stream):
        n_channels, n_samples = x.shape
        time_major = is_time_major(x)
        n_blocks, n_groups = _blocks_jit(n_channels, width, threads)
        n_sweeps = coef.shape[0] // size if sos else 1
        rows = max(padlen, 1)
        for g in prange(n_groups):
            first, stop = g * n_blocks // n_groups, (g + 1) * n_blocks // n_groups
            span = 1 if time_major else stop - first
            work = np.empty((CHUNK, width), x.dtype)
            # Block lo + k's extension is edge[k * rows:(k + 1) * rows], its state the
            # columns k * width onwards of state.
            edge = np.empty((span * rows, width), x.dtype)
            state = np.empty((zi.shape[0], span * width), x.dtype)
            for lo in range(first, stop, span):
                hi = min(lo + span, stop)
                # Forward: left extension (outputs dropped), the signal, right extension.
                for b in range(lo, hi):
                    k, c0 = b - lo, b * width
                    nb = min(width, n_channels - c0)
                    _fill_extension(x, c0, padlen, padtype, True, edge, k * rows)
                    for r in range(zi.shape[0]):
                        for j in range(width):
                            start = edge[k * rows, j] if padlen > 0 else (
                                x[c0 + j, 0] if j < nb else 0)
                            state[r, k * width + j] = zi[r] * start
                    for s in range(n_sweeps):
                        _sweep(coef, s, state, k, edge, k * rows, padlen, False)
                for t0 in range(0, n_samples, CHUNK):
                    m = min(CHUNK, n_samples - t0)
                    for b in range(lo, hi):
                        _load(x, b * width, t0, m, work, time_major)
                        for s in range(n_sweeps):
                            _sweep(coef, s, state, b - lo, work, 0, m, False)
                        _store(work, y, b * width, t0, m, time_major, False)
                # Backward, from the steady state at the last forward output.
                for b in range(lo, hi):
                    k, c0 = b - lo, b * width
                    nb = min(width, n_channels - c0)
                    _fill_extension(x, c0, padlen, padtype, False, edge, k * rows)
                    for s in range(n_sweeps):
                        _sweep(coef, s, state, k, edge, k * rows, padlen, False)
                    for r in range(zi.shape[0]):
                        for j in range(width):
                            last = edge[k * rows + padlen - 1, j] if padlen > 0 else (
                                y[c0 + j, n_samples - 1] if j < nb else 0)
                            state[r, k * width + j] = zi[r] * last
                    for s in range(n_sweeps):
                        _sweep(coef, s, state, k, edge, k * rows, padlen, True)
                for t0 in range((n_samples - 1) // CHUNK * CHUNK, -1, -CHUNK):
                    m = min(CHUNK, n_samples - t0)
                    for b in range(lo, hi):
                        _load(y, b * width, t0, m, work, time_major)
                        for s in range(n_sweeps):
                            _sweep(coef, s, state, b - lo, work, 0, m, True)
                        _store(work, y, b * width, t0, m, time_major, stream)
            if stream:
                store_fence()

    # The kernels find the sweep through their globals, not their closure: numba keys
    # its disk cache on the closure's pickled contents (here sos, size and width, which
    # tell the kernels apart), and a function there would change from process to process.
    # The one-pass kernel inlines its one sweep; the zero-phase kernel calls its five
    # (inlined, they took twice as long to compile, for 5% in float64 only). A called
    # sweep is a symbol of the cached machine code, named from the function's qualified
    # name and a counter of the process that compiled it: two zero-phase kernels cached
    # by two processes could name their different sweeps alike, and a process loading
    # both linked one kernel to the other's sweep (a 2-section filter run through 4,
    # NaN and a corrupted heap). The name says which sweep it is.
    sweep.__name__ = sweep.__qualname__ = f"sweep_{kind}{size}_lanes{width}"

    def build(kernel, options, name=None, **replaced):
        function = types.FunctionType(kernel.__code__, {
            **globals(), "_sweep": njit(**options)(sweep), **replaced}, kernel.__name__, None,
            kernel.__closure__)
        if name:  # another kernel from the same code: its own name, and cache files
            function.__name__, function.__qualname__ = name, f"_kernels.<locals>.{name}"
        return compiling.any_layout(compiling.cached_jit(parallel=True)(function))

    inline = {"inline": "always"}
    return (build(one_pass, inline), build(zero_phase, {}),
            build(one_pass, inline, "one_pass_parts", _load=_load_parts, _store=_store_parts,
                  _lane_count=_part_lanes))


def _channels_first(x, axis):
    """(channels, samples) view of ``x``, copied first only if neither axis has unit stride."""
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D, got {x.ndim}-D")
    if x.dtype.char not in _REAL_OF or not x.dtype.isnative:
        raise TypeError(f"x must be float32, float64, complex64 or complex128, got {x.dtype}")
    if axis not in (0, 1):
        raise ValueError(f"axis must be 0 or 1, got {axis}")
    if x.itemsize not in (abs(x.strides[0]), abs(x.strides[1])) or min(x.strides) < 0:
        x = np.ascontiguousarray(x)
    return x if axis == 1 else x.T


#: The real dtype of each signal dtype the kernels take, by its character code
#: (``np.finfo`` costs half a microsecond a call).
_REAL_OF = {"f": np.dtype(np.float32), "d": np.dtype(np.float64),
            "F": np.dtype(np.float32), "D": np.dtype(np.float64)}


def _output(xc):
    """A new array laid out like the (channels, samples) view ``xc`` (time-major if its
    time axis has unit stride), starting on a cache line, and whether its rows may be
    streamed to (every row of whole tiles, or every block's line, 64-byte aligned; from
    :data:`STREAM_FROM_BYTES`)."""
    channels, samples = xc.shape
    time_major = is_time_major.py_func(xc)  # the jitted one compiles per process
    shape = (channels, samples) if time_major else (samples, channels)
    size = channels * samples
    if size * xc.itemsize < STREAM_FROM_BYTES:
        y = np.empty(shape, xc.dtype)
        return (y if time_major else y.T), False
    raw = memory.empty(size + LINE // xc.itemsize, xc.dtype)
    start = (-raw.ctypes.data % LINE) // xc.itemsize
    y = raw[start:start + size].reshape(shape)
    yc = y if time_major else y.T
    stream = ((samples if time_major else channels) * xc.itemsize) % LINE == 0
    return yc, stream


def _give_back(yc, x, axis):
    """The output in ``x``'s orientation (time along ``axis``)."""
    return yc if axis == 1 else yc.T


def _order_class(n):
    """The power of two at or above ``n``: the sizes kernels are compiled for, as the
    tuner's buckets (:func:`dspk.operations.base.bucket`) group problems."""
    return 1 << max(n - 1, 0).bit_length()


def _sections(sos, dtype):
    """``sos`` checked and padded with identity sections to whole sweeps of a compiled
    group size (1, 2 or :data:`MAX_GROUP`): (coef, group)."""
    sos = np.asarray(sos, dtype)
    if sos.ndim != 2 or sos.shape[1] != 6 or len(sos) == 0:
        raise ValueError(f"sos must have shape (n_sections, 6), got {sos.shape}")
    return _padded_sections(sos.tobytes(), np.dtype(dtype))


@functools.lru_cache(maxsize=64)
def _padded_sections(data, dtype):
    """:func:`_sections` of the sections in ``data``, kept for the filters last seen (a
    small call's microseconds); the kernels never write them."""
    sos = np.frombuffer(data, dtype).reshape(-1, 6)
    group = min(_order_class(len(sos)), MAX_GROUP)
    padded = -(-len(sos) // group) * group
    coef = np.zeros((padded, 6), dtype)
    coef[:, 0] = coef[:, 3] = 1
    coef[:len(sos)] = sos
    return coef, group


def _transfer(b, a, dtype):
    """``(2, K)`` coefficients ``b`` over ``a``, checked, with zeros appended up to a
    compiled order (a power of two; the extra delays stay zero: exact)."""
    b, a = np.asarray(b, dtype), np.asarray(a, dtype)
    if b.ndim != 1 or b.shape != a.shape or b.size < 2:
        raise ValueError("b and a must be 1-D arrays of equal length, at least 2")
    return _padded_transfer(b.tobytes(), a.tobytes(), np.dtype(dtype))


@functools.lru_cache(maxsize=64)
def _padded_transfer(b_data, a_data, dtype):
    """:func:`_transfer` of the coefficients in ``b_data`` and ``a_data``, kept as
    :func:`_padded_sections` keeps sections."""
    b, a = np.frombuffer(b_data, dtype), np.frombuffer(a_data, dtype)
    coef = np.zeros((2, _order_class(b.size - 1) + 1), dtype)
    coef[:, :b.size] = b, a
    return coef


def _block_state(z, shape, n_blocks, width):
    """Per-channel states ``z[lead, channel, tail]`` as ``state[row, block * width + lane]``,
    the rows ``lead * shape[1] + tail`` of a ``shape`` per channel (what ``z`` lacks, and
    lanes past the last channel, zero). C-contiguous, as the zero state of a call
    without ``zi``: both run one compiled kernel."""
    lead, channels, tail = z.shape
    if (lead, tail, channels) == (*shape, n_blocks * width):  # nothing to pad: one copy
        return np.array(z.transpose(0, 2, 1), order="C").reshape(shape[0] * shape[1], -1)
    state = np.zeros((*shape, n_blocks * width), z.dtype)
    state[:lead, :tail, :channels] = z.transpose(0, 2, 1)  # a copy along channels
    return state.reshape(shape[0] * shape[1], -1)


def _channel_state(state, shape, channels, lead, tail):
    """Inverse of :func:`_block_state`: ``z[:lead, :channels, :tail]``, a view of ``state``."""
    return state.reshape(*shape, -1)[:lead, :tail, :channels].transpose(0, 2, 1)


def _lanes_of_parts(z):
    """A complex state ``z[lead, channel, tail]`` as a real one with twice the channels, the
    real and imaginary parts of each as two adjacent ones (the lanes of
    :func:`_load_parts`)."""
    lead, channels, tail = z.shape
    real = np.ascontiguousarray(z).view(np.finfo(z.dtype).dtype)
    return real.reshape(lead, channels, tail, 2).transpose(0, 1, 3, 2).reshape(
        lead, 2 * channels, tail)


def _parts_joined(z, dtype):
    """The inverse of :func:`_lanes_of_parts`: the complex state of ``dtype``."""
    lead, lanes, tail = z.shape
    pairs = z.reshape(lead, lanes // 2, 2, tail).transpose(0, 1, 3, 2)
    return np.ascontiguousarray(pairs).view(dtype)[..., 0]


def sosfilt(sos, x, axis, zi, threads):
    """Filter every channel of ``x`` with a cascade of second-order sections.

    Same result as ``scipy.signal.sosfilt`` (transposed direct form II sections).

    Parameters
    ----------
    sos : ndarray, shape (n_sections, 6)
        Normalised sections ``[b0, b1, b2, 1, a1, a2]`` (for a complex ``x``, of its
        dtype with zero imaginary parts).
    x : ndarray, 2-D, float32, float64, complex64 or complex128
        Input signals, any memory layout.
    axis : {0, 1}
        The time axis.
    zi : ndarray, shape (n_sections, channels, 2), or None
        Initial delays; zero if None.
    threads : int
        Threads to split the channel blocks over.

    Returns
    -------
    y : ndarray
        The filtered signals, laid out like ``x`` (time-major or channel-major).
    zf : ndarray or None
        Final delays, shaped like ``zi``; None if ``zi`` is None.
    """
    xc = _channels_first(x, axis)
    parts = x.dtype.kind == "c"  # the real and imaginary parts as two lanes each
    real = _REAL_OF[x.dtype.char]
    coef, group = _sections(np.real(sos), real)
    n_sections, (channels, _) = len(np.asarray(sos)), xc.shape
    n_lanes, width = channels * (2 if parts else 1), LINE // real.itemsize
    n_blocks, _ = _blocks(n_lanes, width, threads)
    if zi is None:
        state = np.zeros((2 * len(coef), n_blocks * width), real)
    else:  # state rows 2 * section + delay
        z = np.asarray(zi, x.dtype)
        state = _block_state(_lanes_of_parts(z) if parts else z, (len(coef), 2), n_blocks,
                             width)
    yc, stream = _output(xc)
    compiling.run(_kernels("sos", group, width)[2 if parts else 0], coef, xc, yc, state,
                  threads, stream)
    if zi is None:
        return _give_back(yc, x, axis), None
    zf = _channel_state(state, (len(coef), 2), n_lanes, n_sections, 2)
    return _give_back(yc, x, axis), (_parts_joined(zf, x.dtype) if parts else zf)


def lfilter(b, a, x, axis, zi, threads):
    """Filter every channel of ``x`` with the transfer function ``b / a``.

    Same result as ``scipy.signal.lfilter`` (transposed direct form II).

    Parameters
    ----------
    b, a : ndarray, shape (K,)
        Coefficients of equal length, ``a[0] == 1`` (for a complex ``x``, of its dtype with
        zero imaginary parts).
    x, axis, threads
        As in :func:`sosfilt`.
    zi : ndarray, shape (channels, K - 1), or None
        Initial delays; zero if None.

    Returns
    -------
    y, zf
        As in :func:`sosfilt`; ``zf`` shaped like ``zi``.
    """
    xc = _channels_first(x, axis)
    if np.size(b) == 1:  # no delays: a gain (a[0] is 1), as scipy's lfilter([b0], [1], x)
        y = _give_back(xc * x.dtype.type(np.ravel(b)[0]), x, axis)
        return y, (None if zi is None else np.empty((xc.shape[0], 0), x.dtype))
    parts = x.dtype.kind == "c"  # the real and imaginary parts as two lanes each
    real = _REAL_OF[x.dtype.char]
    coef = _transfer(np.real(b), np.real(a), real)
    channels, order, width = xc.shape[0], coef.shape[1] - 1, LINE // real.itemsize
    n_lanes = channels * (2 if parts else 1)
    n_blocks, _ = _blocks(n_lanes, width, threads)
    if zi is None:
        state = np.zeros((order, n_blocks * width), real)
    else:
        z = np.asarray(zi, x.dtype)[None]
        state = _block_state(_lanes_of_parts(z) if parts else z, (1, order), n_blocks, width)
    yc, stream = _output(xc)
    compiling.run(_kernels("tf", order, width)[2 if parts else 0], coef, xc, yc, state, threads,
                  stream)
    if zi is None:
        return _give_back(yc, x, axis), None
    zf = _channel_state(state, (1, order), n_lanes, 1, len(b) - 1)
    return _give_back(yc, x, axis), (_parts_joined(zf, x.dtype) if parts else zf)[0]


class KeptState:
    """:func:`sosfilt` or :func:`lfilter` over successive chunks of the same channels,
    the state kept in the kernels' own layout from chunk to chunk (a stream's filter,
    :meth:`dspk.plugin.Backend.causal_filter`): a chunk costs the kernel and its
    output, not the checks, padding and copies of the state of a call with ``zi``.

    Parameters
    ----------
    kind : {"sos", "tf"}
        Sections ``coefficients = (sos,)`` or a transfer function ``(b, a)`` (of one
        length, ``a[0] == 1``), as :func:`sosfilt` and :func:`lfilter` take them.
    coefficients : tuple of ndarray
        Real, of the signal's dtype (float32 or float64).
    zi : ndarray
        The state to start from, as those functions' ``zi``.

    Examples
    --------
    >>> sos = np.array([[1.0, 0.0, 0.0, 1.0, -0.5, 0.0]])
    >>> kept = KeptState("sos", (sos,), np.zeros((1, 1, 2)))
    >>> kept(np.ones((1, 2)), 1), kept(np.ones((1, 1)), 1)
    (array([[1. , 1.5]]), array([[1.75]]))
    >>> kept.zf()
    array([[[0.875, 0.   ]]])
    """

    def __init__(self, kind, coefficients, zi):
        real = _REAL_OF[zi.dtype.char]
        if kind == "sos":
            self._coef, size = _sections(coefficients[0], real)
            self._shape, self._lead, self._tail = (len(self._coef), 2), len(coefficients[0]), 2
            z = zi
        else:
            self._coef = _transfer(*coefficients, real)
            size = self._coef.shape[1] - 1
            self._shape, self._lead, self._tail = (1, size), 1, len(coefficients[0]) - 1
            z = zi[None]
        self._kind, self._channels, width = kind, z.shape[1], LINE // real.itemsize
        self._state = _block_state(z, self._shape, _blocks(self._channels, width, 1)[0], width)
        self._kernel = _kernels(kind, size, width)[0]

    def __call__(self, x, axis):
        if not numba_parallel():  # forked after numba's threads ran: the stream falls back
            raise KernelNotReady("numba's parallel kernels cannot run in this forked process")
        xc = _channels_first(x, axis)
        yc, stream = _output(xc)
        compiling.run(self._kernel, self._coef, xc, yc, self._state, use_numba_threads(),
                      stream)
        return _give_back(yc, x, axis)

    def zf(self):
        z = _channel_state(self._state, self._shape, self._channels, self._lead, self._tail)
        return z.copy() if self._kind == "sos" else z[0].copy()


def _zero_phase(kind, size, coef, zi, x, axis, padtype, padlen, threads):
    xc = _channels_first(x, axis)
    yc, stream = _output(xc)
    compiling.run(_kernels(kind, size, lanes(x.dtype))[1], coef, zi, xc, yc, PADTYPES[padtype],
                  padlen, threads, stream)
    return _give_back(yc, x, axis)


def sosfiltfilt(sos, x, axis, padtype, padlen, zi, threads):
    """Zero-phase ``sosfilt``, as ``scipy.signal.sosfiltfilt``, with the padding and both
    passes fused per channel block.

    Parameters
    ----------
    sos, x, axis, threads
        As in :func:`sosfilt`.
    padtype : {"odd", "even", "constant", None}
        How the signal is extended at both ends.
    padlen : int
        Samples of extension at each end, below the signal length (0 with None).
    zi : ndarray, shape (n_sections, 2)
        Steady-state delays per unit input (``scipy.signal.sosfilt_zi``).

    Returns
    -------
    ndarray
        The zero-phase result, laid out like ``x``.
    """
    coef, group = _sections(sos, x.dtype)
    steady = np.zeros((len(coef), 2), x.dtype)
    steady[:len(zi)] = zi
    return _zero_phase("sos", group, coef, steady.reshape(-1), x, axis, padtype,
                       padlen if padtype else 0, threads)


def filtfilt(b, a, x, axis, padtype, padlen, zi, threads):
    """Zero-phase ``lfilter``, as ``scipy.signal.filtfilt`` (method "pad"), fused per
    channel block.

    Parameters
    ----------
    b, a
        As in :func:`lfilter`.
    x, axis, padtype, padlen, threads
        As in :func:`sosfiltfilt`.
    zi : ndarray, shape (K - 1,)
        Steady-state delays per unit input (``scipy.signal.lfilter_zi``).

    Returns
    -------
    ndarray
        The zero-phase result, laid out like ``x``.
    """
    coef = _transfer(b, a, x.dtype)
    steady = np.zeros(coef.shape[1] - 1, x.dtype)
    steady[:len(zi)] = zi
    return _zero_phase("tf", coef.shape[1] - 1, coef, steady, x, axis, padtype,
                       padlen if padtype else 0, threads)
