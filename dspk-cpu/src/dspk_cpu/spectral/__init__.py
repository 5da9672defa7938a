"""The cpu runtime's variants of the spectral operations.

FFTs are scipy.fft's (pocketfft), which keeps float32 in float32, and for the
fft operation ducc0's too (pocketfft's successor). Every
operation has a whole-array variant, where pocketfft's own threads share out
the rows, and a variant with one slice of channels per thread; fft and
hilbert have one on the calling thread alone, for small arrays.
"""

from dspk.plugin import Variant, package_source_hash
from dspk_cpu.spectral import analytic, csd, ducc_fft, fft, segments, stft

_FFT = package_source_hash(fft)
_DUCC_FFT = package_source_hash(ducc_fft)
_ANALYTIC = package_source_hash(analytic)
_SEGMENTS = package_source_hash(segments)
_STFT = package_source_hash(stft)
_CSD = package_source_hash(csd)

VARIANTS = {
    # The first is what an untimed size runs: pocketfft's own threads, which allocate
    # only the result (the half-length variants allocate the packed spectrum too, and
    # fresh pages cost as much as the transform at 384 x 524288).
    "fft": [
        Variant("whole-array", fft.transform, _FFT),
        Variant("ducc0", ducc_fft.transform, _DUCC_FFT),
        Variant("half-length", fft.transform_halfsize, _FFT),
        Variant("half-length-channel-threads", fft.transform_halfsize_channel_threads, _FFT),
        Variant("channel-threads", fft.transform_channel_threads, _FFT),
        Variant("one-thread", fft.transform_one_thread, _FFT),
    ],
    "hilbert": [
        Variant("channel-threads", analytic.analytic_channel_threads, _ANALYTIC),
        Variant("fft-groups", analytic.analytic_groups, _ANALYTIC),
        Variant("one-thread", analytic.analytic_one_thread, _ANALYTIC),
    ],
    "detrend": [
        Variant("whole-array", segments.detrend_whole, _SEGMENTS),
        Variant("channel-threads", segments.detrend_channel_threads, _SEGMENTS),
    ],
    "stft": [
        Variant("whole-array", stft.stft_whole, _STFT),
        Variant("channel-threads", stft.stft_channel_threads, _STFT),
    ],
    "csd": [
        Variant("frame-blocks", csd.csd_frame_blocks, _CSD),
        Variant("channel-threads", csd.csd_channel_threads, _CSD),
    ],
    "istft": [
        Variant("whole-array", stft.istft_whole, _STFT),
        Variant("channel-threads", stft.istft_channel_threads, _STFT),
    ],
}
