"""The CUDA kernel sources: their text, their template instances and their compiled modules.

Every ``kernels/<name>.cu`` is compiled with ``kernels/common.cuh`` prepended
(no ``#include``, so NVRTC and hipRTC see one self-contained text), once per
process and dtype, through :class:`cupy.RawModule` with the source's template
instances as name expressions; CuPy keeps compiled modules in its own disk
cache. The same table of instances serves the nvcc compile check of the
test suite, which needs no GPU. Importing this module imports no CuPy.
"""

from __future__ import annotations

import functools
from importlib import resources

import numpy as np

#: C type of each dtype a kernel is instantiated for.
C_TYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}

#: State sizes of the register-resident IIR filters (sosfilt: half as many sections).
IIR_CAPACITIES = (8, 32)

#: Register-tile widths of the common-reference median (largest group per thread).
MEDIAN_CAPACITIES = (64, 512)


def _iir(c_type: str) -> list[str]:
    return ([f"iir_blocks<{c_type}, {kind}, {capacity}>"
             for kind in (0, 1) for capacity in IIR_CAPACITIES]
            + [f"iir_carry_scan<{c_type}, {capacity}>" for capacity in IIR_CAPACITIES]
            + [f"iir_df2t_sequential<{c_type}>"])


def _fir(c_type: str) -> list[str]:
    return [f"convolve_direct<{c_type}>"]


def _framing(c_type: str) -> list[str]:
    return [f"frame_segments<{c_type}>", f"overlap_add<{c_type}>"]


def _upfirdn(c_type: str) -> list[str]:
    return [f"upfirdn_polyphase<{c_type}>"]


def _reference(c_type: str) -> list[str]:
    return ([f"median_reference<{c_type}, {capacity}>" for capacity in MEDIAN_CAPACITIES]
            + [f"neighbour_reference<{c_type}, {capacity}>" for capacity in MEDIAN_CAPACITIES])


def _peaks(c_type: str) -> list[str]:
    return [f"peak_mask<{c_type}>"]


#: Every kernel source and the template instances it is compiled with, per C type.
INSTANCES = {"iir": _iir, "fir": _fir, "framing": _framing, "upfirdn": _upfirdn,
             "reference": _reference, "peaks": _peaks}


@functools.cache
def _read(filename: str) -> str:
    return resources.files("dspk_cuda").joinpath("kernels", filename).read_text()


def text(name: str) -> str:
    """The compiled text of source ``name``: the common header, then ``kernels/<name>.cu``."""
    return _read("common.cuh") + "\n" + _read(f"{name}.cu")


def instance(name: str, dtype, template: str) -> str:
    """The name expression of kernel ``template`` (``{t}`` for the C type) of source ``name``.

    Examples
    --------
    >>> instance("fir", np.float32, "convolve_direct<{t}>")
    'convolve_direct<float>'
    """
    expression = template.format(t=C_TYPES[np.dtype(dtype)])
    if expression not in INSTANCES[name](C_TYPES[np.dtype(dtype)]):
        raise KeyError(f"{expression} is not compiled from {name}.cu")
    return expression


@functools.cache
def _module(name: str, c_type: str):
    import cupy

    return cupy.RawModule(code=text(name), options=("-std=c++14",),
                          name_expressions=INSTANCES[name](c_type))


def kernel(name: str, dtype, template: str):
    """The compiled kernel ``template`` of source ``name`` for ``dtype`` (compiles on first use).

    Parameters
    ----------
    name : str
        A key of :data:`INSTANCES`.
    dtype : dtype
        float32 or float64.
    template : str
        The kernel's name expression with ``{t}`` for the C type, such as
        ``"iir_blocks<{t}, 0, 8>"``.
    """
    expression = instance(name, dtype, template)
    return _module(name, C_TYPES[np.dtype(dtype)]).get_function(expression)


def compile_all() -> None:
    """Compile every source for every dtype (what ``autotune`` does ahead of timing)."""
    for name in INSTANCES:
        for c_type in C_TYPES.values():
            _module(name, c_type)
