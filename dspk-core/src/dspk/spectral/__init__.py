"""Spectral analysis with scipy.fft's and scipy.signal's names, parameters and results.

The operations reduce to six kernel operations (see :mod:`dspk.plugin`):
``fft`` (:func:`rfft`, :func:`irfft`, :func:`fft`, :func:`ifft`),
``hilbert``, ``detrend``, ``csd`` (:func:`welch`, :func:`csd`,
:func:`periodogram`, :func:`coherence`: segments framed, detrended,
windowed, transformed and averaged in one kernel), ``stft`` (:func:`stft`,
:func:`spectrogram`: every segment's spectrum) and ``istft``. The core
designs windows with :func:`scipy.signal.get_window` and computes scaling
constants, frequencies and times on the host.

Differences from scipy, all deliberate:

- float32 (complex64) input is computed in float32 and gives float32
  (complex64) results; integer, boolean and float16 input is computed in
  float64 (scipy.fft computes float16 in float32, and scipy's ``welch``
  family returns float32 for 8- and 16-bit integers). Two signals of
  different precision (``csd``, ``coherence``) are computed in the wider one.
- Empty input raises ValueError; scipy returns empty arrays.
- An explicit ``nperseg`` larger than the signal raises ValueError; scipy
  warns and shrinks it. When ``nperseg`` is None (``welch``, ``csd``,
  ``coherence``, ``spectrogram``) it is ``min(256, length)`` without a
  warning, which gives scipy's result. ``stft``'s default ``nperseg=256``
  is explicit: signals shorter than 256 samples need a smaller one.
- ``fs`` must be a positive finite number; ``nperseg``, ``noverlap``,
  ``nfft`` and ``n`` must be integers (scipy truncates floats); ``detrend``
  must be ``'constant'``, ``'linear'`` (or ``'c'``, ``'l'``), False, None
  or a callable; ``average`` is checked even when there is one segment.
- A ``detrend`` callable runs on the host, as scipy calls it (once per
  segment in ``welch``/``csd``, once on all segments in
  ``stft``/``spectrogram``), on segments already in the computation's
  dtype; its segments then go to the runtime. The built-in detrends run in
  the kernel.
- ``csd``/``coherence`` with a complex ``y`` and a real ``x`` switch to two
  sides as a complex ``x`` does (scipy raises); ``stft`` and ``spectrogram``
  warn on complex input as scipy does.
- ``istft`` returns times along the output's time axis; scipy's follow its
  first axis, which differs for more than one channel. An ``istft`` whose
  output would be empty raises ValueError.
- The FFTs accept ``overwrite_x`` and never overwrite; ``workers`` is
  checked and left to the runtime (the cpu runtime uses
  ``DSPK_NUM_THREADS``); ``plan`` must be None, as in scipy.
- ``detrend`` computes float16 in float64 and accepts ``overwrite_data``
  without overwriting; break points must lie within the signal.

The package has one module per family: :mod:`~dspk.spectral.transforms`
(the FFTs, hilbert), :mod:`~dspk.spectral.detrending`,
:mod:`~dspk.spectral.averaged` (welch, csd, periodogram, coherence) and
:mod:`~dspk.spectral.short_time` (stft, spectrogram, istft), over
:mod:`~dspk.spectral.common`.
"""

from dspk.operations.spectral import BOUNDARY_PADDING  # noqa: F401 (importable from here)
from dspk.spectral.averaged import coherence, csd, periodogram, welch
from dspk.spectral.detrending import detrend
from dspk.spectral.short_time import istft, spectrogram, stft
from dspk.spectral.transforms import fft, hilbert, ifft, irfft, rfft
from dspk.validation import detrend_kind, sampling_rate  # noqa: F401 (importable from here)

__all__ = ["rfft", "irfft", "fft", "ifft", "hilbert", "detrend", "periodogram", "welch",
           "csd", "coherence", "spectrogram", "stft", "istft"]
