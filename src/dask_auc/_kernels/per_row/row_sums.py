"""Exact sums of per-row values: a block's part of a per-sample metric, and their merge.

Every finite float64 is an integer multiple of ``2**-1126``
(:data:`~dask_auc._kernels.core.summary.UNIT_BITS`), so the rows' values (times
their weights) are summed *exactly*, as Python integers in that unit
(:func:`~dask_auc._kernels.core.summary.exact_total`), and rounded once at the
end (:func:`~dask_auc._kernels.core.summary.as_float`).  The result is then the same
bits for any partitioning, any order of the rows and any tree of merges,
weighted or not.  scikit-learn sums the same per-row values in floats
(``np.average``: pairwise sums; LRAP: a running sum), so results agree
with it to a few ulps of the sum (see ``tests/test_sample_ranking.py``).

Nothing here imports dask.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.summary import as_float, exact_total

WEIGHTS_SUM_TO_ZERO = "Weights sum to zero, can't be normalized"


@dataclass(frozen=True)
class RowSums:
    """A block's (or several blocks') part of a per-sample metric: exact sums and extremes.

    ``totals[i]`` is the exact sum of the rows' ``i``-th value, each times its
    weight when the metric is weighted; ``weight`` the exact sum of the weights
    (0 unweighted).  ``low`` and ``high`` are the smallest and largest score
    (top-k's binary threshold rule reads them).
    """

    rows: int
    weight: int
    totals: tuple[int, ...]
    low: float = math.inf
    high: float = -math.inf


def row_sums(
    columns: Sequence[np.ndarray],
    weights: np.ndarray | None,
    *,
    low: float = math.inf,
    high: float = -math.inf,
) -> RowSums:
    """The exact sums of per-row values ``columns`` (times ``weights``, when given).

    Examples
    --------
    >>> sums = row_sums([np.array([1.0, 0.5])], np.array([2.0, 0.0]))
    >>> sums.rows, as_float(sums.weight), as_float(sums.totals[0])
    (2, 2.0, 2.0)
    """
    rows = len(columns[0]) if columns else 0
    if weights is None:
        return RowSums(rows, 0, tuple(exact_total(c) for c in columns), low, high)
    totals = tuple(exact_total(np.asarray(c, dtype=np.float64) * weights) for c in columns)
    return RowSums(rows, exact_total(weights), totals, low, high)


def merge_row_sums(parts: Sequence[RowSums]) -> RowSums:
    """The sums of several blocks (exact: any grouping, any order gives the same result)."""
    if not parts:
        return RowSums(0, 0, ())
    width = max(len(p.totals) for p in parts)
    totals = tuple(sum(p.totals[i] for p in parts if len(p.totals) > i) for i in range(width))
    return RowSums(
        sum(p.rows for p in parts),
        sum(p.weight for p in parts),
        totals,
        min(p.low for p in parts),
        max(p.high for p in parts),
    )


def weighted_mean(sums: RowSums, weighted: bool, index: int = 0) -> float:
    """``np.average`` of the per-row values: the exact sum rounded, over the rows or weights.

    Like scikit-learn, each sum is rounded to a float before the division.
    """
    total = as_float(sums.totals[index])
    if not weighted:
        return total / sums.rows
    if sums.weight == 0:
        raise ZeroDivisionError(WEIGHTS_SUM_TO_ZERO)
    return total / as_float(sums.weight)
