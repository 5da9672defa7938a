"""The cpu runtime's variants of the filtering and convolution operations.

The numba kernels of :mod:`dspk_cpu.kernels` (:mod:`.numba_kernels`, and lfilter's
one-thread direct form, :mod:`dspk_cpu.kernels.direct_form`), scipy.signal on
one slice of channels per thread or its compiled filters on one thread, for
small problems (:mod:`.scipy_kernels`), and FFT convolution by overlap-save
(:mod:`.overlap_save`).
"""

from dspk.plugin import Problem, Variant, package_source_hash
from dspk_cpu.filtering import numba_kernels, overlap_save, scipy_kernels

_NUMBA = package_source_hash(numba_kernels)
_SCIPY = package_source_hash(scipy_kernels)
_OVERLAP_SAVE = package_source_hash(overlap_save)


def _is_direct(problem: Problem) -> bool:
    """Whether the caller allows direct (time-domain) convolution."""
    return problem.param("method") in ("auto", "direct")


def _is_fft(problem: Problem) -> bool:
    """Whether the caller allows FFT convolution."""
    return problem.param("method") in ("auto", "fft")


def _real_coefficients(problem: Problem) -> bool:
    """Whether the filter's coefficients are real: the numba kernels multiply by real
    coefficients only (the one-pass ones' lanes hold the parts of complex signals; the
    zero-phase ones meet complex data only with complex coefficients)."""
    return problem.param("coefficients") != "complex"


VARIANTS = {
    "sosfilt": [
        Variant("numba-channel-blocks", numba_kernels.sosfilt, _NUMBA, _real_coefficients),
        Variant("scipy-threads", scipy_kernels.sosfilt, _SCIPY),
        Variant("scipy-one-thread", scipy_kernels.sosfilt_one_thread, _SCIPY),
    ],
    "lfilter": [
        Variant("numba-channel-blocks", numba_kernels.lfilter, _NUMBA, _real_coefficients),
        Variant("scipy-threads", scipy_kernels.lfilter, _SCIPY),
        Variant("scipy-one-thread", scipy_kernels.lfilter_one_thread, _SCIPY),
        Variant("numba-one-thread", numba_kernels.lfilter_one_thread, _NUMBA,
                _real_coefficients),
    ],
    "sosfiltfilt": [
        Variant("numba-channel-blocks", numba_kernels.sosfiltfilt, _NUMBA, _real_coefficients),
        Variant("scipy-threads", scipy_kernels.sosfiltfilt, _SCIPY),
        Variant("scipy-one-thread", scipy_kernels.sosfiltfilt_one_thread, _SCIPY),
    ],
    "filtfilt": [
        Variant("numba-channel-blocks", numba_kernels.filtfilt, _NUMBA, _real_coefficients),
        Variant("scipy-threads", scipy_kernels.filtfilt, _SCIPY),
        Variant("scipy-one-thread", scipy_kernels.filtfilt_one_thread, _SCIPY),
    ],
    "convolve": [
        Variant("numba-direct", numba_kernels.convolve_direct, _NUMBA, _is_direct),
        Variant("overlap-save-16", overlap_save.overlap_save_threads(16), _OVERLAP_SAVE, _is_fft),
        Variant("overlap-save-4", overlap_save.overlap_save_threads(4), _OVERLAP_SAVE, _is_fft),
        Variant("overlap-save-64", overlap_save.overlap_save_threads(64), _OVERLAP_SAVE, _is_fft),
        Variant("fft-whole", scipy_kernels.convolve_fft, _SCIPY, _is_fft),
        Variant("fft-overlap-add", scipy_kernels.convolve_overlap_add, _SCIPY, _is_fft),
    ],
}
