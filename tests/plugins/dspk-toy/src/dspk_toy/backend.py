"""The toy runtime: sosfilt and the FFTs, each as two NumPy kernels, with its own timer."""

import time

import numpy as np

from dspk.plugin import Backend, Variant, source_hash

FFTS = {"rfft": np.fft.rfft, "irfft": np.fft.irfft, "fft": np.fft.fft, "ifft": np.fft.ifft}


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


def fft_whole_array(x, axis, n, kind, norm):
    """numpy.fft on the whole array at once (NumPy keeps float32 in complex64)."""
    return FFTS[kind](x, n=n, axis=axis, norm=norm)


def fft_channel_loop(x, axis, n, kind, norm):
    """numpy.fft one channel at a time, into a preallocated output."""
    channels = np.moveaxis(x, 1 - axis, 0)
    first = FFTS[kind](channels[0], n=n, norm=norm)
    y = np.empty((len(channels), len(first)), first.dtype)
    y[0] = first
    for c in range(1, len(channels)):
        y[c] = FFTS[kind](channels[c], n=n, norm=norm)
    return y if axis == 1 else y.T


KERNELS = {
    "sosfilt": {"sample-loop": sosfilt_sample_loop, "scipy": sosfilt_scipy},
    "fft": {"whole-array": fft_whole_array, "channel-loop": fft_channel_loop},
}


class ToyBackend(Backend):
    name = "toy"

    def device(self):
        return "a toy device"

    def fingerprint(self):
        return {"toy": "1", "numpy": np.__version__}

    def variants(self, op):
        """The kernels of ``op``, default first; none for the operations toy lacks."""
        kernels = KERNELS.get(op, {})
        return [Variant(name, run, source_hash(run)) for name, run in kernels.items()]

    def time(self, call, repeat):
        """Seconds per run: the process's CPU time, which other processes do not disturb."""
        call()
        seconds = []
        for _ in range(repeat):
            start = time.process_time()
            call()
            seconds.append(time.process_time() - start)
        return seconds
