"""The buckets of the sort: blocks cut at the plan's splitters, merged, summarized.

Steps 3 and 4 of the sort (described in :mod:`~dask_auc._kernels.sort.prepare`):

3. :func:`split_block` cuts every sorted class array at the splitters
   (binary searches, views, no copy) into one piece per bucket; an
   :class:`~dask_auc._kernels.sort.rows.UnsplitRows` block is grouped by class
   and bucket in two compiled passes instead.
4. :func:`assemble_bucket` merges the pieces of one bucket, and
   :func:`summarize_bucket` reduces it to a
   :class:`~dask_auc._kernels.core.summary.PartialROC`.

Also the bucket's pair counts (:func:`pair_counts`, run-length or row by
row, or one compiled merge), its edge scores and their ties
(:func:`edge`, :func:`total_equal`), which the multi-class summary uses too,
and :func:`rows_through`.

Buckets are numbered in descending score order: bucket 0 holds the highest
scores.  A tie group heavy enough to fill several buckets is spread over them
(ties never need to stay together: the merge corrects for a straddling group).

Nothing here imports dask.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.summary import PartialROC, TieGroup
from . import compiled as _compiled
from .plan import SortPlan
from .prepare import PreparedBlock, narrowed
from .rows import (
    SortedScores,
    UnsortedScores,
    UnsplitRows,
    looks_tied,
    merged_parts,
    score_runs,
    sort_owned,
    traced_by_code,
)


@dataclass(frozen=True)
class Bucket(SizedByArrays):
    """The rows of one bucket (or one block's piece of it), one sorted part per class.

    ``groups`` follow the plan's ``group_keys``: ``(negatives, positives)`` for
    a binary target, one part per class for a multi-class score column.
    """

    groups: tuple[SortedScores, ...]
    weight_exponent: int = 0  # the plan's, for the pair counts of the summary
    compiled: bool = False  # the plan's: may the summary use the compiled loops
    #: its curve points placed among all buckets' (absolute counts, with the rows below each),
    #: once made (:func:`~dask_auc._kernels.binary.curves.with_placed_points`)
    placed: Any = None
    #: the answers to the questions that take no parameter, kept by a persisted ROC
    #: (:func:`~dask_auc._kernels.binary.curves.with_answers`)
    answers: Any = None

    @classmethod
    def binary(
        cls, pos: SortedScores, neg: SortedScores, weight_exponent: int = 0, compiled: bool = False
    ) -> Bucket:
        return cls((neg, pos), weight_exponent, compiled)

    @property
    def pos(self) -> SortedScores:
        """The positives of a binary bucket."""
        return self.groups[1]

    @property
    def neg(self) -> SortedScores:
        """The negatives of a binary bucket."""
        return self.groups[0]


def cut_positions(scores: np.ndarray, splitters: np.ndarray) -> np.ndarray:
    """Where to cut one ascending array so that piece j lands in ascending bucket j.

    A splitter value that repeats ``m`` times (a heavy tie) cuts its run of
    equal scores into ``m + 1`` near-equal parts instead of sending it whole
    to one bucket; a value that occurs once keeps its ties together.
    """
    values, first, repeats = np.unique(splitters, return_index=True, return_counts=True)
    left = np.searchsorted(scores, values, "left")
    right = np.searchsorted(scores, values, "right")
    rank = np.arange(len(splitters)) - np.repeat(first, repeats)
    m = np.repeat(repeats, repeats)
    low, high = np.repeat(left, repeats), np.repeat(right, repeats)
    spread = low + (high - low) * (rank + 1) // (m + 1)
    cuts = np.where(m == 1, high, spread)
    return np.concatenate(([0], cuts, [len(scores)]))


def split_block(block: PreparedBlock, plan: SortPlan) -> list[Bucket]:
    """Cut a prepared block into one piece per bucket, highest bucket first.

    Each piece holds one part per key of ``plan.group_keys``; a class the
    block lacks is an empty part, in the plan's dtype, with the block's payloads.
    An :class:`~dask_auc._kernels.sort.rows.UnsplitRows` block is grouped by the
    compiled loops into :class:`~dask_auc._kernels.sort.rows.UnsortedScores`
    pieces (sorted by the bucket).
    """
    if block.unsplit is not None:
        return _split_unsplit(block, block.unsplit, plan)
    parts = {key: part.in_plan(plan) for key, part in block.by_label.items()}
    empty = next(iter(parts.values())).empty() if parts else SortedScores(plan.splitters[:0])
    groups = [parts.get(key, empty) for key in plan.group_keys]
    cuts = [cut_positions(group.scores, plan.splitters) for group in groups]
    # a small block reaches few of many buckets: the others share one empty piece
    reached = np.any([np.diff(c) > 0 for c in cuts], axis=0) if cuts else []
    nothing = Bucket(tuple(g.slice(0, 0) for g in groups), plan.weight_exponent, plan.compiled)
    pieces = [
        Bucket(
            tuple(g.slice(c[j], c[j + 1]) for g, c in zip(groups, cuts, strict=True)),
            plan.weight_exponent,
            plan.compiled,
        )
        if reached[j]
        else nothing
        for j in range(plan.n_buckets)
    ]
    return pieces[::-1]


def _split_unsplit(block: PreparedBlock, rows: UnsplitRows, plan: SortPlan) -> list[Bucket]:
    scores, splitters = rows.scores, _narrowed_splitters(rows, plan.splitters)
    if splitters is None:  # the rows in the plan's dtype (widened, if they were narrowed)
        scores, splitters = scores.astype(plan.splitters.dtype, copy=False), plan.splitters
    n_codes = len(rows.keys)
    found = _compiled.grouped_rows(scores, rows.codes, n_codes, splitters, rows.ids)
    if found is None:  # this worker cannot run the compiled loops: sort as NumPy does
        scores = scores.astype(plan.splitters.dtype, copy=False)
        if rows.ids is not None:  # the codes stand for the labels: the numeric fast path
            by_label = traced_by_code(rows.keys, rows.codes, scores, rows.ids)
        else:
            by_label = {
                key: sort_owned(np.compress(rows.codes == code, scores), None)
                for code, key in enumerate(rows.keys)
            }
        return split_block(PreparedBlock(block.lengths, block.classes, by_label), plan)
    grouped, starts, ids = found
    code_of = {key: code for code, key in enumerate(rows.keys)}
    # narrowed rows stay narrow until their bucket is sorted, which widens them to this
    given = None if grouped.dtype == plan.splitters.dtype else plan.splitters.dtype

    def piece(a: int, b: int) -> SortedScores:
        # a piece is the one place a bucket holds unsorted rows: assemble_bucket sorts them
        piece_ids = None if ids is None else ids[a:b]
        return cast(SortedScores, UnsortedScores(grouped[a:b], None, piece_ids, given=given))

    none = piece(0, 0)

    def part(bucket: int, key: Any) -> SortedScores:
        code = code_of.get(key)
        if code is None:
            return none
        group = bucket * n_codes + code
        return piece(starts[group], starts[group + 1])

    pieces = [
        Bucket(tuple(part(j, key) for key in plan.group_keys), plan.weight_exponent, plan.compiled)
        for j in range(plan.n_buckets)
    ]
    return pieces[::-1]


def _narrowed_splitters(rows: UnsplitRows, splitters: np.ndarray) -> np.ndarray | None:
    """The plan's splitters in the narrowed rows' dtype, when each converts exactly; else None.

    Exact splitters cut narrowed rows where they cut the given ones: a row's
    bucket counts the splitters below it, and both sides of every compare
    are the same values.  (They are, when every block was narrowed: each
    splitter is a sampled score.)
    """
    if rows.given is None or splitters.dtype != rows.given:
        return None
    return narrowed(splitters)  # the rows' own test: float32 values, all of them


def assemble_bucket(*pieces: Bucket) -> Bucket:
    """Merge one bucket's pieces (one from each block) into sorted class arrays."""
    n_groups = len(pieces[0].groups)
    return Bucket(
        tuple(merged_parts([p.groups[k] for p in pieces]) for k in range(n_groups)),
        pieces[0].weight_exponent,
        pieces[0].compiled,
    )


def summarize_bucket(bucket: Bucket) -> PartialROC:
    """Reduce a bucket to its :class:`PartialROC`.

    Each positive outranks the negatives scoring strictly lower and ties with
    the equal ones; both counts come from binary searches of the sorted
    positives into the sorted negatives (or from one compiled merge of the
    two, :attr:`Bucket.compiled`).

    Examples
    --------
    >>> pos = SortedScores(np.array([0.5, 0.9]))
    >>> neg = SortedScores(np.array([0.1, 0.5]))
    >>> summary = summarize_bucket(Bucket.binary(pos, neg))
    >>> summary.strict, summary.tied
    (3, 1)
    """
    pos, neg = bucket.pos, bucket.neg
    if len(pos) == 0 and len(neg) == 0:
        return PartialROC.empty()
    strict, tied = pair_counts(pos, neg, bucket.weight_exponent, bucket.compiled)
    top = max(edge(pos, -1), edge(neg, -1))
    bottom = min(edge(pos, 0), edge(neg, 0))
    return PartialROC(
        pos.total,
        neg.total,
        strict,
        tied,
        TieGroup(top, total_equal(pos, top), total_equal(neg, top)),
        TieGroup(bottom, total_equal(pos, bottom), total_equal(neg, bottom)),
        bucket.weight_exponent,
    )


def pair_counts(
    pos: SortedScores, neg: SortedScores, weight_exponent: int = 0, compiled: bool = False
) -> tuple[int | float, int | float]:
    """(pairs with pos > neg, pairs with pos == neg), weighted when weights exist.

    Weighted pair counts are in the units of
    :func:`~dask_auc._kernels.core.summary.pair_product` for ``weight_exponent``.
    Unweighted rows are counted by one compiled merge when ``compiled``.
    """
    if pos.counted or neg.counted:
        return _counted_pair_counts(pos, neg)
    weighted = pos.weights is not None or neg.weights is not None
    zero: int | float = 0.0 if weighted else 0
    if len(pos) == 0 or len(neg) == 0:
        return zero, zero
    if not weighted:
        merged = _compiled.pair_counts(pos.scores, neg.scores, compiled=compiled)
        if merged is not None:
            return merged
    if weighted and weight_exponent:
        pos, neg = _scaled(pos, weight_exponent), _scaled(neg, weight_exponent)
    if looks_tied(pos.scores):
        return _run_pair_counts(pos, neg)
    below = np.searchsorted(neg.scores, pos.scores, "left")
    nearest = neg.scores[np.minimum(below, len(neg) - 1)]
    ties = np.flatnonzero(nearest == pos.scores)
    through = np.searchsorted(neg.scores, pos.scores[ties], "right")
    if not weighted:
        return int(below.sum()), int((through - below[ties]).sum())
    assert pos.weights is not None and neg.weights is not None
    neg_cumulative = np.concatenate(([0.0], np.cumsum(neg.weights)))
    strict = float(pos.weights @ neg_cumulative[below])
    tied_weight = neg_cumulative[through] - neg_cumulative[below[ties]]
    return strict, float(pos.weights[ties] @ tied_weight)


def _counted_pair_counts(pos: SortedScores, neg: SortedScores) -> tuple[int, int]:
    """:func:`pair_counts` when a part is aggregated (integer multiplicities): exact ints.

    The other part may be rows (a block that was not aggregated): rows that
    look tied are taken as their runs, others one by one.
    """
    if len(pos) == 0 or len(neg) == 0:
        return 0, 0
    values, counts = pos.scores, pos.weights
    if counts is None and looks_tied(values):
        values, counts = score_runs(values)
    below = np.searchsorted(neg.scores, values, "left")
    through = np.searchsorted(neg.scores, values, "right")
    neg_rows = rows_through(neg)
    strict, tied = neg_rows[below], neg_rows[through] - neg_rows[below]
    if counts is None:
        return int(strict.sum()), int(tied.sum())
    if pos.total * neg.total >= 2**63:  # int64 products could overflow: Python ints
        counts = counts.astype(object)
    return int(counts @ strict), int(counts @ tied)


def rows_through(part: SortedScores) -> np.ndarray:
    """``r[i]``: the rows of the part's first ``i`` entries (multiplicities summed), exact.

    Rows and aggregated parts alike: the number of rows below an entry found
    by a binary search is ``r[index]``.
    """
    if part.weights is None:
        return np.arange(len(part) + 1, dtype=np.int64)
    return np.concatenate(([0], np.cumsum(part.weights)))


def _scaled(part: SortedScores, weight_exponent: int) -> SortedScores:
    assert part.weights is not None
    return replace(part, weights=np.ldexp(part.weights, weight_exponent))


def _run_pair_counts(pos: SortedScores, neg: SortedScores) -> tuple[int | float, int | float]:
    """:func:`pair_counts` searching only the distinct positive scores.

    Every positive of a run of equal scores has the same negatives below and
    level with it, so one search per run, weighted by the run's count (or
    total weight), gives the same sums.
    """
    values, counts = score_runs(pos.scores)
    below = np.searchsorted(neg.scores, values, "left")
    through = np.searchsorted(neg.scores, values, "right")
    if pos.weights is None and neg.weights is None:
        return int(counts @ below), int(counts @ (through - below))
    assert pos.weights is not None and neg.weights is not None
    run_weights = np.add.reduceat(pos.weights, np.cumsum(counts) - counts)
    neg_cumulative = np.concatenate(([0.0], np.cumsum(neg.weights)))
    strict = float(run_weights @ neg_cumulative[below])
    return strict, float(run_weights @ (neg_cumulative[through] - neg_cumulative[below]))


def edge(part: SortedScores, index: int) -> Any:
    """The part's lowest (``index`` 0) or highest (``index`` -1) score, a Python value.

    An empty part has no edge: ``inf`` for the lowest, ``-inf`` for the highest,
    so that ``min`` and ``max`` over a bucket's parts skip it.
    """
    if len(part) == 0:
        return np.inf if index == 0 else -np.inf
    return part.scores[index].item()


def total_equal(part: SortedScores, value: Any) -> int | float:
    """The part's rows (or their weight) of score ``value``: exact ints unless weighted."""
    start = np.searchsorted(part.scores, value, "left")
    stop = np.searchsorted(part.scores, value, "right")
    if part.weights is None:
        return int(stop - start)
    if part.counted:
        return int(part.weights[start:stop].sum())
    return float(part.weights[start:stop].sum())
