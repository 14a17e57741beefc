"""Public ROC and precision-recall curves and average precision on dask collections.

Same arrays as scikit-learn 1.9's ``roc_curve``, ``precision_recall_curve`` and
``average_precision_score``, made from the sorted buckets of the AUC's sort:
each bucket makes the points of its own scores, shifted by an ordered
exclusive scan of the bucket summaries (:mod:`dask_auc._kernels.binary.curves`), so no
raw row is collected.  Only the curve points travel to the caller, and with
``max_points`` at most that many.

``max_points`` returns a curve of at most that many points whole.  A longer
one is thinned: it keeps the exact curve's points on a grid along ``fpr + tpr``
(which runs from 0 to 2 on any ROC curve): the first and last point in each
cell of width ``4 / (max_points - 2)``, plus both ends.  Each bucket with more
than ``max_points`` points thins its own before shipping them (so at most about
``max_points`` points leave a bucket), and the caller thins their
concatenation with the same grid, which gives the same points as thinning the
whole curve, whatever the partitioning.  The
kept points are exact curve points, so the thinned curve is monotone and
keeps the corners (0, 0) and (1, 1); every point dropped lies in a cell of
L1 size ``< 4 / (max_points - 2)`` together with the curve between its kept
neighbours, so the trapezoid area moves by at most
``max_points / (max_points - 2) ** 2`` (about ``1 / max_points``).  Report
the exact AUC beside a thinned curve (as the plots do), not its area.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._engine import LazyScore, score_column_count, split_every_default
from ._multilabel import AVERAGE_PRECISION, multiclass_average_precision, multilabel_score
from ._roc import KSStatistic, answer, check_query, checked_once, roc


def roc_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = True,
    compute: bool = True,
    max_points: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | LazyScore:
    """Receiver operating characteristic curve of a binary target, computed with dask.

    The same arrays as :func:`sklearn.metrics.roc_curve` (first threshold
    ``inf``; ``drop_intermediate`` drops scikit-learn's points).

    Parameters
    ----------
    y_true : dask Series or Array, pandas Series, ndarray or list
        Binary labels.  Unless they are {0, 1} or {-1, 1}, give ``pos_label``.
    y_score : same kinds as ``y_true``
        Scores; higher means more positive.  Rows pair with ``y_true`` by position.
    pos_label : int, float, bool or str, optional
        The positive class; default 1 for {0, 1} and {-1, 1} targets.
    sample_weight : same kinds as ``y_true``, optional
        Non-negative row weights; rows of weight zero are ignored.
    drop_intermediate : bool, default=True
        Drop the points collinear with their neighbours, as scikit-learn does.
    compute : bool, default=True
        If False, return a :class:`~dask_auc.LazyScore` whose ``compute()``
        returns the arrays.
    max_points : int >= 2, optional
        Return at most this many points of the exact curve (see the module
        notes for which ones); the full curve by default.

    Returns
    -------
    fpr, tpr, thresholds : ndarray
        Increasing false and true positive rates at decreasing thresholds.
        A missing class gives NaN rates with an
        :class:`~dask_auc.UndefinedMetricWarning`, as in scikit-learn.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> fpr, tpr, thresholds = dask_auc.roc_curve(
    ...     np.array([1, 1, 2, 2]), np.array([0.1, 0.4, 0.35, 0.8]), pos_label=2)
    >>> fpr, tpr
    (array([0. , 0. , 0.5, 0.5, 1. ]), array([0. , 0.5, 0.5, 1. , 1. ]))
    >>> thresholds
    array([ inf, 0.8 , 0.4 , 0.35, 0.1 ])
    """
    return answer("roc_curve", **locals())


def precision_recall_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = False,
    compute: bool = True,
    max_points: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | LazyScore:
    """Precision-recall pairs at every threshold of a binary target, computed with dask.

    The same arrays as :func:`sklearn.metrics.precision_recall_curve`: the
    last point is ``precision=1, recall=0`` with no threshold.

    Parameters
    ----------
    y_true, y_score, pos_label, sample_weight, compute
        As in :func:`roc_curve`.
    drop_intermediate : bool, default=False
        Keep only the first and last point of each recall value, as scikit-learn does.
    max_points : int >= 2, optional
        At most this many points, chosen on the ROC grid of :func:`roc_curve`
        (the module notes say which); the full curve by default.

    Returns
    -------
    precision, recall : ndarray
        Element ``i`` is for ``score >= thresholds[i]``; recall decreases.
    thresholds : ndarray
        Increasing thresholds, one fewer than the points, in ``y_score``'s dtype.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> precision, recall, thresholds = dask_auc.precision_recall_curve(
    ...     np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]))
    >>> precision
    array([0.5       , 0.66666667, 0.5       , 1.        , 1.        ])
    >>> recall
    array([1. , 1. , 0.5, 0.5, 0. ])
    >>> thresholds
    array([0.1 , 0.35, 0.4 , 0.8 ])
    """
    return answer("precision_recall_curve", **locals())


def average_precision_score(
    y_true: Any,
    y_score: Any,
    *,
    average: str | None = "macro",
    pos_label: Any = 1,
    sample_weight: Any = None,
    compute: bool = True,
) -> float | LazyScore:
    """Average precision (scikit-learn's step sum) of a binary target, computed with dask.

    ``AP = sum_n (R_n - R_{n-1}) P_n`` over the thresholds, as
    :func:`sklearn.metrics.average_precision_score` (not interpolated).  Each
    sorted bucket sums its own points' terms exactly; only one number per bucket
    moves, and the total is rounded once.  Unweighted, the result is the exact
    rational step sum correctly rounded (unless it lies within ~1e-31, relative,
    of a midpoint between two floats), the same bits for any partitioning, bucket
    count or scheduler; scikit-learn's float sum may differ in the last bits.

    Parameters
    ----------
    y_true, y_score, sample_weight, compute
        As in :func:`roc_curve`.
    average : {'micro', 'samples', 'weighted', 'macro'} or None, default='macro'
        How the columns of a multilabel (2-D indicator) ``y_true``, or the
        classes of a multi-class ``y_true`` (one-vs-rest, with a 2-D ``y_score``
        of one column per present class, in sorted order), are reduced, as
        scikit-learn >= 1.3 does (see :doc:`/user-guide/multiclass`); ignored for
        a binary target.
    pos_label : int, float, bool or str, default=1
        The positive class; it must be one of the labels when there are two,
        and 1 for a multilabel or multi-class ``y_true``.

    Returns
    -------
    float or LazyScore
        0.0 with scikit-learn's warning when ``y_true`` has no positive.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> dask_auc.average_precision_score(np.array([0, 0, 1, 1]),
    ...                                  np.array([0.1, 0.4, 0.35, 0.8]))
    0.8333333333333334
    >>> dask_auc.average_precision_score(np.array([[1, 0], [0, 1], [1, 1], [0, 0]]),
    ...     np.array([[0.9, 0.2], [0.1, 0.8], [0.7, 0.3], [0.3, 0.4]]), average=None)
    array([1.        , 0.83333333])
    """
    name = "average_precision_score"
    checked = check_query(name, average=average, pos_label=pos_label, compute=compute)
    pos_label = checked["pos_label"]
    n_labels = score_column_count(y_true)
    n_columns = score_column_count(y_score)
    if n_labels is not None or n_columns is not None:
        lazy = _indicator_average_precision(
            y_true, y_score, n_labels, n_columns, average, pos_label, sample_weight
        )
        return lazy.compute() if compute else lazy
    # the default class 1 is asked of the ROC every function of this input builds (its
    # default rule): ROC.average_precision answers for class 1 from it either way, so the AP
    # shares their sort and bucket summaries
    default = type(pos_label) is int and pos_label == 1
    with checked_once(checked):  # the ROC and its query do not check them again
        curve = roc(
            y_true, y_score, pos_label=None if default else pos_label, sample_weight=sample_weight
        )
        return curve.average_precision(compute=checked["compute"])


def ks_statistic(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    compute: bool = True,
) -> KSStatistic | LazyScore:
    """Kolmogorov-Smirnov statistic of the positives' and negatives' scores, computed with dask.

    The largest gap between the two classes' empirical score distributions,
    ``max |tpr - fpr|`` over the ROC points (ties together, as in
    :func:`roc_curve`), and the threshold of that point: equal to
    ``scipy.stats.ks_2samp(pos_scores, neg_scores).statistic`` on unweighted
    data.  Credit-risk teams report it beside the AUC.

    Parameters
    ----------
    y_true, y_score, pos_label, sample_weight, compute
        As in :func:`roc_curve`.

    Returns
    -------
    KSStatistic or LazyScore
        ``(statistic, threshold)``: of several points with the largest gap,
        the one with the highest threshold.  NaN and None with an
        :class:`~dask_auc.UndefinedMetricWarning` when a class is missing.
        Unweighted, the statistic is exact (one rounding) for any partitioning.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> dask_auc.ks_statistic(np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]))
    KSStatistic(statistic=0.5, threshold=0.8)
    """
    return answer("ks_statistic", **locals())


def _indicator_average_precision(
    y_true: Any,
    y_score: Any,
    n_labels: int | None,
    n_columns: int | None,
    average: str | None,
    pos_label: Any,
    sample_weight: Any,
) -> LazyScore:
    """Average precision of a multilabel ``y_true``, or of a 1-D one against 2-D scores.

    See :mod:`dask_auc._multilabel`; a binary ``y_true`` with 2-D scores raises
    scikit-learn's errors from the planning task.
    """
    split_every = split_every_default()
    if n_labels is not None:
        return multilabel_score(
            AVERAGE_PRECISION,
            y_true,
            y_score,
            n_labels,
            average=average,
            sample_weight=sample_weight,
            pos_label=pos_label,
            split_every=split_every,
        )
    assert n_columns is not None
    return multiclass_average_precision(
        y_true,
        y_score,
        n_columns,
        average=average,
        pos_label=pos_label,
        sample_weight=sample_weight,
        split_every=split_every,
    )
