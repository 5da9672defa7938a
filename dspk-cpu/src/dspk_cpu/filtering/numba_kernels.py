"""The numba kernels of :mod:`dspk_cpu.kernels` as variants: sosfilt, lfilter, sosfiltfilt,
filtfilt and direct convolution, on the runtime's threads."""

from __future__ import annotations

from dspk_cpu.kernels import fir, iir
from dspk_cpu.threads import use_numba_threads


def sosfilt(sos, x, axis, zi):
    """Fused-cascade sosfilt over cache-line blocks of channels, in parallel."""
    return iir.sosfilt(sos, x, axis, zi, use_numba_threads())


def lfilter(b, a, x, axis, zi):
    """Transposed direct form II over cache-line blocks of channels, in parallel."""
    return iir.lfilter(b, a, x, axis, zi, use_numba_threads())


def sosfiltfilt(sos, x, axis, padtype, padlen, zi):
    """sosfiltfilt with padding and both passes fused per channel block, in parallel."""
    return iir.sosfiltfilt(sos, x, axis, padtype, padlen, zi, use_numba_threads())


def filtfilt(b, a, x, axis, padtype, padlen, zi):
    """filtfilt with padding and both passes fused per channel block, in parallel."""
    return iir.filtfilt(b, a, x, axis, padtype, padlen, zi, use_numba_threads())


def convolve_direct(x, h, axis):
    """Direct full convolution over blocks of channels, in parallel."""
    use_numba_threads()
    return fir.convolve_direct(x, h, axis)
