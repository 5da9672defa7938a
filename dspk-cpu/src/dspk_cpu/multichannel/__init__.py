"""The cpu runtime's variants of the multichannel operations.

``common_reference``: a numba bitwise selection per sample (default) or numpy's
median/mean over blocks of samples. Whitening: per-channel means (blocks on
threads, or one reduction), the channel covariance (float64 blocks; float32
blocks summed in float64; one product for float64), the median of squares (a
numba bracketing selection, or numpy's partition of a copy), and the matrix product
by blocks or as one product. ``phase_shift``: one batch of FFTs on all
threads, or one slice of channels per thread.
"""

from dspk.plugin import Problem, Variant, source_hash

from dspk_cpu import (
    multichannel_blocks,
    multichannel_median,
    multichannel_phase,
    multichannel_reference,
    multichannel_select,
    multichannel_whitening,
)


def _is_float32(problem: Problem) -> bool:
    return problem.dtype == "float32"


def _is_float64(problem: Problem) -> bool:
    return problem.dtype == "float64"


_SELECT = source_hash(multichannel_select, multichannel_blocks)
_REFERENCE = source_hash(multichannel_reference, multichannel_blocks)
_WHITENING = source_hash(multichannel_whitening, multichannel_blocks)
_MEDIAN = source_hash(multichannel_median)
_PHASE = source_hash(multichannel_phase, multichannel_blocks)

VARIANTS = {
    "common_reference": [
        Variant("numba-bitwise-select", multichannel_select.common_reference, _SELECT),
        Variant("numpy-blocks", multichannel_reference.common_reference, _REFERENCE),
    ],
    "channel_mean": [
        Variant("numpy-blocks", multichannel_whitening.channel_mean_blocks, _WHITENING),
        Variant("numpy-whole", multichannel_whitening.channel_mean_whole, _WHITENING),
    ],
    "channel_covariance": [
        Variant("blas-float64-blocks", multichannel_whitening.covariance_float64, _WHITENING),
        Variant("blas-native-blocks", multichannel_whitening.covariance_native, _WHITENING,
                _is_float32),
        Variant("blas-whole", multichannel_whitening.covariance_whole, _WHITENING, _is_float64),
    ],
    "median_of_squares": [
        Variant("numba-bracket-select", multichannel_median.median_of_squares, _MEDIAN),
        Variant("numpy-partition", multichannel_whitening.median_of_squares_partition,
                _WHITENING),
    ],
    "apply_channel_matrix": [
        Variant("blas-blocks", multichannel_whitening.apply_blocks, _WHITENING),
        Variant("blas-whole", multichannel_whitening.apply_whole, _WHITENING),
    ],
    "phase_shift": [
        Variant("fft-whole", multichannel_phase.phase_shift_whole, _PHASE),
        Variant("fft-channel-slices", multichannel_phase.phase_shift_channel_slices, _PHASE),
    ],
}
