"""The wgpu runtime's own pieces on whatever adapter is here (lavapipe in CI).

The backend comes from the ``wgpu_backend`` fixture (conftest.py here), with
every kernel output buffer poisoned with NaN first, so an element a shader
failed to write fails the test.
"""

import numpy as np
import pytest
from scipy import signal

from dspk.plugin import DeviceUnavailable, Problem
from dspk.testing import TOLERANCE, assert_variants_agree, rel_l2

pytest.importorskip("wgpu", reason="wgpu-py is not installed")

TOL = TOLERANCE[np.float32]


@pytest.fixture
def backend(wgpu_backend):
    return wgpu_backend


def _signal(rng, channels, samples, axis):
    x = rng.standard_normal((channels, samples)).astype(np.float32)
    return x if axis == 1 else np.ascontiguousarray(x.T)


# -- the probe --------------------------------------------------------------

def test_software_adapter_refused_unless_asked(backend, monkeypatch):
    from dspk_wgpu.adapter import is_software, select_adapter
    if not is_software(backend.gpu.adapter):
        pytest.skip("the adapter here is a real GPU")
    monkeypatch.delenv("DSPK_WGPU_ALLOW_CPU", raising=False)
    monkeypatch.delenv("DSPK_WGPU_ADAPTER", raising=False)
    with pytest.raises(DeviceUnavailable, match="software .CPU. adapter.*DSPK_WGPU_ALLOW_CPU"):
        select_adapter()
    monkeypatch.setenv("DSPK_WGPU_ADAPTER", backend.gpu.adapter.info["device"][:8])
    assert is_software(select_adapter())


def test_adapter_name_that_matches_nothing(monkeypatch):
    from dspk_wgpu.adapter import select_adapter
    monkeypatch.setenv("DSPK_WGPU_ADAPTER", "no-such-gpu-anywhere")
    with pytest.raises(DeviceUnavailable, match="matches no adapter"):
        select_adapter()


def test_fingerprint_and_device(backend):
    print_ = backend.fingerprint()
    assert {"vendor", "device", "backend", "driver", "wgpu-py"} <= set(print_)
    assert all(isinstance(v, str) for v in print_.values())
    assert print_["backend"] in backend.device()


def test_timer_waits_for_the_device(backend):
    x = backend.asarray(np.ones((2, 64), np.float32))
    h = backend.asarray(np.ones((1, 3), np.float32))
    run = backend.variants("convolve")[0].run
    seconds = backend.time(lambda: run(x, h, 1), repeat=2)
    assert len(seconds) == 2 and all(s > 0 for s in seconds)


def _timestamped_convolve(backend):
    """A call that runs one small convolution, where the adapter has timestamp queries."""
    if not backend.gpu.timestamps:
        pytest.skip("this adapter has no timestamp queries")
    x = backend.asarray(np.ones((4, 4096), np.float32))
    h = backend.asarray(np.ones((1, 64), np.float32))
    run = backend.variants("convolve")[0].run
    return lambda: run(x, h, 1)


def test_timestamps_measure_device_time(backend):
    convolve = _timestamped_convolve(backend)
    one, two = (backend.gpu.timed(lambda k=k: [convolve() for _ in range(k)])
                for k in (1, 2))
    assert 0 < one < 10 and 0 < two < 10
    assert backend.gpu._stamps() is None


def test_timing_in_one_thread_leaves_other_threads_untimed(backend):
    """Dask runs calls in threads: a thread timing its passes sees only its own."""
    import threading
    convolve = _timestamped_convolve(backend)
    seen = []

    def other():
        seen.append(backend.gpu._stamps())
        convolve()

    def timed_call():
        worker = threading.Thread(target=other)
        worker.start()
        worker.join()
        convolve()

    assert 0 < backend.gpu.timed(timed_call) < 10
    assert seen == [None]


# -- device arrays ------------------------------------------------------------

def test_array_round_trip_and_protocol(backend, rng):
    host = rng.standard_normal((3, 5)).astype(np.float32)
    x = backend.asarray(host)
    assert backend.is_native(x) and not backend.is_native(host)
    assert (x.shape, x.dtype, x.ndim, x.size, x.strides) == \
        (host.shape, host.dtype, host.ndim, host.size, host.strides)
    np.testing.assert_array_equal(np.asarray(x), host)
    np.testing.assert_array_equal(backend.to_numpy(x.T), host.T)
    np.testing.assert_array_equal(np.asarray(x[1:, ::-2]), host[1:, ::-2])
    np.testing.assert_array_equal(np.asarray(x[2]), host[2])
    np.testing.assert_array_equal(np.asarray(x.reshape(-1)), host.reshape(-1))
    np.testing.assert_array_equal(np.asarray(x.T.reshape(5, 3)), host.T.reshape(5, 3))
    np.testing.assert_array_equal(np.asarray(x[:1].repeat(4, axis=0)), host[:1].repeat(4, 0))
    assert x.astype(np.float32, copy=False) is x
    np.testing.assert_array_equal(np.asarray(x.astype(np.float32)), host)


def test_round_and_integer_astype_go_through_the_host(backend):
    """What the core does to integer inputs' results: round, then the integer dtype."""
    x = backend.asarray(np.array([0.5, 1.5, -2.5, 2.4], np.float32))
    rounded = x.round()
    assert backend.is_native(rounded) and rounded.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(rounded), [0, 2, -2, 2])
    integers = rounded.astype(np.int64)
    assert isinstance(integers, np.ndarray) and integers.dtype == np.int64
    np.testing.assert_array_equal(integers, [0, 2, -2, 2])


def test_float64_needs_shader_f64_and_is_never_downcast(backend):
    from types import SimpleNamespace

    from dspk_wgpu.arrays import check_dtype
    if backend.gpu.f64:
        for dtype in (np.float64, np.complex128):
            host = np.arange(6).reshape(2, 3) / 3
            host = (host + 1j * host / 7 if dtype == np.complex128 else host).astype(dtype)
            x = backend.asarray(host)
            assert x.dtype == dtype
            np.testing.assert_array_equal(np.asarray(x), host)
            np.testing.assert_array_equal(np.asarray(x.T.copy()), host.T)
            np.testing.assert_array_equal(np.asarray(x[:, ::-2]), host[:, ::-2])
        assert backend.asarray(np.zeros(4, np.float32)).astype(np.float64).dtype == np.float64
    else:
        with pytest.raises(TypeError, match="shader-f64.*never downcasts silently"):
            backend.asarray(np.zeros(4))
    # The default runtime order passes float64 calls to wgpu exactly where it computes them.
    assert backend.computes(np.float32) and backend.computes(np.complex64)
    assert backend.computes(np.float64) == backend.gpu.f64
    assert backend.computes(np.complex128) == backend.gpu.f64
    assert not backend.computes(np.int32) and not backend.computes(np.float16)
    without = SimpleNamespace(f64=False)
    with pytest.raises(TypeError, match="shader-f64.*never downcasts silently"):
        check_dtype(np.float64, without)
    with pytest.raises(TypeError, match="shader-f64.*never downcasts silently"):
        check_dtype(np.complex128, without)
    with pytest.raises(TypeError, match="holds float32 and complex64 arrays"):
        backend.asarray(np.zeros(4, np.int32))


# -- sosfilt ------------------------------------------------------------------

def _variants(name):
    from dspk_wgpu import fir, iir
    table = {**iir.VARIANTS, **fir.VARIANTS}
    return [pytest.param(v.name, id=v.name) for v in table[name]]


def _run(backend, op, variant_name, *args):
    variant = next(v for v in backend.variants(op) if v.name == variant_name)
    native = [backend.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    return variant.run(*native)


@pytest.mark.pairwise
@pytest.mark.parametrize("variant", _variants("sosfilt"))
@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("channels, samples", [(1, 1), (3, 777), (2, 9001)])
@pytest.mark.parametrize("with_zi", [False, True])
def test_sosfilt_matches_scipy(backend, rng, variant, axis, channels, samples, with_zi):
    sos = signal.butter(6, [0.05, 0.3], "bandpass", output="sos")
    x = _signal(rng, channels, samples, axis)
    zi = rng.standard_normal((len(sos), channels, 2)).astype(np.float32) if with_zi else None
    state = None if zi is None else np.moveaxis(zi, 1, 1 + (1 - axis)).astype(np.float64)
    expected = signal.sosfilt(sos, x.astype(np.float64), axis=axis, zi=state)
    y, zf = _run(backend, "sosfilt", variant, sos.astype(np.float32), x, axis, zi)
    if with_zi:
        expected, expected_zf = expected
        assert rel_l2(np.asarray(zf), np.moveaxis(expected_zf, 1 + (1 - axis), 1)) <= TOL
    else:
        assert zf is None
    assert np.asarray(y).shape == x.shape
    assert rel_l2(np.asarray(y), expected) <= TOL


@pytest.mark.parametrize("variant", _variants("sosfilt"))
def test_sosfilt_strided_input_and_long_cascade(backend, rng, variant):
    """A transposed view as input, and more sections than one shader pass fuses."""
    sos = np.tile(signal.butter(2, 0.2, output="sos"), (33, 1))
    host = rng.standard_normal((300, 2)).astype(np.float32)
    zi = rng.standard_normal((33, 2, 2)).astype(np.float32)
    x = backend.asarray(host).T
    variant = next(v for v in backend.variants("sosfilt") if v.name == variant)
    y, zf = variant.run(backend.asarray(sos.astype(np.float32)), x, 1, backend.asarray(zi))
    expected, expected_zf = signal.sosfilt(sos, host.T.astype(np.float64), zi=zi)
    assert rel_l2(np.asarray(y), expected) <= TOL
    assert rel_l2(np.asarray(zf), expected_zf) <= TOL


@pytest.mark.parametrize("variant", _variants("sosfilt"))
def test_sosfilt_past_the_loop_limit(backend, rng, variant):
    """Longer than llvmpipe's ~65,535-iteration loop cut-off, in one channel."""
    sos = signal.butter(2, 0.1, output="sos")
    x = rng.standard_normal((1, 70001)).astype(np.float32)
    y, _ = _run(backend, "sosfilt", variant, sos.astype(np.float32), x, 1, None)
    assert rel_l2(np.asarray(y), signal.sosfilt(sos, x.astype(np.float64))) <= TOL


# -- convolve -----------------------------------------------------------------

@pytest.mark.pairwise
@pytest.mark.parametrize("variant", _variants("convolve"))
@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("channels, samples, taps, per_channel",
                         [(1, 1, 1, False), (3, 301, 7, False), (2, 500, 129, True),
                          (2, 97, 4100, False)])
def test_convolve_matches_scipy(backend, rng, variant, axis, channels, samples, taps,
                                per_channel):
    x = _signal(rng, channels, samples, axis)
    h = rng.standard_normal((channels if per_channel else 1, taps)).astype(np.float32)
    y = np.asarray(_run(backend, "convolve", variant, x, h, axis))
    rows = x if axis == 1 else x.T
    expected = np.array([np.convolve(r, h[i % len(h)]) for i, r in
                         enumerate(rows.astype(np.float64))])
    assert rel_l2(y, expected if axis == 1 else expected.T) <= TOL


def test_convolve_broadcast_channel_view(backend, rng):
    """One channel repeated as a stride-0 view against per-channel taps."""
    host = rng.standard_normal((1, 200)).astype(np.float32)
    h = rng.standard_normal((3, 5)).astype(np.float32)
    x = backend.asarray(host).repeat(3, axis=0)
    y = np.asarray(backend.variants("convolve")[0].run(x, backend.asarray(h), 1))
    expected = np.array([np.convolve(host[0].astype(np.float64), row) for row in h])
    assert rel_l2(y, expected) <= TOL


@pytest.mark.parametrize("op", ["sosfilt", "convolve"])
def test_every_variant_is_prepared_and_agrees(backend, op):
    """What the tuner does first: prepare each variant; each then gives one result."""
    from dspk.operations import OPERATIONS
    params = OPERATIONS[op].grid_params[0]
    problem = Problem.make(op, "float32", 2, 4096, "channel-major", **params)
    assert_variants_agree(backend, op, problem)


# -- tuned launches ------------------------------------------------------------

TUNED_OPS = ["sosfilt", "lfilter", "sosfiltfilt", "filtfilt", "convolve", "common_reference"]


@pytest.mark.parametrize("op", TUNED_OPS)
def test_tuned_variants_say_their_launch_and_fit_this_adapter(backend, op):
    from dspk.operations import OPERATIONS
    from dspk_wgpu.launch import Launched
    variants = backend.variants(op)
    tuned = [v for v in variants if isinstance(v.run, Launched)]
    assert len(tuned) > 1 and len({v.name for v in variants}) == len(variants)
    for variant in tuned:
        assert variant.name.endswith("-" + variant.run.launch.name)
    for dtype in ("float32", "float64") if backend.gpu.f64 else ("float32",):
        problem = Problem.make(op, dtype, 2, 4096, "channel-major",
                               **OPERATIONS[op].grid_params[0])
        assert all(v.supports(problem) for v in tuned), (op, dtype)


def test_launches_beyond_the_device_limits_are_not_offered(backend):
    """Too many invocations, too wide a workgroup, too much workgroup memory in float64."""
    from dspk_wgpu import fir, iir
    from dspk_wgpu.launch import on_device
    limits = {"max-compute-invocations-per-workgroup": 256, "max-compute-workgroup-size-x": 128,
              "max-compute-workgroup-storage-size": 2048}

    def offered(op, dtype, table, **params):
        problem = Problem.make(op, dtype, 2, 4096, "channel-major", **params)
        return [v.name for v in table[op] if on_device(v, limits).supports(problem)]

    direct = {"taps": 8, "per_channel": False, "method": "auto"}
    assert offered("convolve", "float32", fir.VARIANTS, **direct) == [
        "wgsl-direct-tiled-w64", "wgsl-direct-tiled-w128", "wgsl-fft-overlap-save"]
    assert offered("convolve", "float64", fir.VARIANTS, **direct) == [
        "wgsl-direct-tiled-w64", "wgsl-fft-overlap-save"]
    assert offered("sosfilt", "float64", iir.VARIANTS, sections=4) == [
        v.name for v in iir.VARIANTS["sosfilt"]]
    limits["max-compute-workgroup-size-x"] = 64
    assert "wgsl-time-parallel-b256-w128" not in offered("sosfilt", "float32", iir.VARIANTS,
                                                         sections=4)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_copy_of_strided_views_stays_on_the_device(backend, rng, dtype):
    host = rng.standard_normal((5, 7, 9)).astype(np.float32)
    if dtype == np.complex64:
        host = (host + 1j * rng.standard_normal(host.shape)).astype(np.complex64)
    x = backend.asarray(host)
    for view, expected in ((x[1:4, ::2, ::-3], host[1:4, ::2, ::-3]),
                           (x.transpose(2, 0, 1), host.transpose(2, 0, 1)),
                           (x[:, 3], host[:, 3])):
        dense = view.copy(order="K")
        assert dense.is_contiguous() and dense.offset == 0
        np.testing.assert_array_equal(dense.to_numpy(), expected)
