"""The CORP reliability diagram: the PAV fit of the outcomes on the scores, bucket by bucket.

CORP (Dimitriadis, Gneiting and Jordan, PNAS 2021) recalibrates probability
forecasts by the isotonic (PAV) regression of the outcomes on the scores, tied
scores pooled first.  A sorted bucket already holds its distinct scores with
each class's rows (or weight): :func:`bucket_blocks` pools them into the
bucket's PAV block stack, and :func:`merged_blocks` joins the stacks of
neighbouring buckets -- concatenated in score order, only the seams can
violate, so pooling again gives the PAV fit of the concatenation.  The merge
is associative, not commutative: a tree of contiguous runs (dask's
``tree_reduce``) gives the fit of all rows.  :func:`decomposition` splits the
Brier and the log score into miscalibration, discrimination and uncertainty
from the full stack; :func:`thinned` picks the blocks to draw.

A tie group spread over several buckets is pooled by the last bucket holding
its score (:class:`~.curve_context.CurveContext`'s ``continues`` and
``carried``), as the curve points are: every distinct score enters the PAV
once, with all of its rows.

Nothing here imports dask.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.summary import UNIT_BITS, exact_total
from ..sort.buckets import Bucket
from ..sort.rows import SortedScores
from .curve_context import CurveContext
from .reliability_compiled import bucket_stack
from .thinning import grid_step

#: weighted means closer than this (relative) pool as equal: their float sums depend on the
#: order of the additions, so "equal" is decided the same way whatever the partitioning
WEIGHTED_TOLERANCE = 16 * float(np.finfo(np.float64).eps)
_UNIT = Fraction(1, 1 << UNIT_BITS)


@dataclass(frozen=True)
class BlockStack(SizedByArrays):
    """PAV blocks in ascending score order, and exact sums over their rows.

    Attributes
    ----------
    low, high : ndarray of float64
        The lowest and highest distinct score of each block.
    pos, neg : ndarray
        Each block's positives and negatives: int64 counts, float64 weights.
    brier, log, proba : int
        Exact sums (units of ``2**-UNIT_BITS``, :func:`~..core.summary.exact_total`)
        over the rows of ``(s - y)**2``, of the finite ``-log`` of the probability
        given to the outcome, and of ``s`` (each weighted).
    infinite : bool
        Some row of nonzero weight has probability 0 of its outcome: its log score is inf.
    """

    low: np.ndarray
    high: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    brier: int = 0
    log: int = 0
    proba: int = 0
    infinite: bool = False

    def __len__(self) -> int:
        return len(self.pos)


def bucket_blocks(bucket: Bucket, context: CurveContext) -> BlockStack:
    """The PAV block stack of the distinct scores this bucket emits, pooled ties first.

    By one compiled merge of the bucket's two classes where the numba loops run
    (:func:`~.reliability_compiled.bucket_stack`), else by NumPy
    (:func:`score_counts`, then :func:`pooled`): the same bits.

    Examples
    --------
    >>> pos = SortedScores(np.array([0.2, 0.6, 0.8]))
    >>> neg = SortedScores(np.array([0.4, 0.6]))
    >>> context = CurveContext((3, 2), (0, 0), False, None, None)
    >>> stack = bucket_blocks(Bucket.binary(pos, neg), context)
    >>> stack.low, stack.high, stack.pos, stack.neg
    (array([0.2, 0.8]), array([0.6, 0.8]), array([2, 1]), array([2, 0]))
    """
    found = bucket_stack(bucket, context, 1 - WEIGHTED_TOLERANCE)
    if found is not None:
        return BlockStack(*found)
    scores, pos, neg = score_counts(bucket, context)
    if len(scores) and (scores[0] < 0 or scores[-1] > 1):
        # not probabilities: the finish raises on the stack's ends, so no term is summed
        return pooled(BlockStack(scores, scores, pos, neg))
    # one term per distinct score, made of its whole tie group: the same floats whatever the
    # partitioning, so their exact sums are too
    with np.errstate(divide="ignore"):  # log(0): a probability 0 of the outcome, inf
        log_terms = _xlog(pos, np.log(scores)) + _xlog(neg, np.log1p(-scores))
    finite = np.isfinite(log_terms)
    return pooled(
        BlockStack(
            scores,
            scores,
            pos,
            neg,
            brier=exact_total(pos * (1 - scores) ** 2 + neg * scores**2),
            log=exact_total(log_terms[finite]),
            proba=exact_total((pos + neg) * scores),
            infinite=not finite.all(),
        )
    )


def score_counts(bucket: Bucket, context: CurveContext) -> tuple[np.ndarray, ...]:
    """The distinct scores (ascending, float64) this bucket emits, with each class's rows.

    The rows of higher buckets tied with this one's top score (``carried``)
    join it; the bottom score is left to the lower buckets when its tie
    continues there (``continues``): the last bucket holding a score emits it.
    The NumPy path of :func:`bucket_blocks`.
    """
    (pos_scores, pos_counts), (neg_scores, neg_counts) = (
        _distinct(bucket.pos),
        _distinct(bucket.neg),
    )
    scores = np.union1d(pos_scores, neg_scores)
    dtype = np.result_type(pos_counts, neg_counts, *context.carried)
    pos, neg = np.zeros(len(scores), dtype), np.zeros(len(scores), dtype)
    pos[np.searchsorted(scores, pos_scores)] = pos_counts
    neg[np.searchsorted(scores, neg_scores)] = neg_counts
    if len(scores):
        pos[-1] += context.carried[0]
        neg[-1] += context.carried[1]
    if context.continues:
        scores, pos, neg = scores[1:], pos[1:], neg[1:]
    return np.add(scores, 0.0, dtype=np.float64), pos, neg  # float64; -0.0 is 0.0


def _distinct(part: SortedScores) -> tuple[np.ndarray, np.ndarray]:
    """A class's distinct scores and its rows (weight) at each: one pass over sorted rows."""
    scores = part.scores
    if part.weights is None or part.counted:
        dtype: Any = np.int64
    else:
        dtype = np.float64
    if len(scores) == 0:
        return scores, np.zeros(0, dtype)
    first = np.flatnonzero(np.concatenate(([True], scores[1:] != scores[:-1])))
    if part.weights is None:
        counts = np.diff(np.append(first, len(scores)))
    else:
        counts = np.add.reduceat(part.weights, first)
    return scores[first], counts.astype(dtype, copy=False)


def _xlog(count: np.ndarray, logs: np.ndarray) -> np.ndarray:
    """``-count * logs``, 0 where ``count`` is 0 (``0 * log 0 = 0``, as ``scipy.special.xlogy``)."""
    with np.errstate(invalid="ignore"):
        return np.where(count == 0, 0.0, -(count * logs))


def merged_blocks(stacks: Sequence[BlockStack]) -> BlockStack:
    """The PAV stack of consecutive buckets' stacks, given in bucket order (highest scores first).

    Associative, not commutative: the stacks are concatenated in ascending
    score order and pooled again, where only the seams can violate.

    Examples
    --------
    >>> high = BlockStack(np.array([0.6]), np.array([0.9]), np.array([1]), np.array([1]))
    >>> low = BlockStack(np.array([0.1]), np.array([0.3]), np.array([2]), np.array([0]))
    >>> merged = merged_blocks([high, low])  # the low scores' mean 1 > 1/2: one block
    >>> merged.low, merged.high, merged.pos, merged.neg
    (array([0.1]), array([0.9]), array([3]), array([1]))
    """
    ascending = list(stacks)[::-1]
    if len(ascending) == 1:
        return ascending[0]
    low, high, pos, neg = (
        np.concatenate([getattr(s, name) for s in ascending])
        for name in ("low", "high", "pos", "neg")
    )
    return pooled(
        BlockStack(
            low,
            high,
            pos,
            neg,
            brier=sum(s.brier for s in ascending),
            log=sum(s.log for s in ascending),
            proba=sum(s.proba for s in ascending),
            infinite=any(s.infinite for s in ascending),
        )
    )


def pooled(stack: BlockStack) -> BlockStack:
    """PAV by rounds: every maximal run of adjacent blocks with non-increasing means is pooled.

    Each such run lies in one block of the solution (pooling its first two
    blocks is an adjacent-violator step, and the pooled mean still violates
    with the next), so a round pools all of them at once (``np.add.reduceat``)
    until none is left; equal means pool too, so the blocks are the fit's
    maximal runs of one value, whatever the order of the pooling.  Means are
    compared as ``pos_l * neg_r >= pos_r * neg_l``: exact in integers (Python
    integers past int64), within :data:`WEIGHTED_TOLERANCE` in floats.
    """
    low, high, pos, neg = stack.low, stack.high, stack.pos, stack.neg
    while len(pos) > 1:
        joins = _not_increasing(pos, neg)
        if not joins.any():
            break
        starts = np.flatnonzero(np.concatenate(([True], ~joins)))
        ends = np.append(starts[1:], len(pos)) - 1
        low, high = low[starts], high[ends]
        pos, neg = np.add.reduceat(pos, starts), np.add.reduceat(neg, starts)
    return BlockStack(low, high, pos, neg, stack.brier, stack.log, stack.proba, stack.infinite)


def _not_increasing(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """``mean[i] >= mean[i + 1]`` for each adjacent pair of blocks."""
    if pos.dtype.kind != "f":
        if int(pos.max()) * int(neg.max()) >= 2**63:  # int64 products would overflow
            pos, neg = pos.astype(object), neg.astype(object)
        return np.asarray(pos[:-1] * neg[1:] >= pos[1:] * neg[:-1], dtype=bool)
    return pos[:-1] * neg[1:] >= pos[1:] * neg[:-1] * (1 - WEIGHTED_TOLERANCE)


def recalibrated(stack: BlockStack) -> np.ndarray:
    """Each block's fitted probability: its positives over its rows (weight)."""
    return stack.pos / (stack.pos + stack.neg)


#: ``(score, miscalibration, discrimination, uncertainty)``
Parts = tuple[float, float, float, float]


class Decomposition(NamedTuple):
    """The decompositions of the Brier and the log score, and the means (:func:`decomposition`)."""

    brier: Parts
    log: Parts
    mean_score: float
    mean_outcome: float


def decomposition(stack: BlockStack) -> Decomposition:
    """``(score, miscalibration, discrimination, uncertainty)`` of the Brier and the log score.

    With ``W`` rows (weight), ``P`` positives and ``ybar = P / W``: the score
    ``S`` is the mean of the rows' terms, ``S_rc`` the same with each row's
    score replaced by its block's fitted value, ``UNC`` that of the constant
    forecast ``ybar``; ``MCB = S - S_rc`` and ``DSC = UNC - S_rc``, so that
    ``S = MCB - DSC + UNC``.  Sums are exact (rational) and each value is
    rounded once; the log score is inf (and so its MCB) where a row has
    probability 0 of its outcome.  Also the (weighted) mean score and outcome.
    One class only: ``UNC = DSC = 0`` and ``MCB = S``.

    Examples
    --------
    >>> pos = SortedScores(np.array([0.2, 0.6, 0.8]))
    >>> neg = SortedScores(np.array([0.4, 0.6]))
    >>> context = CurveContext((3, 2), (0, 0), False, None, None)
    >>> parts = decomposition(bucket_blocks(Bucket.binary(pos, neg), context))
    >>> [round(v, 4) for v in parts.brier]  # S, MCB, DSC, UNC: (1.36 - 1) / 5, (1.2 - 1) / 5
    [0.272, 0.072, 0.04, 0.24]
    """
    pos, neg = _total(stack.pos), _total(stack.neg)
    weight = pos + neg
    blocks = stack.pos.astype(np.float64), stack.neg.astype(np.float64)
    sizes = blocks[0] + blocks[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        brier_rc = exact_total(np.where(sizes > 0, blocks[0] * blocks[1] / sizes, 0.0))
        log_rc = exact_total(_entropy_terms(*blocks))
        log_unc = exact_total(_entropy_terms(*(np.array([float(v)]) for v in (pos, neg))))

    def split(total: int, rc: int, unc: Fraction) -> Parts:
        score, rc_sum = total * _UNIT, rc * _UNIT
        return (
            _over(score, weight),
            _over(score - rc_sum, weight),
            _over(unc - rc_sum, weight),
            _over(unc, weight),
        )

    brier = split(stack.brier, brier_rc, pos * neg / weight if weight else Fraction(0))
    log = split(stack.log, log_rc, log_unc * _UNIT)
    if stack.infinite:
        log = (math.inf, math.inf, log[2], log[3])
    return Decomposition(brier, log, _over(stack.proba * _UNIT, weight), _over(pos, weight))


def _total(values: np.ndarray) -> Fraction:
    """The exact sum of counts or weights."""
    if values.dtype.kind != "f":
        return Fraction(int(values.sum()))  # row counts: far below 2**63
    return exact_total(values) * _UNIT


def _over(value: Fraction, weight: Fraction) -> float:
    return float(value / weight) if weight else math.nan


def _entropy_terms(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """``-(pos * log(pos / w) + neg * log(neg / w))`` per block, 0 * log 0 = 0: its log score."""
    sizes = pos + neg
    return np.concatenate([_xlog(pos, np.log(pos / sizes)), _xlog(neg, np.log(neg / sizes))])


def thinned(stack: BlockStack, values: np.ndarray, max_points: int | None) -> np.ndarray:
    """Indices (ascending) of the blocks to draw: at most ``max_points``, all when fewer.

    As curves are thinned (:mod:`.thinning`): along the diagram ``score +
    fitted value`` grows from 0 to 2, and of each cell of :func:`~.thinning.grid_step`'s
    grid the first and the last block are kept, so that every block dropped lies
    with the steps between its kept neighbours in one cell.  Only the drawing
    is thinned: the decomposition comes from every block.

    Examples
    --------
    >>> stack = BlockStack(np.linspace(0, 1, 5), np.linspace(0, 1, 5), np.ones(5), np.ones(5))
    >>> thinned(stack, np.linspace(0, 1, 5), 4)  # arcs 0 .5 1 1.5 2, cells of width 2: 0 0 0 0 1
    array([0, 3, 4])
    """
    n = len(stack)
    if max_points is None or n <= max_points:
        return np.arange(n)
    step = grid_step(max_points)
    if math.isinf(step):
        return np.array([0, n - 1])
    cells = np.floor((stack.low + values) / step)
    change = cells[1:] != cells[:-1]
    return np.flatnonzero(np.concatenate(([True], change)) | np.concatenate((change, [True])))
