"""Call plans (:mod:`dspk.plans`): a repeat call skips its decisions, and only when
every one of them would come out the same."""

from __future__ import annotations

import os

import numpy as np
import pytest
import scipy.signal

import dspk
from dspk import plans
from dspk.plugin import KernelNotReady
from dspk.tuning import tuner

RNG = np.random.default_rng(7)
SOS = scipy.signal.butter(4, [0.05, 0.3], "bandpass", output="sos")
B, A = scipy.signal.butter(3, 0.2)


def _plan(name, x, *arguments):
    return plans.find(plans.key(name, x, *arguments))


@pytest.fixture
def x():
    return RNG.standard_normal((6, 200))


def test_a_repeat_call_runs_its_plan_and_gives_the_same_result(x):
    first = dspk.sosfilt(SOS, x, runtime="cpu")
    plan = _plan("sosfilt", x, -1, True, False, None, "cpu", SOS)
    assert plan is not None
    again = dspk.sosfilt(SOS, x, runtime="cpu")
    np.testing.assert_array_equal(again, first)
    np.testing.assert_allclose(again, scipy.signal.sosfilt(SOS, x), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["sosfilt", "lfilter"])
def test_a_complex_state_after_real_ones_is_another_plan(x, name):
    """A plan made with a real ``zi`` would cast a complex one to its real dtype (its
    imaginary part lost): the state's kind is part of the key."""
    coefficients, zi = ((SOS,), RNG.standard_normal((len(SOS), 6, 2))) if name == "sosfilt" \
        else ((B, A), RNG.standard_normal((6, 3)))
    for _ in range(2):
        getattr(dspk, name)(*coefficients, x, zi=zi, runtime="cpu")
    got, _ = getattr(dspk, name)(*coefficients, x, zi=zi + 1j, runtime="cpu")
    want, _ = getattr(scipy.signal, name)(*coefficients, x, zi=zi + 1j)
    assert got.dtype == np.complex128
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


CALLS = {  # name: (dspk's call, its plan key's other arguments, the reference)
    "sosfilt": (lambda x, axis: dspk.sosfilt(SOS, x, axis, runtime="cpu"),
                lambda axis: (axis, True, False, None, "cpu", SOS),
                lambda x, axis: scipy.signal.sosfilt(SOS, x, axis)),
    "lfilter": (lambda x, axis: dspk.lfilter(B, A, x, axis, runtime="cpu"),
                lambda axis: (axis, True, False, None, "cpu", B, A),
                lambda x, axis: scipy.signal.lfilter(B, A, x, axis)),
    "rfft": (lambda x, axis: dspk.rfft(x, axis=axis, runtime="cpu"),
             lambda axis: (None, axis, None, None, None, "cpu"),
             lambda x, axis: np.fft.rfft(x, axis=axis)),
    "hilbert": (lambda x, axis: dspk.hilbert(x, axis=axis, runtime="cpu"),
                lambda axis: (None, axis, "cpu"),
                lambda x, axis: scipy.signal.hilbert(x, axis=axis)),
    "common_reference": (lambda x, axis: dspk.common_reference(x, axis=axis, runtime="cpu"),
                         lambda axis: ("median", None, axis, None, "cpu"),
                         lambda x, axis: x - np.median(x, axis=1 - axis % 2, keepdims=True)),
}


@pytest.mark.parametrize("name", CALLS)
@pytest.mark.parametrize("layout", ["C", "F"])
def test_a_signal_taken_as_it_came_goes_straight_to_its_kernel(name, layout):
    """A repeat call on a 2-D NumPy signal of the working dtype skips the views and
    casts (``Plan.as_is``), and still computes on each call's own values: new arrays
    and one changed in place."""
    call, arguments, reference = CALLS[name]
    axis = -1 if layout == "C" else 0
    x = np.asarray(RNG.standard_normal((6, 200) if layout == "C" else (200, 6)), order=layout)
    call(x, axis)
    assert _plan(name, x, *arguments(axis)).as_is
    for fresh in (np.empty_like(x), x):
        fresh[...] = RNG.standard_normal(x.shape)
        np.testing.assert_allclose(call(fresh, axis), reference(fresh, axis), rtol=1e-10,
                                   atol=1e-10)


@pytest.mark.parametrize("name", CALLS)
def test_a_signal_the_call_reshapes_or_casts_is_not_taken_as_it_came(name):
    call, arguments, reference = CALLS[name]
    cases = [RNG.standard_normal((6, 200)).astype(np.int16)]  # computed in float64
    if name != "common_reference":  # which takes 2-D signals only
        cases.append(RNG.standard_normal(200))
    for x in cases:
        for _ in range(2):
            np.testing.assert_allclose(call(x, -1), reference(x.astype(np.float64), -1),
                                       rtol=1e-10, atol=1e-10)
        plan = _plan(name, x, *arguments(-1))
        assert plan is not None and not plan.as_is


@pytest.mark.parametrize("form", ["array", "list"])
def test_coefficients_changed_in_place_are_a_new_plan(x, form):
    b, a = B.copy(), A.copy()
    dspk.lfilter(b if form == "array" else b.tolist(), a, x, runtime="cpu")
    b *= 0.5  # same object, same shape, new values
    got = dspk.lfilter(b if form == "array" else b.tolist(), a, x, runtime="cpu")
    np.testing.assert_allclose(got, scipy.signal.lfilter(b, a, x), rtol=1e-10, atol=1e-12)


def test_bad_coefficients_after_a_plan_are_still_refused(x):
    dspk.sosfilt(SOS, x, runtime="cpu")
    unstable = SOS.copy()
    unstable[0, 4:] = [-2.5, 1.5]
    with pytest.raises(ValueError, match="sos"):
        dspk.sosfilt(unstable, x, runtime="cpu")


def test_another_layout_or_dtype_is_another_plan(x):
    dspk.sosfilt(SOS, x)
    for other in (np.asfortranarray(x), x[:, ::2], x.astype(np.float32), x.astype(">f8"), x[0]):
        np.testing.assert_allclose(dspk.sosfilt(SOS, other), scipy.signal.sosfilt(SOS, other),
                                   rtol=1e-4, atol=1e-5)
    assert plans.key("sosfilt", x.astype(">f8"), -1, SOS) is None


def test_an_axis_given_as_true_is_not_the_plan_of_axis_1(x):
    assert plans.key("sosfilt", x, 1, SOS) != plans.key("sosfilt", x, True, SOS)


def test_the_runtime_choice_is_read_again_on_every_call(x, monkeypatch):
    dspk.sosfilt(SOS, x)
    monkeypatch.setenv("DSPK_RUNTIME", "no-such-runtime")
    with pytest.raises(ValueError, match="no-such-runtime"):
        dspk.sosfilt(SOS, x)
    monkeypatch.delenv("DSPK_RUNTIME")
    with dspk.runtime.using("cpu"):
        dspk.sosfilt(SOS, x)
        assert _plan("sosfilt", x, -1, True, False, None, None, SOS).call.backend.name == "cpu"


def test_a_forced_variant_has_no_plan(x):
    dspk.sosfilt(SOS, x, runtime="cpu")
    with tuner.forced_variant("sosfilt", "scipy-one-thread"):
        assert plans.key("sosfilt", x, -1, True, False, None, "cpu", SOS) is None
        np.testing.assert_allclose(dspk.sosfilt(SOS, x, runtime="cpu"),
                                   scipy.signal.sosfilt(SOS, x), rtol=1e-10, atol=1e-12)


def test_forgotten_choices_are_forgotten_plans(x):
    dspk.sosfilt(SOS, x, runtime="cpu")
    before = plans.key("sosfilt", x, -1, True, False, None, "cpu", SOS)
    tuner.forget()
    assert plans.find(plans.key("sosfilt", x, -1, True, False, None, "cpu", SOS)) is None
    assert plans.key("sosfilt", x, -1, True, False, None, "cpu", SOS) != before


def test_a_kernel_not_ready_sends_the_call_back_to_the_tuner(x, monkeypatch):
    dspk.sosfilt(SOS, x, runtime="cpu")
    dspk.sosfilt(SOS, x, runtime="cpu")
    plan = _plan("sosfilt", x, -1, True, False, None, "cpu", SOS)
    if plan._kernel is None:
        pytest.skip("the tuner has not settled this problem (tuning off or unfinished)")

    def building(*args):
        raise KernelNotReady("building")

    monkeypatch.setattr(plan, "_kernel", building)
    monkeypatch.setattr(plan, "_ran", False)
    got = dspk.sosfilt(SOS, x, runtime="cpu")
    np.testing.assert_allclose(got, scipy.signal.sosfilt(SOS, x), rtol=1e-10, atol=1e-12)
    assert plan._kernel is not building


def test_large_signals_and_other_array_kinds_have_no_plan():
    big = np.zeros((64, plans.MAX_BYTES // 64 // 8 + 1))
    assert plans.key("sosfilt", big, -1, SOS) is None
    assert plans.key("sosfilt", [1.0, 2.0], -1, SOS) is None
    assert plans.key("sosfilt", np.zeros(8), -1, object()) is None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
@pytest.mark.filterwarnings("ignore:os.fork")  # JAX's, where another test imported it: the
# child here only writes to a pipe and leaves
def test_a_forked_child_starts_without_plans(x):
    dspk.sosfilt(SOS, x, runtime="cpu")
    assert plans._plans
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report and leave without running pytest's teardown
        os.write(write, b"empty" if not plans._plans else b"kept")
        os._exit(0)
    os.close(write)
    assert os.read(read, 16) == b"empty"
    os.waitpid(pid, 0)
