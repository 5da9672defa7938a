"""Declares the ``toy`` runtime between the GPU runtimes and cpu.

This module is imported whenever dspk lists its runtimes, so it imports only
:mod:`dspk.plugin`; NumPy and the kernels load with the backend, on first use.
"""

from dspk.plugin import RuntimeSpec, hookimpl


@hookimpl
def dspk_register_runtimes(register):
    register(RuntimeSpec(name="toy", priority=150, is_gpu=False,
                         load="dspk_toy.backend:ToyBackend"))
