"""The cpu runtime's variants of the multichannel operations.

``common_reference``: a numba bitwise selection per sample (default), numpy's
median/mean over blocks of samples, or over the whole array on the calling thread
(small arrays). ``neighbour_reference``: the same selection over each channel's own
neighbours (default), or numpy's median/mean over gathered neighbours. Whitening:
per-channel means (blocks on threads, or one reduction), the channel covariance
(float64 blocks; float32 blocks summed in float64; one product for float64), the
median of squares (a numba bracketing selection, or numpy's partition of a copy), and
the matrix product by blocks or as one product. ``phase_shift``: one batch of FFTs on all
threads, or one slice of channels per thread.
"""

from dspk.plugin import Problem, Variant, package_source_hash
from dspk_cpu.multichannel import bitwise_select, blocks, bracket_select, neighbours, phase

_BITWISE = package_source_hash(bitwise_select)
_BLOCKS = package_source_hash(blocks)
_BRACKET = package_source_hash(bracket_select)
_PHASE = package_source_hash(phase)
_NEIGHBOURS = package_source_hash(neighbours)


def _is_float32(problem: Problem) -> bool:
    return problem.dtype == "float32"


def _is_float64(problem: Problem) -> bool:
    return problem.dtype == "float64"


VARIANTS = {
    "common_reference": [
        Variant("numba-bitwise-select", bitwise_select.common_reference, _BITWISE),
        Variant("numpy-blocks", blocks.common_reference, _BLOCKS),
        Variant("numpy-whole", blocks.common_reference_whole, _BLOCKS),
    ],
    "neighbour_reference": [
        Variant("numba-bitwise-select", neighbours.neighbour_reference, _NEIGHBOURS),
        Variant("numpy-blocks", neighbours.neighbour_reference_blocks, _NEIGHBOURS),
    ],
    "channel_mean": [
        Variant("numpy-blocks", blocks.channel_mean_blocks, _BLOCKS),
        Variant("numpy-whole", blocks.channel_mean_whole, _BLOCKS),
    ],
    "channel_covariance": [
        Variant("blas-float64-blocks", blocks.covariance_float64, _BLOCKS),
        Variant("blas-native-blocks", blocks.covariance_native, _BLOCKS, _is_float32),
        Variant("blas-whole", blocks.covariance_whole, _BLOCKS, _is_float64),
    ],
    "median_of_squares": [
        Variant("numba-bracket-select", bracket_select.median_of_squares, _BRACKET),
        Variant("numpy-partition", blocks.median_of_squares_partition, _BLOCKS),
    ],
    "apply_channel_matrix": [
        Variant("blas-blocks", blocks.apply_blocks, _BLOCKS),
        Variant("blas-whole", blocks.apply_whole, _BLOCKS),
    ],
    "phase_shift": [
        Variant("fft-whole", phase.phase_shift_whole, _PHASE),
        Variant("fft-channel-slices", phase.phase_shift_channel_slices, _PHASE),
    ],
}
