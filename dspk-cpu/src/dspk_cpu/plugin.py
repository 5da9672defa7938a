"""Registers the ``cpu`` runtime; imports nothing heavy."""

from dspk.plugin import RuntimeSpec, hookimpl


@hookimpl
def dspk_register_runtimes(register):
    """Declare ``cpu``, the runtime of last resort."""
    register(RuntimeSpec(name="cpu", priority=100, is_gpu=False,
                         load="dspk_cpu.backend:CpuBackend"))
