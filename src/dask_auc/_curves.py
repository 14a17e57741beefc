"""Public ROC and precision-recall curves and average precision on dask collections.

Same arrays as scikit-learn 1.9's ``roc_curve``, ``precision_recall_curve`` and
``average_precision_score``, made from the sorted buckets of the AUC's sort:
each bucket makes the points of its own scores, shifted by an ordered
exclusive scan of the bucket summaries (:mod:`dask_auc._kernels.curves`), so no
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

import numbers
from typing import Any

import numpy as np

from ._engine.curve_graph import CurveSortedGraph, curve_blocks
from ._engine.graph import LazyScore, gather_graph, split_every_default
from ._engine.inputs import multiclass_blocks, score_column_count
from ._kernels.curves import (
    PRECISION_RECALL,
    ROC,
    CurveContext,
    CurvePoints,
    LabelRule,
    check_matrix_labels,
    concatenated,
    grid_step,
    matrix_block_labels,
    thin_on_grid,
)
from ._kernels.validation import (
    NO_NEGATIVES_MESSAGE,
    NO_POSITIVES_MESSAGE,
    InvalidParameterError,
    check_choice,
    warn_undefined,
)

NO_POSITIVE_CLASS_MESSAGE = (
    "No positive class found in y_true, recall is set to one for all thresholds."
)
_AVERAGES = ("micro", "samples", "weighted", "macro", None)
_BOOL_TYPES = "an instance of 'bool' or an instance of 'numpy.bool'"


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
    lazy = lazy_curve(
        ROC,
        y_true,
        y_score,
        pos_label=_checked_pos_label(pos_label, "roc_curve", allow_none=True),
        sample_weight=sample_weight,
        drop_intermediate=_checked_bool(drop_intermediate, "drop_intermediate", "roc_curve"),
        max_points=max_points,
    )
    return lazy.compute() if compute else lazy


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
    name = "precision_recall_curve"
    lazy = lazy_curve(
        PRECISION_RECALL,
        y_true,
        y_score,
        pos_label=_checked_pos_label(pos_label, name, allow_none=True),
        sample_weight=sample_weight,
        drop_intermediate=_checked_bool(drop_intermediate, "drop_intermediate", name),
        max_points=max_points,
    )
    return lazy.compute() if compute else lazy


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
    sorted bucket sums its own points' terms; only one number per bucket moves.

    Parameters
    ----------
    y_true, y_score, sample_weight, compute
        As in :func:`roc_curve`.
    average : {'micro', 'samples', 'weighted', 'macro'} or None, default='macro'
        Checked as scikit-learn does, and ignored for a binary target.  A
        multilabel (2-D) ``y_true`` is not supported.
    pos_label : int, float, bool or str, default=1
        The positive class; it must be one of the labels when there are two.

    Returns
    -------
    float or LazyScore
        0.0 with scikit-learn's warning when ``y_true`` has no positive.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> dask_auc.average_precision_score(np.array([0, 0, 1, 1]),
    ...                                  np.array([0.1, 0.4, 0.35, 0.8]))
    0.8333333333333333
    """
    name = "average_precision_score"
    check_choice("average", average, _AVERAGES, name)
    pos_label = _checked_pos_label(pos_label, name, allow_none=False)
    _reject_multilabel(y_true)
    rule = LabelRule("average_precision", pos_label)
    n_columns = score_column_count(y_score)
    if n_columns is not None:
        # scikit-learn's error depends on the labels: read them, then raise it
        blocks = multiclass_blocks(y_true, y_score, sample_weight, prepare=matrix_block_labels)
        checks, key = gather_graph(blocks, check_matrix_labels, n_columns, rule=rule)
        lazy = LazyScore(checks, [key], _finalize_average_precision, name)
        return lazy.compute() if compute else lazy
    graph = CurveSortedGraph(curve_blocks(y_true, y_score, sample_weight, rule), rule)
    keys = [graph.context_key, graph.precision_sum_key()]
    lazy = LazyScore(graph.graph(), keys, _finalize_average_precision, name)
    return lazy.compute() if compute else lazy


def lazy_curve(
    curve: str,
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = False,
    max_points: int | None = None,
    with_score: bool = False,
) -> LazyScore:
    """The lazy curve; with ``with_score`` its exact AUC (ROC) or AP (precision-recall) too.

    ``compute()`` then returns ``(curve arrays, score, prevalence)``: the plots
    draw a thinned curve and report the exact score from one sort.
    """
    if max_points is not None:
        max_points = _checked_max_points(max_points)
    rule = LabelRule("curve", pos_label)
    graph = CurveSortedGraph(curve_blocks(y_true, y_score, sample_weight, rule), rule)
    parts = graph.curve_keys(curve, drop_intermediate, max_points)
    keys = [graph.context_key]
    if with_score:
        if curve == ROC:
            keys.append(graph.area_key(split_every_default()))
        else:
            keys.append(graph.precision_sum_key())
    finalize = _CurveFinalizer(curve, max_points, with_score)
    return LazyScore(graph.graph(), keys + parts, finalize, f"{curve}_curve")


class _CurveFinalizer:
    """Join the buckets' points, thin once more, and make scikit-learn's arrays."""

    def __init__(self, curve: str, max_points: int | None, with_score: bool):
        self.curve, self.max_points, self.with_score = curve, max_points, with_score

    def __call__(self, contexts: list[CurveContext], *results: Any) -> Any:
        total = contexts[0].total
        score, shipped = (results[0], results[1:]) if self.with_score else (None, results)
        points = concatenated([part for part, _ in shipped])
        exact = sum(count for _, count in shipped)
        # the curve starts at (0, 0): ROC's first point, precision-recall's last
        start = CurvePoints(
            np.concatenate(([0], points.tps)),
            np.concatenate(([0], points.fps)),
            np.concatenate(([np.inf], points.thresholds.astype(np.float64))),
        )
        if self.max_points is not None and exact + 1 > self.max_points:
            keep = thin_on_grid(start, total, grid_step(self.max_points))
            start, points = start.take(keep), points.take(keep[1:])
        if self.curve == ROC:
            arrays = _roc_arrays(start)
        else:
            arrays = _precision_recall_arrays(points)
        if score is None:
            return arrays
        if self.curve == ROC:
            value = score.auc()
        else:
            value = _average_precision(score, total[0])
        prevalence = total[0] / (total[0] + total[1])
        return arrays, value, prevalence


def _roc_arrays(points: CurvePoints) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    fps, tps = points.fps, points.tps
    if fps[-1] <= 0:
        warn_undefined(NO_NEGATIVES_MESSAGE)
        fpr = np.full(fps.shape, np.nan)
    else:
        fpr = fps / fps[-1]
    if tps[-1] <= 0:
        warn_undefined(NO_POSITIVES_MESSAGE)
        tpr = np.full(tps.shape, np.nan)
    else:
        tpr = tps / tps[-1]
    return fpr, tpr, points.thresholds


def _precision_recall_arrays(points: CurvePoints) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    tps, fps = points.tps, points.fps
    precision = tps / (tps + fps)  # every point holds a row of non-zero weight
    if tps[-1] == 0:
        warn_undefined(NO_POSITIVE_CLASS_MESSAGE, UserWarning)
        recall = np.ones(tps.shape)
    else:
        recall = tps / tps[-1]
    return (
        np.concatenate((precision[::-1], [1.0])),
        np.concatenate((recall[::-1], [0.0])),
        points.thresholds[::-1],
    )


def _average_precision(precision_sum: float, total_pos: float) -> float:
    if total_pos == 0:
        return 0.0  # scikit-learn: every recall set to one, precision 0 at the top
    return max(0.0, precision_sum / total_pos)


def _finalize_average_precision(contexts: list[CurveContext], precision_sum: float) -> float:
    total_pos = contexts[0].total[0]
    if total_pos == 0:
        warn_undefined(NO_POSITIVE_CLASS_MESSAGE, UserWarning)
    return _average_precision(precision_sum, total_pos)


def _checked_pos_label(value: Any, func: str, *, allow_none: bool) -> Any:
    if value is None and allow_none:
        return value
    if isinstance(value, (numbers.Real, str, np.bool_)):
        return value.item() if isinstance(value, np.generic) else value
    if allow_none:
        allowed = f"an instance of 'float', an instance of 'str', {_BOOL_TYPES} or None"
    else:
        allowed = f"an instance of 'float', an instance of 'str' or {_BOOL_TYPES}"
    raise InvalidParameterError(
        f"The 'pos_label' parameter of {func} must be {allowed}. Got {value!r} instead."
    )


def _checked_bool(value: Any, name: str, func: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(
            f"The {name!r} parameter of {func} must be {_BOOL_TYPES}. Got {value!r} instead."
        )
    return bool(value)


def _checked_max_points(max_points: Any) -> int:
    if isinstance(max_points, bool) or not isinstance(max_points, numbers.Integral):
        raise TypeError(f"max_points must be an int >= 2 or None, got {max_points!r}")
    if max_points < 2:
        raise ValueError(
            f"max_points must be an int >= 2 or None (a curve has two end points), "
            f"got {max_points!r}"
        )
    return int(max_points)


def _reject_multilabel(y_true: Any) -> None:
    shape = getattr(y_true, "shape", None)
    if shape is None or len(shape) != 2 or shape[1] == 1:
        return
    raise ValueError(
        "average_precision_score of dask-auc supports a binary y_true only; a multilabel "
        f"(2-D) y_true of shape {tuple(shape)} is not supported: compute each label's "
        "column separately."
    )
