"""The engine: the only code that builds task graphs, and it knows no metric.

A metric is a composition of the operations below on the *sorted buckets* of
its input (bucket 0 holds the highest scores); its kernels are pure NumPy
functions from :mod:`dask_auc._kernels`.  Layout of the sort, for ``P`` input
blocks and ``K`` score buckets::

    block_i -> meta_i ----------> plan            (P small samples -> splitters)
    block_i + plan -> split_i                     (one view per bucket)
    split_* -> bucket_b                           (the exchange, :func:`exchange`:
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
* :func:`map_blocks` / :func:`gather` -- block-level work before a sort.

The exchange of rows between workers lives in :func:`exchange` alone (the
grouped AUC's hash split uses it too).
"""

from __future__ import annotations

import dataclasses
import math
import operator
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import dask
import numpy as np
from dask.base import tokenize
from dask.delayed import Delayed
from dask.highlevelgraph import HighLevelGraph
from dask.typing import Key

from .._kernels.core.summary import merge_run
from .._kernels.sort.buckets import assemble_bucket, split_block
from .._kernels.sort.plan import plan_sort
from .._kernels.sort.prepare import block_meta
from .config import compiled_kernels, exchange_method
from .inputs import Blocks, sizes_of
from .lazy import LazyScore, _as_tuple
from .sizing import bucket_layout


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


def exchange(
    layer: TaskLayer,
    kind: str,
    sources: Sequence[Hashable],
    n_out: int,
    combine: Callable[..., Any],
    *args: Any,
) -> list[tuple]:
    """Route piece ``d`` of every source to destination ``d``; the one row exchange.

    Each source is the key of a list of ``n_out`` pieces (a split block).
    Returns, per destination, the key of ``combine(*args, *pieces)``, the
    pieces in source order.  How the pieces travel is
    :func:`~dask_auc._engine.config.exchange_method`'s choice:

    ``"direct"`` (threaded scheduler)
        destination tasks read their pieces from the sources in shared
        memory, through one task that lists them: ``P + 1 + K`` tasks.
    ``"p2p"`` (a ``distributed`` cluster, exchanges of many pieces)
        :mod:`~dask_auc._engine.p2p`: ``P + 1 + K`` tasks, data out of band,
        disk-backed; empty pieces are not sent (a destination that receives
        none gets one empty piece of the right kind).
    ``"tasks"`` (a cluster's small exchanges, other schedulers)
        one task per piece, taken out through runs of ``~sqrt(K)`` pieces
        first, so that a spilled source is read ``~2 sqrt(K)`` times rather
        than ``K`` times (``benchmarks/results/out-of-core-*.md``).
    """
    method = exchange_method(len(sources) * n_out)
    name = layer.name(kind, method, combine, args, sources, n_out)
    if method == "p2p":
        from .p2p import p2p_exchange

        token = name.removeprefix(f"{kind}-")
        return p2p_exchange(layer.dsk, kind, token, sources, n_out, holds_rows, combine, args)
    if method == "direct":
        # one task lists the sources (shared memory: nothing is copied) and each destination
        # reads that one list: P + K task references, not P * K (600 tiny partitions of
        # unknown length, one bucket each, took seconds to hand 360,000 to the scheduler)
        listed = layer.add((layer.name(f"{kind}-sources", sources), 0), _listed, *sources)
        return [
            layer.add((name, d), _combine_piece, d, combine, list(args), listed)
            for d in range(n_out)
        ]
    pieces = _piece_tasks(layer, kind, sources, n_out)
    return [layer.add((name, d), combine, *args, *row) for d, row in enumerate(pieces)]


def _listed(*sources: Any) -> list[Any]:
    return list(sources)


def _combine_piece(
    d: int, combine: Callable[..., Any], args: list, sources: Sequence[Sequence[Any]]
) -> Any:
    return combine(*args, *(source[d] for source in sources))


def _piece_tasks(
    layer: TaskLayer, kind: str, sources: Sequence[Hashable], n_out: int
) -> list[list[tuple]]:
    """``pieces[d][i]``: the key of a task taking source ``i``'s piece ``d`` out."""
    per_run = math.isqrt(n_out - 1) + 1  # ceil(sqrt(K))
    piece_name = layer.name(f"{kind}-piece", sources, n_out)
    run_name = layer.name(f"{kind}-run", sources, n_out)
    by_source = []
    for i, source in enumerate(sources):
        if per_run >= n_out:
            row = [layer.add((piece_name, i, d), operator.getitem, source, d) for d in range(n_out)]
        else:
            runs = [
                layer.add(
                    (run_name, i, start),
                    operator.getitem,
                    source,
                    slice(start, start + per_run),
                )
                for start in range(0, n_out, per_run)
            ]
            row = [
                layer.add((piece_name, i, d), operator.getitem, runs[d // per_run], d % per_run)
                for d in range(n_out)
            ]
        by_source.append(row)
    return [[row[d] for row in by_source] for d in range(n_out)]


def holds_rows(piece: Any) -> bool:
    """Whether a piece holds a row: any array in it (in dataclasses, tuples, lists) is non-empty.

    Metric-agnostic: pieces are whatever the kernels cut (buckets of sorted
    scores, group rows, per-block placements).
    """
    if isinstance(piece, np.ndarray):
        return piece.size > 0
    if isinstance(piece, (tuple, list)):
        return any(holds_rows(p) for p in piece)
    if isinstance(piece, dict):
        return any(holds_rows(p) for p in piece.values())
    if dataclasses.is_dataclass(piece):
        return any(holds_rows(getattr(piece, f.name)) for f in dataclasses.fields(piece))
    if hasattr(piece, "__len__") and not isinstance(piece, (str, bytes)):
        return len(piece) > 0
    return False


class _Operations:
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


class HashedGraph(_Operations):
    """Rows routed by a hash of their group key (the grouped AUC), through one or more exchanges.

    Layout, for ``P`` blocks (each a list of consecutive input partitions)::

        block_i' -> sample_i -------> route        (optional: P samples -> a routing plan;
                                                    block_i' may be another read of block_i)
        block_i + route -> split_i                 (info, then one list of pieces per exchange)
        split_* -> destination_d of exchange e     (:func:`exchange`)

    ``split(block, *args, route)`` returns ``(info, pieces_0, pieces_1, ...)``
    with ``n_outs[e]`` pieces in list ``e`` (``route`` is None without
    ``sample``).  Each exchange's pieces are of one kind, so a destination
    nothing reached gets an empty piece of its own exchange's kind.
    """

    def __init__(
        self,
        blocks: Sequence[Delayed],
        split: Callable[..., Any],
        args: tuple[Any, ...],
        n_outs: Sequence[int],
        *,
        sample: Callable[..., Any] | None = None,
        sample_blocks: Sequence[Delayed] = (),
        sample_sizes: Sequence[int] = (),
        route: Callable[..., Any] | None = None,
        route_args: tuple[Any, ...] = (),
    ):
        self.n_outs = tuple(n_outs)
        token = tokenize([b.key for b in blocks], split, args, self.n_outs)
        self.layer = TaskLayer(token, [*blocks, *sample_blocks])
        self.route: Hashable | None = None
        if sample is not None and route is not None:
            read = [b.key for b in sample_blocks] or [b.key for b in blocks]
            name = self.layer.name("auc-grouped-sample", sample, sample_sizes, read)
            samples = [
                self.layer.add((name, i), sample, key, n)
                for i, (key, n) in enumerate(zip(read, sample_sizes, strict=True))
            ]
            self.route = self.task("auc-grouped-route", route, samples, *route_args)
        name = self.layer.name("auc-grouped-split", split, args, self.route)
        splits = [
            self.layer.add((name, i), split, block.key, *args, self.route)
            for i, block in enumerate(blocks)
        ]
        info = self.layer.name("auc-grouped-info", name)
        self.infos = [
            self.layer.add((info, i), operator.getitem, s, 0) for i, s in enumerate(splits)
        ]
        self.sources = []
        for e in range(len(self.n_outs)):
            pieces = self.layer.name(f"auc-grouped-pieces-{e}", name)
            self.sources.append(
                [
                    self.layer.add((pieces, i), operator.getitem, s, 1 + e)
                    for i, s in enumerate(splits)
                ]
            )

    def per_bucket(
        self, kind: str, func: Callable, *args: Any, exchange_index: int = 0
    ) -> list[tuple]:
        """One task per destination of an exchange, ``func(*args, *pieces)``, after it."""
        sources = self.sources[exchange_index]
        return exchange(self.layer, kind, sources, self.n_outs[exchange_index], func, *args)


class SortedGraph(_Operations):
    """The sorted buckets of one input, and the operations metrics compose on them.

    Parameters
    ----------
    blocks : list of Delayed
        One :class:`~dask_auc._kernels.sort.prepare.PreparedBlock` per input block;
        :class:`~dask_auc._engine.inputs.Blocks` carry their sizes, from which
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
    ) -> list[tuple]:
        """One task per bucket, ``func(bucket, [each[b]], *args)``; keys in score order.

        ``each`` is the key of a list with one entry per bucket (a scan's
        result): bucket ``b`` gets its own entry, taken out by a small task.
        ``on`` are keys of one result per bucket to use instead of the sorted
        buckets (another view of them, made by an earlier ``per_bucket``).
        """
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


def _sized_like(result: list[Delayed], blocks: Sequence[Any]) -> list[Delayed]:
    """``result`` (one per block of ``blocks``) with the sizes ``blocks`` carry."""
    sizes = sizes_of(blocks)
    return Blocks(result, sizes) if sizes is not None else result


def map_blocks(func: Callable, blocks: Sequence[Delayed], *args: Any) -> list[Delayed]:
    """``func(block, *args)`` on every block (work before, or beside, a sort)."""
    task = dask.delayed(func, pure=True)
    return _sized_like([task(block, *args) for block in blocks], blocks)


def map_indexed_blocks(func: Callable, blocks: Sequence[Delayed], *args: Any) -> list[Delayed]:
    """``func(block, i, *args)`` on every block ``i``."""
    task = dask.delayed(func, pure=True)
    return _sized_like([task(block, i, *args) for i, block in enumerate(blocks)], blocks)


def zip_blocks(
    func: Callable, blocks: Sequence[Delayed], *per_block: Sequence[Any]
) -> list[Delayed]:
    """``func(block_i, a_i, b_i, ...)`` on every block: one argument per block from each list."""
    task = dask.delayed(func, pure=True)
    return [task(block, *args) for block, *args in zip(blocks, *per_block, strict=True)]


def gather(func: Callable, items: Sequence[Any], *args: Any, **kwargs: Any) -> Delayed:
    """One task ``func(list_of_items, *args, **kwargs)``.

    ``items`` that are Delayed objects enter by their keys, and their graphs
    as dependencies: ``dask.delayed(func)(items)`` would optimize (cull) each
    item's whole graph to build the task, and a tree of such tasks over 800
    blocks took 18 s to build.
    """
    delayed = [x for x in items if isinstance(x, Delayed)]
    plain = [*args, *kwargs.values()]
    if len(delayed) < len(items) or not all(map(_inert, plain)):
        return dask.delayed(func, pure=True)(list(items), *args, **kwargs)
    keys = [x.key for x in delayed]
    name = f"{getattr(func, '__name__', 'gather')}-{tokenize(func, keys, args, kwargs)}"
    task = (_call_on_list, func, keys, args, kwargs)
    graph = HighLevelGraph.from_collections(name, {name: task}, dependencies=delayed)  # type: ignore[arg-type]
    return Delayed(name, graph)


def _call_on_list(func: Callable, items: list, args: tuple, kwargs: dict) -> Any:
    return func(items, *args, **kwargs)


def _inert(value: Any) -> bool:
    """A value a task may hold as it is: no collection, nothing dask would read as a task."""
    if isinstance(value, (list, tuple)):
        starts_a_task = isinstance(value, tuple) and value and callable(value[0])
        return not starts_a_task and all(map(_inert, value))
    if isinstance(value, dict):
        return all(map(_inert, value.values()))
    return not dask.is_dask_collection(value)


def lazy_of(
    parts: Sequence[Delayed | LazyScore], finalize: Callable[..., Any], label: str
) -> LazyScore:
    """One lazy result over several graphs: ``finalize(*results of parts)``."""
    graphs = [p.__dask_graph__() for p in parts]
    keys: list[Hashable] = []
    for part in parts:
        keys.extend(part.__dask_keys__() if isinstance(part, LazyScore) else [part.key])
    return LazyScore(HighLevelGraph.merge(*graphs), keys, finalize, label)
