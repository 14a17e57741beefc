"""Public, scikit-learn-compatible ranking metrics on dask collections."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ._engine import (
    LazyScore,
    SortedGraph,
    prepared_blocks,
    score_column_count,
    split_every_default,
)
from ._kernels.partial import cut_bucket, locate_crossing, mcclish, partial_area
from ._kernels.sort import SortPlan, summarize_bucket
from ._kernels.summary import PartialROC
from ._kernels.validation import defined_or_warn
from ._multiclass import multiclass_roc_auc
from ._params import AtLeast, Boolean, Interval, Options, check_params

_PARAMETERS = {
    "average": Options(("micro", "macro", "samples", "weighted", None)),
    "max_fpr": Interval(0, 1, closed="right", none=True),
    "multi_class": Options(("raise", "ovr", "ovo")),
    "compute": Boolean(),
    "split_every": AtLeast(2),
}


def roc_auc_score(
    y_true: Any,
    y_score: Any,
    *,
    average: str | None = "macro",
    sample_weight: Any = None,
    max_fpr: float | None = None,
    multi_class: str = "raise",
    labels: Any = None,
    compute: bool = True,
    split_every: int | None = None,
) -> float | LazyScore:
    """Exact area under the ROC curve of a binary target, computed with dask.

    Same definition and result as :func:`sklearn.metrics.roc_auc_score` (ties
    count one half), for data that lives in dask collections: the rows are
    sorted by score across partitions, each sorted bucket is reduced to a small
    summary, and the summaries are merged, neighbours only, in a tree.

    Parameters
    ----------
    y_true : dask Series or Array, pandas Series, ndarray or list
        Binary labels: {0, 1}, {-1, 1}, bool, or any two classes (the greater
        one is the positive class, as in scikit-learn).
    y_score : same kinds as ``y_true``
        Scores, probabilities or decision values; higher means more positive.
        Rows pair with ``y_true`` by position (dask inputs must be partitioned
        alike: columns of one DataFrame are).
    average : {'macro', 'micro', 'weighted', 'samples'} or None, default='macro'
        Accepted for compatibility; a binary target has a single score.
    sample_weight : same kinds as ``y_true``, optional
        Non-negative row weights; rows of weight zero are ignored.
    max_fpr : float in (0, 1], optional
        Return the McClish-standardised partial AUC over ``fpr <= max_fpr``.
    multi_class : {'raise', 'ovr', 'ovo'}, default='raise'
        For a 2-D ``y_score`` of per-class scores (probabilities): one-vs-rest
        or one-vs-one (Hand & Till), as scikit-learn; see
        :mod:`dask_auc._multiclass`.  ``'raise'`` raises for a multi-class target.
    labels : array-like, optional
        Accepted for compatibility; unused for a binary target.
    compute : bool, default=True
        If False, return a :class:`LazyScore` (a dask collection); call
        ``.compute()`` or pass it to ``dask.compute`` with other work.
    split_every : int >= 2, optional
        Fan-in of the merge tree (default: ``dask.config`` key
        ``dask-auc.split-every``, 8).  With ``max_fpr`` one task reads the
        bucket summaries (one small record per bucket) and there is no tree.

    Returns
    -------
    float or LazyScore
        The AUC; NaN with an :class:`UndefinedMetricWarning` when ``y_true``
        holds one class only.

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd, dask_auc
    >>> df = dd.from_pandas(pd.DataFrame({"label": [0, 0, 1, 1],
    ...                                   "score": [0.1, 0.4, 0.35, 0.8]}), npartitions=2)
    >>> dask_auc.roc_auc_score(df["label"], df["score"])
    0.75
    >>> dask_auc.roc_auc_score(df["label"], df["score"], max_fpr=0.5)
    0.6666666666666666
    """
    name = "roc_auc_score"
    checked = check_params(
        name,
        _PARAMETERS,
        average=average,
        max_fpr=max_fpr,
        multi_class=multi_class,
        compute=compute,
        split_every=split_every,
    )
    max_fpr = checked["max_fpr"]
    split_every = checked["split_every"] or split_every_default()
    n_columns = score_column_count(y_score)
    if n_columns is not None:
        lazy = multiclass_roc_auc(
            y_true,
            y_score,
            n_columns,
            multi_class=multi_class,
            average=average,
            sample_weight=sample_weight,
            max_fpr=max_fpr,
            labels=labels,
            split_every=split_every,
        )
        return lazy.compute() if compute else lazy
    graph = SortedGraph(prepared_blocks(y_true, y_score, sample_weight))
    summaries = graph.per_bucket("auc-summary", summarize_bucket)
    if max_fpr is None or max_fpr == 1.0:
        result = graph.tree_reduce(summaries, split_every)
        finalize: Any = _finalize_auc
    else:
        result = partial_area_key(graph, summaries, max_fpr)
        finalize = _PartialFinalizer(max_fpr)
    lazy = graph.lazy([result, graph.plan_key], finalize, name)
    return lazy.compute() if compute else lazy


def partial_area_key(graph: SortedGraph, summaries: list, max_fpr: float) -> Hashable:
    """Key of ``(partial AUC, P, N)`` up to ``max_fpr``, see :mod:`dask_auc._kernels.partial`.

    A scan of the summaries finds the bucket where the false positive rate
    passes ``max_fpr``; only that bucket looks at its rows again.
    """
    crossings = graph.task("auc-crossing", locate_crossing, summaries, max_fpr)
    cuts = graph.per_bucket("auc-cut", cut_bucket, each=crossings)
    return graph.task("auc-partial", partial_area, summaries, crossings, cuts)


def _finalize_auc(summary: PartialROC, plan: SortPlan) -> float:
    if not defined_or_warn(len(plan.classes), summary.pos, summary.neg):
        return float("nan")
    return summary.auc()


class _PartialFinalizer:
    def __init__(self, max_fpr: float):
        self.max_fpr = max_fpr

    def __call__(self, partial: tuple[float, Any, Any], plan: SortPlan) -> float:
        fraction, pos, neg = partial
        if len(plan.classes) == 2 and neg == 0:
            # Both labels are present but every negative weighs 0: scikit-learn's
            # false positive rates are all NaN, its cut keeps a single point, and
            # its ``auc`` raises this.
            raise ValueError(
                "At least 2 points are needed to compute area under curve, but x.shape = 1"
            )
        if not defined_or_warn(len(plan.classes), pos, neg):
            return float("nan")
        return mcclish(fraction, self.max_fpr)
