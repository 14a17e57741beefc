"""Pure-NumPy kernels of the threshold metrics, from the sorted buckets.

Every metric here reads the same curve points as the ROC curve
(:func:`~dask_auc._kernels.binary.curves.bucket_points`: one point per distinct
score ``t``, with the counts ``tps`` and ``fps`` of positives and negatives
scoring ``>= t``), each bucket its own, placed by the ordered scan of the
bucket summaries (:class:`~dask_auc._kernels.binary.curves.CurveContext`):

* :data:`CONFUSION_MATRIX` -- scikit-learn's ``confusion_matrix_at_thresholds``
  arrays, a curve kind of :meth:`dask_auc.ROC.curve`;
* :func:`bucket_det` and :func:`det_arrays` -- scikit-learn's ``det_curve``;
* :class:`Target`, :func:`bucket_operating_point` and :func:`best_candidate`
  -- the best threshold for a target or a criterion;
* :func:`bucket_gains_cuts` and :func:`gains_columns` -- the gains (lift) table.

Each bucket ships a few points or one candidate; the caller joins them.
Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.summary import Number
from ..sort.buckets import Bucket
from .curves import (
    CurveContext,
    CurveKind,
    CurvePoints,
    LabelRule,
    bucket_points,
    concatenated,
    grid_step,
    recall_corner_mask,
    thin_on_grid,
)

DET_ONE_CLASS_MESSAGE = (
    "Only one class is present in y_true. Detection error tradeoff curve is not "
    "defined in that case."
)


class ConfusionMatrixCurve(CurveKind):
    """``confusion_matrix_at_thresholds``: ``(tns, fps, fns, tps, thresholds)``.

    The counts are float64, as scikit-learn's (integers below ``2**53`` are
    exact in them); the thresholds are the distinct scores, decreasing, in
    ``y_score``'s dtype.  No threshold ``inf``, no warning for a missing class.
    """

    name = "confusion_matrix"
    #: ``tns`` and ``fns`` are sums of the rows below each threshold, not ``total - running
    #: sum`` (scikit-learn's ``tps[-1] - tps``): 0 where no row is left, in any partitioning,
    #: and every digit kept where the rows left weigh little beside all rows
    remainders = True

    def arrays(self, start: CurvePoints, points: CurvePoints) -> tuple[np.ndarray, ...]:
        assert points.fns is not None and points.tns is not None
        return (
            np.asarray(points.tns, dtype=np.float64),
            np.asarray(points.fps, dtype=np.float64),
            np.asarray(points.fns, dtype=np.float64),
            np.asarray(points.tps, dtype=np.float64),
            points.thresholds,
        )


CONFUSION_MATRIX = ConfusionMatrixCurve()


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
    points = bucket_points(bucket, context, remainders=True)
    if drop_intermediate and len(points):
        points = points.take(recall_corner_mask(bucket, points, context, keep_first=False))
    exact = len(points)
    positives = bucket.pos.scores
    lowest = positives[0].item() if len(positives) else None
    if max_points is not None and exact > max_points:
        keep = [thin_on_grid(points, context.total, grid_step(max_points))]
        # fps never decreases: the points without a false positive come first
        no_negative = int(np.searchsorted(points.fps, 0, "right"))
        if no_negative:
            keep.append(np.array([no_negative - 1]))
        if lowest is not None:  # the point of the lowest positive score (thresholds descend)
            keep.append(_index_of(points.thresholds, positives[0]))
        points = points.take(np.unique(np.concatenate(keep)))
    return points, exact, lowest


def _index_of(descending: np.ndarray, value: Any) -> np.ndarray:
    """The index of ``value`` in distinct ``descending`` values (empty if absent), by bisection."""
    ascending = descending[::-1]
    j = int(np.searchsorted(ascending, value))
    found = j < len(ascending) and ascending[j] == value
    return np.array([len(ascending) - 1 - j] if found else [], np.int64)


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
    summed directly (:func:`~dask_auc._kernels.binary.curves.bucket_points`), so it is
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


# -- operating points --------------------------------------------------------------------------

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
    :func:`~dask_auc._kernels.binary.curves.bucket_points`): two points with no
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
    points: CurvePoints, total: tuple[Number, Number], target: Target
) -> Candidate | None:
    """The best qualifying point of a run (descending thresholds), or None if none qualifies.

    ``points`` carry their remainders (``fns``, ``tns``).

    Examples
    --------
    >>> points = CurvePoints(np.array([1, 1, 2]), np.array([0, 1, 2]), np.array([0.8, 0.4, 0.1]),
    ...                      np.array([1, 1, 0]), np.array([2, 1, 0]))
    >>> best_of_points(points, (2, 2), Target("fpr", 0.5))
    Candidate(keys=(1, 0), tp=1, fp=0, threshold=0.8, fn=1, tn=2)
    """
    if target.kind in MONOTONE_TARGETS:
        return best_by_bisection(points, total, target)
    return best_by_ranking(points, total, target)


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
    points: CurvePoints, total: tuple[Number, Number], target: Target
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
    tps, fps, thresholds = points.tps, points.fps, points.thresholds
    total_pos, total_neg = total
    kind, value = target.kind, target.value
    n = len(tps)
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "fpr":
            count = _count_while(n, lambda i: fps[i] / total_neg <= value)
        elif kind == "threshold":
            count = _count_while(n, lambda i: thresholds[i] >= value)
        else:  # tpr: the points that fail come first
            start = _count_while(n, lambda i: ~(tps[i] / total_pos >= value))
    if kind == "tpr":
        if start == n:
            return None
        # the lowest fps of the suffix, then the largest tps among the points holding it
        last = int(np.searchsorted(fps, fps[start], "right")) - 1
        i = max(start, int(np.searchsorted(tps, tps[last], "left")))
        keys = (-fps[i], tps[i])
    else:
        if count == 0:
            return None
        last = count - 1
        i = int(np.searchsorted(tps, tps[last], "left"))
        if kind == "threshold":  # both keys: the first point equal to the last on tps and fps
            i = max(i, int(np.searchsorted(fps, fps[last], "left")))
            keys = (tps[i], fps[i])
        else:
            keys = (tps[i], -fps[i])
    assert points.fns is not None and points.tns is not None
    return Candidate(
        (keys[0].item(), keys[1].item()),
        tps[i].item(),
        fps[i].item(),
        thresholds[i].item(),
        points.fns[i].item(),
        points.tns[i].item(),
    )


def _count_while(n: int, holds: Any) -> int:
    """How many of the first points ``holds`` (True on a prefix of ``range(n)``), by bisection."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if bool(holds(mid)):
            lo = mid + 1
        else:
            hi = mid
    return lo


def bucket_operating_point(
    bucket: Bucket, context: CurveContext, target: Target
) -> Candidate | None:
    """The best of one bucket's curve points for ``target`` (None: none qualifies)."""
    points = bucket_points(bucket, context, remainders=True)
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


# -- the gains table ---------------------------------------------------------------------------


def bin_targets(total: tuple[Number, Number], n_bins: int) -> np.ndarray:
    """The row count (or weight) each bin ``g = 1 .. n_bins`` must reach, from the top.

    Unweighted: ``ceil(g * n / n_bins)`` as exact integers; weighted: ``g * W``, to
    compare with ``n_bins`` times the cumulative weight (see :func:`_reached`).
    """
    rows = total[0] + total[1]
    if isinstance(rows, (int, np.integer)):
        rows = int(rows)
        return np.array([-(-g * rows // n_bins) for g in range(1, n_bins + 1)], dtype=np.int64)
    return np.arange(1, n_bins + 1) * rows


def _reached(points: CurvePoints, context: CurveContext, n_bins: int) -> np.ndarray:
    """For each bin, the first of the bucket's points that reaches its target (or ``len``).

    Weighted, ``rows >= g * W / n_bins`` is decided as ``rows * n_bins >= g * W``.
    The last bin's target is every row: reached exactly at the curve's last
    point, decided as such (not by comparing a running sum with the total),
    so that every row lies in a bin whatever the rounding of the sums.  The
    other targets are inner quantiles of the weight: a running float sum is
    compared with them, and a cut that is exactly on a quantile in exact
    arithmetic (equal non-dyadic weights, say) may fall on either side of it
    for two partitionings -- row counts cannot decide a weighted quantile.
    """
    targets = bin_targets(context.total, n_bins)
    rows = points.tps + points.fps
    if targets.dtype.kind == "f":
        found = np.searchsorted(rows * n_bins, targets, "left")
    else:
        found = np.searchsorted(rows, targets, "left")
    holds_the_end = context.gain_after is None and len(points) > 0  # no point after this one
    found[-1] = len(points) - 1 if holds_the_end else len(points)
    return np.minimum(found, found[-1])


@dataclass(frozen=True)
class GainsCuts:
    """One bucket's share of the gains table: the bin cuts on its points, and its rows.

    ``bins, tps, fps, thresholds``: the bins (``g - 1``) whose first point
    reaching the target is in this bucket -- or could be: the caller keeps, for
    each bin, the first bucket's -- with that point's running counts.
    ``lows, positives, negatives``: the bucket's rows cut at those thresholds
    into segments, each summed directly, with the lowest score each may hold
    (the segment's cut threshold, or the bucket's lowest score): the caller
    adds the segments into the bins their scores fall in.
    """

    bins: np.ndarray
    tps: np.ndarray
    fps: np.ndarray
    thresholds: np.ndarray
    lows: np.ndarray
    positives: list[Number]
    negatives: list[Number]


def bucket_gains_cuts(bucket: Bucket, context: CurveContext, n_bins: int) -> GainsCuts:
    """The cuts of the gains table's bins that fall on this bucket's points, and its rows.

    Bin ``g`` ends at the first point (the end of a tie group, from the top)
    whose rows at or above it reach :func:`bin_targets`'s ``g``-th target:
    ties are never split.  A bin's positives and rows are sums of its rows
    (never the difference of two running sums, which leaves a residue where
    a bin has no positive): see :class:`GainsCuts`.

    Examples
    --------
    >>> from ..sort.rows import SortedScores
    >>> pos, neg = SortedScores(np.array([0.5, 0.9])), SortedScores(np.array([0.1, 0.5]))
    >>> context = CurveContext((2, 2), (0, 0), False, None, None)
    >>> cuts = bucket_gains_cuts(Bucket.binary(pos, neg), context, 4)
    >>> cuts.bins, cuts.thresholds  # the tie at 0.5 holds the 2nd and 3rd quarter of the rows
    (array([0, 1, 2, 3]), array([0.9, 0.5, 0.5, 0.1]))
    >>> cuts.lows, cuts.positives, cuts.negatives
    (array([0.9, 0.5, 0.1]), [1, 1, 0], [0, 1, 1])
    """
    points = bucket_points(bucket, context)
    found = _reached(points, context, n_bins)
    bins = np.flatnonzero(found < len(points))
    at = found[bins]
    lows, positives, negatives = _segments(bucket, points.thresholds[np.unique(at)])
    return GainsCuts(
        bins, points.tps[at], points.fps[at], points.thresholds[at], lows, positives, negatives
    )


def _segments(bucket: Bucket, ends: np.ndarray) -> tuple[np.ndarray, list[Number], list[Number]]:
    """The bucket's rows in ``[ends[j], ends[j - 1])`` (``ends`` decreasing), then below the last.

    Returns each non-empty segment's lowest possible score and its positives and
    negatives, each a direct sum of the segment's rows.
    """
    parts = (bucket.pos, bucket.neg)
    if not any(len(part) for part in parts):
        return ends[:0], [], []
    lowest = min(part.scores[0] for part in parts if len(part))
    lows = np.concatenate((ends, [lowest]))
    # row indices (ascending scores) where each segment starts, from the top segment down
    starts = [np.append(np.searchsorted(part.scores, ends, "left"), 0) for part in parts]
    sums: list[list[Number]] = [[], []]
    keep = []
    for j in range(len(lows)):
        rows = 0
        for c, part in enumerate(parts):
            start, stop = starts[c][j], len(part) if j == 0 else starts[c][j - 1]
            rows += stop - start
            sums[c].append(_sum_rows(part, start, stop))
        keep.append(rows > 0)
    kept = np.flatnonzero(keep)
    return lows[kept], [sums[0][j] for j in kept], [sums[1][j] for j in kept]


def _sum_rows(part: Any, start: int, stop: int) -> Number:
    if part.weights is None:
        return int(stop - start)
    total = part.weights[start:stop].sum()
    return int(total) if part.counted else float(total)


def gains_columns(
    total: tuple[Number, Number], parts: Sequence[GainsCuts], n_bins: int
) -> dict[str, np.ndarray]:
    """The gains table's columns from the buckets' cuts (bins without rows dropped).

    The definitions are H2O's ``gains_lift`` table's, with rates as fractions:
    for bin ``i`` holding ``n_i`` rows of which ``e_i`` positives, ``E``
    positives among ``N`` rows in all, and ``Σ`` summing bins ``1 .. i``:
    ``response_rate = e_i / n_i``, ``lift = response_rate / (E / N)``,
    ``cumulative_lift = (Σ e / Σ n) / (E / N)``, ``capture_rate = e_i / E``,
    ``cumulative_capture_rate = Σ e / E`` (the cumulative gains curve),
    ``gain = 100 (lift - 1)``, ``cumulative_gain = 100 (cumulative_lift - 1)``,
    ``kolmogorov_smirnov = Σ e / E - Σ (n - e) / (N - E)`` (tpr - fpr).
    ``e_i`` and ``n_i`` are sums of the bin's rows; the cumulative columns are
    the running counts at the bins' cuts.
    """
    total_pos, total_neg = total
    cuts: list[tuple[Any, Any, Any] | None] = [None] * n_bins
    for part in parts:
        for g, tp, fp, threshold in zip(
            part.bins, part.tps, part.fps, part.thresholds, strict=True
        ):
            if cuts[g] is None:
                cuts[g] = (tp, fp, threshold)
    found = [cut for cut in cuts if cut is not None]
    # bins whose cut is the previous bin's hold no rows: drop them
    kept = [cut for i, cut in enumerate(found) if i == 0 or cut[2] != found[i - 1][2]]
    ascending = np.array([cut[2] for cut in kept])[::-1]
    in_bin: list[list[Number]] = [[0] * len(kept), [0] * len(kept)]
    for part in parts:  # in score order: each bin's sum adds its segments from the top down
        above = len(kept) - np.searchsorted(ascending, part.lows, "right")  # cuts above each low
        for g, pos, neg in zip(above, part.positives, part.negatives, strict=True):
            assert g < len(kept), "a row below the last bin's cut"
            in_bin[0][g] += pos
            in_bin[1][g] += neg
    dtype = np.asarray(total_pos).dtype
    cum_pos = np.array([cut[0] for cut in kept], dtype=dtype)
    cum_neg = np.array([cut[1] for cut in kept], dtype=dtype)
    thresholds = np.array([cut[2] for cut in kept])
    positives = np.array(in_bin[0], dtype=dtype)
    rows = positives + np.array(in_bin[1], dtype=dtype)
    cum_rows = cum_pos + cum_neg
    n_rows = total_pos + total_neg
    with np.errstate(divide="ignore", invalid="ignore"):
        overall = total_pos / n_rows
        response_rate = positives / rows
        cumulative_response_rate = cum_pos / cum_rows
        lift = response_rate / overall
        cumulative_lift = cumulative_response_rate / overall
        return {
            "group": np.arange(1, len(kept) + 1),
            "lower_threshold": thresholds,
            "rows": rows,
            "positives": positives,
            "cumulative_data_fraction": cum_rows / n_rows,
            "response_rate": response_rate,
            "cumulative_response_rate": cumulative_response_rate,
            "lift": lift,
            "cumulative_lift": cumulative_lift,
            "capture_rate": positives / total_pos,
            "cumulative_capture_rate": cum_pos / total_pos,
            "gain": 100 * (lift - 1),
            "cumulative_gain": 100 * (cumulative_lift - 1),
            "kolmogorov_smirnov": cum_pos / total_pos - cum_neg / total_neg,
        }
