"""Every cuda variant, kernels included, on the CPU stand-in of CuPy and a GPU.

The stand-in (``tests/cuda_standin``) compiles the very kernel text the
runtime hands NVRTC with the host compiler and runs each launch in CUDA's
execution model, checked as a GPU checks it, twice (threads and blocks in
order, then reversed); its arrays refuse to mix with NumPy's as CuPy's do.
The backend opens on it as on a GPU. Every variant runs on the catalogue's
example inputs, both dtypes and both layouts, at sizes that take every path
of the kernels (:data:`PATHS`), and must match the cpu runtime. Then each of
the stand-in's checks is shown to fail on a fault planted in the real
kernels or their host code. With ``--cuda-standin hip`` (``-p
cuda_standin.plugin``) all of it runs with hip's limits; tests that need
AddressSanitizer in the process run under ``tests/cuda_standin/conformance.sh``.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import signal

sys.path.insert(0, str(Path(__file__).parents[1] / "dspk-cuda" / "src"))
sys.path.insert(0, str(Path(__file__).parents[1] / "dspk-hip" / "src"))

import cuda_standin  # noqa: E402
from cuda_standin.emulation import (  # noqa: E402
    KernelFault,
    LaunchError,
    OrderDependence,
    asan_loaded,
    unavailable,
)

from dspk.operations import OPERATIONS  # noqa: E402
from dspk.operations.base import device_args  # noqa: E402
from dspk.plugin import Problem  # noqa: E402

pytestmark = pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))
needs_asan = pytest.mark.skipif(not asan_loaded(), reason=(
    "needs AddressSanitizer in the process: run tests/cuda_standin/conformance.sh"))

LAYOUTS = ("channel-major", "sample-major")
BOTH = ("float32", "float64")

#: (operation, parameters, channels, samples, dtypes): what each takes of the kernels.
PATHS = [
    # Register capacity 8 (4 sections), 6 time blocks: a carry scan of 3 levels.
    ("sosfilt", {"sections": 4}, 3, 1531, BOTH),
    # Capacity 32 (10 sections), 17 blocks of 5 channels: partial thread blocks.
    ("sosfilt", {"sections": 10}, 5, 4099, BOTH),
    # 20 sections, more than MAX_STATE holds: groups of 16 (capacity 32) then 4 (8).
    ("sosfilt", {"sections": 20}, 3, 2053, BOTH),
    # 1024 time blocks: a carry scan of 1024 threads, 10 levels.
    ("sosfilt", {"sections": 2}, 2, 300_007, BOTH),
    ("sosfiltfilt", {"sections": 20}, 3, 2053, BOTH),
    ("lfilter", {"order": 4}, 3, 1531, BOTH),
    # b, a of order 12 (capacity 32) in float64 only: rounded to float32 they are too
    # ill-conditioned for any implementation (scipy's float32 lfilter is 5e-3 off).
    ("lfilter", {"order": 12}, 5, 4099, ("float64",)),
    ("filtfilt", {"order": 12}, 3, 2053, ("float64",)),
    # Two chunks of taps through shared memory, a row of taps per channel, 4 tiles.
    ("convolve", {"taps": 600, "per_channel": True, "method": "direct"}, 3, 3001, BOTH),
    # The median's register capacities 64 and 512, and CuPy's median above them.
    ("common_reference", {"operator": "median"}, 64, 301, BOTH),
    ("common_reference", {"operator": "median"}, 65, 301, BOTH),
    ("common_reference", {"operator": "median"}, 513, 37, BOTH),
    # Segments longer than a thread block: every thread sums and frames several samples.
    ("stft", {"segment": 600, "hop": 250, "value": "complex", "sides": "onesided",
              "complex": False}, 3, 3001, BOTH),
]


def _cases():
    """Every catalogue operation's grid (3 channels, 1531 samples), then :data:`PATHS`,
    marked exhaustive: ``./dev test`` runs every kernel source, ``--exhaustive`` (CI) and
    tests/cuda_standin/conformance.sh run its deep paths too (a minute of the stand-in)."""
    grid = [(op.name, params, 3, 1531, BOTH, ()) for op in OPERATIONS.values()
            for params in op.grid_params]
    paths = [(*path, (pytest.mark.exhaustive,)) for path in PATHS]
    for op, params, channels, samples, dtypes, marks in grid + paths:
        for dtype in dtypes:
            for layout in LAYOUTS:
                yield pytest.param(op, params, channels, samples, dtype, layout, marks=marks,
                                   id=f"{op}-{channels}x{samples}-{dtype}-{layout}-{params}")


@pytest.fixture(scope="module")
def platform(request):
    """The stand-in's platform: ``--cuda-standin``'s, cuda by default."""
    return request.config.getoption("cuda_standin", default=None) or "cuda"


@contextlib.contextmanager
def opened(platform, planted=None):
    """The runtime's backend opened on the stand-in, kernel sources changed as ``planted`` says.

    ``planted`` is ``(source, old, new)``: ``old`` must occur once in that
    kernel source's text.
    """
    with cuda_standin.installed(platform):
        sources = importlib.import_module("dspk_cuda.sources")
        if planted is not None:
            name, old, new = planted
            text = sources.text

            def changed(source):
                found = text(source)
                if source != name:
                    return found
                assert found.count(old) == 1, (f"the planted fault's target {old!r} is not once "
                                               f"in {name}.cu")
                return found.replace(old, new)

            sources.text = changed
        module = "dspk_hip.backend" if platform == "hip" else "dspk_cuda.backend"
        backend = importlib.import_module(module)
        yield backend.HipBackend() if platform == "hip" else backend.CudaBackend()


@pytest.fixture(scope="module")
def standin(platform):
    with opened(platform) as backend:
        yield backend


@pytest.fixture(scope="module")
def cpu():
    from dspk_cpu.backend import CpuBackend

    return CpuBackend()


def _outputs(backend, result) -> list:
    results = result if isinstance(result, tuple) else (result,)
    return [r if r is None else backend.to_numpy(r) for r in results]


def _errors(backend, cpu, problem) -> dict[str, float]:
    """Each variant's relative L2 error against the cpu runtime."""
    operation = OPERATIONS[problem.op]
    host = operation.example_args(problem, np.random.default_rng(0))
    want = _outputs(cpu, operation.call(cpu.variants(problem.op)[0], host))
    errors = {}
    for variant in backend.variants(problem.op):
        if not variant.supports(problem):
            continue
        args = device_args(backend, problem.dtype, host)
        got = _outputs(backend, operation.call(variant, args))
        worst = 0.0
        for g, w in zip(got, want, strict=True):
            assert (g is None) == (w is None), variant.name
            if w is not None:
                assert g.shape == w.shape and g.dtype == w.dtype, (variant.name, g.dtype)
                worst = max(worst, float(np.linalg.norm(g - w) / max(np.linalg.norm(w), 1e-300)))
        errors[variant.name] = worst
    return errors


@pytest.mark.parametrize(("op", "params", "channels", "samples", "dtype", "layout"),
                         list(_cases()))
def test_variant_matches_cpu(standin, cpu, op, params, channels, samples, dtype, layout):
    problem = Problem.make(op, dtype, channels, samples, layout, **params)
    errors = _errors(standin, cpu, problem)
    assert errors, f"no cuda variant supports {problem}"
    tolerance = 1e-4 if dtype == "float32" else 1e-10
    assert max(errors.values()) <= tolerance, errors


@pytest.mark.parametrize("section", [0, 1])
def test_a_nan_in_zi_stays_where_scipy_has_it(standin, section):
    """A NaN in one section's initial state makes that section and the later ones NaN,
    not the earlier ones, over enough time blocks that the carry scan's highest powers
    of the transition underflow to zero."""
    rng = np.random.default_rng(2)
    sos = signal.butter(4, 0.2, output="sos")
    x = rng.standard_normal((2, 300_007))
    zi = rng.standard_normal((len(sos), 2, 2))
    zi[section, 0, 1] = np.nan
    want = signal.sosfilt(sos, x, zi=zi)
    args = device_args(standin, "float64", [sos, x, 1, zi])
    got = _outputs(standin, OPERATIONS["sosfilt"].call(standin.variants("sosfilt")[0], args))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        kept = ~np.isnan(w)
        assert np.linalg.norm(g[kept] - w[kept]) <= 1e-10 * np.linalg.norm(w[kept])


# The planted faults: each check of the stand-in fails on one.


def _sosfilt_near_dc(backend, cpu=None) -> float:
    """sosfilt's time-parallel variant from a random state, on a filter whose state
    outlives a time block (poles near z = 1), against scipy (not ``cpu``): the worse of
    y's and zf's errors."""
    rng = np.random.default_rng(1)
    sos = signal.butter(2, 0.004, output="sos")
    x = rng.standard_normal((3, 4099))
    zi = rng.standard_normal((len(sos), 3, 2))
    want = signal.sosfilt(sos, x, zi=zi)
    args = device_args(backend, "float64", [sos, x, 1, zi])
    got = _outputs(backend, OPERATIONS["sosfilt"].call(backend.variants("sosfilt")[0], args))
    return max(float(np.linalg.norm(g - w) / np.linalg.norm(w)) for g, w in zip(got, want))


def test_the_carry_scan_check_filter_is_computed_right(standin):
    assert _sosfilt_near_dc(standin) <= 1e-10


def _errors_of(problem):
    return lambda backend, cpu: _errors(backend, cpu, problem)


SCAN_BARRIER = ("iir", """                    updated[d] = acc;
                }
            }
            __syncthreads();""", """                    updated[d] = acc;
                }
            }""")
TILE_BARRIER = ("fir", "__syncthreads();  // the previous chunk's reads are done", "")
SUM_BARRIER = ("framing", """        if (lane < half) scratch[lane] += scratch[lane + half];
        __syncthreads();""", """        if (lane < half) scratch[lane] += scratch[lane + half];""")


@pytest.mark.parametrize(("planted", "run"), [
    (SCAN_BARRIER, _sosfilt_near_dc),
    (TILE_BARRIER, _errors_of(Problem.make("convolve", "float32", 2, 1500, "channel-major",
                                           taps=600, per_channel=False, method="direct"))),
    (SUM_BARRIER, _errors_of(Problem.make("stft", "float32", 2, 1024, "sample-major",
                                          segment=256, hop=128, value="complex",
                                          sides="onesided", complex=False))),
], ids=["carry-scan", "fir-tile", "block-sum"])
def test_a_removed_barrier_is_caught(platform, cpu, planted, run):
    with opened(platform, planted) as backend:
        with pytest.raises(OrderDependence, match="a missing __syncthreads"):
            run(backend, cpu)


def test_an_off_by_one_in_the_carry_scan_is_caught(platform):
    with opened(platform, ("iir", "active = b < blocks && b >= offset",
                           "active = b < blocks && b > offset")) as backend:
        assert _sosfilt_near_dc(backend) > 1e-3


def test_a_barrier_some_threads_skip_is_caught(platform, cpu):
    problem = Problem.make("stft", "float32", 2, 1024, "channel-major", segment=256, hop=128,
                           value="complex", sides="onesided", complex=False)
    with opened(platform, ("framing", "        double mean = 0.0, slope = 0.0;",
                           "        if (threadIdx.x == 7) return;\n"
                           "        double mean = 0.0, slope = 0.0;")) as backend:
        with pytest.raises(KernelFault, match=r"__syncthreads\(\) reached by 255 of the block's "
                                              r"256 threads"):
            _errors(backend, cpu, problem)


def test_static_shared_memory_above_the_limit_is_caught(platform, cpu):
    # 1024 + 12287 doubles of the input window and 12288 taps: 204 KiB.
    problem = Problem.make("convolve", "float64", 1, 100, "channel-major", taps=16,
                           per_channel=False, method="direct")
    with opened(platform, ("fir", "#define FIR_TAP_CHUNK 512",
                           "#define FIR_TAP_CHUNK 12288")) as backend:
        with pytest.raises(KernelFault, match=r"shared memory: \d+ bytes \(dynamic and static\) "
                                              r"exceed the device's"):
            _errors(backend, cpu, problem)


def test_dynamic_shared_memory_above_the_limit_is_caught(standin, cpu, monkeypatch):
    iir = sys.modules["dspk_cuda.iir"]
    problem = Problem.make("sosfilt", "float64", 1, 300_007, "channel-major", sections=4)
    # 1024 time blocks of 8 float64 state values: 64 KiB, above CUDA's 48.
    monkeypatch.setattr(iir, "SCAN_SHARED_BYTES", 64 * 1024)
    limit = cuda_standin.device.PLATFORMS[standin.platform].shared_bytes
    if limit < 64 * 1024:
        with pytest.raises(LaunchError, match="65536 bytes of dynamic shared memory"):
            _errors(standin, cpu, problem)
    else:  # hip: 64 KiB per block
        assert _errors(standin, cpu, problem)["cuda-time-parallel"] <= 1e-10


@pytest.mark.parametrize(("grid", "block", "refused_on"), [
    ((2 ** 31,), (256,), ("cuda", "hip")),
    ((1, 65536), (256,), ("cuda", "hip")),
    ((1,), (2048,), ("cuda", "hip")),
    ((1,), (1024,), ("cuda", "hip")),  # above the kernel's __launch_bounds__(256)
    ((2 ** 24,), (256,), ("hip",)),    # 2**32 work-items along x
])
def test_launches_above_the_device_limits_are_refused(standin, grid, block, refused_on):
    run = sys.modules["dspk_cuda.sources"].kernel("fir", np.float32, "convolve_direct<{t}>")
    x = standin.asarray(np.zeros((1, 8), np.float32))
    # One argument short: a geometry the device accepts fails on the arguments instead.
    args = (x, np.int64(8), np.int64(1), np.int64(8), x, np.int64(0), np.int32(1), x,
            np.int64(8), np.int64(1), np.int64(8))
    refused = standin.platform in refused_on
    with pytest.raises(LaunchError, match=f"on {standin.platform}: " if refused else
                       "11 arguments for 12 parameters"):
        run(grid, block, args)


def test_kernel_arguments_are_checked(standin):
    run = sys.modules["dspk_cuda.sources"].kernel("upfirdn", np.float64, "upfirdn_polyphase<{t}>")
    h = standin.asarray(np.ones(3))
    good = [h, np.int32(3), np.int32(1), np.int32(1), h, np.int64(3), np.int64(1), np.int64(3),
            h, np.int64(0), np.int64(0), h, np.int64(0), np.int64(0), np.int64(0), np.int64(0),
            standin.asarray(np.zeros(3)), np.int64(3), np.int64(1), np.int64(3), np.int64(1),
            np.int32(1)]
    run((1,), (256,), tuple(good))
    with pytest.raises(TypeError, match="Unsupported type .*numpy.ndarray"):
        run((1,), (256,), tuple([np.ones(3)] + good[1:]))
    with pytest.raises(LaunchError, match="const double\\* h needs a device array of float64"):
        run((1,), (256,), tuple([standin.asarray(np.ones(3, np.float32))] + good[1:]))
    with pytest.raises(LaunchError, match="int taps needs numpy.int32; got int64"):
        run((1,), (256,), tuple([h, np.int64(3)] + good[2:]))
    with pytest.raises(LaunchError, match="22 parameters"):
        run((1,), (256,), tuple(good[:-1]))


def test_device_arrays_do_not_mix_with_numpy(standin):
    cp = sys.modules["cupy"]
    x = standin.asarray(np.arange(4.0))
    with pytest.raises(TypeError, match="Unsupported type"):
        x + np.ones(4)
    with pytest.raises(TypeError, match="Unsupported type"):
        np.ones(4) * x
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array"):
        np.asarray(x)
    with pytest.raises(TypeError, match="incorrect type"):
        cp.ascontiguousarray(np.ones(4))
    with pytest.raises(TypeError, match="Unsupported type"):
        cp.concatenate([x, np.ones(4)])
    with pytest.raises(ValueError, match="non-scalar numpy.ndarray cannot be used for fill"):
        x[:] = np.ones(4)
    x[:] = np.float32(2) * x + 1  # scalars mix, as in CuPy
    assert isinstance(x.sum(), cp.ndarray) and float(x.sum()) == 16.0
    assert standin.to_numpy(np.median(x)) == 4.0  # NumPy functions dispatch to the device's
    assert np.isnan(cp.empty(3)).get().all()


@needs_asan
@pytest.mark.parametrize(("planted", "problem", "access"), [
    (("fir", "(t >= 0 && t < samples)", "(t >= 0 && t <= samples)"),
     Problem.make("convolve", "float32", 2, 1500, "channel-major", taps=16, per_channel=False,
                  method="direct"), "READ"),
    (("upfirdn", "if (item >= channels * count) return;", "if (item > channels * count) return;"),
     Problem.make("upfirdn", "float64", 3, 1000, "sample-major", phase_taps=8, up=1, down=4),
     "WRITE"),
], ids=["read", "write"])
def test_an_access_outside_an_allocation_is_caught(platform, cpu, planted, problem, access):
    with opened(platform, planted) as backend:
        with pytest.raises(KernelFault, match=f"AddressSanitizer(.|\n)*{access} of size"):
            _errors(backend, cpu, problem)


@needs_asan
def test_an_access_outside_the_declared_shared_memory_is_caught(platform, cpu):
    problem = Problem.make("convolve", "float32", 1, 100, "channel-major", taps=16,
                           per_channel=False, method="direct")
    # The taps stored at the end of their region, the last one past it.
    with opened(platform, ("fir", "chunk_taps[j] = hc[j0 + j]",
                           "chunk_taps[j + FIR_TAP_CHUNK + 1 - chunk] = hc[j0 + j]")) as backend:
        with pytest.raises(KernelFault, match="AddressSanitizer(.|\n)*use-after-poison"):
            _errors(backend, cpu, problem)


def test_the_backend_reports_the_platform(standin):
    limits = cuda_standin.device.PLATFORMS[standin.platform]
    assert standin.fingerprint()["warp_size"] == str(limits.warp_size)
    assert limits.name in standin.device()


def test_a_gpu_tensor_of_another_library_is_computed_on_over_its_memory(standin, cpu):
    """A torch CUDA tensor's double (:mod:`cuda_standin.tensors`): the runtime of its
    platform takes it over its memory, and a result goes back to the library over the
    runtime's memory; no host copy either way."""
    from cuda_standin.tensors import Tensor

    from dspk.arrays import DeviceLibrary

    host = np.random.default_rng(0).standard_normal((3, 64)).astype(np.float32)
    tensor = Tensor(standin.asarray(host))
    library = DeviceLibrary.of(tensor)
    assert library is not None and library.platform == standin.platform
    taken = library.take(tensor, standin)
    assert standin.is_native(taken) and np.shares_memory(taken._host, tensor.storage._host)
    result = taken * 2
    back = library.give(result, standin)
    assert isinstance(back, Tensor) and back.storage is result
    np.testing.assert_array_equal(standin.to_numpy(back.storage), 2 * host)
    # Copied to the device where another runtime (cpu) computed the result.
    from_cpu = library.give(2 * host, cpu)
    assert isinstance(from_cpu, Tensor) and standin.is_native(from_cpu.storage)
    np.testing.assert_array_equal(standin.to_numpy(from_cpu.storage), 2 * host)


def test_a_gpu_tensor_without_a_runtime_of_its_platform_says_what_to_install(standin):
    from cuda_standin.tensors import Tensor

    from dspk.arrays import DeviceLibrary
    from dspk.registry import registry

    tensor = Tensor(standin.asarray(np.ones((2, 8), np.float32)))
    library = DeviceLibrary.of(tensor)
    if standin.platform in registry().names():
        pytest.skip(f"the {standin.platform} runtime is installed here: it reads the tensor")
    with pytest.raises(TypeError, match=rf"pip install dspk\[{standin.platform}\]"):
        library.to_numpy(tensor)

