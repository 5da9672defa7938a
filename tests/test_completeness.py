"""dspk's own runtimes implement every operation of the kernel catalogue.

A third-party runtime may implement a few (the conformance suite skips the
rest); a runtime distributed from this repository may not.
"""

import pytest

import dspk
from dspk.operations import OPERATIONS
from dspk.testing import open_backend

#: The runtimes distributed from this repository.
OWN_RUNTIMES = ["cpu", "cuda", "hip", "wgpu"]


@pytest.mark.parametrize("runtime", [r for r in OWN_RUNTIMES if r in dspk.runtime.available()])
def test_own_runtime_implements_every_operation(runtime):
    backend = open_backend(runtime)
    missing = [op for op in OPERATIONS if not backend.variants(op)]
    assert not missing, f"runtime {runtime!r} does not implement {', '.join(missing)}"
