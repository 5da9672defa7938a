"""The cpu runtime's variants of the filtering and convolution operations."""

from dspk.plugin import Problem, Variant

from dspk_cpu import numba_kernels, scipy_kernels, spectral_overlap_save


def _is_direct(problem: Problem) -> bool:
    return problem.param("method") in ("auto", "direct")


def _is_fft(problem: Problem) -> bool:
    return problem.param("method") in ("auto", "fft")


VARIANTS = {
    "sosfilt": [numba_kernels.SOSFILT, scipy_kernels.SOSFILT],
    "lfilter": [numba_kernels.LFILTER, scipy_kernels.LFILTER],
    "sosfiltfilt": [numba_kernels.SOSFILTFILT, scipy_kernels.SOSFILTFILT],
    "filtfilt": [numba_kernels.FILTFILT, scipy_kernels.FILTFILT],
    "convolve": [
        Variant("numba-direct", numba_kernels.convolve_direct, numba_kernels.SOURCE, _is_direct),
        *spectral_overlap_save.CONVOLVE,
        Variant("fft-whole", scipy_kernels.convolve_fft, scipy_kernels.SOURCE, _is_fft),
        Variant("fft-overlap-add", scipy_kernels.convolve_overlap_add, scipy_kernels.SOURCE,
                _is_fft),
    ],
}
