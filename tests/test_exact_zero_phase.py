"""dspk.exact_zero_phase: a zero-phase filter in three passes over a signal read again,
against scipy's one-shot sosfiltfilt, at any chunking and padding."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import signal

from conftest import rel_l2
from dspk.exact_zero_phase import ExactZeroPhase

SOS = signal.butter(3, [0.02, 0.4], "bandpass", output="sos")


def _filtered(x: np.ndarray, step: int, **options) -> np.ndarray:
    stream = ExactZeroPhase(SOS, lambda start, stop: x[start:stop], len(x), step, **options)
    parts = [stream.push(x[start:start + step]) for start in range(0, len(x), step)]
    return np.concatenate([*parts, stream.finish()])


@pytest.mark.parametrize("padtype", ["odd", "even", "constant", None])
@pytest.mark.parametrize("step", [1, 7, 500, 5000])
def test_every_chunking_and_padding_is_the_one_shot(step, padtype, rng):
    x = rng.standard_normal((2000, 3))
    want = signal.sosfiltfilt(SOS, x, axis=0, padtype=padtype)
    assert rel_l2(_filtered(x, step, padtype=padtype), want) <= 1e-12


def test_float32_is_filtered_in_float32(rng):
    x = rng.standard_normal((3000, 2)).astype(np.float32)
    y = _filtered(x, 256)
    assert y.dtype == np.float32
    assert rel_l2(y, signal.sosfiltfilt(SOS, x.astype(np.float64), axis=0)) <= 1e-5


def test_the_input_is_left_alone(rng):
    x = rng.standard_normal((1000, 2))
    x.flags.writeable = False
    before = x.copy()
    _filtered(x, 300)
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("call,match", [
    (lambda stream, x: stream.push(x[:299]), "chunk 0 has 299 samples"),
    (lambda stream, x: (stream.push(x[:300]), stream.finish()), "finished after 1 chunks"),
])
def test_chunks_other_than_the_signals_are_refused(call, match, rng):
    x = rng.standard_normal((1000, 2))
    stream = ExactZeroPhase(SOS, lambda start, stop: x[start:stop], len(x), 300)
    with pytest.raises(ValueError, match=match):
        call(stream, x)


def test_a_signal_no_longer_than_padlen_is_refused():
    with pytest.raises(ValueError, match="needs more than padlen=21"):
        ExactZeroPhase(SOS, lambda start, stop: None, 21, 10)
