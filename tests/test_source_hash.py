"""package_source_hash: a module's source and that of every module of its package it
imports, however indirectly; and every cpu variant's source is it."""

import copy
import importlib
import sys
import textwrap

import pytest

from dspk.plugin import package_source_hash

#: A package ``kit``: ``entry`` imports ``middle`` from the package, which imports
#: ``inner.deep`` by its full name and ``leaf`` relatively, inside a function; ``aside``
#: is imported by nothing.
PACKAGE = {
    "__init__.py": "",
    "entry.py": "from kit import middle\n\ndef run():\n    return middle.value()\n",
    "middle.py": textwrap.dedent("""
        import numpy as np

        import kit.inner.deep


        def value():
            from .leaf import ONE

            return np.float64(ONE + kit.inner.deep.TWO)
        """),
    "leaf.py": "ONE = 1\n",
    "inner/__init__.py": "",
    "inner/deep.py": "TWO = 2\n",
    "aside.py": "THREE = 3\n",
}


@pytest.fixture
def kit(tmp_path, monkeypatch):
    """The package written under ``tmp_path``, imported; its modules dropped afterwards."""
    for path, text in PACKAGE.items():
        (tmp_path / "kit" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "kit" / path).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path / "kit"
    for name in [name for name in sys.modules if name.partition(".")[0] == "kit"]:
        del sys.modules[name]


@pytest.mark.parametrize("changed", ["entry.py", "middle.py", "leaf.py", "inner/deep.py"])
def test_a_change_in_any_module_imported_however_indirectly_changes_the_hash(kit, changed):
    entry = importlib.import_module("kit.entry")
    before = package_source_hash(entry)
    (kit / changed).write_text((kit / changed).read_text() + "# changed\n")
    assert package_source_hash(entry) != before


def test_modules_not_imported_and_package_inits_leave_the_hash_alone(kit):
    entry = importlib.import_module("kit.entry")
    before = package_source_hash(entry)
    for path in ("aside.py", "__init__.py", "inner/__init__.py"):
        (kit / path).write_text((kit / path).read_text() + "# changed\n")
    assert package_source_hash(entry) == before


def test_a_loader_without_get_source_is_read_from_the_file(kit, monkeypatch):
    """As pytest's assertion rewriter loads a module that ``pytest path/to/module.py`` collects."""
    entry = importlib.import_module("kit.entry")
    expected = package_source_hash(entry)
    find_spec = importlib.util.find_spec

    def without_get_source(name, *args):
        spec = copy.copy(find_spec(name, *args))
        if spec is not None:
            spec.loader = object()
        return spec

    monkeypatch.setattr(importlib.util, "find_spec", without_get_source)
    assert package_source_hash(entry) == expected
    (kit / "leaf.py").write_text("ONE = 10\n")
    assert package_source_hash(entry) != expected


def test_a_function_stands_for_its_module(kit):
    entry = importlib.import_module("kit.entry")
    assert package_source_hash(entry.run) == package_source_hash(entry)


def test_every_cpu_variant_is_hashed_with_the_modules_its_kernel_imports():
    backend = pytest.importorskip("dspk_cpu.backend").CpuBackend()
    from dspk.operations import OPERATIONS

    for op in OPERATIONS:
        for variant in backend.variants(op):
            assert variant.source == package_source_hash(variant.run), (op, variant.name)


def test_the_shared_host_code_a_kernel_imports_is_hashed_with_it(kit, monkeypatch):
    import dspk.plugin

    (kit.parent / "shared").mkdir()
    (kit.parent / "shared" / "__init__.py").write_text("")
    (kit.parent / "shared" / "plans.py").write_text("STEPS = 4\n")
    (kit / "leaf.py").write_text("from shared.plans import STEPS\nONE = 1\n")
    monkeypatch.setattr(dspk.plugin, "SHARED_HOST_CODE", "shared")
    entry = importlib.import_module("kit.entry")
    before = package_source_hash(entry)
    (kit.parent / "shared" / "plans.py").write_text("STEPS = 5\n")
    assert package_source_hash(entry) != before
    sys.modules.pop("shared.plans", None)
    sys.modules.pop("shared", None)
