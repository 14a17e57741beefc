"""The sort of one binary input: by score, every label apart; the positive class chosen after it.

The one recipe of the binary wing's sort: the ROC's (:mod:`.object`) and the
Mann-Whitney U test's (:mod:`.mannwhitney`) build it here, with the same
task names.  The sort is by label value (every label, any number of them):
the positive label is chosen after it by one small task
(:mod:`dask_auc._kernels.sort.labels`), so ``pos_label`` never changes the sort.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from functools import partial
from typing import Any

from .._engine import LazyScore, SortedGraph, split_every_default
from .._kernels.binary.average_precision import bucket_precision_sum
from .._kernels.binary.curve_context import CurveContext, curve_contexts
from .._kernels.binary.partial import cut_bucket_at, interval_area, locate_crossings
from .._kernels.binary.persisted import with_answers, with_placed_points
from .._kernels.sort.buckets import summarize_bucket
from .._kernels.sort.labels import LabelChoice, binary_bucket, choose_positive, plan_labels
from .labels import asks_the_other_class
from .replicates import RocReplicates


class BinarySort:
    """One input's sorted binary buckets and their summaries (lazy keys of one graph).

    ``blocks`` are the prepared blocks of the input (one sorted part per label);
    ``pos_label`` the positive class asked (None: ``roc_auc_score``'s rule);
    ``graph`` a sort of them made elsewhere with :func:`plan_labels` (DeLong's,
    whose rows carry their ids: :mod:`.delong`), else this one is made.
    """

    def __init__(self, blocks: Any, pos_label: Any, graph: SortedGraph | None = None):
        self.graph = graph = SortedGraph(blocks, plan=plan_labels) if graph is None else graph
        self.choice = graph.task("auc-positive", choose_positive, graph.plan_key, pos_label)
        self.buckets = graph.per_bucket("auc-binary", binary_bucket, self.choice)
        self.summaries = graph.per_bucket("auc-summary", summarize_bucket, on=self.buckets)

    def area(self, split_every: int | None) -> Hashable:
        """Key of the merged :class:`~dask_auc.PartialROC` (the exact AUC)."""
        return self.graph.tree_reduce(self.summaries, split_every or split_every_default())

    def partial_area(self, bounds: tuple[float, float], swap: bool = False) -> Hashable:
        """Key of ``(raw partial AUC, P, N)`` over ``bounds``."""
        return partial_area_key(self.graph, self.summaries, bounds, swap=swap, on=self.buckets)

    def query(self, keys: Sequence[Hashable], finish: Callable[..., Any], label: str) -> LazyScore:
        """``finish(label choice, *keys' results)``, lazy."""
        return self.graph.lazy([self.choice, *keys], finish, label)


class CurveSort(BinarySort):
    """A :class:`BinarySort` with what every curve query shares, kept whole by :meth:`persist`.

    The buckets' curve contexts (one scan of the summaries) and each bucket's
    curve points, placed among all buckets' once for every curve query; and
    ``replicates``, the bootstrap's own sort of the same rows
    (:class:`~.replicates.RocReplicates`), for the intervals.
    """

    def __init__(
        self,
        blocks: Any,
        pos_label: Any,
        replicates: RocReplicates,
        graph: SortedGraph | None = None,
    ):
        super().__init__(blocks, pos_label, graph)
        self.replicates = replicates
        self.weighted = replicates.weighted
        self.contexts = self.graph.task("curve-contexts", curve_contexts, self.summaries)
        self.placed = self.graph.per_bucket(
            "curve-placed-points",
            with_placed_points,
            each=self.contexts,
            on=self.buckets,
            shared=True,
        )
        self.persisted = False

    def per_bucket(
        self, kind: str, func: Callable, *args: Any, each: Hashable | None = None, points=False
    ) -> list[tuple]:
        """``func(binary bucket, [each[b]], *args)`` per bucket (``points``: with its points)."""
        on = self.placed if points else self.buckets
        return self.graph.per_bucket(kind, func, *args, each=each, on=on)

    def each_bucket(
        self, kind: str, func: Callable, *args: Any, finish: Callable[..., Any], label: str
    ) -> LazyScore:
        """``func(bucket, its context, *args)`` per bucket; ``finish(contexts, *results)``."""
        parts = self.per_bucket(kind, func, *args, each=self.contexts, points=True)
        return self.query([self.contexts, *parts], finish, label)

    def precision_sum(self) -> Hashable:
        """Key of ``sum(dtps * precision)`` of average precision's class.

        ``average_precision_score``'s class is its ``pos_label``, 1 by default,
        while this ROC's positive class follows ``roc_auc_score``'s rule: the
        two differ only for targets like {1, 2}, where AP's class is then the
        ROC's negative one, and the same points answer it with their counts
        exchanged -- so that the AP of one input shares its sort and bucket
        summaries with every other metric, whichever class the data make
        positive.  (The precision-recall curve's label rule admits only a
        positive class of 1 or its ``pos_label``: the same class.)
        """
        parts = self.per_bucket(
            "curve-precision", _asked_precision_sum, self.choice, each=self.contexts, points=True
        )
        return self.graph.task("curve-precision-sum", _total, parts)

    def persist(self) -> None:
        """Sort now and keep the buckets, and the bootstrap's rows from the same pass.

        Each bucket is kept with its placed points and its answers to the
        questions that take no parameter (average precision, KS, roc_curve's
        corners): every query after it looks them up, none re-merges.
        """
        answered = self.graph.per_bucket(
            "curve-answers", with_answers, each=self.contexts, on=self.placed
        )
        keys = [self.choice, *answered, *self.summaries, self.contexts]
        # the bootstrap's rows are kept from the same pass: one read of the input
        self.replicates.persist_with(partial(self.graph.persist, keys))
        self.buckets = self.placed = answered
        self.persisted = True

    def kept(self) -> tuple[Any, Any]:
        """The kept label choice and contexts, each None until known (never waits)."""
        if not self.persisted:
            return None, None
        kept = dict(self.graph.graph())
        return _ready(kept.get(self.choice)), _ready(kept.get(self.contexts))


def _asked_precision_sum(bucket: Any, context: CurveContext, choice: LabelChoice) -> int:
    return bucket_precision_sum(bucket, context, swap=asks_the_other_class(choice))


def _total(parts: list[int]) -> int:
    return sum(parts)  # the buckets' exact precision sums (bucket_precision_sum): no rounding


def _ready(value: Any) -> Any:
    """A kept result, or None if it is a future not finished yet (never waits)."""
    if hasattr(value, "done") and hasattr(value, "result"):
        return value.result() if value.done() else None
    return value


def partial_area_key(
    graph: SortedGraph,
    summaries: list,
    bounds: tuple[float, float],
    *,
    swap: bool = False,
    on: Sequence[Hashable] | None = None,
) -> Hashable:
    """Key of ``(raw partial AUC, P, N)`` over ``bounds`` (:mod:`dask_auc._kernels.binary.partial`).

    A scan of the summaries finds the buckets where the false (or, with
    ``swap``, true) positive rate passes each bound; only those buckets look at
    their rows again (``on``: the buckets the summaries are of).
    """
    crossings = graph.task("auc-crossing", locate_crossings, summaries, bounds, swap)
    cuts = graph.per_bucket("auc-cut", cut_bucket_at, swap, each=crossings, on=on)
    return graph.task("auc-partial", interval_area, summaries, crossings, cuts, bounds, swap)
