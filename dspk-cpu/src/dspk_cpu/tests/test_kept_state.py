"""The cpu runtime's kept filters (``CpuBackend.causal_filter``): chunk after chunk,
the state carried in each kernel's own layout, against scipy over the whole signal."""

import itertools

import numpy as np
import pytest
from scipy import signal

from dspk.plugin import waiting_for_kernels
from dspk_cpu.backend import CpuBackend

SOS = signal.butter(4, [0.05, 0.3], "bandpass", output="sos")
B, A = signal.cheby1(3, 1, 0.2)
TOLERANCE = {np.float32: 1e-5, np.float64: 1e-12}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("op", ["sosfilt", "lfilter"])
@pytest.mark.parametrize("variant", ["numba-channel-blocks", "numba-one-thread",
                                     "scipy-one-thread", "scipy-threads"])
@pytest.mark.parametrize("channels", [1, 3, 20])
def test_a_kept_filter_is_the_operation_over_the_whole_signal(variant, op, axis, dtype,
                                                                channels):
    rng = np.random.default_rng(channels)
    x = rng.standard_normal((channels, 700))
    coefficients = (SOS,) if op == "sosfilt" else (B, A)
    zi = (rng.standard_normal((len(SOS), channels, 2)) if op == "sosfilt"
          else rng.standard_normal((channels, len(A) - 1)))
    kept = CpuBackend().causal_filter(op, tuple(c.astype(dtype) for c in coefficients),
                                      zi.astype(dtype), variant)
    parts = []
    with waiting_for_kernels():
        for start, stop in itertools.pairwise([0, 1, 2, 30, 31, 400, 700]):
            chunk = x[:, start:stop].astype(dtype)
            parts.append(kept(chunk if axis == 1 else np.ascontiguousarray(chunk.T), axis))
    y = np.concatenate(parts, axis=axis)
    want, zf = getattr(signal, op)(*coefficients, x, -1, zi)
    y = y if axis == 1 else y.T
    assert y.dtype == dtype
    assert np.linalg.norm(y - want) <= TOLERANCE[dtype] * np.linalg.norm(want)
    assert np.linalg.norm(kept.zf() - zf) <= TOLERANCE[dtype] * np.linalg.norm(zf)


def test_a_gain_or_a_variant_without_a_kept_filter_has_none():
    backend = CpuBackend()
    assert backend.causal_filter("lfilter", (np.ones(1), np.ones(1)), np.zeros((2, 0)),
                                 "numba-channel-blocks") is None
    assert backend.causal_filter("sosfilt", (SOS,), np.zeros((len(SOS), 2, 2)),
                                 "a-variant-of-another-kind") is None
    assert backend.causal_filter("sosfilt", (SOS.astype(np.complex128),),
                                 np.zeros((len(SOS), 2, 2), np.complex128),
                                 "scipy-one-thread") is None
