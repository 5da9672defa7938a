"""KERNELS_OF says which kernel operations each public function runs: the default
runtime choice and the explicit choice's error depend on it, so it must not drift."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal

import dspk
from dspk.operations import KERNELS_OF
from dspk.tuning import tuner

rng = np.random.default_rng(7)
X = rng.standard_normal((3, 400))
SOS = scipy.signal.butter(2, 0.2, output="sos")
B, A = scipy.signal.butter(2, 0.2)
Z = scipy.signal.stft(X, nperseg=64)[2]
SPECTRUM = np.fft.rfft(X)

#: One small call of each public function, by its KERNELS_OF key.
CALLS = {
    "sosfilt": lambda: dspk.sosfilt(SOS, X),
    "lfilter": lambda: dspk.lfilter(B, A, X),
    "sosfiltfilt": lambda: dspk.sosfiltfilt(SOS, X),
    "filtfilt": lambda: dspk.filtfilt(B, A, X),
    "filtfilt(method='gust')": lambda: dspk.filtfilt(B, A, X, method="gust"),
    "convolve": lambda: dspk.convolve(X, X[:1, :9]),
    "correlate": lambda: dspk.correlate(X, X[:1, :9]),
    "fftconvolve": lambda: dspk.fftconvolve(X, X[:1, :9], axes=-1),
    "oaconvolve": lambda: dspk.oaconvolve(X, X[:1, :9], axes=-1),
    "rfft": lambda: dspk.rfft(X),
    "irfft": lambda: dspk.irfft(SPECTRUM),
    "fft": lambda: dspk.fft(X),
    "ifft": lambda: dspk.ifft(X),
    "hilbert": lambda: dspk.hilbert(X),
    "detrend": lambda: dspk.detrend(X),
    "welch": lambda: dspk.welch(X, nperseg=64),
    "csd": lambda: dspk.csd(X, X, nperseg=64),
    "periodogram": lambda: dspk.periodogram(X),
    "stft": lambda: dspk.stft(X, nperseg=64),
    "spectrogram": lambda: dspk.spectrogram(X, nperseg=64),
    "istft": lambda: dspk.istft(Z, nperseg=64),
    "upfirdn": lambda: dspk.upfirdn([1.0, 0.5], X, 2, 3),
    "resample_poly": lambda: dspk.resample_poly(X, 2, 3, axis=-1),
    "decimate(ftype='fir')": lambda: dspk.decimate(X, 2, ftype="fir"),
    "resample": lambda: dspk.resample(X, 300, axis=-1),
    "common_reference": lambda: dspk.common_reference(X),
    "whiten": lambda: dspk.whiten(X, apply_mean=True),
    "phase_shift": lambda: dspk.phase_shift(X, np.array([0.0, 0.25, 0.5])),
    "common_reference(reference='single')": lambda: dspk.common_reference(
        X, "single", ref_channels=[0, 2]),
    "common_reference(reference='local')": lambda: dspk.common_reference(
        X, "local", positions=[[0, 0], [0, 20], [0, 40]]),
    "interpolate_bad_channels": lambda: dspk.interpolate_bad_channels(
        X, [1], [[0, 0], [0, 20], [0, 40]]),
    "noise_levels": lambda: [dspk.noise_levels(X, method) for method in ("mad", "std", "rms")],
    "detect_peaks": lambda: dspk.detect_peaks(X, [1.0, 1.0, 1.0], threshold=2.0),
}


def test_every_function_of_the_table_has_a_call():
    assert sorted(CALLS) == sorted(KERNELS_OF)


@pytest.mark.parametrize("function", sorted(KERNELS_OF))
def test_a_function_runs_no_kernel_operation_it_does_not_declare(function, monkeypatch):
    ran = []
    original = tuner.choose

    def recording(backend, problem, args=None):
        ran.append(problem.op)
        return original(backend, problem, args)

    monkeypatch.setattr(tuner, "choose", recording)
    with dspk.runtime.using("cpu"):
        CALLS[function]()
    assert ran and set(ran) <= set(KERNELS_OF[function]), (function, ran)
