"""The sample sort: the sorted buckets of one input, and the operations metrics compose on them.

A metric is a composition of the operations below on the *sorted buckets* of
its input (bucket 0 holds the highest scores); its kernels are pure NumPy
functions from :mod:`dask_auc._kernels`.  Layout of the sort, for ``P`` input
blocks and ``K`` score buckets::

    block_i -> meta_i ----------> plan            (P small samples -> splitters)
    block_i + plan -> split_i                     (one view per bucket)
    split_* -> bucket_b                           (the exchange, :func:`.exchange`:
                                                   P + K tasks, then a merge of
                                                   the bucket's pieces)

where ``P`` blocks (tiny input partitions coalesced) and ``K`` buckets are
sized by the data (:mod:`~dask_auc._engine.sizing`), not by each other; and
the operations a metric composes on them:

* :meth:`SortedGraph.per_bucket` -- one task per bucket (a summary, curve
  points, placements), optionally given the bucket's entry of a scan;
* :meth:`SortedGraph.task` -- one task over many results (an ordered scan of
  the bucket summaries, a gather);
* :meth:`SortedGraph.tree_reduce` -- merges of *consecutive* results only, in
  score order, so a non-adjacent merge cannot be expressed
  (``tests/test_graph.py`` checks that on the built graph);
* :meth:`SortedGraph.to_blocks` -- the exchange run backwards: per-bucket
  results split by input block, back to their block (DeLong's paired test);
* :func:`~dask_auc._engine.map_blocks` / :func:`~dask_auc._engine.gather` --
  block-level work before a sort (:mod:`~dask_auc._engine.blockwise`).

The exchange of rows between workers lives in
:func:`~dask_auc._engine.exchange.exchange` alone (the grouped AUC's hash
split, :class:`~dask_auc._engine.hashed.HashedGraph`, uses it too).
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import dask
from dask.base import tokenize
from dask.delayed import Delayed

from .._kernels.sort.buckets import assemble_bucket, split_block
from .._kernels.sort.plan import plan_sort
from .._kernels.sort.prepare import block_meta
from .blocks import sizes_of
from .config import compiled_kernels
from .exchange import exchange
from .fusion import share
from .lazy import LazyScore, _as_tuple
from .sizing import bucket_layout
from .tasks import GraphOperations, TaskLayer


class SortedGraph(GraphOperations):
    """The sorted buckets of one input, and the operations metrics compose on them.

    Parameters
    ----------
    blocks : list of Delayed
        One :class:`~dask_auc._kernels.sort.prepare.PreparedBlock` per input block;
        :class:`~dask_auc._engine.blocks.Blocks` carry their sizes, from which
        the bucket count and each block's share of the sample follow
        (:func:`~dask_auc._engine.sizing.bucket_layout`).
    plan : callable, default :func:`~dask_auc._kernels.sort.plan.plan_sort`
        ``plan(metas, n_buckets) -> SortPlan``: checks the blocks and picks the
        splitters (a metric adds its label checks here, before any sorting).
    n_buckets : int, optional
        Number of score buckets (default: sized by the data).
    """

    def __init__(
        self,
        blocks: Sequence[Delayed],
        *,
        plan: Callable[..., Any] = plan_sort,
        n_buckets: int | None = None,
    ):
        self.blocks = list(blocks)
        layout = bucket_layout(sizes_of(blocks), len(self.blocks))
        self.n_buckets = n_buckets or layout.n_buckets
        samples = layout.samples if not n_buckets else (16 * n_buckets,) * len(self.blocks)
        compiled = compiled_kernels()
        token = tokenize([b.key for b in self.blocks], self.n_buckets, samples, plan, compiled)
        self.layer = TaskLayer(token, self.blocks)
        meta = self.layer.name("auc-meta", block_meta)
        metas = [
            self.layer.add((meta, i), block_meta, block.key, n)
            for i, (block, n) in enumerate(zip(self.blocks, samples, strict=True))
        ]
        self.plan_key = self.task("auc-plan", _planned, plan, metas, self.n_buckets, compiled)
        split = self.layer.name("auc-split", split_block, self.plan_key)
        splits = [
            self.layer.add((split, i), split_block, block.key, self.plan_key)
            for i, block in enumerate(self.blocks)
        ]
        self.bucket_keys = exchange(
            self.layer, "auc-bucket", splits, self.n_buckets, assemble_bucket
        )

    def per_bucket(
        self,
        kind: str,
        func: Callable,
        *args: Any,
        each: Hashable | None = None,
        on: Sequence[Hashable] | None = None,
        shared: bool = False,
    ) -> list[tuple]:
        """One task per bucket, ``func(bucket, [each[b]], *args)``; keys in score order.

        ``each`` is the key of a list with one entry per bucket (a scan's
        result): bucket ``b`` gets its own entry, taken out by a small task.
        ``on`` are keys of one result per bucket to use instead of the sorted
        buckets (another view of them, made by an earlier ``per_bucket``).
        ``shared``: several queries read these results (``on=``); computed
        together, a bucket's readers run as one task (:mod:`.fusion`).
        """
        if shared:
            share(kind)
        buckets = self.bucket_keys if on is None else list(on)
        name = self.layer.name(kind, func, args, each, buckets)
        picks = self.layer.name(f"{kind}-of", each, self.n_buckets)
        keys = []
        for b, bucket in enumerate(buckets):
            picked: tuple = ()
            if each is not None:
                picked = (self.layer.add((picks, b), operator.getitem, each, b),)
            keys.append(self.layer.add((name, b), func, bucket, *picked, *args))
        return keys

    def persist(self, keys: Sequence[Hashable], *others: Any) -> tuple[Any, ...]:
        """Compute ``keys`` now and keep their results; tasks added later read them.

        On a ``distributed`` client the results stay on the workers, held as
        futures (a lost worker's share is recomputed from the tasks that made
        it, as for any persisted collection); on a local scheduler they stay
        in this process.  The graph then holds only the kept results, so
        nothing before them (the input, the sort) runs again.  ``others``,
        more dask collections, are persisted in the same call (an input both
        read is read once, so both hold the same rows) and returned persisted.
        """
        kept, *rest = dask.persist(
            LazyScore(self.graph(), list(keys), _as_tuple, "persist"), *others
        )
        self.layer = self.layer.kept(dict(kept.__dask_graph__()))
        return tuple(rest)

    def to_blocks(self, kind: str, routed: Sequence[Hashable]) -> list[tuple]:
        """The exchange backwards: ``routed[b]`` holds one entry per input block.

        Returns, per input block, the key of the list of its entries (from
        the buckets that hold rows of the block, in bucket order).
        """
        return exchange(self.layer, kind, routed, len(self.blocks), _entries)


def _planned(plan: Callable[..., Any], metas: list[Any], n_buckets: int, compiled: bool) -> Any:
    """The metric's plan, telling the bucket kernels whether they may use compiled loops."""
    return dataclasses.replace(plan(metas, n_buckets), compiled=compiled)


def _entries(*entries: Any) -> list[Any]:
    return list(entries)
