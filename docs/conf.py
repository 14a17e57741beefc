"""Sphinx configuration of dask-auc's documentation site.

Built by ``.ci/docs.sh`` with ``sphinx-build -W --keep-going``: every warning (a
broken cross-reference, a docstring numpydoc cannot parse, a page outside every
toctree, a public name missing from the API reference) fails the build.
"""

from __future__ import annotations

import os
import re
import warnings
from importlib.metadata import version as _version
from pathlib import Path

from sphinx.ext import autosummary
from sphinx.util.inspect import signature_from_str

import dask_auc

project = "dask-auc"
author = "the dask-auc developers"
copyright = "the dask-auc developers, BSD-3-Clause"
# the one version: pyproject.toml's, as installed (dask_auc.__version__ reads it the same way)
release = _version("dask-auc")
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_nb",  # Markdown pages (myst-parser) and the notebooks
]

root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "**/.ipynb_checkpoints", "notebooks/clicks.py"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

# -- references: a broken one is an error --------------------------------------------------
# Every reference into dask_auc must resolve.  References to other projects' objects (numpy,
# pandas, dask, matplotlib, scikit-learn, the standard library) are left as text: the build
# has no network for intersphinx inventories (CI reaches package registries only).
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|pandas|pd|dask|distributed|matplotlib|sklearn|scipy|pyarrow)(\..*)?"),
    (r"py:.*", r"(int|float|str|bool|bytes|tuple|list|dict|object|callable|None|Any)"),
    (r"py:.*", r"(collections|typing|fractions|statistics|math|functools)\..*"),
    # the private modules and kernels that docstrings point developers to (not on the site)
    (r"py:.*", r"dask_auc\._\w+(\..*)?"),
    (r"py:func", r"pair_product"),
]

# -- API reference: autosummary + numpydoc -------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # numpydoc's Parameters section says the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# a docstring numpydoc cannot parse fails the build: its parse errors raise, and its parse
# warnings (an unknown section, say) are Python warnings, made errors here, which autodoc
# reports as Sphinx warnings; the validation checks below are Sphinx warnings too
warnings.filterwarnings("error", category=UserWarning, module=r"numpydoc(\..*)?")
# (unknown or misordered sections, documented parameters the signature does not have)
numpydoc_validation_checks = {"GL06", "GL07", "PR02"}
# doctests of the docstrings run in the test suite (pytest --doctest-modules), not here


# autosummary's tables shorten each signature to about 50 characters with the name: they drop
# the defaults and, when the positional part is long, every keyword-only option, which showed
# ``average_precision_score(y_true, y_score, *)``.  The tables show the real signature instead
# (defaults kept; annotations dropped, as the Parameters sections give the types).
def _whole_signature(sig: str, max_chars: int = 30) -> str:
    try:
        parsed = signature_from_str(sig)
    except (SyntaxError, ValueError):  # not one Python signature: autosummary's own form
        return _shortened_signature(sig, max_chars)
    parameters = [p.replace(annotation=p.empty) for p in parsed.parameters.values()]
    return str(parsed.replace(parameters=parameters, return_annotation=parsed.empty))


_shortened_signature = autosummary.mangle_signature
autosummary.mangle_signature = _whole_signature

# -- Markdown and notebooks ----------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
# The notebooks are stored without outputs (tests/test_notebooks.py keeps them so): the build
# runs them (a local cluster, scikit-learn as the referee; .ci/docs.sh sets the row count
# DASK_AUC_NOTEBOOK_ROWS) so that the site shows what they print and draw.  A notebook that
# fails fails the build.  DASK_AUC_DOCS_EXECUTE=off renders them as stored.
nb_execution_mode = os.environ.get("DASK_AUC_DOCS_EXECUTE", "force")
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_show_tb = True

# -- HTML ----------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"dask-auc {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path: list[str] = []
html_show_sourcelink = False


# -- the API reference lists every public name ---------------------------------------------
def _check_api_reference(app, env, docnames):  # noqa: ANN001 - Sphinx's event signature
    """Fail the build when ``dask_auc.__all__`` and api.rst's autosummary lists differ."""
    text = (Path(app.srcdir) / "api.rst").read_text()
    listed = set(re.findall(r"^\s{3,}(\w+)\s*$", text, flags=re.MULTILINE))
    public = set(dask_auc.__all__) - {"__version__"}
    from sphinx.util import logging

    logger = logging.getLogger(__name__)
    if public - listed:
        logger.warning("api.rst misses public names: %s", ", ".join(sorted(public - listed)))
    if listed - public:
        logger.warning("api.rst lists names not in __all__: %s", ", ".join(sorted(listed - public)))


def _skip_namedtuple_fields(app, what, name, obj, skip, options):  # noqa: ANN001
    """A result tuple's fields are in its signature; "Alias for field number 3" says nothing."""
    if what == "class" and (getattr(obj, "__doc__", None) or "").startswith("Alias for field"):
        return True
    return None


def setup(app):  # noqa: ANN001, ANN201
    app.connect("env-before-read-docs", _check_api_reference)
    app.connect("autodoc-skip-member", _skip_namedtuple_fields)
