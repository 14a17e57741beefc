"""Docstring fragments that several public functions share, written once.

A docstring names a fragment on a line of its own, ``%(name)s`` (matplotlib's
and SciPy's ``doccer`` notation); :func:`shared_docs` puts the fragment there,
indented as the line is.  Only whole lines naming a known fragment change, so
a ``%`` elsewhere in a docstring is left alone.  The filled docstring is the
one Sphinx, numpydoc, ``help`` and the doctests read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["FRAGMENTS", "shared_docs"]

_F = TypeVar("_F", bound=Callable[..., Any])

FRAGMENTS = {
    # the per-row and calibration metrics: a lazy result, and the tree of exact block sums
    "compute_split_every": """\
compute : bool, default=True
    If False, return a :class:`~dask_auc.LazyScore`.
split_every : int >= 2, optional
    Fan-in of the tree that adds up the blocks' sums (default:
    ``dask-auc.split-every``).  The result does not depend on it.""",
    # the per-row ranking metrics: what they return
    "returns_same_bits": """\
Returns
-------
float or LazyScore
    The same bits for any partitioning.""",
    # every plot: what it returns, and how its example draws without a display
    "plot_returns": """\
Returns
-------
matplotlib.axes.Axes
    The axes drawn on: ``ax``, or those of a new square figure.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import numpy as np, dask_auc""",
}

_MARKER = re.compile(r"^(?P<indent>[ \t]*)%\((?P<name>\w+)\)s[ \t]*$", re.MULTILINE)


def shared_docs(function: _F) -> _F:
    """``function`` with each ``%(name)s`` line of its docstring replaced by that fragment.

    Examples
    --------
    >>> @shared_docs
    ... def f():
    ...     '''Summary.
    ...
    ...     %(compute_split_every)s
    ...     '''
    >>> print(f.__doc__.splitlines()[3])  # indented as the line that named it
            If False, return a :class:`~dask_auc.LazyScore`.
    """
    function.__doc__ = fill(function.__doc__ or "")
    return function


def fill(doc: str) -> str:
    """``doc`` with its fragments in place; an unknown name raises ``KeyError``."""

    def fragment(match: re.Match[str]) -> str:
        indent = match["indent"]
        lines = FRAGMENTS[match["name"]].splitlines()
        return "\n".join(indent + line if line else "" for line in lines)

    return _MARKER.sub(fragment, doc)
