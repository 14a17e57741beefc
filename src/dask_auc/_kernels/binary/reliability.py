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

A bucket knows nothing of the others: the tie groups at its two ends may
continue into its neighbours, so it keeps them aside, unpooled (``bottom``
and ``top``, :class:`Group`), and pools only the scores between them.  The
merge joins a stack's top group with the next stack's bottom group when they
hold one score; a group no longer at an end of the merged stack is whole, and
enters the PAV and the sums then (:func:`completed` does it for the last two):
every distinct score enters the PAV once, with all of its rows, and no task
waits for the others before reducing its bucket.

Nothing here imports dask.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.summary import UNIT_BITS, exact_total
from ..sort.buckets import Bucket
from ..sort.rows import SortedScores
from .reliability_compiled import bucket_stack, numpy_faster
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
    bottom, top : Group or None
        The tie groups at the stack's ends, kept aside while they may continue into
        the neighbouring buckets: below the blocks and above them, not in the sums.
        One group only is ``bottom``; a stack of whole groups has neither.
    """

    low: np.ndarray
    high: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    brier: int = 0
    log: int = 0
    proba: int = 0
    infinite: bool = False
    bottom: Group | None = None
    top: Group | None = None

    def __len__(self) -> int:
        return len(self.pos)


class Group(NamedTuple):
    """One distinct score's rows (or weight) of each class: a tie group."""

    score: float
    pos: Any
    neg: Any


def bucket_blocks(bucket: Bucket) -> BlockStack:
    """The PAV block stack of this bucket's distinct scores, its end groups kept aside.

    Ties are pooled first; the lowest and the highest score's groups are the
    stack's ``bottom`` and ``top`` (they may continue into the neighbouring
    buckets), the scores between them are pooled and summed.  By one compiled
    merge of the bucket's two classes where the numba loops run
    (:func:`~.reliability_compiled.bucket_stack`) and are the faster (not weighted rows
    mostly tied: :func:`~.reliability_compiled.numpy_faster`), else by NumPy
    (:func:`score_counts`, then :func:`pooled`): the same bits.

    Examples
    --------
    >>> pos = SortedScores(np.array([0.2, 0.4, 0.7, 0.8]))
    >>> neg = SortedScores(np.array([0.4, 0.6]))
    >>> stack = bucket_blocks(Bucket.binary(pos, neg))
    >>> stack.low, stack.high, stack.pos, stack.neg  # 0.4 (1 of 2) and 0.6 (0 of 1) pool
    (array([0.4, 0.7]), array([0.6, 0.7]), array([1, 1]), array([2, 0]))
    >>> [float(g.score) for g in (stack.bottom, stack.top)]
    [0.2, 0.8]
    """
    found = None if numpy_faster(bucket) else bucket_stack(bucket, 1 - WEIGHTED_TOLERANCE)
    if found is not None:
        *blocks, ends = found
        return BlockStack(*blocks, *(Group(*end) for end in ends))
    scores, pos, neg = score_counts(bucket)
    n = len(scores)
    if n <= 1:
        bottom = Group(scores[0], pos[0], neg[0]) if n else None
        return BlockStack(scores[:0], scores[:0], pos[:0], neg[:0], bottom=bottom)
    ends = (Group(scores[0], pos[0], neg[0]), Group(scores[-1], pos[-1], neg[-1]))
    inner = slice(1, n - 1)
    scores, pos, neg = scores[inner], pos[inner], neg[inner]
    return pooled(BlockStack(scores, scores, pos, neg, *score_sums(scores, pos, neg), *ends))


def score_sums(scores: np.ndarray, pos: np.ndarray, neg: np.ndarray) -> tuple[int, int, int, bool]:
    """The exact Brier, finite log and probability sums of whole tie groups, and ``infinite``.

    One term per distinct score, made of its whole tie group: the same floats
    whatever the partitioning, so their exact sums are too.  Scores outside
    [0, 1] are no probabilities: nothing is summed (the finish raises on them).
    """
    if len(scores) == 0 or scores.min() < 0 or scores.max() > 1:
        return 0, 0, 0, False
    with np.errstate(divide="ignore"):  # log(0): a probability 0 of the outcome, inf
        log_terms = _xlog(pos, np.log(scores)) + _xlog(neg, np.log1p(-scores))
    finite = np.isfinite(log_terms)
    return (
        exact_total(pos * (1 - scores) ** 2 + neg * scores**2),
        exact_total(log_terms[finite]),
        exact_total((pos + neg) * scores),
        not finite.all(),
    )


def score_counts(bucket: Bucket) -> tuple[np.ndarray, ...]:
    """The distinct scores (ascending, float64) of the bucket, with each class's rows at each.

    The NumPy path of :func:`bucket_blocks`; ``-0.0`` is 0.0.
    """
    (pos_scores, pos_counts), (neg_scores, neg_counts) = (
        _distinct(bucket.pos),
        _distinct(bucket.neg),
    )
    scores = np.union1d(pos_scores, neg_scores)
    dtype = np.result_type(pos_counts, neg_counts)
    pos, neg = np.zeros(len(scores), dtype), np.zeros(len(scores), dtype)
    pos[np.searchsorted(scores, pos_scores)] = pos_counts
    neg[np.searchsorted(scores, neg_scores)] = neg_counts
    return np.add(scores, 0.0, dtype=np.float64), pos, neg


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

    Associative, not commutative: the stacks are joined in ascending score
    order (:func:`joined`), where only the seams can violate.

    Examples
    --------
    >>> high = BlockStack(np.array([0.6]), np.array([0.9]), np.array([1]), np.array([1]))
    >>> low = BlockStack(np.array([0.1]), np.array([0.3]), np.array([2]), np.array([0]))
    >>> merged = merged_blocks([high, low])  # the low scores' mean 1 > 1/2: one block
    >>> merged.low, merged.high, merged.pos, merged.neg
    (array([0.1]), array([0.9]), array([3]), array([1]))
    """
    ascending = list(stacks)[::-1]
    merged = ascending[0]
    for stack in ascending[1:]:
        merged = joined(merged, stack)
    return merged


def joined(lower: BlockStack, upper: BlockStack) -> BlockStack:
    """Two neighbouring stacks as one: ``upper`` holds the higher scores.

    Their facing end groups become one when they hold one score; every group
    no longer at an end of the result is whole, and joins the blocks (and the
    sums) between the ends; the blocks are pooled again.
    """
    below, above = _items(lower), _items(upper)
    items = [*below, *above]
    seam = len(below)
    if 0 < seam < len(items):
        a, b = items[seam - 1], items[seam]
        if isinstance(a, Group) and isinstance(b, Group) and a.score == b.score:
            items[seam - 1 : seam + 1] = [Group(a.score, a.pos + b.pos, a.neg + b.neg)]
    bottom = items[0] if items and isinstance(items[0], Group) else None
    top = items[-1] if len(items) > 1 and isinstance(items[-1], Group) else None
    inner = items[bottom is not None : len(items) - (top is not None)]
    base = BlockStack(
        lower.low[:0],
        lower.low[:0],
        lower.pos[:0],
        lower.neg[:0],
        lower.brier + upper.brier,
        lower.log + upper.log,
        lower.proba + upper.proba,
        lower.infinite or upper.infinite,
        bottom,
        top,
    )
    return _assembled(base, inner)


def completed(stack: BlockStack) -> BlockStack:
    """The stack with its end groups whole (no bucket lies beyond it): blocks and sums only."""
    if stack.bottom is None and stack.top is None:
        return stack
    return _assembled(replace(stack, bottom=None, top=None), _items(stack))


def _items(stack: BlockStack) -> list[Any]:
    """The stack in ascending order: its bottom group, its blocks (the stack), its top group."""
    items: list[Any] = [] if stack.bottom is None else [stack.bottom]
    if len(stack):
        items.append(stack)
    if stack.top is not None:
        items.append(stack.top)
    return items


def _assembled(base: BlockStack, inner: list[Any]) -> BlockStack:
    """``base``'s sums and ends with the blocks of ``inner`` (stacks, and groups made whole)."""
    parts: list[BlockStack] = []
    for item in inner:
        if isinstance(item, Group):
            scores = np.array([item.score], np.float64)
            pos, neg = np.array([item.pos]), np.array([item.neg])
            brier, log, proba, infinite = score_sums(scores, pos, neg)
            base = replace(
                base,
                brier=base.brier + brier,
                log=base.log + log,
                proba=base.proba + proba,
                infinite=base.infinite or infinite,
            )
            item = BlockStack(scores, scores, pos, neg)
        parts.append(item)
    if not parts:
        return base
    low, high, pos, neg = (
        np.concatenate([getattr(p, name) for p in parts]) for name in ("low", "high", "pos", "neg")
    )
    return pooled(replace(base, low=low, high=high, pos=pos, neg=neg))


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
    return replace(stack, low=low, high=high, pos=pos, neg=neg)


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
    >>> parts = decomposition(completed(bucket_blocks(Bucket.binary(pos, neg))))
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
