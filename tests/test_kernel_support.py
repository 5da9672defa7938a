"""dspk.kernel_support: the host-side algorithms the runtimes share, against plain NumPy and
scipy.signal on random data, in float32 and float64; and the default Backend.prepare."""

import numpy as np
import pytest
from scipy import signal

from dspk.kernel_support import segments, transitions
from dspk.plugin import Backend, Problem, Variant

DTYPES = [np.float32, np.float64]

# -- transitions ------------------------------------------------------------------------


def _random_sos(rng, sections):
    """A stable cascade: poles and zeros of random radius and angle, a0 = 1."""
    sos = np.zeros((sections, 6))
    for row, (pole, zero) in enumerate(zip(rng.uniform(0.3, 0.995, sections) *
                                           np.exp(1j * rng.uniform(0, np.pi, sections)),
                                           rng.uniform(0.0, 1.5, sections) *
                                           np.exp(1j * rng.uniform(0, np.pi, sections)))):
        sos[row, :3] = np.poly([zero, np.conj(zero)]).real * rng.uniform(0.5, 2.0)
        sos[row, 3:] = np.poly([pole, np.conj(pole)]).real
    return sos


def _ba_rows(b, a):
    """lfilter's ``b, a`` as one row of order ``K - 1``, both of length ``K``."""
    size = max(len(b), len(a))
    return np.concatenate([np.pad(b, (0, size - len(b))), np.pad(a, (0, size - len(a)))])[None]


@pytest.mark.parametrize("sections", [1, 3, 8])
@pytest.mark.parametrize("length", [1, 7, 256, 1000])
def test_block_transition_maps_a_state_as_sosfilt_does_over_zeros(rng, sections, length):
    sos = _random_sos(rng, sections)
    zi = rng.standard_normal((sections, 2))
    _, zf = signal.sosfilt(sos, np.zeros(length), zi=zi)
    got = transitions.block_transition(sos, 2, length) @ zi.ravel()
    assert np.allclose(got, zf.ravel(), rtol=1e-12, atol=1e-12 * np.abs(zi).max())


@pytest.mark.parametrize("design", [signal.butter(1, 0.3), signal.cheby1(5, 1, 0.2),
                                    signal.butter(4, [0.1, 0.3], "bandpass"),
                                    (signal.firwin(9, 0.3), np.array([1.0])),
                                    (np.array([0.2, 0.1]), np.array([1.0, -0.6, 0.25, -0.05]))])
def test_block_transition_maps_a_state_as_lfilter_does_over_zeros(rng, design):
    b, a = design
    rows = _ba_rows(b, a)
    order = rows.shape[1] // 2 - 1
    zi = rng.standard_normal(order)
    _, zf = signal.lfilter(rows[0, :order + 1], rows[0, order + 1:], np.zeros(300), zi=zi)
    assert np.allclose(transitions.block_transition(rows, order, 300) @ zi, zf, rtol=1e-12,
                       atol=1e-12)


def test_a_fir_transition_over_its_order_is_exactly_zero():
    """What lets a runtime skip the scan of an FIR filter."""
    rows = _ba_rows(signal.firwin(21, 0.3), [1.0])
    assert transitions.block_transition(rows, 20, 19).any()
    assert not transitions.block_transition(rows, 20, 20).any()


@pytest.mark.parametrize("dtype", DTYPES)
def test_scan_powers_are_the_transition_squared_each_rounded_once(rng, dtype):
    sos = _random_sos(rng, 3)
    powers = transitions.scan_powers(sos, 2, 100, 5, dtype)
    wide = transitions.scan_powers(sos, 2, 100, 5, transitions.WIDE)
    assert powers.dtype == dtype and powers.shape == (5, 6, 6)
    assert np.array_equal(powers, wide.astype(dtype))
    t = transitions.block_transition(sos, 2, 100)
    for k in range(5):
        reference = np.linalg.matrix_power(t, 2 ** k)
        assert np.allclose(wide[k].astype(np.float64), reference, rtol=1e-9,
                           atol=1e-12 * np.abs(reference).max())
    assert transitions.scan_powers(sos, 2, 100, 0, dtype).shape == (1, 6, 6)


def test_a_slow_filter_transition_agrees_with_a_simulation():
    """Poles near z = 1: the transition squared in WIDE agrees with filtering the unit
    states through zeros in float64, to that simulation's rounding."""
    sos = signal.butter(2, 1.0, "highpass", fs=30000.0, output="sos")
    length = 4096
    starts = np.eye(2).reshape(2, 1, 2)
    simulated = np.stack([signal.sosfilt(sos, np.zeros(length), zi=z)[1].ravel()
                          for z in starts], axis=1)
    got = transitions.block_transition(sos, 2, length)
    assert np.abs(got - simulated).max() <= 1e-9 * np.abs(simulated).max()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("block", [64, 250])
def test_blocks_carried_with_the_transition_filter_as_sosfilt(rng, dtype, block):
    """The time-parallel plan in NumPy: blocks filtered from zero, their final states
    carried by ``T``, each block filtered again from its true start."""
    sos = _random_sos(rng, 4).astype(dtype)
    x = rng.standard_normal(1000).astype(dtype)
    t = transitions.scan_powers(sos, 2, block, 1, dtype)[0]
    state, y = np.zeros(8, dtype), []
    for first in range(0, len(x), block):
        part = x[first:first + block]
        y.append(signal.sosfilt(sos, part, zi=state.reshape(4, 2))[0])
        _, final = signal.sosfilt(sos, part, zi=np.zeros((4, 2), dtype))
        state = (t @ state + final.ravel()).astype(dtype) if len(part) == block else None
    reference = signal.sosfilt(sos.astype(np.float64), x.astype(np.float64))
    error = np.linalg.norm(np.concatenate(y) - reference) / np.linalg.norm(reference)
    assert error < (1e-4 if dtype == np.float32 else 1e-12)


# -- segments -------------------------------------------------------------------------


def _frames(v, nperseg, step, nfft, window):
    """Every segment of channel-major ``v``, windowed and transformed: channels x segments
    x bins (one-sided)."""
    count = (v.shape[1] - nperseg) // step + 1
    pieces = np.stack([v[:, s * step:s * step + nperseg] for s in range(count)], axis=1)
    return np.fft.rfft(pieces * window, nfft, axis=-1)


def _spectra(nperseg, step, nfft, window):
    """Segment spectra as a runtime supplies them, trailing zeros read past the end."""
    def spectra(v, part):
        longest = (part.stop - 1) * step + nperseg
        padded = np.pad(v, ((0, 0), (0, max(0, longest - v.shape[1]))))
        return _frames(padded, nperseg, step, nfft, window)[:, part]
    return spectra


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("average", ["mean", "median"])
@pytest.mark.parametrize(("x_channels", "y_channels", "y_samples"),
                         [(3, None, None), (3, 3, 1000), (1, 4, 1000), (4, 1, 873)])
@pytest.mark.parametrize("block_elements", [1, 1000, 1 << 20])
def test_averaged_products_are_the_mean_or_median_over_all_segments(
        rng, dtype, average, x_channels, y_channels, y_samples, block_elements):
    nperseg, step, nfft = 64, 24, 96
    window = signal.get_window("hann", nperseg).astype(dtype)
    vx = rng.standard_normal((x_channels, 1000)).astype(dtype)
    vy = None if y_channels is None else rng.standard_normal((y_channels, y_samples)).astype(dtype)
    got = segments.averaged_products(np, _spectra(nperseg, step, nfft, window), vx, vy, nperseg,
                                     step, nfft, average, block_elements)
    fx = _frames(vx.astype(np.float64), nperseg, step, nfft, window)
    if vy is None:
        products = np.abs(fx) ** 2
    else:
        padded = np.pad(vy.astype(np.float64), ((0, 0), (0, 1000 - y_samples)))
        products = fx.conj() * _frames(padded, nperseg, step, nfft, window)
    if average == "mean":
        reference = products.mean(axis=1)
    else:
        reference = np.median(products.real, axis=1) + 1j * np.median(products.imag, axis=1)
        reference = reference if vy is not None else reference.real
    assert got.shape == reference.shape == (max(x_channels, y_channels or 0), nfft // 2 + 1)
    assert np.iscomplexobj(got) == (vy is not None)
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    assert np.linalg.norm(got - reference) <= tolerance * np.linalg.norm(reference)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cross", [False, True])
def test_weighted_keeps_the_weights_precision(rng, dtype, cross):
    p = rng.standard_normal((2, 5)) + (1j * rng.standard_normal((2, 5)) if cross else 0)
    weights = rng.uniform(0.5, 2.0, 5).astype(dtype)
    got = segments.weighted(np, p, weights, cross)
    assert got.dtype == (np.result_type(dtype, np.complex64) if cross else dtype)
    assert np.allclose(got, p * weights, rtol=1e-6 if dtype == np.float32 else 1e-15)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_stft_values_are_numpys(rng, dtype):
    z = (rng.standard_normal((2, 3, 40)) + 1j * rng.standard_normal((2, 3, 40))).astype(dtype)
    expected = {"complex": z, "power": np.abs(z) ** 2, "magnitude": np.abs(z),
                "angle": np.angle(z), "phase": np.unwrap(np.angle(z), axis=-1)}
    assert set(segments.VALUES) == set(expected)
    for value, reference in expected.items():
        got = segments.VALUES[value](np, z)
        assert got.dtype == reference.dtype, value
        assert np.allclose(got, reference, rtol=1e-5), value


@pytest.mark.parametrize("boundary", [None, "zeros", "even"])
@pytest.mark.parametrize(("samples", "nperseg", "noverlap"), [(1000, 256, 128), (999, 64, 0),
                                                              (100, 100, 37), (511, 32, 31)])
def test_stft_extent_counts_scipys_segments(boundary, samples, nperseg, noverlap):
    step = nperseg - noverlap
    for padded in (False, True):
        _, _, z = signal.stft(np.zeros(samples), nperseg=nperseg, noverlap=noverlap,
                              boundary=boundary, padded=padded)
        edge = nperseg // 2 if boundary else 0
        extended = samples + 2 * edge
        pad = (-(extended - nperseg) % step) if padded else 0
        assert segments.stft_extent(samples, nperseg, step, boundary, pad) == (edge,
                                                                               z.shape[-1])
    assert segments.bin_count(nperseg, "onesided") == nperseg // 2 + 1
    assert segments.bin_count(nperseg, "twosided") == nperseg


# -- the default Backend.prepare --------------------------------------------------------


def test_the_default_prepare_runs_the_variant_on_a_small_native_input():
    class Native:
        def __init__(self, a):
            self.a = a

    calls = []

    class Toy(Backend):
        name = "toy"

        def device(self):
            return "toy"

        def fingerprint(self):
            return {}

        def variants(self, op):
            return []

        def asarray(self, x):
            return Native(x)

        def is_native(self, x):
            return isinstance(x, Native)

        def wait(self):
            calls.append("wait")

    def kernel(**arguments):
        calls.append(arguments)

    problem = Problem.make("sosfilt", "float32", 64, 1 << 20, "channel-major", sections=3)
    Toy().prepare(Variant("k", kernel, "0"), problem)
    arguments, done = calls
    assert done == "wait"
    assert isinstance(arguments["x"], Native) and arguments["x"].a.shape == (2, 1024)
    assert arguments["x"].a.dtype == np.float32 and arguments["sos"].a.shape == (3, 6)
