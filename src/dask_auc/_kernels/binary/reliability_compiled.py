"""The reliability diagram's compiled loop behind its door: ``None`` where it cannot run.

The loops are in :mod:`dask_auc._kernels.binary._pav_numba`, offered by the binary
queries' :mod:`~dask_auc._kernels.binary._numba` and loaded by the sort's
:func:`~dask_auc._kernels.sort.compiled.usable`; a ``None`` sends
:func:`~dask_auc._kernels.binary.reliability.bucket_blocks` to its NumPy path,
which gives the same bits.  A bucket costs one compiled pass over its rows
instead of NumPy's dozen passes over its distinct scores: :func:`bucket_stack`,
one merge of the two classes that pools each tie, sums the Brier, log and
probability terms exactly (binned by exponent in integers: the integers
``exact_total`` makes) and runs the PAV on a stack as it goes (counts; weights
are pooled after it by NumPy's rounds, whose float sums keep their order); rows
of which no class repeats a score take a walk that finds where a block may end (a
rise of the mean: a positive after negatives) and pools only the stretches between,
each class's terms summed after it, a run of one exponent at a
time (``_pav_numba._lone_run``): the same bits at about half the cost.  The
logarithms stay NumPy's, taken before the merge of each class's distinct scores
(``np.log`` is not libm's ``log`` on every CPU; of every row, tied scores cost the
compiled path three times the NumPy path's time).

Nothing here imports dask.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.summary import UNIT_BITS
from ..sort.buckets import Bucket
from ..sort.compiled import usable
from ..sort.rows import SortedScores

#: biased exponents of finite float64 (2047: inf and NaN)
_EXPONENTS = 2047
#: weighted rows of which about this share ties with the next row (8 rows a distinct score
#: or more) take the NumPy path: its ``np.add.reduceat`` sums the ties' weights faster than
#: the compiled loops (a bucket of 1.25e6 rows at ~1,000 rows a score: ~1.5 ns a row
#: against ~1.9; unweighted, the compiled path is the faster: ~0.9 against ~1.1)
_WEIGHTED_TIES = 7 / 8
#: no output: :func:`~._pav_numba.distinct_scores` only counts
_NO_OUT = np.zeros(0, np.float64)


def _kind(part: SortedScores) -> int | None:
    """0 rows, 1 integer multiplicities, 2 float64 weights; None: another weight dtype."""
    if part.weights is None:
        return 0
    if part.weights.dtype.kind in "iu":
        return 1 if part.weights.dtype == np.int64 else None
    return 2 if part.weights.dtype == np.float64 else None


def bucket_stack(bucket: Bucket, factor: float) -> tuple | None:
    """``(low, high, pos, neg, brier, log, proba, infinite, ends)`` of the bucket's stack, or None.

    :func:`~dask_auc._kernels.binary.reliability.bucket_blocks`' stack by one
    compiled merge of the two classes (:func:`~._pav_numba.bucket_pav`): the tie
    pooling, the exact term sums and, for counts, the PAV; weights are pooled after
    it by NumPy's rounds (:func:`~._pav_numba.pooled_rounds`, ``factor`` one less the
    relative tolerance of a tie of means).  ``ends``: ``(score, pos, neg)`` of the
    lowest and the highest score, those the bucket holds (0, 1 or 2).  None where
    the loops do not run, or counts whose products could pass int64.
    """
    pos, neg = bucket.pos, bucket.neg
    kernel = usable(bucket.compiled, "binary", pos.scores, neg.scores)
    kinds = _kind(pos), _kind(neg)
    if kernel is None or pos.scores.dtype != neg.scores.dtype or None in kinds:
        return None
    n = len(pos.scores) + len(neg.scores)
    counts = [kernel.distinct_scores(part.scores, _NO_OUT) for part in (pos, neg)]
    dtype = np.result_type(*(np.float64 if k == 2 else np.int64 for k in kinds))
    if dtype == np.int64 and pos.total * neg.total >= 2**63:
        return None
    pos_distinct, neg_distinct = (
        _distinct(kernel, part.scores, m) for part, m in zip((pos, neg), counts, strict=True)
    )
    with np.errstate(divide="ignore", invalid="ignore"):  # log(0); log(< 0): the finish raises
        logs = np.log(pos_distinct)
        log1ps = np.negative(neg_distinct)  # log1p(-s) in place: no temporary of -s
        np.log1p(log1ps, out=log1ps)
    lone = len(pos_distinct) == len(pos.scores) and len(neg_distinct) == len(neg.scores)
    low, high = np.empty(n, np.float64), np.empty(n, np.float64)
    out_pos, out_neg = np.empty(n, dtype), np.empty(n, dtype)
    bins_high, bins_low = np.zeros((3, _EXPONENTS), np.int64), np.zeros((3, _EXPONENTS), np.int64)
    edge_scores, edge_pos, edge_neg = np.zeros(2), np.zeros(2, dtype), np.zeros(2, dtype)
    m, infinite, outside, edges = kernel.bucket_pav(
        pos.scores,
        _totals(kernel, pos, kinds[0], len(logs), dtype),
        kinds[0],
        logs,
        neg.scores,
        _totals(kernel, neg, kinds[1], len(log1ps), dtype),
        kinds[1],
        log1ps,
        dtype == np.int64,
        lone,
        low,
        high,
        out_pos,
        out_neg,
        bins_high,
        bins_low,
        edge_scores,
        edge_pos,
        edge_neg,
    )
    if dtype == np.float64:
        m = kernel.pooled_rounds(low[:m], high[:m], out_pos[:m], out_neg[:m], factor)
    if outside:  # not probabilities: the finish raises on the stack's ends; no term is summed
        sums: tuple[int, int, int, bool] = (0, 0, 0, False)
    else:
        brier, log, proba = (_binned_total(bins_high[t], bins_low[t]) for t in range(3))
        sums = (brier, log, proba, bool(infinite))
    if m < n:  # compact arrays, not views of the bucket-sized buffers
        low, high, out_pos, out_neg = (a[:m].copy() for a in (low, high, out_pos, out_neg))
    ends = [(edge_scores[e], edge_pos[e], edge_neg[e]) for e in range(edges)]
    return (low, high, out_pos, out_neg, *sums, ends)


def numpy_faster(bucket: Bucket) -> bool:
    """Whether the NumPy path is the faster for this bucket: weighted rows mostly tied.

    About :data:`_WEIGHTED_TIES` of the rows or more tie with the next (64 rows probed
    in each class): ``np.add.reduceat`` sums the ties' weights faster than the loops.
    """
    pos, neg = bucket.pos, bucket.neg
    n = len(pos.scores) + len(neg.scores)
    weighted = pos.weights is not None or neg.weights is not None
    return weighted and n > 0 and _tied_rows(pos) + _tied_rows(neg) >= n * _WEIGHTED_TIES


def _tied_rows(part: SortedScores) -> float:
    """About how many of the class's sorted rows tie with the next: 64 rows probed."""
    scores = part.scores
    if len(scores) < 2:
        return 0.0
    probes = np.linspace(0, len(scores) - 2, 64).astype(np.int64)
    return float(np.mean(scores[probes] == scores[probes + 1])) * len(scores)


def _distinct(kernel: Any, scores: np.ndarray, m: int) -> np.ndarray:
    """The ``m`` distinct scores (float64, ascending), the first row of each run of one score.

    The scores themselves where none repeats (continuous), else a pass writes them
    (:func:`~._pav_numba.distinct_scores`).
    """
    if m == len(scores):
        return scores.astype(np.float64, copy=False)
    out = np.empty(m, np.float64)
    kernel.distinct_scores(scores, out)
    return out


def _totals(kernel: Any, part: SortedScores, kind: int | None, m: int, dtype: Any) -> np.ndarray:
    """Each distinct score's multiplicities or weights (``dtype``); none for rows (kind 0)."""
    out = np.empty(m if kind else 0, dtype)
    if kind:
        kernel.distinct_totals(part.scores, part.weights, kind, out)
    return out


def _binned_total(high: np.ndarray, low: np.ndarray) -> int:
    """The exact total of the bins: ``(high << 26) + low`` units of ``2**(max(e, 1) - 1075)``."""
    total = 0
    for i in np.flatnonzero((high != 0) | (low != 0)).tolist():
        shift = max(i, 1) - 1075 + UNIT_BITS
        total += ((int(high[i]) << 26) + int(low[i])) << shift
    return total


def warm_up() -> None:
    """Run the loops once, through their door, on tiny inputs: numba compiles (or loads) them."""
    for dtype in (np.float64, np.int64):
        for tie in (1, 3):  # every score distinct; tied scores
            values = np.arange(300) // tie * tie
            scores = values / 300 if dtype == np.float64 else values.astype(dtype)
            for weights in (None, np.ones(150, np.int64), np.ones(150)):
                pos = SortedScores(scores[::2].copy(), weights)
                neg = SortedScores(scores[1::2].copy())
                bucket_stack(Bucket.binary(pos, neg, compiled=True), 1.0)
