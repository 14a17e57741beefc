"""The Kolmogorov-Smirnov statistic from the sorted buckets: each bucket's largest gap.

Nothing here imports dask.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ..sort.buckets import Bucket
from ..sort.compiled import usable
from .curve_context import CurveContext
from .curve_points import bucket_points

#: float gaps within this of the largest may be the largest in exact arithmetic: each rate is
#: within half an ulp of its value (<= 1) and their difference within one more
_GAP_ROUNDING = 4 * float(np.finfo(np.float64).eps)


def bucket_ks(bucket: Bucket, context: CurveContext) -> tuple[int | Fraction, Any]:
    """The bucket's largest ``|tpr - fpr|`` over its ROC points, and the threshold of it.

    The Kolmogorov-Smirnov statistic of the positives' and negatives' score
    distributions is the largest gap between the two empirical CDFs, which
    is the largest ``|tpr - fpr|`` over the ROC points (one per distinct
    score, ties together).  Unweighted, the gap is the exact integer
    ``|tps * N - fps * P|`` (in units of ``1 / (P * N)``); weighted (or
    past int64), the exact :class:`~fractions.Fraction` ``|tps / P - fps / N|``
    of the summed counts, the largest decided exactly among the points whose
    float gaps are within a rounding of the largest float gap: so that gaps
    equal in exact arithmetic are equal, and the highest threshold of them is
    kept, as it is of equal integer gaps.  A bucket without points gives
    ``(-1, None)``.

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
    kernel = usable(bucket.compiled, "binary", points.tps, points.fps) if exact else None
    if kernel is not None and points.tps.dtype == points.fps.dtype == np.int64:
        best, gap = kernel.largest_gap(points.tps, points.fps, total_pos, total_neg)
        return int(gap), points.thresholds[best].item()
    if exact:
        gaps: np.ndarray = np.abs(points.tps * total_neg - points.fps * total_pos)
        best = int(np.argmax(gaps))  # the first of equal gaps: the highest threshold
        return int(gaps[best]), points.thresholds[best].item()
    gaps = np.abs(points.tps / total_pos - points.fps / total_neg)
    near = np.flatnonzero(gaps >= gaps.max() - _GAP_ROUNDING)
    pos, neg = _exact(total_pos), _exact(total_neg)
    exact_gaps = [abs(_exact(points.tps[k]) * neg - _exact(points.fps[k]) * pos) for k in near]
    largest = max(exact_gaps)
    best = int(near[exact_gaps.index(largest)])  # the first of equal gaps: the highest threshold
    return largest / (pos * neg), points.thresholds[best].item()


def _exact(value: Any) -> Fraction:
    """A count (a Python or NumPy int or float) as the exact Fraction of its value."""
    return Fraction(value.item() if isinstance(value, np.generic) else value)
