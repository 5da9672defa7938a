"""The catalogue of kernel operations: what the tuner needs to know of each.

For every operation a runtime may implement, this gives the parameter sets
tuned ahead of time and representative arguments (in the kernel calling
conventions of :mod:`dspk.plugin`) to time kernels on. Each family of
operations keeps its entries in its own module.
"""

from dspk.operations import filtering, multichannel, resampling, spectral
from dspk.operations.base import Operation, bucket, random_signal, time_axis

OPERATIONS: dict[str, Operation] = {
    op.name: op
    for family in (filtering, spectral, resampling, multichannel)
    for op in family.OPERATIONS
}

__all__ = ["OPERATIONS", "Operation", "bucket", "random_signal", "time_axis"]
