"""The ``cuda`` runtime of dspk: NVIDIA GPUs through CuPy.

Kernels are CUDA C++ sources in ``kernels/`` (package data), compiled at
first use through :class:`cupy.RawModule` for float32 and float64
(:mod:`dspk_cuda.sources`); the FFT family goes through cuFFT and the
matrix products through cuBLAS. Importing the package imports no CuPy;
:mod:`dspk_cuda.backend` does, after the probe of :mod:`dspk_cuda.device`.
The hip runtime (dspk-hip) runs these same sources and variant modules.
"""
