"""The ``wgpu`` runtime of dspk: WGSL compute shaders on any GPU through wgpu-py.

Installing the package registers the runtime (entry point ``dspk.runtimes``,
:mod:`dspk_wgpu.plugin`, priority 200: below CUDA and HIP, above cpu). Every
kernel operation runs as compute shaders kept in ``shaders/*.wgsl``, on
float32 and complex64 data, and on float64 and complex128 data where the
adapter offers 64-bit floats in shaders (``shader-f64``). See ``docs/wgpu.md``
for the kernels, the adapter policy and the limits.
"""
