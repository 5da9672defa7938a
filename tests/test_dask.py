"""dspk.dask on a dask.distributed LocalCluster of several workers, against the one-shot results.

Skipped where the optional extra (dask, distributed) is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import signal

from conftest import TOLERANCE, rel_l2

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

import dspk
import dspk.dask

SOS = signal.butter(3, [0.02, 0.4], "bandpass", output="sos")
BA = signal.cheby1(4, 1, 0.1, "highpass")


@pytest.fixture(scope="module")
def client():
    """Two single-threaded workers in this process: the cluster's scheduling, no start-up cost."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as connected:
        yield connected


@pytest.fixture(autouse=True)
def _untuned(monkeypatch):
    monkeypatch.setenv("DSPK_TUNING", "off")


def chunked(x: np.ndarray, axis: int, lengths: tuple[int, ...]):
    chunks = [x.shape[0], x.shape[1]]
    chunks[axis] = lengths
    return da.from_array(x, chunks=tuple(chunks))


IRREGULAR = (1, 250, 37, 400, 1, 311)  # 1000 samples


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [-1, 0])
def test_sosfilt_is_exact_across_blocks(client, axis, dtype, rng):
    x = rng.standard_normal((3, 1000) if axis == -1 else (1000, 3)).astype(dtype)
    y = dspk.dask.sosfilt(SOS, chunked(x, axis, IRREGULAR), axis=axis).compute()
    assert y.dtype == dtype
    assert rel_l2(y, signal.sosfilt(SOS, x.astype(np.float64), axis=axis)) <= TOLERANCE[dtype]


def test_lfilter_with_initial_state_gives_the_final_state(client, rng):
    x = rng.standard_normal((1000, 2))
    zi = rng.standard_normal((len(BA[1]) - 1, 2))
    y, zf = dspk.dask.lfilter(*BA, chunked(x, 0, IRREGULAR), axis=0, zi=zi)
    expected, expected_zf = signal.lfilter(*BA, x, axis=0, zi=zi)
    assert rel_l2(y.compute(), expected) <= 1e-12
    assert rel_l2(zf.compute(), expected_zf) <= 1e-12


def test_sosfilt_state_of_many_blocks(client, rng):
    x = rng.standard_normal((2, 5000))
    zi = rng.standard_normal((len(SOS), 2, 2))
    y, zf = dspk.dask.sosfilt(SOS, chunked(x, -1, (500,) * 10), zi=zi)
    expected, expected_zf = signal.sosfilt(SOS, x, zi=zi)
    assert rel_l2(y.compute(), expected) <= 1e-12
    assert rel_l2(zf.compute(), expected_zf) <= 1e-12


def _random_chunks(rng, n: int, pieces: int) -> tuple[int, ...]:
    """``pieces`` lengths summing to ``n``, cut at random (one sample and up)."""
    cuts = np.sort(rng.choice(np.arange(1, n), size=pieces - 1, replace=False))
    return tuple(int(v) for v in np.diff(np.r_[0, cuts, n]))


@pytest.mark.pairwise
@pytest.mark.parametrize("padtype,padlen", [("odd", None), ("even", 40), ("constant", 5),
                                            (None, None)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [-1, 0])
def test_sosfiltfilt_is_exact_at_any_chunking(client, axis, dtype, padtype, padlen, rng):
    x = rng.standard_normal((3, 1500) if axis == -1 else (1500, 3)).astype(dtype)
    lengths = (1, 2, 3) + _random_chunks(rng, 1500 - 6 - 4, 10) + (4,)  # short ends too
    y = dspk.dask.sosfiltfilt(SOS, chunked(x, axis, lengths), axis=axis, padtype=padtype,
                              padlen=padlen).compute()
    expected = signal.sosfiltfilt(SOS, x.astype(np.float64), axis=axis, padtype=padtype,
                                  padlen=padlen)
    assert y.dtype == dtype
    assert rel_l2(y, expected) <= (1e-12 if dtype == np.float64 else TOLERANCE[dtype])


@pytest.mark.parametrize("padtype", ["odd", "even"])
@pytest.mark.parametrize("cutoff,tolerance", [
    (0.002, 1e-10),
    # No margin within reach of the one-pass method. The transfer function's double pole
    # 2e-6 from z = 1 is ill-conditioned: the powers of its state transition, which carry
    # the states across blocks, lose about 7 digits.
    (1e-6, 1e-8),
])
def test_filtfilt_is_exact_at_any_chunking(client, padtype, cutoff, tolerance, rng):
    """High-passes near DC on a drifting signal, as raw recordings are."""
    x = rng.standard_normal((2000, 2)).cumsum(axis=0)
    b, a = signal.butter(2, cutoff, "highpass")
    lengths = _random_chunks(rng, 2000, 12)
    y = dspk.dask.filtfilt(b, a, chunked(x, 0, lengths), axis=0, padtype=padtype)
    assert rel_l2(y.compute(), signal.filtfilt(b, a, x, axis=0, padtype=padtype)) <= tolerance


@pytest.mark.pairwise
@pytest.mark.parametrize("irlen", [None, 70])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [-1, 0])
def test_filtfilt_gust_is_exact_at_any_chunking(client, axis, dtype, irlen, rng):
    """Gustafsson's method: every pass exact across blocks, the least squares over all the
    samples (over the ends, with irlen), at random chunks down to one sample."""
    x = rng.standard_normal((3, 1500) if axis == -1 else (1500, 3)).astype(dtype)
    lengths = (1, 2, 3) + _random_chunks(rng, 1500 - 6 - 4, 10) + (4,)
    y = dspk.dask.filtfilt(*BA, chunked(x, axis, lengths), axis=axis, method="gust",
                           irlen=irlen).compute()
    expected = signal.filtfilt(*BA, x.astype(np.float64), axis=axis, method="gust",
                               irlen=irlen)
    assert y.dtype == dtype
    assert rel_l2(y, expected) <= (1e-12 if dtype == np.float64 else TOLERANCE[dtype])


def test_filtfilt_gust_of_a_constant_gain(client, rng):
    x = rng.standard_normal((2, 300))
    y = dspk.dask.filtfilt([0.5], [2.0], chunked(x, -1, (100, 200)), method="gust")
    np.testing.assert_allclose(y.compute(), signal.filtfilt([0.5], [2.0], x, method="gust"))


@pytest.mark.parametrize("axis", [-1, 0])
def test_sosfiltfilt_with_margins(client, axis, rng):
    x = rng.standard_normal((3, 3000) if axis == -1 else (3000, 3))
    y = dspk.dask.sosfiltfilt(SOS, chunked(x, axis, (960, 1080, 960)), axis=axis,
                              tol=1e-12)  # margin 956
    assert rel_l2(y.compute(), signal.sosfiltfilt(SOS, x, axis=axis)) <= 1e-10


def test_filtfilt_with_margins(client, rng):
    x = rng.standard_normal((2, 4000)).astype(np.float32)
    y = dspk.dask.filtfilt(*BA, chunked(x, -1, (1500, 1000, 1500)), padtype="even", tol=1e-9)
    expected = signal.filtfilt(*BA, x.astype(np.float64), padtype="even")
    assert y.dtype == np.float32
    assert rel_l2(y.compute(), expected) <= TOLERANCE[np.float32]


def test_phase_shift_of_a_band_limited_signal(client, rng):
    x = signal.sosfiltfilt(SOS, rng.standard_normal((3, 6000))) * signal.windows.tukey(6000)
    shifts = [0.1, 0.5, 12 / 13]
    y = dspk.dask.phase_shift(chunked(x, -1, (1500, 2500, 2000)), shifts, margin=400)
    expected = dspk.phase_shift(x, shifts, margin=400)
    assert np.abs(y.compute() - expected).max() <= 1e-6 * np.abs(expected).max()


def test_phase_shift_of_one_chunk_is_the_one_shot(client, rng):
    x = rng.standard_normal((500, 2))
    y = dspk.dask.phase_shift(chunked(x, 0, (500,)), [0.3, 0.7], margin=60, axis=0)
    assert rel_l2(y.compute(), dspk.phase_shift(x, [0.3, 0.7], margin=60, axis=0)) <= 1e-12


def test_common_reference_is_exact(client, rng):
    x = rng.standard_normal((6, 900)).astype(np.float32)
    groups = [[0, 1, 2], [3, 5]]
    y = dspk.dask.common_reference(da.from_array(x, chunks=(3, 200)), groups=groups)
    np.testing.assert_array_equal(y.compute(), dspk.common_reference(x, groups=groups))


@pytest.mark.parametrize("axis", [-1, 0])
def test_welch_averages_the_segments_of_one_shot(client, axis, rng):
    x = rng.standard_normal((2, 3000) if axis == -1 else (3000, 2))
    f, pxx = dspk.dask.welch(chunked(x, axis, (100, 1300, 700, 900)), fs=50.0, nperseg=256,
                             noverlap=100, axis=axis)
    f_ref, p_ref = signal.welch(x, fs=50.0, nperseg=256, noverlap=100, axis=axis)
    np.testing.assert_allclose(f, f_ref)
    assert rel_l2(pxx.compute(), p_ref) <= 1e-10


@pytest.mark.parametrize("call,error,match", [
    (lambda x: dspk.dask.sosfilt(SOS, x.compute()), TypeError, "x must be a dask array"),
    (lambda x: dspk.dask.sosfilt(SOS, x[None]), ValueError, "x must be 2-D"),
    (lambda x: dspk.dask.sosfilt(SOS, x, zi=np.zeros((3, 2))), ValueError, "zi has shape"),
    (lambda x: dspk.dask.sosfiltfilt(SOS, x.rechunk((2, 50)), tol=1e-12), ValueError,
     "shorter than the margin"),
    (lambda x: dspk.dask.sosfiltfilt(SOS, x[:, :10]), ValueError, "padlen=21 must be less"),
    (lambda x: dspk.dask.phase_shift(x, [0.5]), ValueError, "one value per channel"),
    (lambda x: dspk.dask.welch(x, nperseg=5000), ValueError, "nperseg=5000 is larger"),
    (lambda x: dspk.dask.common_reference(x, groups=[[7]]), ValueError, "out of range"),
    (lambda x: dspk.dask.filtfilt(*BA, x, method="gust", tol=1e-9), ValueError,
     "margin and tol apply to method='pad'"),
    (lambda x: dspk.dask.filtfilt(*BA, x, method="gustafsson"), ValueError, "method"),
    (lambda x: dspk.dask.filtfilt(*BA, x, method="gust", irlen=0), ValueError, "irlen"),
])
def test_bad_input(call, error, match, rng):
    x = da.from_array(rng.standard_normal((2, 3000)), chunks=(2, 1000))
    with pytest.raises(error, match=match):
        call(x)
