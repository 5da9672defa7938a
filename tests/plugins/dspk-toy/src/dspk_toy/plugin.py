"""Declares the ``toy`` runtime between the GPU runtimes and cpu."""

from dspk.plugin import RuntimeSpec, hookimpl


@hookimpl
def dspk_register_runtimes(register):
    register(RuntimeSpec(name="toy", priority=150, is_gpu=False,
                         load="dspk_toy.backend:ToyBackend"))
