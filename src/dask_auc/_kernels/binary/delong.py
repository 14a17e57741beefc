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

For the covariance of ``k`` models' AUCs (the paired test of two, and the
``k x k`` matrix of :func:`~dask_auc.compare`) every model's placement of a row is
needed together: each model's rows carry their ids through its sort
(``SortedScores.ids``: the block and the row's position among the block's
rows of its class, :func:`traced_block`; sorted with the scores by one sort
of packed keys: :func:`~dask_auc._kernels.core.order.stable_order`), every
bucket routes each class's placements back to their input blocks
(:func:`routed_placements`, a counting partition by block number), and there
all ``k`` placements of a row meet, each written straight to its slot of the
block's rows of its class, and the block sums their products
(:func:`cross_sums`): ``k x k`` matrices over the positive rows and over the
negative rows.

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.summary import PartialROC, merge_run, neighbourhoods
from ..core.validation import RowCounts, as_score_array, distinct_labels, to_numpy
from ..sort import compiled as _compiled
from ..sort.buckets import Bucket, rows_through
from ..sort.prepare import PreparedBlock, unsplit_rows
from ..sort.rows import ID_BITS, SortedScores, traced_by_label

#: the names of :func:`~dask_auc.delong_test`'s row inputs
PAIRED_INPUTS = ("y_true", "score_a", "score_b")


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


# --- paired placements: row ids through the sort ---------------------------------


@dataclass(frozen=True)
class PairedBlock(SizedByArrays):
    """One validated block of ``y_true`` with every model's scores of its rows.

    ``positions``: each row's position among the block's rows of its label
    (:func:`class_positions`), the low bits of its id in every model's sort.
    """

    lengths: RowCounts
    classes: tuple[Any, ...]
    labels: np.ndarray
    scores: tuple[np.ndarray, ...]
    positions: np.ndarray


def prepare_paired_block(
    label: Any, *scores: Any, names: tuple[str, ...] = PAIRED_INPUTS
) -> PairedBlock:
    """Validate one block of ``(y_true, *scores)``, one score per model (scikit-learn's messages).

    Examples
    --------
    >>> block = prepare_paired_block([0, 1, 1], [0.2, 0.4, 0.3], [1, 2, 3], [0.5, 0.5, 0.1])
    >>> block.classes, len(block.scores), block.scores[2].tolist()
    ((0, 1), 3, [0.5, 0.5, 0.1])
    """
    label, models = to_numpy(label), [to_numpy(s) for s in scores]
    lengths = RowCounts.of(names, label, *models)
    if not lengths.aligned:
        empty = np.empty(0, np.int64)
        return PairedBlock(lengths, (), label[:0], tuple(s[:0] for s in models), empty)
    # any number of classes: a target of more than two is the caller's error
    # once every block's classes are known (its finish step)
    classes = distinct_labels(label)
    scored = tuple(as_score_array(s) for s in models)
    return PairedBlock(lengths, classes, label, scored, class_positions(classes, label))


def traced_block(
    block: PairedBlock, index: int, model: int, compiled: bool = False
) -> PreparedBlock:
    """One model's scores of a block, carrying row ids: sorted within each label, or unsplit.

    A row's id is ``index << ID_BITS | its position among its label's rows in
    the block`` (:func:`class_positions`): routed back, a placement goes
    straight to its slot in the block's rows of its class, in row order.
    With ``compiled``, a large block is kept unsplit for the compiled split
    (:func:`~dask_auc._kernels.sort.prepare.unsplit_rows`), as the plain
    sort keeps one: each bucket sorts its rows once.  The same order of rows
    either way (equal scores in row order).
    """
    scores = block.scores[model]
    ids = block.positions | np.int64(index) << np.int64(ID_BITS)
    unsplit = unsplit_rows(block.classes, block.labels, scores, compiled=compiled, ids=ids)
    if unsplit is not None:
        return PreparedBlock(block.lengths, block.classes, {}, unsplit)
    by_label = traced_by_label(block.classes, block.labels, scores, ids)
    return PreparedBlock(block.lengths, block.classes, by_label)


def class_positions(classes: tuple[Any, ...], labels: np.ndarray) -> np.ndarray:
    """Each row's position among the rows of its label (int64, in row order).

    Examples
    --------
    >>> class_positions((0, 1), np.array([1, 0, 0, 1, 1])).tolist()
    [0, 0, 1, 1, 2]
    """
    if len(classes) <= 1:
        return np.arange(len(labels), dtype=np.int64)
    if len(classes) == 2:
        # the second label's rows up to each row: a row of the first is preceded by
        # its position less that many, a row of the second is that many less one
        second = labels == classes[1]
        seconds = np.cumsum(second)
        firsts = np.arange(len(labels), dtype=np.int64)
        firsts -= seconds
        seconds -= 1
        return np.where(second, seconds, firsts)
    positions = np.empty(len(labels), np.int64)
    for value in classes:  # more than two: the caller's error, once every block's are known
        rows = labels == value
        positions[rows] = np.arange(np.count_nonzero(rows), dtype=np.int64)
    return positions


#: one block's routed placements of one model: ``(ids, V10 - AUC)`` of positive rows and
#: ``(ids, V01 - AUC)`` of negative rows (ids as :func:`traced_block` makes them)
Routed = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def routed_placements(bucket: Bucket, context: BucketContext | None, n_blocks: int) -> list[Routed]:
    """The bucket's centred placements of each class, split by input block.

    A counting partition by block number (the sort's compiled scatter), or
    NumPy's radix sort of 16-bit block numbers without numba; the order of a
    block's piece is free, as each row's value goes to its own slot there.
    Each class is partitioned apart (no concatenation), and the block number
    is read from the ids' bits in place (a strided view) where it can be.
    """
    empty, nothing = np.empty(0, np.int64), np.empty(0)
    if context is None or not (context.total_pos and context.total_neg):
        return [(empty, nothing, empty, nothing)] * n_blocks
    placed = bucket_placements(bucket, context)
    pos = _by_block(
        _ids(bucket.pos), placed.pos / (2 * context.total_neg) - context.auc, n_blocks,
        bucket.compiled,
    )  # fmt: skip
    neg = _by_block(
        _ids(bucket.neg), placed.neg / (2 * context.total_pos) - context.auc, n_blocks,
        bucket.compiled,
    )  # fmt: skip
    return [(*p, *n) for p, n in zip(pos, neg, strict=True)]


def _by_block(
    ids: np.ndarray, values: np.ndarray, n_blocks: int, compiled: bool
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(ids, values)`` split by the ids' block number (any order within a block)."""
    if n_blocks <= 1 << 16:
        blocks = _block_numbers(ids)
        found = _compiled.partitioned(blocks, n_blocks, ids, values, compiled=compiled)
        if found is not None:
            cuts, (ids, values) = found
            return [
                (ids[cuts[i] : cuts[i + 1]], values[cuts[i] : cuts[i + 1]]) for i in range(n_blocks)
            ]
    else:
        blocks = ids >> ID_BITS
    order = np.argsort(blocks, kind="stable")
    cuts = np.searchsorted(blocks[order], np.arange(n_blocks + 1))
    return [
        (ids[order[cuts[i] : cuts[i + 1]]], values[order[cuts[i] : cuts[i + 1]]])
        for i in range(n_blocks)
    ]


def _block_numbers(ids: np.ndarray) -> np.ndarray:
    """The block numbers (below ``2 ** 16``) of ids, as uint16: bits 32 to 47 of each id."""
    if np.little_endian and ids.flags.c_contiguous:
        # the id's third 16-bit word: one copy of a strided view, not a shift and a cast
        return np.ascontiguousarray(ids.view(np.uint16)[ID_BITS // 16 :: 4])
    return (ids >> ID_BITS).astype(np.uint16)


def _ids(part: SortedScores) -> np.ndarray:
    return np.empty(0, np.int64) if part.ids is None else part.ids


@dataclass(frozen=True)
class CrossSums(SizedByArrays):
    """Sums over the positive (and the negative) rows of centred placement products.

    ``pos[i, j]`` sums ``(V10_i - AUC_i) * (V10_j - AUC_j)`` over the positive
    rows, models ``i`` and ``j`` (``k x k``, symmetric); ``neg`` the same of
    ``V01`` over the negative rows.
    """

    pos: np.ndarray
    neg: np.ndarray

    def __add__(self, other: CrossSums) -> CrossSums:
        return CrossSums(self.pos + other.pos, self.neg + other.neg)


def cross_sums(block: PairedBlock, *pieces: Sequence[Routed]) -> CrossSums:
    """Pair one block's placements under every model by row; sum their products.

    ``pieces[i]`` is model ``i``'s routed pieces of this block's rows
    (:data:`Routed`, one per bucket).  Each id's low bits are its row's
    position among the block's rows of its class, so each placement goes to
    its slot of a ``k x rows`` matrix of the positive rows (and one of the
    negative rows), in row order.  Each pair of models is summed as the
    two-model kernel sums it (:func:`pair_products`), so that the test of two
    models in a ``k``-model pass is :func:`~dask_auc.delong_test`'s, to the bit.

    Examples
    --------
    >>> block = prepare_paired_block([0, 1, 1], [0.1, 0.2, 0.3], [0.1, 0.2, 0.3])
    >>> ids = np.array([1, 0])  # the positive rows of block 0, in any order
    >>> piece = [(ids, np.array([0.5, -1.0]), np.array([0]), np.array([0.25]))]
    >>> sums = cross_sums(block, piece, piece)
    >>> sums.pos.tolist(), sums.neg.tolist()
    ([[1.25, 1.25], [1.25, 1.25]], [[0.0625, 0.0625], [0.0625, 0.0625]])
    """
    first = pieces[0] if pieces else []
    sizes = (sum(len(p[0]) for p in first), sum(len(p[2]) for p in first))
    matrices = []
    for side, size in zip((0, 2), sizes, strict=True):
        # zeros: every slot of a binary input is written once; a slot no row fills (labels
        # that are not binary, refused by the finish) must hold no uninitialised value
        values = np.zeros((len(pieces), size))
        for model, routed in enumerate(pieces):
            row = values[model]  # a view: assigning through it skips a mixed index's setup
            for piece in routed:
                row[_positions(piece[side])] = piece[side + 1]
        matrices.append(pair_products(values))
    return CrossSums(*matrices)


def _positions(ids: np.ndarray) -> np.ndarray:
    """The ids' low bits: the rows' positions among their block's rows of their class."""
    return ids & np.int64((1 << ID_BITS) - 1)


def pair_products(rows: np.ndarray) -> np.ndarray:
    """``k x k`` sums of products of ``k`` rows of values, each pair's from the two rows alone.

    One ``k``-row product (``rows @ rows.T``) would be the same sums, but BLAS
    may add a pair's products in another order for ``k`` rows than for two (it
    does on OpenBLAS's oldest x86 kernels: ``.ci/baseline_simd.py``), and a
    model scored twice would then differ from itself by a rounding.  The
    product of two rows has entries that depend on those rows alone (neither on
    their order nor on the other row's values: ``tests/test_delong.py``), so
    each entry is the same whichever pair gives it.  Each pair is a strided
    view of ``rows`` (rows ``i`` and ``j``, no copy): BLAS reads it in place.

    Examples
    --------
    >>> rows = np.array([[1.0, 2.0], [0.5, -1.0], [1.0, 2.0]])
    >>> pair_products(rows).tolist()
    [[5.0, -1.5, 5.0], [-1.5, 1.25, -1.5], [5.0, -1.5, 5.0]]
    """
    k = len(rows)
    sums = np.zeros((k, k))
    rows = np.ascontiguousarray(rows)
    for i in range(k):
        for j in range(i + 1, k):
            pair = rows[i :: j - i][:2]  # rows i and j, a view
            (sums[i, i], sums[i, j]), (sums[j, i], sums[j, j]) = pair @ pair.T
    return sums


def total_cross_sums(parts: Sequence[CrossSums]) -> CrossSums:
    """The blocks' sums, added in block order (from zero, as one block's own)."""
    parts = list(parts)
    total = CrossSums(np.zeros_like(parts[0].pos), np.zeros_like(parts[0].neg))
    for part in parts:
        total = total + part
    return total
