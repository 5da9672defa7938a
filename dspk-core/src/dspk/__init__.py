"""dspk: signal-processing kernels for multichannel arrays, on CPUs and GPUs.

The operations have scipy.signal's names, parameters and results, plus a
keyword-only ``runtime=``; :mod:`dspk.runtime` chooses where they run.

Examples
--------
>>> import numpy as np, scipy.signal, dspk
>>> sos = scipy.signal.butter(3, [300, 6000], "bandpass", fs=30000, output="sos")
>>> x = np.random.default_rng(0).standard_normal((384, 3000)).astype(np.float32)
>>> dspk.sosfiltfilt(sos, x, runtime="cpu").shape
(384, 3000)
"""

from importlib.metadata import version as _version

from dspk import bad_channels as _bad_channels
from dspk import designs as _designs
from dspk import destripe as _destripe
from dspk import multichannel as _multichannel
from dspk import recordings as _recordings
from dspk import resampling as _resampling
from dspk import runtime
from dspk import spectral as _spectral
from dspk import streaming as _streaming
from dspk.arrays import asarray, to_numpy
from dspk.bad_channels import *  # noqa: F403
from dspk.convolution import convolve, correlate, fftconvolve, oaconvolve
from dspk.designs import *  # noqa: F403
from dspk.destripe import *  # noqa: F403
from dspk.detection import detect_peaks, noise_levels
from dspk.filtering import filtfilt, lfilter, lfilter_zi, sosfilt, sosfilt_zi, sosfiltfilt
from dspk.geometry import read_probe
from dspk.multichannel import *  # noqa: F403
from dspk.quantization import to_int16
from dspk.recordings import *  # noqa: F403
from dspk.resampling import *  # noqa: F403
from dspk.spectral import *  # noqa: F403
from dspk.streaming import *  # noqa: F403

__version__ = _version("dspk-core")

__all__ = [
    "runtime", "asarray", "to_numpy",
    "sosfilt", "sosfiltfilt", "lfilter", "filtfilt", "lfilter_zi", "sosfilt_zi",
    "convolve", "correlate", "fftconvolve", "oaconvolve",
    *_designs.__all__, *_spectral.__all__, *_resampling.__all__, *_multichannel.__all__,
    *_streaming.__all__, *_recordings.__all__, *_bad_channels.__all__,
    *_destripe.__all__,
    "noise_levels", "detect_peaks",
    "read_probe", "to_int16",
]
