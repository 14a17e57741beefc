"""Public threshold metrics on dask collections: confusion counts, DET, operating points, gains.

What a team needs to *ship* a scorer -- a threshold, and what it gives -- from
the same sorted buckets as the AUC: each bucket reads its own curve points
(:mod:`dask_auc._kernels.binary.thresholds`), placed by the ordered scan of the
bucket summaries; only a few points or one candidate per bucket travel to
the caller.  Everything is exact (no binning of scores), the same for any
partitioning (bit for bit on unweighted data) and lazy with ``compute=False``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._engine import LazyScore
from ._roc import OperatingPoint, answer


def confusion_matrix_at_thresholds(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    compute: bool = True,
    max_points: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | LazyScore:
    """Confusion matrix counts at every threshold of a binary target, computed with dask.

    The same arrays as :func:`sklearn.metrics.confusion_matrix_at_thresholds`
    (scikit-learn >= 1.8): one element per distinct score, decreasing.

    Parameters
    ----------
    y_true, y_score, pos_label, sample_weight, compute
        As in :func:`dask_auc.roc_curve`.
    max_points : int >= 2, optional
        At most this many thresholds, chosen as :func:`dask_auc.roc_curve`
        chooses its points; all of them by default.

    Returns
    -------
    tns, fps, fns, tps : ndarray of float64
        At index ``i``, the (weighted) negatives scored below ``thresholds[i]``,
        the negatives scored ``>= thresholds[i]``, the positives below it and
        the positives ``>= thresholds[i]``.  No warning for a missing class, as
        in scikit-learn.
    thresholds : ndarray
        The distinct scores of rows of nonzero weight, decreasing, in ``y_score``'s dtype.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> tns, fps, fns, tps, thresholds = dask_auc.confusion_matrix_at_thresholds(
    ...     np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]))
    >>> tns, fps
    (array([2., 1., 1., 0.]), array([0., 1., 1., 2.]))
    >>> fns, tps
    (array([1., 1., 0., 0.]), array([1., 1., 2., 2.]))
    >>> thresholds
    array([0.8 , 0.4 , 0.35, 0.1 ])
    """
    return answer("confusion_matrix_at_thresholds", **locals())


def det_curve(
    y_true: Any,
    y_score: Any,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = False,
    *,
    compute: bool = True,
    max_points: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | LazyScore:
    """Detection error tradeoff curve of a binary target, computed with dask.

    The same arrays as :func:`sklearn.metrics.det_curve` (scikit-learn >= 1.7:
    a point at threshold ``inf`` where nothing is predicted positive, kept
    unless ``fpr = 0`` is reached at a finite threshold).

    Parameters
    ----------
    y_true, y_score, pos_label, sample_weight, compute
        As in :func:`dask_auc.roc_curve`.
    drop_intermediate : bool, default=False
        Drop the thresholds where the true positives change neither from the
        previous nor to the next threshold, as scikit-learn does (decided
        from row counts, so weighted curves do not depend on the partitioning).
    max_points : int >= 2, optional
        At most this many points, chosen on :func:`dask_auc.roc_curve`'s grid;
        the two ends of scikit-learn's curve are always kept.

    Returns
    -------
    fpr, fnr : ndarray
        False positive rate at ``score >= thresholds[i]`` (decreasing) and
        false negative rate (increasing).
    thresholds : ndarray of float64
        Increasing thresholds.

    Raises
    ------
    ValueError
        scikit-learn's "Only one class is present in y_true" when it is so.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> fpr, fnr, thresholds = dask_auc.det_curve(
    ...     np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]))
    >>> fpr, fnr, thresholds
    (array([0.5, 0.5, 0. ]), array([0. , 0.5, 0.5]), array([0.35, 0.4 , 0.8 ]))
    """
    return answer("det_curve", **locals())


def operating_point(
    y_true: Any,
    y_score: Any,
    *,
    fpr: float | None = None,
    tpr: float | None = None,
    precision: float | None = None,
    recall: float | None = None,
    threshold: float | None = None,
    criterion: str | None = None,
    cost: tuple[float, float] | None = None,
    pos_label: Any = None,
    sample_weight: Any = None,
    compute: bool = True,
) -> OperatingPoint | LazyScore:
    """The threshold that meets a target or optimises a criterion, and what it gives.

    Exactly one of the targets is given.  The candidates are every point of
    :func:`dask_auc.roc_curve` (``drop_intermediate=False``): each distinct
    score ``t``, predicting ``score >= t`` positive, and the point at ``inf``
    predicting nothing positive.  The rule of each target:

    * ``fpr=a``: the highest TPR with ``FPR <= a``; of those, the lowest FPR;
    * ``tpr=a``: the lowest FPR with ``TPR >= a``; of those, the highest TPR;
    * ``precision=a``: the highest recall with ``precision >= a``; of those,
      the lowest FPR (the highest precision);
    * ``recall=a``: the highest precision with ``recall >= a``; of those, the
      highest recall;
    * ``threshold=t``: the counts at ``score >= t`` (``threshold`` is ``t``);
    * ``criterion="youden"``: the highest ``TPR - FPR`` (Youden's J);
      ``"closest_topleft"``: the lowest ``(1 - TPR)**2 + FPR**2``; ``"f1"``:
      the highest F1;
    * ``cost=(cost_fp, cost_fn)``: the lowest ``cost_fp * FP + cost_fn * FN``.

    Ties -- several thresholds equally good on the rule -- go to the highest
    threshold (the fewest predicted positives).  R's pROC
    (``coords(roc, "best", best.method=...)``) returns *every* tied point,
    listed by increasing threshold; this is its last one.  pROC's thresholds
    are midpoints between adjacent scores, these are the scores themselves
    (``score >= threshold``), as scikit-learn's.  Rates are float64 divisions
    of the counts, compared as such: unweighted, the same point for any
    partitioning.

    Parameters
    ----------
    y_true, y_score, pos_label, sample_weight, compute
        As in :func:`dask_auc.roc_curve`.
    fpr, tpr, precision, recall : float in [0, 1], optional
        A rate to reach (see above).
    threshold : float, optional
        A threshold to evaluate.
    criterion : {'youden', 'closest_topleft', 'f1'}, optional
        A criterion to optimise.
    cost : (float, float), optional
        The costs ``(cost_fp, cost_fn)`` of a false positive and of a false
        negative (finite, ``>= 0``, not both 0).

    Returns
    -------
    OperatingPoint or LazyScore
        ``(threshold, tp, fp, tn, fn, tpr, fpr, precision, recall, f1)``;
        counts are ints unweighted, weight sums weighted.  Precision is NaN
        where nothing is predicted positive.  When no threshold reaches
        ``precision=a``, the point at ``inf`` with an
        :class:`~dask_auc.UndefinedMetricWarning`; when a class is missing,
        NaN everywhere (threshold None) with that warning.

    Raises
    ------
    ValueError
        Unless exactly one target is given.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> y, s = np.array([0, 0, 1, 1, 0, 1]), np.array([0.1, 0.4, 0.35, 0.8, 0.6, 0.7])
    >>> point = dask_auc.operating_point(y, s, tpr=0.9)
    >>> point.threshold, point.tp, point.fp, point.fpr, point.precision
    (0.35, 3, 2, 0.6666666666666666, 0.6)
    >>> dask_auc.operating_point(y, s, criterion="youden").threshold
    0.7
    """
    return answer("operating_point", **locals())


def gains_table(
    y_true: Any,
    y_score: Any,
    *,
    n_bins: int = 10,
    pos_label: Any = None,
    sample_weight: Any = None,
    compute: bool = True,
) -> pd.DataFrame | LazyScore:
    """The gains (lift) table of a scorer: one row per score quantile bin, from the top.

    The decile table of credit-risk and marketing teams, exact: the rows are
    cut in ``n_bins`` bins of (about) equal row count -- weight, when
    weighted -- from the highest score down, but ties are never split: bin
    ``g`` ends at the first tie-group boundary at or after the exact
    quantile row ``g * n / n_bins`` (it holds every row scoring at least its
    ``lower_threshold``).  A tie group that spans a quantile makes its bin
    larger and the next smaller; a bin left with no rows is dropped, so
    heavily tied scores give fewer than ``n_bins`` rows.

    Parameters
    ----------
    y_true, y_score, pos_label, sample_weight, compute
        As in :func:`dask_auc.roc_curve`.
    n_bins : int >= 1, default=10
        Number of quantile bins (10: deciles).

    Returns
    -------
    pandas.DataFrame or LazyScore
        Indexed by ``group`` (1 = the highest scores), with H2O's
        ``gains_lift`` columns (rates as fractions): ``lower_threshold`` (the
        lowest score in the bin), ``rows``, ``positives`` (weighted sums when
        weighted), ``cumulative_data_fraction``, ``response_rate`` (positives
        / rows), ``cumulative_response_rate``, ``lift`` (response rate over
        the overall positive rate), ``cumulative_lift``, ``capture_rate``
        (share of all positives), ``cumulative_capture_rate`` (the cumulative
        gains curve), ``gain`` and ``cumulative_gain`` (``100 * (lift - 1)``
        and ``100 * (cumulative_lift - 1)``), ``kolmogorov_smirnov`` (the
        cumulative TPR minus FPR at the bin's lower threshold).  A missing
        class gives NaN rates with an :class:`~dask_auc.UndefinedMetricWarning`.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> y, s = np.array([1, 1, 0, 1, 0, 0, 0, 0]), np.array([8, 7, 6, 5, 5, 4, 2, 1])
    >>> table = dask_auc.gains_table(y, s, n_bins=4)  # the tie at 5 ends the second quarter
    >>> table[["lower_threshold", "rows", "positives", "lift", "cumulative_capture_rate"]]
    ... # doctest: +NORMALIZE_WHITESPACE
           lower_threshold  rows  positives      lift  cumulative_capture_rate
    group
    1                    7     2          2  2.666667                 0.666667
    2                    5     3          1  0.888889                 1.000000
    3                    4     1          0  0.000000                 1.000000
    4                    1     2          0  0.000000                 1.000000
    """
    return answer("gains_table", **locals())
