"""What every plot of :mod:`dask_auc.plotting` shares: matplotlib on demand, one lazy drawing.

A plot is the lazy results it draws from, computed together, and a drawer
called with their finished values (:func:`drawn`): ``compute=False`` gives
that as a :class:`~dask_auc.LazyScore`.  matplotlib is imported when a plot is
drawn (:func:`pyplot`), so :mod:`dask_auc` imports without it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._engine import FinishEach, LazyScore, lazy_of
from ._roc import ROC

PLOT_EXTRA_MESSAGE = 'plotting needs matplotlib: pip install "dask-auc[plot]"'


def pyplot() -> Any:
    """``matplotlib.pyplot``, or the ImportError that names the ``plot`` extra."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError(PLOT_EXTRA_MESSAGE) from error
    return plt


def drawn(name: str, lazies: list[LazyScore], draw: Any, compute: bool) -> Any:
    """The plot ``name`` of the models' lazy results: drawn now, or a lazy result that draws."""
    lazy = lazy_of(lazies, FinishEach(lazies, draw), name)
    return lazy.compute() if compute else lazy


def axes(ax: Any) -> Any:
    """``ax``, or the axes of a new square figure."""
    return ax if ax is not None else pyplot().subplots(figsize=(6, 6))[1]


def given_roc(y_true: Any, held: dict[str, Any]) -> bool:
    """Whether ``y_true`` is a ROC object (or a mapping holding one), with the arrays it holds.

    ``held``: the arguments a ROC object holds, by the caller's names, the
    scores' first (``y_score`` or ``y_proba``).  With a ROC none of them may
    be given; without one the scores must be.  A mapping mixing ROC objects
    and other values raises.
    """
    given = y_true.values() if isinstance(y_true, Mapping) else [y_true]
    names = list(held)
    if not any(isinstance(r, ROC) for r in given):
        if held[names[0]] is None:
            raise TypeError(f"{names[0]} is required unless y_true is a ROC object (dask_auc.roc)")
        return False
    if any(value is not None for value in held.values()):
        holds = ", ".join(["the scores", *names[1:-1]]) + " and " + names[-1]
        raise ValueError(
            f"y_true is a ROC object (made by dask_auc.roc, which holds {holds}): "
            f"do not pass {', '.join(names[:-1])} or {names[-1]}"
        )
    if not all(isinstance(r, ROC) for r in given):
        raise TypeError("a mapping given as y_true must map model names to ROC objects")
    return True
