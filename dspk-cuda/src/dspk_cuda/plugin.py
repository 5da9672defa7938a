"""Registers the ``cuda`` runtime; imports nothing heavy (CuPy is imported when it is opened)."""

from dspk.plugin import RuntimeSpec, hookimpl


@hookimpl
def dspk_register_runtimes(register):
    """Declare ``cuda``, first in line when an NVIDIA GPU and CuPy are present."""
    register(RuntimeSpec(name="cuda", priority=400, is_gpu=True,
                         load="dspk_cuda.backend:CudaBackend"))
