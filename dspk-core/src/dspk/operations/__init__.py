"""The catalogue of kernel operations: what the tuner needs to know of each.

For every operation a runtime may implement, this gives the parameter sets
tuned ahead of time and representative arguments (in the kernel calling
conventions of :mod:`dspk.plugin`) to time kernels on. Each family of
operations keeps its entries in its own module.
"""

from dspk.operations import filtering, multichannel, resampling, spectral
from dspk.operations.base import Operation, bucket, random_signal, time_axis

OPERATIONS: dict[str, Operation] = {
    op.name: op
    for family in (filtering, spectral, resampling, multichannel)
    for op in family.OPERATIONS
}

#: The kernel operations each public function runs. A runtime that lacks one
#: of them does not run that function: the default choice passes over it, and
#: an explicit choice raises :class:`dspk.plugin.OperationNotImplemented`.
KERNELS_OF: dict[str, tuple[str, ...]] = {
    "sosfilt": ("sosfilt",),
    "lfilter": ("lfilter",),
    "sosfiltfilt": ("sosfiltfilt",),
    "filtfilt": ("filtfilt",),
    "filtfilt(method='gust')": ("lfilter",),
    "convolve": ("convolve",),
    "correlate": ("convolve",),
    "fftconvolve": ("convolve",),
    "oaconvolve": ("convolve",),
    "rfft": ("fft",),
    "irfft": ("fft",),
    "fft": ("fft",),
    "ifft": ("fft",),
    "hilbert": ("hilbert",),
    "detrend": ("detrend",),
    "welch": ("csd",),
    "csd": ("csd",),
    "periodogram": ("csd",),
    "stft": ("stft",),
    "spectrogram": ("stft",),
    "istft": ("istft",),
    "upfirdn": ("upfirdn",),
    "resample_poly": ("upfirdn",),
    "decimate(ftype='fir')": ("upfirdn",),
    "resample": ("resample",),
    "common_reference": ("common_reference",),
    "whiten": ("channel_mean", "channel_covariance", "median_of_squares",
               "apply_channel_matrix"),
    "phase_shift": ("phase_shift",),
}

__all__ = ["KERNELS_OF", "OPERATIONS", "Operation", "bucket", "random_signal", "time_axis"]
