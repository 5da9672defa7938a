"""The cpu runtime's variants of the resampling operations."""

from dspk.plugin import Variant, source_hash

from dspk_cpu import resampling_polyphase, resampling_scipy, scipy_kernels

_POLYPHASE = source_hash(resampling_polyphase)
_SCIPY = source_hash(resampling_scipy, scipy_kernels)

VARIANTS = {
    "upfirdn": [
        Variant("numba-polyphase", resampling_polyphase.upfirdn, _POLYPHASE),
        Variant("scipy-threads", resampling_scipy.upfirdn, _SCIPY),
    ],
    "resample": [
        Variant("fft-whole", resampling_scipy.resample_whole, _SCIPY),
        Variant("fft-channel-slices", resampling_scipy.resample_slices, _SCIPY),
    ],
}
