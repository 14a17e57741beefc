"""DeLong's covariance of ``k`` models scored on the same rows: each row's placements, paired.

For the covariance of ``k`` models' AUCs (the paired test of two, and the
``k x k`` matrix of :func:`~dask_auc.compare`) every model's placement of a row
(:mod:`.delong`) is needed together: each model's rows carry their ids through
its sort (``SortedScores.ids``: the block and the row's position among the
block's rows of its class, :func:`traced_block`; sorted with the scores by one
sort of packed keys: :func:`~dask_auc._kernels.core.order.stable_order`), every
bucket routes each class's placements back to their input blocks
(:func:`routed_placements`, a counting partition by block number), and there
all ``k`` placements of a row meet, each written straight to its slot of the
block's rows of its class, and the block sums their products
(:func:`cross_sums`): ``k x k`` matrices over the positive rows and over the
negative rows.  A model of few distinct scores skips the ids: its placements
are looked up by score (:mod:`.delong_tables`).

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.validation import RowCounts, as_score_array, distinct_labels, to_numpy
from ..sort import compiled as _compiled
from ..sort.buckets import Bucket
from ..sort.plan import SortPlan
from ..sort.prepare import PreparedBlock, unsplit_rows
from ..sort.rows import ID_BITS, SortedScores, traced_by_label
from .delong import BucketContext, bucket_placements
from .delong_tables import PlacementTable, aggregated_block, distinct_estimates, tabled_values

#: the names of :func:`~dask_auc.delong_test`'s row inputs
PAIRED_INPUTS = ("y_true", "score_a", "score_b")


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
    compiled: bool = False  # whether its cross sums may use the compiled loops


def prepare_paired_block(
    label: Any, *scores: Any, names: tuple[str, ...] = PAIRED_INPUTS, compiled: bool = False
) -> PairedBlock:
    """Validate one block of ``(y_true, *scores)``, one score per model (scikit-learn's messages).

    ``compiled``: the ``dask-auc.numba`` setting, for the block's cross sums.

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
        return PairedBlock(lengths, (), label[:0], tuple(s[:0] for s in models), empty, compiled)
    # any number of classes: a target of more than two is the caller's error
    # once every block's classes are known (its finish step)
    classes = distinct_labels(label)
    scored = tuple(as_score_array(s) for s in models)
    return PairedBlock(lengths, classes, label, scored, class_positions(classes, label), compiled)


def block_probe(block: PairedBlock) -> tuple[int, tuple[float, ...]]:
    """The block's rows and each model's estimated distinct scores: whether it may be tabled."""
    return distinct_estimates(block.classes, block.labels, block.scores)


def traced_block(
    block: PairedBlock,
    index: int,
    model: int,
    compiled: bool = False,
    tabled: Sequence[bool] = (),
) -> PreparedBlock:
    """One model's scores of a block, carrying row ids: sorted within each label, or unsplit.

    Or, for a model whose placements are looked up by score (``tabled[model]``:
    :func:`~.delong_tables.tabled_models`), aggregated, without ids
    (:func:`~.delong_tables.aggregated_block`).

    A row's id is ``index << ID_BITS | its position among its label's rows in
    the block`` (:func:`class_positions`): routed back, a placement goes
    straight to its slot in the block's rows of its class, in row order.
    With ``compiled``, a large block is kept unsplit for the compiled split
    (:func:`~dask_auc._kernels.sort.prepare.unsplit_rows`), as the plain
    sort keeps one: each bucket sorts its rows once.  The same order of rows
    either way (equal scores in row order).
    """
    scores = block.scores[model]
    if model < len(tabled) and tabled[model]:
        return aggregated_block(block.lengths, block.classes, block.labels, scores, compiled)
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


def routed_placements(
    bucket: Bucket, context: BucketContext | None, n_blocks: int, plan: SortPlan
) -> list[Routed] | list[PlacementTable]:
    """The bucket's centred placements of each class, split by input block.

    A counting partition by block number (the sort's compiled scatter), or
    NumPy's radix sort of 16-bit block numbers without numba; the order of a
    block's piece is free, as each row's value goes to its own slot there.
    Each class is partitioned apart (no concatenation), and the block number
    is read from the ids' bits in place (a strided view) where it can be.
    A bucket of counted entries (a model looked up by score,
    :mod:`.delong_tables`) sends every block its whole table instead.
    """
    empty, nothing = np.empty(0, np.int64), np.empty(0)
    if context is None or not (context.total_pos and context.total_neg):
        return [(empty, nothing, empty, nothing)] * n_blocks
    placed = bucket_placements(bucket, context)
    pos_values = placed.pos / (2 * context.total_neg) - context.auc
    neg_values = placed.neg / (2 * context.total_pos) - context.auc
    if bucket.pos.counted or bucket.neg.counted:
        table = PlacementTable(
            plan.positive_label, bucket.pos.scores, pos_values, bucket.neg.scores, neg_values,
            bucket.compiled,
        )  # fmt: skip
        return [table] * n_blocks
    pos = _by_block(_ids(bucket.pos), pos_values, n_blocks, bucket.compiled)
    neg = _by_block(_ids(bucket.neg), neg_values, n_blocks, bucket.compiled)
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


def cross_sums(block: PairedBlock, *pieces: Sequence[Routed | PlacementTable]) -> CrossSums:
    """Pair one block's placements under every model by row; sum their products.

    ``pieces[i]`` is model ``i``'s routed pieces of this block's rows
    (:data:`Routed`, one per bucket).  Each id's low bits are its row's
    position among the block's rows of its class, so each placement goes to
    its slot of a ``k x rows`` matrix of the positive rows (and one of the
    negative rows), in row order.  Each pair of models is summed as the
    two-model kernel sums it (:func:`pair_products`), so that the test of two
    models in a ``k``-model pass is :func:`~dask_auc.delong_test`'s, to the bit.
    A model whose pieces are tables (:class:`~.delong_tables.PlacementTable`)
    has its rows' values looked up by score instead, the same values in the same
    slots (:func:`~.delong_tables.tabled_values`).

    Examples
    --------
    >>> block = prepare_paired_block([0, 1, 1], [0.1, 0.2, 0.3], [0.1, 0.2, 0.3])
    >>> ids = np.array([1, 0])  # the positive rows of block 0, in any order
    >>> piece = [(ids, np.array([0.5, -1.0]), np.array([0]), np.array([0.25]))]
    >>> sums = cross_sums(block, piece, piece)
    >>> sums.pos.tolist(), sums.neg.tolist()
    ([[1.25, 1.25], [1.25, 1.25]], [[0.0625, 0.0625], [0.0625, 0.0625]])
    """
    tables = [[p for p in model if isinstance(p, PlacementTable)] for model in pieces]
    routes = [[p for p in model if not isinstance(p, PlacementTable)] for model in pieces]
    tabled = next((t[0] for t in tables if t), None)
    positive = np.zeros(0, bool)
    if tabled is not None:  # rows by class: the routed pieces of a model hold each row once too
        positive = np.asarray(block.labels == tabled.positive_label)
        n_pos = int(np.count_nonzero(positive))
        sizes = (n_pos, len(positive) - n_pos)
    else:
        first = routes[0] if routes else []
        sizes = (sum(len(p[0]) for p in first), sum(len(p[2]) for p in first))
    # zeros: every slot of a binary input is written once; a slot no row fills (labels
    # that are not binary, refused by the finish) must hold no uninitialised value
    matrices = [np.zeros((len(pieces), size)) for size in sizes]
    pos, neg = matrices
    for model, routed in enumerate(routes):
        if tables[model]:  # straight into the matrices' rows of the model
            tabled_values(block.scores[model], positive, tables[model], (pos[model], neg[model]))
        for piece in routed:
            for values, side in zip(matrices, (0, 2), strict=True):
                row = values[model]  # a view: assigning through it skips a mixed index's setup
                row[_positions(piece[side])] = piece[side + 1]
    matrices = [pair_products(values, block.compiled) for values in matrices]
    return CrossSums(*matrices)


def _positions(ids: np.ndarray) -> np.ndarray:
    """The ids' low bits: the rows' positions among their block's rows of their class."""
    return ids & np.int64((1 << ID_BITS) - 1)


#: a pair's products are summed in this many lanes, row ``r`` in lane ``r % LANES``
LANES = 4


def pair_products(rows: np.ndarray, compiled: bool = False) -> np.ndarray:
    """``k x k`` sums of products of ``k`` rows of values, each pair's from the two rows alone.

    Each entry is the sum of its two rows' products in :data:`LANES` lanes, row
    ``r`` in lane ``r % 4``, each lane added in row order from 0.0 and the
    lanes as ``(l0 + l1) + (l2 + l3)``: IEEE products and additions in one
    order, so the same bits on every CPU (BLAS picks its kernel, and with it
    the order of its additions, by the CPU), with numba or without, and
    whichever other rows are beside the pair -- a model scored twice has a
    standard error of exactly 0, and the test of two models in a ``k``-model
    pass is :func:`~dask_auc.delong_test`'s, to the bit.  The compiled loop
    adds cache-sized runs of rows for every pair; NumPy's ``cumsum`` (an
    addition in row order) gives each lane without it.

    Examples
    --------
    >>> rows = np.array([[1.0, 2.0], [0.5, -1.0], [1.0, 2.0]])
    >>> pair_products(rows).tolist()
    [[5.0, -1.5, 5.0], [-1.5, 1.25, -1.5], [5.0, -1.5, 5.0]]
    """
    k, n = rows.shape
    sums = np.zeros((k, k))
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    kernel = _compiled.usable(compiled, "binary", rows, work=n * k * k)
    if kernel is not None:
        kernel.pair_lanes(rows, sums)
        return sums
    whole = n - n % LANES
    for i in range(k):
        for j in range(i, k):
            products = rows[i] * rows[j]
            lanes = np.zeros(LANES)
            if whole:  # each column's cumulative sum is its lane's, added in row order
                lanes += np.cumsum(products[:whole].reshape(-1, LANES), axis=0)[-1]
            lanes[: n - whole] += products[whole:]
            lanes += 0.0  # the compiled lanes start from 0.0: a lane of -0.0 terms is 0.0
            sums[i, j] = sums[j, i] = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
    return sums


def total_cross_sums(parts: Sequence[CrossSums]) -> CrossSums:
    """The blocks' sums, added in block order (from zero, as one block's own)."""
    parts = list(parts)
    total = CrossSums(np.zeros_like(parts[0].pos), np.zeros_like(parts[0].neg))
    for part in parts:
        total = total + part
    return total
