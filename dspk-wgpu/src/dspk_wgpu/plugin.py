"""Declares the ``wgpu`` runtime (named by the package's ``dspk.runtimes`` entry
point); imports nothing heavy."""

from dspk.plugin import RuntimeSpec, hookimpl


@hookimpl
def dspk_register_runtimes(register):
    """Declare ``wgpu``: below the vendor GPU runtimes, above cpu."""
    register(RuntimeSpec(name="wgpu", priority=200, is_gpu=True,
                         load="dspk_wgpu.backend:WgpuBackend"))
