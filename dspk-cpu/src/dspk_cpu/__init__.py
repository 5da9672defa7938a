"""dspk's ``cpu`` runtime: numba kernels and scipy, multithreaded across channels.

Importing this package is cheap; :mod:`dspk_cpu.backend` loads the kernels
when dspk first uses the runtime.
"""
