"""wgpu stft, csd, istft and FFT overlap-save convolve, against NumPy/scipy float64.

The kernels are called directly (every variant) on random data; the
references below build the segments with NumPy, in float64. Tolerance:
relative L2 error, complex parts included, ``TOLERANCE[float32]`` (1e-4);
1e-5 for convolution; float64 data (where the adapter has shader-f64) to
1e-11, ten times tighter than the conformance suite.
"""

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view
from scipy import signal

from dspk.operations.spectral import BOUNDARY_PADDING
from dspk.testing import TOLERANCE

pytest.importorskip("wgpu", reason="wgpu-py is not installed")

TOL = TOLERANCE[np.float32]

#: The tolerance of float64 data, and the dtypes under test.
TOL64 = 1e-11
PRECISIONS = [pytest.param(np.float32, id="float32"), pytest.param(np.float64, id="float64")]


def _tolerance(dtype, single=TOL):
    return TOL64 if np.dtype(dtype) in (np.float64, np.complex128) else single


def _needs(backend, dtype):
    if np.dtype(dtype) == np.float64 and not backend.gpu.f64:
        pytest.skip("this adapter has no shader-f64")


def rel_l2(got, want):
    """Relative L2 error, complex parts included."""
    want = np.asarray(want, np.complex128)
    return np.linalg.norm(np.asarray(got, np.complex128) - want) / np.linalg.norm(want)


@pytest.fixture(scope="module")
def backend(wgpu_backend):
    return wgpu_backend


def _variants(op):
    from dspk_wgpu import fir, framing
    return [v.name for v in {**framing.VARIANTS, **fir.VARIANTS}[op]]


def _run(backend, op, name, *args):
    variant = next(v for v in backend.variants(op) if v.name == name)
    return np.asarray(variant.run(*(backend.asarray(a) if isinstance(a, np.ndarray) else a
                                    for a in args)))


def _signal(rng, channels, samples, axis, complex_values=False, trend=0.0, dtype=np.float32):
    """Random channels x samples (time along ``axis``), real or complex of ``dtype``'s
    precision, maybe sloped."""
    x = rng.standard_normal((channels, samples)) + trend * np.arange(samples)
    if complex_values:
        x = x + 1j * rng.standard_normal((channels, samples))
    x = x.astype(np.result_type(dtype, np.complex64) if complex_values else dtype)
    return x if axis == 1 else np.ascontiguousarray(x.T)


def _channel_major(x, axis):
    return (x if axis == 1 else x.T).astype(np.result_type(x.dtype, np.float64))


def _segment_spectra(v, window, step, nfft, detrend, sides):
    """Channels x segments x bins of channel-major float64 ``v``."""
    pieces = sliding_window_view(v, len(window), axis=-1)[:, ::step]
    if detrend:
        pieces = signal.detrend(pieces, axis=-1, type=detrend)
    transform = np.fft.rfft if sides == "onesided" else np.fft.fft
    return transform(pieces * window, nfft, axis=-1)


# -- stft -----------------------------------------------------------------------------------

def _stft_reference(x, axis, window, step, nfft, detrend, sides, boundary, pad, weights, value):
    v = _channel_major(x, axis)
    edge = len(window) // 2
    if boundary is not None and edge:
        v = np.pad(v, ((0, 0), (edge, edge)), **BOUNDARY_PADDING[boundary])
    v = np.pad(v, ((0, 0), (0, pad)))
    z = _segment_spectra(v, window, step, nfft, detrend, sides) * weights
    z = {"complex": z, "power": np.abs(z) ** 2, "magnitude": np.abs(z), "angle": np.angle(z),
         "phase": np.unwrap(np.angle(z), axis=-1)}[value]
    return z.transpose(0, 2, 1) if axis == 1 else z.transpose(2, 0, 1)


def _stft_case(backend, rng, variant, axis, nperseg, noverlap, nfft, detrend, boundary, pad,
               value, complex_values, channels=3, samples=301, dtype=np.float32):
    _needs(backend, dtype)
    x = _signal(rng, channels, samples, axis, complex_values, trend=0.05, dtype=dtype)
    window = rng.uniform(0.2, 1.0, nperseg).astype(dtype)
    sides = "twosided" if complex_values else "onesided"
    bins = nfft // 2 + 1 if sides == "onesided" else nfft
    weights = rng.uniform(0.5, 1.5, bins).astype(dtype)
    args = (axis, window, nperseg - noverlap, nfft, detrend, sides, boundary, pad, weights, value)
    got = _run(backend, "stft", variant, x, *args)
    want = _stft_reference(x, *args[:1], window.astype(np.float64), *args[2:])
    assert got.dtype == (np.result_type(dtype, np.complex64) if value == "complex" else dtype)
    assert got.shape == want.shape
    assert rel_l2(got, want) <= _tolerance(dtype)


@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("variant", _variants("stft"))
@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("boundary", [None, "zeros", "even", "odd", "constant"])
@pytest.mark.parametrize("detrend", [None, "constant", "linear"])
def test_stft_boundaries_and_detrends(backend, rng, variant, axis, boundary, detrend, dtype):
    _stft_case(backend, rng, variant, axis, 37, 26, 40, detrend, boundary, 5, "complex", False,
               dtype=dtype)


@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("variant", _variants("stft"))
@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("value", ["complex", "power", "magnitude", "angle", "phase"])
@pytest.mark.parametrize("complex_values", [False, True])
def test_stft_values(backend, rng, variant, axis, value, complex_values, dtype):
    _stft_case(backend, rng, variant, axis, 33, 16, 33, "linear", "even", 0, value,
               complex_values, dtype=dtype)


@pytest.mark.parametrize("variant", _variants("stft"))
@pytest.mark.parametrize(("nperseg", "noverlap", "nfft", "detrend"),
                         [(64, 32, 64, "constant"), (31, 0, 31, "linear"), (45, 44, 50, None),
                          (128, 100, 256, "constant"), (1, 0, 1, None)])
def test_stft_segment_lengths_and_overlaps(backend, rng, variant, nperseg, noverlap, nfft,
                                           detrend):
    _stft_case(backend, rng, variant, 1, nperseg, noverlap, nfft, detrend, "odd", 3,
               "complex", False, samples=523)


def test_stft_strided_view_and_blocks(backend, rng, monkeypatch):
    """A strided input, the segment table cut into blocks of 7 rows, short loops."""
    from dspk_wgpu import framing
    monkeypatch.setattr(framing, "WORK_BYTES", 8 * 40 * 7)
    monkeypatch.setattr(framing, "LOOP_BUDGET", 5)
    host = _signal(rng, 6, 400, 1)
    x = backend.asarray(host)[1::2, 3:]
    window = rng.uniform(0.2, 1.0, 29).astype(np.float32)
    weights = rng.uniform(0.5, 1.5, 21).astype(np.float32)
    args = (1, window, 9, 40, "linear", "onesided", "zeros", 4, weights, "phase")
    got = np.asarray(framing.stft_fused(x, 1, backend.asarray(window), *args[2:8],
                                        backend.asarray(weights), "phase"))
    want = _stft_reference(host[1::2, 3:], *args)
    assert rel_l2(got, want) <= TOL


# -- csd ------------------------------------------------------------------------------------

def _csd_reference(x, y, axis, window, step, nfft, detrend, sides, weights, average):
    vx = _channel_major(x, axis)
    vy = None if y is None else _channel_major(y, axis)
    length = vx.shape[1] if vy is None else max(vx.shape[1], vy.shape[1])
    spectra = [_segment_spectra(np.pad(v, ((0, 0), (0, length - v.shape[1]))), window, step,
                                nfft, detrend, sides) for v in (vx, vy) if v is not None]
    p = np.abs(spectra[0]) ** 2 if y is None else np.conj(spectra[0]) * spectra[1]
    if average == "mean":
        m = p.mean(axis=1)
    else:
        m = np.median(p.real, axis=1) + (1j * np.median(p.imag, axis=1) if y is not None else 0)
    m = m * weights
    return m if axis == 1 else m.T


CSD_PAIRS = {
    "auto": lambda rng, axis: (_signal(rng, 3, 400, axis), None),
    "auto-complex": lambda rng, axis: (_signal(rng, 3, 400, axis, True), None),
    "cross": lambda rng, axis: (_signal(rng, 3, 400, axis), _signal(rng, 3, 400, axis)),
    "cross-shared-y": lambda rng, axis: (_signal(rng, 4, 400, axis), _signal(rng, 1, 400, axis)),
    "cross-shared-x": lambda rng, axis: (_signal(rng, 1, 400, axis), _signal(rng, 2, 400, axis)),
    "cross-complex-y": lambda rng, axis: (_signal(rng, 2, 400, axis),
                                          _signal(rng, 2, 400, axis, True)),
    "cross-shorter-y": lambda rng, axis: (_signal(rng, 3, 400, axis), _signal(rng, 3, 351, axis)),
}


def _csd_case(backend, variant, x, y, axis, nperseg, noverlap, nfft, detrend, average, rng):
    real = np.float64 if x.dtype in (np.float64, np.complex128) else np.float32
    _needs(backend, real)
    sides = "twosided" if np.iscomplexobj(x) or np.iscomplexobj(y) else "onesided"
    bins = nfft // 2 + 1 if sides == "onesided" else nfft
    window = rng.uniform(0.2, 1.0, nperseg).astype(real)
    weights = rng.uniform(0.5, 1.5, bins).astype(real)
    args = (axis, window, nperseg - noverlap, nfft, detrend, sides, weights, average)
    got = _run(backend, "csd", variant, x, y, *args)
    want = _csd_reference(x, y, axis, window.astype(np.float64), *args[2:])
    assert got.dtype == (real if y is None else np.result_type(real, np.complex64))
    assert got.shape == want.shape
    assert rel_l2(got, want) <= _tolerance(real)


def _in(dtype, *arrays):
    """The arrays (or None) as ``dtype``'s precision, real or complex as they are."""
    return tuple(None if a is None else
                 a.astype(np.result_type(dtype, np.complex64) if np.iscomplexobj(a) else dtype)
                 for a in arrays)


@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("variant", _variants("csd"))
@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("average", ["mean", "median"])
@pytest.mark.parametrize("pair", list(CSD_PAIRS))
def test_csd_pairs_and_averages(backend, rng, variant, axis, average, pair, dtype):
    x, y = _in(dtype, *CSD_PAIRS[pair](rng, axis))
    _csd_case(backend, variant, x, y, axis, 33, 20, 36, "constant", average, rng)


@pytest.mark.pairwise
@pytest.mark.parametrize("variant", _variants("csd"))
@pytest.mark.parametrize("detrend", [None, "constant", "linear"])
@pytest.mark.parametrize(("nperseg", "noverlap", "nfft", "average"),
                         [(64, 32, 64, "mean"), (31, 0, 31, "median"), (16, 15, 16, "median"),
                          (101, 50, 128, "mean")])
def test_csd_segments_and_detrends(backend, rng, variant, detrend, nperseg, noverlap, nfft,
                                   average):
    x = _signal(rng, 2, 500, 1, trend=0.02)
    _csd_case(backend, variant, x, None, 1, nperseg, noverlap, nfft, detrend, average, rng)


@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("average", ["mean", "median"])
def test_csd_blocks_and_chunked_loops(backend, rng, monkeypatch, average, dtype):
    """Blocks of 7 rows (mean) or whole channels (median), segment loops cut into chunks of 5."""
    from dspk_wgpu import framing
    monkeypatch.setattr(framing, "WORK_BYTES", 2 * np.dtype(dtype).itemsize * 40 * 7)
    monkeypatch.setattr(framing, "LOOP_BUDGET", 5)
    x, y = _signal(rng, 5, 300, 0, dtype=dtype), _signal(rng, 5, 300, 0, dtype=dtype)
    _csd_case(backend, "wgsl-fused-frames", x, y, 0, 32, 16, 40, "linear", average, rng)


# -- istft ----------------------------------------------------------------------------------

def _overlap_added(pieces, step):
    channels, count, nperseg = pieces.shape
    total = np.zeros((channels, nperseg + (count - 1) * step), pieces.dtype)
    for s in range(count):
        total[:, s * step:s * step + nperseg] += pieces[:, s]
    return total


@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("variant", _variants("istft"))
@pytest.mark.parametrize("sides", ["onesided", "twosided"])
@pytest.mark.parametrize(("nperseg", "step", "nfft", "trim"),
                         [(32, 16, 32, 16), (33, 7, 40, 0), (64, 64, 64, 0), (9, 1, 12, 4)])
def test_istft_against_overlap_add(backend, rng, variant, sides, nperseg, step, nfft, trim,
                                   dtype):
    _needs(backend, dtype)
    channels, segments = 3, 17
    bins = nfft // 2 + 1 if sides == "onesided" else nfft
    z = (rng.standard_normal((channels, bins, segments))
         + 1j * rng.standard_normal((channels, bins, segments)))
    z = z.astype(np.result_type(dtype, np.complex64))
    window = rng.uniform(0.2, 1.0, nperseg).astype(dtype)
    divisor = rng.uniform(0.5, 1.5, nperseg + (segments - 1) * step - 2 * trim).astype(dtype)
    # z as a transposed view of a segments-first buffer: strided along every axis.
    z_view = backend.asarray(np.ascontiguousarray(z.transpose(2, 0, 1))).transpose(1, 2, 0)
    variant_run = next(v for v in backend.variants("istft") if v.name == variant).run
    got = np.asarray(variant_run(z_view, backend.asarray(window), step, nfft, sides,
                                 backend.asarray(divisor), trim))
    inverse = np.fft.irfft if sides == "onesided" else np.fft.ifft
    pieces = inverse(z.astype(np.complex128), nfft, axis=1)[:, :nperseg] * window[:, None]
    want = _overlap_added(pieces.transpose(0, 2, 1), step)[:, trim:trim + divisor.size] / divisor
    assert got.dtype == (dtype if sides == "onesided" else np.result_type(dtype, np.complex64))
    assert rel_l2(got, want) <= _tolerance(dtype)


@pytest.mark.parametrize(("nperseg", "noverlap", "samples"), [(128, 64, 1000), (51, 40, 777)])
def test_stft_istft_round_trip(backend, rng, monkeypatch, nperseg, noverlap, samples):
    """istft(stft(x)) is x, also with the segment table cut into blocks of 11 rows."""
    from dspk_wgpu import framing
    monkeypatch.setattr(framing, "WORK_BYTES", 8 * (nperseg + 1) * 11)
    x = _signal(rng, 2, samples, 1)
    window = signal.get_window("hann", nperseg)
    step, edge = nperseg - noverlap, nperseg // 2
    pad = (-(samples + 2 * edge - nperseg) % step) % nperseg
    bins = nperseg // 2 + 1
    z = framing.stft_fused(backend.asarray(x), 1, backend.asarray(window.astype(np.float32)),
                           step, nperseg, None, "onesided", "zeros", pad,
                           backend.asarray(np.full(bins, 1 / window.sum(), np.float32)),
                           "complex")
    count = z.shape[2]
    norm = _overlap_added(np.broadcast_to(window ** 2, (1, count, nperseg)), step)[0]
    divisor = norm[edge:norm.size - edge].astype(np.float32)
    back = framing.istft_overlap_add(z, backend.asarray((window * window.sum()).astype(np.float32)),
                                     step, nperseg, "onesided", backend.asarray(divisor), edge)
    assert rel_l2(np.asarray(back)[:, :samples], x) <= TOL


# -- convolve: FFT overlap-save ---------------------------------------------------------------

def _convolve_reference(x, h, axis):
    v = _channel_major(x, axis)
    y = np.array([signal.convolve(row, h[c % len(h)].astype(np.float64))
                  for c, row in enumerate(v)])
    return y if axis == 1 else y.T


@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", PRECISIONS)
@pytest.mark.parametrize("taps", [1, 7, 129, 1000])
@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("h_rows", [1, 3])
@pytest.mark.parametrize("samples", [1, 50, 3001])
def test_overlap_save_matches_scipy(backend, rng, taps, axis, h_rows, samples, dtype):
    _needs(backend, dtype)
    x = _signal(rng, 3, samples, axis, dtype=dtype)
    h = rng.standard_normal((h_rows, taps)).astype(dtype)
    got = _run(backend, "convolve", "wgsl-fft-overlap-save", x, h, axis)
    assert got.dtype == dtype
    assert got.shape == ((3, samples + taps - 1) if axis == 1 else (samples + taps - 1, 3))
    assert rel_l2(got, _convolve_reference(x, h, axis)) <= _tolerance(dtype, 1e-5)


def test_overlap_save_strided_view_and_blocks(backend, rng, monkeypatch):
    """A strided signal and taps view, block rows 3 at a time across channel boundaries."""
    from dspk_wgpu import fir, framing
    monkeypatch.setattr(framing, "WORK_BYTES", 8 * 1024 * 3)
    host, taps = _signal(rng, 8, 5000, 0), rng.standard_normal((8, 300)).astype(np.float32)
    x = backend.asarray(host)[7:, ::2]
    h = backend.asarray(taps)[::2]
    got = np.asarray(fir.convolve_overlap_save(x, h, 0))
    assert rel_l2(got, _convolve_reference(host[7:, ::2], taps[::2], 0)) <= 1e-5
