"""Faulty data, as opposed to bad arguments: NaN in signals and filter states.

NaN in the data propagates as in scipy: through the filter state into ``zf``,
from one stream chunk into the next, and never into another channel. Only
NaN in filter coefficients is refused (see test_bad_input.py). Every check is
against scipy (or dspk's own one-shot where scipy has none) in float64 on
random data: the NaN positions equal, the other values within
:data:`conftest.TOLERANCE`.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import signal

import dspk
from conftest import TOLERANCE, open_backend, rel_l2, runtimes_under_test, variant_params
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
    WelchStream,
)
from dspk.tuning.tuner import forced_variant

SOS = signal.butter(3, [0.05, 0.3], "bandpass", output="sos")
BA = signal.butter(3, 0.2)
DTYPES = [np.float32, np.float64]


@pytest.fixture(autouse=True)
def _untuned(monkeypatch):
    """The default variants: the faults are in the data, not in the choice of kernel."""
    monkeypatch.setenv("DSPK_TUNING", "off")


def assert_like(actual, expected, tol: float) -> None:
    """NaN exactly where ``expected`` has it; elsewhere within ``tol`` (relative L2)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected))
    assert np.isnan(expected).any() and not np.isnan(expected).all()
    kept = ~np.isnan(expected)
    assert rel_l2(actual[kept], expected[kept]) <= tol


def with_nan(rng, shape, dtype, where) -> np.ndarray:
    x = rng.standard_normal(shape).astype(dtype)
    x[where] = np.nan
    return x


# --- filter states ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_sosfilt_zi_with_nan_propagates_as_scipy(runtime, dtype, rng):
    open_backend(runtime)
    x = rng.standard_normal((3, 400)).astype(dtype)
    zi = with_nan(rng, (len(SOS), 3, 2), np.float64, (1, 0, 1))
    y, zf = dspk.sosfilt(SOS, x, zi=zi, runtime=runtime)
    expected, expected_zf = signal.sosfilt(SOS, x.astype(np.float64), zi=zi)
    assert_like(y, expected, TOLERANCE[dtype])
    assert_like(zf, expected_zf, TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_lfilter_zi_with_nan_propagates_as_scipy(runtime, dtype, rng):
    open_backend(runtime)
    x = rng.standard_normal((400, 3)).astype(dtype)
    zi = with_nan(rng, (len(BA[1]) - 1, 3), np.float64, (2, 1))
    y, zf = dspk.lfilter(*BA, x, axis=0, zi=zi, runtime=runtime)
    expected, expected_zf = signal.lfilter(*BA, x.astype(np.float64), axis=0, zi=zi)
    assert_like(y, expected, TOLERANCE[dtype])
    assert_like(zf, expected_zf, TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_zero_phase_filters_of_nan_data_as_scipy(runtime, dtype, rng):
    """sosfiltfilt and filtfilt start from ``zi * x[0]``: a NaN there, and one inside."""
    open_backend(runtime)
    x = with_nan(rng, (3, 400), dtype, (0, 0))
    x[2, 250] = np.nan
    expected = signal.sosfiltfilt(SOS, x.astype(np.float64))
    assert_like(dspk.sosfiltfilt(SOS, x, runtime=runtime), expected, TOLERANCE[dtype])
    expected = signal.filtfilt(*BA, x.astype(np.float64))
    assert_like(dspk.filtfilt(*BA, x, runtime=runtime), expected, TOLERANCE[dtype])


def test_dask_sosfilt_zi_with_nan_propagates_as_scipy(rng):
    da = pytest.importorskip("dask.array")
    import dspk.dask

    x = rng.standard_normal((3, 600))
    zi = with_nan(rng, (len(SOS), 3, 2), np.float64, (0, 2, 0))
    y, zf = dspk.dask.sosfilt(SOS, da.from_array(x, chunks=(3, 200)), zi=zi)
    expected, expected_zf = signal.sosfilt(SOS, x, zi=zi)
    assert_like(y.compute(scheduler="sync"), expected, 1e-12)
    assert_like(zf.compute(scheduler="sync"), expected_zf, 1e-12)


# --- streams --------------------------------------------------------------------------------

#: Chunk boundaries around a NaN at sample 200 of channel 1: the NaN chunk, then more.
CUTS = [0, 150, 300, 420, 600]


def pushed(stream, x: np.ndarray) -> np.ndarray:
    parts = [stream.push(x[:, a:b]) for a, b in zip(CUTS, CUTS[1:])]
    return np.concatenate([*parts, stream.finish()], axis=-1)


#: Exact streams and their one-shot over the whole signal.
EXACT = {
    "sosfilt": (lambda rt: SosfiltStream(SOS, runtime=rt), lambda x: signal.sosfilt(SOS, x)),
    "lfilter": (lambda rt: LfilterStream(*BA, runtime=rt), lambda x: signal.lfilter(*BA, x)),
    "resample_poly": (lambda rt: ResamplePolyStream(2, 3, axis=-1, runtime=rt),
                      lambda x: signal.resample_poly(x, 2, 3, axis=-1)),
    "decimate-fir": (lambda rt: DecimateStream(4, ftype="fir", runtime=rt),
                     lambda x: signal.decimate(x, 4, ftype="fir")),
    "decimate-iir-causal": (lambda rt: DecimateStream(4, zero_phase=False, runtime=rt),
                            lambda x: signal.decimate(x, 4, zero_phase=False)),
    "common_reference": (lambda rt: CommonReferenceStream(operator="average", runtime=rt),
                         lambda x: x - x.mean(axis=0)),
}


@pytest.mark.parametrize("name", EXACT)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_exact_stream_carries_nan_as_the_one_shot(runtime, dtype, name, rng):
    open_backend(runtime)
    make, one_shot = EXACT[name]
    x = with_nan(rng, (3, CUTS[-1]), dtype, (1, 200))
    assert_like(pushed(make(runtime), x), one_shot(x.astype(np.float64)), TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_causal_stream_state_after_nan_is_scipy_zf(runtime, dtype, rng):
    open_backend(runtime)
    x = with_nan(rng, (3, CUTS[-1]), dtype, (1, 200))
    stream = SosfiltStream(SOS, runtime=runtime)
    pushed(stream, x)
    zi = np.zeros((len(SOS), 3, 2))
    assert_like(stream.zf, signal.sosfilt(SOS, x.astype(np.float64), zi=zi)[1], TOLERANCE[dtype])


def test_welch_stream_of_nan_data_as_scipy(rng):
    x = with_nan(rng, (3, CUTS[-1]), np.float64, (1, 200))
    stream = WelchStream(nperseg=64)
    for a, b in zip(CUTS, CUTS[1:]):
        stream.push(x[:, a:b])
    assert_like(stream.finish()[1], signal.welch(x, nperseg=64)[1], 1e-12)


#: Streams within a margin: a NaN reaches every later output (the IIR ones), and
#: outputs not yet given before it, as far back as the margin.
MARGIN = {
    "sosfiltfilt": (lambda rt: SosfiltfiltStream(SOS, runtime=rt), 1, True),
    "filtfilt": (lambda rt: FiltfiltStream(*BA, runtime=rt), 1, True),
    "decimate-iir": (lambda rt: DecimateStream(4, runtime=rt), 4, True),
    "phase_shift": (lambda rt: PhaseShiftStream([0.5, 0.25, 0.0], margin=40, runtime=rt), 1,
                    False),
}


@pytest.mark.parametrize("name", MARGIN)
@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_margin_stream_carries_nan_in_its_channel(runtime, name, rng):
    """The NaN channel is NaN from the NaN on; the others are as without the NaN."""
    open_backend(runtime)
    make, q, to_the_end = MARGIN[name]
    clean = rng.standard_normal((3, CUTS[-1])).astype(np.float32)
    x = clean.copy()
    x[1, 200] = np.nan
    y, reference = pushed(make(runtime), x), pushed(make(runtime), clean)
    np.testing.assert_array_equal(y[[0, 2]], reference[[0, 2]])
    nan = np.isnan(y[1])
    assert nan[200 // q] and (nan[200 // q:].all() or not to_the_end)
    assert not np.isnan(reference).any()


# --- FFT convolution ------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize(("runtime", "variant"), variant_params("convolve", method="fft"))
def test_fft_convolution_keeps_nan_in_its_channel(runtime, variant, axis, rng):
    """A NaN (or infinity) spreads over FFT blocks of its own channel, never into another.

    It reaches at least every output that reads it, as in direct convolution;
    the other channels (an odd number, so one has no partner in a pair) are
    scipy's.
    """
    open_backend(runtime)
    x = rng.standard_normal((5, 3000)).astype(np.float32)
    x[1, 1000], x[2, 2000] = np.nan, np.inf
    h = rng.standard_normal((1, 40)).astype(np.float32)
    with forced_variant("convolve", variant):
        y = dspk.fftconvolve(x if axis == 1 else x.T.copy(), h if axis == 1 else h.T, axes=axis,
                             runtime=runtime)
    y = y if axis == 1 else y.T
    expected = signal.convolve(x.astype(np.float64), h.astype(np.float64), method="direct")
    assert not np.isfinite(y[[1, 2]][~np.isfinite(expected[[1, 2]])]).any()
    assert rel_l2(y[[0, 3, 4]], expected[[0, 3, 4]]) <= TOLERANCE[np.float32]


# --- byte order and memory layout ---------------------------------------------------------------

def swapped(a: np.ndarray) -> np.ndarray:
    """``a`` in the other byte order (big-endian on a little-endian machine)."""
    return a.astype(a.dtype.newbyteorder("S"))


H = signal.firwin(31, 0.2)
W = np.eye(3) + 0.1

#: Each operation with every array argument passed through ``s``, and scipy's result
#: (None where scipy has no such operation).
CALLS = {
    "sosfilt": (lambda x, s: dspk.sosfilt(s(SOS), x, zi=s(np.ones((len(SOS), 3, 2))))[0],
                lambda x: signal.sosfilt(SOS, x, zi=np.ones((len(SOS), 3, 2)))[0]),
    "lfilter": (lambda x, s: dspk.lfilter(s(BA[0]), s(BA[1]), x),
                lambda x: signal.lfilter(*BA, x)),
    "sosfiltfilt": (lambda x, s: dspk.sosfiltfilt(s(SOS), x),
                    lambda x: signal.sosfiltfilt(SOS, x)),
    "filtfilt-gust": (lambda x, s: dspk.filtfilt(s(BA[0]), s(BA[1]), x, method="gust"),
                      lambda x: signal.filtfilt(*BA, x, method="gust")),
    "convolve": (lambda x, s: dspk.convolve(x, s(H[None])),
                 lambda x: signal.convolve(x, H[None])),
    "oaconvolve": (lambda x, s: dspk.oaconvolve(x, s(H[None]), axes=1),
                   lambda x: signal.oaconvolve(x, H[None], axes=1)),
    "upfirdn": (lambda x, s: dspk.upfirdn(s(H), x, 2, 3), lambda x: signal.upfirdn(H, x, 2, 3)),
    "resample_poly": (lambda x, s: dspk.resample_poly(x, 3, 2, axis=-1, window=s(H)),
                      lambda x: signal.resample_poly(x, 3, 2, axis=-1, window=H)),
    "decimate": (lambda x, s: dspk.decimate(x, 3), lambda x: signal.decimate(x, 3)),
    "hilbert": (lambda x, s: dspk.hilbert(x), lambda x: signal.hilbert(x)),
    "detrend": (lambda x, s: dspk.detrend(x, bp=s(np.array([100]))),
                lambda x: signal.detrend(x, bp=[100])),
    "welch": (lambda x, s: dspk.welch(x, window=s(np.hanning(64)))[1],
              lambda x: signal.welch(x, window=np.hanning(64))[1]),
    "csd": (lambda x, s: dspk.csd(x, s(np.ascontiguousarray(np.asarray(x)[::-1])),
                                  nperseg=64)[1],
            lambda x: signal.csd(x, x[::-1], nperseg=64)[1]),
    "stft": (lambda x, s: dspk.stft(x, nperseg=64)[2], lambda x: signal.stft(x, nperseg=64)[2]),
    "common_reference": (lambda x, s: dspk.common_reference(x), None),
    "whiten": (lambda x, s: dspk.whiten(x, W=s(W))[0], None),
    "phase_shift": (lambda x, s: dspk.phase_shift(x, s(np.array([0.5, 0.25, 1.0]))), None),
    "stream": (lambda x, s: SosfiltStream(s(SOS)).push(x), lambda x: signal.sosfilt(SOS, x)),
}


@pytest.mark.parametrize("name", CALLS)
@pytest.mark.parametrize("dtype", ["f4", "f8", "i2"])
def test_other_byte_order_is_taken_as_native(name, dtype, rng):
    """Big-endian input (FITS, MATLAB) gives the native-order input's result and dtype.

    Compared bit for bit, so both calls run the same kernel: none runs scipy's
    variant while a kernel it chose compiles.
    """
    call, reference = CALLS[name]
    native = (rng.standard_normal((3, 600)) * 1000).astype(dtype)
    with waiting_for_kernels():
        y = call(swapped(native), swapped)
        expected = call(native, lambda a: a)
    assert y.dtype == expected.dtype and y.dtype.isnative
    np.testing.assert_array_equal(y, expected)
    if reference is not None and dtype != "f4":
        assert rel_l2(y, reference(native.astype(np.float64))) <= 1e-10


def unaligned(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` whose data starts one byte past an element boundary."""
    buffer = np.empty(a.nbytes + 1, np.uint8)
    copy = buffer[1:].view(a.dtype).reshape(a.shape)
    copy[...] = a
    assert not copy.flags.aligned
    return copy


@pytest.mark.parametrize("name", CALLS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_unaligned_arrays_give_the_aligned_result(name, dtype, rng):
    """Signals and parameters not aligned to their element size (read from a packed file
    header onwards) give the aligned arrays' result bit for bit, on the cpu runtime, whose
    kernels read them in place; in either order of meeting them."""
    call, _ = CALLS[name]
    x = rng.standard_normal((3, 600)).astype(dtype)
    with dspk.runtime.using("cpu"), waiting_for_kernels():
        expected = call(x, lambda a: a)
        y = call(unaligned(x), unaligned)
        again = call(x, lambda a: a)
    np.testing.assert_array_equal(y, expected)
    np.testing.assert_array_equal(again, expected)


def odd_view(a: np.ndarray, views: list) -> np.ndarray:
    """``a``'s values in a read-only view with strides of -2 elements; kept in ``views``."""
    buffer = np.zeros(tuple(2 * n for n in a.shape), a.dtype)
    view = buffer[(slice(None, None, -2),) * a.ndim]
    view[...] = a
    view.flags.writeable = False
    views.append((view, a.copy()))
    return view


@pytest.mark.parametrize("name", CALLS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("runtime", runtimes_under_test())
def test_strided_read_only_arguments_are_read_and_left_alone(runtime, dtype, name, rng):
    """Signals and parameters in reversed, strided, read-only views give the contiguous result."""
    open_backend(runtime)
    call, reference = CALLS[name]
    x = rng.standard_normal((3, 600)).astype(dtype)
    views = []
    with dspk.runtime.using(runtime):
        y = call(odd_view(x, views), lambda a: odd_view(a, views))
        expected = (call(x, lambda a: a) if reference is None
                    else reference(x.astype(np.float64)))
    assert rel_l2(y, expected) <= TOLERANCE[dtype]
    for view, values in views:
        np.testing.assert_array_equal(view, values)


def test_dask_array_of_other_byte_order_is_taken_as_native(rng):
    da = pytest.importorskip("dask.array")
    import dspk.dask

    x = rng.standard_normal((3, 600)).astype(np.float32)
    y = dspk.dask.sosfilt(SOS, da.from_array(swapped(x), chunks=(3, 200)))
    assert y.dtype == np.float32
    expected = signal.sosfilt(SOS, x.astype(np.float64))
    assert rel_l2(y.compute(scheduler="sync"), expected) <= TOLERANCE[np.float32]


# --- outputs too large for memory -------------------------------------------------------------

C, N = 64, 600_000  # float32 outputs of 147 MiB, above validation.UNMEASURED_OUTPUT_BYTES

#: Each operation on a signal ``x`` (channels by samples) with an output of at least C x N.
OUTPUT_CASES = {
    "sosfilt": lambda x: dspk.sosfilt(SOS, x),
    "lfilter": lambda x: dspk.lfilter(*BA, x),
    "sosfiltfilt": lambda x: dspk.sosfiltfilt(SOS, x),
    "filtfilt": lambda x: dspk.filtfilt(*BA, x),
    "filtfilt-gust": lambda x: dspk.filtfilt(*BA, x, method="gust"),
    "convolve": lambda x: dspk.convolve(x, H[None].astype(x.dtype)),
    "correlate": lambda x: dspk.correlate(x, H[None].astype(x.dtype)),
    "fftconvolve": lambda x: dspk.fftconvolve(x, H[None].astype(x.dtype), axes=1),
    "oaconvolve": lambda x: dspk.oaconvolve(x, H[None].astype(x.dtype), axes=1),
    "rfft": lambda x: dspk.rfft(x),
    "fft": lambda x: dspk.fft(x),
    "irfft": lambda x: dspk.irfft(x),
    "hilbert": lambda x: dspk.hilbert(x),
    "detrend": lambda x: dspk.detrend(x),
    "csd": lambda x: dspk.csd(x[:, np.newaxis, :20000], x[np.newaxis, :, :20000],
                              nperseg=8192),
    "stft": lambda x: dspk.stft(x, nperseg=64),
    "spectrogram": lambda x: dspk.spectrogram(x, nperseg=64, noverlap=32),
    "istft": lambda x: dspk.istft(np.broadcast_to(x[:, :33, np.newaxis], (C, 33, N // 32)),
                                  nperseg=64),
    "upfirdn": lambda x: dspk.upfirdn(H, x, 2, 3),
    "resample_poly": lambda x: dspk.resample_poly(x, 3, 2, axis=-1),
    "resample": lambda x: dspk.resample(x, 2 * N, axis=-1),
    "decimate-fir": lambda x: dspk.decimate(x, 2, ftype="fir", zero_phase=False),
    "decimate-iir": lambda x: dspk.decimate(x, 2),
    "common_reference": lambda x: dspk.common_reference(x),
    "whiten": lambda x: dspk.whiten(x),
    "phase_shift": lambda x: dspk.phase_shift(x, np.linspace(0, 1, C)),
}


@pytest.mark.parametrize("name", OUTPUT_CASES)
def test_output_larger_than_memory_fails_before_any_work(name, monkeypatch, rng):
    """The output is measured against the memory free before any copy or kernel."""
    from dspk import validation
    from dspk.dispatch import Call

    monkeypatch.setattr(validation, "free_memory", lambda: validation.UNMEASURED_OUTPUT_BYTES)

    def no_kernel(*args):
        raise AssertionError("a kernel ran before the output's size was checked")

    monkeypatch.setattr(Call, "run", no_kernel)
    # A broadcast view: the signal takes no memory, only a copy of it would.
    x = np.broadcast_to(rng.standard_normal(N).astype(np.float32), (C, N))
    with pytest.raises(MemoryError, match=r"the output of \w+, shape \(64, \d+(, \d+)*\) "
                                          r"\w+ \(\d.* [MG]iB\), is larger than the 64 MiB"):
        OUTPUT_CASES[name](x)
