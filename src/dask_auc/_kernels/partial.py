"""Partial AUC up to ``max_fpr`` (McClish-standardised), from bucket summaries.

scikit-learn cuts the ROC curve at ``fpr == max_fpr``, interpolating linearly
inside the tie group that crosses it.  In row terms that group holds the first
negative, in descending score order, whose cumulative negative weight exceeds
``max_fpr * N``.  Its score ``s*`` splits the data into the rows above it
(whose summary gives the area before the cut), the tie group itself, and the
rows below (which do not matter).

Only the bucket holding that negative needs its rows looked at again
(:func:`cut_bucket`); every other bucket is placed from its summary alone.
Nothing here imports dask.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .sort import Bucket, SortedScores, _total_equal, summarize_bucket
from .summary import (
    PartialROC,
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


def mcclish(partial: float, max_fpr: float) -> float:
    """Standardise a partial AUC so that chance is 0.5 and perfect is 1 (McClish 1989)."""
    min_area = 0.5 * max_fpr**2
    return 0.5 * (1 + (partial - min_area) / (max_fpr - min_area))
