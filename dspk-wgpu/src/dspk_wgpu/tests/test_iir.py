"""The wgpu runtime's lfilter, sosfiltfilt and filtfilt kernels, every variant called directly.

References are scipy.signal in float64 on random signals; the measure is the
relative L2 error against :data:`dspk.testing.TOLERANCE` for float32 (1e-4).
Inputs follow the kernel conventions of :mod:`dspk.plugin` (``b`` and ``a`` of
one length, ``a[0] == 1``). The ``wgpu_backend`` fixture poisons outputs with
NaN, so an element a shader failed to write fails the test.
"""

import numpy as np
import pytest
from scipy import signal

from dspk.plugin import Problem
from dspk.testing import TOLERANCE, assert_variants_agree, rel_l2

pytest.importorskip("wgpu", reason="wgpu-py is not installed")

TOL = TOLERANCE[np.float32]

BA_DESIGNS = {
    "order1": signal.butter(1, 0.3),
    "order2-highpass": signal.butter(2, 0.2, "highpass"),
    "order3-cheby1": signal.cheby1(3, 1, 0.3),
    "order6-bandpass": signal.butter(3, [0.1, 0.4], "bandpass"),
    "order8": signal.butter(8, 0.35),
    "fir-21-taps": (signal.firwin(21, 0.3), np.array([1.0])),
    "b-shorter-than-a": (np.array([0.2, 0.1]), np.array([1.0, -0.6, 0.25, -0.05])),
    "gain-only": (np.array([0.7]), np.array([1.0])),
}

# (channels, samples, time axis)
SHAPES = [(1, 1, 1), (3, 777, 1), (3, 777, 0), (2, 9001, 1), (2, 9001, 0)]

BANDPASS3 = signal.butter(3, [0.02, 0.4], "bandpass", output="sos")


@pytest.fixture
def backend(wgpu_backend):
    return wgpu_backend


def _names(op):
    from dspk_wgpu import filtfilt, iir
    table = {**iir.VARIANTS, **filtfilt.VARIANTS}
    return [pytest.param(v.name, id=v.name) for v in table[op]]


def _variant(backend, op, name):
    return next(v for v in backend.variants(op) if v.name == name).run


def _kernel_ba(b, a):
    """``b, a`` as the core hands them to kernels: one length, float32."""
    size = max(len(b), len(a))
    return tuple(np.pad(np.asarray(v, np.float64) / a[0], (0, size - len(v))).astype(np.float32)
                 for v in (b, a))


def _signal(rng, channels, samples, axis):
    x = rng.standard_normal((channels, samples)).astype(np.float32)
    return x if axis == 1 else np.ascontiguousarray(x.T)


def _device(backend, *arrays):
    return [None if a is None else backend.asarray(a) for a in arrays]


# -- lfilter ------------------------------------------------------------------

def _check_lfilter(backend, variant, b, a, host, x, axis, zi):
    """Run lfilter on device view ``x`` (values ``host``) and compare y and zf with scipy."""
    kb, ka = _kernel_ba(b, a)
    y, zf = _variant(backend, "lfilter", variant)(*_device(backend, kb, ka), x, axis,
                                                  None if zi is None else backend.asarray(zi))
    rows = (host if axis == 1 else host.T).astype(np.float64)
    expected = signal.lfilter(kb.astype(np.float64), ka.astype(np.float64), rows,
                              zi=None if zi is None else zi.astype(np.float64))
    if zi is None:
        assert zf is None
    else:
        expected, expected_zf = expected
        assert zf.shape == zi.shape
        if zi.size:
            assert rel_l2(np.asarray(zf), expected_zf) <= TOL
    y = np.asarray(y)
    assert y.shape == host.shape
    assert rel_l2(y if axis == 1 else y.T, expected) <= TOL


@pytest.mark.pairwise
@pytest.mark.parametrize("variant", _names("lfilter"))
@pytest.mark.parametrize("design", list(BA_DESIGNS))
@pytest.mark.parametrize("channels, samples, axis", SHAPES)
@pytest.mark.parametrize("with_zi", [False, True])
def test_lfilter_matches_scipy(backend, rng, variant, design, channels, samples, axis, with_zi):
    b, a = BA_DESIGNS[design]
    host = _signal(rng, channels, samples, axis)
    order = max(len(a), len(b)) - 1
    zi = rng.standard_normal((channels, order)).astype(np.float32) if with_zi else None
    _check_lfilter(backend, variant, b, a, host, backend.asarray(host), axis, zi)


@pytest.mark.parametrize("variant", _names("lfilter"))
def test_lfilter_strided_views(backend, rng, variant):
    """Every other sample of a transposed view with an offset, and a transposed zi."""
    b, a = BA_DESIGNS["order6-bandpass"]
    base = rng.standard_normal((1201, 5)).astype(np.float32)
    x = backend.asarray(base).T[1:, 3::2]
    host = base.T[1:, 3::2]
    zi_base = rng.standard_normal((6, 4)).astype(np.float32)
    y, zf = _variant(backend, "lfilter", variant)(*_device(backend, *_kernel_ba(b, a)), x, 1,
                                                  backend.asarray(zi_base).T)
    expected, expected_zf = signal.lfilter(b, a, host.astype(np.float64), zi=zi_base.T)
    assert rel_l2(np.asarray(y), expected) <= TOL
    assert rel_l2(np.asarray(zf), expected_zf) <= TOL


@pytest.mark.parametrize("variant", _names("lfilter"))
def test_lfilter_past_the_loop_limit(backend, rng, variant):
    """Longer than llvmpipe's ~65,535-iteration loop cut-off, with a state to carry out."""
    b, a = BA_DESIGNS["order8"]
    host = rng.standard_normal((1, 70001)).astype(np.float32)
    zi = rng.standard_normal((1, 8)).astype(np.float32)
    _check_lfilter(backend, variant, b, a, host, backend.asarray(host), 1, zi)


def test_orders_beyond_one_shader_are_declined(backend):
    from dspk_wgpu.iir import MAX_SECTIONS, MAX_STATE, Cascade
    for op, key, fits, refused in [("lfilter", "order", MAX_STATE, 2 * MAX_STATE),
                                   ("filtfilt", "order", MAX_STATE, 2 * MAX_STATE),
                                   ("sosfiltfilt", "sections", MAX_SECTIONS, 2 * MAX_SECTIONS)]:
        for value, supported in [(fits, True), (refused, False)]:
            problem = Problem.make(op, "float32", 2, 4096, "channel-major", **{key: value})
            assert all(v.supports(problem) is supported for v in backend.variants(op)), op
    rows = backend.asarray(np.zeros((1, 2 * (MAX_STATE + 2)), np.float32))
    with pytest.raises(ValueError, match="exceed"):
        Cascade(rows, MAX_STATE + 1)


def test_time_parallel_launches_set_blocks_and_workgroups(backend):
    """Each launch's blocks (doubled for a slow filter until its transition is small
    enough) and channels per workgroup reach the dispatches."""
    from dspk_wgpu.iir import (
        TIME_PARALLEL,
        TRANSITION_LIMIT,
        Cascade,
        Pass,
        scan_block_len,
        time_parallel,
    )

    def size(transition):
        return np.abs(transition).sum(axis=1).max()

    fast = Cascade(backend.asarray(signal.butter(2, 0.3, output="sos").astype(np.float32)), 2)
    dtype = np.float64 if backend.gpu.f64 else np.float32
    slow = Cascade(backend.asarray(signal.butter(2, 1.0, "highpass", fs=1000.0,
                                                 output="sos").astype(dtype)), 2)
    buffer = (backend.gpu.zeros(16), 0, 1, 1)
    for launch in TIME_PARALLEL:
        schedule = time_parallel(fast, Pass(100, 5000, buffer, buffer), launch)
        grids = {d.grid for d in schedule.dispatches if d.pipeline == "sos_blocks"}
        blocks = -(-5000 // launch.block_len)
        assert grids == {(-(-100 // launch.workgroup), blocks - 1, 1),
                         (-(-100 // launch.workgroup), blocks, 1)}
        assert {d.constants for d in schedule.dispatches} == {launch.constants}
        length = scan_block_len(slow, 10**6, launch.block_len)
        assert length > launch.block_len and size(slow.transition(length)) <= TRANSITION_LIMIT
        assert size(slow.transition(length // 2)) > TRANSITION_LIMIT


# -- sosfiltfilt and filtfilt ------------------------------------------------------

# (padtype, padlen); "max" is the longest padlen the core allows, samples - 1.
PADDINGS = [("odd", 1), ("odd", 27), ("even", 27), ("even", "max"), ("constant", 27),
            ("constant", "max"), (None, 0)]


def _padlen(padlen, samples):
    return samples - 1 if padlen == "max" else padlen


@pytest.mark.pairwise
@pytest.mark.parametrize("variant", _names("sosfiltfilt"))
@pytest.mark.parametrize("channels, samples, axis", [(3, 777, 1), (3, 777, 0), (2, 9001, 1),
                                                      (2, 9001, 0)])
@pytest.mark.parametrize("padtype, padlen", PADDINGS)
def test_sosfiltfilt_matches_scipy(backend, rng, variant, channels, samples, axis, padtype,
                                   padlen):
    padlen = _padlen(padlen, samples)
    host = _signal(rng, channels, samples, axis)
    zi = signal.sosfilt_zi(BANDPASS3).astype(np.float32)
    y = _variant(backend, "sosfiltfilt", variant)(
        *_device(backend, BANDPASS3.astype(np.float32), host), axis, padtype, padlen,
        backend.asarray(zi))
    expected = signal.sosfiltfilt(BANDPASS3, host.astype(np.float64), axis=axis,
                                  padtype=padtype, padlen=padlen)
    y = np.asarray(y)
    assert y.shape == host.shape
    assert rel_l2(y, expected) <= TOL


def _check_filtfilt(backend, variant, b, a, host, x, axis, padtype, padlen):
    kb, ka = _kernel_ba(b, a)
    zi = signal.lfilter_zi(kb, ka).astype(np.float32)
    y = _variant(backend, "filtfilt", variant)(*_device(backend, kb, ka), x, axis, padtype,
                                               padlen, backend.asarray(zi))
    expected = signal.filtfilt(kb.astype(np.float64), ka.astype(np.float64),
                               host.astype(np.float64), axis=axis, padtype=padtype,
                               padlen=padlen)
    y = np.asarray(y)
    assert y.shape == host.shape
    assert rel_l2(y, expected) <= TOL


@pytest.mark.pairwise
@pytest.mark.parametrize("variant", _names("filtfilt"))
@pytest.mark.parametrize("design", ["order3-cheby1", "order8", "fir-21-taps",
                                    "b-shorter-than-a"])
@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("padtype, padlen", PADDINGS)
def test_filtfilt_matches_scipy(backend, rng, variant, design, axis, padtype, padlen):
    b, a = BA_DESIGNS[design]
    host = _signal(rng, 3, 777, axis)
    _check_filtfilt(backend, variant, b, a, host, backend.asarray(host), axis, padtype,
                    _padlen(padlen, 777))


@pytest.mark.parametrize("op", ["sosfiltfilt", "filtfilt"])
@pytest.mark.parametrize("variant", _names("filtfilt"))
def test_zero_phase_strided_view(backend, rng, op, variant):
    """Input as every third sample of a transposed view with an offset."""
    base = rng.standard_normal((2000, 4)).astype(np.float32)
    x = backend.asarray(base).T[1:, 5::3]
    host = base.T[1:, 5::3]
    if op == "filtfilt":
        b, a = BA_DESIGNS["order6-bandpass"]
        _check_filtfilt(backend, variant, b, a, host, x, 1, "odd", 40)
        return
    zi = backend.asarray(signal.sosfilt_zi(BANDPASS3).astype(np.float32))
    y = _variant(backend, op, variant)(backend.asarray(BANDPASS3.astype(np.float32)), x, 1,
                                       "even", 40, zi)
    expected = signal.sosfiltfilt(BANDPASS3, host.astype(np.float64), padtype="even", padlen=40)
    assert rel_l2(np.asarray(y), expected) <= TOL


@pytest.mark.parametrize("variant", _names("filtfilt"))
def test_filtfilt_past_the_loop_limit(backend, rng, variant):
    """Both passes longer than llvmpipe's loop cut-off, in one channel."""
    b, a = BA_DESIGNS["order3-cheby1"]
    host = rng.standard_normal((1, 70001)).astype(np.float32)
    _check_filtfilt(backend, variant, b, a, host, backend.asarray(host), 1, "odd", 12)


@pytest.mark.parametrize("op", ["lfilter", "sosfiltfilt", "filtfilt"])
def test_every_variant_is_prepared_and_agrees(backend, op):
    """What the tuner does first: prepare each variant; each then gives one result."""
    from dspk.operations import OPERATIONS
    params = OPERATIONS[op].grid_params[0]
    problem = Problem.make(op, "float32", 2, 4096, "sample-major", **params)
    assert_variants_agree(backend, op, problem)
