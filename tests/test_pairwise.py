"""The default set and the exhaustive set: how the kit's pytest plugin thins products.

A test marked ``pairwise`` runs, by default, a selection of its combinations
that holds every pair of parameter values; ``--exhaustive`` runs them all and
``-m exhaustive`` the rest.
"""

from __future__ import annotations

import itertools

import pytest

from dspk.testing import PYTEST_PLUGIN, pairwise

pytest_plugins = ["pytester"]

PRODUCT = """
import pytest

@pytest.mark.pairwise
@pytest.mark.parametrize("a", ["a0", "a1", "a2", "a3"])
@pytest.mark.parametrize(("b", "c"), [("b0", "c0"), ("b1", "c1"), ("b2", "c2")])
@pytest.mark.parametrize("d", ["d0", "d1"])
def test_product(a, b, c, d):
    pass

@pytest.mark.exhaustive
def test_by_hand():
    pass

def test_plain():
    pass
"""
COMBINATIONS = 4 * 3 * 2


def _held(rows, size):
    """The values (size 1) or pairs of values (size 2) of two columns that ``rows`` hold."""
    return {c for row in rows for c in itertools.combinations(enumerate(row), size)}


@pytest.mark.parametrize("lengths", [(5,), (3, 3), (2, 2, 2), (8, 2, 8, 2, 2, 5), (7, 1, 4)])
def test_pairwise_holds_every_value_and_pair_of_a_product(lengths):
    rows = list(itertools.product(*(range(n) for n in lengths)))
    chosen = [rows[i] for i in pairwise(rows)]
    for size in (1, 2):
        assert _held(chosen, size) == _held(rows, size)
    largest = sorted(lengths)[-2:]
    assert len(chosen) <= 1.25 * largest[0] * largest[-1]


def test_pairwise_of_rows_that_are_no_product_holds_what_they_hold():
    rows = [("x", 1, True), ("x", 2, False), ("y", 2, True), ("y", 1, True), ("z", 1, False)]
    chosen = [rows[i] for i in pairwise(rows)]
    assert _held(chosen, 2) == _held(rows, 2)
    assert pairwise(rows) == pairwise(rows)  # deterministic


def _passed(pytester, *args) -> list[str]:
    pytester.makepyfile(test_product=PRODUCT)
    result = pytester.inline_run("-p", PYTEST_PLUGIN, "-p", "no:hypothesispytest",
                                 "--strict-markers", *args)
    passed, skipped, failed = result.listoutcomes()
    assert not failed and not skipped
    return sorted(report.nodeid.split("::")[-1] for report in passed)


def _values(name: str) -> tuple[str, ...]:
    """``test_product[d0-b1-c1-a2]``'s values, in the order a, b, d (c goes with b)."""
    d, b, _, a = name[len("test_product["):-1].split("-")
    return a, b, d


def test_the_default_run_holds_every_pair_and_the_exhaustive_run_the_rest(pytester):
    default = _passed(pytester)
    rest = _passed(pytester, "-m", "exhaustive")
    everything = _passed(pytester, "--exhaustive")

    assert "test_plain" in default and "test_by_hand" not in default
    products = [_values(name) for name in default if name.startswith("test_product[")]
    assert len(products) == 12  # 4 x 3: the two longest lists' pairs, each once
    all_rows = list(itertools.product(["a0", "a1", "a2", "a3"], ["b0", "b1", "b2"],
                                      ["d0", "d1"]))
    assert _held(products, 2) == _held(all_rows, 2)

    assert "test_by_hand" in rest and "test_plain" not in rest
    assert not set(rest) & set(default)
    assert sorted(default + rest) == everything
    assert len(everything) == COMBINATIONS + 2
    assert _passed(pytester) == default  # the same selection every time


def test_a_combination_named_on_the_command_line_runs(pytester):
    left_out = next(name for name in _passed(pytester, "-m", "exhaustive")
                    if name.startswith("test_product["))
    assert _passed(pytester, f"test_product.py::{left_out}") == [left_out]
