"""Partial AUC over an FPR or a TPR interval, computed inside the interval, from bucket summaries.

The ROC curve runs through one point per tie group; inside a group it is the
straight segment between the group's two ends (scikit-learn's and pROC's
interpolation).  An interval's area is made of three parts, each computed
directly -- never as the difference of two areas from the origin, which
loses ``log10(1 / width)`` digits on a narrow interval:

* the rest of the tie group where the interval opens, from the opening rate on,
* the rows strictly between the two end groups (their summaries, merged), and
* the start of the group where it closes, up to the closing rate.

The scan of the bucket summaries (:func:`locate_crossings`) finds the bucket
holding each end's *crossing* row; that bucket, and a neighbour whose edge tie
group the crossing group may continue into, cut their rows there
(:func:`cut_bucket_at`); every other bucket is used through its summary alone
(:func:`interval_area`).

Counts, areas and rates are exact rationals: Python ints for unweighted rows
(whose summaries hold exact integers), so an unweighted partial AUC is the exact
area rounded once, the same bits for any partitioning; weighted summaries hold
float sums, which enter exactly as the rationals they are.

**Orientation.** An FPR interval ``[a, b]`` integrates the curve from the top
score down: ``x`` counts negatives, ``y`` positives.  A TPR interval ``[c, d]``
is pROC's ``partial.auc.focus="sensitivity"``: the area between the curve and
the line ``fpr = 1``.  Turned by half a turn about ``(1/2, 1/2)`` the curve is
the ROC curve read from the *bottom* score up with the classes swapped (``x``
counts positives, ``y`` negatives), and that area is its area over
``[1 - d, 1 - c]``: so the same code, in the other direction, computes it
directly too.  :func:`mcclish` standardises either with pROC's
``partial.auc.correct`` (McClish 1989, generalised to the interval).
Nothing here imports dask.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from ..core.summary import Number, PartialROC
from ..sort.buckets import Bucket, summarize_bucket
from ..sort.rows import SortedScores

#: an exact count or area: an int (see :func:`_fixed`), or a rational between them
Exact = int | Fraction

#: weighted counts are kept as integers in units of ``2 ** -FIXED_BITS``: every finite
#: float64 is a multiple of ``2 ** -1074``, so each weight sum is an exact integer there,
#: and each pair count (in units of ``2 ** (2 * weight_exponent)``, |exponent| < 1100) an
#: exact integer in units of ``2 ** (-2 * FIXED_BITS)``; Python ints add them exactly and
#: far faster than fractions
FIXED_BITS = 2200


def _bits(summaries: Sequence[PartialROC]) -> int:
    """The units of the counts: 0 (rows, exact ints) unless the summaries sum float weights."""
    exact = all(isinstance(s.pos, (int, np.integer)) for s in summaries)
    exact = exact and all(isinstance(s.neg, (int, np.integer)) for s in summaries)
    return 0 if exact else FIXED_BITS


def _fixed(value: Any, bits: int) -> int:
    """``value * 2 ** bits``, exactly, for an int or a float and ``bits`` of :func:`_bits`."""
    if isinstance(value, (int, np.integer)):
        return int(value) << bits
    numerator, denominator = float(value).as_integer_ratio()  # a power of two <= 2 ** 1074
    return numerator << (bits - denominator.bit_length() + 1)


class Edge(NamedTuple):
    """A run's first (or last) tie group in the direction of travel: its score and counts."""

    score: Any
    x: int
    y: int

    @classmethod
    def of(cls, score: Any, x: Number, y: Number, bits: int) -> Edge:
        return cls(score, _fixed(x, bits), _fixed(y, bits))


@dataclass(frozen=True)
class Run:
    """Rows contiguous in the direction of travel, with exact counts.

    ``area2`` is twice the run's own area in count units: each pair of a
    ``y`` row met strictly before an ``x`` row counts 2, each tied pair 1.
    """

    x: int
    y: int
    area2: int
    first: Edge
    last: Edge

    @property
    def single(self) -> bool:
        """Every row of the run has one score."""
        return self.first.score == self.last.score

    @classmethod
    def of(cls, summary: PartialROC, swap: bool, bits: int) -> Run:
        """The run of a (non-empty) summary, from the top score down, or from the bottom up.

        Counts in units of ``2 ** -bits``, ``area2`` in their squares.
        """
        assert summary.top is not None and summary.bottom is not None
        # pair counts are in units of 2 ** (2 * weight_exponent): see pair_product
        pair_bits = 2 * bits - 2 * summary.weight_exponent
        area2 = 2 * _fixed(summary.strict, pair_bits) + _fixed(summary.tied, pair_bits)
        top, bottom = summary.top, summary.bottom
        pos, neg = _fixed(summary.pos, bits), _fixed(summary.neg, bits)
        if swap:  # from the bottom up: the pairs a negative meets first are the same pairs
            first, last = Edge.of(bottom.score, bottom.pos, bottom.neg, bits), top
            return cls(pos, neg, area2, first, Edge.of(last.score, last.pos, last.neg, bits))
        first, last = Edge.of(top.score, top.neg, top.pos, bits), bottom
        return cls(neg, pos, area2, first, Edge.of(last.score, last.neg, last.pos, bits))

    @classmethod
    def group(cls, score: Any, x: Number, y: Number, bits: int) -> Run:
        """A tie group: every pair in it is tied."""
        edge = Edge.of(score, x, y, bits)
        return cls(edge.x, edge.y, edge.x * edge.y, edge, edge)


def _travel(summaries: Sequence[PartialROC], swap: bool) -> list[int]:
    """Bucket indices in the direction of travel (buckets are highest scores first)."""
    order = list(range(len(summaries)))
    return order[::-1] if swap else order


def _ends(fractions: tuple[float, float], swap: bool) -> tuple[Fraction, Fraction]:
    """The interval on the travelled ``x`` axis, exactly: ``[1 - d, 1 - c]`` for TPRs."""
    low, high = Fraction(fractions[0]), Fraction(fractions[1])
    return (1 - high, 1 - low) if swap else (low, high)


@dataclass(frozen=True)
class CutRequest:
    """What one bucket cuts out of its rows for the interval's two ends.

    ``budgets[i]``: end ``i``'s crossing row is the first ``x`` row of this
    bucket (in the direction of travel) after whose weight the bucket's rows
    pass the budget (in units of ``2 ** -bits``, :func:`_bits`); None if that
    row is in another bucket.  ``splits``: scores of edge tie groups to cut
    out, which an end's group may continue.
    """

    budgets: tuple[Exact | None, ...]
    splits: tuple[Any, ...]
    bits: int


def locate_crossings(
    summaries: list[PartialROC], fractions: tuple[float, float], swap: bool = False
) -> list[CutRequest | None]:
    """The scan of the bucket summaries for the buckets each end of the interval falls in.

    An end at rate ``f`` (of the travelled axis) falls in the tie group of
    the first ``x`` row whose cumulative ``x`` passes ``f * X``, compared
    exactly; an end at 0 or 1 is the start or the end of the curve and needs
    no cut.  One entry per bucket, None for most; None everywhere when the
    curve is undefined (a class of no weight).
    """
    bits = _bits(summaries)
    runs = [
        (b, Run.of(summaries[b], swap, bits))
        for b in _travel(summaries, swap)
        if not summaries[b].is_empty
    ]
    found: list[CutRequest | None] = [None] * len(summaries)
    total_x = sum((run.x for _, run in runs), 0)
    if total_x == 0 or sum((run.y for _, run in runs), 0) == 0:
        return found
    budgets: dict[int, list[Exact | None]] = {}
    splits: dict[int, set[Any]] = {}
    for end, rate in enumerate(_ends(fractions, swap)):
        if rate in (0, 1):
            continue
        target, i = rate * total_x, 0
        before: Exact = 0
        while before + runs[i][1].x <= target:  # ends before the last x row, as rate < 1
            before += runs[i][1].x
            i += 1
        b, run = runs[i]
        budgets.setdefault(b, [None, None])[end] = target - before
        # the crossing group may be an edge group continued by neighbours: they cut it out
        for step, score in ((-1, run.first.score), (1, run.last.score)):
            k = i + step
            while 0 <= k < len(runs):
                neighbour = runs[k][1]
                if (neighbour.last if step < 0 else neighbour.first).score != score:
                    break
                if not neighbour.single:
                    splits.setdefault(runs[k][0], set()).add(score)
                    break
                k += step  # a bucket all in the group is the group: its summary says so
    for b in set(budgets) | set(splits):
        end_budgets = tuple(budgets.get(b, [None, None]))
        found[b] = CutRequest(end_budgets, tuple(sorted(splits.get(b, ()))), bits)
    return found


@dataclass(frozen=True)
class BucketPieces:
    """A bucket's rows cut around the ends' tie groups, in the direction of travel.

    ``scores[i]``: the score of end ``i``'s crossing group, if its crossing row
    is here.  ``pieces``: the rows before, at and after each cut score, each
    piece summarised from its own rows (empty pieces left out).
    """

    scores: tuple[Any, ...]
    pieces: tuple[Run, ...] = field(default=())


def cut_bucket_at(
    bucket: Bucket, request: CutRequest | None, swap: bool = False
) -> BucketPieces | None:
    """Cut a bucket as :func:`locate_crossings` asked; every other bucket returns None at once."""
    if request is None:
        return None
    x_part = bucket.pos if swap else bucket.neg
    scores: list[Any] = []
    cuts = set(request.splits)
    for budget in request.budgets:
        score = None
        if budget is not None:
            score = _crossing_score(x_part, budget, request.bits, from_top=not swap)
            cuts.add(score)
        scores.append(score)
    pieces = _pieces(bucket, sorted(cuts), swap, request.bits)
    return BucketPieces(tuple(scores), tuple(pieces))


def _crossing_score(part: SortedScores, budget: Exact, bits: int, *, from_top: bool) -> Any:
    """Score of the first row (in travel order) whose running weight passes ``budget``.

    Row counts and integer multiplicities (``bits`` 0) decide exactly; float
    weights by their running sum (a row off by rounding lands on the
    neighbouring tie group's edge, where :func:`interval_area` clamps the
    position: the area is continuous there).
    """
    n = len(part)
    if part.weights is None:
        passed = math.floor(budget) + 1  # rows up to and including the crossing one
    else:
        running = np.cumsum(part.weights[::-1] if from_top else part.weights)
        limit = math.floor(budget) if part.counted else float(Fraction(budget, 1 << bits))
        passed = int(np.searchsorted(running, limit, "right")) + 1
    passed = min(passed, n)
    return part.scores[n - passed if from_top else passed - 1].item()


def _pieces(bucket: Bucket, cut_scores: list[Any], swap: bool, bits: int) -> list[Run]:
    """The bucket's rows around ``cut_scores`` (ascending), as runs in the direction of travel."""
    parts = (bucket.pos, bucket.neg)
    # ascending row ranges: below the first score, at it, between it and the next, ...
    bounds = [[0] for _ in parts]
    for score in cut_scores:
        for c, part in enumerate(parts):
            bounds[c] += [
                int(np.searchsorted(part.scores, score, "left")),
                int(np.searchsorted(part.scores, score, "right")),
            ]
    for c, part in enumerate(parts):
        bounds[c].append(len(part))
    runs: list[Run] = []
    for j in range(2 * len(cut_scores) + 1):
        pos, neg = (part.slice(bounds[c][j], bounds[c][j + 1]) for c, part in enumerate(parts))
        if len(pos) == 0 and len(neg) == 0:
            continue
        if j % 2:  # a cut tie group
            x, y = (pos.total, neg.total) if swap else (neg.total, pos.total)
            runs.append(Run.group(cut_scores[j // 2], x, y, bits))
        else:
            piece = Bucket.binary(pos, neg, bucket.weight_exponent, bucket.compiled)
            runs.append(Run.of(summarize_bucket(piece), swap, bits))
    return runs if swap else runs[::-1]


def _joined(runs: Sequence[Run]) -> tuple[int, int, int]:
    """``(x, y, area2)`` of consecutive runs, as :func:`~.summary.merge_adjacent`.

    A tie group split between two runs counts its pairs across the split as tied.
    """
    x = y = area2 = 0
    last: Edge | None = None
    for run in runs:
        area2 += run.area2 + 2 * y * run.x
        if last is not None and last.score == run.first.score:
            # pairs across the split counted 2 (y first) or 0 (x first): each is tied, 1
            area2 += run.first.y * last.x - last.y * run.first.x
            if run.single:
                last = Edge(last.score, last.x + run.x, last.y + run.y)
            else:
                last = run.last
        else:
            last = run.last
        x, y = x + run.x, y + run.y
    return x, y, area2


def _totals(runs: Sequence[Run]) -> tuple[int, int]:
    return sum((run.x for run in runs), 0), sum((run.y for run in runs), 0)


def _clamped(value: Exact, high: Exact) -> Exact:
    return min(max(value, 0), high)


def interval_area(
    summaries: list[PartialROC],
    requests: list[CutRequest | None],
    cuts: list[BucketPieces | None],
    fractions: tuple[float, float],
    swap: bool = False,
) -> tuple[Exact | float, Number, Number]:
    """pROC's raw partial area over ``fractions = (low, high)``, exactly, with P and N.

    False positive rates: the area under the curve over ``low <= fpr <= high``
    (pROC's specificity focus).  True positive rates (``swap``): the area
    between the curve and the line ``fpr = 1`` over ``low <= tpr <= high``
    (pROC's sensitivity focus).  A fraction of the unit square, exact (a
    :class:`~fractions.Fraction`, or an int); nan when the curve is undefined.
    ``requests`` and ``cuts`` hold one entry per bucket, from
    :func:`locate_crossings` and :func:`cut_bucket_at` with the same
    ``fractions`` and ``swap``.
    """
    total_pos = sum(s.pos for s in summaries)
    total_neg = sum(s.neg for s in summaries)
    bits = _bits(summaries)
    runs: list[Run] = []
    for b in _travel(summaries, swap):
        cut = cuts[b]
        if cut is not None:
            runs.extend(cut.pieces)
        elif not summaries[b].is_empty:
            runs.append(Run.of(summaries[b], swap, bits))
    total_x, total_y = _totals(runs)
    if total_x == 0 or total_y == 0:
        return float("nan"), total_pos, total_neg
    spans = []  # each end's tie group: runs[start:stop]
    for end, rate in enumerate(_ends(fractions, swap)):
        if rate in (0, 1):  # the start or the end of the curve
            spans.append((0, 0) if rate == 0 else (len(runs), len(runs)))
            continue
        score = next(c.scores[end] for c in cuts if c is not None and c.scores[end] is not None)
        at = [i for i, run in enumerate(runs) if run.single and run.first.score == score]
        spans.append((at[0], at[-1] + 1))
    (a_start, a_stop), (b_start, b_stop) = spans
    low, high = (rate * total_x for rate in _ends(fractions, swap))
    x0, y0 = _totals(runs[:a_start])  # the rows before the opening group
    gx, gy = _totals(runs[a_start:a_stop])
    opening = _clamped(low - x0, gx)  # where the interval opens in that group
    pairs = total_x * total_y
    if (a_start, a_stop) == (b_start, b_stop):  # one tie group holds both ends
        closing = _clamped(high - x0, gx)
        area = (closing - opening) * (y0 + Fraction(gy * (opening + closing), 2 * gx))
        return area / pairs, total_pos, total_neg
    # in a group the curve is the line y0 + gy * u / gx, u from 0 to gx: from the opening on ...
    area = Fraction(0)
    if gx:
        area += (gx - opening) * (y0 + Fraction(gy * (opening + gx), 2 * gx))
    # ... the rows strictly between the two groups, at height y0 + gy and above ...
    mx, my, m_area2 = _joined(runs[a_stop:b_start])
    area += (y0 + gy) * mx + Fraction(m_area2, 2)
    # ... and the closing group from its start up to the interval's end
    x0, y0 = x0 + gx + mx, y0 + gy + my
    gx, gy = _totals(runs[b_start:b_stop])
    closing = _clamped(high - x0, gx)
    if gx:
        area += closing * (y0 + Fraction(gy * closing, 2 * gx))
    return area / pairs, total_pos, total_neg


def mcclish(
    partial: Exact | float, max_fpr: float, low: float = 0.0, *, swap: bool = False
) -> float:
    """Standardise a partial AUC so that chance is 0.5 and perfect is 1 (McClish 1989).

    pROC's ``partial.auc.correct``: ``(1 + (area - min) / (max - min)) / 2``
    over the interval ``[low, max_fpr]``, ``max = max_fpr - low`` its width
    and ``min`` the chance diagonal's area over it, on the focus axis.

    * False positive rates: ``partial`` is the area under the curve and
      ``min = D = (max_fpr**2 - low**2) / 2``.  With ``low = 0`` this is
      scikit-learn's ``max_fpr`` formula in floats, to the last bit.
    * True positive rates (``swap``): ``partial`` is pROC's area between the
      curve and ``fpr = 1`` (see :func:`interval_area`), and
      ``min = max - D``: the result is ``(1 + (area - max + D) / D) / 2``.

    Apart from scikit-learn's case, the formula is evaluated in exact
    rational arithmetic from ``partial`` (exact itself for unweighted rows),
    rounded once.  A curve below the diagonal gives less than 0.5
    (scikit-learn's behaviour; pROC returns NA unless
    ``allow.invalid.partial.auc.correct``).

    Examples
    --------
    >>> mcclish(0.5 * 0.3**2, 0.3), mcclish(0.375, 1.0, 0.5), mcclish(0.5, 1.0, 0.5)
    (0.5, 0.5, 1.0)
    >>> mcclish(0.125, 1.0, 0.5, swap=True), mcclish(0.5, 1.0, 0.5, swap=True)
    (0.5, 1.0)
    """
    if not swap and low == 0:
        min_area = 0.5 * max_fpr**2
        return 0.5 * (1 + (float(partial) - min_area) / (max_fpr - min_area))
    if partial != partial:  # nan: undefined
        return float(partial)
    high, start, area = Fraction(max_fpr), Fraction(low), Fraction(partial)
    width, diagonal = high - start, (high * high - start * start) / 2
    if swap:
        return float((1 + (area - width + diagonal) / diagonal) / 2)
    return float((1 + (area - diagonal) / (width - diagonal)) / 2)
