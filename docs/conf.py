"""Sphinx configuration of dspk's documentation site.

Build it with ``./dev docs`` (warnings are errors); the pages land in
``docs/_build/html``. The guides are the Markdown files of this folder (read
by myst-parser); the API reference comes from the docstrings (numpydoc).
"""

from importlib.metadata import version as _version
from pathlib import Path

from dspk.operations import reference

# The kernel operations' reference page, generated from their specs (not in git).
(Path(__file__).parent / "api" / "kernels.md").write_text(reference())

project = "dspk"
author = "the dspk authors"
copyright = "the dspk authors"
release = _version("dspk-core")

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]

# One generated page per public function, under api/generated (not in git).
autosummary_generate = True
autodoc_default_options = {"members": True, "member-order": "bysource"}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# Validate the API's docstrings as the site is built (warnings are errors in ./dev docs):
# every parameter documented, none documented that does not exist, in the signature's order,
# "name : type" spelled right, the sections in numpydoc's order.
numpydoc_validation_checks = {"PR01", "PR02", "PR03", "PR10", "GL06", "GL07"}
# Not ours: re-exported by dspk.plugin from dataclasses, pluggy, typing (the *args of the
# protocols NativeArray and CausalFilter).
numpydoc_validation_exclude = {
    r"^dspk\.plugin\.dataclass$",
    r"^dspk\.plugin\.field$",
    r"^dspk\.plugin\.hookimpl$",
    r"^dspk\.plugin\.Any$",
    r"^dspk\.plugin\.NativeArray$",
    r"^dspk\.plugin\.CausalFilter$",
}
myst_heading_anchors = 3

html_theme = "pydata_sphinx_theme"
html_title = f"dspk {release}"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}
