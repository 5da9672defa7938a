"""The everyday filters of dspk.designs against scipy's designs run by scipy.signal.

The references design with scipy.signal's family functions and filter with
scipy.signal.sosfiltfilt or sosfilt in float64: the same design and the same
filtering, so float64 results agree to rounding.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy import signal

from conftest import TOLERANCE, open_backend, rel_l2, variant_params
from dspk import validation
from dspk.designs import Filter, bandpass, highpass, lowpass, notch
from dspk.tuning.tuner import forced_variant

FS = 30000.0
DTYPES = [np.float32, np.float64]
SIGNALS = [((1000,), -1), ((5, 1023), -1), ((1031, 6), 0), ((3, 2, 257), -1)]

# band and the functions' band arguments: spike band, high-pass, low-pass.
BANDS = {
    "bandpass": ([300.0, 6000.0], lambda x, **kw: bandpass(x, 300, 6000, FS, **kw)),
    "highpass": (300.0, lambda x, **kw: highpass(x, 300, FS, **kw)),
    "lowpass": (6000.0, lambda x, **kw: lowpass(x, 6000, FS, **kw)),
}


@pytest.fixture(autouse=True)
def _default_variants(monkeypatch):
    """Tests that force no variant run the defaults, without timing the others."""
    monkeypatch.setenv("DSPK_TUNING", "off")


def scipy_design(ftype, band, btype, order=4):
    """The reference: scipy's own function for the family, with dspk's documented defaults."""
    designs = {
        "butter": lambda: signal.butter(order, band, btype, output="sos", fs=FS),
        "cheby1": lambda: signal.cheby1(order, 0.1, band, btype, output="sos", fs=FS),
        "cheby2": lambda: signal.cheby2(order, 60, band, btype, output="sos", fs=FS),
        "ellip": lambda: signal.ellip(order, 0.1, 60, band, btype, output="sos", fs=FS),
        "bessel": lambda: signal.bessel(order, band, btype, output="sos", norm="mag", fs=FS),
    }
    return designs[ftype]()


def filtering_variants():
    """(operation, runtime, variant) for both passes a design may run on."""
    return [pytest.param(op, *p.values, id=f"{op}-{p.id}")
            for op in ("sosfiltfilt", "sosfilt") for p in variant_params(op)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("zero_phase", [True, False])
@pytest.mark.parametrize("btype", list(BANDS))
@pytest.mark.parametrize("ftype", ["butter", "cheby1", "cheby2", "ellip", "bessel"])
def test_matches_scipy(dtype, zero_phase, btype, ftype, rng):
    band, run = BANDS[btype]
    x64 = rng.standard_normal((5, 1023))
    reference = signal.sosfiltfilt if zero_phase else signal.sosfilt
    got = run(x64.astype(dtype), ftype=ftype, zero_phase=zero_phase)
    assert got.dtype == dtype and isinstance(got, np.ndarray)
    assert rel_l2(got, reference(scipy_design(ftype, band, btype), x64)) <= TOLERANCE[dtype]


@pytest.mark.parametrize(("op", "runtime", "variant"), filtering_variants())
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "axis"), SIGNALS)
def test_every_variant_and_axis(op, runtime, variant, dtype, shape, axis, rng):
    open_backend(runtime)
    zero_phase = op == "sosfiltfilt"
    x64 = rng.standard_normal(shape)
    design = Filter.bandpass(300, 6000, FS, zero_phase=zero_phase)
    reference = signal.sosfiltfilt if zero_phase else signal.sosfilt
    with forced_variant(op, variant):
        got = design(x64.astype(dtype), axis=axis, runtime=runtime)
    assert got.dtype == dtype
    assert rel_l2(got, reference(scipy_design("butter", [300, 6000], "bandpass"), x64,
                                 axis=axis)) <= TOLERANCE[dtype]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "axis"), SIGNALS)
@pytest.mark.parametrize("zero_phase", [True, False])
def test_notch(dtype, shape, axis, zero_phase, rng):
    x64 = rng.standard_normal(shape)
    sos = signal.tf2sos(*signal.iirnotch(1000, 20, fs=FS))
    reference = signal.sosfiltfilt if zero_phase else signal.sosfilt
    got = notch(x64.astype(dtype), 1000, FS, Q=20, zero_phase=zero_phase, axis=axis)
    assert got.dtype == dtype
    assert rel_l2(got, reference(sos, x64, axis=axis)) <= TOLERANCE[dtype]


@pytest.mark.parametrize(("make", "reference"), [
    (lambda: Filter.highpass(1.0, 1000.0), signal.butter(4, 1.0, "highpass", fs=1000,
                                                         output="sos")),
    (lambda: Filter.notch(50.0, 30000.0), signal.tf2sos(*signal.iirnotch(50, 30, fs=30000))),
    (lambda: Filter.lowpass(20.0, 30000.0), signal.butter(4, 20, fs=30000, output="sos")),
])
@pytest.mark.parametrize("zero_phase", [True, False])
def test_float32_near_dc_keeps_accuracy(make, reference, zero_phase, rng):
    """Poles near z = 1 are filtered in float64 for float32 signals, which stay float32."""
    design = dataclasses.replace(make(), zero_phase=zero_phase)
    assert validation.working_dtype(np.dtype("float32"), design.sos[:, 3:]) == np.float64
    x64 = rng.standard_normal((3, 4000))
    got = design(x64.astype(np.float32), axis=-1)
    run = signal.sosfiltfilt if zero_phase else signal.sosfilt
    assert got.dtype == np.float32
    assert rel_l2(got, run(reference, x64)) <= TOLERANCE[np.float32]


def test_spike_band_stays_in_float32():
    sos = Filter.bandpass(300, 6000, FS).sos
    assert validation.working_dtype(np.dtype("float32"), sos[:, 3:]) == np.float32


@pytest.mark.parametrize(("ftype", "options", "reference"), [
    ("cheby1", {"rp": 0.5}, lambda: signal.cheby1(3, 0.5, 500, "highpass", fs=FS,
                                                  output="sos")),
    ("cheby2", {"rs": 40}, lambda: signal.cheby2(3, 40, 500, "highpass", fs=FS,
                                                 output="sos")),
    ("ellip", {"rp": 1, "rs": 80}, lambda: signal.ellip(3, 1, 80, 500, "highpass", fs=FS,
                                                        output="sos")),
])
def test_ripple_options_and_order(ftype, options, reference):
    design = Filter.highpass(500, FS, order=3, ftype=ftype, **options)
    np.testing.assert_allclose(design.sos, reference(), rtol=1e-12, atol=1e-15)


def test_filter_is_reusable_and_frozen(rng):
    design = Filter.bandpass(300, 6000, FS, zero_phase=False)
    first, second = rng.standard_normal((2, 500)), rng.standard_normal(700)
    sos = signal.butter(4, [300, 6000], "bandpass", fs=FS, output="sos")
    assert rel_l2(design(first), signal.sosfilt(sos, first)) <= TOLERANCE[np.float64]
    assert rel_l2(design.apply(second), signal.sosfilt(sos, second)) <= TOLERANCE[np.float64]
    with pytest.raises(dataclasses.FrozenInstanceError):
        design.fs = 1000.0
    with pytest.raises(ValueError, match="read-only"):
        design.sos[0, 0] = 1.0


def test_filter_from_sections(rng):
    sos = signal.butter(2, 0.1, output="sos")
    x = rng.standard_normal(300)
    got = Filter(sos, fs=2.0)(x)
    assert rel_l2(got, signal.sosfiltfilt(sos, x)) <= TOLERANCE[np.float64]


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda x: bandpass(x, 0, 6000, FS), ValueError,
     r"low=0 must lie strictly between 0 and the Nyquist frequency fs/2 = 15000"),
    (lambda x: bandpass(x, 300, 15000, FS), ValueError, r"high=15000 .* fs/2 = 15000"),
    (lambda x: bandpass(x, 300, 20000.0, FS), ValueError, r"high=20000.0 .* fs/2 = 15000"),
    (lambda x: bandpass(x, 6000, 300, FS), ValueError, "low=6000 must be below high=300"),
    (lambda x: bandpass(x, 300, 300, FS), ValueError, "must be below high"),
    (lambda x: highpass(x, -5, FS), ValueError, r"cutoff=-5 .* fs/2 = 15000"),
    (lambda x: lowpass(x, 16000, FS), ValueError, r"cutoff=16000 .* fs/2 = 15000"),
    (lambda x: lowpass(x, "300", FS), TypeError, "cutoff must be a real number"),
    (lambda x: lowpass(x, 300, 0), ValueError, "fs must be a finite number > 0"),
    (lambda x: lowpass(x, 300, FS, order=0), ValueError, "order must be an integer >= 1"),
    (lambda x: lowpass(x, 300, FS, order=2.5), TypeError, "order must be an integer"),
    (lambda x: lowpass(x, 300, FS, ftype="chebyshev"), ValueError, "ftype='chebyshev'"),
    (lambda x: lowpass(x, 300, FS, rp=1.0), ValueError,
     "rp=1.0 has no effect with ftype='butter'"),
    (lambda x: lowpass(x, 300, FS, ftype="cheby1", rs=40), ValueError,
     "rs=40 has no effect with ftype='cheby1'"),
    (lambda x: lowpass(x, 300, FS, ftype="ellip", rp=-1), ValueError,
     "rp must be a finite number > 0"),
    (lambda x: notch(x, 50, FS, Q=0), ValueError, "Q must be a finite number > 0"),
    (lambda x: notch(x, 0, FS), ValueError, r"freq=0 .* fs/2 = 15000"),
    (lambda x: notch(x, 15000, FS), ValueError, r"freq=15000 .* fs/2 = 15000"),
    (lambda x: bandpass(np.zeros((2, 0)), 300, 6000, FS), ValueError, "x is empty"),
    (lambda x: Filter(np.ones((2, 5)), FS), ValueError, "sos must have shape"),
])
def test_bad_input(call, error, match, rng):
    with pytest.raises(error, match=match):
        call(rng.standard_normal((2, 500)))
