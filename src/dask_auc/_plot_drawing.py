"""What every plot of :mod:`dask_auc.plotting` shares: matplotlib on demand, one lazy drawing.

A plot is the lazy results it draws from, computed together, and a drawer
called with their finished values (:func:`drawn`): ``compute=False`` gives
that as a :class:`~dask_auc.LazyScore`.  matplotlib is imported when a plot is
drawn (:func:`pyplot`), so :mod:`dask_auc` imports without it.
"""

from __future__ import annotations

from typing import Any

from ._engine import LazyScore, lazy_of

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
    lazy = lazy_of(lazies, PlotFinish(lazies, draw), name)
    return lazy.compute() if compute else lazy


class PlotFinish:
    """The finalize step of a plot of several lazy results: finish each, then ``draw`` them."""

    def __init__(self, lazies: list[LazyScore], draw: Any):
        self.counts = [len(lazy.__dask_keys__()) for lazy in lazies]
        self.lazies, self.draw = lazies, draw

    def __call__(self, *parts: Any) -> Any:
        finished, start = [], 0
        for lazy, count in zip(self.lazies, self.counts, strict=True):
            finished.append(lazy.finish(parts[start : start + count]))
            start += count
        return self.draw(*finished)


def axes(ax: Any) -> Any:
    """``ax``, or the axes of a new square figure."""
    return ax if ax is not None else pyplot().subplots(figsize=(6, 6))[1]
