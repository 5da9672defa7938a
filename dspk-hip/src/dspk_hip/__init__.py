"""The ``hip`` runtime of dspk: AMD GPUs through CuPy's ROCm build.

It shares everything but its probe with dspk-cuda: the ``.cu`` kernel
sources (hipRTC compiles them as they are, through the same
:mod:`dspk_cuda.sources`), the variant modules and the backend class. The
sources use no warp intrinsics and no fixed warp size, so they are correct
for 64-wide wavefronts; the backend reads the wavefront size from the
device. Importing the package imports no CuPy.
"""
