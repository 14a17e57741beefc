"""The lazy result of every metric: a dask collection of *parts*, and a *finish* step.

A metric's graph computes a few small parts (summaries, curve points); its
``finish`` turns them into scikit-learn's answer in the calling process, so
that warnings reach the caller even when the work ran on a cluster.  The
protocol is public: :meth:`LazyScore.parts` is the dask collection of the
parts, :meth:`LazyScore.finish` the last step, and :func:`compute` computes
several lazy results (and any other dask collections) in one pass.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import dask
from dask.base import DaskMethodsMixin
from dask.highlevelgraph import HighLevelGraph

from .collector import frozen_heap
from .fusion import optimized


class LazyScore(DaskMethodsMixin):
    """A lazy metric: a dask collection whose ``compute()`` returns the number.

    ``compute()`` computes :meth:`parts` on the scheduler, then runs
    :meth:`finish` in the calling process, so warnings such as scikit-learn's
    ``UndefinedMetricWarning`` reach the caller even when the work ran on a
    distributed cluster.  To run several metrics in one pass use
    :func:`dask_auc.compute` (or ``dask.compute``, which finishes on the
    scheduler's side: on a cluster, warnings then stay in a worker's log).

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> lazy = dask_auc.roc_auc_score(np.array([0, 1, 1]), np.array([0.1, 0.8, 0.3]),
    ...                               compute=False)
    >>> lazy.compute()
    1.0
    >>> parts = lazy.parts().compute()   # the raw parts, e.g. for client.compute
    >>> lazy.finish(parts)
    1.0
    """

    def __init__(
        self,
        graph: HighLevelGraph,
        keys: Sequence[Hashable],
        finalize: Callable[..., Any],
        label: str,
    ):
        self._graph = graph
        self._keys = keys
        self._finalize = finalize
        self._label = label

    def parts(self) -> LazyScore:
        """The dask collection of this result's parts: computes to a tuple.

        Give it to any scheduler (``client.compute``, ``dask.compute``, with a
        progress bar...), then pass the tuple to :meth:`finish`.
        """
        return LazyScore(self._graph, self._keys, _as_tuple, f"{self._label}-parts")

    def finish(self, parts: Sequence[Any]) -> Any:
        """The result from its computed :meth:`parts` (runs in this process)."""
        return self._finalize(*parts)

    def __dask_graph__(self) -> HighLevelGraph:
        return self._graph

    def __dask_keys__(self) -> list[Hashable]:
        return list(self._keys)

    def __dask_layers__(self) -> tuple[str, ...]:
        return tuple(self._graph.layers)

    def __dask_tokenize__(self) -> Any:
        # the keys name everything computed; ``finalize`` is the rest of the result
        return (self._label, self._keys, self._finalize)

    __dask_scheduler__ = staticmethod(dask.threaded.get)

    @staticmethod
    def __dask_optimize__(dsk: Any, keys: Any, **kwargs: Any) -> Any:
        # dask hands every lazy result of one compute to this in one merged graph
        return optimized(dsk, keys)

    def __dask_postcompute__(self) -> tuple[Callable, tuple]:
        return _apply_finalize, (self._finalize,)

    def compute(self, **kwargs: Any) -> Any:
        """Compute the parts on the scheduler, then finish in this process."""
        with frozen_heap():  # collections skip the graph: a third of 10,000 partitions' time
            (parts,) = dask.compute(self.parts(), **kwargs)
        return self.finish(parts)

    def __dask_postpersist__(self) -> tuple[Callable, tuple]:
        return self._rebuild, ()

    def _rebuild(self, dsk: Any, *, rename: Any = None) -> LazyScore:
        return LazyScore(dsk, self._keys, self._finalize, self._label)

    def __repr__(self) -> str:
        return f"LazyScore<{self._label}, tasks={len(self._graph)}>"


def compute(*results: Any, **kwargs: Any) -> tuple[Any, ...]:
    """Compute several lazy results (and other dask collections) in one pass.

    Shared work -- the sort of an input used by several metrics -- runs once;
    each :class:`LazyScore` is finished in this process.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> y, s = np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8])
    >>> dask_auc.compute(dask_auc.roc_auc_score(y, s, compute=False),
    ...                  dask_auc.average_precision_score(y, s, compute=False))
    (0.75, 0.8333333333333334)
    """
    collections = [r.parts() if isinstance(r, LazyScore) else r for r in results]
    with frozen_heap():
        computed = dask.compute(*collections, **kwargs)
    return tuple(
        r.finish(c) if isinstance(r, LazyScore) else c
        for r, c in zip(results, computed, strict=True)
    )


class FinishEach:
    """A finalize of several lazy results' parts: each result's own finish, then ``then``.

    The parts arrive concatenated in the order of ``lazies`` (as
    :func:`~dask_auc._engine.lazy_of` lists their keys); each result takes as
    many as it has keys.  A class, not a closure, so the finalize pickles.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> y, s = np.array([0, 1, 1]), np.array([0.1, 0.8, 0.3])
    >>> lazies = [dask_auc.roc_auc_score(y, s, compute=False),
    ...           dask_auc.average_precision_score(y, s, compute=False)]
    >>> finish = FinishEach(lazies, lambda *results: results)
    >>> finish(*lazies[0].parts().compute(), *lazies[1].parts().compute())
    (1.0, 1.0)
    """

    def __init__(self, lazies: Sequence[LazyScore], then: Callable[..., Any]):
        self.lazies, self.then = list(lazies), then
        self.counts = [len(lazy.__dask_keys__()) for lazy in self.lazies]

    def __call__(self, *parts: Any) -> Any:
        finished, start = [], 0
        for lazy, count in zip(self.lazies, self.counts, strict=True):
            finished.append(lazy.finish(parts[start : start + count]))
            start += count
        return self.then(*finished)


def _apply_finalize(results: list[Any], finalize: Callable[..., Any]) -> Any:
    return finalize(*results)


def _as_tuple(*results: Any) -> tuple[Any, ...]:
    return results
