"""Average precision from the sorted buckets: exact per bucket, rounded once.

Nothing here imports dask.
"""

from __future__ import annotations

import numpy as np

from ..core.summary import (
    EXPONENTS,
    Number,
    as_float_over,
    exact_total,
    ratio_terms,
    total_of_halves,
)
from ..sort.buckets import Bucket
from ..sort.compiled import usable
from .curve_context import CurveContext
from .curve_points import CurvePoints, bucket_points


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
    points = bucket_points(bucket, context).whole
    if len(points) == 0:
        return 0
    side = int(swap)  # which count is the class asked for
    before = 0 if context.previous is None else context.previous[side]
    compiled = _compiled_precision_sum(points, before, swap, bucket.compiled)
    if compiled is not None:
        return compiled
    asked, other = (points.fps, points.tps) if swap else (points.tps, points.fps)
    return exact_total(ratio_terms(np.diff(asked, prepend=before), asked, asked + other))


def _compiled_precision_sum(
    points: CurvePoints, before: Number, swap: bool, compiled: bool = True
) -> int | None:
    """:func:`bucket_precision_sum` of row counts by one compiled pass, or None.

    The pass adds the same floats as
    :func:`~dask_auc._kernels.core.summary.ratio_terms` to an exact sum (an
    integer per exponent) without making them, so the total is the NumPy
    path's integer.  Weighted counts take the NumPy path.
    """
    tps, fps = points.tps, points.fps
    if tps.dtype != np.int64 or fps.dtype != np.int64:
        return None
    kernel = usable(compiled, "binary", tps)
    if kernel is None:
        return None
    asked, other = (fps, tps) if swap else (tps, fps)
    high, low = np.zeros(EXPONENTS, np.int64), np.zeros(EXPONENTS, np.int64)
    kernel.precision_sum(asked, other, before, high, low)
    return total_of_halves(high, low)


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
