"""The hip runtime's backend: dspk-cuda's backend opened on a ROCm build of CuPy."""

from dspk_cuda.backend import CupyBackend


class HipBackend(CupyBackend):
    """AMD GPUs through a ROCm build of CuPy; refuses a CUDA build."""

    name = "hip"
    platform = "hip"
    distribution = "dspk-hip"
