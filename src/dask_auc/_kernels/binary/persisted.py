"""What a persisted ROC keeps in each bucket: its placed points and parameterless answers.

Made once per bucket by ``ROC.persist``, so that every later query reads them
instead of recomputing (:func:`with_placed_points`, :func:`with_answers`).

Nothing here imports dask.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..sort.buckets import Bucket
from .average_precision import bucket_precision_sum
from .corners import as_indices
from .curve_context import CurveContext
from .curve_points import bucket_points, integer_counts, kept_points
from .curves import ROC
from .ks import bucket_ks


def with_placed_points(bucket: Bucket, context: CurveContext) -> Bucket:
    """The bucket carrying its curve points placed by ``context``.

    The points are :func:`~dask_auc._kernels.binary.curve_points.bucket_points`'s,
    made once per bucket of a :class:`dask_auc.ROC` and kept by its
    ``persist``: every query of the ROC then reads the same absolute counts
    (and the rows below each point) and only looks up the few points it needs
    (:func:`~dask_auc._kernels.binary.thinning.thin_on_grid`, the operating
    point's monotone targets), so a query of a persisted ROC costs about
    O(log(points)) per bucket, not O(points).  The placed points belong to
    this ``context``: every query of one ROC has the same contexts.  Integer
    counts keep no remainders (16 bytes a distinct score): a query that asks
    for them gets the class totals less the counts, the same integers.
    """
    remainders = not integer_counts(bucket)
    return replace(bucket, placed=bucket_points(bucket, context, remainders=remainders))


@dataclass(frozen=True)
class KeptAnswers(SizedByArrays):
    """A persisted ROC bucket's answers to the questions that take no parameter.

    Made once by :func:`with_answers` (``ROC.persist``) so that the average
    precision, the KS statistic and ``roc_curve``'s corners cost O(1) per
    bucket afterwards; each is exactly what its kernel computes.
    """

    precision_sum: int  # bucket_precision_sum: exact, in units of 2**-UNIT_BITS
    ks: tuple[int | Fraction, Any]  # bucket_ks: an exact gap
    roc_corners: np.ndarray  # indices of the points roc_curve's drop_intermediate keeps


def with_answers(bucket: Bucket, context: CurveContext) -> Bucket:
    """The bucket (with placed points) carrying its :class:`KeptAnswers`."""
    points = bucket_points(bucket, context).whole
    corners = as_indices(ROC.corner_mask(bucket, points, context)) if len(points) else None
    answers = KeptAnswers(
        bucket_precision_sum(bucket, context),
        bucket_ks(bucket, context),
        np.zeros(0, np.int32) if corners is None else corners.astype(_index_type(len(points))),
    )
    kept = kept_points(bucket, points, context)
    return replace(bucket, answers=answers, placed=bucket.placed if kept is None else kept)


def _index_type(n: int) -> type:
    """The narrowest index type for ``n`` points: a persisted bucket keeps its corners in it."""
    return np.int32 if n <= np.iinfo(np.int32).max else np.int64
