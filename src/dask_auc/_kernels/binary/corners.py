"""scikit-learn's ``drop_intermediate``: which of a bucket's curve points are corners.

The ROC keeps a point where the curve bends (:func:`corner_mask`); the
precision-recall and DET curves keep a point where recall changes just before
or after it (:func:`recall_corner_mask`), decided exactly from row counts.  A
bucket decides on its first and last point from the edge points of the
buckets around it (:class:`~dask_auc._kernels.binary.curve_context.CurveContext`).

Nothing here imports dask.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.summary import Number
from ..sort.buckets import Bucket
from ..sort.compiled import usable
from .curve_context import CurveContext
from .curve_points import CurvePoints


def corner_mask(
    points: CurvePoints,
    previous: tuple[Number, Number] | None,
    following: tuple[Number, Number] | None,
    compiled: bool = False,
) -> np.ndarray:
    """scikit-learn's ROC ``drop_intermediate`` mask of a run of points, given its neighbours.

    ROC keeps a point where ``fps`` or ``tps`` bends (second difference not
    zero).  A missing neighbour means the run starts (or ends) the curve,
    whose end points are always kept.  With ``compiled`` and integer counts,
    the kept points' indices instead (:func:`as_indices` reads either), by
    one compiled pass: the same points.
    """
    kernel = _corners_kernel(points, previous, following, compiled)
    if kernel is not None:  # integer counts: the kept indices by one compiled pass
        edges = int(previous is not None) | 2 * int(following is not None)
        kept = np.empty(len(points), np.int64)
        count = kernel.roc_corners(
            points.tps, points.fps, _pair(previous), _pair(following), edges, kept
        )
        return kept[:count]
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
    >>> from dask_auc._kernels.binary.curve_points import bucket_points
    >>> from dask_auc._kernels.sort.rows import SortedScores
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


def _corners_kernel(
    points: CurvePoints,
    previous: tuple[Number, Number] | None,
    following: tuple[Number, Number] | None,
    compiled: bool,
) -> Any:
    """The binary queries' loops for :func:`corner_mask` of integer counts, or None."""
    if points.tps.dtype != np.int64 or points.fps.dtype != np.int64:
        return None
    neighbours = [v for pair in (previous, following) if pair is not None for v in pair]
    if not all(isinstance(v, (int, np.integer)) for v in neighbours):
        return None  # a weighted neighbour: NumPy's float differences
    return usable(compiled, "binary", points.tps, points.fps)


def _pair(counts: tuple[Number, Number] | None) -> np.ndarray:
    return np.zeros(2, np.int64) if counts is None else np.array(counts, np.int64)


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


def as_indices(keep: np.ndarray) -> np.ndarray:
    """Indices of the points a rule keeps, given as a mask or as indices already."""
    return np.flatnonzero(keep) if keep.dtype == bool else keep
