"""The cuda runtime's peers in ``dspk bench``: cupyx.scipy.signal and cupy on device arrays.

:meth:`dspk_cuda.backend.CupyBackend.bench_peers` returns :func:`peers`;
this module imports cupyx at its top, so it is imported only then, after the
probe has found a device. ``dspk bench --runtime cuda`` (or ``hip``) times
each peer on the same device array as dspk, with the same coefficients
(:func:`dspk.bench.design`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cupyx.scipy import signal as csignal

from dspk.bench import FS, design, segment


def peers(cupy) -> dict[str, tuple[str, Callable[[Any], Any]]]:
    """The peer of each bench case that cupyx or cupy computes.

    Parameters
    ----------
    cupy : module
        The ``cupy`` module the backend opened.

    Returns
    -------
    dict of str to (str, callable)
        Bench case name to ``(label, peer)``; ``peer(x)`` takes the
        device array and returns its result on the device. Both rfft cases
        compare with ``cupy.fft.rfft``, which has no worker count.
    """
    sos, b, a, taps = design()
    d_b, d_a = cupy.asarray(b), cupy.asarray(a)
    cast = {}

    def as_x(name, values, x):
        """``values`` on the device in ``x``'s dtype, cast at the warm-up call, once per dtype."""
        key = (name, x.dtype)
        if key not in cast:
            cast[key] = cupy.asarray(values, dtype=x.dtype)
        return cast[key]

    def rfft(x):
        return cupy.fft.rfft(x)

    return {
        "sosfilt": ("cupyx", lambda x: csignal.sosfilt(as_x("sos", sos, x), x)),
        "sosfilt-axis0": ("cupyx", lambda x: csignal.sosfilt(as_x("sos", sos, x), x, axis=0)),
        "sosfiltfilt": ("cupyx", lambda x: csignal.sosfiltfilt(as_x("sos", sos, x), x)),
        "lfilter": ("cupyx", lambda x: csignal.lfilter(d_b, d_a, x)),
        "filtfilt": ("cupyx", lambda x: csignal.filtfilt(d_b, d_a, x)),
        "oaconvolve-129": ("cupyx",
                           lambda x: csignal.oaconvolve(x, as_x("taps", taps, x), axes=-1)),
        "welch": ("cupyx", lambda x: csignal.welch(x, fs=FS, nperseg=segment(x))),
        "hilbert": ("cupyx", lambda x: csignal.hilbert(x)),
        "resample_poly-1-3": ("cupyx", lambda x: csignal.resample_poly(x, 1, 3, axis=-1)),
        "common_reference-median": ("cupy", lambda x: x - cupy.median(x, axis=0)),
        "rfft-vs-1-worker": ("cupy", rfft),
        "rfft-vs-all-workers": ("cupy", rfft),
    }
