"""Partial AUC up to ``max_fpr`` (McClish-standardised), from bucket summaries.

scikit-learn cuts the ROC curve at ``fpr == max_fpr``, interpolating linearly
inside the tie group that crosses it.  In row terms that group holds the first
negative, in descending score order, whose cumulative negative weight exceeds
``max_fpr * N``.  Its score ``s*`` splits the data into the rows above it
(whose summary gives the area before the cut), the tie group itself, and the
rows below (which do not matter).

Only the bucket holding that negative needs its rows looked at again
(:func:`cut_bucket`); every other bucket is placed from its summary alone.

The partial AUC over any interval generalises this to two cut points
(:func:`locate_crossings`, :func:`cut_bucket_at`, :func:`interval_area`):

* an FPR interval ``[a, b]`` is ``A(b) - A(a)``, ``A(x)`` the area under the
  curve over ``fpr <= x`` (the cut above; ``A(0) = 0`` is not computed);
* a TPR interval ``[c, d]`` is integrated the other way, as R's pROC does with
  ``partial.auc.focus="sensitivity"``: the area between the curve and the line
  ``fpr = 1`` over ``c <= tpr <= d``, that is ``(d - c) - (B(d) - B(c))``, where
  ``B(y)``, the area left of the curve over ``tpr <= y``, is ``A(y)`` of the same
  rows with the classes swapped (:func:`swap_classes`).

:func:`mcclish` standardises either with pROC's ``partial.auc.correct``
(McClish 1989, generalised to the interval).
Nothing here imports dask.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from .sort import Bucket, SortedScores, _total_equal, summarize_bucket
from .summary import (
    Number,
    PartialROC,
    TieGroup,
    drop_bottom_group,
    merge_adjacent,
    merge_run,
    neighbourhoods,
    pair_product,
)


@dataclass(frozen=True)
class Crossing:
    """Which bucket holds the negative that crosses ``max_fpr * N``."""

    bucket: int
    pos_above: int | float
    neg_above: int | float
    threshold: float  # max_fpr * N, in negative-count (or weight) units


@dataclass(frozen=True)
class BucketCut:
    """The crossing bucket split at the crossing score ``s*``."""

    score: float
    above: PartialROC  # the bucket's rows scoring > s*
    group_pos: int | float  # the bucket's rows scoring == s*
    group_neg: int | float


def locate_crossing(summaries: list[PartialROC], max_fpr: float) -> list[Crossing | None]:
    """Scan bucket summaries (highest first) for the bucket where ``fpr`` passes ``max_fpr``.

    One entry per bucket: the :class:`Crossing` at the crossing bucket, None
    elsewhere, and None everywhere when the curve is undefined (no positive
    or no negative).
    """
    scanned = neighbourhoods(summaries)
    found: list[Crossing | None] = [None] * len(summaries)
    if not summaries or 0 in scanned[0].total:
        return found
    threshold = max_fpr * scanned[0].total[1]
    with_negatives = [i for i, s in enumerate(summaries) if s.neg > 0]
    crossing = next(
        (i for i in with_negatives if scanned[i].above[1] + summaries[i].neg > threshold),
        with_negatives[-1],  # rounding of weighted sums can leave max_fpr * N a hair above N
    )
    found[crossing] = Crossing(crossing, *scanned[crossing].above, threshold)
    return found


def cut_bucket(bucket: Bucket, crossing: Crossing | None) -> BucketCut | None:
    """Split the crossing bucket at ``s*``; every other bucket returns None at once."""
    if crossing is None:
        return None
    neg = bucket.neg
    budget = crossing.threshold - crossing.neg_above
    if neg.weights is None:
        from_top = int(np.floor(budget)) + 1
    else:
        descending = np.cumsum(neg.weights[::-1])
        from_top = int(np.searchsorted(descending, budget, "right")) + 1
    score = neg.scores[len(neg) - min(from_top, len(neg))].item()
    above = Bucket.binary(
        _strictly_above(bucket.pos, score), _strictly_above(neg, score), bucket.weight_exponent
    )
    return BucketCut(
        score, summarize_bucket(above), _total_equal(bucket.pos, score), _total_equal(neg, score)
    )


def _strictly_above(part: SortedScores, score: float) -> SortedScores:
    return part.slice(int(np.searchsorted(part.scores, score, "right")), len(part))


def partial_area(
    summaries: list[PartialROC], crossings: list[Crossing | None], cuts: list[BucketCut | None]
) -> tuple[float, int | float, int | float]:
    """The area under the ROC curve up to the cut, as a fraction of ``P * N``, with P and N.

    ``cuts`` holds one :func:`cut_bucket` result per bucket (None but for the
    crossing bucket).  Returns ``(partial_auc, total_pos, total_neg)``;
    ``partial_auc`` (not standardised) is nan when undefined.
    """
    cut = next((c for c in cuts if c is not None), None)
    crossing = next((c for c in crossings if c is not None), None)
    total_pos = sum(s.pos for s in summaries)
    total_neg = sum(s.neg for s in summaries)
    if crossing is None or cut is None:
        return float("nan"), total_pos, total_neg
    above_runs, group_pos, group_neg = [], cut.group_pos, cut.group_neg
    for index, summary in enumerate(summaries):
        if index == crossing.bucket or summary.is_empty:
            continue
        assert summary.top is not None and summary.bottom is not None
        if index < crossing.bucket:
            if summary.bottom.score > cut.score:
                above_runs.append(summary)
            else:  # its bottom group ties with s*
                above_runs.append(drop_bottom_group(summary))
                group_pos += summary.bottom.pos
                group_neg += summary.bottom.neg
        elif summary.top.score == cut.score:
            group_pos += summary.top.pos
            group_neg += summary.top.neg
    above = merge_adjacent(merge_run(above_runs), cut.above)
    width = crossing.threshold - above.neg
    # the ratio first: group_pos * width would underflow for weights near 1e-170
    tpr_gain = group_pos * (width / group_neg)
    exponent = next(s.weight_exponent for s in summaries if not s.is_empty)
    area = above.area + pair_product(width, above.pos + tpr_gain / 2, exponent)
    pairs = pair_product(total_pos, total_neg, exponent)
    return float(area / pairs), total_pos, total_neg


def raw_area(partial: float, bounds: tuple[float, float], swap: bool = False) -> float:
    """pROC's raw partial area from :func:`interval_area`'s (unchanged for FPR intervals)."""
    if not swap:
        return partial
    return (bounds[1] - bounds[0]) - partial


def mcclish(partial: float, max_fpr: float, low: float = 0.0, *, swap: bool = False) -> float:
    """Standardise a partial AUC so that chance is 0.5 and perfect is 1 (McClish 1989).

    pROC's ``partial.auc.correct``: ``(1 + (area - min) / (max - min)) / 2``
    over the interval ``[low, max_fpr]``, ``max = max_fpr - low`` its width
    and ``min`` the area of the chance diagonal over it.

    * False positive rates: ``partial`` is the area under the curve and
      ``min = D = (max_fpr**2 - low**2) / 2``.  With ``low = 0`` this is
      scikit-learn's ``max_fpr`` formula in floats, to the last bit.
    * True positive rates (``swap``): ``partial`` is ``L``, the area *left*
      of the curve over the interval (see :func:`interval_area`); pROC's area is
      ``max - L`` and its ``min`` is ``max - D``, so the result is
      ``(1 + (D - L) / D) / 2``.

    Apart from scikit-learn's case, the formula is evaluated in exact
    rational arithmetic from the float ``partial`` (correctly rounded, and no
    cancellation for narrow intervals).  A curve below the diagonal gives less
    than 0.5 (scikit-learn's behaviour; pROC returns NA unless
    ``allow.invalid.partial.auc.correct``).

    Examples
    --------
    >>> mcclish(0.5 * 0.3**2, 0.3), mcclish(0.375, 1.0, 0.5), mcclish(0.5, 1.0, 0.5)
    (0.5, 0.5, 1.0)
    >>> mcclish(0.375, 1.0, 0.5, swap=True), mcclish(0.0, 1.0, 0.5, swap=True)
    (0.5, 1.0)
    """
    if not swap and low == 0:
        min_area = 0.5 * max_fpr**2
        return 0.5 * (1 + (partial - min_area) / (max_fpr - min_area))
    if partial != partial:  # nan: undefined
        return partial
    high, start, area = Fraction(max_fpr), Fraction(low), Fraction(partial)
    width, diagonal = high - start, (high * high - start * start) / 2
    if swap:
        return float((1 + (diagonal - area) / diagonal) / 2)
    return float((1 + (area - diagonal) / (width - diagonal)) / 2)


def swap_classes(summary: PartialROC) -> PartialROC:
    """The summary of the same rows with positives and negatives swapped.

    Pairs where the negative scores higher become the strict pairs:
    ``pos * neg - strict - tied``; ties stay ties.  Exact for unweighted rows.

    Examples
    --------
    >>> run = PartialROC(2, 1, 1, 1, TieGroup(0.9, 1, 0), TieGroup(0.5, 1, 1))
    >>> swapped = swap_classes(run)
    >>> swapped.pos, swapped.neg, swapped.strict, swapped.tied, swapped.bottom
    (1, 2, 0, 1, TieGroup(score=0.5, pos=1, neg=1))
    """
    if summary.is_empty:
        return summary
    assert summary.top is not None and summary.bottom is not None
    pairs = pair_product(summary.pos, summary.neg, summary.weight_exponent)
    return replace(
        summary,
        pos=summary.neg,
        neg=summary.pos,
        strict=pairs - summary.strict - summary.tied,
        top=TieGroup(summary.top.score, summary.top.neg, summary.top.pos),
        bottom=TieGroup(summary.bottom.score, summary.bottom.neg, summary.bottom.pos),
    )


def _oriented(summaries: list[PartialROC], swap: bool) -> list[PartialROC]:
    return [swap_classes(s) for s in summaries] if swap else summaries


def locate_crossings(
    summaries: list[PartialROC], fractions: tuple[float, ...], swap: bool = False
) -> list[tuple[Crossing | None, ...]]:
    """:func:`locate_crossing` at several rates at once: one tuple per bucket.

    The rates are false positive rates, or true positive rates with ``swap``.
    A rate of 0 needs no cut (the area up to it is 0): its entries are None.
    """
    oriented = _oriented(summaries, swap)
    per_cut = [
        locate_crossing(oriented, fraction) if fraction > 0 else [None] * len(summaries)
        for fraction in fractions
    ]
    return [tuple(found[b] for found in per_cut) for b in range(len(summaries))]


def cut_bucket_at(
    bucket: Bucket, crossings: tuple[Crossing | None, ...], swap: bool = False
) -> tuple[BucketCut | None, ...]:
    """:func:`cut_bucket` at each crossing this bucket holds (most buckets hold none)."""
    if all(crossing is None for crossing in crossings):
        return (None,) * len(crossings)
    if swap:
        bucket = Bucket.binary(bucket.neg, bucket.pos, bucket.weight_exponent)
    return tuple(cut_bucket(bucket, crossing) for crossing in crossings)


def interval_area(
    summaries: list[PartialROC],
    crossings: list[tuple[Crossing | None, ...]],
    cuts: list[tuple[BucketCut | None, ...]],
    fractions: tuple[float, float],
    swap: bool = False,
) -> tuple[float, Number, Number]:
    """The area beside the curve over ``fractions = (low, high)``, with P and N.

    False positive rates: the area under the curve over ``low <= fpr <= high``
    (pROC's raw specificity-focus area).  True positive rates (``swap``): ``L``,
    the area between the line ``fpr = 0`` and the curve over ``low <= tpr <= high``;
    pROC's raw sensitivity-focus area (between the curve and ``fpr = 1``) is
    ``(high - low) - L``, see :func:`raw_area`.  Fractions of the unit square;
    nan when the curve is undefined.  ``crossings`` and
    ``cuts`` hold one entry per bucket, from :func:`locate_crossings` and
    :func:`cut_bucket_at` with the same ``fractions`` and ``swap``.
    """
    oriented = _oriented(summaries, swap)
    total_pos = sum(s.pos for s in summaries)
    total_neg = sum(s.neg for s in summaries)
    areas = []
    for i, fraction in enumerate(fractions):
        if fraction == 0:
            areas.append(0.0)
            continue
        area, _, _ = partial_area(oriented, [c[i] for c in crossings], [c[i] for c in cuts])
        areas.append(area)
    low, high = areas
    return high - low, total_pos, total_neg
