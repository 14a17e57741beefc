"""The dask graph: sample sort by score, chunk kernels, a neighbour-only tree.

This is the only module that builds task graphs.  Layout of the graph, for
``P`` input blocks and ``K`` score buckets (bucket 0 = highest scores)::

    block_i -> meta_i ----------> plan            (P small samples -> splitters)
    block_i + plan -> split_i -> piece_(i, b)     (views, one per bucket, taken
                                                   out through runs of ~sqrt(K))
    piece_(*, b) -> bucket_b -> summary_b         (merge runs, kernel)
    summary_(b..b+s-1) -> merge                   (contiguous runs only)

Every merge task receives a run of *consecutive* buckets, in score order, so a
non-adjacent merge cannot be expressed; ``tests/test_graph.py`` checks that on
the built graph.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import dask
from dask.base import DaskMethodsMixin, tokenize
from dask.delayed import Delayed
from dask.highlevelgraph import HighLevelGraph
from dask.typing import Key

from .._kernels.delong import (
    assemble_traced,
    bucket_contexts,
    paired_sums,
    placement_square_sums,
    routed_placements,
    total_cross_sums,
    total_square_sums,
    traced_block,
)
from .._kernels.multiclass import (
    assemble_groups,
    class_meta,
    column_groups,
    encode_block,
    micro_block,
    plan_classes,
    split_groups,
    summarize_one_vs_rest,
    summarize_pair,
)
from .._kernels.partial import cut_bucket, locate_crossing, partial_area
from .._kernels.sort import assemble_bucket, block_meta, plan_sort, split_block, summarize_bucket
from .._kernels.summary import merge_run

DEFAULT_SPLIT_EVERY = 8
#: bound on P * K piece tasks; above it fewer buckets are used
_MAX_PIECES = 10_000
_SAMPLES_PER_BUCKET = 16


def split_every_default() -> int:
    """``split_every`` from ``dask.config`` key ``dask-auc.split-every`` (default 8)."""
    return int(dask.config.get("dask-auc.split-every", DEFAULT_SPLIT_EVERY))


def bucket_count(n_blocks: int) -> int:
    """How many score buckets to sort into (``dask-auc.buckets`` overrides)."""
    configured = dask.config.get("dask-auc.buckets", None)
    if configured is not None:
        return max(1, int(configured))
    return max(1, min(n_blocks, _MAX_PIECES // max(n_blocks, 1)))


class SortedGraph:
    """Task keys of the sorted buckets and their summaries for one input.

    Parameters
    ----------
    blocks : list of Delayed
        One :class:`~dask_auc._kernels.sort.PreparedBlock` per input block.
    n_buckets : int, optional
        Number of score buckets; see :func:`bucket_count`.
    """

    #: chunk kernels of the sort; :class:`GroupedSortedGraph` swaps in multi-class ones
    plan_kernel = staticmethod(plan_sort)
    split_kernel = staticmethod(split_block)
    assemble_kernel = staticmethod(assemble_bucket)
    summarize_kernel = staticmethod(summarize_bucket)

    def __init__(self, blocks: Sequence[Delayed], n_buckets: int | None = None):
        self.blocks = list(blocks)
        self.n_buckets = n_buckets or bucket_count(len(self.blocks))
        self.token = tokenize([b.key for b in self.blocks], self.n_buckets)
        self.dsk: dict[Key, Any] = {}
        self.plan_key = self._add_plan()
        self.bucket_keys = self._add_buckets()
        self.summary_keys = [
            self.add(("auc-summary", b), self.summarize_kernel, key)
            for b, key in enumerate(self.bucket_keys)
        ]

    def name(self, kind: str) -> str:
        return f"{kind}-{self.token}"

    def add(self, key: tuple, func: Callable, *args: Any) -> tuple:
        """Add a task; ``key`` is ``(kind, index...)``, made unique by the token."""
        full = (self.name(key[0]),) + tuple(key[1:])
        self.dsk[full] = (func,) + args
        return full

    def _add_plan(self) -> tuple:
        samples = _SAMPLES_PER_BUCKET * self.n_buckets
        metas = [
            self.add(("auc-meta", i), block_meta, block.key, samples)
            for i, block in enumerate(self.blocks)
        ]
        return self.add(("auc-plan", 0), self.plan_kernel, metas, self.n_buckets)

    def _add_buckets(self) -> list[tuple]:
        splits = [
            self.add(("auc-split", i), self.split_kernel, block.key, self.plan_key)
            for i, block in enumerate(self.blocks)
        ]
        pieces = [self._add_pieces(i, split) for i, split in enumerate(splits)]
        return [
            self.add(("auc-bucket", b), self.assemble_kernel, *[row[b] for row in pieces])
            for b in range(self.n_buckets)
        ]

    def _add_pieces(self, i: int, split: tuple) -> list[tuple]:
        """Keys of block ``i``'s pieces, taken out of its split in two steps.

        When the data exceed the workers' memory, a split (the whole block)
        is spilled and read back for each task that takes something out of
        it.  Taking ``G ~ sqrt(K)`` runs of pieces first, then the pieces out
        of the runs, reads every row about ``2 sqrt(K)`` times instead of
        ``K`` times (measured in ``benchmarks/results/out-of-core-*.md``).
        """
        per_run = math.isqrt(self.n_buckets - 1) + 1  # ceil(sqrt(K))
        if per_run >= self.n_buckets:
            return [
                self.add(("auc-piece", i, b), operator.getitem, split, b)
                for b in range(self.n_buckets)
            ]
        runs = [
            self.add(
                ("auc-split-run", i, start), operator.getitem, split, slice(start, start + per_run)
            )
            for start in range(0, self.n_buckets, per_run)
        ]
        return [
            self.add(("auc-piece", i, b), operator.getitem, runs[b // per_run], b % per_run)
            for b in range(self.n_buckets)
        ]

    def tree_reduce(
        self, keys: Sequence[tuple], split_every: int, kind: str = "auc-merge"
    ) -> tuple:
        """Merge ``keys`` (in score order) with a tree of contiguous runs.

        Each task merges at most ``split_every`` consecutive results of the
        level below, so only neighbours in score order ever meet.
        """
        level, keys = 0, list(keys)
        while True:
            runs = [keys[i : i + split_every] for i in range(0, len(keys), split_every)]
            keys = [self.add((kind, level, j), merge_run, run) for j, run in enumerate(runs)]
            if len(keys) == 1:
                return keys[0]
            level += 1

    def partial_auc_key(self, max_fpr: float) -> tuple:
        """Key of ``(area, P, N)`` up to ``max_fpr``, see :mod:`dask_auc._kernels.partial`."""
        crossing = self.add(("auc-crossing", 0), locate_crossing, self.summary_keys, max_fpr)
        cuts = [
            self.add(("auc-cut", b), cut_bucket, key, crossing, b)
            for b, key in enumerate(self.bucket_keys)
        ]
        return self.add(("auc-partial", 0), partial_area, self.summary_keys, crossing, cuts)

    def graph(self) -> HighLevelGraph:
        """The graph so far, as one layer named after the tasks it holds.

        Graphs of several metrics of the same input share their sort tasks
        (same keys, computed once by ``dask.compute``), but each keeps a layer
        name of its own so that merging the graphs loses no task.
        """
        return HighLevelGraph.from_collections(
            self.layer_name,
            self.dsk,
            dependencies=self.blocks,  # type: ignore[arg-type]
        )

    @property
    def layer_name(self) -> str:
        return f"auc-{tokenize(sorted(self.dsk, key=str))}"


def gather_graph(
    blocks: Sequence[Delayed], func: Callable[..., Any], *args: Any, **kwargs: Any
) -> tuple[HighLevelGraph, Hashable]:
    """One task applying ``func(blocks, *args, **kwargs)`` to all blocks: its graph and key."""
    task = dask.delayed(func, pure=True)(list(blocks), *args, **kwargs)
    return task.__dask_graph__(), task.key


class LazyScore(DaskMethodsMixin):
    """A lazy metric: a dask collection whose ``compute()`` returns the number.

    ``compute()`` runs the final step (``finalize``) in the calling process, so
    warnings such as scikit-learn's ``UndefinedMetricWarning`` reach the caller
    even when the work ran on a distributed cluster.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> lazy = dask_auc.roc_auc_score(np.array([0, 1, 1]), np.array([0.1, 0.8, 0.3]),
    ...                               compute=False)
    >>> lazy.compute()
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

    def __dask_graph__(self) -> HighLevelGraph:
        return self._graph

    def __dask_keys__(self) -> list[Hashable]:
        return list(self._keys)

    def __dask_layers__(self) -> tuple[str, ...]:
        return tuple(self._graph.layers)

    def __dask_tokenize__(self) -> Any:
        return (self._label, self._keys)

    __dask_scheduler__ = staticmethod(dask.threaded.get)

    @staticmethod
    def __dask_optimize__(dsk: Any, keys: Any, **kwargs: Any) -> Any:
        flat = set(dask.core.flatten(keys))
        return dsk.cull(flat) if isinstance(dsk, HighLevelGraph) else dsk

    def __dask_postcompute__(self) -> tuple[Callable, tuple]:
        return _apply_finalize, (self._finalize,)

    def compute(self, **kwargs: Any) -> Any:
        """Compute the parts on the scheduler, then finalize in this process.

        ``dask.compute(lazy, ...)`` also works, but on a distributed cluster it
        runs the finalize step on a worker, where warnings stay in its log.
        """
        parts = LazyScore(self._graph, self._keys, _parts, self._label)
        (computed,) = dask.compute(parts, **kwargs)
        return self._finalize(*computed)

    def __dask_postpersist__(self) -> tuple[Callable, tuple]:
        return self._rebuild, ()

    def _rebuild(self, dsk: Any, *, rename: Any = None) -> LazyScore:
        return LazyScore(dsk, self._keys, self._finalize, self._label)

    def __repr__(self) -> str:
        return f"LazyScore<{self._label}, tasks={len(self._graph)}>"


def _apply_finalize(results: list[Any], finalize: Callable[..., Any]) -> Any:
    return finalize(*results)


def _parts(*results: Any) -> tuple[Any, ...]:
    return results


class GroupedSortedGraph(SortedGraph):
    """The sorted buckets of one score column whose rows keep their class.

    Blocks are :class:`~dask_auc._kernels.multiclass.GroupedBlock` objects of
    column ``c``; ``summary_keys`` are the one-vs-rest summaries of class
    ``c``, and :meth:`pair_summary_keys` gives class ``c`` against one other
    class, from the same sorted buckets.
    """

    # the grouped kernels take grouped blocks and buckets: same protocol, other types
    split_kernel = staticmethod(split_groups)  # type: ignore[assignment]
    assemble_kernel = staticmethod(assemble_groups)  # type: ignore[assignment]
    summarize_kernel = staticmethod(summarize_one_vs_rest)  # type: ignore[assignment]

    def pair_summary_keys(self, other: int) -> list[tuple]:
        """Bucket summaries of this column's class against class ``other``."""
        return [
            self.add(("auc-pair-summary", other, b), summarize_pair, key, other)
            for b, key in enumerate(self.bucket_keys)
        ]


def multiclass_graph(
    blocks: Sequence[Delayed],
    plan_args: tuple[Any, ...],
    n_columns: int,
    *,
    one_vs_rest: bool,
    one_vs_one: bool,
    micro: bool,
    split_every: int,
) -> tuple[HighLevelGraph, list[Hashable]]:
    """The graph of a multi-class AUC, all class reductions in one graph.

    ``blocks`` are lazy :class:`~dask_auc._kernels.multiclass.MultiBlock`
    objects.  One task plans the classes; each score column is then sorted
    once (:class:`GroupedSortedGraph`) and reduced per target (one-vs-rest,
    and one-vs-one against each other class); micro averaging sorts the
    raveled matrix with the binary :class:`SortedGraph`.

    Returns the graph and its keys: the class plan first, then for each column
    ``c`` its one-vs-rest result (if asked) and its results against every other
    class in increasing order (if asked), then the micro result (if asked).
    """
    metas = [dask.delayed(class_meta, pure=True)(block) for block in blocks]
    plan = dask.delayed(plan_classes, pure=True)(metas, *plan_args)
    encoded = [dask.delayed(encode_block, pure=True)(block, plan) for block in blocks]
    graphs, keys = [], [plan.key]
    if one_vs_rest or one_vs_one:
        for column in range(n_columns):
            grouped = GroupedSortedGraph(
                [dask.delayed(column_groups, pure=True)(e, column) for e in encoded]
            )
            if one_vs_rest:
                keys.append(grouped.tree_reduce(grouped.summary_keys, split_every))
            if one_vs_one:
                for other in range(n_columns):
                    if other != column:
                        kind = f"auc-merge-pair-{other}"
                        summaries = grouped.pair_summary_keys(other)
                        keys.append(grouped.tree_reduce(summaries, split_every, kind))
            graphs.append(grouped.graph())
    if micro:
        raveled = SortedGraph([dask.delayed(micro_block, pure=True)(e) for e in encoded])
        keys.append(raveled.tree_reduce(raveled.summary_keys, split_every))
        graphs.append(raveled.graph())
    return HighLevelGraph.merge(*graphs), keys


def delong_keys(sorted_graph: SortedGraph) -> tuple[tuple, tuple]:
    """Add DeLong's variance terms to ``sorted_graph``: keys of (contexts, square sums).

    One task scans the bucket summaries into per-bucket contexts
    (:func:`~dask_auc._kernels.delong.bucket_contexts`); each bucket then sums
    its rows' squared centred placements, and one task adds those up.
    """
    contexts = sorted_graph.add(
        ("auc-delong-context", 0), bucket_contexts, sorted_graph.summary_keys
    )
    parts = [
        sorted_graph.add(("auc-delong-squares", b), placement_square_sums, key, contexts, b)
        for b, key in enumerate(sorted_graph.bucket_keys)
    ]
    return contexts, sorted_graph.add(("auc-delong-sum", 0), total_square_sums, *parts)


class TracedSortedGraph(SortedGraph):
    """A :class:`SortedGraph` whose rows carry their row id through the sort."""

    assemble_kernel = staticmethod(assemble_traced)


def paired_delong_graph(blocks: Sequence[Delayed]) -> tuple[HighLevelGraph, list[Hashable]]:
    """The graph of DeLong's paired test of two models scored on the same rows.

    ``blocks`` are lazy :class:`~dask_auc._kernels.delong.PairedBlock` objects.
    Each model's scores are sorted with their row ids (``block << 32 |
    position``); each bucket computes its rows' placements and routes them back
    to their input block (the reverse of the sort's split), where the two
    models' placements of a row meet.  Returns the graph and the keys of: the
    summed cross products, model A's contexts, model B's contexts, the plan.
    """
    n_blocks = len(blocks)
    pieces, contexts, plans = [], [], []
    for model in (0, 1):
        traced = [
            dask.delayed(traced_block, pure=True)(block, index, model)
            for index, block in enumerate(blocks)
        ]
        sorted_graph = TracedSortedGraph(traced)
        context = sorted_graph.add(
            ("auc-delong-context", 0), bucket_contexts, sorted_graph.summary_keys
        )
        routed = [
            sorted_graph.add(("auc-delong-route", b), routed_placements, key, context, b, n_blocks)
            for b, key in enumerate(sorted_graph.bucket_keys)
        ]
        by_block = [
            [
                sorted_graph.add(("auc-delong-back", b, i), operator.getitem, r, i)
                for b, r in enumerate(routed)
            ]
            for i in range(n_blocks)
        ]
        graph, layer = sorted_graph.graph(), sorted_graph.layer_name
        pieces.append([[Delayed(k, graph, layer=layer) for k in row] for row in by_block])
        contexts.append(Delayed(context, graph, layer=layer))
        plans.append(Delayed(sorted_graph.plan_key, graph, layer=layer))
    pair = dask.delayed(paired_sums, pure=True)
    sums = [pair(block, plans[0], pieces[0][i], pieces[1][i]) for i, block in enumerate(blocks)]
    total = dask.delayed(total_cross_sums, pure=True)(*sums)
    graph = HighLevelGraph.merge(total.dask, contexts[0].dask, contexts[1].dask)
    return graph, [total.key, contexts[0].key, contexts[1].key, plans[0].key]
