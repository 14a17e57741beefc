"""Every group's class totals and twice its ROC area, in one vectorized pass.

:func:`group_pair_sums` is pure NumPy with no loop over groups: a stable
radix sort by (group, dense score rank) (:func:`radix_order`: tied rows are
summed in their own order on every CPU); runs of equal (group, score) are the
tie groups; ``np.add.reduceat`` gives each run's positive and negative
totals, an exclusive prefix sum restarted at every group start gives the
negatives ranked below each run, and a run contributes ``pos * (2 * below +
neg)`` to its group's twice-area (a tie counts one half).  Unweighted,
everything is an int64 count and the AUC is one correctly rounded division
(:func:`exact_ratio`); where numba runs, a counting sort by group does the same
(:func:`grouped_pair_counts`).  Weighted, the
prefix sum is compensated (:func:`compensated_cumsum`) so that a small group
late in a big bucket does not lose digits to the bucket's running total.
Extreme weights (beyond ``2**±256``, or groups whose weights differ by more
than ``2**32``) are first scaled per group and class by a power of two
(:func:`class_exponents`), which changes no AUC: no product of two weights
overflows or underflows, and no group is far lighter than the ones before it.

Nothing here imports dask.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.footprint import SizedByArrays
from ..sort.buckets import pair_counts
from ..sort.compiled import usable
from ..sort.rows import SortedScores

#: the exact-integer range of float64: counts below it divide with one rounding
_EXACT_FLOAT = 2**53


#: weights whose largest per group and class lies in ``[2**-256, 2**256]`` are
#: used as they are: a pair product stays in [2**-1024, 2**1024] times the row counts
SAFE_EXPONENT = 256


#: ... and whose groups' largest negative weights are within 2**32 of each other:
#: the negatives' running sum crosses group borders, and a group 2**56 times lighter
#: than 2e6 rows before it loses 3e-10 of its AUC (2**32: 1e-16)
SPREAD_EXPONENT = 32


@dataclass(frozen=True)
class GroupSums(SizedByArrays):
    """Per-group totals of one bucket, indexed by group code.

    When :func:`class_exponents` scaled extreme weights, the weighted totals
    are of the scaled weights: the true totals are ``pos * 2**pos_exponent``
    and ``neg * 2**neg_exponent`` (:meth:`totals`).
    """

    pos: np.ndarray  # positive count (int64) or weight (float64)
    neg: np.ndarray
    twice_area: np.ndarray  # 2 * (pairs pos > neg) + (pairs pos == neg), weighted if weights
    pos_exponent: np.ndarray | None = None  # int per group; None: not scaled
    neg_exponent: np.ndarray | None = None

    def auc(self) -> np.ndarray:
        """``twice_area / (2 pos neg)``, NaN where a class is missing; exact if unweighted.

        A scale of the positives' (or the negatives') weights cancels out.
        """
        return exact_ratio(self.twice_area, 2 * self.pos * self.neg)

    def totals(self) -> tuple[np.ndarray, np.ndarray]:
        """The positive and negative totals of every group, unscaled."""
        if self.pos_exponent is None or self.neg_exponent is None:
            return self.pos, self.neg
        # exact: a power of two, unless the true total overflows (inf) or is subnormal
        return np.ldexp(self.pos, self.pos_exponent), np.ldexp(self.neg, self.neg_exponent)


def group_pair_sums(
    codes: np.ndarray,
    n_groups: int,
    scores: np.ndarray,
    positive: np.ndarray,
    weights: np.ndarray | None = None,
    *,
    compiled: bool = True,
) -> GroupSums:
    """Every group's positive and negative totals and twice its ROC area, in one pass.

    Parameters
    ----------
    codes : int array
        Group code of each row, in ``range(n_groups)``.
    scores : array
        Each row's score.
    positive : bool array
        Whether each row is of the positive class.
    weights : float array, optional
        Row weights; without them every row counts 1 and all sums are exact int64.
        Extreme weights are scaled by a power of two per group and class
        (:func:`class_exponents`) so that no pair product overflows or
        underflows; the sums are then of the scaled weights and carry the
        exponents (:meth:`GroupSums.totals` undoes them).
    compiled : bool, default True
        Unweighted, use the compiled loop where numba is installed
        (:func:`grouped_pair_counts`: a counting
        sort by group and a small sort per group instead of two sorts of the
        bucket); the same exact counts either way.

    Examples
    --------
    >>> codes = np.array([0, 0, 0, 1, 1, 0])
    >>> scores = np.array([0.1, 0.5, 0.5, 0.3, 0.2, 0.9])
    >>> positive = np.array([False, True, False, True, False, True])
    >>> sums = group_pair_sums(codes, 2, scores, positive)
    >>> sums.pos, sums.neg, sums.twice_area, sums.auc()
    (array([2, 1]), array([2, 1]), array([7, 2]), array([0.875, 1.   ]))
    """
    dtype = np.int64 if weights is None else np.float64
    pos_total = np.zeros(n_groups, dtype)
    neg_total, twice_area = np.zeros_like(pos_total), np.zeros_like(pos_total)
    if len(codes) == 0:
        return GroupSums(pos_total, neg_total, twice_area)
    if weights is None and compiled:
        counted = grouped_pair_counts(codes, n_groups, scores, positive)
        if counted is not None:
            return GroupSums(*counted)
    exponents = None
    if weights is not None:
        exponents = class_exponents(codes, n_groups, positive, weights)
        if exponents is not None:
            weights = np.ldexp(weights, -exponents[positive.astype(np.intp), codes])
    tie_key, n_scores = _group_score_key(codes, n_groups, scores)
    if weights is None:
        # (group, score rank, class) packed in an int64, sorted by radix passes
        packed = tie_key * 2 + positive
        del tie_key  # freed before the sort's buffers are taken
        packed = packed[radix_order(packed, 2 * n_groups * n_scores)]
        tie_key = packed >> 1
        pos_row = packed & 1
        neg_row = 1 - pos_row
    else:
        # rows of one (group, score) keep their order: their weights are summed in
        # it, the same on every CPU and whatever other groups share the bucket
        order = radix_order(tie_key, n_groups * n_scores)
        tie_key = tie_key[order]
        positive, weights = positive[order], weights[order]
        pos_row = np.where(positive, weights, 0.0)
        neg_row = np.where(positive, 0.0, weights)
    # a run is a tie group: rows of equal (group, score), adjacent after the sort
    new_run = np.empty(len(tie_key), dtype=bool)
    new_run[0] = True
    np.not_equal(tie_key[1:], tie_key[:-1], out=new_run[1:])
    run_start = np.flatnonzero(new_run)
    run_pos = np.add.reduceat(pos_row, run_start)
    run_neg = np.add.reduceat(neg_row, run_start)
    run_group = tie_key[run_start] // n_scores
    group_start = np.flatnonzero(np.diff(run_group, prepend=-1))
    below = _prefix_within_groups(run_neg, group_start)
    run_twice = run_pos * (2 * below + run_neg)
    present = run_group[group_start]
    pos_total[present] = np.add.reduceat(run_pos, group_start)
    neg_total[present] = np.add.reduceat(run_neg, group_start)
    twice_area[present] = np.add.reduceat(run_twice, group_start)
    if exponents is None:
        return GroupSums(pos_total, neg_total, twice_area)
    return GroupSums(pos_total, neg_total, twice_area, exponents[1], exponents[0])


#: groups of more rows are counted by :func:`sorted_twice_area` (NumPy's sort: ~40 us of calls a
#: group, then ~9 ns a row) rather than by the compiled loop's binary searches (~20-40 ns a row)
LARGE_GROUP_ROWS = 1024


def grouped_pair_counts(
    codes: np.ndarray, n_groups: int, scores: np.ndarray, positive: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Unweighted per-group (positives, negatives, twice the area) by one counting sort, or None.

    The compiled twin (:mod:`dask_auc._kernels.groups._numba`) of
    :func:`group_pair_sums` without weights: exact int64 counts, the same numbers.
    """
    counted = grouped_pair_counts_many(codes, n_groups, scores[:, np.newaxis], positive)
    return None if counted is None else (counted[0], counted[1], counted[2][0])


def grouped_pair_counts_many(
    codes: np.ndarray, n_groups: int, scores: np.ndarray, positive: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`grouped_pair_counts` of every column of a 2-D ``scores``, one counting sort; or None.

    Returns the groups' positives and negatives (every column's) and twice
    each column's area (row ``i`` for column ``i``): exact int64 counts, the
    numbers of :func:`grouped_pair_counts` of each column alone.

    Examples
    --------
    >>> scores = np.array([[0.1, 3], [0.5, 1], [0.5, 1], [0.3, 2]])
    >>> counted = grouped_pair_counts_many(
    ...     np.array([0, 0, 0, 1]), 2, scores, np.array([False, True, False, True]))
    >>> counted is None or [c.tolist() for c in counted] == [[1, 1], [2, 0], [[3, 0], [1, 0]]]
    True
    """
    kernel = usable(True, "groups", scores)
    if kernel is None:
        return None
    pos, neg = np.zeros(n_groups, np.int64), np.zeros(n_groups, np.int64)
    twice = np.zeros((scores.shape[1], n_groups), np.int64)
    scores = np.ascontiguousarray(scores)
    values = np.empty_like(scores)  # NumPy's: huge pages for the loop's scattered writes
    starts = kernel.grouped_pair_counts(
        codes.astype(np.int64, copy=False),
        n_groups,
        scores,
        positive.view(np.uint8),
        pos,
        neg,
        twice,
        LARGE_GROUP_ROWS,
        values,
    )
    large = np.flatnonzero((pos > 0) & (neg > 0) & (pos + neg > LARGE_GROUP_ROWS))
    for g in large.tolist():  # the heavy users the loop left: by NumPy's sort
        first, middle, stop = starts[2 * g], starts[2 * g + 1], starts[2 * g + 2]
        for i in range(values.shape[1]):
            twice[i, g] = sorted_twice_area(values[first:middle, i], values[middle:stop, i])
    return pos, neg, twice


def sorted_twice_area(negatives: np.ndarray, positives: np.ndarray) -> int:
    """Twice the ROC area's pair count of one group: ``2 * (pos > neg) + (pos == neg)``.

    Both classes sorted by NumPy (its SIMD sort), then counted as a sorted
    bucket's classes are (:func:`~dask_auc._kernels.sort.buckets.pair_counts`:
    one compiled merge, else binary searches): exact integers, a tie counting
    one half.

    Examples
    --------
    >>> sorted_twice_area(np.array([0.1, 0.5, 0.5]), np.array([0.5, 0.9]))  # 4 above, 2 tied
    10
    """
    above, tied = pair_counts(
        SortedScores(np.sort(positives)), SortedScores(np.sort(negatives)), compiled=True
    )
    return 2 * int(above) + int(tied)


def class_exponents(
    codes: np.ndarray, n_groups: int, positive: np.ndarray, weights: np.ndarray
) -> np.ndarray | None:
    """Per class and group, the power of two that brings the largest weight to [0.5, 1).

    A group's AUC does not change when the weights of one class are all
    multiplied by one number, and a power of two multiplies exactly.  Scaled
    so, a group's pair products and its running sums stay within its row
    count, whatever its weights and those of the groups beside it.  Only
    products below ``2**-1074`` (the smallest float) of two scaled weights,
    each at most 1, are lost: far below the AUC's last digit.

    Returns
    -------
    exponents : int array of shape (2, n_groups), or None
        Row 0 for the negatives, row 1 for the positives (0 where a class has
        no weight).  None for ordinary weights, used as they are, bit for bit
        as without this function: every group's and class's largest weight
        lies in ``[2**-SAFE_EXPONENT, 2**SAFE_EXPONENT]``, and the groups'
        largest negative weights lie within ``2**SPREAD_EXPONENT`` of each
        other (the negatives' running sum, compensated, runs over the whole
        bucket: a group far lighter than those before it would lose digits).

    Examples
    --------
    >>> class_exponents(np.array([0, 0]), 1, np.array([True, False]), np.array([1e160, 3.0]))
    array([[  2],
           [532]], dtype=int32)
    """
    # the whole bucket first, cheap: the largest weights are as tame as all weights are
    if ordinary_weights(weights):
        return None
    largest = np.zeros((2, n_groups))
    np.maximum.at(largest, (positive.astype(np.intp), codes), weights)
    if ordinary_weights(largest[0]) and ordinary_weights(largest[1], spread=False):
        return None
    return np.frexp(largest)[1]


def ordinary_weights(weights: np.ndarray, spread: bool = True) -> bool:
    """Nonzero weights all in ``2**±SAFE_EXPONENT`` (and within ``2**SPREAD_EXPONENT``)."""
    top = weights.max()
    if top == 0:
        return True
    smallest = np.min(weights, where=weights > 0, initial=top)
    if smallest < np.ldexp(1.0, -SAFE_EXPONENT) or top > np.ldexp(1.0, SAFE_EXPONENT):
        return False
    return not spread or bool(top <= np.ldexp(smallest, SPREAD_EXPONENT))


def _group_score_key(
    codes: np.ndarray, n_groups: int, scores: np.ndarray
) -> tuple[np.ndarray, int]:
    """``code * n_scores + dense rank of the score``: sorting it sorts by (group, score).

    The dense ranks come from ``pandas.factorize(..., sort=True)``: a hash of
    the scores and a sort of the distinct ones only (``-0.0`` and ``0.0`` are
    one score), several times faster than an ``argsort`` of tied scores.
    """
    rank, distinct = pd.factorize(scores, sort=True)
    n_scores = max(1, len(distinct))
    if n_groups * n_scores >= 2**62:  # beyond any bucket that fits in memory
        raise OverflowError(f"{n_groups} groups x {n_scores} distinct scores in one bucket")
    return codes * n_scores + rank, n_scores


#: bits of one pass of :func:`radix_order` (NumPy's stable sort of 16-bit integers is a radix sort)
_RADIX_BITS = 16


def radix_order(keys: np.ndarray, bound: int) -> np.ndarray:
    """The stable ascending order of non-negative int64 (or uint64) ``keys`` below ``bound``.

    A least-significant-digit radix sort: one stable ``argsort`` of 16-bit
    digits per 16 bits of ``bound`` (a key of 30 bits takes two passes, each
    a counting sort in NumPy), rather than a comparison sort of the int64
    keys.  Rows of equal keys keep their order, as with ``kind="stable"``.

    Examples
    --------
    >>> radix_order(np.array([70000, 3, 70000, 1]), 70001).tolist()
    [3, 1, 0, 2]
    """
    passes = max(1, -(-max(1, int(bound - 1).bit_length()) // _RADIX_BITS))
    if passes > 3:  # wide keys: a comparison sort is as fast
        return np.argsort(keys, kind="stable")
    order = np.argsort(keys.astype(np.uint16), kind="stable")  # the low 16 bits
    for shift in range(_RADIX_BITS, passes * _RADIX_BITS, _RADIX_BITS):
        # the digit gathered as 16 bits, not the int64 keys: a quarter of the memory
        digit = (keys >> shift).astype(np.uint16)[order]
        order = order[np.argsort(digit, kind="stable")]
    return order


def _prefix_within_groups(values: np.ndarray, group_start: np.ndarray) -> np.ndarray:
    """Sum of the earlier ``values`` of the same group (exclusive prefix, restarted per group)."""
    before = np.concatenate((values[:0], [0], values[:-1])).astype(values.dtype, copy=False)
    runs_per_group = np.diff(np.append(group_start, len(values)))
    if values.dtype.kind != "f":
        total = np.cumsum(before)
        return total - np.repeat(total[group_start], runs_per_group)
    high, low = compensated_cumsum(before)
    return (high - np.repeat(high[group_start], runs_per_group)) + (
        low - np.repeat(low[group_start], runs_per_group)
    )


def compensated_cumsum(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.cumsum`` plus the running sum of its rounding errors: ``high + low`` is the prefix sum.

    ``np.cumsum`` adds one value at a time, so each step's rounding error is
    recovered exactly by Knuth's TwoSum from the step's inputs and output.  The
    difference of two prefix sums, ``(high[j] - high[i]) + (low[j] - low[i])``,
    is then accurate relative to the *difference*, however large the running
    total is.

    Examples
    --------
    >>> high, low = compensated_cumsum(np.array([1e16, 1.0, 1.0]))
    >>> float(high[2] - high[0]), float((high[2] - high[0]) + (low[2] - low[0]))
    (0.0, 2.0)
    """
    high = np.cumsum(values)
    previous = np.concatenate(([0.0], high[:-1]))
    added = high - previous  # the part of values[i] the step actually added
    kept = high - added
    error = (previous - kept) + (values - added)
    return high, np.cumsum(error)


def exact_ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` per element, NaN where the denominator is 0.

    Integer inputs are divided with a single rounding: in float64 while both
    fit its exact-integer range, with Python integers beyond it.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = numerator / denominator
    ratio = np.where(denominator == 0, np.nan, ratio)
    if numerator.dtype.kind in "iu" and len(ratio):
        large = np.flatnonzero((denominator >= _EXACT_FLOAT) | (numerator >= _EXACT_FLOAT))
        for i in large:  # only groups with more than ~1e8 rows get here
            ratio[i] = int(numerator[i]) / int(denominator[i])
    return ratio
