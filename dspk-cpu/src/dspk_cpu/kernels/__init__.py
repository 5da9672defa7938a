"""Numba CPU kernels: IIR filters (:mod:`.iir`) and direct convolution (:mod:`.fir`),
on channel blocks (:mod:`.channel_blocks`) and tile intrinsics (:mod:`.tiles`)."""
