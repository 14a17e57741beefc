"""The best threshold for a target or a criterion, from the sorted buckets.

Each bucket ships its best curve point for a :class:`Target`
(:func:`bucket_operating_point`); the caller keeps the best of them and of
the point at ``inf`` (:func:`best_candidate`).

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.summary import Number
from ..sort.buckets import Bucket
from .curve_context import CurveContext
from .curve_points import (
    CurvePoints,
    Points,
    bucket_points,
    count_while,
    integer_counts,
    with_remainders,
)

#: the targets a caller may fix: a rate to reach, or a threshold
RATE_TARGETS = ("fpr", "tpr", "precision", "recall")
CRITERIA = ("youden", "closest_topleft", "f1")


@dataclass(frozen=True)
class Target:
    """Which points may be chosen, and which of them is best.

    ``kind`` is one of :data:`RATE_TARGETS`, ``"threshold"``, one of
    :data:`CRITERIA` or ``"cost"``; ``value`` the target rate, the threshold,
    or ``(cost_fp, cost_fn)``.  :meth:`rank` gives, for points in descending
    threshold order, which points qualify and two keys to maximise in turn;
    of points equal on both keys the first (highest threshold) wins.

    =====================  ==================  ==============================
    kind                   qualifies           best: maximise, then
    =====================  ==================  ==============================
    ``fpr=a``              ``fpr <= a``        ``tpr``, then ``-fpr``
    ``tpr=a``              ``tpr >= a``        ``-fpr``, then ``tpr``
    ``precision=a``        ``precision >= a``  ``recall``, then ``-fpr``
    ``recall=a``           ``recall >= a``     ``precision``, then ``recall``
    ``threshold=t``        ``threshold >= t``  the lowest such threshold
    ``youden``             every point         ``tpr - fpr``
    ``closest_topleft``    every point         ``-((1 - tpr)**2 + fpr**2)``
    ``f1``                 every point         ``2 tp / (tp + fp + P)``
    ``cost=(c_fp, c_fn)``  every point         ``-(c_fp * fp + c_fn * fn)``
    =====================  ==================  ==============================

    Rates are float64 values of the counts (one division each, so the same
    for any partitioning of unweighted data); a rate that is undefined (the
    precision of the point at ``inf``, where nothing is predicted positive)
    is NaN and never qualifies nor wins.  Weighted, the counts that are equal
    in exact arithmetic are equal floats (see
    :func:`~dask_auc._kernels.binary.curve_points.bucket_points`): two points with no
    positive between them tie on ``tp``, and TPR is exactly 1 from the last
    positive on.
    """

    kind: str
    value: Any = None

    def rank(
        self, points: CurvePoints, total: tuple[Number, Number]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(qualifies, first key, second key)`` of each point (``points`` with remainders)."""
        tps, fps, fns, thresholds = points.tps, points.fps, points.fns, points.thresholds
        total_pos, total_neg = total
        with np.errstate(divide="ignore", invalid="ignore"):
            tpr = tps / total_pos
            fpr = fps / total_neg
            precision = tps / (tps + fps)
        every = np.ones(len(tps), bool)
        zero = np.zeros(len(tps))
        kind, value = self.kind, self.value
        if kind == "fpr":
            return fpr <= value, tps, -fps
        if kind == "tpr":
            return tpr >= value, -fps, tps
        if kind == "recall":
            return tpr >= value, precision, tps
        if kind == "precision":
            return precision >= value, tps, -fps
        if kind == "threshold":
            return thresholds >= value, tps, fps
        if kind == "youden":
            return every, tpr - fpr, zero
        if kind == "closest_topleft":
            return every, -((1 - tpr) ** 2 + fpr**2), zero
        if kind == "f1":
            return every, 2 * tps / (tps + fps + total_pos), zero
        if kind == "cost":
            cost_fp, cost_fn = value
            return every, -(cost_fp * fps + cost_fn * fns), zero
        raise ValueError(f"unknown operating point target {kind!r}")


@dataclass(frozen=True)
class Candidate:
    """The best point of one run of points for a :class:`Target`: its keys and counts.

    ``fn`` and ``tn`` are the rows scoring below ``threshold``, summed directly.
    """

    keys: tuple[Any, Any]
    tp: Number
    fp: Number
    threshold: Any
    fn: Number
    tn: Number


def best_of_points(
    points: Points, total: tuple[Number, Number], target: Target
) -> Candidate | None:
    """The best qualifying point of a run (descending thresholds), or None if none qualifies.

    ``points`` carry their remainders (``fns``, ``tns``); integer counts need not
    for a :data:`MONOTONE_TARGETS` target (the best point's are the totals less
    its counts).

    Examples
    --------
    >>> points = CurvePoints(np.array([1, 1, 2]), np.array([0, 1, 2]), np.array([0.8, 0.4, 0.1]),
    ...                      np.array([1, 1, 0]), np.array([2, 1, 0]))
    >>> best_of_points(points, (2, 2), Target("fpr", 0.5))
    Candidate(keys=(1, 0), tp=1, fp=0, threshold=0.8, fn=1, tn=2)
    """
    if target.kind in MONOTONE_TARGETS:
        return best_by_bisection(points, total, target)
    return best_by_ranking(points.whole, total, target)


def best_by_ranking(
    points: CurvePoints, total: tuple[Number, Number], target: Target
) -> Candidate | None:
    """:func:`best_of_points` by ranking every point (:meth:`Target.rank`): any target."""
    assert points.fns is not None and points.tns is not None
    qualifies, first, second = target.rank(points, total)
    qualifies = qualifies & ~np.isnan(first.astype(np.float64))
    chosen = np.flatnonzero(qualifies)
    if len(chosen) == 0:
        return None
    for key in (first, second):
        values = key[chosen]
        chosen = chosen[values == values.max()]
    i = int(chosen[0])  # the first of ties: the highest threshold
    return Candidate(
        (first[i].item(), second[i].item()),
        points.tps[i].item(),
        points.fps[i].item(),
        points.thresholds[i].item(),
        points.fns[i].item(),
        points.tns[i].item(),
    )


#: targets whose qualifying points are a prefix or a suffix of the run, and whose best point
#: follows from ``tps`` and ``fps`` never decreasing along it: found by bisection
MONOTONE_TARGETS = ("fpr", "tpr", "threshold")


def best_by_bisection(
    points: Points, total: tuple[Number, Number], target: Target
) -> Candidate | None:
    """:func:`best_of_points` for a :data:`MONOTONE_TARGETS` target in O(log(points)).

    The same point, keys and counts as ranking every point (a test compares
    them): ``fpr <= a`` and ``threshold >= t`` hold on a prefix of the run,
    ``tpr >= a`` on a suffix (each rate is one float division of a
    non-decreasing count, so it never decreases either); along the run
    ``tps`` and ``fps`` never decrease, so the best point of a prefix is the
    first one with its last point's ``tps`` (and, for a threshold, ``fps``),
    and the best of a suffix the first one, of its first point's ``fps``,
    with the largest ``tps``.
    """
    point = points.point  # (tp, fp, threshold) of one point: a persisted ROC makes no other
    total_pos, total_neg = total
    kind, value = target.kind, target.value
    n = len(points)
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "fpr":
            count = count_while(n, lambda i: point(i)[1] / total_neg <= value)
        elif kind == "threshold":
            count = count_while(n, lambda i: point(i)[2] >= value)
        else:  # tpr: the points that fail come first
            start = count_while(n, lambda i: ~(point(i)[0] / total_pos >= value))
    if kind == "tpr":
        if start == n:
            return None
        # the lowest fps of the suffix, then the largest tps among the points holding it
        fp_start = point(start)[1]
        tp_last = point(count_while(n, lambda i: point(i)[1] <= fp_start) - 1)[0]
        i = max(start, count_while(n, lambda i: point(i)[0] < tp_last))
        tp, fp, _ = point(i)
        keys = (-fp, tp)
    else:
        if count == 0:
            return None
        tp_last, fp_last, _ = point(count - 1)
        i = count_while(n, lambda i: point(i)[0] < tp_last)
        if kind == "threshold":  # both keys: the first point equal to the last on tps and fps
            i = max(i, count_while(n, lambda i: point(i)[1] < fp_last))
            tp, fp, _ = point(i)
            keys = (tp, fp)
        else:
            tp, fp, _ = point(i)
            keys = (tp, -fp)
    best = with_remainders(points.take(np.array([i])), total)  # integer counts: from the totals
    assert best.fns is not None and best.tns is not None
    return Candidate(
        (keys[0].item(), keys[1].item()),
        best.tps[0].item(),
        best.fps[0].item(),
        best.thresholds[0].item(),
        best.fns[0].item(),
        best.tns[0].item(),
    )


def bucket_operating_point(
    bucket: Bucket, context: CurveContext, target: Target
) -> Candidate | None:
    """The best of one bucket's curve points for ``target`` (None: none qualifies)."""
    # a bisection reads one point's remainders: integer ones follow from the totals there
    bisected = target.kind in MONOTONE_TARGETS and integer_counts(bucket)
    points = bucket_points(bucket, context, remainders=not bisected)
    if len(points) == 0 or context.total[0] == 0 or context.total[1] == 0:
        return None
    return best_of_points(points, context.total, target)


def best_candidate(
    total: tuple[Number, Number], candidates: Sequence[Candidate | None], target: Target
) -> Candidate | None:
    """The best of the buckets' candidates (in score order), after the point at ``inf``.

    The point at threshold ``inf`` (nothing predicted positive: ``tp = fp = 0``)
    is a candidate too, as in pROC and in the first point of ``roc_curve``.
    Of candidates with equal keys the first, of the highest threshold, wins.
    """
    zero = np.zeros(1, dtype=np.asarray(total[0]).dtype)
    every = (np.array([total[0]]), np.array([total[1]]))  # all rows score below inf
    at_inf = best_of_points(CurvePoints(zero, zero, np.array([np.inf]), *every), total, target)
    best = at_inf
    for candidate in candidates:
        if candidate is not None and (best is None or candidate.keys > best.keys):
            best = candidate
    return best
