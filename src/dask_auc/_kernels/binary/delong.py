"""Pure-NumPy kernels of DeLong's variance: placement values from the sorted buckets.

DeLong, DeLong & Clarke-Pearson (1988) write the AUC of ``m`` positives and
``n`` negatives as a mean of *placement values* (structural components)::

    V10(x_i) = (#negatives below x_i + #negatives tied with x_i / 2) / n
    V01(y_j) = (#positives above y_j + #positives tied with y_j / 2) / m

and its variance as ``S10 / m + S01 / n`` with ``S10``, ``S01`` the sample
variances of the ``V10`` and ``V01`` values.  Both placements of a row are
rank counts, so each sorted bucket computes them for its own rows from three
things: its rows (one walk of its two sorted classes, compiled, or binary
searches without numba: :func:`bucket_placements`), the counts of all higher
buckets, and the rows of neighbouring buckets that tie with its top or bottom
score (a heavy tie may be spread over several buckets).  One scan of the
bucket summaries (:func:`bucket_contexts`) gives every bucket that context; no
rows move.

For the covariance of ``k`` models' AUCs every model's placement of a row is
needed together: :mod:`.delong_paired` pairs them by row.

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.summary import PartialROC, merge_run, neighbourhoods
from ..sort import compiled as _compiled
from ..sort.buckets import Bucket, rows_through


@dataclass(frozen=True)
class BucketContext:
    """What a bucket needs to know of all other buckets to place its rows."""

    total_pos: int
    total_neg: int
    pos_above: int  # rows in higher buckets
    neg_above: int
    pos_tied_above: int  # rows in higher buckets scoring this bucket's top score
    neg_tied_above: int
    pos_tied_below: int  # rows in lower buckets scoring this bucket's bottom score
    neg_tied_below: int
    auc: float


def bucket_contexts(summaries: Sequence[PartialROC]) -> list[BucketContext | None]:
    """Each bucket's context from the ordered scan of the summaries; None for empty buckets.

    Examples
    --------
    >>> from dask_auc._kernels.core.summary import TieGroup
    >>> high = PartialROC(1, 1, 0, 1, TieGroup(0.5, 1, 1), TieGroup(0.5, 1, 1))
    >>> low = PartialROC(0, 1, 0, 0, TieGroup(0.5, 0, 1), TieGroup(0.1, 0, 0))
    >>> bucket_contexts([high, low])[1].pos_tied_above
    1
    """
    summaries = list(summaries)
    scanned = neighbourhoods(summaries)
    total_pos, total_neg = (int(n) for n in scanned[0].total) if scanned else (0, 0)
    auc = merge_run(summaries).auc() if summaries else float("nan")
    contexts: list[BucketContext | None] = []
    for summary, around in zip(summaries, scanned, strict=True):
        if summary.is_empty:
            contexts.append(None)
            continue
        below = around.next_group if around.continues else (0, 0)
        contexts.append(
            BucketContext(
                total_pos,
                total_neg,
                int(around.above[0]),
                int(around.above[1]),
                int(around.carried[0]),
                int(around.carried[1]),
                int(below[0]),  # type: ignore[index]
                int(below[1]),  # type: ignore[index]
                auc,
            )
        )
    return contexts


@dataclass(frozen=True)
class Placements(SizedByArrays):
    """Doubled placement counts of a bucket's rows, in the bucket's sorted order.

    One per entry: an entry of an aggregated bucket stands for all its rows,
    which share its placement.

    ``pos[i] = 2 * V10 * n`` and ``neg[j] = 2 * V01 * m``: exact integers.
    """

    pos: np.ndarray
    neg: np.ndarray


def bucket_placements(bucket: Bucket, context: BucketContext | None) -> Placements:
    """Each row's placement against the whole data set (ties count one half).

    Each class's counts of the other class below and tied come from one walk
    of the two sorted arrays (:func:`~dask_auc._kernels.sort.compiled.ranks`;
    binary searches where the compiled loops do not run): the same integers.

    Examples
    --------
    >>> from dask_auc._kernels.sort.rows import SortedScores
    >>> pos, neg = SortedScores(np.array([0.4, 0.9])), SortedScores(np.array([0.1, 0.4]))
    >>> context = BucketContext(2, 2, 0, 0, 0, 0, 0, 0, 0.875)
    >>> bucket_placements(Bucket.binary(pos, neg), context)
    Placements(pos=array([3, 4]), neg=array([4, 3]))
    """
    p, n = bucket.pos.scores, bucket.neg.scores
    if context is None or (len(p) == 0 and len(n) == 0):
        return Placements(np.empty(0, np.int64), np.empty(0, np.int64))
    top = max(_last(p), _last(n))
    bottom = min(_first(p), _first(n))
    # Each entry's doubled placement is 2 * (rows of the other class ranked strictly
    # on its losing side) + (rows tied with it).  Rows of other buckets tie only with
    # the bucket's top and bottom scores: the sorted part's last and first runs.
    if bucket.pos.weights is None and bucket.neg.weights is None:
        pos, neg = _row_placements(p, n, context, bucket.compiled)
    else:
        pos, neg = _entry_placements(bucket, context)
    pos[_run_start(p, top) :] += context.neg_tied_above
    pos[: _run_stop(p, bottom)] -= context.neg_tied_below
    neg[_run_start(n, top) :] -= context.pos_tied_above
    neg[: _run_stop(n, bottom)] += context.pos_tied_below
    return Placements(pos.astype(np.int64, copy=False), neg.astype(np.int64, copy=False))


def _row_placements(
    p: np.ndarray, n: np.ndarray, context: BucketContext, compiled: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The doubled placements of rows (each entry one row), ties with other buckets aside.

    A positive's is ``2 * (negatives below) + (negatives tied)``, ``left + right +
    2 * (negatives of lower buckets)`` of its ranks among this bucket's negatives;
    a negative's ``2 * (positives above) + (positives tied)``.  In place on the ranks.
    """
    left, right = _ranks(n, p, compiled)
    left += right
    left += 2 * (context.total_neg - context.neg_above - len(n))
    pos = left
    left, right = _ranks(p, n, compiled)
    left += right
    neg = np.subtract(2 * (context.pos_above + len(p)), left, out=left)
    return pos, neg


def _entry_placements(bucket: Bucket, context: BucketContext) -> tuple[np.ndarray, np.ndarray]:
    """The doubled placements of counted (aggregated) entries, ties with other buckets aside."""
    p, n = bucket.pos.scores, bucket.neg.scores
    # rows up to each entry: an aggregated bucket's entries stand for several rows
    p_rows, n_rows = rows_through(bucket.pos), rows_through(bucket.neg)
    # positives: negatives strictly below, and tied
    left, right = _ranks(n, p, bucket.compiled)
    below = n_rows[left]
    lower = context.total_neg - context.neg_above - int(n_rows[-1])
    pos = 2 * (below + lower) + (n_rows[right] - below)
    # negatives: positives strictly above, and tied
    left, right = _ranks(p, n, bucket.compiled)
    through = p_rows[right]
    neg = 2 * (context.pos_above + (int(p_rows[-1]) - through)) + (through - p_rows[left])
    return pos, neg


def _ranks(
    values: np.ndarray, queries: np.ndarray, compiled: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Each query's count of ``values`` strictly below it, and at or below it (both sorted)."""
    walked = _compiled.ranks(values, queries, compiled=compiled)
    if walked is not None:
        return walked
    return np.searchsorted(values, queries, "left"), np.searchsorted(values, queries, "right")


def _run_start(values: np.ndarray, value: Any) -> int:
    """Where the run of ``value`` starts in sorted ``values`` (their length when absent)."""
    return (
        len(values)
        if not len(values) or values[-1] != value
        else int(np.searchsorted(values, value, "left"))
    )


def _run_stop(values: np.ndarray, value: Any) -> int:
    """Where the run of ``value`` stops in sorted ``values`` (0 when absent)."""
    return (
        0 if not len(values) or values[0] != value else int(np.searchsorted(values, value, "right"))
    )


def _last(values: np.ndarray) -> float:
    return values[-1].item() if len(values) else -np.inf


def _first(values: np.ndarray) -> float:
    return values[0].item() if len(values) else np.inf


@dataclass(frozen=True)
class SquareSums:
    """Sums over rows of squared centred placements, ``(V - AUC) ** 2``."""

    pos: float
    neg: float

    def __add__(self, other: SquareSums) -> SquareSums:
        return SquareSums(self.pos + other.pos, self.neg + other.neg)


def placement_square_sums(bucket: Bucket, context: BucketContext | None) -> SquareSums:
    """The bucket's contribution to ``(m - 1) * S10`` and ``(n - 1) * S01``."""
    if context is None or not (context.total_pos and context.total_neg):
        return SquareSums(0.0, 0.0)
    placed = bucket_placements(bucket, context)
    v10 = placed.pos / (2 * context.total_neg) - context.auc
    v01 = placed.neg / (2 * context.total_pos) - context.auc
    # an entry of an aggregated bucket counts once per row it stands for
    pos_rows, neg_rows = bucket.pos.weights, bucket.neg.weights
    return SquareSums(
        float(v10 @ (v10 if pos_rows is None else v10 * pos_rows)),
        float(v01 @ (v01 if neg_rows is None else v01 * neg_rows)),
    )


def total_square_sums(parts: Sequence[SquareSums]) -> SquareSums:
    total = SquareSums(0.0, 0.0)
    for part in parts:
        total = total + part
    return total
