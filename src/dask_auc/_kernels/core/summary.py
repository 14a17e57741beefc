"""The partial summary of a contiguous run of score-sorted rows, and its merge.

A :class:`PartialROC` summarises a run of rows taken from the global order of
scores (descending).  Two summaries of *neighbouring* runs combine with
:func:`merge_adjacent`; the merge is associative with :meth:`PartialROC.empty`
as identity, but it is not commutative: the left argument must hold the higher
scores.  Unweighted summaries hold Python ints, so every merge is exact and the
final AUC does not depend on where the partitions were cut.

Weighted or float-valued sums that must not depend on the partitioning either
(average precision's terms, :func:`ratio_terms`; the per-sample metrics' rows)
are summed exactly as integers in units of ``2**-UNIT_BITS``
(:func:`exact_total`) and rounded once (:func:`as_float`, :func:`as_float_over`).

This module imports neither dask nor pandas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import reduce

import numpy as np

Number = int | float

#: every finite float64 is an integer number of units of ``2**-UNIT_BITS``
UNIT_BITS = 1126
MIN_EXPONENT = -1073  # np.frexp's exponent of the smallest subnormal
_MAX_EXPONENT = 1024
#: the length of :func:`total_of_halves`' arrays: one entry per exponent of ``np.frexp``
EXPONENTS = _MAX_EXPONENT - MIN_EXPONENT + 1
#: halves of 27 bits summed in float64 stay exact below 2**53: at most 2**25 values a pass
_PASS = 1 << 25


def pair_product(a: Number, b: Number, weight_exponent: int = 0) -> Number:
    """``a * b`` for two weight totals, in the pair units of ``weight_exponent``.

    Pair counts of weighted rows are sums of ``w_pos * w_neg``, which overflow
    for weights near ``1e160`` and underflow near ``1e-170`` although the AUC,
    a ratio, is well defined.  Every weight enters a product multiplied by
    ``2 ** weight_exponent`` (exact: a power of two), so pair counts are kept
    in units of ``2 ** (2 * weight_exponent)``; totals of weights are not scaled.

    Examples
    --------
    >>> pair_product(1e200, 3e200, -700) > 0, pair_product(2, 3)
    (True, 6)
    """
    if weight_exponent == 0:
        return a * b
    return math.ldexp(a, weight_exponent) * math.ldexp(b, weight_exponent)


@dataclass(frozen=True)
class TieGroup:
    """The rows of a run that share its top (or bottom) score."""

    score: float
    pos: Number
    neg: Number


@dataclass(frozen=True)
class PartialROC:
    """Summary of a run of rows, in descending score order.

    Attributes
    ----------
    pos, neg : int or float
        Count (or total weight) of positive and negative rows.
    strict : int or float
        Pairs (positive, negative) inside the run where the positive scores
        strictly higher (weighted: the sum of ``w_pos * w_neg``, in the units
        of :func:`pair_product`).
    tied : int or float
        Pairs (positive, negative) inside the run with equal scores.
    top, bottom : TieGroup or None
        The tie groups at the highest and the lowest score; ``None`` when the
        run is empty.  A merge needs them to correct for a tie group that
        straddles the boundary between two runs.
    weight_exponent : int
        Pair counts are in units of ``2 ** (2 * weight_exponent)``; 0 but for
        weights far from 1 (see :func:`pair_product`).  Runs that merge share it.
    """

    pos: Number
    neg: Number
    strict: Number
    tied: Number
    top: TieGroup | None
    bottom: TieGroup | None
    weight_exponent: int = 0

    @classmethod
    def empty(cls) -> PartialROC:
        """The identity of :func:`merge_adjacent`: an empty run."""
        return cls(0, 0, 0, 0, None, None)

    @property
    def is_empty(self) -> bool:
        return self.top is None

    @property
    def area(self) -> Number:
        """Area under the run's ROC staircase in count units (ties count 1/2)."""
        return self.strict + self.tied / 2

    @property
    def twice_area(self) -> Number:
        """``2 * area``; an exact int for unweighted runs."""
        return 2 * self.strict + self.tied

    def auc(self) -> float:
        """The run's AUC, ``area / (pos * neg)``; NaN when a class is missing.

        Unweighted counts are Python ints, whose division rounds once: the
        result is exact whatever the partitioning.

        Examples
        --------
        >>> PartialROC(2, 1, 1, 1, TieGroup(0.9, 1, 0), TieGroup(0.5, 1, 1)).auc()
        0.75
        """
        if self.pos == 0 or self.neg == 0:
            return float("nan")
        return float(self.twice_area / (2 * self.pairs()))

    def pairs(self) -> Number:
        """``pos * neg``, in the units of the pair counts."""
        return pair_product(self.pos, self.neg, self.weight_exponent)

    @property
    def is_single_group(self) -> bool:
        """True when every row of the run has the same score."""
        return (
            self.top is not None and self.bottom is not None and self.top.score == self.bottom.score
        )


def _joined(upper: TieGroup, lower: TieGroup) -> TieGroup:
    return TieGroup(upper.score, upper.pos + lower.pos, upper.neg + lower.neg)


def merge_adjacent(higher: PartialROC, lower: PartialROC) -> PartialROC:
    """Merge the summaries of two neighbouring runs.

    Parameters
    ----------
    higher : PartialROC
        The run whose scores are all ``>=`` those of ``lower``.
    lower : PartialROC
        The run that follows ``higher`` in descending score order.

    Returns
    -------
    PartialROC
        The summary of the concatenated run.

    Notes
    -----
    Every positive of ``higher`` outranks every negative of ``lower``, which
    lifts the area by ``higher.pos * lower.neg`` -- except for pairs inside a
    tie group straddling the boundary (``higher.bottom.score ==
    lower.top.score``), which count one half instead, in both directions.

    Examples
    --------
    >>> a = PartialROC(1, 0, 0, 0, TieGroup(0.9, 1, 0), TieGroup(0.9, 1, 0))
    >>> b = PartialROC(0, 1, 0, 0, TieGroup(0.2, 0, 1), TieGroup(0.2, 0, 1))
    >>> merge_adjacent(a, b).strict
    1
    """
    if higher.is_empty:
        return lower
    if lower.is_empty:
        return higher
    assert higher.top is not None and higher.bottom is not None
    assert lower.top is not None and lower.bottom is not None
    if higher.bottom.score < lower.top.score:
        raise ValueError(
            "merge_adjacent: the left run must hold the higher scores "
            f"(left bottom {higher.bottom.score!r} < right top {lower.top.score!r})"
        )
    exponent = higher.weight_exponent
    strict = higher.strict + lower.strict + pair_product(higher.pos, lower.neg, exponent)
    tied = higher.tied + lower.tied
    top, bottom = higher.top, lower.bottom
    if higher.bottom.score == lower.top.score:
        edge_high, edge_low = higher.bottom, lower.top
        strict -= pair_product(edge_high.pos, edge_low.neg, exponent)
        tied += pair_product(edge_high.pos, edge_low.neg, exponent)
        tied += pair_product(edge_low.pos, edge_high.neg, exponent)
        if higher.is_single_group:
            top = _joined(higher.top, lower.top)
        if lower.is_single_group:
            bottom = _joined(higher.bottom, lower.bottom)
        if higher.is_single_group and lower.is_single_group:
            bottom = top
    return PartialROC(
        higher.pos + lower.pos, higher.neg + lower.neg, strict, tied, top, bottom, exponent
    )


def merge_run(summaries: list[PartialROC]) -> PartialROC:
    """Merge a run of neighbouring summaries, given highest scores first."""
    return reduce(merge_adjacent, summaries, PartialROC.empty())


def drop_bottom_group(run: PartialROC) -> PartialROC:
    """The summary of ``run`` without the rows of its bottom tie group.

    Used by the partial AUC, which needs the rows scoring strictly above a
    threshold that may sit on a run's bottom edge.  The new bottom group is
    not recoverable from the summary, so the result keeps a bottom group with
    zero counts at the old score: merging it with a lower run stays exact
    (a zero-count group corrects nothing), but its ``bottom`` no longer names
    the lowest remaining score.
    """
    if run.is_empty or run.is_single_group:
        return PartialROC.empty()
    assert run.bottom is not None and run.top is not None
    group = run.bottom
    above_pos = run.pos - group.pos
    strict = run.strict - pair_product(above_pos, group.neg, run.weight_exponent)
    tied = run.tied - pair_product(group.pos, group.neg, run.weight_exponent)
    return replace(
        run,
        pos=above_pos,
        neg=run.neg - group.neg,
        strict=strict,
        tied=tied,
        bottom=TieGroup(group.score, 0, 0),
    )


Pair = tuple[Number, Number]


@dataclass(frozen=True)
class Neighbourhood:
    """What one bucket's neighbours hold, from the ordered scan :func:`neighbourhoods`.

    Counts are ``(positives, negatives)``, weighted when the rows are.

    Attributes
    ----------
    total : the whole data set.
    above : rows of all higher buckets.
    carried : rows of higher buckets scoring this bucket's top score (a tie
        group that continues from above); ``(0, 0)`` otherwise.
    continues : this bucket's bottom score opens the next non-empty bucket.
    next_group : rows scoring the next non-empty bucket's top score, in it and
        in the buckets below it that continue the tie; None when no non-empty
        bucket follows.
    """

    total: Pair
    above: Pair
    carried: Pair
    continues: bool
    next_group: Pair | None


def neighbourhoods(summaries: list[PartialROC]) -> list[Neighbourhood]:
    """The one ordered scan of bucket summaries (highest scores first) every metric uses.

    A bucket's own rows tell it nothing of the others; this scan tells each
    bucket the totals above it and the tie groups it shares with its
    neighbours (a heavy tie may be spread over several buckets).

    Examples
    --------
    >>> high = PartialROC(1, 1, 0, 1, TieGroup(0.9, 1, 0), TieGroup(0.5, 0, 1))
    >>> low = PartialROC(1, 0, 0, 0, TieGroup(0.5, 1, 0), TieGroup(0.5, 1, 0))
    >>> first, second = neighbourhoods([high, low])
    >>> first.continues, first.next_group, second.carried, second.above
    (True, (1, 0), (0, 1), (1, 1))
    """
    total: Pair = (sum(s.pos for s in summaries), sum(s.neg for s in summaries))
    above: Pair = (0, 0)
    carried: Pair = (0, 0)
    result = []
    for index, summary in enumerate(summaries):
        if summary.is_empty:
            result.append(Neighbourhood(total, above, carried, False, None))
            continue
        assert summary.bottom is not None
        lower = summaries[index + 1 :]
        below = next((s for s in lower if not s.is_empty), None)
        next_group = None
        continues = False
        if below is not None:
            assert below.top is not None
            next_group = _tie_chain(lower, below.top.score)
            continues = below.top.score == summary.bottom.score
        result.append(Neighbourhood(total, above, carried, continues, next_group))
        bottom = (summary.bottom.pos, summary.bottom.neg)
        if not continues:
            carried = (0, 0)
        elif summary.is_single_group:
            carried = (carried[0] + bottom[0], carried[1] + bottom[1])
        else:
            carried = bottom
        above = (above[0] + summary.pos, above[1] + summary.neg)
    return result


def _tie_chain(lower: list[PartialROC], score: float) -> Pair:
    """Rows scoring ``score`` at the top of the next buckets (a tie may span several)."""
    pos: Number = 0
    neg: Number = 0
    for summary in lower:
        if summary.is_empty:
            continue
        assert summary.top is not None
        if summary.top.score != score:
            break
        pos, neg = pos + summary.top.pos, neg + summary.top.neg
        if not summary.is_single_group:
            break
    return pos, neg


# -- exact sums of floats -------------------------------------------------------------------


def exact_total(values: np.ndarray) -> int:
    """The exact sum of finite floats, as an integer number of ``2**-UNIT_BITS``.

    Each value is ``m * 2**(e - 53)`` with an integer mantissa ``|m| < 2**53``
    (``np.frexp``); mantissas are split into halves whose float sums, grouped
    by exponent, stay exact.

    Examples
    --------
    >>> from fractions import Fraction
    >>> values = np.array([0.1, -3e300, 2.5e-320, 3e300, 7.0])
    >>> exact_total(values) == sum(Fraction(v) for v in values) * 2**UNIT_BITS
    True
    """
    values = np.asarray(values, dtype=np.float64).ravel()
    total = 0
    for start in range(0, len(values), _PASS):
        mantissa, exponent = np.frexp(values[start : start + _PASS])
        integer = (mantissa * 2.0**53).astype(np.int64)
        index = exponent - MIN_EXPONENT
        size = EXPONENTS
        high = np.bincount(index, weights=(integer >> 26).astype(np.float64), minlength=size)
        low = np.bincount(index, weights=(integer & ((1 << 26) - 1)).astype(np.float64))
        total += total_of_halves(high, np.pad(low, (0, size - len(low))))
    return total


def total_of_halves(high: np.ndarray, low: np.ndarray) -> int:
    """The exact total (units of ``2**-UNIT_BITS``) of mantissa halves summed by exponent.

    ``high[e]`` and ``low[e]`` are sums (exact: integers, as floats or int64) of
    the upper and lower 26 bits of the 53-bit integer mantissas of the values
    of ``np.frexp`` exponent ``e + MIN_EXPONENT`` (:func:`exact_total`, and the
    compiled average precision).

    Examples
    --------
    >>> high, low = np.zeros(EXPONENTS), np.zeros(EXPONENTS)
    >>> high[1 - MIN_EXPONENT] = 1 << 26  # 0.5 * 2**53 = 2**52: its upper bits, exponent 1
    >>> total_of_halves(high, low) == 1 << UNIT_BITS  # 1.0
    True
    """
    total = 0
    for i in np.flatnonzero((high != 0) | (low != 0)).tolist():
        shift = i + MIN_EXPONENT - 53 + UNIT_BITS
        total += ((int(high[i]) << 26) + int(low[i])) << shift
    return total


def as_float(total: int) -> float:
    """An exact total (in units of ``2**-UNIT_BITS``) rounded once to the nearest float.

    Examples
    --------
    >>> as_float(exact_total(np.array([0.1, 0.2])))
    0.30000000000000004
    """
    try:
        return total / (1 << UNIT_BITS)  # int / int: correctly rounded
    except OverflowError:  # beyond the largest float, as float sums overflow
        return math.inf if total > 0 else -math.inf


def as_float_over(total: int, divisor: Number) -> float:
    """An exact total (in units of ``2**-UNIT_BITS``) over a positive ``divisor``, rounded once.

    Examples
    --------
    >>> as_float_over(exact_total(np.array([1.0, 2.0 / 3])), 2)  # (1 + fl(2/3)) / 2
    0.8333333333333333
    >>> as_float_over(5 << UNIT_BITS, 6)  # 5/6, correctly rounded
    0.8333333333333334
    """
    numerator, denominator = Fraction(divisor).as_integer_ratio()
    try:
        return total * denominator / (numerator << UNIT_BITS)  # int / int: correctly rounded
    except OverflowError:
        return math.inf if total > 0 else -math.inf


#: Veltkamp's splitter for float64: ``x`` into two halves of 26 bits whose products are exact
SPLITTER = float(2**27 + 1)


def two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(p, e)``: ``p = fl(a * b)`` and ``p + e == a * b`` exactly (Dekker), barring overflow."""

    def halves(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        scaled = SPLITTER * x
        high = scaled - (scaled - x)
        return high, x - high

    product = a * b
    (a_high, a_low), (b_high, b_low) = halves(a), halves(b)
    error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    return product, error


def ratio_terms(gained: np.ndarray, asked: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """Floats whose exact sum is ``sum(gained * asked / predicted)``, to ~2**-104 relative.

    Average precision's terms ``g * P`` with ``P = a / b`` (positives gained,
    positives and rows at or above the threshold).  Integer (unweighted)
    counts: each term is written as three floats -- ``g * p`` split exactly
    into ``h + l`` (``p = fl(a / b)``, :func:`two_product`), and ``g * r / b``
    with ``r = a - p * b``, the division's remainder, itself an exact float
    (computed exactly from ``fl(p * b)`` and its error).  Only that last one,
    ~2**-53 of the term, is rounded: summed exactly (:func:`exact_total`) the
    terms are within ~2**-104 of the exact rational, so a ratio rounded once
    from them (:func:`as_float_over`) is the exact rational correctly rounded
    unless that lies within ~1e-31 (relative) of a midpoint between two floats.
    Weighted counts are floats already: each term is ``g * fl(a / b)``.
    Terms with nothing gained (or nothing predicted) are left out.

    Examples
    --------
    >>> from fractions import Fraction
    >>> terms = ratio_terms(np.array([1, 1]), np.array([1, 2]), np.array([1, 3]))
    >>> error = sum(map(Fraction, terms.tolist())) - Fraction(5, 3)  # 1 * 1/1 + 1 * 2/3
    >>> 0 < abs(error) < Fraction(5, 3) * 2**-104
    True
    """
    kept = (gained != 0) & (predicted > 0)
    g, a, b = (np.asarray(v[kept], dtype=np.float64) for v in (gained, asked, predicted))
    ratio = a / b
    if np.asarray(asked).dtype.kind == "f":
        return g * ratio
    high, error = two_product(ratio, b)
    remainder = (a - high) - error  # a - ratio * b, exactly (Sterbenz, then a float)
    if len(g) == 0 or g.max() == 1:  # distinct scores gain one positive each: g * p is exact
        return np.concatenate((ratio, remainder / b))
    head, tail = two_product(g, ratio)
    return np.concatenate((head, tail, g * remainder / b))
