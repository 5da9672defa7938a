"""The catalogue of kernel operations: what the tuner needs to know of each.

For every operation a runtime may implement, this gives the parameter sets
tuned ahead of time and representative arguments (in the kernel calling
conventions of :mod:`dspk.plugin`) to time kernels on. Each family of
operations keeps its entries in its own module.
"""

import dataclasses
import os
import warnings
from collections.abc import Callable
from typing import Any

from dspk.operations import detection, filtering, multichannel, resampling, spectral
from dspk.operations.base import Operation, bucket, random_signal, time_axis
from dspk.plugin import API_VERSION, Backend, Variant
from dspk.registry import PluginWarning, registry

OPERATIONS: dict[str, Operation] = {
    op.name: op
    for family in (filtering, spectral, resampling, multichannel, detection)
    for op in family.OPERATIONS
}

#: The kernel operations each public function runs. A runtime that lacks one
#: of them does not run that function: the default choice passes over it, and
#: an explicit choice raises :class:`dspk.plugin.OperationNotImplemented`.
KERNELS_OF: dict[str, tuple[str, ...]] = {
    "sosfilt": ("sosfilt",),
    "lfilter": ("lfilter",),
    "sosfiltfilt": ("sosfiltfilt",),
    "filtfilt": ("filtfilt",),
    "filtfilt(method='gust')": ("lfilter",),
    "convolve": ("convolve",),
    "correlate": ("convolve",),
    "fftconvolve": ("convolve",),
    "oaconvolve": ("convolve",),
    "rfft": ("fft",),
    "irfft": ("fft",),
    "fft": ("fft",),
    "ifft": ("fft",),
    "hilbert": ("hilbert",),
    "detrend": ("detrend",),
    "welch": ("csd",),
    "csd": ("csd",),
    "periodogram": ("csd",),
    "stft": ("stft",),
    "spectrogram": ("stft",),
    "istft": ("istft",),
    "upfirdn": ("upfirdn",),
    "resample_poly": ("upfirdn",),
    "decimate(ftype='fir')": ("upfirdn",),
    "resample": ("resample",),
    "common_reference": ("common_reference",),
    "whiten": ("channel_mean", "channel_covariance", "median_of_squares",
               "apply_channel_matrix"),
    "phase_shift": ("phase_shift",),
    "common_reference(reference='single')": ("neighbour_reference",),
    "common_reference(reference='local')": ("neighbour_reference",),
    "interpolate_bad_channels": ("apply_channel_matrix",),
    "noise_levels": ("channel_median", "channel_mean_square", "channel_mean"),
    "detect_peaks": ("detect_peaks",),
}

_variants: dict[tuple[int, str], tuple[Backend, tuple[Variant, ...]]] = {}


def _api_version(backend: Backend) -> int:
    reg = registry()
    return reg.spec(backend.name).api_version if backend.name in reg.names() else API_VERSION


def _by_position(run: Callable[..., Any], names: tuple[str, ...]) -> Callable[..., Any]:
    """``run``, called by keyword, calls the kernel of a version-1 plugin by position."""
    return lambda **arguments: run(*(arguments[name] for name in names))
if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_variants.clear)  # a child may have fewer (threads)


def variants_of(backend: Backend, op: str) -> tuple[Variant, ...]:
    """The backend's variants of ``op`` that follow its calling convention's version.

    Built once per backend and operation (a backend's ``variants`` may build
    them anew on each call); a variant of another version is passed over
    with a :class:`dspk.registry.PluginWarning`. The kernels of a runtime
    declared for plugin API version 1 are called by position.

    Parameters
    ----------
    backend : dspk.plugin.Backend
        An open runtime's backend.
    op : str
        A kernel operation's name, such as ``"sosfilt"``.

    Returns
    -------
    tuple of dspk.plugin.Variant
        The variants kept.

    Examples
    --------
    >>> from dspk.registry import registry
    >>> [v.name for v in variants_of(registry().open("cpu"), "nosuch")]
    []
    """
    key = (id(backend), op)
    if key not in _variants:
        version = OPERATIONS[op].version if op in OPERATIONS else None
        by_position = op in OPERATIONS and _api_version(backend) == 1
        kept = []
        for variant in backend.variants(op):
            if version is None or variant.version == version:
                kept.append(dataclasses.replace(variant, run=_by_position(
                    variant.run, OPERATIONS[op].inputs)) if by_position else variant)
                continue
            warnings.warn(f"dspk: variant {variant.name!r} of {op} on runtime {backend.name!r} "
                          f"follows version {variant.version} of the operation's calling "
                          f"convention; this dspk speaks version {version}; it is passed over",
                          PluginWarning, stacklevel=2)
        _variants[key] = (backend, tuple(kept))
    return _variants[key][1]


def reference() -> str:
    """The kernel operations' calling conventions, as a Markdown page (the docs site's).

    Examples
    --------
    >>> print(reference().splitlines()[0])
    # Kernel operations
    """
    lines = ["# Kernel operations", "",
             "Generated from `dspk.operations.OPERATIONS`. A kernel is called by keyword with "
             "the names of its operation's signature and never writes its arguments; "
             "{class}`dspk.operations.Operation` says what the core has checked before.", ""]
    for op in OPERATIONS.values():
        inputs, results = ", ".join(op.inputs), ", ".join(op.results)
        lines += [f"## {op.name}", "", f"`run({inputs}) -> {results}` (version {op.version})",
                  "", op.description.replace("``", "`"), "",
                  "Public functions that run it: " + ", ".join(
                      f"`{name}`" for name, kernels in KERNELS_OF.items() if op.name in kernels),
                  ""]
    return "\n".join(lines)


__all__ = ["KERNELS_OF", "OPERATIONS", "Operation", "bucket", "random_signal", "reference",
           "time_axis", "variants_of"]
