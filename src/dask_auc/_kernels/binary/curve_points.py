"""One bucket's curve points: its distinct scores, with the counts at and below each.

:func:`own_points` is what a bucket knows alone (the merge of its two classes'
scores); :func:`bucket_points` places them in absolute counts with the
bucket's :class:`~dask_auc._kernels.binary.curve_context.CurveContext`, so that
equal counts in exact arithmetic are equal floats whatever the partitioning
(:func:`_running_counts`).  :func:`concatenated` joins the buckets' parts.

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.summary import Number
from ..sort.buckets import Bucket
from ..sort.compiled import usable
from ..sort.rows import SortedScores
from .curve_context import CurveContext


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

    def point(self, i: int) -> tuple[Any, Any, Any]:
        """``(tp, fp, threshold)`` of point ``i`` (NumPy scalars): what a bisection reads."""
        return self.tps[i], self.fps[i], self.thresholds[i]

    def counts(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(tps, fps)`` of the points at ``index``: what a vectorized bisection reads."""
        return self.tps[index], self.fps[index]

    @property
    def whole(self) -> CurvePoints:
        """The points as arrays (they are): :attr:`KeptView.whole`'s twin."""
        return self


@dataclass(frozen=True)
class KeptPoints(SizedByArrays):
    """A persisted bucket's curve points of plain rows, in 4 bytes a point (8 with ties).

    ``positives`` and ``rows``: the bucket's own positives and rows at or above
    each point (int32; ``rows`` None where point ``i`` has ``i + 1`` rows, as
    when the bucket has no tie); ``above``: each class's rows in the buckets
    above.  The rest follows exactly: ``tps = above[0] + positives``, ``fps =
    above[1] + rows - positives``, and a point's threshold is the lowest score
    at or above it, the lower of its lowest positive and lowest negative
    (:class:`KeptView`).  :class:`CurvePoints` would keep 24 bytes a point.
    """

    positives: np.ndarray
    rows: np.ndarray | None
    above: tuple[int, int]

    def __len__(self) -> int:
        return len(self.positives)


#: the most rows a bucket may hold for its points to be kept in int32 (:func:`kept_points`)
KEPT_ROWS_LIMIT = 2**31 - 1


def kept_points(bucket: Bucket, points: CurvePoints, context: CurveContext) -> KeptPoints | None:
    """``points`` of a persisted bucket as :class:`KeptPoints`, where its counts are plain rows.

    None where they are not -- weights, integer multiplicities (their sums
    may pass int32) -- or the bucket holds more than :data:`KEPT_ROWS_LIMIT`
    rows: the bucket then keeps its points as arrays.
    """
    plain = bucket.pos.weights is None and bucket.neg.weights is None
    if not plain or len(bucket.pos) + len(bucket.neg) > KEPT_ROWS_LIMIT:
        return None
    above_pos, above_neg = (int(a) for a in context.above)
    m = len(points)
    positives = np.empty(m, np.int32)
    np.subtract(points.tps, above_pos, out=positives, casting="unsafe")  # < 2**31: exact
    # rows grow by at least 1 a point from 1: they are 1..m exactly when the last is m
    ties = m > 0 and int(points.tps[-1]) - above_pos + int(points.fps[-1]) - above_neg != m
    rows = None
    if ties:
        rows = np.empty(m, np.int32)
        np.subtract(points.fps, above_neg, out=rows, casting="unsafe")
        rows += positives
    return KeptPoints(positives, rows, (above_pos, above_neg))


class KeptView:
    """The curve points of :class:`KeptPoints`, made from the bucket's rows when asked for.

    A lookup of a few points (:meth:`take`, :meth:`point`, what bisections and
    thinning read) costs O(1) a point; a query that reads whole columns gets
    them made once (:attr:`whole`).  The same integers and thresholds as the
    :class:`CurvePoints` the points were kept from.
    """

    fns: np.ndarray | None = None
    tns: np.ndarray | None = None

    def __init__(self, kept: KeptPoints, pos: np.ndarray, neg: np.ndarray):
        self._kept = kept
        self._scores = (pos, neg)  # each class's scores, ascending

    def __len__(self) -> int:
        return len(self._kept)

    def take(self, keep: np.ndarray) -> CurvePoints:
        """The points at ``keep`` (indices, or a mask), as arrays."""
        index = np.arange(len(self))[keep] if np.asarray(keep).dtype == bool else keep
        positives, negatives = self._own(np.asarray(index, dtype=np.int64))
        above_pos, above_neg = self._kept.above
        thresholds = _lowest_at_or_above(self._scores, (positives, negatives))
        return CurvePoints(positives + above_pos, negatives + above_neg, thresholds)

    def counts(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(tps, fps)`` of the points at ``index`` (no thresholds made)."""
        positives, negatives = self._own(np.asarray(index, dtype=np.int64))
        return positives + self._kept.above[0], negatives + self._kept.above[1]

    def point(self, i: int) -> tuple[Any, Any, Any]:
        """``(tp, fp, threshold)`` of point ``i``, from scalars (a bisection's step)."""
        i = int(i)
        positives = int(self._kept.positives[i])
        rows = i + 1 if self._kept.rows is None else int(self._kept.rows[i])
        negatives = rows - positives
        (pos, neg), dtype = self._scores, np.result_type(*self._scores)
        lowest_pos = pos[len(pos) - positives] if positives else None
        lowest_neg = neg[len(neg) - negatives] if negatives else None
        if lowest_neg is None or (lowest_pos is not None and lowest_pos <= lowest_neg):
            threshold = lowest_pos  # the rule of _lowest_at_or_above
        else:
            threshold = lowest_neg
        above_pos, above_neg = self._kept.above
        return (
            np.int64(positives + above_pos),
            np.int64(negatives + above_neg),
            dtype.type(threshold),
        )

    def _own(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The bucket's own positives and negatives at or above the points at ``index``."""
        positives = self._kept.positives[index].astype(np.int64)
        rows = index + 1 if self._kept.rows is None else self._kept.rows[index].astype(np.int64)
        return positives, rows - positives

    @cached_property
    def whole(self) -> CurvePoints:
        """Every point, as arrays."""
        return self.take(np.arange(len(self)))

    @property
    def tps(self) -> np.ndarray:
        return self.whole.tps

    @property
    def fps(self) -> np.ndarray:
        return self.whole.fps

    @property
    def thresholds(self) -> np.ndarray:
        return self.whole.thresholds


#: curve points as arrays, or as a persisted bucket keeps them (both read alike)
Points = CurvePoints | KeptView


def count_while(n: int, holds: Callable[[int], object]) -> int:
    """How many of the first points ``holds`` (True on a prefix of ``range(n)``), by bisection."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if bool(holds(mid)):
            lo = mid + 1
        else:
            hi = mid
    return lo


def first_reaching(
    n: int, key_at: Callable[[np.ndarray], np.ndarray], wanted: np.ndarray
) -> np.ndarray:
    """For each ``wanted`` value, the first of ``n`` points whose key reaches it (``n``: none).

    ``key_at(indices)`` gives the keys of those points, non-decreasing along
    the points: ``np.searchsorted(keys, wanted, "left")`` without making every
    key, O(len(wanted) * log(n)) (a persisted ROC's points are looked up, not made).
    """
    lo, hi = np.zeros(len(wanted), np.int64), np.full(len(wanted), n, np.int64)
    while np.any(lo < hi):
        mid = (lo + hi) // 2
        below = (lo < hi) & (key_at(np.minimum(mid, n - 1)) < wanted)
        lo, hi = np.where(below, mid + 1, lo), np.where(below | (lo >= hi), hi, mid)
    return lo


def _lowest_at_or_above(
    scores: tuple[np.ndarray, np.ndarray], counts: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """Each point's threshold: the lowest score of its rows, given each class's rows at or above.

    ``scores``: each class's scores, ascending; ``counts``: each class's rows
    at or above each point (every point has one, of a class at least).  Of
    equal scores (``-0.0`` and ``0.0``) the positive's, as the walk that made
    the points writes it (:func:`merged_points`).
    """
    dtype = np.result_type(*scores)
    lowest = []
    for ascending, count in zip(scores, counts, strict=True):
        if len(ascending) == 0:  # then count is 0 at every point
            lowest.append(np.zeros(len(count), dtype))
        else:
            at = np.clip(len(ascending) - count, 0, len(ascending) - 1)
            lowest.append(ascending[at].astype(dtype, copy=False))
    (pos, neg), (n_pos, n_neg) = lowest, counts
    return np.where((n_pos > 0) & ((n_neg == 0) | (pos <= neg)), pos, neg)


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
    context, once per bucket of a ROC
    (:func:`~dask_auc._kernels.binary.persisted.with_placed_points`).

    Examples
    --------
    >>> bucket = Bucket.binary(SortedScores(np.array([0.4, 0.9])), SortedScores(np.array([0.4])))
    >>> points = own_points(bucket)
    >>> points.thresholds, points.below
    (array([0.9, 0.4]), (array([1, 0]), array([1, 0])))
    """
    pos, neg = bucket.pos.scores, bucket.neg.scores
    found = merged_points(pos, neg, compiled=bucket.compiled)
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


def merged_points(
    pos: np.ndarray, neg: np.ndarray, *, compiled: bool = True
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]] | None:
    """A bucket's own curve points from its two classes' ascending scores, by one merge, or None.

    The compiled loop (:mod:`dask_auc._kernels.binary._numba`) where it runs; returns the
    distinct scores, descending, and ``(negatives below, positives below)`` each:
    :func:`own_points`'s arrays.
    """
    kernel = usable(compiled, "binary", pos, neg)
    if kernel is None or pos.dtype != neg.dtype:
        return None
    n = len(pos) + len(neg)
    values = np.empty(n, pos.dtype)
    below_neg, below_pos = np.empty(n, np.int64), np.empty(n, np.int64)
    m = kernel.merged_points(pos, neg, values, below_neg, below_pos)
    descending = slice(m - 1, None, -1) if m else slice(0, 0)
    if m < n:  # ties: keep compact arrays, not views of the rows' buffers
        values, below_neg, below_pos = values[:m].copy(), below_neg[:m].copy(), below_pos[:m].copy()
    return values[descending], (below_neg[descending], below_pos[descending])


def bucket_points(bucket: Bucket, context: CurveContext, remainders: bool = False) -> Points:
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
    if isinstance(bucket.placed, KeptPoints):  # kept by a persisted ROC: made when asked for
        view = KeptView(bucket.placed, bucket.pos.scores, bucket.neg.scores)
        return with_remainders(view, context.total) if remainders else view
    if bucket.placed is not None:  # made once by with_placed_points, for this context
        placed: CurvePoints = bucket.placed
        if not remainders:
            return placed if placed.fns is None else replace(placed, fns=None, tns=None)
        return with_remainders(placed, context.total)
    if not remainders:
        walked = _walked_points(bucket, context)
        if walked is not None:
            return walked
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


def _walked_points(bucket: Bucket, context: CurveContext) -> CurvePoints | None:
    """:func:`bucket_points` of an unweighted bucket by one compiled walk, or None.

    The walk down the two classes writes the placed counts and the distinct
    scores in descending order at once (no merged arrays to reverse, no
    running counts to add): the same integers and scores as the NumPy path.
    """
    pos, neg = bucket.pos, bucket.neg
    if pos.weights is not None or neg.weights is not None or pos.scores.dtype != neg.scores.dtype:
        return None
    kernel = usable(bucket.compiled, "binary", pos.scores, neg.scores)
    if kernel is None:
        return None
    n = len(pos) + len(neg)
    tps, fps = np.empty(n, np.int64), np.empty(n, np.int64)
    thresholds = np.empty(n, pos.scores.dtype)
    above_pos, above_neg = (np.int64(a) for a in context.above)
    m = kernel.placed_points(pos.scores, neg.scores, above_pos, above_neg, tps, fps, thresholds)
    if m < n:  # ties: keep compact arrays, not views of the rows' buffers
        tps, fps, thresholds = tps[:m].copy(), fps[:m].copy(), thresholds[:m].copy()
    if m and context.continues:  # the bottom point: the next bucket's
        tps, fps, thresholds = tps[: m - 1], fps[: m - 1], thresholds[: m - 1]
    return CurvePoints(tps, fps, thresholds)


def with_remainders(points: Points, total: tuple[Number, Number]) -> CurvePoints:
    """``points`` with their remainders: made from the class totals where they have none.

    Points without remainders are of integer counts (:func:`integer_counts`),
    whose rows below a threshold are the class total less the rows at or
    above it, exactly.  A query that thins its points asks for them after
    thinning: a subtraction per point it ships, not per point it has.
    """
    points = points.whole
    if points.fns is not None and points.tns is not None:
        return points
    total_pos, total_neg = total
    return replace(points, fns=total_pos - points.tps, tns=total_neg - points.fps)


def integer_counts(bucket: Bucket) -> bool:
    """Whether the bucket's counts are integers: rows, or integer multiplicities.

    A point's remainders (the rows below it) are then exactly the class total
    less its count at or above, so a kept point needs no remainders of its own
    (:func:`~dask_auc._kernels.binary.persisted.with_placed_points`); weighted
    remainders are summed from the rows below instead (:func:`_running_counts`).
    """
    return all(part.weights is None or part.counted for part in (bucket.pos, bucket.neg))


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
