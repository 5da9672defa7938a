"""Registers the ``hip`` runtime; imports nothing heavy (CuPy is imported when it is opened)."""

from dspk.plugin import RuntimeSpec, hookimpl


@hookimpl
def dspk_register_runtimes(register):
    """Declare ``hip``, after cuda and before wgpu."""
    register(RuntimeSpec(name="hip", priority=300, is_gpu=True,
                         load="dspk_hip.backend:HipBackend"))
