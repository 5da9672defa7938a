"""Variants built on the numba kernels of :mod:`dspk_cpu.kernels`.

numba vectorises the channel-interleaved loops only with superword-level
parallelism switched on, so this module sets ``NUMBA_SLP_VECTORIZE=1``
unless the environment says otherwise, before numba is first imported.
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_SLP_VECTORIZE", "1")

import numba  # noqa: E402
from dspk.plugin import Variant, source_hash  # noqa: E402

from dspk_cpu.kernels import fir, iir, tiles  # noqa: E402
from dspk_cpu.threads import threads  # noqa: E402


def _use_threads() -> int:
    count = min(threads(), numba.config.NUMBA_NUM_THREADS)
    numba.set_num_threads(count)
    return count


def sosfilt(sos, x, axis, zi):
    """Fused-cascade sosfilt over cache-line blocks of channels, in parallel."""
    return iir.sosfilt(sos, x, axis, zi, _use_threads())


def lfilter(b, a, x, axis, zi):
    """Transposed direct form II over cache-line blocks of channels, in parallel."""
    return iir.lfilter(b, a, x, axis, zi, _use_threads())


def sosfiltfilt(sos, x, axis, padtype, padlen, zi):
    """sosfiltfilt with padding and both passes fused per channel block, in parallel."""
    return iir.sosfiltfilt(sos, x, axis, padtype, padlen, zi, _use_threads())


def filtfilt(b, a, x, axis, padtype, padlen, zi):
    """filtfilt with padding and both passes fused per channel block, in parallel."""
    return iir.filtfilt(b, a, x, axis, padtype, padlen, zi, _use_threads())


def convolve_direct(x, h, axis):
    """Direct full convolution over blocks of channels, in parallel."""
    _use_threads()
    return fir.convolve_direct(x, h, axis)


IIR_SOURCE = source_hash(iir, tiles)
SOURCE = source_hash(fir)
SOSFILT = Variant("numba-channel-blocks", sosfilt, IIR_SOURCE)
LFILTER = Variant("numba-channel-blocks", lfilter, IIR_SOURCE)
SOSFILTFILT = Variant("numba-channel-blocks", sosfiltfilt, IIR_SOURCE)
FILTFILT = Variant("numba-channel-blocks", filtfilt, IIR_SOURCE)
