"""Pure-NumPy kernels of the ROC and precision-recall curves, from the sorted buckets.

A curve point is a distinct score ``s`` with the (weighted) counts of
positives and negatives scoring ``>= s``: scikit-learn's ``tps`` and ``fps``.
Each sorted bucket (:mod:`dask_auc._kernels.sort.buckets`, bucket 0 = highest scores) makes
the points of its own distinct scores, shifted by the counts of all higher
buckets.  Those shifts, and everything else a bucket must know of the others,
come from one ordered exclusive scan of the bucket summaries
(:func:`curve_contexts`); no row leaves its bucket.

* A tie group spread over several buckets gives one point, made by the *last*
  bucket holding its score: a bucket whose bottom score opens the next
  non-empty bucket does not emit it (``CurveContext.continues``).
* ``drop_intermediate`` decides on a point from its two neighbours; for the
  first and last point of a bucket those neighbours are the edge points of
  the buckets around it, whose counts the scan derives from their summaries'
  top and bottom tie groups.
* ``max_points`` thins each bucket's points on a global grid before they are
  shipped (:func:`thin_on_grid`), and the caller thins the concatenation once
  more with the same grid, unless the whole curve has at most ``max_points``.

Nothing here imports dask.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.summary import (
    Number,
    PartialROC,
    as_float_over,
    exact_total,
    neighbourhoods,
    ratio_terms,
)
from ..core.validation import (
    NO_NEGATIVES_MESSAGE,
    NO_POSITIVES_MESSAGE,
    warn_undefined,
)
from ..sort import compiled
from ..sort.buckets import Bucket
from ..sort.labels import MULTICLASS_FORMAT_MESSAGE as MULTICLASS_FORMAT_MESSAGE
from ..sort.labels import LabelRule as LabelRule
from ..sort.rows import SortedScores


@dataclass(frozen=True)
class CurveContext:
    """What one bucket needs to know of all others to make its curve points.

    Counts are ``(positives, negatives)``, weighted when weights exist.
    """

    total: tuple[Number, Number]
    above: tuple[Number, Number]  # rows in higher buckets
    continues: bool  # the bottom score opens the next non-empty bucket: not emitted here
    previous: tuple[Number, Number] | None  # the point before this bucket's first one
    following: tuple[Number, Number] | None  # the point after this bucket's last one
    #: rows of higher buckets at this bucket's top score (a tie continued from above)
    carried: tuple[Number, Number] = (0, 0)
    #: rows between this bucket's last point and ``following``: the next point's
    #: tie group, summed from group totals, so "is any positive between" is exact
    gain_after: tuple[Number, Number] | None = None
    #: this bucket's own rows, as its summary sums them (None: not known, as in doctests)
    own: tuple[Number, Number] | None = None
    #: rows of all lower buckets, summed from the bottom bucket up
    below: tuple[Number, Number] = (0, 0)


def curve_contexts(summaries: Sequence[PartialROC]) -> list[CurveContext]:
    """Each bucket's curve context, from the ordered scan of the bucket summaries.

    Examples
    --------
    >>> from dask_auc._kernels.core.summary import TieGroup
    >>> high = PartialROC(1, 1, 0, 1, TieGroup(0.9, 1, 0), TieGroup(0.5, 0, 1))
    >>> low = PartialROC(1, 0, 0, 0, TieGroup(0.5, 1, 0), TieGroup(0.5, 1, 0))
    >>> [c.continues for c in curve_contexts([high, low])]
    [True, False]
    >>> curve_contexts([high, low])[0].following
    (2, 1)
    """
    last_point: tuple[Number, Number] | None = None
    contexts = []
    for summary, around, below in zip(
        summaries, neighbourhoods(list(summaries)), _below(summaries), strict=True
    ):
        own = (summary.pos, summary.neg)
        if summary.is_empty:
            contexts.append(
                CurveContext(
                    around.total,
                    around.above,
                    False,
                    last_point,
                    None,
                    around.carried,
                    own=own,
                    below=below,
                )
            )
            continue
        assert summary.bottom is not None
        through = _plus(around.above, (summary.pos, summary.neg))
        bottom = (summary.bottom.pos, summary.bottom.neg)
        gain = around.next_group
        if around.continues:
            # the last point here is the second-lowest score; the next one is the
            # bottom score, completed by the buckets it continues into
            end = (through[0] - bottom[0], through[1] - bottom[1])
            gain = _plus(bottom, around.next_group)  # type: ignore[arg-type]
            emits = not summary.is_single_group
        else:
            end = through
            emits = True
        following = None if around.next_group is None else _plus(through, around.next_group)
        contexts.append(
            CurveContext(
                around.total,
                around.above,
                around.continues,
                last_point,
                following if emits else None,
                around.carried,
                gain if emits else None,
                own,
                below,
            )
        )
        if emits:
            last_point = end
    return contexts


def _below(summaries: Sequence[PartialROC]) -> list[tuple[Number, Number]]:
    """For each bucket, the rows of the buckets below it: a direct sum, from the bottom up.

    ``below[k]`` is ``below[k + 1] + own[k + 1]``, the very float addition a
    bucket makes (:func:`_running_counts`) for a threshold with all of its own
    rows below it: the remainders at two points with no row between them are
    the same float, whichever bucket makes them.
    """
    below: list[tuple[Number, Number]] = []
    acc: tuple[Number, Number] = (0, 0)
    for summary in reversed(summaries):
        below.append(acc)
        acc = _plus(acc, (summary.pos, summary.neg))
    return below[::-1]


def _plus(a: tuple[Number, Number], b: tuple[Number, Number]) -> tuple[Number, Number]:
    return a[0] + b[0], a[1] + b[1]


@dataclass(frozen=True)
class CurvePoints(SizedByArrays):
    """Curve points in descending score order: counts at ``score >= threshold``.

    ``fns`` and ``tns``, when made (:func:`bucket_points` with ``remainders``),
    are the positives and negatives scoring below each threshold, summed
    directly from those rows.
    """

    tps: np.ndarray
    fps: np.ndarray
    thresholds: np.ndarray
    fns: np.ndarray | None = None
    tns: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.thresholds)

    def take(self, keep: np.ndarray) -> CurvePoints:
        fns = None if self.fns is None else self.fns[keep]
        tns = None if self.tns is None else self.tns[keep]
        return CurvePoints(self.tps[keep], self.fps[keep], self.thresholds[keep], fns, tns)


@dataclass(frozen=True)
class OwnPoints(SizedByArrays):
    """What a bucket knows of its curve points alone: its distinct scores and where they cut.

    ``thresholds`` descending; ``below[c][i]``: the rows of class ``c``
    (negatives, positives) scoring below ``thresholds[i]``.
    """

    thresholds: np.ndarray
    below: tuple[np.ndarray, np.ndarray]

    def __len__(self) -> int:
        return len(self.thresholds)


def own_points(bucket: Bucket) -> OwnPoints:
    """A bucket's distinct scores, descending, and each class's rows below each.

    The part of the curve points a bucket knows alone -- the merge of its two
    classes' scores: :func:`bucket_points` places them with the bucket's
    context, once per bucket of a ROC (:func:`with_placed_points`).

    Examples
    --------
    >>> bucket = Bucket.binary(SortedScores(np.array([0.4, 0.9])), SortedScores(np.array([0.4])))
    >>> points = own_points(bucket)
    >>> points.thresholds, points.below
    (array([0.9, 0.4]), (array([1, 0]), array([1, 0])))
    """
    pos, neg = bucket.pos.scores, bucket.neg.scores
    found = compiled.merged_points(pos, neg, compiled=bucket.compiled)
    if found is not None:
        return OwnPoints(*found)
    joined = np.concatenate([pos, neg])
    if joined.size == 0:
        return OwnPoints(joined, (np.zeros(0, np.int64), np.zeros(0, np.int64)))
    # two sorted runs: timsort ("stable") merges them in linear time; the order says which
    # class each merged row is of, so the rows below each score are running counts (no
    # binary search: 2.5x faster on 2.5e6 rows)
    order = np.argsort(joined, kind="stable")
    merged = joined[order]
    first = np.flatnonzero(np.concatenate(([True], merged[1:] != merged[:-1])))
    negative = order >= len(pos)
    below_neg: np.ndarray = np.cumsum(negative)[first] - negative[first]  # negatives before
    below_pos = first - below_neg
    return OwnPoints(merged[first][::-1], (below_neg[::-1], below_pos[::-1]))


def with_placed_points(bucket: Bucket, context: CurveContext) -> Bucket:
    """The bucket carrying its curve points placed by ``context`` (:func:`bucket_points`).

    Made once per bucket of a :class:`dask_auc.ROC` and kept by its
    ``persist``: every query of the ROC then reads the same absolute counts
    (and the rows below each point) and only looks up the few points it needs
    (:func:`thin_on_grid`, the operating point's monotone targets), so a
    query of a persisted ROC costs about O(log(points)) per bucket, not
    O(points).  The placed points belong to this ``context``: every query of
    one ROC has the same contexts.
    """
    return replace(bucket, placed=bucket_points(bucket, context, remainders=True))


@dataclass(frozen=True)
class KeptAnswers(SizedByArrays):
    """A persisted ROC bucket's answers to the questions that take no parameter.

    Made once by :func:`with_answers` (``ROC.persist``) so that the average
    precision, the KS statistic and ``roc_curve``'s corners cost O(1) per
    bucket afterwards; each is exactly what its kernel computes.
    """

    precision_sum: int  # bucket_precision_sum: exact, in units of 2**-UNIT_BITS
    ks: tuple[Number, Any]  # bucket_ks
    roc_corners: np.ndarray  # indices of the points roc_curve's drop_intermediate keeps


def with_answers(bucket: Bucket, context: CurveContext) -> Bucket:
    """The bucket (with placed points) carrying its :class:`KeptAnswers`."""
    points = bucket_points(bucket, context)
    corners = as_indices(ROC.corner_mask(bucket, points, context)) if len(points) else None
    answers = KeptAnswers(
        bucket_precision_sum(bucket, context),
        bucket_ks(bucket, context),
        np.zeros(0, np.int64) if corners is None else corners,
    )
    return replace(bucket, answers=answers)


def bucket_points(bucket: Bucket, context: CurveContext, remainders: bool = False) -> CurvePoints:
    """The curve points of one bucket's distinct scores, in absolute counts.

    Weighted counts are running sums offset by the rows of the other buckets
    (``above``, or ``below`` for the ``remainders``): see
    :func:`_running_counts` for why equal counts in exact arithmetic are equal
    floats here, whatever the partitioning.

    Examples
    --------
    >>> pos = SortedScores(np.array([0.4, 0.9]))
    >>> neg = SortedScores(np.array([0.1, 0.4]))
    >>> context = CurveContext((3, 2), (1, 0), False, (1, 0), None)
    >>> points = bucket_points(Bucket.binary(pos, neg), context, remainders=True)
    >>> points.tps, points.fps, points.thresholds
    (array([2, 3, 3]), array([0, 1, 2]), array([0.9, 0.4, 0.1]))
    >>> points.fns, points.tns
    (array([1, 0, 0]), array([2, 1, 0]))
    """
    if bucket.placed is not None:  # made once by with_placed_points, for this context
        placed: CurvePoints = bucket.placed
        return placed if remainders else replace(placed, fns=None, tns=None)
    pos, neg = bucket.pos, bucket.neg
    cut = own_points(bucket)
    if len(cut) == 0:
        empty = np.empty(0, np.int64)
        return CurvePoints(empty, empty, cut.thresholds, *((empty, empty) if remainders else ()))
    end = len(cut) - 1 if context.continues else len(cut)  # the bottom point: the next bucket's
    distinct = cut.thresholds[:end]
    own = context.own or (None, None)
    counts = []
    for c, (part, mine) in enumerate(((pos, own[0]), (neg, own[1]))):
        below = cut.below[1 - c][:end]  # rows < threshold
        counts.append(context.above[c] + _running_counts(part, len(part) - below, mine, top=True))
        if remainders:
            counts.append(context.below[c] + _running_counts(part, below, mine, top=False))
    if remainders:
        tps, fns, fps, tns = counts
        return CurvePoints(tps, fps, distinct, fns, tns)
    return CurvePoints(counts[0], counts[1], distinct)


def _running_counts(
    part: SortedScores, rows: np.ndarray, own: Number | None, *, top: bool
) -> np.ndarray:
    """The weight of the first ``rows`` rows of ``part`` from its top (or from its bottom).

    Row counts are exact; so are integer multiplicities (aggregated rows).
    Weights are summed in running order -- from the highest score down, the
    order scikit-learn's ``cumsum`` adds in -- and two rules keep every
    decision that is exact in rows exact in floats:

    * Where all of the part's rows are counted (a row count, ``rows ==
      len(part)``), the sum is the bucket summary's own total ``own``, not the
      running sum (rounded in another order).  The offset the scan gives the
      next bucket is ``above + own`` (``below + own`` the one above, for
      remainders), and the curve's total is ``above + own`` of the last
      bucket holding the class: so two points with no row of a class between
      them have bit-identical counts even across a bucket edge (an ``fpr``
      target's tie-break on equal TP), TPR is exactly 1 from the last positive
      on (``tpr=1``), and a remainder with no row left is exactly 0.
    * No running sum exceeds ``own`` (it could by an ulp): counts stay
      monotone, and a count short of all rows never passes the total.
    """
    if part.weights is None:
        return rows.astype(np.int64, copy=False)  # the caller adds an offset: a new array
    weights = part.weights[::-1] if top else part.weights
    running = np.concatenate(([0 if part.counted else 0.0], np.cumsum(weights)))[rows]
    if part.counted or own is None:
        return running
    running = np.minimum(running, own)
    running[rows == len(part)] = own
    return running


def corner_mask(
    points: CurvePoints,
    previous: tuple[Number, Number] | None,
    following: tuple[Number, Number] | None,
) -> np.ndarray:
    """scikit-learn's ROC ``drop_intermediate`` mask of a run of points, given its neighbours.

    ROC keeps a point where ``fps`` or ``tps`` bends (second difference not
    zero).  A missing neighbour means the run starts (or ends) the curve,
    whose end points are always kept.
    """
    tps = _extended(points.tps, previous, following, 0)
    fps = _extended(points.fps, previous, following, 1)
    inner = (np.diff(fps, 2) != 0) | (np.diff(tps, 2) != 0)
    keep = np.concatenate(([True], inner, [True])) if len(tps) > 1 else np.ones(len(tps), bool)
    return keep[int(previous is not None) : len(keep) - int(following is not None)]


def recall_corner_mask(
    bucket: Bucket, points: CurvePoints, context: CurveContext, *, keep_first: bool = True
) -> np.ndarray:
    """scikit-learn's precision-recall ``drop_intermediate`` mask, decided exactly.

    scikit-learn keeps a point where recall changes just before or just after
    it.  The first point of the curve is always kept, unless ``keep_first`` is
    False: then it is kept only if recall changes on arriving at it (from the
    origin) or on leaving it, as in ``det_curve``, whose curve opens with a
    point at threshold ``inf``.  Recall changes between two points exactly
    when a positive row lies between them: here that is read from row counts
    and tie-group totals (all kept rows weigh more than zero), never from the
    float equality of two differently summed running totals, so weighted
    curves do not depend on the partitioning.

    Examples
    --------
    >>> bucket = Bucket.binary(SortedScores(np.array([0.9])), SortedScores(np.array([0.2, 0.5])))
    >>> context = CurveContext((1, 2), (0, 0), False, None, None)
    >>> points = bucket_points(bucket, context)
    >>> points.thresholds, recall_corner_mask(bucket, points, context)
    (array([0.9, 0.5, 0.2]), array([ True, False,  True]))
    """
    # positives between each point and the one before it: the rows at its threshold
    scores = bucket.pos.scores
    at_threshold = np.searchsorted(scores, points.thresholds, "right") - np.searchsorted(
        scores, points.thresholds, "left"
    )
    gains = at_threshold > 0
    gains[0] |= context.carried[0] > 0
    if context.gain_after is not None:
        gains = np.append(gains, context.gain_after[0] > 0)
    # a point stays if recall moves on arriving at it or on leaving it
    keep = gains[:-1] | gains[1:] if len(gains) > 1 else np.ones(1, bool)
    if context.gain_after is None:  # the last point of the curve
        keep = np.append(keep, True) if len(keep) < len(points) else keep
        keep[-1] = True
    if context.previous is None and keep_first:  # the first point of the curve
        keep[0] = True
    return keep[: len(points)]


def _extended(
    values: np.ndarray,
    previous: tuple[Number, Number] | None,
    following: tuple[Number, Number] | None,
    which: int,
) -> np.ndarray:
    head = [] if previous is None else [previous[which]]
    tail = [] if following is None else [following[which]]
    # never cast a weighted neighbour down to a bucket's integer counts
    return np.concatenate((np.asarray(head), values, np.asarray(tail)))


def grid_step(max_points: int) -> float:
    """Cell width of the thinning grid that leaves at most ``max_points`` points.

    Along a ROC curve ``fpr + tpr`` grows from 0 to 2.  Cutting that range
    into cells of width ``4 / (max_points - 2)`` gives at most
    ``max_points / 2`` cells, and :func:`thin_on_grid` keeps two points per cell.

    Examples
    --------
    >>> grid_step(6), grid_step(2)
    (1.0, inf)
    """
    return 4 / (max_points - 2) if max_points > 2 else math.inf


def grid_cells(tps: np.ndarray, fps: np.ndarray, total: tuple[Number, Number], step: float):
    """The grid cell of each point: ``floor((tpr + fpr) / step)``."""
    arc = np.zeros(len(tps))
    if total[0]:
        arc += tps / total[0]
    if total[1]:
        arc += fps / total[1]
    if math.isinf(step):
        return np.zeros(len(tps), np.int64)
    return np.floor(arc / step).astype(np.int64)


def thin_on_grid(
    points: CurvePoints,
    total: tuple[Number, Number],
    step: float,
    subset: np.ndarray | None = None,
) -> np.ndarray:
    """Indices (ascending) of the first and last point of each grid cell (and of the run).

    Every point dropped lies, with the curve between its kept neighbours, in
    one cell: a box with ``dfpr + dtpr < step``, where the curve's area moves
    by at most ``dfpr * dtpr / 2 <= step**2 / 8``.  Points that bend the curve
    by more than a cell are all kept.  With ``subset`` (ascending indices of
    ``points``: the corners ``drop_intermediate`` keeps) the run is those
    points, and the indices returned are positions in ``subset``.

    A point's cell (:func:`grid_cells`) never decreases along the curve
    (``tps`` and ``fps`` do not, and float division, addition and ``floor``
    are monotone), so the first point of each cell is found by bisection:
    O(cells * log(points)) work, the same indices as comparing every
    point's cell with its neighbour's.

    Examples
    --------
    >>> points = CurvePoints(np.arange(1, 7), np.zeros(6, int), np.zeros(6))
    >>> thin_on_grid(points, (6, 0), 0.5)  # cells 0 0 1 1 1 2
    array([0, 1, 2, 4, 5])
    >>> thin_on_grid(points, (6, 0), 0.5, subset=np.array([0, 2, 3, 5]))  # cells 0 1 1 2
    array([0, 1, 2, 3])
    """
    n = len(points) if subset is None else len(subset)
    if n == 0:
        return np.zeros(0, np.int64)

    def cells_at(i: np.ndarray) -> np.ndarray:
        at = i if subset is None else subset[i]
        return grid_cells(points.tps[at], points.fps[at], total, step)

    ends = np.array([0, n - 1])
    low, high = cells_at(ends)
    if n <= 4 * (high - low) + 64:  # few points a cell: compare them all
        cells = cells_at(np.arange(n))
        change = cells[1:] != cells[:-1]
        keep = np.concatenate(([True], change)) | np.concatenate((change, [True]))
        return np.flatnonzero(keep)
    # the first point of each cell after the first: where a run of equal cells starts
    wanted = np.arange(low + 1, high + 1)
    lo, hi = np.zeros(len(wanted), np.int64), np.full(len(wanted), n - 1, np.int64)
    while np.any(lo < hi):
        mid = (lo + hi) // 2
        below = cells_at(mid) < wanted
        lo, hi = np.where(below, mid + 1, lo), np.where(below, hi, mid)
    return np.unique(np.concatenate((ends, lo, lo - 1)))


def bucket_curve(
    bucket: Bucket,
    context: CurveContext,
    curve: CurveKind,
    drop_intermediate: bool,
    max_points: int | None,
) -> tuple[CurvePoints, int]:
    """One bucket's share of the curve, ready to ship, and its number of exact points.

    The points are exact, with scikit-learn's corners kept (``drop_intermediate``).
    A bucket with more than ``max_points`` of them thins them on the grid of
    :func:`grid_step`; one with fewer ships them all, so that a whole curve of
    at most ``max_points`` points reaches the caller unthinned (the caller
    tells from the summed counts).
    """
    points = bucket_points(bucket, context, curve.remainders)
    kept = None  # indices of the points shipped: all of them, until a rule drops some
    if drop_intermediate and len(points):
        kept = as_indices(curve.corner_mask(bucket, points, context))
    exact = len(points) if kept is None else len(kept)
    if max_points is not None and exact > max_points:
        thinned = thin_on_grid(points, context.total, grid_step(max_points), kept)
        kept = thinned if kept is None else kept[thinned]
    return (points if kept is None else points.take(kept)), exact


def as_indices(keep: np.ndarray) -> np.ndarray:
    """Indices of the points a rule keeps, given as a mask or as indices already."""
    return np.flatnonzero(keep) if keep.dtype == bool else keep


def bucket_precision_sum(bucket: Bucket, context: CurveContext, swap: bool = False) -> int:
    """This bucket's part of ``sum(dtps * precision)``, exact: an integer of ``2**-UNIT_BITS``.

    scikit-learn's average precision is ``sum((R_k - R_{k-1}) * P_k)`` over the
    points in descending score order, with ``R_{-1} = 0``.  With ``swap`` the
    bucket's negatives are the class asked for (the other of two labels):
    the same points, with the two counts exchanged.  The buckets' parts are
    added as integers and rounded once by :func:`average_precision`, so the
    result does not depend on how the points fall into buckets
    (:func:`~dask_auc._kernels.core.summary.ratio_terms` says how exact it is).
    """
    if bucket.answers is not None and not swap:
        return bucket.answers.precision_sum
    points = bucket_points(bucket, context)
    if len(points) == 0:
        return 0
    side = int(swap)  # which count is the class asked for
    asked, other = (points.fps, points.tps) if swap else (points.tps, points.fps)
    before = 0 if context.previous is None else context.previous[side]
    return exact_total(ratio_terms(np.diff(asked, prepend=before), asked, asked + other))


def average_precision(precision_sum: int, total_pos: Number) -> float:
    """AP from the buckets' exact :func:`bucket_precision_sum` and the class's total, rounded once.

    0.0 with no positive (scikit-learn: every recall set to one, precision 0 at the top).

    Examples
    --------
    >>> from dask_auc._kernels.core.summary import UNIT_BITS
    >>> average_precision(5 << UNIT_BITS, 6)  # 5/6, rounded once
    0.8333333333333334
    """
    if total_pos == 0:
        return 0.0
    return max(0.0, as_float_over(precision_sum, total_pos))


def concatenated(parts: Sequence[CurvePoints]) -> CurvePoints:
    """The bucket parts joined in score order (empty buckets dropped)."""
    kept = [p for p in parts if len(p)] or list(parts[:1])
    fns = [p.fns for p in kept if p.fns is not None]
    tns = [p.tns for p in kept if p.tns is not None]
    remainders = len(fns) == len(tns) == len(kept)
    return CurvePoints(
        np.concatenate([p.tps for p in kept]),
        np.concatenate([p.fps for p in kept]),
        np.concatenate([p.thresholds for p in kept]),
        np.concatenate(fns) if remainders else None,
        np.concatenate(tns) if remainders else None,
    )


class CurveKind:
    """One kind of curve over the sorted buckets: which corners it keeps, which arrays it returns.

    Every curve is made of the same points (counts at each distinct
    threshold, :func:`bucket_points`); a kind says which of them are corners
    (``drop_intermediate``) and how the points become scikit-learn's arrays.
    """

    name = ""
    #: whether the points carry the rows below them (``fns``, ``tns``), summed directly
    remainders = False

    def corner_mask(self, bucket: Bucket, points: CurvePoints, context: CurveContext) -> np.ndarray:
        raise NotImplementedError

    def arrays(self, start: CurvePoints, points: CurvePoints) -> tuple[np.ndarray, ...]:
        """scikit-learn's arrays (three for the curves) from the points.

        ``start`` is ``points`` opened by ``(0, 0, inf)``, its thresholds float.
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.name


class RocCurve(CurveKind):
    """``roc_curve``: ``(fpr, tpr, thresholds)``, first threshold ``inf``."""

    name = "roc"

    def corner_mask(self, bucket: Bucket, points: CurvePoints, context: CurveContext) -> np.ndarray:
        if bucket.answers is not None:  # kept by ROC.persist (indices)
            return bucket.answers.roc_corners
        return corner_mask(points, context.previous, context.following)

    def arrays(
        self, start: CurvePoints, points: CurvePoints
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        fps, tps = start.fps, start.tps
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
        return fpr, tpr, start.thresholds


class PrecisionRecallCurve(CurveKind):
    """``precision_recall_curve``: ``(precision, recall, thresholds)``, ending at ``(1, 0)``."""

    name = "precision_recall"

    def corner_mask(self, bucket: Bucket, points: CurvePoints, context: CurveContext) -> np.ndarray:
        return recall_corner_mask(bucket, points, context)

    def arrays(
        self, start: CurvePoints, points: CurvePoints
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        # thresholds in y_score's dtype, as scikit-learn's
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


ROC = RocCurve()
PRECISION_RECALL = PrecisionRecallCurve()

NO_POSITIVE_CLASS_MESSAGE = (
    "No positive class found in y_true, recall is set to one for all thresholds."
)


def bucket_ks(bucket: Bucket, context: CurveContext) -> tuple[Number, Any]:
    """The bucket's largest ``|tpr - fpr|`` over its ROC points, and the threshold of it.

    The Kolmogorov-Smirnov statistic of the positives' and negatives' score
    distributions is the largest gap between the two empirical CDFs, which
    is the largest ``|tpr - fpr|`` over the ROC points (one per distinct
    score, ties together).  Unweighted, the gap is the exact integer
    ``|tps * N - fps * P|`` (in units of ``1 / (P * N)``); weighted, a float.
    Of equal gaps the highest threshold is kept.  A bucket without points
    gives ``(-1, None)``.

    Examples
    --------
    >>> pos, neg = SortedScores(np.array([0.4, 0.9])), SortedScores(np.array([0.1, 0.4]))
    >>> bucket_ks(Bucket.binary(pos, neg), CurveContext((2, 2), (0, 0), False, None, None))
    (2, 0.9)
    """
    if bucket.answers is not None:
        return bucket.answers.ks
    points = bucket_points(bucket, context)
    total_pos, total_neg = context.total
    if len(points) == 0 or total_pos == 0 or total_neg == 0:
        return -1, None
    # unweighted totals are ints: then the gaps are exact integers
    exact = isinstance(total_pos, int) and isinstance(total_neg, int)
    exact = exact and total_pos * total_neg < 2**62
    if exact:
        gaps: np.ndarray = np.abs(points.tps * total_neg - points.fps * total_pos)
    else:
        gaps = np.abs(points.tps / total_pos - points.fps / total_neg)
    best = int(np.argmax(gaps))  # the first of equal gaps: the highest threshold
    gap = int(gaps[best]) if exact else float(gaps[best])
    return gap, points.thresholds[best].item()
