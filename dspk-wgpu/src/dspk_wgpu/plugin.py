"""Declares the ``wgpu`` runtime; imports nothing heavy.

Not yet named by an entry point (see the package docstring).
"""

from dspk.plugin import RuntimeSpec, hookimpl


@hookimpl
def dspk_register_runtimes(register):
    """Declare ``wgpu``: below the vendor GPU runtimes, above cpu."""
    register(RuntimeSpec(name="wgpu", priority=200, is_gpu=True,
                         load="dspk_wgpu.backend:WgpuBackend"))
