"""ROC AUC and average precision of indicator-matrix targets, as scikit-learn computes them.

Two kinds of input become an ``(n, K)`` indicator matrix with one score column
per indicator column:

* a multilabel ``y_true`` (2-D, values {0, 1}, {-1, 1} or booleans; a cell is
  positive when it equals 1), for ``roc_auc_score`` and ``average_precision_score``;
* a multi-class 1-D ``y_true`` with 2-D scores, for ``average_precision_score``
  (scikit-learn >= 1.3): one-vs-rest against the present classes, sorted.

``average`` reduces the columns as scikit-learn's ``_average_binary_score``:
``None`` (per column), ``'macro'``, ``'weighted'`` (by each column's sum of
labels, times the sample weights), ``'micro'`` (the raveled matrix as one
binary target) and ``'samples'`` (each row's metric across its columns,
averaged with the sample weights).  Each column is sorted once by the binary
sample sort; ``'micro'`` sorts the raveled matrix; ``'samples'`` needs no sort
at all (a row is ranked within its block) and is exact: each row's AUC from
integer mid-rank sums, and the unweighted mean from an exact sum of the row
values (:mod:`dask_auc._kernels.columns.multilabel`).  ``'samples'`` with ``max_fpr`` (a
partial AUC per row) is not supported and raises.

The label checks that need data run in one planning task before any sort,
with scikit-learn 1.9's messages.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import partial
from typing import Any

import numpy as np

from ._engine import (
    LazyScore,
    SortedGraph,
    gather,
    lazy_of,
    map_blocks,
    prepared_blocks,
    score_column_count,
    side_by_side,
)
from ._kernels.binary.average_precision import average_precision, bucket_precision_sum
from ._kernels.binary.curve_context import curve_contexts
from ._kernels.binary.curves import NO_POSITIVE_CLASS_MESSAGE
from ._kernels.binary.partial import mcclish
from ._kernels.columns.multiclass import class_meta, prepare_multiclass_block
from ._kernels.columns.multilabel import (
    IndicatorPlan,
    SampleTotals,
    column_block,
    label_meta,
    micro_indicator_block,
    one_hot_block,
    plan_ap_classes,
    plan_multilabel,
    prepare_multilabel_block,
    sample_totals,
    samples_average,
)
from ._kernels.core.summary import PartialROC
from ._kernels.core.validation import (
    NO_NEGATIVES_MESSAGE,
    ONE_CLASS_MESSAGE,
    defined_or_warn,
    warn_undefined,
)
from ._kernels.sort.buckets import summarize_bucket
from ._kernels.sort.plan import plan_sort
from ._roc import defined_auc, partial_area_key

ROC_AUC = "roc_auc"
AVERAGE_PRECISION = "average_precision"

_BINARY_SORT = partial(plan_sort, group_keys=(False, True))


def multilabel_score(
    metric: str,
    y_true: Any,
    y_score: Any,
    n_labels: int,
    *,
    average: str | None,
    sample_weight: Any,
    max_fpr: float | None = None,
    pos_label: Any = 1,
    split_every: int,
) -> LazyScore:
    """The lazy ``metric`` of a multilabel ``y_true`` with ``n_labels`` (>= 2) columns.

    Examples
    --------
    >>> y = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
    >>> p = np.array([[0.9, 0.2], [0.1, 0.8], [0.7, 0.6], [0.3, 0.1]])
    >>> multilabel_score("roc_auc", y, p, 2, average=None, sample_weight=None,
    ...                  split_every=8).compute()
    array([1., 1.])
    """
    if max_fpr is not None and max_fpr != 1.0 and average == "samples":
        raise ValueError(
            "roc_auc_score of dask-auc does not support average='samples' with max_fpr "
            "(a partial AUC of every row): use average='macro', 'weighted', 'micro' or None."
        )
    n_scores = score_column_count(y_score)
    if n_scores is None:
        raise ValueError(
            "Expected 2D array, got 1D array instead: a multilabel y_true needs a 2-D "
            "y_score with one column per label."
        )
    if n_scores != n_labels:
        raise ValueError(
            f"y_true has {n_labels} label columns but y_score has {n_scores} score columns: "
            "a multilabel y_true needs one score column per label."
        )
    first, matrix = side_by_side(y_true, y_score, n_labels)
    prepare = partial(prepare_multilabel_block, n_labels=n_labels)
    blocks = prepared_blocks(first, matrix, sample_weight, prepare=prepare, score_matrix=True)
    plan = gather(
        plan_multilabel,
        map_blocks(label_meta, blocks),
        n_labels,
        metric=metric,
        pos_label=pos_label,
        average=average,
    )
    parts = indicator_parts(
        metric, blocks, plan, n_labels, average=average, max_fpr=max_fpr, split_every=split_every
    )
    finalize = _MultilabelFinish(metric, average, max_fpr, sample_weight is not None)
    return lazy_of([plan, *parts], finalize, f"{metric}_score")


def multiclass_average_precision(
    y_true: Any,
    y_score: Any,
    n_columns: int,
    *,
    average: str | None,
    pos_label: Any,
    sample_weight: Any,
    split_every: int,
) -> LazyScore:
    """The lazy average precision of a 1-D ``y_true`` against ``n_columns`` score columns.

    A multi-class target is binarized one-vs-rest (scikit-learn >= 1.3); a
    binary one raises scikit-learn's errors for a 2-D ``y_score``.
    """
    prepare = partial(prepare_multiclass_block, probabilities=False)
    blocks = prepared_blocks(y_true, y_score, sample_weight, prepare=prepare, score_matrix=True)
    plans = gather(plan_ap_classes, map_blocks(class_meta, blocks), n_columns, pos_label=pos_label)
    indicator = map_blocks(one_hot_block, blocks, plans)
    plan = dask_getitem(plans, 1)
    parts = indicator_parts(
        AVERAGE_PRECISION,
        indicator,
        plan,
        n_columns,
        average=average,
        max_fpr=None,
        split_every=split_every,
    )
    finalize = _MultilabelFinish(AVERAGE_PRECISION, average, None, sample_weight is not None)
    return lazy_of([plan, *parts], finalize, "average_precision_score")


def dask_getitem(delayed: Any, index: int) -> Any:
    return delayed[index]


def indicator_parts(
    metric: str,
    blocks: list,
    plan: Any,
    n_columns: int,
    *,
    average: str | None,
    max_fpr: float | None,
    split_every: int,
) -> list:
    """The lazy parts of one reduction of an indicator matrix (see the module notes).

    ``blocks`` are lazy :class:`~dask_auc._kernels.columns.multilabel.IndicatorBlock`
    objects; ``plan`` the checked label plan, which every sort waits for.
    One part per column, or one for ``'micro'``, or one for ``'samples'``.
    """
    if average == "samples":
        return [gather(_samples, map_blocks(sample_totals, blocks, metric, plan), metric)]
    if average == "micro":
        binaries = [map_blocks(micro_indicator_block, blocks, plan)]
    else:
        binaries = [map_blocks(column_block, blocks, c, plan) for c in range(n_columns)]
    parts = []
    for binary in binaries:
        graph = SortedGraph(binary, plan=_BINARY_SORT)
        summaries = graph.per_bucket("auc-summary", summarize_bucket)
        parts.append(graph.lazy([_score_key(metric, graph, summaries, max_fpr, split_every)]))
    return parts


def _score_key(
    metric: str, graph: SortedGraph, summaries: list, max_fpr: float | None, split_every: int
) -> Hashable:
    if metric == AVERAGE_PRECISION:
        contexts = graph.task("curve-contexts", curve_contexts, summaries)
        terms = graph.per_bucket("curve-precision", bucket_precision_sum, each=contexts)
        return graph.task("ap-column", _precision_total, contexts, terms)
    if max_fpr is None or max_fpr == 1.0:
        return graph.tree_reduce(summaries, split_every)

    return partial_area_key(graph, summaries, (0.0, max_fpr))


def _precision_total(contexts: list, terms: list[int]) -> tuple[int, Any]:
    """``(exact sum of the precision terms, total positive weight)`` of one binary column."""
    return sum(terms), contexts[0].total[0]


def _samples(parts: list[SampleTotals], metric: str) -> tuple[list[SampleTotals], str]:
    return parts, metric


class _MultilabelFinish:
    """The plan and the per-column (or micro, or samples) results -> scikit-learn's number(s)."""

    def __init__(self, metric: str, average: str | None, max_fpr: float | None, weighted: bool):
        self.metric, self.average, self.max_fpr = metric, average, max_fpr
        self.weighted = weighted

    def __call__(self, plan: IndicatorPlan, *results: Any) -> Any:
        if self.average == "samples":
            ((parts, metric),) = results
            value, undefined = samples_average(parts, self.weighted)
            if undefined:
                self._warn_undefined()
            return value
        if self.average == "micro":
            (result,) = results
            return self._binary(result, plan.n_classes_raveled)
        support = np.asarray(plan.support, dtype=float)
        if self.average == "weighted" and np.isclose(support.sum(), 0):
            return 0.0  # scikit-learn returns before scoring any column
        scores = np.array(
            [self._binary(r, n) for r, n in zip(results, plan.n_classes, strict=True)]
        )
        if self.average is None:
            return scores
        if self.average == "macro":
            return float(np.average(scores))
        scores[support == 0] = 0
        return float(np.average(scores, weights=support))

    def _warn_undefined(self) -> None:
        if self.metric == AVERAGE_PRECISION:
            warn_undefined(NO_POSITIVE_CLASS_MESSAGE, UserWarning)
        else:
            warn_undefined(ONE_CLASS_MESSAGE)

    def _binary(self, result: Any, n_classes: int) -> float:
        if self.metric == AVERAGE_PRECISION:
            precision_sum, total_pos = result
            if total_pos == 0:
                warn_undefined(NO_POSITIVE_CLASS_MESSAGE, UserWarning)
            return average_precision(precision_sum, total_pos)
        if isinstance(result, PartialROC):
            return defined_auc(n_classes, result)
        fraction, pos, neg = result
        if n_classes == 2 and neg == 0:
            warn_undefined(NO_NEGATIVES_MESSAGE)  # scikit-learn's roc_curve warns, then auc raises
            raise ValueError(
                "At least 2 points are needed to compute area under curve, but x.shape = 1"
            )
        if not defined_or_warn(n_classes, pos, neg):
            return float("nan")
        assert self.max_fpr is not None
        return mcclish(fraction, self.max_fpr)
