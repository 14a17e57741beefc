"""The bootstrap's sort: validated rows sorted once by score with their keys, for every replicate.

A row's replicate counts depend on its key only (its position in the input,
or its group's key for the cluster bootstrap), so the rows are sorted with
their keys (:mod:`dask_auc._kernels.replicates.traced`); every replicate
query of any metric, seed or number of replicates reads that one sort.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import partial
from typing import Any

from .._engine import Blocks, SortedGraph, map_indexed_blocks, prepared_blocks, sizes_of
from .._kernels.replicates.queries import ReplicateQuery, combine, replicate_parts
from .._kernels.replicates.scan import replicate_scan, scan_contexts
from .._kernels.replicates.summary import replicate_summary
from .._kernels.replicates.tie_groups import ReplicateSpec
from .._kernels.replicates.traced import prepare_rows, traced_plan, traced_rows
from .._kernels.sort.labels import binary_bucket, choose_positive, plan_labels

_INPUT_NAMES = ("y_true", "y_score", "sample_weight", "groups")


def replicate_rows(y_true: Any, y_score: Any, sample_weight: Any, groups: Any = None) -> Any:
    """The validated rows of one input, with their group keys: a block each, to be sorted."""
    prepare = partial(prepare_rows, weighted=sample_weight is not None)
    extra = () if groups is None else (groups,)
    return prepared_blocks(
        y_true, y_score, sample_weight, prepare=prepare, names=_INPUT_NAMES, extra=extra
    )


def replicate_sort(
    y_true: Any, y_score: Any, sample_weight: Any, groups: Any, pos_label: Any
) -> ReplicateSort:
    """The :class:`ReplicateSort` of an input (``groups``: the cluster bootstrap's keys)."""
    rows = replicate_rows(y_true, y_score, sample_weight, groups)
    return ReplicateSort(rows, sample_weight is not None, groups is not None, pos_label)


class ReplicateSort:
    """Validated rows sorted once with their keys: the graph every replicate query reads.

    ``rows`` are :func:`replicate_rows`' blocks.  ``persist`` keeps the
    sorted buckets (the scores, row keys and weights: 16 or 24 bytes a row),
    so that later queries, of any metric, seed or number of replicates, sort
    nothing.
    """

    def __init__(self, rows: Any, weighted: bool, by_group: bool, pos_label: Any):
        self.weighted = weighted
        traced = map_indexed_blocks(traced_rows, rows)
        plan = partial(_traced_plan, by_group=by_group)
        self.graph = graph = SortedGraph(traced, plan=plan)
        self.choice = graph.task("bootstrap-positive", choose_positive, graph.plan_key, pos_label)
        self.buckets = graph.per_bucket("bootstrap-binary", binary_bucket, self.choice)
        self.persisted = False

    def persist(self) -> ReplicateSort:
        if not self.persisted:
            self.graph.persist([self.choice, self.graph.plan_key, *self.buckets])
            self.persisted = True
        return self

    def parts(self, spec: ReplicateSpec, query: ReplicateQuery | None) -> list[Any]:
        """Delayed ``[label choice, scan, (query totals)]`` of every replicate."""
        graph, plan = self.graph, self.graph.plan_key
        summaries = graph.per_bucket(
            "bootstrap-summary", replicate_summary, plan, spec, on=self.buckets
        )
        scan = graph.task("bootstrap-scan", replicate_scan, summaries)
        keys: list[Hashable] = [self.choice, scan]
        if query is not None:
            contexts = graph.task("bootstrap-contexts", scan_contexts, scan)
            parts = graph.per_bucket(
                "bootstrap-parts",
                replicate_parts,
                plan,
                spec,
                query,
                each=contexts,
                on=self.buckets,
            )
            keys.append(graph.task("bootstrap-total", combine, query.kind, parts))
        return graph.delayed(keys)


class RocReplicates:
    """The bootstrap's sort of a ROC's rows: of its source while lazy, of kept rows once persisted.

    A ROC's buckets hold distinct scores, not rows, and a row's replicate
    counts depend on its position: the bootstrap sorts the rows once more,
    with their positions.  :meth:`persist_with` keeps the input's validated
    rows (9 bytes a row, 17 weighted: each label kept as its class's index in
    one byte), read in the one pass that also makes
    the ROC's buckets, so every answer of a persisted ROC describes the same
    rows, whatever its source holds later.  The first bootstrap query sorts
    those rows and keeps that sort in their place.
    """

    def __init__(self, y_true: Any, y_score: Any, sample_weight: Any, pos_label: Any):
        self.inputs, self.pos_label = (y_true, y_score, sample_weight), pos_label
        self.weighted = sample_weight is not None
        self.kept: Any = None  # the persisted rows, until their sort is kept
        self.sorted: ReplicateSort | None = None
        self.persisted = False

    def persist_with(self, persist: Callable[..., tuple[Any, ...]]) -> None:
        """Keep the rows, persisted by ``persist(*blocks)`` with the ROC's buckets."""
        rows = replicate_rows(*self.inputs)
        self.kept = Blocks(list(persist(*rows)), sizes_of(rows))
        self.sorted, self.persisted = None, True

    def sort(self, groups: Any) -> ReplicateSort:
        """The sort of the rows (with ``groups``' keys: on a lazy ROC only)."""
        if groups is not None and self.persisted:
            raise ValueError(
                "ci(method='bootstrap', groups=...) of a persisted ROC: the groups would pair "
                "by position with its persisted rows, read from a source that may hold other "
                "rows by now; call ci(groups=...) before persist(), or "
                "dask_auc.bootstrap_ci(y_true, y_score, groups=...)"
            )
        if groups is not None:
            return replicate_sort(*self.inputs, groups, self.pos_label)
        if self.sorted is None:
            rows = self.kept if self.persisted else replicate_rows(*self.inputs)
            self.sorted = ReplicateSort(rows, self.weighted, False, self.pos_label)
        if self.persisted and not self.sorted.persisted:
            self.sorted.persist()
            self.kept = None  # the kept sort holds them now
        return self.sorted


def _traced_plan(metas: Any, n_buckets: int, *, by_group: bool) -> Any:
    return traced_plan(plan_labels(metas, n_buckets), metas, by_group)
