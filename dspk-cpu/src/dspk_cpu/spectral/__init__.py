"""The cpu runtime's variants of the spectral operations.

FFTs are scipy.fft's (pocketfft), which keeps float32 in float32. Every
operation has a whole-array variant, where pocketfft's own threads share out
the rows, and a variant with one slice of channels per thread.
"""

from dspk_cpu import spectral_analytic, spectral_csd, spectral_fft, spectral_stft, spectral_trend

VARIANTS = {
    "fft": spectral_fft.FFT,
    "hilbert": spectral_analytic.HILBERT,
    "detrend": spectral_trend.DETREND,
    "stft": spectral_stft.STFT,
    "csd": spectral_csd.CSD,
    "istft": spectral_stft.ISTFT,
}
