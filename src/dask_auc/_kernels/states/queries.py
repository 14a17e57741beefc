"""A state's other certified queries: the partial area up to ``max_fpr``, and the KS statistic.

Read from the top score down, the bins' corners ``(X_k, Y_k)`` (negatives
and positives of bin ``k`` and the bins above it) are exact points of the
ROC curve.  Between two corners the curve is unknown when the bin holds
several scores: some path, rising and moving right, from ``(X_{k-1},
Y_{k-1})`` to ``(X_k, Y_k)`` -- so inside the rectangle they span, any such
path being possible (the bin's positives may all score above its negatives,
or all below).  A bin of one score is the straight segment between them.

* **Partial area** over ``0 <= fpr <= max_fpr`` (``T = max_fpr * N``
  negatives): each bin wholly left of ``T`` adds between ``n_k * Y_{k-1}``
  and ``n_k * Y_k``; the bin where ``T`` falls (``X_{k-1} < T < X_k``) adds
  between ``u * Y_{k-1}`` and ``u * Y_k`` over its first ``u = T -
  X_{k-1}`` negatives; a bin of one score adds its segment's area, exactly.
  The estimate takes every bin's segment (the curve's diagonal in the bin).
* **KS** (the largest ``|tpr - fpr|`` over the curve's points): the corners'
  largest gap is a lower bound (they are points of the curve, the largest
  the statistic itself where every bin holds one score); a bin of several
  scores may have points anywhere in its rectangle, where ``|y - x|`` is
  largest at the rectangle's top-left or bottom-right corner: the upper bound.

Counts are exact integers: rows unweighted, and weighted each float weight
sum as an integer multiple of the smallest power of two among them (every
float64 is one), so the areas and gaps are exact rationals of the state's
sums, rounded once.  Nothing here imports dask.
"""

from __future__ import annotations

from bisect import bisect_right
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from .bins import StateBins


class Corners(NamedTuple):
    """The bins from the top score down, in exact integer units (Python ints)."""

    pos: list[int]  # positives of each bin
    neg: list[int]
    single: list[bool]  # the bin holds one distinct score
    thresholds: list[float]  # each bin's lowest score: its corner's threshold
    total_pos: int
    total_neg: int


def corners(state: StateBins) -> Corners:
    """The state's bins from the top down, as exact integers (weights: see the module notes).

    Examples
    --------
    >>> from dask_auc._kernels.states.bins import block_state
    >>> c = corners(block_state([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.4], max_bins=8))
    >>> c.pos, c.neg, c.total_pos, c.total_neg
    ([1, 1, 0], [0, 1, 1], 2, 2)
    """
    pos, neg = state.pos[::-1], state.neg[::-1]
    if state.weighted:
        pos_list, neg_list = _integers(np.concatenate([pos, neg]), len(pos))
    else:
        pos_list, neg_list = [int(v) for v in pos.tolist()], [int(v) for v in neg.tolist()]
    single = (state.low == state.high)[::-1].tolist()
    return Corners(
        pos_list, neg_list, single, state.low[::-1].tolist(), sum(pos_list), sum(neg_list)
    )


def _integers(sums: np.ndarray, split: int) -> tuple[list[int], list[int]]:
    """Non-negative float sums as exact integers in a common unit (a power of two)."""
    mantissas, exponents = np.frexp(sums)  # sums = mantissa * 2**exponent, exactly
    whole = (mantissas * 2.0**53).astype(np.int64).tolist()  # exact: 53-bit mantissas
    exponents = (exponents.astype(np.int64) - 53).tolist()
    low = min((e for e, m in zip(exponents, whole, strict=True) if m), default=0)
    values = [m << (e - low) if m else 0 for m, e in zip(whole, exponents, strict=True)]
    return values[:split], values[split:]


class AreaBounds(NamedTuple):
    """The partial area under the curve over ``0 <= fpr <= max_fpr``, a fraction of the square."""

    lower: Fraction
    estimate: Fraction
    upper: Fraction


def partial_area(c: Corners, max_fpr: float) -> AreaBounds:
    """The bounds of the area under the curve up to ``max_fpr`` (exact rationals).

    Needs both classes (``total_pos * total_neg > 0``).

    Examples
    --------
    >>> from dask_auc._kernels.states.bins import block_state
    >>> c = corners(block_state([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], max_bins=2))
    >>> c.pos, c.neg  # bins {0.2, 0.3, 0.4} and {0.1}: the top one holds three scores
    ([2, 0], [1, 1])
    >>> [str(v) for v in partial_area(c, 0.5)]  # exact: 1/4 (0.4 above 0.3 above 0.2)
    ['0', '1/4', '1/2']
    """
    total_x, total_y = c.total_neg, c.total_pos
    target = Fraction(max_fpr) * total_x
    xs = _cumulative(c.neg)
    full = bisect_right(xs, target)  # the bins wholly left of the target
    low2 = est2 = high2 = 0  # twice the areas, in units of 1 / (P * N)
    y = 0  # positives above the bin
    for k in range(full):
        n, p = c.neg[k], c.pos[k]
        diagonal = n * (2 * y + p)
        est2 += diagonal
        low2 += diagonal if c.single[k] else 2 * n * y
        high2 += diagonal if c.single[k] else 2 * n * (y + p)
        y += p
    lower, estimate, upper = Fraction(low2), Fraction(est2), Fraction(high2)
    used = target - (xs[full - 1] if full else 0)  # the cut bin's negatives left of the target
    if full < len(c.neg) and used > 0:
        n, p = c.neg[full], c.pos[full]  # n > 0: the target falls inside the bin
        cut = used * (2 * y + p * used / n)  # twice the diagonal's area up to the target
        estimate += cut
        lower += cut if c.single[full] else 2 * used * y
        upper += cut if c.single[full] else 2 * used * (y + p)
    whole = 2 * total_x * total_y
    return AreaBounds(lower / whole, estimate / whole, upper / whole)


class GapBounds(NamedTuple):
    """The KS statistic's bounds as gaps ``|Y * N - X * P|``, in units of ``1 / (P * N)``."""

    lower: int
    upper: int
    threshold: float  # the lowest score of the bin whose corner has the lower bound's gap


def ks_gaps(c: Corners) -> GapBounds:
    """The largest gap of the corners, and the largest a bin of several scores may hide.

    Needs both classes.  Of equal corner gaps, the highest threshold's.

    Examples
    --------
    >>> from dask_auc._kernels.states.bins import block_state
    >>> c = corners(block_state([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], max_bins=2))
    >>> ks_gaps(c)  # of 2 * 2 pairs; exact: 2 (tpr 0.5 at fpr 0, above 0.3)
    GapBounds(lower=2, upper=4, threshold=0.2)
    """
    total_x, total_y = c.total_neg, c.total_pos
    x = y = 0
    best, at, upper = -1, float("inf"), 0
    for k in range(len(c.neg)):
        before_x, before_y = x, y
        x, y = x + c.neg[k], y + c.pos[k]
        gap = abs(y * total_x - x * total_y)
        if gap > best:
            best, at = gap, c.thresholds[k]
        if not c.single[k]:  # the rectangle's top-left and bottom-right corners
            hidden = max(
                abs(y * total_x - before_x * total_y), abs(before_y * total_x - x * total_y)
            )
            upper = max(upper, hidden)
    best = max(best, 0)
    return GapBounds(best, max(best, upper), at)


def _cumulative(values: list[int]) -> list[int]:
    out, total = [], 0
    for v in values:
        total += v
        out.append(total)
    return out
