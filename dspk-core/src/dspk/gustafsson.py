"""Gustafsson's forward-backward filtering: ``filtfilt(..., method="gust")``.

With ``H`` the causal filter, ``R`` time reversal and ``O`` the filter's
response to each unit initial state (its observability matrix), filtering
forward then backward from initial states ``u`` (forward) and ``v``
(backward) gives::

    y_fb = R H R H x + (R H R O) u + (R O) v

and backward then forward, with the roles of the states swapped, gives::

    y_bf = H R H R x + O u + (H R O) v

Gustafsson (1996) picks ``u`` and ``v`` so that the two orders agree in the
least-squares sense, which removes the start-up transients at both ends.
With ``irlen`` the impulse response is cut to ``irlen`` samples and only that
many samples at each end are corrected. The four long passes run on the
runtime's ``lfilter``; the small least-squares problem runs on the host.
"""

from __future__ import annotations


import numpy as np
from scipy import linalg
from scipy import signal as _scipy

from dspk import validation
from dspk.arrays import to_numpy


def _state_responses(b: np.ndarray, a: np.ndarray, length: int) -> np.ndarray:
    """``O``: column j is the zero-input response to the unit initial state j."""
    order = len(a) - 1
    zeros = np.zeros(length)
    return np.stack([_scipy.lfilter(b, a, zeros, zi=np.eye(order)[j])[0]
                     for j in range(order)], axis=1)


def filtfilt_gust(b, a, x, axis, irlen, runtime):
    """Zero-phase filtering with Gustafsson's initial states; see :func:`dspk.filtfilt`."""
    from dspk.dispatch import Call
    from dspk.filtering import lfilter

    call, x = Call.start(runtime, x, "x", "filtfilt(method='gust')")
    axis = validation.signal(x, axis)
    dtype = validation.compute_dtype(x)
    b, a = validation.ba_arrays(b, a)
    validation.output_fits("filtfilt", x, dtype)
    host = np.moveaxis(np.asarray(to_numpy(x), dtype=dtype), axis, -1)
    order, n = len(a) - 1, host.shape[-1]
    if irlen is not None:
        irlen = validation.integer(irlen, "irlen", minimum=1)
    if order == 0:
        return call.give_back(call.native(np.moveaxis(host * dtype.type(b[0] ** 2), -1, axis)))

    def run(v):  # the runtime's lfilter along the last axis
        return lfilter(b.astype(dtype), a.astype(dtype), v, axis=-1, runtime=call.backend.name)

    forward = run(host)
    y_fb = run(forward[..., ::-1])[..., ::-1]
    y_bf = run(run(host[..., ::-1])[..., ::-1])

    m = n if irlen is None or n <= 2 * irlen else irlen
    o = _state_responses(b, a, m)
    s = _scipy.lfilter(b, a, o[::-1], axis=0)
    if m == n:
        system = np.hstack([s[::-1] - o, o[::-1] - s])
        correct = np.hstack([s[::-1], o[::-1]])
        delta = (y_bf - y_fb).reshape(-1, n).T
    else:
        system = linalg.block_diag(s[::-1] - o, o[::-1] - s)
        correct = linalg.block_diag(s[::-1], o[::-1])
        difference = y_bf - y_fb
        delta = np.concatenate([difference[..., :m], difference[..., -m:]], axis=-1)
        delta = delta.reshape(-1, 2 * m).T
    states = linalg.lstsq(system, delta.astype(np.float64))[0]
    adjust = (correct @ states).T.reshape(*host.shape[:-1], -1).astype(dtype)
    y = y_fb.copy()
    if m == n:
        y += adjust
    else:
        y[..., :m] += adjust[..., :m]
        y[..., -m:] += adjust[..., m:]
    return call.give_back(call.native(np.moveaxis(y, -1, axis)))
