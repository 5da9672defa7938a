"""The documentation site covers the public API, each function with a running example.

The examples themselves run as doctests (``--doctest-modules`` and
``--doctest-glob=*.md``); this checks that none is missing. The site's build
(``./dev docs``, warnings as errors) checks that every guide is linked.
"""

import inspect
import re
from pathlib import Path

import pytest

import dspk

DOCS = Path(__file__).parents[1] / "docs"
FUNCTIONS = [name for name in dspk.__all__ if name != "runtime"]


def _listed() -> list[str]:
    text = (DOCS / "api" / "functions.rst").read_text()
    return re.findall(r"^   (\w+)$", text, re.M)


def test_every_public_function_has_a_reference_page():
    assert sorted(_listed()) == sorted(FUNCTIONS)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_every_public_function_has_an_example(name):
    doc = inspect.getdoc(getattr(dspk, name)) or ""
    assert re.search(r"^Examples\n-+\n(.*\n)*>>> ", doc, re.M), f"dspk.{name} has no example"



def test_the_plugin_guide_tables_each_functions_kernel_operations():
    from dspk.operations import KERNELS_OF

    text = (DOCS / "plugins.md").read_text()
    rows = dict(re.findall(r"^\| `([^`]+)` \| (`.*`) \|$", text, re.M))
    assert {name: tuple(re.findall(r"`(\w+)`", ops)) for name, ops in rows.items()} == KERNELS_OF
