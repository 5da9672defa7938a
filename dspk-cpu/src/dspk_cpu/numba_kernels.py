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

from dspk_cpu import forward_backward as fb  # noqa: E402
from dspk_cpu.kernels import fir, iir  # noqa: E402
from dspk_cpu.threads import threads  # noqa: E402


def _use_threads() -> None:
    numba.set_num_threads(min(threads(), numba.config.NUMBA_NUM_THREADS))


def sosfilt(sos, x, axis, zi):
    """Fused-cascade sosfilt over blocks of channels, in parallel."""
    _use_threads()
    return iir.sosfilt(sos, x, axis, zi)


def lfilter(b, a, x, axis, zi):
    """Transposed direct form II over blocks of channels, in parallel."""
    _use_threads()
    return iir.lfilter(b, a, x, axis, zi)


sosfiltfilt = fb.sosfiltfilt_with(sosfilt)
filtfilt = fb.filtfilt_with(lfilter)


def convolve_direct(x, h, axis):
    """Direct full convolution over blocks of channels, in parallel."""
    _use_threads()
    return fir.convolve_direct(x, h, axis)


IIR_SOURCE = source_hash(iir, fb)
SOURCE = source_hash(fir)
SOSFILT = Variant("numba-channel-blocks", sosfilt, IIR_SOURCE)
LFILTER = Variant("numba-channel-blocks", lfilter, IIR_SOURCE)
SOSFILTFILT = Variant("numba-channel-blocks", sosfiltfilt, IIR_SOURCE)
FILTFILT = Variant("numba-channel-blocks", filtfilt, IIR_SOURCE)
