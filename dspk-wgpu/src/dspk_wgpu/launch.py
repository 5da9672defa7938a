"""Launch parameters the tuner chooses between: workgroup size and block length.

A kernel whose speed depends on how it launches its shaders takes a
:class:`Launch` as its last argument, and each launch worth trying becomes a
variant of its own (:func:`tuned_variants`), named after its parameters, such
as ``wgsl-time-parallel-b256-w64``. The tuner then times them like any other
variants, per adapter (the tuning cache's fingerprint) and problem size.

The workgroup size reaches the shaders as the pipeline-overridable constant
``WORKGROUP`` (``override WORKGROUP: u32;`` in each such shader, which may size
its workgroup arrays from it), so each size is one pipeline, compiled once per
process (:meth:`dspk_wgpu.gpu.Gpu.pipeline`). A launch that does not fit the
device, with more invocations or more workgroup memory than its limits allow,
is refused by its variant's ``supports`` (:func:`on_device`), never run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dspk.plugin import Problem, Variant
from dspk_wgpu.gpu import REAL_BYTES, precision


@dataclass(frozen=True)
class Launch:
    """How a kernel launches its shaders.

    Parameters
    ----------
    workgroup : int
        Invocations per workgroup, along x (the shaders' ``WORKGROUP``).
    block_len : int, optional
        Samples per block, for kernels that cut signals into blocks.
    shared : int
        Real numbers of workgroup memory one workgroup holds.

    Examples
    --------
    >>> Launch(64, 256).name, Launch(128).constants
    ('b256-w64', (('WORKGROUP', 128),))
    """

    workgroup: int
    block_len: int | None = None
    shared: int = 0

    @property
    def name(self) -> str:
        """The parameters as a variant name's suffix: ``b<block_len>-w<workgroup>``."""
        block = "" if self.block_len is None else f"b{self.block_len}-"
        return f"{block}w{self.workgroup}"

    @property
    def constants(self) -> tuple[tuple[str, int], ...]:
        """The pipeline-overridable constants of the kernel's shaders."""
        return (("WORKGROUP", self.workgroup),)

    def fits(self, limits: Mapping[str, int], real: str) -> bool:
        """Whether a device with ``limits`` runs this launch in precision ``real``.

        Examples
        --------
        >>> limits = {"max-compute-invocations-per-workgroup": 256,
        ...           "max-compute-workgroup-size-x": 256,
        ...           "max-compute-workgroup-storage-size": 16384}
        >>> Launch(256, shared=768).fits(limits, "f32"), Launch(512).fits(limits, "f32")
        (True, False)
        >>> Launch(256, shared=3072).fits(limits, "f64")
        False
        """
        return (self.workgroup <= limits["max-compute-invocations-per-workgroup"]
                and self.workgroup <= limits["max-compute-workgroup-size-x"]
                and self.shared * REAL_BYTES[real] <= limits["max-compute-workgroup-storage-size"])


@dataclass(frozen=True)
class Launched:
    """A kernel with its launch fixed: the ``run`` of one tuned variant.

    Parameters
    ----------
    kernel : callable
        Follows its operation's calling convention, with a :class:`Launch` as
        its last argument, ``launch``.
    launch : Launch
    """

    kernel: Callable[..., Any]
    launch: Launch

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.kernel(*args, **kwargs, launch=self.launch)


def tuned_variants(name: str, kernel: Callable[..., Any], source: str,
                   launches: Sequence[Launch],
                   supports: Callable[[Problem], bool] | None = None) -> list[Variant]:
    """One variant of ``kernel`` per launch, named ``<name>-<launch name>``, in the
    order of ``launches`` (the first is the default where it comes first).

    ``supports`` is the problems ``kernel`` takes on any device; :func:`on_device`
    adds the device's limits.
    """
    extra = {} if supports is None else {"supports": supports}
    return [Variant(f"{name}-{launch.name}", Launched(kernel, launch), source, **extra)
            for launch in launches]


def on_device(variant: Variant, limits: Mapping[str, int]) -> Variant:
    """``variant`` as a device with ``limits`` offers it: a tuned variant supports no
    problem in a precision its launch does not fit them in; other variants are returned
    as they are.
    """
    if not isinstance(variant.run, Launched):
        return variant
    launch, supports = variant.run.launch, variant.supports

    def fitting(problem: Problem) -> bool:
        return launch.fits(limits, precision(problem.dtype)) and supports(problem)

    return dataclasses.replace(variant, supports=fitting)
