"""What a state certifies: the AUC's bounds, the exact ROC points at its bin edges, and refinement.

Counted in doubled units (a tied pair counts 1, an ordered pair 2), the
pairs of a positive in bin ``k`` and a negative in a lower bin are known;
inside a bin they are between 0 and ``2 * p_k * n_k``, and exactly
``p_k * n_k`` where the bin holds one distinct score (all its pairs tie).
So ``lower`` counts the unknown pairs as 0, ``upper`` as all ordered, and
the estimate as half (the trapezoid): unweighted, in integers, each bound
rounded outward once.  A refinement reads again the rows of the bins with
the most unknown pairs and counts their pairs exactly
(:func:`selected_rows`, :func:`within_bin_pairs`).

Nothing here imports dask.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from .bins import KEY_BITS, StateBins, group_starts, score_keys, shifted


@dataclass(frozen=True)
class PairCounts(SizedByArrays):
    """The doubled pair counts of a state: known, and unknown per bin; ``P * N``."""

    known: Any  # ordered pairs between bins (2 each) and the ties of single-score bins
    unknown: np.ndarray  # per bin, p_k * n_k of bins holding several scores (0 elsewhere)
    pairs: Any  # P * N
    exact: bool  # the counts are integers (unweighted)


def pair_counts(state: StateBins) -> PairCounts:
    """The known and unknown doubled pairs of ``state``; exact integers unweighted.

    Examples
    --------
    >>> from dask_auc._kernels.states.bins import block_state
    >>> counts = pair_counts(block_state([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.4], max_bins=8))
    >>> counts.known, counts.unknown.tolist(), counts.pairs
    (7, [0, 0, 0], 4)
    """
    pos, neg = state.pos, state.neg
    exact = not state.weighted
    total_pos: Any
    total_neg: Any
    if exact:
        total_pos, total_neg = int(pos.sum()), int(neg.sum())
        if total_pos * total_neg >= 1 << 61:  # beyond int64: Python integers
            pos, neg = pos.astype(object), neg.astype(object)
    else:
        total_pos, total_neg = float(pos.sum()), float(neg.sum())
    below = np.cumsum(neg) - neg  # negatives in the lower bins
    single = state.low == state.high
    within = pos * neg
    known = 2 * _total(pos * below, exact) + _total(np.where(single, within, 0), exact)
    unknown = np.where(single, 0, within)
    return PairCounts(known, unknown, total_pos * total_neg, exact)


def auc_bounds(counts: PairCounts, resolved: Any = 0, unresolved: Any = None) -> tuple:
    """``(lower, estimate, upper, exact)`` of the AUC; NaNs where a class is missing.

    ``resolved`` adds doubled pairs counted exactly by a refinement, whose
    bins are left out of ``unresolved`` (default: every bin's unknown pairs).
    Unweighted, the lower bound is rounded down and the upper up, so that the
    exact AUC always lies between them (all three the exact AUC rounded once
    where nothing is unknown); weighted, they are float64 sums.
    """
    unknown = _total(counts.unknown if unresolved is None else unresolved, counts.exact)
    if not counts.pairs:
        nan = float("nan")
        return nan, nan, nan, False
    low2 = counts.known + resolved
    if counts.exact and unknown == 0:  # the exact AUC, rounded once
        value = float(Fraction(low2, 2 * counts.pairs))
        return value, value, value, True
    if counts.exact:
        whole = 2 * counts.pairs
        return (
            rounded(Fraction(low2, whole), down=True),
            float(Fraction(low2 + unknown, whole)),
            rounded(Fraction(low2 + 2 * unknown, whole), down=False),
            unknown == 0,
        )
    whole = 2 * counts.pairs
    return low2 / whole, (low2 + unknown) / whole, (low2 + 2 * unknown) / whole, unknown == 0


def curve_points(state: StateBins) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``fpr, tpr, thresholds`` at the bins' lowest scores: exact points of the true curve.

    The rows scoring at least a bin's lowest score are exactly those of it
    and the bins above, so each point is the curve's point at that threshold.
    The first point is ``(0, 0)`` at ``inf``, as scikit-learn's.
    """
    tps = np.concatenate([[0], np.cumsum(state.pos[::-1])]).astype(np.float64)
    fps = np.concatenate([[0], np.cumsum(state.neg[::-1])]).astype(np.float64)
    thresholds = np.concatenate([[np.inf], state.low[::-1]])
    with np.errstate(invalid="ignore", divide="ignore"):
        return fps / fps[-1], tps / tps[-1], thresholds


def chosen_bins(counts: PairCounts, state: StateBins, max_width: float) -> np.ndarray:
    """The bins to count exactly so that the certified width is at most ``max_width``.

    Most unknown pairs first; none if the width is within ``max_width`` already.
    """
    order = np.argsort(-counts.unknown.astype(np.float64), kind="stable")
    left = np.cumsum(counts.unknown[order][::-1])[::-1]  # unknown pairs from each bin on
    allowed = max_width * counts.pairs  # width = unknown pairs / (P * N)
    take = int(np.count_nonzero(left > allowed))
    return np.sort(state.bins[order[:take]])


def selected_rows(
    label: Any, score: Any, weight: Any, *, bins: np.ndarray, bits: int, pos_label: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """A block's rows of the chosen ``bins``: their keys, positive flags and weights."""
    labels, scores = np.asarray(label), np.asarray(score, dtype=np.float64)
    keys = score_keys(scores)
    inside = np.isin(shifted(keys, KEY_BITS - bits), bins)
    positive = labels == (1 if pos_label is None else pos_label)
    weights = None if weight is None else np.asarray(weight, dtype=np.float64)[inside]
    return keys[inside], positive[inside], weights


def within_bin_pairs(
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray | None]], bits: int, exact: bool
) -> Any:
    """The doubled pairs inside the chosen bins, counted exactly from their rows.

    Examples
    --------
    >>> keys = score_keys(np.array([0.5, 0.25, 0.25, 0.75]))
    >>> within_bin_pairs([(keys, np.array([True, False, True, False]), None)], 1, True)
    3
    """
    keys = np.concatenate([p[0] for p in parts])
    positive = np.concatenate([p[1] for p in parts])
    weighted = parts and parts[0][2] is not None
    weights = np.concatenate([p[2] for p in parts]) if weighted else np.ones(len(keys))
    order = np.argsort(keys, kind="stable")
    keys, positive, weights = keys[order], positive[order], weights[order]
    starts = group_starts(keys)  # the distinct scores
    pos = np.add.reduceat(np.where(positive, weights, 0.0), starts) if len(keys) else keys[:0]
    neg = np.add.reduceat(np.where(positive, 0.0, weights), starts) if len(keys) else keys[:0]
    if exact:
        pos, neg = pos.astype(np.int64).astype(object), neg.astype(np.int64).astype(object)
    bins = shifted(keys[starts], KEY_BITS - bits)
    first = group_starts(bins)  # each bin's first distinct score
    below = np.cumsum(neg) - neg
    below = below - np.repeat(below[first], np.diff(np.append(first, len(bins))))
    return _total(pos * (2 * below + neg), exact)


def _total(values: np.ndarray, exact: bool) -> Any:
    if exact:
        return int(sum(values.tolist()))
    return math.fsum(values.tolist())


def rounded(value: Fraction, *, down: bool) -> float:
    """``value`` as a float rounded toward minus (``down``) or plus infinity."""
    result = float(value)
    if down and Fraction(result) > value:
        return math.nextafter(result, -math.inf)
    if not down and Fraction(result) < value:
        return math.nextafter(result, math.inf)
    return result
