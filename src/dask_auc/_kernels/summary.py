"""The partial summary of a contiguous run of score-sorted rows, and its merge.

A :class:`PartialROC` summarises a run of rows taken from the global order of
scores (descending).  Two summaries of *neighbouring* runs combine with
:func:`merge_adjacent`; the merge is associative with :meth:`PartialROC.empty`
as identity, but it is not commutative: the left argument must hold the higher
scores.  Unweighted summaries hold Python ints, so every merge is exact and the
final AUC does not depend on where the partitions were cut.

This module imports neither dask nor pandas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import reduce

Number = int | float


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
