"""The curve kinds, and one bucket's share of a curve, from the sorted buckets.

Every curve is made of the same points
(:func:`~dask_auc._kernels.binary.curve_points.bucket_points`: counts at each
distinct threshold, placed by the ordered scan of
:mod:`~dask_auc._kernels.binary.curve_context`); a :class:`CurveKind` says which of
them are corners (``drop_intermediate``, :mod:`~dask_auc._kernels.binary.corners`)
and how the points become scikit-learn's arrays: :data:`ROC`,
:data:`PRECISION_RECALL` and :data:`CONFUSION_MATRIX`.  :func:`bucket_curve`
ships a bucket's points, thinned for ``max_points``
(:mod:`~dask_auc._kernels.binary.thinning`).

Nothing here imports dask.
"""

from __future__ import annotations

import numpy as np

from ..core.validation import (
    NO_NEGATIVES_MESSAGE,
    NO_POSITIVES_MESSAGE,
    warn_undefined,
)
from ..sort.buckets import Bucket
from .corners import as_indices, corner_mask, recall_corner_mask
from .curve_context import CurveContext
from .curve_points import CurvePoints, Points, bucket_points, integer_counts, with_remainders
from .thinning import grid_step, thin_on_grid


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
    :func:`~dask_auc._kernels.binary.thinning.grid_step`; one with fewer ships
    them all, so that a whole curve of at most ``max_points`` points reaches
    the caller unthinned (the caller tells from the summed counts).
    """
    # integer counts' remainders are made after thinning, of the points shipped
    derived = curve.remainders and integer_counts(bucket)
    points = bucket_points(bucket, context, curve.remainders and not derived)
    kept = None  # indices of the points shipped: all of them, until a rule drops some
    if drop_intermediate and len(points):
        kept = as_indices(curve.corner_mask(bucket, points, context))
    exact = len(points) if kept is None else len(kept)
    if max_points is not None and exact > max_points:
        thinned = thin_on_grid(points, context.total, grid_step(max_points), kept)
        kept = thinned if kept is None else kept[thinned]
    shipped = points.whole if kept is None else points.take(kept)
    return (with_remainders(shipped, context.total) if derived else shipped), exact


class CurveKind:
    """One kind of curve over the sorted buckets: which corners it keeps, which arrays it returns.

    Every curve is made of the same points (counts at each distinct
    threshold, :func:`~dask_auc._kernels.binary.curve_points.bucket_points`); a
    kind says which of them are corners (``drop_intermediate``) and how the
    points become scikit-learn's arrays.
    """

    name = ""
    #: whether the points carry the rows below them (``fns``, ``tns``), summed directly
    remainders = False

    def corner_mask(self, bucket: Bucket, points: Points, context: CurveContext) -> np.ndarray:
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

    def corner_mask(self, bucket: Bucket, points: Points, context: CurveContext) -> np.ndarray:
        if bucket.answers is not None:  # kept by ROC.persist (indices)
            return bucket.answers.roc_corners
        return corner_mask(points.whole, context.previous, context.following, bucket.compiled)

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

    def corner_mask(self, bucket: Bucket, points: Points, context: CurveContext) -> np.ndarray:
        return recall_corner_mask(bucket, points.whole, context)

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


class ConfusionMatrixCurve(CurveKind):
    """``confusion_matrix_at_thresholds``: ``(tns, fps, fns, tps, thresholds)``.

    The counts are float64, as scikit-learn's (integers below ``2**53`` are
    exact in them); the thresholds are the distinct scores, decreasing, in
    ``y_score``'s dtype.  No threshold ``inf``, no warning for a missing class.
    """

    name = "confusion_matrix"
    #: weighted ``tns`` and ``fns`` are sums of the rows below each threshold, not ``total -
    #: running sum`` (scikit-learn's ``tps[-1] - tps``): 0 where no row is left, in any
    #: partitioning, and every digit kept where the rows left weigh little beside all rows
    #: (integer counts: the totals less the counts, the same integers)
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
