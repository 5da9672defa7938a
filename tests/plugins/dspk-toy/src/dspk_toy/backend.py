"""The toy runtime: sosfilt only, as two NumPy kernels."""

import numpy as np
from dspk.plugin import Backend, Variant, source_hash


def sosfilt_sample_loop(sos, x, axis, zi):
    """Transposed direct form II, one sample at a time for all channels at once."""
    data = x if axis == 1 else x.T
    state = np.zeros((len(sos), data.shape[0], 2), x.dtype) if zi is None else zi.copy()
    y = np.empty_like(data)
    for t in range(data.shape[1]):
        value = data[:, t]
        for s, (b0, b1, b2, _, a1, a2) in enumerate(sos):
            out = b0 * value + state[s, :, 0]
            state[s, :, 0] = b1 * value - a1 * out + state[s, :, 1]
            state[s, :, 1] = b2 * value - a2 * out
            value = out
        y[:, t] = value
    return (y if axis == 1 else y.T), (state if zi is not None else None)


def sosfilt_scipy(sos, x, axis, zi):
    """scipy.signal.sosfilt, for comparison."""
    from scipy import signal

    if zi is None:
        return signal.sosfilt(sos, x, axis=axis), None
    state = zi if axis == 1 else zi.transpose(0, 2, 1)
    y, zf = signal.sosfilt(sos, x, axis=axis, zi=state)
    return y, (zf if axis == 1 else zf.transpose(0, 2, 1))


class ToyBackend(Backend):
    name = "toy"

    def device(self):
        return "a toy device"

    def fingerprint(self):
        return {"toy": "1"}

    def variants(self, op):
        if op != "sosfilt":
            return []
        return [Variant("sample-loop", sosfilt_sample_loop, source_hash(sosfilt_sample_loop)),
                Variant("scipy", sosfilt_scipy, source_hash(sosfilt_scipy))]
