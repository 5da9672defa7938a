"""The cpu runtime's variants of the resampling operations."""

from dspk.plugin import Variant, package_source_hash
from dspk_cpu.resampling import polyphase, scipy_kernels

_POLYPHASE = package_source_hash(polyphase)
_SCIPY = package_source_hash(scipy_kernels)

VARIANTS = {
    "upfirdn": [
        Variant("numba-polyphase", polyphase.upfirdn, _POLYPHASE),
        Variant("scipy-threads", scipy_kernels.upfirdn, _SCIPY),
    ],
    "resample": [
        Variant("fft-whole", scipy_kernels.resample_whole, _SCIPY),
        Variant("fft-channel-slices", scipy_kernels.resample_slices, _SCIPY),
    ],
}
