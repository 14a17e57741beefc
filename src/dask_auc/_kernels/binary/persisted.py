"""What a persisted ROC keeps in each bucket: its placed points and parameterless answers.

Made once per bucket by ``ROC.persist``, so that every later query reads them
instead of recomputing (:func:`with_placed_points`, :func:`with_answers`),
then kept compact (:func:`kept_bucket`): integer counts relative to the rows
above, in the narrowest dtype their range needs, the negatives' counts and
the remainders derived where they follow from the positives', the rows of a
bucket rebuilt from its points where they can be.  Each query opens the
kept bucket again (:func:`open_kept`): an :class:`OpenedBucket` rebuilds, on
first use and for that query only, what its kernels read -- the same arrays,
bit for bit, as the bucket had before it was kept (checked when it is kept:
whatever would not come back the same is kept as it is).

Nothing here imports dask.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays, footprint
from ..core.summary import Number
from ..sort.buckets import Bucket
from ..sort.rows import SortedScores
from .average_precision import bucket_precision_sum
from .corners import as_indices
from .curve_context import CurveContext
from .curve_points import CurvePoints, bucket_points
from .curves import ROC
from .ks import bucket_ks


def with_placed_points(bucket: Bucket, context: CurveContext) -> Bucket:
    """The bucket carrying its curve points placed by ``context``.

    The points are :func:`~dask_auc._kernels.binary.curve_points.bucket_points`'s,
    made once per bucket of a :class:`dask_auc.ROC` and kept by its
    ``persist``: every query of the ROC then reads the same absolute counts
    (and the rows below each point) and only looks up the few points it needs
    (:func:`~dask_auc._kernels.binary.thinning.thin_on_grid`, the operating
    point's monotone targets).  The placed points belong to this
    ``context``: every query of one ROC has the same contexts.
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


@dataclass(frozen=True)
class KeptPoints(SizedByArrays):
    """A bucket's placed points of integer counts, in a few narrow arrays.

    Counts are the bucket's own, counted from ``above`` (the rows of the
    higher buckets).  Where few points hold more than one row (continuous
    scores), ``positive`` packs one bit a point -- whether its one row is a
    positive -- and the points of several rows are listed apart
    (``tied_at``, with their ``tied_rows`` and ``tied_pos``); otherwise
    ``tps`` and ``fps`` are stored whole, in the narrowest unsigned dtype
    their range needs.  The remainders are ``totals - tps`` and
    ``totals - fps``, exact in integers.
    """

    thresholds: np.ndarray
    above: tuple[int, int]
    totals: tuple[int, int]
    tps: np.ndarray | None
    fps: np.ndarray | None
    positive: np.ndarray | None
    tied_at: np.ndarray
    tied_rows: np.ndarray
    tied_pos: np.ndarray

    def __len__(self) -> int:
        return len(self.thresholds)

    def open(self) -> CurvePoints:
        """The points as :func:`with_placed_points` made them: int64 absolute counts."""
        if self.tps is not None and self.fps is not None:
            tps = np.add(self.tps, self.above[0], dtype=np.int64)
            fps = np.add(self.fps, self.above[1], dtype=np.int64)
        else:
            assert self.positive is not None
            pos = np.unpackbits(self.positive, count=len(self)).astype(np.int64)
            pos[self.tied_at] = self.tied_pos
            neg = 1 - pos
            neg[self.tied_at] = self.tied_rows - self.tied_pos
            tps, fps = np.cumsum(pos, out=pos), np.cumsum(neg, out=neg)
            tps += self.above[0]
            fps += self.above[1]
        return CurvePoints(tps, fps, self.thresholds, self.totals[0] - tps, self.totals[1] - fps)


def _narrow(values: np.ndarray) -> np.ndarray:
    """Non-negative integers in the narrowest unsigned dtype that holds them."""
    top = int(values.max()) if len(values) else 0
    return values.astype(np.min_scalar_type(top))


def _same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    """Whether two arrays hold the same bits, dtype and shape (``-0.0`` is not ``0.0``)."""
    if a is None or b is None:
        return a is b
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        unsigned = np.dtype(f"u{a.dtype.itemsize}")
        return bool(np.array_equal(a.view(unsigned), b.view(unsigned)))
    return bool(np.array_equal(a, b))


def _kept_points(points: CurvePoints, context: CurveContext) -> KeptPoints | CurvePoints:
    """``points`` as :class:`KeptPoints`, or as they are where those would not open the same."""
    tps, fps, fns, tns = points.tps, points.fps, points.fns, points.tns
    n = len(points)
    if n == 0 or fns is None or tns is None:
        return points
    if any(a.dtype != np.int64 for a in (tps, fps, fns, tns)):  # weighted: float sums
        return points
    above = (int(context.above[0]), int(context.above[1]))
    if above != tuple(context.above) or tps[0] < above[0] or fps[0] < above[1]:
        return points
    totals = (int(tps[0] + fns[0]), int(fps[0] + tns[0]))
    pos, neg = np.diff(tps, prepend=above[0]), np.diff(fps, prepend=above[1])
    tied_at = np.flatnonzero(pos + neg != 1)
    if len(tied_at) <= n // 16:
        one = np.ones(n, bool)
        one[tied_at] = False
        kept = KeptPoints(
            points.thresholds, above, totals, None, None,
            np.packbits(one & (pos == 1)), _narrow(tied_at),
            _narrow(pos[tied_at] + neg[tied_at]), _narrow(pos[tied_at]),
        )  # fmt: skip
    else:
        nothing = np.zeros(0, np.uint8)
        kept = KeptPoints(
            points.thresholds, above, totals, _narrow(tps - above[0]), _narrow(fps - above[1]),
            None, nothing, nothing, nothing,
        )  # fmt: skip
    opened = kept.open()
    same = all(_same(getattr(opened, f), getattr(points, f)) for f in ("tps", "fps", "fns", "tns"))
    return kept if same else points


def _rebuilt_rows(
    points: CurvePoints, above: tuple[Number, Number], n_rows: tuple[int, int], bottom: np.ndarray
) -> tuple[SortedScores, SortedScores]:
    """A bucket's ``(negatives, positives)`` rows, ascending, from its points (unweighted).

    Point ``i`` holds ``counts[i] - counts[i - 1]`` rows of a class (the first,
    ``counts[0] - above``); rows of the bucket below its last point (a bottom
    tie group continued in the next bucket, not a point here) have the
    ``bottom`` score.
    """
    ascending = points.thresholds[::-1]
    parts = []
    for counts, base, rows in (
        (points.fps, above[1], n_rows[0]),
        (points.tps, above[0], n_rows[1]),
    ):
        at_point = np.diff(counts, prepend=base)[::-1]
        left = rows - int(counts[-1] - base) if len(counts) else rows
        scores = np.repeat(ascending, at_point)
        if left:
            scores = np.concatenate([np.repeat(bottom, left), scores])
        parts.append(SortedScores(scores))
    return parts[0], parts[1]


@dataclass(frozen=True)
class KeptBucket(SizedByArrays):
    """What a persisted ROC keeps of one bucket (:func:`kept_bucket`); opened by :func:`open_kept`.

    ``groups`` is None where the rows are rebuilt from the points
    (:func:`_rebuilt_rows`, with ``n_rows`` and ``bottom``); ``corners``
    packs ``roc_curve``'s corners as one bit a point (``answers`` then holds
    none).
    """

    points: KeptPoints | CurvePoints
    groups: tuple[SortedScores, ...] | None
    n_rows: tuple[int, int]
    bottom: np.ndarray
    answers: KeptAnswers
    corners: np.ndarray | None
    weight_exponent: int
    compiled: bool


def kept_bucket(bucket: Bucket, context: CurveContext) -> KeptBucket:
    """The compact form a persisted ROC keeps of an answered bucket (:func:`with_answers`).

    Examples
    --------
    >>> from dask_auc._kernels.binary.curve_context import curve_contexts
    >>> from dask_auc._kernels.sort.buckets import summarize_bucket
    >>> bucket = Bucket.binary(SortedScores(np.array([0.4, 0.9])), SortedScores(np.array([0.1])))
    >>> context = curve_contexts([summarize_bucket(bucket)])[0]
    >>> kept = kept_bucket(with_answers(with_placed_points(bucket, context), context), context)
    >>> kept.groups is None, kept.points.positive, kept.points.tps
    (True, array([192], dtype=uint8), None)
    >>> opened = open_kept(kept)
    >>> opened.pos.scores, opened.placed.fps, opened.answers.roc_corners
    (array([0.4, 0.9]), array([0, 0, 1]), array([0, 1, 2]))
    """
    placed: CurvePoints = bucket.placed
    answers: KeptAnswers = bucket.answers
    points = _kept_points(placed, context)
    groups: tuple[SortedScores, ...] | None = bucket.groups
    n_rows = (len(bucket.neg), len(bucket.pos))
    scores = [g.scores for g in bucket.groups if len(g)]
    bottom = min(scores, key=lambda s: s[0])[:1].copy() if scores else placed.thresholds[:0]
    plain = all(g.weights is None and g.ids is None for g in bucket.groups)
    if isinstance(points, KeptPoints) and plain and len(bucket.groups) == 2:
        rebuilt = _rebuilt_rows(placed, points.above, n_rows, bottom)
        if all(_same(a.scores, b.scores) for a, b in zip(rebuilt, bucket.groups, strict=True)):
            groups = None
    corners = None
    n = len(placed)
    if n:
        mask = np.zeros(n, bool)
        mask[answers.roc_corners] = True
        packed = np.packbits(mask)
        if _same(_unpacked(packed, n), answers.roc_corners):
            corners, answers = packed, replace(answers, roc_corners=np.zeros(0, np.int64))
    return KeptBucket(
        points, groups, n_rows, bottom, answers, corners, bucket.weight_exponent, bucket.compiled
    )


def _unpacked(packed: np.ndarray, n: int) -> np.ndarray:
    return np.flatnonzero(np.unpackbits(packed, count=n)).astype(np.int64, copy=False)


class OpenedBucket(Bucket):
    """A :class:`KeptBucket` seen as the :class:`~dask_auc._kernels.sort.buckets.Bucket` it was.

    Each of its parts (the rows, the placed points, the answers) is rebuilt
    on first use and held by this view only: one query's tasks share it, and
    it goes with them, so what stays in memory is the kept bucket alone.
    """

    kept: KeptBucket

    def __init__(self, kept: KeptBucket) -> None:  # the fields are rebuilt below
        object.__setattr__(self, "kept", kept)

    def __reduce__(self) -> tuple[Any, ...]:
        return OpenedBucket, (self.kept,)

    def __sizeof__(self) -> int:
        return object.__sizeof__(self) + footprint(list(vars(self).values()))

    @cached_property
    def placed(self) -> CurvePoints:  # type: ignore[override]
        points = self.kept.points
        return points.open() if isinstance(points, KeptPoints) else points

    @cached_property
    def groups(self) -> tuple[SortedScores, ...]:  # type: ignore[override]
        kept = self.kept
        if kept.groups is not None:
            return kept.groups
        assert isinstance(kept.points, KeptPoints)
        return _rebuilt_rows(self.placed, kept.points.above, kept.n_rows, kept.bottom)

    @cached_property
    def answers(self) -> KeptAnswers:  # type: ignore[override]
        kept = self.kept
        if kept.corners is None:
            return kept.answers
        return replace(kept.answers, roc_corners=_unpacked(kept.corners, len(kept.points)))

    @property
    def weight_exponent(self) -> int:  # type: ignore[override]
        return self.kept.weight_exponent

    @property
    def compiled(self) -> bool:  # type: ignore[override]
        return self.kept.compiled


def open_kept(kept: KeptBucket) -> Bucket:
    """A kept bucket for one query's tasks (:class:`OpenedBucket`): parts rebuilt when read."""
    return OpenedBucket(kept)
