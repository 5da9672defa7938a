"""Full convolution of many channels with one row of real taps, by FFT overlap-save.

The output is cut into blocks of ``M`` samples; block ``j`` needs the ``L = M + k - 1``
input samples that end at its last output, and their circular convolution with the
``k`` taps (zero-padded to ``L``) gives the block in its last ``M`` samples. Because the
taps are real, two channels ride in one complex signal, ``x_a + 1j x_b``: the real part
of the result is channel ``a``'s output and the imaginary part channel ``b``'s. One
complex FFT and one inverse of ``L`` points thus serve two channels, and pocketfft's
complex transforms are its fastest. With a row of taps per channel, each channel
rides alone.

Work is cut into items of one channel pair and a run of blocks of about
:data:`ITEM_SAMPLES` samples, so that an item's blocks stay in cache from framing to
scattering. The FFT length is a multiple of the taps (``factor``), a power of two.
"""

from __future__ import annotations

import numpy as np
from scipy import fft

from dspk.plugin import layout_of
from dspk_cpu import compiling, memory
from dspk_cpu.layout import channel_major
from dspk_cpu.threads import on_threads, threads

#: Complex samples (blocks x FFT length) per work item.
ITEM_SAMPLES = 1 << 17


@compiling.cached_jit(nogil=True)
def _frames(x, first, second, start, step, frames):
    """Blocks of ``x[first] + 1j x[second]`` (``second < 0``: zeros), each ``step`` apart.

    Row ``f`` of ``frames`` holds samples ``start + f * step`` onward, zeros outside ``x``.
    """
    n = x.shape[1]
    length = frames.shape[1]
    for f in range(frames.shape[0]):
        t0 = start + f * step
        if t0 >= 0 and t0 + length <= n:
            if second >= 0:
                for q in range(length):
                    frames[f, q] = complex(x[first, t0 + q], x[second, t0 + q])
            else:
                for q in range(length):
                    frames[f, q] = complex(x[first, t0 + q], 0)
        else:
            for q in range(length):
                t = t0 + q
                inside = 0 <= t < n
                a = x[first, t] if inside else 0
                b = x[second, t] if inside and second >= 0 else 0
                frames[f, q] = complex(a, b)


@compiling.cached_jit(nogil=True)
def _scatter(blocks, skip, first, second, start, y):
    """Samples ``skip:`` of each block, real parts to ``y[first]``, imaginary to ``y[second]``.

    Block ``f`` lands at ``start + f * (L - skip)``; samples past the end of ``y`` are dropped.
    """
    n_out = y.shape[1]
    step = blocks.shape[1] - skip
    for f in range(blocks.shape[0]):
        t0 = start + f * step
        count = min(step, n_out - t0)
        for q in range(count):
            y[first, t0 + q] = blocks[f, skip + q].real
        if second >= 0:
            for q in range(count):
                y[second, t0 + q] = blocks[f, skip + q].imag


@compiling.cached_jit(nogil=True)
def _frames_across(x, units, paired, start, step, frames):
    """:func:`_frames` for samples x channels: ``frames[f, q, u]`` from unit ``units[u]``.

    A unit is channels ``2u`` and ``2u + 1`` when ``paired``, else channel ``u``.
    """
    n, channels = x.shape
    length = frames.shape[1]
    for f in range(frames.shape[0]):
        for q in range(length):
            t = start + f * step + q
            if t < 0 or t >= n:
                for u in range(frames.shape[2]):
                    frames[f, q, u] = 0
            elif paired:
                for u in range(frames.shape[2]):
                    c = 2 * (units + u)
                    b = x[t, c + 1] if c + 1 < channels else 0
                    frames[f, q, u] = complex(x[t, c], b)
            else:
                for u in range(frames.shape[2]):
                    frames[f, q, u] = complex(x[t, units + u], 0)


@compiling.cached_jit(nogil=True)
def _scatter_across(blocks, skip, units, paired, start, y):
    """:func:`_scatter` for samples x channels, from blocks of :func:`_frames_across`."""
    n_out, channels = y.shape
    step = blocks.shape[1] - skip
    for f in range(blocks.shape[0]):
        t0 = start + f * step
        for q in range(min(step, n_out - t0)):
            for u in range(blocks.shape[2]):
                v = blocks[f, skip + q, u]
                if paired:
                    c = 2 * (units + u)
                    y[t0 + q, c] = v.real
                    if c + 1 < channels:
                        y[t0 + q, c + 1] = v.imag
                else:
                    y[t0 + q, units + u] = v.real


def fft_length(taps: int, factor: int) -> int:
    """The power of two at least ``factor`` times the taps.

    Examples
    --------
    >>> fft_length(129, 16)
    4096
    """
    return 1 << max(int(np.ceil(np.log2(factor * taps))), 1)


def _items(units: int, width: int, blocks: int, length: int) -> list[tuple[int, int, int, int]]:
    """Work items ``(first unit, units, first block, blocks)``.

    A unit is a channel pair, or a channel when each has its own taps.
    """
    per_item = max(1, ITEM_SAMPLES // (length * width))
    return [(u, min(width, units - u), b, min(per_item, blocks - b))
            for u in range(0, units, width) for b in range(0, blocks, per_item)]


def _responses(h, length, dtype):
    """The taps' FFTs of ``length`` points, divided by ``length``: one row per row of ``h``."""
    return (fft.fft(h.astype(np.float64), length, axis=1) / length).astype(dtype)


def _convolve(x, h, axis, factor, on_items):
    """Full convolution of channel pairs (or single channels, with taps per channel).

    Channel-major signals run one unit per item, framed along time; sample-major ones
    a group of units per item, framed across channels, transformed along axis 1.
    A pair's block that comes out non-finite is redone one channel at a time, so
    that a NaN or infinity in one channel never reaches its partner.
    """
    across = layout_of(x, axis) == "sample-major"
    v = channel_major(x, axis)
    channels, n = v.shape
    k = h.shape[1]
    n_out = n + k - 1
    length = fft_length(k, factor)
    step = length - k + 1
    responses = _responses(h, length, np.result_type(x.dtype, np.complex64))
    shared = h.shape[0] == 1
    units = -(-channels // 2) if shared else channels
    y = memory.empty((n_out, channels) if axis == 0 else (channels, n_out), x.dtype)
    yv = channel_major(y, axis)
    blocks = -(-n_out // step)

    def run(unit, width, paired, start, count, workers):
        """Convolve ``count`` blocks from ``start`` of units ``unit:unit + width``, scattered."""
        if across:
            frames = np.empty((count, length, width), responses.dtype)
            _frames_across(v.T, unit, paired, start - (k - 1), step, frames)
            response = responses[0][:, None] if shared else responses[unit:unit + width].T
        else:
            first, second = (2 * unit, 2 * unit + 1) if paired else (unit, channels)
            frames = np.empty((count, length), responses.dtype)
            _frames(v, first, second if second < channels else -1, start - (k - 1), step,
                    frames)
            response = responses[0 if shared else unit]
        frames = fft.fft(frames, axis=1, workers=workers, overwrite_x=True)
        frames *= response
        frames = fft.ifft(frames, axis=1, norm="forward", workers=workers, overwrite_x=True)
        # A non-finite input sample makes every sample of its block non-finite: one
        # sample per block tells whether a pair must be redone apart.
        if paired and not np.isfinite(frames[:, k - 1]).all():
            return False
        if across:
            _scatter_across(frames, k - 1, unit, paired, start, yv.T)
        else:
            _scatter(frames, k - 1, first, second if second < channels else -1, start, yv)
        return True

    def work(item, workers):
        unit, width, block, count = item
        start = block * step
        if run(unit, width, shared, start, count, workers):
            return
        first, last = 2 * unit, min(2 * (unit + width), channels)
        if across:
            run(first, last - first, False, start, count, workers)
        else:
            for channel in range(first, last):
                run(channel, 1, False, start, count, workers)

    on_items(work, _items(units, 16 if across else 1, blocks, length))
    return y


def _on_threads(work, items):
    on_threads(lambda item: work(item, 1), items)


def _in_sequence(work, items):
    for item in items:
        work(item, 1)


def overlap_save_threads(factor):
    """The kernel with FFTs of about ``factor`` times the taps, items shared by threads."""
    def run(x, h, axis):
        return _convolve(x, h, axis, factor, _on_threads if threads() > 1 else _in_sequence)
    return run
