"""Public, scikit-learn-compatible ranking metrics on dask collections."""

from __future__ import annotations

from typing import Any

from ._engine import LazyScore, score_column_count, split_every_default
from ._multiclass import multiclass_roc_auc
from ._multilabel import ROC_AUC, multilabel_score
from ._params import check_every_param
from ._roc import PARAMETERS, answer, checked_once, roc, roc_auc


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

    Same definition as :func:`sklearn.metrics.roc_auc_score` (ties count one
    half), for data that lives in dask collections: the rows are sorted by
    score across partitions, each sorted bucket is reduced to a small summary,
    and the summaries are merged, neighbours only, in a tree.  Unweighted, the
    result is the exact AUC rounded once (the same bits for any partitioning);
    scikit-learn's float trapezoids may differ from it in the last bits.

    Parameters
    ----------
    y_true : dask Series or Array, pandas Series, ndarray or list
        Binary labels: {0, 1}, {-1, 1}, bool, or any two classes (the greater
        one is the positive class, as in scikit-learn); multi-class labels with
        a 2-D ``y_score``; or a multilabel indicator matrix (a 2-D dask array or
        DataFrame, values {0, 1}, {-1, 1} or bool).
    y_score : same kinds as ``y_true``
        Scores, probabilities or decision values; higher means more positive.
        Rows pair with ``y_true`` by position (dask inputs must be partitioned
        alike: columns of one DataFrame are).
    average : {'macro', 'micro', 'weighted', 'samples'} or None, default='macro'
        How the labels of a multilabel ``y_true`` (a 2-D indicator matrix, with
        a ``y_score`` of one column per label) or the classes of a multi-class
        one are reduced, as scikit-learn does (see :doc:`/user-guide/multiclass`);
        a binary target has a single score.  ``'samples'`` (multilabel only)
        does not take ``max_fpr``.
    sample_weight : same kinds as ``y_true``, optional
        Non-negative row weights; rows of weight zero are ignored.
    max_fpr : float in (0, 1], optional
        Return the McClish-standardised partial AUC over ``fpr <= max_fpr``.
    multi_class : {'raise', 'ovr', 'ovo'}, default='raise'
        For a 2-D ``y_score`` of per-class scores (probabilities): one-vs-rest
        or one-vs-one (Hand & Till), as scikit-learn; see
        :doc:`/user-guide/multiclass`.  ``'raise'`` raises for a multi-class target.
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
    return _roc_auc_score(**locals())


def _roc_auc_score(
    y_true: Any, y_score: Any, sample_weight: Any, labels: Any, **options: Any
) -> float | LazyScore:
    """``roc_auc_score`` of the public function's arguments (its ``locals()``).

    ``options`` are exactly the parameters of its table (:data:`~dask_auc._roc.PARAMETERS`),
    checked once, here; a binary target's ROC and query do not check them again.
    """
    checked = check_every_param("roc_auc_score", PARAMETERS["roc_auc_score"], **options)
    average, multi_class, compute = checked["average"], checked["multi_class"], checked["compute"]
    max_fpr = checked["max_fpr"]
    split_every = checked["split_every"] or split_every_default()
    n_labels = score_column_count(y_true)
    if n_labels is not None:  # a multilabel indicator matrix: multi_class and labels unused
        lazy = multilabel_score(
            ROC_AUC,
            y_true,
            y_score,
            n_labels,
            average=average,
            sample_weight=sample_weight,
            max_fpr=max_fpr,
            split_every=split_every,
        )
        return lazy.compute() if compute else lazy
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
    with checked_once(checked):  # the ROC and its query do not check them again
        curve = roc(y_true, y_score, sample_weight=sample_weight)
        return roc_auc(
            curve,
            max_fpr=max_fpr,
            split_every=split_every,
            compute=compute,
            multi_class=multi_class,
        )


def partial_roc_auc_score(
    y_true: Any,
    y_score: Any,
    *,
    fpr_range: tuple[float, float] | None = None,
    tpr_range: tuple[float, float] | None = None,
    standardized: bool = True,
    sample_weight: Any = None,
    compute: bool = True,
) -> float | LazyScore:
    """Exact partial area under the ROC curve over an FPR or a TPR interval, with dask.

    R's pROC ``auc(..., partial.auc=, partial.auc.focus=, partial.auc.correct=)``
    on the curve of :func:`roc_auc_score` (higher scores mean positive; ties
    are the curve's diagonal segments; the interval's ends are interpolated
    linearly on the curve).  ``fpr_range=(0, m)`` is
    ``roc_auc_score(max_fpr=m)``, to the last bit.

    Parameters
    ----------
    y_true, y_score, sample_weight
        As in :func:`roc_auc_score` (a binary target).
    fpr_range : (low, high), optional
        The area under the curve over ``low <= fpr <= high``: pROC's
        ``partial.auc.focus="specificity"`` with ``partial.auc=(1 - low, 1 - high)``.
    tpr_range : (low, high), optional
        The area between the curve and the line ``fpr = 1`` over
        ``low <= tpr <= high`` (the curve integrated along the TPR axis): pROC's
        ``partial.auc.focus="sensitivity"`` with ``partial.auc=(high, low)``.
        Give exactly one of ``fpr_range`` and ``tpr_range``, with
        ``0 <= low < high <= 1``.
    standardized : bool, default=True
        McClish's standardisation generalised to the interval, as pROC's
        ``partial.auc.correct=TRUE``: ``(1 + (area - min) / (max - min)) / 2``,
        ``max = high - low`` (a perfect curve) and ``min`` the chance diagonal's
        area over the interval; 0.5 for chance, 1 for perfect.  A curve below
        the diagonal gives less than 0.5, as scikit-learn's ``max_fpr`` does
        (pROC returns NA there).  False: the raw area, a fraction of the unit
        square, at most ``high - low``.
    compute : bool, default=True
        If False, return a :class:`LazyScore`.

    Returns
    -------
    float or LazyScore
        NaN with an :class:`UndefinedMetricWarning` when ``y_true`` holds one
        class only.  The area inside the interval is computed there, exactly:
        unweighted, it is the exact area rounded once (so the same bits for
        any partitioning), however narrow the interval.

    Raises
    ------
    InvalidParameterError
        (a ``ValueError``) when a range is not a pair ``0 <= low < high <= 1``.
    ValueError
        When both or neither of ``fpr_range`` and ``tpr_range`` are given.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> y, s = np.array([0, 0, 0, 1, 1, 1, 0, 1]), np.array([1, 2, 3, 3, 4, 5, 5, 6])
    >>> dask_auc.partial_roc_auc_score(y, s, fpr_range=(0.25, 0.75), standardized=False)
    0.46875
    >>> dask_auc.partial_roc_auc_score(y, s, tpr_range=(0.25, 0.75), standardized=False)
    0.40625
    >>> dask_auc.partial_roc_auc_score(y, s, fpr_range=(0.25, 0.75))
    0.9375
    """
    return answer("partial_roc_auc_score", **locals())
