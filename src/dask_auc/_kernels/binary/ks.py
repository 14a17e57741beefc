"""The Kolmogorov-Smirnov statistic from the sorted buckets: each bucket's largest gap.

Nothing here imports dask.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.summary import Number
from ..sort.buckets import Bucket
from .curve_context import CurveContext
from .curve_points import bucket_points


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
    >>> from dask_auc._kernels.sort.rows import SortedScores
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
