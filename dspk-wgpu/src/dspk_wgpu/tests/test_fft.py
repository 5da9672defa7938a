"""The wgpu FFT family, every variant called directly, against NumPy/SciPy in float64.

The backend comes from the ``wgpu_backend`` fixture (conftest.py here), which
poisons every new output buffer with NaN, so an element a shader fails to
write fails the test. A float32 FFT's relative L2 error grows like
``eps32 * log2(n)`` (measured: below 3e-7 up to 65536 points, Bluestein
included), so the transforms are held to :data:`TOL` = 1e-5, ten times
tighter than the conformance suite's 1e-4, which still covers the composed
operations. Float64 transforms (where the adapter has shader-f64) are held to
1e-12, a hundred times tighter than the suite's 1e-10.
"""

import numpy as np
import pytest
from scipy import fft as sfft
from scipy import signal

from dspk.testing import rel_l2

pytest.importorskip("wgpu", reason="wgpu-py is not installed")

TOL = 1e-5

#: The tolerance by the input's real dtype.
TOLERANCES = {np.dtype(np.float32): TOL, np.dtype(np.float64): 1e-12}

#: Float64 cases, skipped where the adapter has no shader-f64.
PRECISIONS = [pytest.param(np.float32, id="float32"), pytest.param(np.float64, id="float64")]

_REFERENCE = {"rfft": sfft.rfft, "irfft": sfft.irfft, "fft": sfft.fft, "ifft": sfft.ifft}


@pytest.fixture
def backend(wgpu_backend):
    return wgpu_backend


def _variant_names(op):
    from dspk_wgpu import fft, fourier
    table = {**fft.VARIANTS, **fourier.VARIANTS}
    return [pytest.param(v.name, id=v.name) for v in table[op]]


def _variant(backend, op, name):
    return next(v for v in backend.variants(op) if v.name == name).run


def _host(rng, channels, samples, complex_input, dtype=np.float32):
    x = rng.standard_normal((channels, samples))
    if complex_input:
        x = x + 1j * rng.standard_normal((channels, samples))
    return x.astype(np.result_type(dtype, np.complex64) if complex_input else dtype)


def _needs(backend, dtype):
    if np.dtype(dtype) == np.float64 and not backend.gpu.f64:
        pytest.skip("this adapter has no shader-f64")


def _on_device(backend, host, axis, strided=False):
    """``host`` (channels, samples) on the device with time along ``axis``.

    ``strided`` makes it a view with an offset and steps in both dimensions.
    """
    data = host if axis == 1 else np.ascontiguousarray(host.T)
    if not strided:
        return backend.asarray(data)
    rows, cols = data.shape
    big = np.zeros((2 * rows + 1, 3 * cols + 2), data.dtype)
    big[1::2, 2::3] = data
    view = backend.asarray(big)[1::2, 2::3]
    assert view.offset > 0 and view.element_strides == (2 * big.shape[1], 3)
    return view


def _check_fft(backend, name, host, axis, n, kind, norm, strided=False):
    x = _on_device(backend, host, axis, strided)
    y = _variant(backend, "fft", name)(x, axis, n, kind, norm)
    wide = host.astype(np.complex128 if host.dtype.kind == "c" else np.float64)
    expected = _REFERENCE[kind](wide, n, axis=1, norm=norm)
    if axis == 0:
        expected = expected.T
    got = np.asarray(y)
    real = np.float64 if host.dtype in (np.float64, np.complex128) else np.float32
    assert got.dtype == (real if kind == "irfft" else np.result_type(real, np.complex64))
    assert got.shape == expected.shape
    assert y.is_contiguous()
    assert rel_l2(got, expected) <= TOLERANCES[np.dtype(real)], (kind, n, norm)


# -- fft: every kind and length class ---------------------------------------------------

_LENGTHS = [
    1, 2, 3, 4, 5, 8, 12, 20, 60, 96,                   # radix 4, 2, 3, 5 and mixtures
    7, 11, 257, 1031,                                   # primes: Bluestein
    14, 2 * 257,                                        # even, half length prime
    1024, 2048, 3 * 2 ** 9, 5 * 2 ** 8, 2 ** 11 * 3,    # at and past workgroup memory
    4099,                                               # Bluestein through four-step
]


@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("variant", _variant_names("fft"))
@pytest.mark.parametrize("n", _LENGTHS)
@pytest.mark.parametrize("kind", ["rfft", "irfft", "fft", "ifft"])
def test_fft_lengths(backend, rng, variant, n, kind, dtype):
    _needs(backend, dtype)
    host = _host(rng, 3, n, complex_input=kind in ("irfft", "ifft"), dtype=dtype)
    if kind == "irfft":
        host = host[:, :n // 2 + 1]
    _check_fft(backend, variant, host, 1, n, kind, "backward")


@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("variant", _variant_names("fft"))
@pytest.mark.parametrize("n", [2 ** 16, 3 * 2 ** 14])
@pytest.mark.parametrize("kind", ["rfft", "irfft", "fft"])
def test_fft_longer_than_workgroup_memory(backend, rng, variant, n, kind, dtype):
    _needs(backend, dtype)
    host = _host(rng, 2, n // 2 + 1 if kind == "irfft" else n, complex_input=kind == "irfft",
                 dtype=dtype)
    _check_fft(backend, variant, host, 1, n, kind, "backward")


@pytest.mark.parametrize("dtype", PRECISIONS)
def test_fft_longer_than_two_workgroup_passes(backend, rng, dtype):
    """Past 1024 ** 2 points the workgroup variant runs its passes in storage buffers."""
    from dspk_wgpu import fft
    _needs(backend, dtype)
    host = _host(rng, 1, 2 * fft.LOCAL_POINTS ** 2, complex_input=True, dtype=dtype)
    _check_fft(backend, "wgsl-stockham-workgroup", host, 1, host.shape[1], "fft", "backward")


@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("variant", _variant_names("fft"))
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.parametrize("kind", ["rfft", "irfft", "fft", "ifft"])
@pytest.mark.parametrize("n", [16, 15, 7])
def test_fft_norms(backend, rng, variant, norm, kind, n, dtype):
    _needs(backend, dtype)
    host = _host(rng, 2, n, complex_input=kind != "rfft", dtype=dtype)
    _check_fft(backend, variant, host, 1, n, kind, norm)


@pytest.mark.pairwise
@pytest.mark.parametrize("variant", _variant_names("fft"))
@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("kind", ["rfft", "irfft", "fft", "ifft"])
def test_fft_layouts_and_views(backend, rng, variant, axis, strided, kind):
    host = _host(rng, 5, 90, complex_input=kind in ("irfft", "ifft"))
    _check_fft(backend, variant, host, axis, 90, kind, "ortho", strided)
    _check_fft(backend, variant, host, axis, 101, kind, "backward", strided)


@pytest.mark.pairwise
@pytest.mark.parametrize("variant", _variant_names("fft"))
@pytest.mark.parametrize("kind", ["rfft", "irfft", "fft", "ifft"])
@pytest.mark.parametrize("samples, n", [(100, 64), (100, 160), (33, 35), (40, 13)])
def test_fft_crop_and_pad(backend, rng, variant, kind, samples, n):
    host = _host(rng, 3, samples, complex_input=kind == "irfft")
    _check_fft(backend, variant, host, 1, n, kind, "backward")


@pytest.mark.parametrize("variant", _variant_names("fft"))
@pytest.mark.parametrize("kind", ["fft", "ifft"])
def test_fft_complex_and_real_input(backend, rng, variant, kind):
    for complex_input in (True, False):
        host = _host(rng, 4, 120, complex_input)
        _check_fft(backend, variant, host, 0, 120, kind, "backward", strided=True)


@pytest.mark.parametrize("variant", _variant_names("fft"))
def test_irfft_ignores_imaginary_dc_and_nyquist(backend, rng, variant):
    """As pocketfft: only the real parts of bins 0 and n / 2 enter the inverse real FFT."""
    host = _host(rng, 2, 9, complex_input=True)
    for n in (16, 17):
        _check_fft(backend, variant, host, 1, n, "irfft", "backward")


@pytest.mark.parametrize("variant", _variant_names("fft"))
def test_many_short_rows(backend, rng, variant):
    """More rows than one grid dimension of workgroups covers in the elementwise passes."""
    host = _host(rng, 70000, 4, complex_input=False)
    _check_fft(backend, variant, host, 1, 4, "rfft", "backward")


def test_transform_is_the_default_variant(backend, rng):
    from dspk_wgpu import fft
    assert backend.variants("fft")[0].run is fft.transform
    frames = backend.asarray(_host(rng, 6, 256, complex_input=False))
    spectrum = fft.transform(frames, 1, 256, "rfft")
    back = fft.transform(spectrum, 1, 256, "irfft")
    assert rel_l2(np.asarray(back), np.asarray(frames)) <= TOL


@pytest.mark.parametrize("variant", _variant_names("fft"))
def test_table_cache_is_bounded(backend, rng, monkeypatch, variant):
    from dspk_wgpu import fft
    monkeypatch.setattr(fft, "KEPT_TABLES", 2)
    for n in (7, 40, 11, 7):
        _check_fft(backend, variant, _host(rng, 2, n, complex_input=True), 1, n, "fft",
                   "backward")
        assert len(fft._UPLOADED) <= 2


def test_plan_helpers(backend):
    from dspk_wgpu import fft
    limit = backend.gpu.device.limits["max-compute-workgroup-storage-size"]
    for real, size in (("f32", 4), ("f64", 8)):
        points = backend.gpu.local_points(real)
        assert 2 * points * 2 * size <= limit and points <= fft.LOCAL_POINTS
    for n in (2, 3 * 2 ** 14, 2 ** 20, 5 ** 4 * 27):
        n1, n2 = fft.four_step_split(n) if n > fft.LOCAL_POINTS else (1, n)
        assert n1 * n2 == n and max(n1, n2) <= fft.LOCAL_POINTS
        assert np.prod(fft.radices(n)) == n
    with pytest.raises(ValueError, match="too many"):
        fft.four_step_split(2 ** 21)
    assert [fft.next_smooth(k) for k in (7, 13, 97, 8193)] == [8, 15, 100, 8640]
    assert fft.scale_of("ifft", 16, "forward") == 1.0
    assert fft.scale_of("rfft", 16, "forward") == 1 / 16


# -- hilbert, resample, phase_shift ------------------------------------------------------

@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("variant", _variant_names("hilbert"))
@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("samples, n", [(64, 64), (101, 101), (100, 257), (300, 77)])
def test_hilbert(backend, rng, variant, axis, samples, n, dtype):
    _needs(backend, dtype)
    host = _host(rng, 3, samples, complex_input=False, dtype=dtype)
    x = _on_device(backend, host, axis, strided=axis == 0)
    y = np.asarray(_variant(backend, "hilbert", variant)(x, axis, n))
    expected = signal.hilbert(host.astype(np.float64), n, axis=1)
    assert y.dtype == np.result_type(dtype, np.complex64)
    assert rel_l2(y, expected if axis == 1 else expected.T) <= TOLERANCES[np.dtype(dtype)]


def _resample_weights(samples, num):
    """scipy.signal.resample's spectral weights (no window): ones, the unpaired bin halved
    or doubled when the lengths differ, times ``num / samples``; ``min(samples, num) // 2 + 1``
    of them."""
    m = min(samples, num)
    weights = np.ones(m // 2 + 1)
    if m % 2 == 0 and num != samples:
        weights[m // 2] *= 2 if num < samples else 0.5
    return weights * (num / samples)


@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("variant", _variant_names("resample"))
@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("samples, num", [(100, 150), (150, 100), (101, 37), (64, 64),
                                          (257, 1031), (1000, 999)])
def test_resample(backend, rng, variant, axis, samples, num, dtype):
    _needs(backend, dtype)
    host = _host(rng, 4, samples, complex_input=False, dtype=dtype)
    x = _on_device(backend, host, axis, strided=axis == 1)
    weights = backend.asarray(_resample_weights(samples, num).astype(dtype))
    y = np.asarray(_variant(backend, "resample", variant)(x, axis, num, weights))
    expected = signal.resample(host.astype(np.float64), num, axis=1)
    assert y.dtype == dtype
    assert rel_l2(y, expected if axis == 1 else expected.T) <= TOLERANCES[np.dtype(dtype)]


def _phase_shift_reference(x, shifts, margin):
    length = x.shape[1] + 2 * margin
    padded = np.pad(x, ((0, 0), (margin, margin)))
    rotation = np.exp(-2j * np.pi * np.fft.rfftfreq(length) * shifts[:, None])
    return np.fft.irfft(np.fft.rfft(padded) * rotation, length)[:, margin:length - margin]


@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("variant", _variant_names("phase_shift"))
@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("samples, margin", [(200, 0), (200, 13), (301, 50), (4096, 1200)])
def test_phase_shift(backend, rng, variant, axis, samples, margin, dtype):
    _needs(backend, dtype)
    host = _host(rng, 5, samples, complex_input=False, dtype=dtype)
    shifts = rng.uniform(-3, 3, 5)
    x = _on_device(backend, host, axis, strided=axis == 0)
    y = np.asarray(_variant(backend, "phase_shift", variant)(x, axis, shifts, margin))
    expected = _phase_shift_reference(host.astype(np.float64), shifts, margin)
    assert y.dtype == dtype
    assert rel_l2(y, expected if axis == 1 else expected.T) <= TOLERANCES[np.dtype(dtype)]
