"""The engine: the only code that builds task graphs, and it knows no metric.

A metric is a composition of the operations below on the *sorted buckets* of
its input (bucket 0 holds the highest scores); its kernels are pure NumPy
functions from :mod:`dask_auc._kernels`.  Layout of the sort, for ``P`` input
blocks and ``K`` score buckets::

    block_i -> meta_i ----------> plan            (P small samples -> splitters)
    block_i + plan -> split_i -> piece_(i, b)     (the exchange: views, one per
                                                   bucket, taken out through runs
                                                   of ~sqrt(K), see :func:`exchange`)
    piece_(*, b) -> bucket_b                      (merge of the pieces)

and the operations a metric composes on them:

* :meth:`SortedGraph.per_bucket` -- one task per bucket (a summary, curve
  points, placements), optionally given the bucket's entry of a scan;
* :meth:`SortedGraph.task` -- one task over many results (an ordered scan of
  the bucket summaries, a gather);
* :meth:`SortedGraph.tree_reduce` -- merges of *consecutive* results only, in
  score order, so a non-adjacent merge cannot be expressed
  (``tests/test_graph.py`` checks that on the built graph);
* :meth:`SortedGraph.to_blocks` -- the exchange run backwards: per-bucket
  results split by input block, back to their block (DeLong's paired test);
* :func:`map_blocks` / :func:`gather` -- block-level work before a sort.

The exchange of rows between workers lives in :func:`exchange` alone (the
grouped AUC's hash split uses it too).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import dask
from dask.base import tokenize
from dask.delayed import Delayed
from dask.highlevelgraph import HighLevelGraph
from dask.typing import Key

from .._kernels.sort import assemble_bucket, block_meta, plan_sort, split_block
from .._kernels.summary import merge_run
from .config import bucket_count
from .lazy import LazyScore, _as_tuple

_SAMPLES_PER_BUCKET = 16


class TaskLayer:
    """One graph layer of readable, deterministic keys ``(kind-token, index...)``."""

    def __init__(self, token: str, dependencies: Sequence[Any]):
        self.token = token
        self.dependencies = list(dependencies)
        self.dsk: dict[Key, Any] = {}

    def add(self, key: tuple, func: Callable, *args: Any) -> tuple:
        """Add a task; ``key`` is ``(kind, index...)``, made unique by the token."""
        full = (f"{key[0]}-{self.token}",) + tuple(key[1:])
        self.dsk[full] = (func,) + args
        return full

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


def exchange(layer: TaskLayer, splits: Sequence[Hashable], n_buckets: int) -> list[list[tuple]]:
    """Route the pieces of every split (a list of one piece per bucket) to their bucket.

    Returns ``pieces[b][i]``: the key of block ``i``'s piece of bucket ``b``.
    When the data exceed the workers' memory, a split (the whole block) is
    spilled and read back for each task that takes something out of it.
    Taking ``G ~ sqrt(K)`` runs of pieces first, then the pieces out of the
    runs, reads every row about ``2 sqrt(K)`` times instead of ``K`` times
    (measured in ``benchmarks/results/out-of-core-*.md``).
    """
    per_run = math.isqrt(n_buckets - 1) + 1  # ceil(sqrt(K))
    by_block = []
    for i, split in enumerate(splits):
        if per_run >= n_buckets:
            row = [
                layer.add(("auc-piece", i, b), operator.getitem, split, b) for b in range(n_buckets)
            ]
        else:
            runs = [
                layer.add(
                    ("auc-split-run", i, start),
                    operator.getitem,
                    split,
                    slice(start, start + per_run),
                )
                for start in range(0, n_buckets, per_run)
            ]
            row = [
                layer.add(("auc-piece", i, b), operator.getitem, runs[b // per_run], b % per_run)
                for b in range(n_buckets)
            ]
        by_block.append(row)
    return [[row[b] for row in by_block] for b in range(n_buckets)]


class _Operations:
    """The operations every bucketed graph offers; subclasses make the buckets."""

    layer: TaskLayer

    def task(self, kind: str, func: Callable, *args: Any) -> tuple:
        """One task ``func(*args)``; lists of keys in ``args`` arrive as lists of results."""
        return self.layer.add((kind, 0), func, *args)

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
        while True:
            runs = [keys[i : i + split_every] for i in range(0, len(keys), split_every)]
            keys = [self.layer.add((kind, level, j), combine, run) for j, run in enumerate(runs)]
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


class HashedGraph(_Operations):
    """Buckets of rows routed by a hash of their group key (the grouped AUC).

    ``splits`` are lazy ``(block_info, pieces)`` pairs: something the plan
    needs of the block, and one piece of its rows per bucket.  The pieces go
    through the same :func:`exchange` as the sort's.
    """

    def __init__(self, splits: Sequence[Delayed], n_buckets: int):
        self.n_buckets = n_buckets
        self.layer = TaskLayer(tokenize([s.key for s in splits], n_buckets), splits)
        self.infos = [
            self.layer.add(("auc-grouped-info", i), operator.getitem, s.key, 0)
            for i, s in enumerate(splits)
        ]
        pieces = [
            self.layer.add(("auc-grouped-pieces", i), operator.getitem, s.key, 1)
            for i, s in enumerate(splits)
        ]
        self.pieces = exchange(self.layer, pieces, n_buckets)

    def per_bucket(self, kind: str, func: Callable, *args: Any) -> list[tuple]:
        """One task per bucket, ``func(*args, *pieces of the bucket)``."""
        return [self.layer.add((kind, b), func, *args, *row) for b, row in enumerate(self.pieces)]


class SortedGraph(_Operations):
    """The sorted buckets of one input, and the operations metrics compose on them.

    Parameters
    ----------
    blocks : list of Delayed
        One :class:`~dask_auc._kernels.sort.PreparedBlock` per input block.
    plan : callable, default :func:`~dask_auc._kernels.sort.plan_sort`
        ``plan(metas, n_buckets) -> SortPlan``: checks the blocks and picks the
        splitters (a metric adds its label checks here, before any sorting).
    n_buckets : int, optional
        Number of score buckets; see :func:`~dask_auc._engine.config.bucket_count`.
    """

    def __init__(
        self,
        blocks: Sequence[Delayed],
        *,
        plan: Callable[..., Any] = plan_sort,
        n_buckets: int | None = None,
    ):
        self.blocks = list(blocks)
        self.n_buckets = n_buckets or bucket_count(len(self.blocks))
        token = tokenize([b.key for b in self.blocks], self.n_buckets, plan)
        self.layer = TaskLayer(token, self.blocks)
        samples = _SAMPLES_PER_BUCKET * self.n_buckets
        metas = [
            self.layer.add(("auc-meta", i), block_meta, block.key, samples)
            for i, block in enumerate(self.blocks)
        ]
        self.plan_key = self.layer.add(("auc-plan", 0), plan, metas, self.n_buckets)
        splits = [
            self.layer.add(("auc-split", i), split_block, block.key, self.plan_key)
            for i, block in enumerate(self.blocks)
        ]
        self.bucket_keys = [
            self.layer.add(("auc-bucket", b), assemble_bucket, *pieces)
            for b, pieces in enumerate(exchange(self.layer, splits, self.n_buckets))
        ]

    def per_bucket(
        self, kind: str, func: Callable, *args: Any, each: Hashable | None = None
    ) -> list[tuple]:
        """One task per bucket, ``func(bucket, [each[b]], *args)``; keys in score order.

        ``each`` is the key of a list with one entry per bucket (a scan's
        result): bucket ``b`` gets its own entry, taken out by a small task.
        """
        keys = []
        for b, bucket in enumerate(self.bucket_keys):
            picked: tuple = ()
            if each is not None:
                picked = (self.layer.add((f"{kind}-of", b), operator.getitem, each, b),)
            keys.append(self.layer.add((kind, b), func, bucket, *picked, *args))
        return keys

    def to_blocks(self, kind: str, routed: Sequence[Hashable]) -> list[list[tuple]]:
        """The exchange backwards: ``routed[b]`` holds one entry per input block.

        Returns ``[block][bucket]`` keys of block ``i``'s entry of every bucket.
        """
        return [
            [self.layer.add((kind, b, i), operator.getitem, r, i) for b, r in enumerate(routed)]
            for i in range(len(self.blocks))
        ]


def map_blocks(func: Callable, blocks: Sequence[Delayed], *args: Any) -> list[Delayed]:
    """``func(block, *args)`` on every block (work before, or beside, a sort)."""
    task = dask.delayed(func, pure=True)
    return [task(block, *args) for block in blocks]


def map_indexed_blocks(func: Callable, blocks: Sequence[Delayed], *args: Any) -> list[Delayed]:
    """``func(block, i, *args)`` on every block ``i``."""
    task = dask.delayed(func, pure=True)
    return [task(block, i, *args) for i, block in enumerate(blocks)]


def zip_blocks(
    func: Callable, blocks: Sequence[Delayed], *per_block: Sequence[Any]
) -> list[Delayed]:
    """``func(block_i, a_i, b_i, ...)`` on every block: one argument per block from each list."""
    task = dask.delayed(func, pure=True)
    return [task(block, *args) for block, *args in zip(blocks, *per_block, strict=True)]


def gather(func: Callable, items: Sequence[Any], *args: Any, **kwargs: Any) -> Delayed:
    """One task ``func(list_of_items, *args, **kwargs)``."""
    return dask.delayed(func, pure=True)(list(items), *args, **kwargs)


def lazy_of(
    parts: Sequence[Delayed | LazyScore], finalize: Callable[..., Any], label: str
) -> LazyScore:
    """One lazy result over several graphs: ``finalize(*results of parts)``."""
    graphs = [p.__dask_graph__() for p in parts]
    keys: list[Hashable] = []
    for part in parts:
        keys.extend(part.__dask_keys__() if isinstance(part, LazyScore) else [part.key])
    return LazyScore(HighLevelGraph.merge(*graphs), keys, finalize, label)
