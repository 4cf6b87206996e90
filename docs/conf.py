"""Sphinx configuration: the API reference from the public API's docstrings, the guides from Markdown."""

from __future__ import annotations

from craftbt import __version__

project = "craftbt"
release = __version__
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
# The public API re-exports pydantic models and py_trees types; their own docstrings are not ours to lint.
autodoc_inherit_docstrings = False
suppress_warnings = ["myst.xref_missing"]
nitpicky = False
html_theme = "alabaster"
