"""Every hook of :mod:`dspk.hookspec` documents when it is called and each parameter.

The hook specifications are the plugin author's reference; an undocumented
hook fails here rather than reaching the documentation site.
"""

import inspect
import re

import pytest

from dspk import hookspec


def _hooks():
    return [function for name, function in inspect.getmembers(hookspec, inspect.isfunction)
            if hasattr(function, "dspk_spec")]


def _documents(doc: str, parameter: str) -> bool:
    """A numpydoc ``name : type`` entry under Parameters, or a ``:param name:`` field."""
    numpydoc = re.search(r"^Parameters\n-+\n(.*?)(?:\n\n\S+\n-+\n|\Z)", doc, re.S | re.M)
    return bool(numpydoc and re.search(rf"^{parameter}\b\s*(:|$)", numpydoc.group(1), re.M)
                or re.search(rf":param\s+(\w+\s+)?{parameter}:", doc))


def test_there_are_hooks():
    assert [hook.__name__ for hook in _hooks()] == ["dspk_register_runtimes"]


@pytest.mark.parametrize("hook", _hooks(), ids=lambda hook: hook.__name__)
def test_hook_documents_when_it_is_called_and_its_parameters(hook):
    doc = inspect.getdoc(hook)
    assert doc, f"hook {hook.__name__} has no docstring"
    assert re.search(r"\bcalled\b", doc, re.I), \
        f"hook {hook.__name__} does not say when it is called"
    for parameter in inspect.signature(hook).parameters:
        assert _documents(doc, parameter), f"hook {hook.__name__} does not document {parameter!r}"
