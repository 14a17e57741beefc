"""Task layers and the operations every bucketed graph offers.

A :class:`TaskLayer` makes readable, content-addressed task keys
(``auc-merge-<token>``) and holds the tasks; :class:`GraphOperations` is what
both graphs of buckets (:class:`~dask_auc._engine.sample_sort.SortedGraph`,
:class:`~dask_auc._engine.hashed.HashedGraph`) offer on top of their
buckets: one task over many results, the tree reduce that merges neighbours
only, in score order, and views of keys as Delayed objects or a lazy result.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from dask.base import tokenize
from dask.delayed import Delayed
from dask.highlevelgraph import HighLevelGraph
from dask.typing import Key

from .._kernels.core.summary import merge_run
from .lazy import LazyScore, _as_tuple


class TaskLayer:
    """One graph layer of readable, content-addressed keys ``(kind-token, index...)``.

    Every task name is made by :meth:`name`, from the layer's token (its input
    blocks and the sort's settings) and *everything else* that decides the
    tasks' results: their function, its arguments (parameters and the keys
    they read) and the shape of the operation (``split_every``, the
    exchange).  So two requests that differ in any parameter or ``dask.config``
    value never share a task name -- not in one ``dask.compute``, not with a
    future another caller holds on the same cluster -- and equal requests
    share their tasks, which dask then computes once.  :meth:`add` refuses a
    name :meth:`name` did not make.
    """

    def __init__(self, token: str, dependencies: Sequence[Any]):
        self.token = token
        self.dependencies = list(dependencies)
        self.dsk: dict[Key, Any] = {}
        self._names: set[str] = set()

    def name(self, kind: str, *determinants: Any) -> str:
        """``kind-<token>``: the name of tasks whose results ``determinants`` decide."""
        name = f"{kind}-{tokenize(self.token, kind, *determinants)}"
        self._names.add(name)
        return name

    def add(self, key: tuple, func: Callable, *args: Any) -> tuple:
        """Add the task ``func(*args)`` under ``key = (name, index...)``; returns ``key``."""
        if key[0] not in self._names:
            raise RuntimeError(f"task name {key[0]!r} was not made by TaskLayer.name")
        self.dsk[key] = (func,) + args
        return key

    def kept(self, results: Mapping[Key, Any]) -> TaskLayer:
        """A layer of the same names holding ``results`` (computed tasks), and no dependency."""
        layer = TaskLayer(self.token, [])
        layer.dsk.update(results)
        layer._names = set(self._names)
        return layer

    def graph(self) -> HighLevelGraph:
        """The graph so far, as one layer named after the tasks it holds.

        Graphs of several metrics of the same input share their sort tasks
        (same keys, computed once by ``dask.compute``), but each keeps a layer
        name of its own so that merging the graphs loses no task.
        """
        return HighLevelGraph.from_collections(
            self.layer_name,
            self.dsk,
            dependencies=self.dependencies,  # type: ignore[arg-type]
        )

    @property
    def layer_name(self) -> str:
        return f"auc-{tokenize(sorted(self.dsk, key=str))}"


class GraphOperations:
    """The operations every bucketed graph offers; subclasses make the buckets."""

    layer: TaskLayer

    def task(self, kind: str, func: Callable, *args: Any) -> tuple:
        """One task ``func(*args)``; lists of keys in ``args`` arrive as lists of results."""
        return self.layer.add((self.layer.name(kind, func, args), 0), func, *args)

    def tree_reduce(
        self,
        keys: Sequence[Hashable],
        split_every: int,
        kind: str = "auc-merge",
        combine: Callable = merge_run,
    ) -> Hashable:
        """Merge ``keys`` (in score order) with a tree of contiguous runs.

        Each task merges at most ``split_every`` consecutive results of the
        level below, so only neighbours in score order ever meet.
        """
        level, keys = 0, list(keys)
        name = self.layer.name(kind, combine, keys, split_every)
        while True:
            runs = [keys[i : i + split_every] for i in range(0, len(keys), split_every)]
            keys = [self.layer.add((name, level, j), combine, run) for j, run in enumerate(runs)]
            if len(keys) == 1:
                return keys[0]
            level += 1

    def delayed(self, keys: Sequence[Hashable]) -> list[Delayed]:
        """Dask Delayed objects of keys of this graph, to combine with other graphs."""
        graph, layer = self.graph(), self.layer.layer_name
        return [Delayed(key, graph, layer=layer) for key in keys]

    def graph(self) -> HighLevelGraph:
        return self.layer.graph()

    @property
    def layer_name(self) -> str:
        return self.layer.layer_name

    def lazy(
        self,
        keys: Sequence[Hashable],
        finalize: Callable[..., Any] = _as_tuple,
        label: str = "parts",
    ) -> LazyScore:
        """The lazy result of ``keys``, finished by ``finalize(*results)`` in the caller."""
        return LazyScore(self.graph(), keys, finalize, label)
