"""Catalogue entries of the spectral kernels: FFTs, Hilbert, detrend and segment spectra.

Besides the entries, :data:`BOUNDARY_PADDING` states how the ``stft``
kernel's boundary extensions map onto ``numpy.pad`` (the same arguments work
for ``cupy.pad``), so that the core and every runtime extend a signal alike.
"""

import numpy as np
from scipy import signal

from dspk.operations.base import OTHER, Operation, Pieces, random_signal, time_axis
from dspk.plugin import Problem

#: ``numpy.pad`` keyword arguments of each boundary extension of ``stft``
#: (scipy.signal's ``even_ext``, ``odd_ext``, ``const_ext`` and ``zero_ext``).
BOUNDARY_PADDING = {
    "even": {"mode": "reflect", "reflect_type": "even"},
    "odd": {"mode": "reflect", "reflect_type": "odd"},
    "constant": {"mode": "edge"},
    "zeros": {"mode": "constant"},
}


def _signal(problem: Problem, rng: np.random.Generator, complex_input: bool) -> np.ndarray:
    x = random_signal(problem, rng)
    if complex_input:
        x = x + 1j * random_signal(problem, rng)
    return x


def _fft_args(problem, rng):
    kind, n = problem.param("kind"), problem.samples
    if kind == "irfft":
        half = Problem(problem.op, problem.dtype, problem.channels, n // 2 + 1, problem.layout)
        return _signal(half, rng, True), time_axis(problem), n, kind, "backward"
    return _signal(problem, rng, problem.param("complex")), time_axis(problem), n, kind, "backward"


def _hilbert_args(problem, rng):
    return random_signal(problem, rng), time_axis(problem), problem.samples


def _detrend_args(problem, rng):
    bp = (0, problem.samples)
    return random_signal(problem, rng), time_axis(problem), problem.param("kind"), bp


def _segments(problem: Problem) -> tuple[np.ndarray, int]:
    """A Hann window of the problem's segment length (at most its samples) and the hop."""
    nperseg = min(problem.param("segment"), problem.samples)
    window = signal.get_window("hann", nperseg).astype(problem.dtype)
    return window, max(1, min(problem.param("hop"), nperseg))


def _bins(problem: Problem, nfft: int) -> np.ndarray:
    count = nfft // 2 + 1 if problem.param("sides") == "onesided" else nfft
    return np.ones(count, problem.dtype)


def _stft_args(problem, rng):
    window, step = _segments(problem)
    x = _signal(problem, rng, problem.param("complex"))
    return (x, time_axis(problem), window, step, len(window), "constant",
            problem.param("sides"), None, 0, _bins(problem, len(window)), problem.param("value"))


def _csd_args(problem, rng):
    window, step = _segments(problem)
    x = _signal(problem, rng, problem.param("complex"))
    y = _signal(problem, rng, problem.param("complex")) if problem.param("cross") else None
    return (x, y, time_axis(problem), window, step, len(window), "constant",
            problem.param("sides"), _bins(problem, len(window)), problem.param("average"))


def _istft_args(problem, rng):
    window, step = _segments(problem)
    frames = max(1, (problem.samples - len(window)) // step + 1)
    bins = len(_bins(problem, len(window)))
    shape = (problem.channels, bins, frames)
    z = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(
        np.result_type(problem.dtype, np.complex64))
    length = len(window) + (frames - 1) * step
    return (z, window, step, len(window), problem.param("sides"),
            np.ones(length, problem.dtype), 0)


_SEGMENTS = {"segment": 256, "hop": 128}

#: A signal first, its time axis second, and channels independent.
_EACH_CHANNEL = Pieces("channels", {0: OTHER}, 1)

OPERATIONS = (
    Operation("fft", ({"kind": "rfft", "complex": False},), _fft_args, _EACH_CHANNEL,
              signature="x, axis, n, kind, norm -> y",
              description=('``kind`` is "rfft", "irfft", "fft" or "ifft"; ``norm`` is "backward", '
                           '"ortho" or "forward"; ``x`` is real for rfft, complex for irfft, '
                           'either for fft/ifft; ``y`` has ``n // 2 + 1`` (rfft) or ``n`` samples '
                           'along ``axis``, complex except for irfft.')),
    Operation("hilbert", ({},), _hilbert_args, _EACH_CHANNEL,
              signature="x, axis, n -> y",
              description='The complex analytic signal of real ``x`` from its ``n``-point FFT.'),
    Operation("detrend", ({"kind": "linear"},), _detrend_args, _EACH_CHANNEL,
              signature="x, axis, kind, bp -> y",
              description=('``kind`` is "constant" or "linear"; ``bp`` holds the piece boundaries '
                           '``(0, ..., n)``.')),
    Operation("stft", ({**_SEGMENTS, "value": "complex", "sides": "onesided",
                        "complex": False},), _stft_args, _EACH_CHANNEL,
              signature=("x, axis, window, step, nfft, detrend, sides, boundary, pad, weights, "
                         "value -> z"),
              description=('Extend by ``len(window) // 2`` at both ends as ``boundary`` says, '
                           'append ``pad`` zeros, cut segments ``step`` apart, detrend, window, '
                           'FFT to ``nfft``, times ``weights`` per bin; ``value`` is "complex", '
                           '"power", "magnitude", "angle" or "phase"; frequencies along ``axis``, '
                           'segments as a new last axis.')),
    # welch as scipy's default segments, and as electrophysiology's 1024.
    Operation("csd", tuple({**segments, "average": "mean", "sides": "onesided", "cross": False,
                            "complex": False}
                           for segments in (_SEGMENTS, {"segment": 1024, "hop": 512})), _csd_args,
              Pieces("channels", {0: OTHER, 1: OTHER}, 2),
              signature="x, y, axis, window, step, nfft, detrend, sides, weights, average -> p",
              description=('``weights`` times the mean or median over segments of ``conj(X) Y`` '
                           '(of ``|X|**2`` when ``y`` is None).')),
    Operation("istft", ({**_SEGMENTS, "sides": "onesided"},), _istft_args,
              Pieces("channels", {0: 0}, None, results=(0,)),
              signature="z, window, step, nfft, sides, divisor, trim -> x",
              description=('``z`` is (channels, bins, segments); inverse FFT, window, '
                           'overlap-add, divide samples ``trim:trim + len(divisor)`` '
                           'by ``divisor``.')),
)
