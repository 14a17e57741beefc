"""The gains (lift) table from the sorted buckets: bin cuts that never split a tie.

Each bucket ships the cuts of the bins that fall on its points and its rows
summed between them (:func:`bucket_gains_cuts`); the caller joins them into
the table's columns (:func:`gains_columns`).

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.summary import Number
from ..sort.buckets import Bucket
from .curve_context import CurveContext
from .curve_points import Points, bucket_points, first_reaching


def bin_targets(total: tuple[Number, Number], n_bins: int) -> np.ndarray:
    """The row count (or weight) each bin ``g = 1 .. n_bins`` must reach, from the top.

    Unweighted: ``ceil(g * n / n_bins)`` as exact integers; weighted: ``g * W``, to
    compare with ``n_bins`` times the cumulative weight (see :func:`_reached`).
    """
    rows = total[0] + total[1]
    if isinstance(rows, (int, np.integer)):
        rows = int(rows)
        return np.array([-(-g * rows // n_bins) for g in range(1, n_bins + 1)], dtype=np.int64)
    return np.arange(1, n_bins + 1) * rows


def _reached(points: Points, context: CurveContext, n_bins: int) -> np.ndarray:
    """For each bin, the first of the bucket's points that reaches its target (or ``len``).

    Weighted, ``rows >= g * W / n_bins`` is decided as ``rows * n_bins >= g * W``.
    The last bin's target is every row: reached exactly at the curve's last
    point, decided as such (not by comparing a running sum with the total),
    so that every row lies in a bin whatever the rounding of the sums.  The
    other targets are inner quantiles of the weight: a running float sum is
    compared with them, and a cut that is exactly on a quantile in exact
    arithmetic (equal non-dyadic weights, say) may fall on either side of it
    for two partitionings -- row counts cannot decide a weighted quantile.
    """
    targets = bin_targets(context.total, n_bins)
    scale = n_bins if targets.dtype.kind == "f" else 1

    def rows_at(i: np.ndarray) -> np.ndarray:  # the rows at or above points i (n_bins times)
        tps, fps = points.counts(i)
        return (tps + fps) * scale

    found = first_reaching(len(points), rows_at, targets)
    holds_the_end = context.gain_after is None and len(points) > 0  # no point after this one
    found[-1] = len(points) - 1 if holds_the_end else len(points)
    return np.minimum(found, found[-1])


@dataclass(frozen=True)
class GainsCuts(SizedByArrays):
    """One bucket's share of the gains table: the bin cuts on its points, and its rows.

    ``bins, tps, fps, thresholds``: the bins (``g - 1``) whose first point
    reaching the target is in this bucket -- or could be: the caller keeps, for
    each bin, the first bucket's -- with that point's running counts.
    ``lows, positives, negatives``: the bucket's rows cut at those thresholds
    into segments, each summed directly, with the lowest score each may hold
    (the segment's cut threshold, or the bucket's lowest score): the caller
    adds the segments into the bins their scores fall in.
    """

    bins: np.ndarray
    tps: np.ndarray
    fps: np.ndarray
    thresholds: np.ndarray
    lows: np.ndarray
    positives: list[Number]
    negatives: list[Number]


def bucket_gains_cuts(bucket: Bucket, context: CurveContext, n_bins: int) -> GainsCuts:
    """The cuts of the gains table's bins that fall on this bucket's points, and its rows.

    Bin ``g`` ends at the first point (the end of a tie group, from the top)
    whose rows at or above it reach :func:`bin_targets`'s ``g``-th target:
    ties are never split.  A bin's positives and rows are sums of its rows
    (never the difference of two running sums, which leaves a residue where
    a bin has no positive): see :class:`GainsCuts`.

    Examples
    --------
    >>> from ..sort.rows import SortedScores
    >>> pos, neg = SortedScores(np.array([0.5, 0.9])), SortedScores(np.array([0.1, 0.5]))
    >>> context = CurveContext((2, 2), (0, 0), False, None, None)
    >>> cuts = bucket_gains_cuts(Bucket.binary(pos, neg), context, 4)
    >>> cuts.bins, cuts.thresholds  # the tie at 0.5 holds the 2nd and 3rd quarter of the rows
    (array([0, 1, 2, 3]), array([0.9, 0.5, 0.5, 0.1]))
    >>> cuts.lows, cuts.positives, cuts.negatives
    (array([0.9, 0.5, 0.1]), [1, 1, 0], [0, 1, 1])
    """
    points = bucket_points(bucket, context)
    found = _reached(points, context, n_bins)
    bins = np.flatnonzero(found < len(points))
    cuts = points.take(found[bins])
    lows, positives, negatives = _segments(bucket, np.unique(cuts.thresholds)[::-1])
    return GainsCuts(bins, cuts.tps, cuts.fps, cuts.thresholds, lows, positives, negatives)


def _segments(bucket: Bucket, ends: np.ndarray) -> tuple[np.ndarray, list[Number], list[Number]]:
    """The bucket's rows in ``[ends[j], ends[j - 1])`` (``ends`` decreasing), then below the last.

    Returns each non-empty segment's lowest possible score and its positives and
    negatives, each a direct sum of the segment's rows.
    """
    parts = (bucket.pos, bucket.neg)
    if not any(len(part) for part in parts):
        return ends[:0], [], []
    lowest = min(part.scores[0] for part in parts if len(part))
    lows = np.concatenate((ends, [lowest]))
    # row indices (ascending scores) where each segment starts, from the top segment down
    starts = [np.append(np.searchsorted(part.scores, ends, "left"), 0) for part in parts]
    sums: list[list[Number]] = [[], []]
    keep = []
    for j in range(len(lows)):
        rows = 0
        for c, part in enumerate(parts):
            start, stop = starts[c][j], len(part) if j == 0 else starts[c][j - 1]
            rows += stop - start
            sums[c].append(_sum_rows(part, start, stop))
        keep.append(rows > 0)
    kept = np.flatnonzero(keep)
    return lows[kept], [sums[0][j] for j in kept], [sums[1][j] for j in kept]


def _sum_rows(part: Any, start: int, stop: int) -> Number:
    if part.weights is None:
        return int(stop - start)
    total = part.weights[start:stop].sum()
    return int(total) if part.counted else float(total)


def gains_columns(
    total: tuple[Number, Number], parts: Sequence[GainsCuts], n_bins: int
) -> dict[str, np.ndarray]:
    """The gains table's columns from the buckets' cuts (bins without rows dropped).

    The definitions are H2O's ``gains_lift`` table's, with rates as fractions:
    for bin ``i`` holding ``n_i`` rows of which ``e_i`` positives, ``E``
    positives among ``N`` rows in all, and ``Σ`` summing bins ``1 .. i``:
    ``response_rate = e_i / n_i``, ``lift = response_rate / (E / N)``,
    ``cumulative_lift = (Σ e / Σ n) / (E / N)``, ``capture_rate = e_i / E``,
    ``cumulative_capture_rate = Σ e / E`` (the cumulative gains curve),
    ``gain = 100 (lift - 1)``, ``cumulative_gain = 100 (cumulative_lift - 1)``,
    ``kolmogorov_smirnov = Σ e / E - Σ (n - e) / (N - E)`` (tpr - fpr).
    ``e_i`` and ``n_i`` are sums of the bin's rows; the cumulative columns are
    the running counts at the bins' cuts.
    """
    total_pos, total_neg = total
    cuts: list[tuple[Any, Any, Any] | None] = [None] * n_bins
    for part in parts:
        for g, tp, fp, threshold in zip(
            part.bins, part.tps, part.fps, part.thresholds, strict=True
        ):
            if cuts[g] is None:
                cuts[g] = (tp, fp, threshold)
    found = [cut for cut in cuts if cut is not None]
    # bins whose cut is the previous bin's hold no rows: drop them
    kept = [cut for i, cut in enumerate(found) if i == 0 or cut[2] != found[i - 1][2]]
    ascending = np.array([cut[2] for cut in kept])[::-1]
    in_bin: list[list[Number]] = [[0] * len(kept), [0] * len(kept)]
    for part in parts:  # in score order: each bin's sum adds its segments from the top down
        above = len(kept) - np.searchsorted(ascending, part.lows, "right")  # cuts above each low
        for g, pos, neg in zip(above, part.positives, part.negatives, strict=True):
            assert g < len(kept), "a row below the last bin's cut"
            in_bin[0][g] += pos
            in_bin[1][g] += neg
    dtype = np.asarray(total_pos).dtype
    cum_pos = np.array([cut[0] for cut in kept], dtype=dtype)
    cum_neg = np.array([cut[1] for cut in kept], dtype=dtype)
    thresholds = np.array([cut[2] for cut in kept])
    positives = np.array(in_bin[0], dtype=dtype)
    rows = positives + np.array(in_bin[1], dtype=dtype)
    cum_rows = cum_pos + cum_neg
    n_rows = total_pos + total_neg
    with np.errstate(divide="ignore", invalid="ignore"):
        overall = total_pos / n_rows
        response_rate = positives / rows
        cumulative_response_rate = cum_pos / cum_rows
        lift = response_rate / overall
        cumulative_lift = cumulative_response_rate / overall
        return {
            "group": np.arange(1, len(kept) + 1),
            "lower_threshold": thresholds,
            "rows": rows,
            "positives": positives,
            "cumulative_data_fraction": cum_rows / n_rows,
            "response_rate": response_rate,
            "cumulative_response_rate": cumulative_response_rate,
            "lift": lift,
            "cumulative_lift": cumulative_lift,
            "capture_rate": positives / total_pos,
            "cumulative_capture_rate": cum_pos / total_pos,
            "gain": 100 * (lift - 1),
            "cumulative_gain": 100 * (cumulative_lift - 1),
            "kolmogorov_smirnov": cum_pos / total_pos - cum_neg / total_neg,
        }
