"""An entry point named ``cpu`` that is not dspk-cpu's: it must never replace it."""

from dspk.plugin import RuntimeSpec, hookimpl


@hookimpl
def dspk_register_runtimes(register):
    register(RuntimeSpec("cpu", 1, False, "dspk_twin:nothing"))
