"""Multi-class ROC AUC as scikit-learn computes it: one-vs-rest and one-vs-one.

``roc_auc_score`` sends a 2-D ``y_score`` (two or more score columns) here.
Every class reduction of one call is part of one graph
(:func:`multiclass_parts`): each score column is sorted once,
its rows keeping their class, and the sorted buckets give

* one-vs-rest (``multi_class='ovr'``): class ``c`` (``y == classes[c]``)
  against all other rows, scored by column ``c``; averaged with ``'macro'``,
  ``'weighted'`` (by class support) or returned per class (``None``);
* one-vs-one (``multi_class='ovo'``, Hand & Till 2001): for classes ``a < b``
  present in ``y_true``, the mean of AUC(``a`` vs ``b`` by column ``a``) and
  AUC(``b`` vs ``a`` by column ``b``), on the rows of classes ``a`` and ``b``
  only; averaged with ``'macro'`` or ``'weighted'`` (by the pair's share of rows);
* ``average='micro'`` (one-vs-rest only): the binary AUC of the raveled
  indicator matrix against the raveled scores.

Parameter checks that need no data run when the call is made; the checks that
need the data (labels, probabilities summing to 1) run in the tasks, with
scikit-learn 1.9's messages.  The only check done in a different order than
scikit-learn is the probability check, which comes after the parameter checks.
"""

from __future__ import annotations

import functools
from functools import partial
from itertools import combinations
from typing import Any

import numpy as np

from ._engine import LazyScore, SortedGraph, gather, lazy_of, map_blocks, prepared_blocks
from ._kernels.columns.multiclass import (
    ClassPlan,
    class_group_keys,
    class_meta,
    column_groups,
    encode_block,
    micro_block,
    plan_classes,
    prepare_multiclass_block,
    summarize_one_vs_rest,
    summarize_pair,
)
from ._kernels.core.summary import PartialROC
from ._kernels.core.validation import (
    MULTICLASS_MESSAGE,
    partial_multiclass_message,
)
from ._kernels.sort.buckets import summarize_bucket
from ._kernels.sort.plan import plan_sort
from ._roc import defined_auc


def check_multiclass_params(
    multi_class: str,
    average: str | None,
    max_fpr: float | None,
    labels: tuple[Any, ...] | None,
    n_columns: int,
    weighted: bool,
) -> None:
    """scikit-learn 1.9's checks of a multi-class call that need no data, in its order."""
    if max_fpr is not None and max_fpr != 1.0:
        raise ValueError(partial_multiclass_message(max_fpr))
    if multi_class == "raise":
        raise ValueError(MULTICLASS_MESSAGE)
    options: tuple[str | None, ...] = ("macro", "weighted", None)
    if multi_class == "ovr":
        options = ("micro",) + options
    if average not in options:
        raise ValueError(f"average must be one of {options} for multiclass problems")
    if average is None and multi_class == "ovo":
        raise NotImplementedError("average=None is not implemented for multi_class='ovo'.")
    if labels is not None:
        if len(set(labels)) != len(labels):
            raise ValueError("Parameter 'labels' must be unique")
        if list(labels) != sorted(labels):
            raise ValueError("Parameter 'labels' must be ordered")
        if len(labels) != n_columns:
            raise ValueError(
                f"Number of given labels, {len(labels)}, not equal to the number of "
                f"columns in 'y_score', {n_columns}"
            )
    if multi_class == "ovo" and weighted:
        raise ValueError(
            "sample_weight is not supported for multiclass one-vs-one ROC AUC, "
            "'sample_weight' must be None in this case."
        )


def _labels_tuple(labels: Any) -> tuple[Any, ...] | None:
    if labels is None:
        return None
    values = np.asarray(labels)
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {values.shape} instead.")
    return tuple(v.item() if hasattr(v, "item") else v for v in values)


def multiclass_roc_auc(
    y_true: Any,
    y_score: Any,
    n_columns: int,
    *,
    multi_class: str,
    average: str | None,
    sample_weight: Any,
    max_fpr: float | None,
    labels: Any,
    split_every: int,
) -> LazyScore:
    """The lazy multi-class AUC of ``y_score`` with ``n_columns`` (>= 2) score columns.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0, 1, 2, 2])
    >>> p = np.array([[0.8, 0.1, 0.1], [0.3, 0.4, 0.3], [0.1, 0.2, 0.7], [0.2, 0.5, 0.3]])
    >>> multiclass_roc_auc(y, p, 3, multi_class="ovr", average="macro", sample_weight=None,
    ...                    max_fpr=None, labels=None, split_every=8).compute()
    0.8472222222222222
    """
    label_values = _labels_tuple(labels)
    checks = functools.partial(
        check_multiclass_params,
        multi_class,
        average,
        max_fpr,
        label_values,
        n_columns,
        sample_weight is not None,
    )
    if n_columns > 2:
        checks()
        deferred = None
    else:  # multi-class only if y_true has 3+ classes: known from the data
        deferred = checks
    ovr = multi_class != "ovo"
    parts = multiclass_parts(
        prepared_blocks(
            y_true, y_score, sample_weight, prepare=prepare_multiclass_block, score_matrix=True
        ),
        (label_values, n_columns, deferred),
        n_columns,
        one_vs_rest=ovr and average != "micro",
        one_vs_one=not ovr,
        micro=ovr and average == "micro",
        split_every=split_every,
    )
    finalize = _MultiClassFinish(multi_class, average, n_columns)
    return lazy_of(parts, finalize, "roc_auc_score")


def multiclass_parts(
    blocks: list,
    plan_args: tuple[Any, ...],
    n_columns: int,
    *,
    one_vs_rest: bool,
    one_vs_one: bool,
    micro: bool,
    split_every: int,
) -> list:
    """The parts of a multi-class AUC, every class reduction from one sort per column.

    ``blocks`` are lazy :class:`~dask_auc._kernels.columns.multiclass.MultiBlock`
    objects.  One task plans the classes; each score column is then sorted
    once, its rows keeping their class (a bucket part per class), and reduced
    per target (one-vs-rest, and one-vs-one against each other class); micro
    averaging sorts the raveled matrix as a binary target.

    Returns the class plan first, then for each column ``c`` its one-vs-rest
    result (if asked) and its results against every other class in
    increasing order (if asked), then the micro result (if asked).
    """
    plan = gather(plan_classes, map_blocks(class_meta, blocks), *plan_args)
    encoded = map_blocks(encode_block, blocks, plan)
    parts: list = [plan]
    by_class = partial(plan_sort, group_keys=class_group_keys(n_columns))
    for column in range(n_columns if one_vs_rest or one_vs_one else 0):
        graph = SortedGraph(map_blocks(column_groups, encoded, column), plan=by_class)
        keys = []
        if one_vs_rest:
            summaries = graph.per_bucket("auc-summary", summarize_one_vs_rest, column)
            keys.append(graph.tree_reduce(summaries, split_every))
        for other in range(n_columns) if one_vs_one else ():
            if other != column:
                kind = f"auc-pair-summary-{other}"
                summaries = graph.per_bucket(kind, summarize_pair, column, other)
                keys.append(graph.tree_reduce(summaries, split_every, f"auc-merge-pair-{other}"))
        parts.append(graph.lazy(keys))
    if micro:
        graph = SortedGraph(map_blocks(micro_block, encoded))
        summaries = graph.per_bucket("auc-summary", summarize_bucket)
        parts.append(graph.lazy([graph.tree_reduce(summaries, split_every)]))
    return parts


class _MultiClassFinish:
    """Turn the class plan and the reductions into scikit-learn's number(s)."""

    def __init__(self, multi_class: str, average: str | None, n_columns: int):
        self.multi_class = multi_class
        self.average = average
        self.n_columns = n_columns

    def __call__(self, plan: ClassPlan, *results: PartialROC) -> Any:
        if self.multi_class == "ovo":
            return self._one_vs_one(plan, results)
        if self.average == "micro":
            (summary,) = results
            return defined_auc(2, summary)
        return self._one_vs_rest(plan, results)

    def _one_vs_rest(self, plan: ClassPlan, results: tuple[PartialROC, ...]) -> Any:
        scores = np.array(
            [
                defined_auc(1 if count in (0, plan.n_rows) else 2, summary)
                for summary, count in zip(results, plan.counts, strict=True)
            ]
        )
        if self.average is None:
            return scores
        if self.average == "macro":
            return float(np.average(scores))
        support = plan.support
        if np.isclose(support.sum(), 0):
            return 0.0
        scores[support == 0] = 0
        return float(np.average(scores, weights=support))

    def _one_vs_one(self, plan: ClassPlan, results: tuple[PartialROC, ...]) -> float:
        k = self.n_columns
        # results: for each column c, c against every other class in increasing order
        pair = {}
        position = iter(results)
        for column in range(k):
            for other in range(k):
                if other != column:
                    pair[column, other] = next(position)
        present = [c for c in range(k) if plan.counts[c] > 0]
        scores, prevalence = [], []
        for a, b in combinations(present, 2):
            forward, backward = defined_auc(2, pair[a, b]), defined_auc(2, pair[b, a])
            scores.append((forward + backward) / 2)
            prevalence.append((plan.counts[a] + plan.counts[b]) / plan.n_rows)
        weights = prevalence if self.average == "weighted" else None
        return float(np.average(scores, weights=weights))
