"""The numba kernels of :mod:`dspk_cpu.kernels` as variants: sosfilt, lfilter, sosfiltfilt,
filtfilt and direct convolution, on the runtime's threads, and lfilter on the calling
thread."""

from __future__ import annotations

from dspk_cpu.filtering import scipy_kernels
from dspk_cpu.kernels import direct_form, fir, iir
from dspk_cpu.threads import use_numba_threads


def sosfilt(sos, x, axis, zi):
    """Fused-cascade sosfilt over cache-line blocks of channels, in parallel."""
    return iir.sosfilt(sos, x, axis, zi, use_numba_threads())


def lfilter(b, a, x, axis, zi):
    """Transposed direct form II over cache-line blocks of channels, in parallel."""
    return iir.lfilter(b, a, x, axis, zi, use_numba_threads())


def lfilter_one_thread(b, a, x, axis, zi):
    """Transposed direct form II on the calling thread, the delays in registers, up to
    order :data:`~dspk_cpu.kernels.direct_form.MAX_ORDER` for real signals; scipy's
    compiled filter (the same arithmetic) above it and for complex ones."""
    if len(a) > direct_form.MAX_ORDER + 1 or x.dtype.kind == "c":
        return scipy_kernels.lfilter_one_thread(b, a, x, axis, zi)
    return direct_form.lfilter(b, a, x, axis, zi)


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
