"""The ``wgpu`` runtime of dspk: WGSL compute shaders on any GPU through wgpu-py.

Not registered yet: the package declares no ``dspk.runtimes`` entry point, so
installing it changes nothing for dspk users. It registers (through
:mod:`dspk_wgpu.plugin`, priority 200) once every kernel operation is
implemented, since the shared conformance suite then requires all of them.
Until then its backend is opened directly::

    from dspk_wgpu.backend import WgpuBackend
    backend = WgpuBackend()

See ``docs/wgpu.md`` for what exists, the adapter policy and the limits.
"""
