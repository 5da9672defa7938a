"""Numba CPU kernels: IIR filters (:mod:`.iir`) and direct convolution (:mod:`.fir`)."""
