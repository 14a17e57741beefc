"""scikit-learn's ``det_curve`` from the sorted buckets: each bucket's points, then the cut.

Each bucket ships its DET points (:func:`bucket_det`), with scikit-learn's
``drop_intermediate`` decided exactly and ``max_points`` thinning; the caller
joins them and cuts the curve as scikit-learn does (:func:`det_arrays`).

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.summary import Number
from ..sort.buckets import Bucket
from ..sort.labels import LabelRule
from .corners import recall_corner_mask
from .curve_context import CurveContext
from .curve_points import (
    CurvePoints,
    Points,
    bucket_points,
    concatenated,
    count_while,
    integer_counts,
    with_remainders,
)
from .thinning import grid_step, thin_on_grid

DET_ONE_CLASS_MESSAGE = (
    "Only one class is present in y_true. Detection error tradeoff curve is not "
    "defined in that case."
)


@dataclass(frozen=True)
class DetLabelRule(LabelRule):
    """The curves' label rule, and ``det_curve``'s: ``y_true`` must hold two labels.

    As scikit-learn, the labels counted are those of every row, zero weights included.
    """

    def check(self, labels: tuple[Any, ...], n_rows: int, n_columns: int | None = None) -> None:
        super().check(labels, n_rows, n_columns)
        if len(labels) != 2:
            raise ValueError(DET_ONE_CLASS_MESSAGE)


def bucket_det(
    bucket: Bucket, context: CurveContext, drop_intermediate: bool, max_points: int | None
) -> tuple[CurvePoints, int, Any]:
    """One bucket's DET points, their exact number, and the bucket's lowest positive score.

    ``drop_intermediate`` keeps scikit-learn's points (where ``tps`` changes
    just before or after; the first point is judged against the curve's
    opening point at ``inf``), decided exactly from row counts.  A bucket
    with more than ``max_points`` points thins them on the curves' grid, and
    keeps the two points where scikit-learn may cut the curve: its last
    point with ``fps == 0`` and the point of its lowest positive score.

    Examples
    --------
    >>> from ..sort.rows import SortedScores
    >>> pos, neg = SortedScores(np.array([0.35, 0.8])), SortedScores(np.array([0.1, 0.4]))
    >>> context = CurveContext((2, 2), (0, 0), False, None, None)
    >>> points, exact, lowest = bucket_det(Bucket.binary(pos, neg), context, False, None)
    >>> points.thresholds, exact, lowest
    (array([0.8 , 0.4 , 0.35, 0.1 ]), 4, 0.35)
    """
    # integer counts' remainders are made after thinning, of the points shipped
    points = bucket_points(bucket, context, remainders=not integer_counts(bucket))
    if drop_intermediate and len(points):
        points = points.take(recall_corner_mask(bucket, points.whole, context, keep_first=False))
    exact = len(points)
    positives = bucket.pos.scores
    lowest = positives[0].item() if len(positives) else None
    if max_points is not None and exact > max_points:
        keep = [thin_on_grid(points, context.total, grid_step(max_points))]
        # fps never decreases: the points without a false positive come first
        no_negative = count_while(len(points), lambda i: points.point(i)[1] <= 0)
        if no_negative:
            keep.append(np.array([no_negative - 1]))
        if lowest is not None:  # the point of the lowest positive score
            keep.append(_index_of(points, positives[0]))
        points = points.take(np.unique(np.concatenate(keep)))
    return with_remainders(points, context.total), exact, lowest


def _index_of(points: Points, value: Any) -> np.ndarray:
    """The index of the point at threshold ``value`` (empty if none), by bisection.

    Thresholds are distinct and descend along the points.
    """
    j = count_while(len(points), lambda i: points.point(i)[2] > value)
    found = j < len(points) and points.point(j)[2] == value
    return np.array([j] if found else [], np.int64)


def det_arrays(
    total: tuple[Number, Number],
    parts: Sequence[tuple[CurvePoints, int, Any]],
    max_points: int | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """scikit-learn's ``(fpr, fnr, thresholds)`` from the buckets' :func:`bucket_det` parts.

    The curve opens with ``(0, 0, inf)``; it is cut, as scikit-learn cuts it,
    from its last point with no false positive to the point where the last
    positive enters, then thinned (``max_points``) and reversed.

    The false negative rate is ``fns / P``, the positives below each threshold
    summed directly (:func:`~dask_auc._kernels.binary.curve_points.bucket_points`), so it is
    exactly 0 from the lowest positive score on.

    Examples
    --------
    >>> points = CurvePoints(np.array([1, 1, 2, 2]), np.array([0, 1, 1, 2]),
    ...                      np.array([0.8, 0.4, 0.35, 0.1]),
    ...                      np.array([1, 1, 0, 0]), np.array([2, 1, 1, 0]))
    >>> det_arrays((2, 2), [(points, 4, 0.35)], None)
    (array([0.5, 0.5, 0. ]), array([0. , 0.5, 0.5]), array([0.35, 0.4 , 0.8 ]))
    """
    points = concatenated([part for part, _, _ in parts])
    assert points.fns is not None and points.tns is not None
    exact = sum(count for _, count, _ in parts)
    lowests = [lowest for _, _, lowest in parts if lowest is not None]
    total_pos, total_neg = total
    start = CurvePoints(
        np.concatenate(([0], points.tps)),
        np.concatenate(([0], points.fps)),
        np.concatenate(([np.inf], points.thresholds.astype(np.float64))),
        np.concatenate(([total_pos], points.fns)),  # nothing predicted positive: all below
        np.concatenate(([total_neg], points.tns)),
    )
    first = int(np.flatnonzero(start.fps == 0)[-1])
    if lowests:  # where tps reaches its total: the point of the lowest positive score
        last = 1 + int(np.flatnonzero(points.thresholds >= min(lowests))[-1])
    else:
        last = 0
    cut = start.take(np.arange(first, last + 1))
    if max_points is not None and exact + 1 > max_points:
        cut = cut.take(thin_on_grid(cut, total, grid_step(max_points)))
    assert cut.fns is not None
    return (
        cut.fps[::-1] / total_neg,
        cut.fns[::-1] / total_pos,
        cut.thresholds[::-1],
    )
