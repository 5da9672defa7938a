"""Signal extension (dspk.extension) on arrays that cannot gather: from their edges on the host."""

import numpy as np
import pytest

from dspk import extension


class NoGather:
    """A 2-D array with slicing and ``__array__`` but no ``take`` or arithmetic,
    as the wgpu runtime's arrays."""

    def __init__(self, array):
        self.array = array
        self.shape = array.shape
        self.dtype = array.dtype

    def __getitem__(self, index):
        return NoGather(self.array[index])

    def __array__(self, dtype=None, copy=None):
        return self.array


@pytest.mark.pairwise
@pytest.mark.parametrize("mode", [m for m in extension.MODES if m != "constant"])
@pytest.mark.parametrize("samples, size", [(50, 7), (9, 7), (3, 12), (2, 1)])
@pytest.mark.parametrize("axis", [1, 0])
def test_edges_on_the_host_give_the_gathered_extension(mode, samples, size, axis, rng):
    x = rng.standard_normal((3, samples) if axis == 1 else (samples, 3))
    want = extension.extend(x, axis, mode, 0.0, size, np.asarray)
    got = extension.extend(NoGather(x), axis, mode, 0.0, size, np.asarray)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
