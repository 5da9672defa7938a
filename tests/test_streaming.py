"""Streams against the one-shot operations over the whole signal.

Each stream is fed random chunk boundaries, with runs of 1-sample chunks, and
its joined output is compared with scipy (or dspk's own one-shot operation
where scipy has none) over the concatenation. Exact streams meet
:data:`conftest.TOLERANCE`; zero-phase streams meet their documented bound.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import signal

import dspk
from conftest import TOLERANCE, open_backend, rel_l2, runtimes_under_test
from dspk.designs import Filter
from dspk.plugin import waiting_for_kernels
from dspk.streaming import (
    CommonReferenceStream,
    DecimateStream,
    FiltfiltStream,
    LfilterStream,
    PhaseShiftStream,
    ResamplePolyStream,
    SosfiltfiltStream,
    SosfiltStream,
    StreamChain,
    WelchStream,
    filter_stream,
    zero_phase_margin,
)

SOS = signal.butter(3, [0.02, 0.4], "bandpass", output="sos")
NEAR_DC = signal.butter(2, 1.0, "highpass", fs=1000.0, output="sos")  # float64 inside for float32
BA = signal.cheby1(4, 1, 0.1, "highpass")

# (shape, axis): 1-D, channels by samples, samples by channels.
SIGNALS = [((700,), -1), ((3, 611), -1), ((577, 4), 0)]


@pytest.fixture(autouse=True)
def _untuned(monkeypatch):
    """Chunks of many lengths: the default variants, without timing each length, and
    their kernels waited for. On a cold numba cache a chunk that met the kernel still
    compiling ran scipy's variant instead, whose rounding differs: near DC in float64
    a stream of mixed variants is 1.7e-13 from the one-shot, against 0 for one kernel
    (a fresh clone's CI run failed the 1e-14 bound so)."""
    monkeypatch.setenv("DSPK_TUNING", "off")
    with waiting_for_kernels():
        yield


def boundaries(n: int, rng: np.random.Generator) -> list[int]:
    """Cut points of ``n`` samples: random lengths, and runs of 1-sample chunks."""
    cuts, at = [0], 0
    while at < n:
        at = min(n, at + (1 if rng.random() < 0.4 else int(rng.integers(2, n // 4 + 3))))
        cuts.append(at)
    return cuts


def streamed(stream, x: np.ndarray, axis: int, rng: np.random.Generator) -> np.ndarray:
    """``stream``'s output over ``x`` pushed in random chunks, and its finish."""
    cuts = boundaries(x.shape[axis], rng)
    parts = [stream.push(np.take(x, range(a, b), axis=axis)) for a, b in itertools.pairwise(cuts)]
    return np.concatenate([*parts, stream.finish()], axis=axis)


def signal_of(shape, dtype, rng) -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


# --- causal filters: exact ------------------------------------------------------------------

@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,axis", SIGNALS)
@pytest.mark.parametrize("sos", [SOS, NEAR_DC], ids=["bandpass", "near-dc"])
def test_sosfilt_stream_is_exact(sos, shape, axis, dtype, rng):
    x = signal_of(shape, dtype, rng)
    y = streamed(SosfiltStream(sos, axis), x, axis, rng)
    assert y.dtype == dtype
    assert rel_l2(y, signal.sosfilt(sos, x.astype(np.float64), axis=axis)) <= TOLERANCE[dtype]
    one_shot = dspk.sosfilt(sos, x, axis=axis)
    # On the default runtime. The cpu runtime's chunks agree to the dtype's rounding;
    # a GPU's time-parallel filter sums in another order for each chunk than for
    # the whole (near DC in float64 on the cuda stand-in: 5.8e-14).
    on_cpu = dspk.runtime.current() == "cpu"
    bound = {np.float32: 1e-6 if on_cpu else 1e-5, np.float64: 1e-14 if on_cpu else 1e-12}
    assert rel_l2(y, one_shot) <= bound[dtype]


@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_sosfilt_stream_on_every_runtime_with_initial_state(runtime, rng):
    open_backend(runtime)
    x = signal_of((3, 500), np.float64, rng)
    zi = rng.standard_normal((len(SOS), 3, 2))
    stream = SosfiltStream(SOS, zi=zi, runtime=runtime)
    y = streamed(stream, x, -1, rng)
    expected, zf = signal.sosfilt(SOS, x, zi=zi)
    assert rel_l2(y, expected) <= 1e-12
    assert rel_l2(stream.zf, zf) <= 1e-12


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,axis", SIGNALS)
def test_lfilter_stream_is_exact(shape, axis, dtype, rng):
    x = signal_of(shape, dtype, rng)
    y = streamed(LfilterStream(*BA, axis=axis), x, axis, rng)
    assert y.dtype == dtype
    assert rel_l2(y, signal.lfilter(*BA, x.astype(np.float64), axis=axis)) <= TOLERANCE[dtype]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("form", ["sos", "ba"])
def test_a_cpu_stream_keeps_its_state_in_the_runtime_filter(form, axis, dtype, rng):
    """2-D chunks on the cpu runtime run its kept filter (the state in the kernel's
    layout between chunks): exact, and ``zf`` is scipy's after every chunk."""
    x = signal_of((5, 900) if axis == 1 else (900, 5), dtype, rng)
    stream = (SosfiltStream(SOS, axis, runtime="cpu") if form == "sos"
              else LfilterStream(*BA, axis, runtime="cpu"))
    run = (lambda v, zi: signal.sosfilt(SOS, v, axis, zi)) if form == "sos" else (
        lambda v, zi: signal.lfilter(*BA, v, axis, zi))
    zi = np.zeros_like(stream._filter.zeros(x[:1] if axis == 0 else x[:, :1], axis),
                       dtype=np.float64)
    cuts = boundaries(x.shape[axis], rng)
    for a, b in itertools.pairwise(cuts):
        chunk = np.take(x, range(a, b), axis=axis)
        y = stream.push(chunk)
        want, zi = run(chunk.astype(np.float64), zi)
        assert stream._kept is not None
        assert rel_l2(y, want) <= TOLERANCE[dtype]
        assert rel_l2(stream.zf, zi) <= TOLERANCE[dtype]


@pytest.mark.parametrize("zi_shape", [(len(SOS), 1, 2), (len(SOS), 3, 2)])
def test_a_stream_broadcasts_or_refuses_its_initial_state_as_sosfilt(zi_shape, rng):
    """The kept filter takes its state from a first chunk through sosfilt, whose checks
    broadcast a zi of size-1 dimensions and refuse a zi of the wrong shape."""
    x = signal_of((4, 300), np.float64, rng)
    zi = rng.standard_normal(zi_shape)
    stream = SosfiltStream(SOS, zi=zi, runtime="cpu")
    if zi_shape[1] != 1:
        with pytest.raises(ValueError, match="zi has shape"):
            stream.push(x)
        return
    y = streamed(stream, x, -1, rng)
    assert rel_l2(y, signal.sosfilt(SOS, x, zi=np.broadcast_to(zi, (len(SOS), 4, 2)))[0]) \
        <= 1e-13


def test_a_stream_whose_kernel_is_not_ready_goes_on_exactly(rng, monkeypatch):
    """A chunk whose kept filter answers KernelNotReady (its kernel still building) goes
    through sosfilt with the state taken back, and the next chunk tries the filter
    again: the output is the one-shot's."""
    from dspk_cpu.kernels import iir

    calls = itertools.count()
    kernel = iir.KeptState.__call__

    def now_and_then(self, x, axis):
        if next(calls) % 2:
            raise dspk.plugin.KernelNotReady("building")
        return kernel(self, x, axis)

    monkeypatch.setattr(iir.KeptState, "__call__", now_and_then)
    x = signal_of((4, 800), np.float64, rng)
    stream = SosfiltStream(SOS, runtime="cpu")
    y = streamed(stream, x, -1, rng)
    assert next(calls) > 4
    assert rel_l2(y, signal.sosfilt(SOS, x)) <= 1e-13


def test_a_forced_variant_streams_through_that_variant(rng):
    x = signal_of((4, 300), np.float64, rng)
    stream = SosfiltStream(SOS, runtime="cpu")
    stream.push(x[:, :100])
    with dspk.tuning.tuner.forced_variant("sosfilt", "scipy-one-thread"):
        stream.push(x[:, 100:200])
        assert stream._kept is None
    y = np.concatenate([stream.push(x[:, 200:]), stream.finish()], axis=-1)
    assert stream._kept is not None
    assert rel_l2(y, signal.sosfilt(SOS, x)[:, 200:]) <= 1e-13


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("shape,axis", SIGNALS)
def test_causal_streams_of_complex_signals_are_exact(shape, axis, dtype, rng):
    """IQ or analytic signals in chunks: each stream's output is scipy's, in the chunks'
    complex precision, and so is the state it carries (a complex ``zi`` too)."""
    x128 = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    x = x128.astype(dtype)
    zi_shape = list(shape)
    zi_shape[axis] = len(BA[1]) - 1
    zi = rng.standard_normal(zi_shape) + 1j * rng.standard_normal(zi_shape)
    tolerance = TOLERANCE[np.float32 if dtype == np.complex64 else np.float64]
    for stream, (expected, zf) in [
            (SosfiltStream(SOS, axis), (signal.sosfilt(SOS, x128, axis=axis), None)),
            (LfilterStream(*BA, axis=axis, zi=zi), signal.lfilter(*BA, x128, axis=axis, zi=zi))]:
        y = streamed(stream, x, axis, rng)
        assert y.dtype == dtype and stream.zf.dtype == dtype
        assert rel_l2(y, expected) <= tolerance
        if zf is not None:
            assert rel_l2(stream.zf, zf) <= tolerance


def test_integer_chunks_are_filtered_in_float64(rng):
    x = rng.integers(-1000, 1000, (2, 300)).astype(np.int16)
    y = streamed(SosfiltStream(SOS), x, -1, rng)
    assert y.dtype == np.float64
    assert rel_l2(y, signal.sosfilt(SOS, x)) <= 1e-12


# --- zero-phase filters: within the margin's bound ------------------------------------------

def forward_pass(sos: np.ndarray, x: np.ndarray, padlen: int) -> np.ndarray:
    """The forward pass of scipy's sosfiltfilt on a 1-D signal, over ``x``'s samples."""
    padded = np.concatenate([2 * x[0] - x[padlen:0:-1], x, 2 * x[-1] - x[-2:-padlen - 2:-1]])
    v, _ = signal.sosfilt(sos, padded, zi=signal.sosfilt_zi(sos) * padded[0])
    return v[padlen:]


def tail(sos: np.ndarray, margin: int) -> float:
    h = signal.sosfilt(sos, np.eye(1, 20 * margin + 2000)[0])
    return float(np.abs(h[margin:]).sum())


@pytest.mark.parametrize("margin", [10, 40, 120])
def test_sosfiltfilt_stream_error_is_within_the_tail_bound(margin, rng):
    x = rng.standard_normal(3000)
    stream = SosfiltfiltStream(SOS, margin=margin)
    y = streamed(stream, x, -1, rng)
    error = np.abs(y - signal.sosfiltfilt(SOS, x))
    v = forward_pass(SOS, x, stream.padlen)
    assert error.max() <= 2 * tail(SOS, margin) * np.abs(v).max() + 1e-12
    assert error[-margin:].max() <= 1e-12  # the last block is exact


@pytest.mark.pairwise
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,axis", SIGNALS)
@pytest.mark.parametrize("sos", [SOS, NEAR_DC], ids=["bandpass", "near-dc"])
def test_sosfiltfilt_stream_matches_one_shot(sos, shape, axis, dtype, rng):
    x = signal_of(shape, dtype, rng)
    y = streamed(SosfiltfiltStream(sos, axis), x, axis, rng)
    assert y.dtype == dtype
    expected = signal.sosfiltfilt(sos, x.astype(np.float64), axis=axis)
    assert rel_l2(y, expected) <= TOLERANCE[dtype]


@pytest.mark.parametrize("padtype,padlen", [("even", None), ("constant", 5), (None, None),
                                            ("odd", 0)])
def test_sosfiltfilt_stream_pads_as_one_shot(padtype, padlen, rng):
    x = rng.standard_normal((2, 400))
    y = streamed(SosfiltfiltStream(SOS, padtype=padtype, padlen=padlen), x, -1, rng)
    expected = signal.sosfiltfilt(SOS, x, padtype=padtype, padlen=padlen)
    assert rel_l2(y, expected) <= 1e-10


@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_filtfilt_stream_matches_one_shot(runtime, rng):
    open_backend(runtime)
    x = rng.standard_normal((611, 3))
    y = streamed(FiltfiltStream(*BA, axis=0, runtime=runtime), x, 0, rng)
    assert rel_l2(y, signal.filtfilt(*BA, x, axis=0)) <= 1e-10


def test_zero_phase_stream_of_a_short_signal_is_the_one_shot(rng):
    x = rng.standard_normal(30)
    stream = SosfiltfiltStream(SOS)
    assert stream.push(x).shape == (0,)
    assert rel_l2(stream.finish(), signal.sosfiltfilt(SOS, x)) <= 1e-12


def test_zero_phase_stream_too_short_to_pad():
    stream = SosfiltfiltStream(SOS)
    stream.push(np.random.default_rng(0).standard_normal(10))
    with pytest.raises(ValueError, match="padlen=21 must be less than the signal length"):
        stream.finish()


def test_margin_grows_with_the_filter_memory():
    fast = zero_phase_margin(signal.butter(3, [300, 6000], "bandpass", fs=30000, output="sos"))
    slow = zero_phase_margin(signal.butter(3, [3, 6000], "bandpass", fs=30000, output="sos"))
    assert 0 < fast < slow
    assert tail(SOS, zero_phase_margin(SOS, 1e-6)) <= 1e-6
    assert zero_phase_margin(signal.butter(4, 0.2)) == zero_phase_margin(signal.butter(4, 0.2,
                                                                                       output="sos"))


def test_filter_stream_follows_the_design():
    band = Filter.bandpass(300, 6000, fs=30000)
    assert isinstance(filter_stream(band), SosfiltfiltStream)
    causal = Filter.bandpass(300, 6000, fs=30000, zero_phase=False)
    assert isinstance(filter_stream(causal, axis=0), SosfiltStream)
    with pytest.raises(ValueError, match="zero-phase filters only"):
        filter_stream(causal, margin=10)
    with pytest.raises(TypeError, match="design must be a dspk.Filter"):
        filter_stream(SOS)


# --- resampling: exact ------------------------------------------------------------------------

@pytest.mark.parametrize("up,down", [(2, 3), (3, 2), (1, 4), (5, 1), (4, 6), (1, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_resample_poly_stream_is_exact(up, down, dtype, rng):
    x = signal_of((601, 3), dtype, rng)
    y = streamed(ResamplePolyStream(up, down), x, 0, rng)
    assert y.dtype == dtype
    assert rel_l2(y, signal.resample_poly(x.astype(np.float64), up, down)) <= TOLERANCE[dtype]


def test_resample_poly_stream_with_window_cval_and_axis(rng):
    x = rng.standard_normal((2, 333))
    stream = ResamplePolyStream(3, 7, axis=-1, window=("kaiser", 8.0), cval=1.5)
    expected = signal.resample_poly(x, 3, 7, axis=-1, window=("kaiser", 8.0), cval=1.5)
    assert rel_l2(streamed(stream, x, -1, rng), expected) <= 1e-10


@pytest.mark.parametrize("ftype,zero_phase", [("fir", True), ("fir", False), ("iir", False),
                                              ("iir", True)])
def test_decimate_stream_matches_one_shot(ftype, zero_phase, rng):
    x = rng.standard_normal((2, 1001))
    y = streamed(DecimateStream(3, ftype=ftype, zero_phase=zero_phase), x, -1, rng)
    assert rel_l2(y, signal.decimate(x, 3, ftype=ftype, zero_phase=zero_phase)) <= 1e-10


def test_decimate_stream_with_a_dlti_filter(rng):
    system = signal.dlti(*signal.cheby1(4, 0.05, 0.4))
    x = rng.standard_normal(900)
    y = streamed(DecimateStream(2, ftype=system, zero_phase=False), x, -1, rng)
    assert rel_l2(y, signal.decimate(x, 2, ftype=system, zero_phase=False)) <= 1e-10


# --- across channels --------------------------------------------------------------------------

@pytest.mark.parametrize("operator", ["median", "average"])
def test_common_reference_stream_is_exact(operator, rng):
    x = rng.standard_normal((300, 6)).astype(np.float32)
    stream = CommonReferenceStream(operator=operator, groups=[[0, 2, 4], [1, 3]], axis=0)
    expected = dspk.common_reference(x, operator=operator, groups=[[0, 2, 4], [1, 3]], axis=0)
    np.testing.assert_array_equal(streamed(stream, x, 0, rng), expected)


def band_limited(rng, shape) -> np.ndarray:
    """Noise band-passed below 0.4 fs, brought smoothly to zero at both ends."""
    sos = signal.butter(3, [0.02, 0.4], "bandpass", output="sos")
    return signal.sosfiltfilt(sos, rng.standard_normal(shape)) * signal.windows.tukey(shape[-1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_phase_shift_stream_of_a_band_limited_signal(dtype, rng):
    x = band_limited(rng, (3, 6000)).astype(dtype)
    shifts = [0.1, 0.5, 12 / 13]
    y = streamed(PhaseShiftStream(shifts, margin=400), x, -1, rng)
    expected = dspk.phase_shift(x.astype(np.float64), shifts, margin=400)
    assert y.dtype == dtype
    tolerance = 1e-6 * np.abs(expected).max() + 1e-6 * (dtype == np.float32)
    assert np.abs(y - expected).max() <= tolerance


def test_phase_shift_stream_in_one_block_is_the_one_shot(rng):
    x = rng.standard_normal((100, 2))
    stream = PhaseShiftStream([0.3, -0.7], margin=50, axis=0)
    assert stream.push(x).shape == (0, 2)
    expected = dspk.phase_shift(x, [0.3, -0.7], margin=50, axis=0)
    assert rel_l2(stream.finish(), expected) <= 1e-12


def test_phase_shift_stream_of_whole_samples_is_a_delay(rng):
    x = rng.standard_normal((2, 3000))
    y = streamed(PhaseShiftStream([0, 2], margin=64), x, -1, rng)
    np.testing.assert_allclose(y[1, 2:], x[1, :-2], atol=1e-12)
    np.testing.assert_allclose(y[0], x[0], atol=1e-12)


# --- spectra ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_welch_stream_averages_the_segments_of_one_shot(dtype, rng):
    x = rng.standard_normal((2, 3000)).astype(dtype)
    if np.iscomplexobj(x):
        x = x + 1j * rng.standard_normal(x.shape)
    stream = WelchStream(fs=100.0, nperseg=128, noverlap=50, detrend="linear")
    cuts = boundaries(x.shape[-1], rng)
    for a, b in itertools.pairwise(cuts):
        assert stream.push(x[:, a:b]) is None
    f, pxx = stream.finish()
    f_ref, p_ref = signal.welch(x.astype(np.complex128 if np.iscomplexobj(x) else np.float64),
                                fs=100.0, nperseg=128, noverlap=50, detrend="linear")
    np.testing.assert_allclose(f, f_ref)
    assert pxx.dtype == np.finfo(x.dtype).dtype
    assert rel_l2(pxx, p_ref) <= TOLERANCE[np.float32 if dtype == np.float32 else np.float64]


def test_welch_stream_needs_a_whole_segment(rng):
    stream = WelchStream(nperseg=64)
    stream.push(rng.standard_normal(63))
    with pytest.raises(ValueError, match="fewer than nperseg=64 samples"):
        stream.result()


# --- chains -----------------------------------------------------------------------------------

def test_chain_of_filter_and_reference_is_exact(rng):
    x = rng.standard_normal((400, 5))
    chain = StreamChain(SosfiltStream(SOS, axis=0), CommonReferenceStream(axis=0))
    expected = dspk.common_reference(signal.sosfilt(SOS, x, axis=0), axis=0)
    assert rel_l2(streamed(chain, x, 0, rng), expected) <= 1e-12


# --- bad input --------------------------------------------------------------------------------

def test_chunks_must_keep_their_shape_and_dtype(rng):
    stream = SosfiltStream(SOS, axis=0)
    stream.push(rng.standard_normal((10, 3)))
    with pytest.raises(ValueError, match=r"chunk has shape \(10, 4\); .* \('n', 3\)"):
        stream.push(rng.standard_normal((10, 4)))
    with pytest.raises(ValueError, match="chunk is computed in float32; this stream computes in "
                                         "float64"):
        stream.push(rng.standard_normal((10, 3)).astype(np.float32))
    with pytest.raises(ValueError, match="at least one dimension"):
        stream.push(np.float64(1.0))


def test_stream_life_cycle(rng):
    stream = SosfiltStream(SOS)
    with pytest.raises(ValueError, match="received no samples"):
        stream.finish()
    stream = SosfiltStream(SOS)
    assert stream.push(np.zeros((2, 0))).shape == (2, 0)
    stream.push(rng.standard_normal((2, 5)))
    assert stream.finish().shape == (2, 0)
    with pytest.raises(ValueError, match="push\\(\\) after finish\\(\\)"):
        stream.push(rng.standard_normal((2, 5)))
    with pytest.raises(ValueError, match="finish\\(\\) was called already"):
        stream.finish()


@pytest.mark.parametrize("make,error,match", [
    (lambda: SosfiltStream(np.ones((2, 5))), ValueError, "sos must have shape"),
    (lambda: SosfiltStream(SOS, axis=1.5), TypeError, "axis must be an integer"),
    (lambda: SosfiltStream(SOS, runtime="nope"), ValueError, "runtime 'nope' is not a runtime"),
    (lambda: LfilterStream([1.0], [1.0, -2.5]), ValueError, "a is unstable"),
    (lambda: SosfiltfiltStream(SOS, margin=10, tol=1e-6), ValueError, "give margin or tol"),
    (lambda: SosfiltfiltStream(SOS, tol=2.0), ValueError, "tol must lie between 0 and 1"),
    (lambda: SosfiltfiltStream(SOS, margin=-1), ValueError, "margin must be an integer >= 0"),
    (lambda: SosfiltfiltStream(SOS, padtype="wrap"), ValueError, "padtype='wrap' is not one of"),
    (lambda: SosfiltfiltStream(SOS, padlen=2.5), TypeError, "padlen must be an integer"),
    (lambda: FiltfiltStream([1.0], [1.0, 0.0, 1.0]), ValueError, "does not decay"),
    (lambda: ResamplePolyStream(2, 3, padtype="mean"), ValueError, "padtype='mean' cannot stream"),
    (lambda: ResamplePolyStream(0, 3), ValueError, "up must be an integer >= 1"),
    (lambda: DecimateStream(2, ftype="fir", margin=5), ValueError, "zero-phase IIR filters"),
    (lambda: CommonReferenceStream(operator="mode"), ValueError, "operator='mode' is not one of"),
    (lambda: PhaseShiftStream([[0.1]]), ValueError, "shifts must be real numbers"),
    (lambda: PhaseShiftStream([np.nan]), ValueError, "shifts has non-finite"),
    (lambda: WelchStream(nperseg=64, noverlap=64), ValueError, "noverlap=64 must be less than"),
    (lambda: WelchStream(window="nope"), ValueError, "window='nope' is not a window"),
    (lambda: WelchStream(scaling="power"), ValueError, "scaling='power' is not one of"),
    (lambda: WelchStream(fs=-1.0), ValueError, "fs=-1.0 must be a positive"),
    (lambda: StreamChain(WelchStream()), TypeError, "cannot be a stage"),
    (lambda: StreamChain(), TypeError, "one or more streams"),
])
def test_bad_parameters(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_a_resonator_streams_with_an_explicit_margin(rng):
    x = rng.standard_normal(300)
    y = streamed(FiltfiltStream([1.0], [1.0, 0.0, 1.0], margin=20), x, -1, rng)
    assert y.shape == x.shape


def test_phase_shift_stream_needs_one_shift_per_channel(rng):
    stream = PhaseShiftStream([0.1, 0.2])
    with pytest.raises(ValueError, match=r"shifts has 2 value\(s\); the chunks have 3 channel"):
        stream.push(rng.standard_normal((3, 10)))


@pytest.mark.parametrize("cutoff", [1e-6, 1e-8])
def test_a_margin_too_long_to_compute_is_refused_at_once(cutoff, monkeypatch):
    """A pole this close to 1 needs more samples than any margin may have: refused
    from the pole's radius, before an impulse response of gigabytes is computed."""
    computed = []
    monkeypatch.setattr(dspk.streaming.filters._Sections, "impulse_response",
                        lambda self, n: computed.append(n))
    sos = signal.butter(2, cutoff, "highpass", output="sos")
    with pytest.raises(ValueError, match="decays too slowly"):
        dspk.streaming.zero_phase_margin(sos)
    assert computed == []
