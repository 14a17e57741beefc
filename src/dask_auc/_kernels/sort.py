"""Pure-NumPy chunk kernels: the per-block and per-bucket work of the sort.

The sort is a sample sort that never moves pandas rows:

1. :func:`prepare_block` validates one input block, splits its rows by label
   and sorts each class's scores locally (``np.sort``; ``argsort`` only when
   weights must travel with the scores).  A block of few distinct scores (a
   sample of it tells, :func:`few_distinct`) is aggregated instead: one
   entry per (score, class) with its row count, or its summed weight
   (:func:`aggregated_rows`), so that everything after it moves and merges
   distinct values, not rows.
2. :func:`block_meta` draws a regular sample of those sorted scores; one task
   turns all samples into score splitters with :func:`plan_sort`.
3. :func:`split_block` cuts every sorted class array at the splitters (binary
   searches, views, no copy) into one piece per bucket.
4. :func:`assemble_bucket` merges the pieces of one bucket, and
   :func:`summarize_bucket` reduces it to a :class:`~dask_auc._kernels.summary.PartialROC`.

With the optional ``numba`` extra (:mod:`~dask_auc._kernels.compiled`), a
continuous unweighted block is not sorted at all: :func:`prepare_block`
keeps its rows as they are (:class:`UnsplitRows`), :func:`split_block` groups
them by class and bucket in two compiled passes, and :func:`assemble_bucket`
sorts each bucket's rows once, with one ``np.sort``.  Tied blocks are
aggregated by a compiled hash, and bucket summaries count pairs by a merge.

Buckets are numbered in descending score order: bucket 0 holds the highest
scores.  A tie group heavy enough to fill several buckets is spread over them
(ties never need to stay together: the merge corrects for a straddling group).

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, cast

import numpy as np

from . import compiled as _compiled
from .footprint import SizedByArrays
from .order import stable_sort
from .summary import PartialROC, TieGroup
from .validation import (
    ROW_INPUTS,
    BinaryTarget,
    RowCounts,
    as_score_array,
    as_weight_array,
    check_aligned,
    check_finite_scores,
    distinct_labels,
    sorted_labels,
    to_numpy,
    union_of_classes,
)


@dataclass(frozen=True)
class SortedScores(SizedByArrays):
    """The rows of one class, sorted by ascending score, with their payloads.

    Payloads travel with the scores through the sort: ``weights`` (sample
    weights) and ``ids`` (row ids, ``block << 32 | position``, for metrics
    that must meet a row again in its input block, as DeLong's paired test).

    ``weights`` of an *integer* dtype are multiplicities: each entry stands
    for that many unweighted rows of its score (an aggregated block,
    :func:`aggregated_rows`), and every count made of them is an exact
    integer, as for rows.  Float ``weights`` are sample weights (rows of
    equal score may have been summed into one entry).  Kernels read rows
    through :attr:`total`, :func:`_total_equal` and cumulative weights, which
    treat an entry of multiplicity ``k`` as ``k`` rows; ``len`` counts entries.
    """

    scores: np.ndarray
    weights: np.ndarray | None = None
    ids: np.ndarray | None = None

    @property
    def total(self) -> int | float:
        if self.weights is None:
            return len(self.scores)
        if self.counted:
            return int(self.weights.sum())
        return float(self.weights.sum())

    @property
    def counted(self) -> bool:
        """Whether ``weights`` are integer multiplicities (unweighted rows aggregated by score)."""
        return self.weights is not None and self.weights.dtype.kind in "iu"

    def __len__(self) -> int:
        return len(self.scores)

    def slice(self, start: int, stop: int) -> SortedScores:
        weights = None if self.weights is None else self.weights[start:stop]
        ids = None if self.ids is None else self.ids[start:stop]
        return SortedScores(self.scores[start:stop], weights, ids)

    def empty(self) -> SortedScores:
        """No rows, with this part's dtype and payloads."""
        return self.slice(0, 0)

    def in_plan(self, plan: SortPlan) -> SortedScores:
        """These rows with the plan's score dtype (no copy when it is theirs already).

        The conversion keeps the order and the exact values: the plan only
        picks a dtype that holds every block's scores exactly.
        """
        if self.scores.dtype == plan.splitters.dtype:
            return self
        return replace(self, scores=self.scores.astype(plan.splitters.dtype))


@dataclass(frozen=True)
class UnsortedScores(SizedByArrays):
    """Unweighted rows of one class in no order: a block's piece of a bucket, sorted there.

    Made by the compiled split (:func:`split_block` of an :class:`UnsplitRows`
    block); :func:`assemble_bucket` sorts them with the bucket's other rows,
    so no kernel after it ever sees one.
    """

    scores: np.ndarray
    weights: None = None
    ids: None = None
    counted = False

    @property
    def total(self) -> int:
        return len(self.scores)

    def __len__(self) -> int:
        return len(self.scores)


@dataclass(frozen=True)
class UnsplitRows(SizedByArrays):
    """A block's unweighted rows in input order, each with the code of its class.

    The compiled path (``numba``) keeps a continuous block so: its split
    groups the rows by class and score bucket in two passes
    (:func:`~dask_auc._kernels.compiled.grouped_rows`) instead of a class
    split and a sort, and each bucket sorts its rows once.
    """

    scores: np.ndarray
    codes: np.ndarray  # uint8: the index in ``keys`` of each row's class
    keys: tuple[Any, ...]  # the by_label key of each code


@dataclass(frozen=True)
class PreparedBlock(SizedByArrays):
    """One validated input block, its rows sorted within each label.

    Or, on the compiled path, its rows ``unsplit`` (then ``by_label`` is empty).
    """

    lengths: RowCounts
    classes: tuple[Any, ...]
    by_label: dict[Any, SortedScores]
    unsplit: UnsplitRows | None = None


@dataclass(frozen=True)
class BlockMeta(SizedByArrays):
    """What the planning task needs to know of a block: small by design."""

    lengths: RowCounts
    classes: tuple[Any, ...]
    sample: np.ndarray
    sample_rows: np.ndarray  # how many rows each sampled score stands for
    score_dtype: np.dtype | None = None  # None: the block holds no row
    score_range: tuple[Any, Any] = (None, None)  # lowest and highest score, Python values
    max_weight: float | None = None  # None: unweighted, or no row


@dataclass(frozen=True)
class SortPlan(SizedByArrays):
    """The global decisions of the sort, made once from all block samples."""

    classes: tuple[Any, ...]
    splitters: np.ndarray  # ascending, n_buckets - 1 values, in the common score dtype
    #: weights enter pair counts times ``2 ** weight_exponent`` (exact), so that
    #: no product of weights overflows or underflows
    #: (:func:`~dask_auc._kernels.summary.pair_product`)
    weight_exponent: int = 0
    #: which part of a block goes to which group of a bucket, in order: for a
    #: binary target (negative label, positive label), a missing one ``ABSENT``
    group_keys: tuple[Any, ...] = ()
    #: whether bucket kernels may use the compiled loops (``dask-auc.numba``)
    compiled: bool = False
    #: rows of the input, for the errors of a target of more than two classes
    rows: int = 0
    #: every weight is zero (:func:`~dask_auc._kernels.binary.plan_labels` defers the error)
    weights_all_zero: bool = False

    @property
    def n_buckets(self) -> int:
        return len(self.splitters) + 1

    @property
    def positive_label(self) -> Any:
        return self.classes[-1] if self.classes else None


@dataclass(frozen=True)
class Bucket(SizedByArrays):
    """The rows of one bucket (or one block's piece of it), one sorted part per class.

    ``groups`` follow the plan's ``group_keys``: ``(negatives, positives)`` for
    a binary target, one part per class for a multi-class score column.
    """

    groups: tuple[SortedScores, ...]
    weight_exponent: int = 0  # the plan's, for the pair counts of the summary
    compiled: bool = False  # the plan's: may the summary use the compiled loops
    #: the bucket's own curve points, once made (:func:`~dask_auc._kernels.curves.with_points`)
    points: Any = None
    #: its curve points placed among all buckets' (absolute counts, with the rows below each),
    #: once made (:func:`~dask_auc._kernels.curves.with_placed_points`)
    placed: Any = None
    #: the answers to the questions that take no parameter, kept by a persisted ROC
    #: (:func:`~dask_auc._kernels.curves.with_answers`)
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


def prepare_block(
    label: Any,
    score: Any,
    weight: Any = None,
    *,
    names: tuple[str, ...] = ROW_INPUTS,
    compiled: bool = False,
    any_labels: bool = False,
) -> PreparedBlock:
    """Validate one block and sort its scores within each label.

    Parameters
    ----------
    label, score : array-like
        The block's ``y_true`` and ``y_score`` values, aligned row by row.
    weight : array-like, optional
        The block's ``sample_weight``; rows of weight zero are dropped (as
        scikit-learn does) after the labels were counted.
    names : tuple of str
        The caller's names of the three inputs, for error messages.
    compiled : bool, default False
        Use the compiled loops (numba) where they run here: a tied block is
        aggregated by a compiled hash, and a continuous unweighted one is
        kept :class:`UnsplitRows` for the compiled split.  Same results.
    any_labels : bool, default False
        Keep any number of labels, one sorted part each (the ROC object's
        sort, whose positive label is chosen later); else more than two
        labels raise scikit-learn's multi-class error.

    Returns
    -------
    PreparedBlock
        With no rows at all when the inputs' lengths differ: the planning task
        then raises (:func:`~dask_auc._kernels.validation.check_aligned`) before any
        bucket is made.

    Examples
    --------
    >>> block = prepare_block([0, 1, 1], [0.2, 0.9, 0.4])
    >>> block.by_label[1].scores
    array([0.4, 0.9])
    """
    label, score = to_numpy(label), to_numpy(score)
    lengths = RowCounts.of(names, label, score, weight)
    if not lengths.aligned:
        return PreparedBlock(lengths, (), {})
    classes = distinct_labels(label)
    if len(classes) > 2 and not any_labels:
        # not a binary target: the metric raises its own error once the plan has
        # every block's classes (plan_sort); scikit-learn checks y_score first
        as_score_array(score)
        return PreparedBlock(lengths, classes, {})
    # unweighted, the scores' finiteness is checked after the aggregation of a
    # tied block, on its few distinct scores (every row's value is one of
    # them); weights are checked after the scores, as scikit-learn does
    deferred = weight is None
    score = as_score_array(score, check_finite=not deferred)
    weights = None if weight is None else as_weight_array(weight)
    if weights is not None and not weights.all():
        keep = weights != 0
        label, score, weights = label[keep], score[keep], weights[keep]
    if 0 < len(classes) <= 2 and few_distinct(score):
        positive = label == classes[-1] if len(classes) > 1 else None
        parts = aggregated_rows(score, weights, positive, compiled=compiled)
        if deferred:
            check_finite_scores(np.concatenate([part.scores for part in parts]))
        return PreparedBlock(lengths, classes, dict(zip(classes, parts, strict=True)))
    if deferred:
        check_finite_scores(score)
    if (
        compiled
        and weights is None
        and 0 < len(classes) <= 2
        and len(score) >= UNSPLIT_MIN_ROWS
        and _compiled.supports(score.dtype)
    ):
        # no class split and no sort here: the split groups the rows by class
        # and bucket in two passes, and each bucket sorts its rows once
        codes = (
            np.asarray(label == classes[-1]).view(np.uint8)
            if len(classes) == 2
            else np.zeros(len(score), np.uint8)
        )
        return PreparedBlock(lengths, classes, {}, UnsplitRows(score, codes, classes))
    by_label = {}
    for value in classes:
        # np.compress copies the selected rows about 1.7x faster than a boolean index
        rows = label == value if len(classes) > 1 else np.ones(len(label), dtype=bool)
        by_label[value] = _sort_owned(
            np.compress(rows, score), None if weights is None else np.compress(rows, weights)
        )
    return PreparedBlock(lengths, classes, by_label)


def sorted_rows(scores: np.ndarray, weights: np.ndarray | None) -> SortedScores:
    """The rows sorted by score, leaving the given arrays untouched (aggregated when tied)."""
    if few_distinct(scores):
        return aggregated_rows(scores, weights)[0]
    return _sort_owned(scores.copy(), weights)


def _sort_owned(scores: np.ndarray, weights: np.ndarray | None) -> SortedScores:
    """The rows sorted by score; ``scores`` is a fresh array, sorted in place.

    Sorted rows that turn out to hold few distinct scores are aggregated into
    runs (one linear pass, decided on the exact number of runs), so that what
    follows moves distinct values; a sample of neighbours spares continuous
    scores that pass.
    """
    if weights is None:
        scores.sort()  # in place: no second copy of the block at the peak
        return _as_runs(SortedScores(scores))
    # A stable order: the weights of tied rows are summed in it, so it must not
    # depend on the CPU's sort (an unstable one differs with AVX-512, AVX2, none).
    order, ranked = stable_sort(scores)
    return _as_runs(SortedScores(ranked, weights[order]))


#: blocks of fewer rows are never aggregated: their sort costs little either way
AGGREGATE_MIN_ROWS = 1 << 16
#: blocks of fewer rows are sorted even on the compiled path (same reason)
UNSPLIT_MIN_ROWS = 1 << 16
#: rows sampled to tell a block of few distinct scores
_PROBE_ROWS = 4096
#: at most this share of the sampled rows may hold a score seen once in the sample
_PROBE_SINGLES = 0.05
#: sorted rows become runs when there are at least this many rows per distinct score
_RUN_RATIO = 4
_GOLDEN = 0.6180339887498949


def few_distinct(scores: np.ndarray) -> bool:
    """Whether a block's scores take few distinct values, judged from a sample of its rows.

    The probe reads ``_PROBE_ROWS`` rows spread over the block (a golden-ratio
    sequence of positions, so sorted blocks are sampled evenly too).  By
    Good-Turing, the share of sampled rows whose score occurs once in the
    sample estimates the share of all rows whose scores were not seen; when
    it is small, nearly every row holds one of a few hundred or thousand
    scores.  It only chooses between two exact code paths (hashing or
    sorting), so a wrong guess costs time, never exactness, and on continuous
    scores it costs a few thousand reads, never a pass.
    """
    n = len(scores)
    if n < AGGREGATE_MIN_ROWS:
        return False
    positions = (np.arange(_PROBE_ROWS) * _GOLDEN % 1.0 * n).astype(np.int64)
    _, counts = np.unique(scores[positions], return_counts=True)
    return bool(np.count_nonzero(counts == 1) <= _PROBE_SINGLES * _PROBE_ROWS)


def aggregated_rows(
    scores: np.ndarray,
    weights: np.ndarray | None = None,
    positive: np.ndarray | None = None,
    *,
    compiled: bool = False,
) -> list[SortedScores]:
    """The rows as one entry per distinct score: its row count, or its summed weight.

    A hash aggregation (Arrow's ``group_by``, one thread: the scheduler runs
    blocks in parallel already; or, unweighted and ``compiled``, the compiled
    hash of :func:`~dask_auc._kernels.compiled.aggregate`, about 2x faster),
    then a sort of the distinct scores only.
    Row counts are int64 multiplicities (:attr:`SortedScores.counted`): every
    count made of them is exact, as it is of rows.  With ``positive`` (a
    boolean per row), returns ``[rows where not positive, rows where positive]``,
    else ``[all rows]``.

    Examples
    --------
    >>> part, = aggregated_rows(np.array([0.5, 0.1, 0.5, 0.5]))
    >>> part.scores, part.weights
    (array([0.1, 0.5]), array([1, 3]))
    """
    kinds = (0, 1) if positive is not None else (0,)
    if weights is None:
        found = _compiled.aggregate(scores, positive, len(scores) // _RUN_RATIO, compiled=compiled)
        if found is not None:
            values, counts = found
            return [_distinct_entries(*_of_class(values, counts, k)) for k in kinds]
    import pyarrow as pa  # a dependency; imported here, on the workers that aggregate

    # the class as an int8 key; a constant one without classes (Arrow's grouper
    # of a float key and an int8 key measured ~3x faster than of the float alone)
    code = np.zeros(len(scores), np.int8) if positive is None else positive.view(np.int8)
    columns: dict[str, Any] = {"score": scores, "code": code}
    if weights is None:
        aggregation: list[Any] = [([], "count_all")]
    else:
        columns["weight"], aggregation = weights, [("weight", "sum")]
    table = pa.table(columns)
    grouped = table.group_by(["score", "code"], use_threads=False).aggregate(aggregation)
    values = grouped["score"].to_numpy()
    totals = grouped["count_all" if weights is None else "weight_sum"].to_numpy()
    totals = totals.astype(np.int64 if weights is None else np.float64, copy=False)
    codes = grouped["code"].to_numpy()
    return [_distinct_entries(values[codes == k], totals[codes == k]) for k in kinds]


def _of_class(values: np.ndarray, counts: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The scores that class ``k`` holds, and its row count of each."""
    held = counts[:, k] > 0
    return values[held], counts[held, k]


def _distinct_entries(values: np.ndarray, totals: np.ndarray) -> SortedScores:
    """Entries sorted by score, equal scores joined (a hash tells ``-0.0`` from ``0.0``)."""
    order = np.argsort(values, kind="stable")
    values, totals = values[order], totals[order]
    if len(values) > 1:
        first = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
        if len(first) < len(values):
            values, totals = values[first], np.add.reduceat(totals, first)
    return SortedScores(values, totals)


def _as_runs(part: SortedScores) -> SortedScores:
    """Sorted rows as (distinct score, count or summed weight) when that makes them few."""
    if part.ids is not None or part.counted or len(part) < AGGREGATE_MIN_ROWS:
        return part
    if not _looks_tied(part.scores):
        return part
    starts = np.flatnonzero(np.concatenate(([True], part.scores[1:] != part.scores[:-1])))
    if len(starts) * _RUN_RATIO > len(part):
        return part
    if part.weights is None:
        return SortedScores(part.scores[starts], np.diff(np.append(starts, len(part))))
    return SortedScores(part.scores[starts], np.add.reduceat(part.weights, starts))


def block_meta(block: PreparedBlock, samples_per_class: int) -> BlockMeta:
    """A regular sample of each class's sorted scores, with the rows each stands for.

    Also the block's score dtype and range, and its largest weight, from which
    the plan picks a score dtype and a weight scale that are exact for all blocks.
    """
    if block.unsplit is not None:
        return _unsplit_meta(block, block.unsplit, samples_per_class)
    parts = [part for part in block.by_label.values() if len(part)]
    weights = [
        p.weights for p in block.by_label.values() if p.weights is not None and not p.counted
    ]
    max_weight = max((float(w.max()) for w in weights if len(w)), default=0.0)
    max_weight_or_none = max_weight if weights else None
    if not parts:
        empty = np.empty(0)
        return BlockMeta(
            block.lengths, block.classes, empty, empty, None, (None, None), max_weight_or_none
        )
    values, rows = [], []
    for part in parts:
        sample, stands_for = _regular_sample(part, samples_per_class)
        values.append(sample)
        rows.append(stands_for)
    low = min(p.scores[0].item() for p in parts)
    high = max(p.scores[-1].item() for p in parts)
    return BlockMeta(
        block.lengths,
        block.classes,
        np.concatenate(values),
        np.concatenate(rows),
        parts[0].scores.dtype,
        (low, high),
        max_weight_or_none,
    )


#: unsorted rows are sampled at spread positions rather than at equal steps
#: of their order: this many times the sample of sorted rows keeps the
#: buckets as even (the sample is a few thousand reads)
_UNSORTED_OVERSAMPLE = 4


def _unsplit_meta(block: PreparedBlock, rows: UnsplitRows, samples_per_class: int) -> BlockMeta:
    n = len(rows.scores)
    take = min(n, samples_per_class * len(rows.keys) * _UNSORTED_OVERSAMPLE)
    positions = (np.arange(take) * _GOLDEN % 1.0 * n).astype(np.int64)
    score_range: tuple[Any, Any] = (None, None)  # the plan reads integer ranges only
    if rows.scores.dtype.kind in "iu":
        score_range = (rows.scores.min().item(), rows.scores.max().item())
    return BlockMeta(
        block.lengths,
        block.classes,
        rows.scores[positions],
        np.full(take, n / take),
        rows.scores.dtype,
        score_range,
        None,
    )


def _regular_sample(part: SortedScores, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``size`` scores at equal steps of the part's rows, and how many rows each stands for.

    Entries of an aggregated part stand for their multiplicities: a part of at
    most ``size`` entries is its own sample, each entry standing for its rows.
    """
    n = len(part)
    if not part.counted:
        take = min(n, size)
        positions = ((np.arange(take) + 0.5) * (n / take)).astype(np.int64)
        return part.scores[positions], np.full(take, n / take)
    assert part.weights is not None
    if n <= size:
        return part.scores, part.weights.astype(np.float64)
    through = np.cumsum(part.weights)
    total = int(through[-1])
    steps = (np.arange(size) + 0.5) * (total / size)
    return part.scores[np.searchsorted(through, steps, "right")], np.full(size, total / size)


class _Absent:
    """The key of a class no block holds: compares unequal to every label."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()


def binary_group_keys(classes: tuple[Any, ...]) -> tuple[Any, Any]:
    """(negative label, positive label) of a binary target: the greater one is positive."""
    padded = (ABSENT, ABSENT, *classes)
    return padded[-2], padded[-1]


def plan_sort(
    metas: Sequence[BlockMeta],
    n_buckets: int,
    *,
    group_keys: tuple[Any, ...] | None = None,
    finish_checks_classes: bool = False,
) -> SortPlan:
    """Check the blocks agree, pick the classes and ``n_buckets - 1`` splitters.

    Splitters sit at equal steps of the sampled row count, so buckets hold
    about the same number of rows; a heavy tie value shows up several times.
    ``group_keys`` orders a bucket's parts (default: a binary target's
    negatives, then positives).

    A target of more than two classes raises here, unless
    ``finish_checks_classes``: then the plan holds every class and no row is
    sorted (:func:`split_block` sends none), and each metric's finish step
    raises its own error (:class:`~dask_auc._kernels.validation.BinaryTarget`).
    Metrics that share one sort (``roc_auc_score``, ``partial_roc_auc_score``,
    ``roc_auc_ci`` of one input) share this task, so it cannot word their errors.
    """
    n_rows = check_aligned([meta.lengths for meta in metas])
    if metas and n_rows == 0:
        raise ValueError(
            "Found array with 0 sample(s) (shape=(0,)) while a minimum of 1 is required."
        )
    if finish_checks_classes:
        classes = sorted_labels(meta.classes for meta in metas)
        if len(classes) > 2:
            splitters = np.zeros(max(n_buckets - 1, 0))
            return SortPlan(classes, splitters, 0, binary_group_keys(()), rows=n_rows)
    else:
        classes = union_of_classes([meta.classes for meta in metas], BinaryTarget(), n_rows)
    exponent = weight_exponent([meta.max_weight for meta in metas])
    dtype = common_score_dtype(metas)
    filled = [meta for meta in metas if meta.score_dtype is not None]
    sample = np.concatenate([m.sample.astype(dtype, copy=False) for m in filled] or [np.empty(0)])
    rows = np.concatenate([m.sample_rows for m in filled] or [np.empty(0)])
    splitters = _splitters(sample.astype(dtype), rows, n_buckets)
    keys = binary_group_keys(classes) if group_keys is None else tuple(group_keys)
    return SortPlan(classes, splitters, exponent, keys, rows=n_rows)


#: the plan of the binary metrics that may share the sort of one input (the ROC AUC,
#: partial AUC and its interval); each raises its own error for a multi-class target
#: when it finishes (see :func:`plan_sort`)
SHARED_BINARY_PLAN = partial(plan_sort, finish_checks_classes=True)


#: weights whose largest lies in this range are used as they are
_SAFE_WEIGHT = (2.0**-256, 2.0**256)


ZERO_WEIGHTS_MESSAGE = "Sample weights must contain at least one non-zero number."


def weight_exponent(max_weights: Sequence[float | None]) -> int:
    """The power of two that brings the largest weight near 1, or 0 when no scaling is needed.

    The AUC is a ratio of sums of products of weights: scaling every weight by
    one power of two changes no result and is exact, while weights near
    ``1e160`` would overflow their products and weights near ``1e-170``
    underflow them.  Raises scikit-learn's error when every weight is zero.

    Examples
    --------
    >>> weight_exponent([None, 1.0, 3.0]), weight_exponent([1e160]), weight_exponent([None])
    (0, -532, 0)
    """
    given = [w for w in max_weights if w is not None]
    if not given:
        return 0
    largest = max(given)
    if largest == 0:
        raise ValueError(ZERO_WEIGHTS_MESSAGE)
    if _SAFE_WEIGHT[0] <= largest <= _SAFE_WEIGHT[1]:
        return 0
    return -int(np.frexp(largest)[1])


_INT64_MAX = int(np.iinfo(np.int64).max)
_FLOAT_EXACT = 2**53


def common_score_dtype(metas: Sequence[BlockMeta]) -> np.dtype:
    """One score dtype that holds every block's scores exactly, so that all order alike.

    Blocks of one dtype keep it.  Integer blocks of different types meet in
    int64 or uint64; integers meet floats in the floats' type only while
    every integer is within float64's exact range (``2**53``).  Anything else
    cannot be ordered exactly in one NumPy type and raises.
    """
    filled = [m for m in metas if m.score_dtype is not None]
    dtypes = {m.score_dtype for m in filled}
    if len(dtypes) <= 1:
        (dtype,) = dtypes or {np.dtype(np.float64)}
        return dtype  # type: ignore[return-value]
    integers = [m for m in filled if m.score_dtype.kind in "iu"]  # type: ignore[union-attr]
    low = min(m.score_range[0] for m in integers) if integers else 0
    high = max(m.score_range[1] for m in integers) if integers else 0
    if len(integers) == len(filled):
        if high <= _INT64_MAX:
            return np.dtype(np.int64)
        if low >= 0:
            return np.dtype(np.uint64)
        raise ValueError(
            f"y_score holds integers from {low} to {high} in partitions of different dtypes "
            f"({', '.join(sorted(map(str, dtypes)))}): no 64-bit type orders them all "
            "exactly; cast y_score to one dtype first."
        )
    if max(-low, high) > _FLOAT_EXACT:
        raise ValueError(
            f"y_score mixes float partitions with integer scores beyond 2**53 (from {low} "
            f"to {high}; dtypes {', '.join(sorted(map(str, dtypes)))}): they cannot be "
            "ordered exactly as floats; cast y_score to one dtype first."
        )
    return np.result_type(*dtypes)


def _splitters(sample: np.ndarray, rows: np.ndarray, n_buckets: int) -> np.ndarray:
    if n_buckets <= 1 or sample.size == 0:
        # no sample: every row is in no block, any splitter value will do
        return sample[:0].copy() if n_buckets <= 1 else np.zeros(n_buckets - 1, sample.dtype)
    order = np.argsort(sample, kind="stable")
    cumulative = np.cumsum(rows[order])
    targets = cumulative[-1] * np.arange(1, n_buckets) / n_buckets
    picks = np.minimum(np.searchsorted(cumulative, targets), len(order) - 1)
    return sample[order][picks]


def _cut_positions(scores: np.ndarray, splitters: np.ndarray) -> np.ndarray:
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
    An :class:`UnsplitRows` block is grouped by the compiled loops into
    :class:`UnsortedScores` pieces (sorted by the bucket).
    """
    if block.unsplit is not None:
        return _split_unsplit(block, block.unsplit, plan)
    parts = {key: part.in_plan(plan) for key, part in block.by_label.items()}
    empty = next(iter(parts.values())).empty() if parts else SortedScores(plan.splitters[:0])
    groups = [parts.get(key, empty) for key in plan.group_keys]
    cuts = [_cut_positions(group.scores, plan.splitters) for group in groups]
    pieces = [
        Bucket(
            tuple(g.slice(c[j], c[j + 1]) for g, c in zip(groups, cuts, strict=True)),
            plan.weight_exponent,
            plan.compiled,
        )
        for j in range(plan.n_buckets)
    ]
    return pieces[::-1]


def _split_unsplit(block: PreparedBlock, rows: UnsplitRows, plan: SortPlan) -> list[Bucket]:
    scores = rows.scores.astype(plan.splitters.dtype, copy=False)
    n_codes = len(rows.keys)
    found = _compiled.grouped_rows(scores, rows.codes, n_codes, plan.splitters)
    if found is None:  # this worker cannot run the compiled loops: sort as NumPy does
        by_label = {
            key: _sort_owned(np.compress(rows.codes == code, scores), None)
            for code, key in enumerate(rows.keys)
        }
        return split_block(PreparedBlock(block.lengths, block.classes, by_label), plan)
    grouped, starts = found
    code_of = {key: code for code, key in enumerate(rows.keys)}
    none = UnsortedScores(grouped[:0])

    def part(bucket: int, key: Any) -> SortedScores:
        code = code_of.get(key)
        if code is None:
            return cast(SortedScores, none)
        group = bucket * n_codes + code
        # a piece is the one place a bucket holds unsorted rows: assemble_bucket sorts them
        return cast(SortedScores, UnsortedScores(grouped[starts[group] : starts[group + 1]]))

    pieces = [
        Bucket(tuple(part(j, key) for key in plan.group_keys), plan.weight_exponent, plan.compiled)
        for j in range(plan.n_buckets)
    ]
    return pieces[::-1]


_EMPTY = SortedScores(np.empty(0))


def assemble_bucket(*pieces: Bucket) -> Bucket:
    """Merge one bucket's pieces (one from each block) into sorted class arrays."""
    n_groups = len(pieces[0].groups)
    return Bucket(
        tuple(_merge_sorted([p.groups[k] for p in pieces]) for k in range(n_groups)),
        pieces[0].weight_exponent,
        pieces[0].compiled,
    )


def merged_parts(parts: list[SortedScores]) -> SortedScores:
    """Sorted parts (rows or counted entries, of one bucket) merged into one sorted part."""
    return _merge_sorted(parts)


def _merge_sorted(parts: list[SortedScores]) -> SortedScores:
    if any(isinstance(p, UnsortedScores) for p in parts):
        return _sorted_with_unsorted(parts)
    filled = [p for p in parts if len(p)]
    if not filled:
        # empty, in the plan's dtype, weighted if any block is (an empty block
        # cannot tell whether its rows would have had weights)
        return next((p for p in parts if p.weights is not None), parts[0] if parts else _EMPTY)
    parts = filled
    if len(parts) == 1:
        return parts[0]
    if any(p.counted for p in parts):
        return _merge_counted(parts)
    if parts[0].weights is None and parts[0].ids is None:
        tied_rows = sum(len(p) for p in parts if _looks_tied(p.scores))
        if 2 * tied_rows >= sum(len(p) for p in parts):  # small pieces cost little either way
            return _merge_runs([_runs(p.scores) for p in parts])
        scores = np.concatenate([p.scores for p in parts])
        scores.sort()  # in place: the concatenation is already a fresh array
        return SortedScores(scores)
    scores = np.concatenate([p.scores for p in parts])
    # The input is a concatenation of sorted runs: timsort ("stable") merges
    # them about twice as fast as the default introsort.
    order = np.argsort(scores, kind="stable")
    return SortedScores(
        scores[order],
        _payload([p.weights for p in parts], order),
        _payload([p.ids for p in parts], order),
    )


def _sorted_with_unsorted(parts: list[SortedScores]) -> SortedScores:
    """Unsorted pieces and the other blocks' rows sorted at once (one ``np.sort``).

    Only unweighted, untraced rows are ever unsorted; aggregated parts of
    other blocks join after, as :func:`_merge_counted` joins them to rows.
    """
    rows = [p for p in parts if not p.counted]
    if any(p.weights is not None or p.ids is not None for p in rows):
        raise ValueError("unsorted rows cannot be merged with weighted or traced rows")
    scores = np.concatenate([p.scores for p in rows])
    scores.sort()  # in place: the concatenation is a fresh array
    counted = [p for p in parts if p.counted and len(p)]
    return _merge_counted([SortedScores(scores), *counted]) if counted else SortedScores(scores)


def _merge_counted(parts: list[SortedScores]) -> SortedScores:
    """Merge aggregated parts, and unweighted row parts beside them (other blocks).

    Row parts that look tied join as their runs; when some are continuous,
    the aggregated parts are expanded to rows instead (``np.repeat``), so that
    a bucket of mostly distinct scores is merged as rows are.
    """
    rows = [p for p in parts if not p.counted]
    if any(p.weights is not None or p.ids is not None for p in rows):
        raise ValueError("aggregated rows cannot be merged with weighted or traced rows")
    if any(len(p) >= AGGREGATE_MIN_ROWS and not _looks_tied(p.scores) for p in rows):
        expanded = [
            SortedScores(np.repeat(p.scores, p.weights)) if p.counted else p  # type: ignore[arg-type]
            for p in parts
        ]
        return _merge_sorted(expanded)
    runs = [(p.scores, p.weights) if p.counted else _runs(p.scores) for p in parts]
    return _distinct_entries(
        np.concatenate([values for values, _ in runs]),
        np.concatenate([counts for _, counts in runs]).astype(np.int64, copy=False),
    )


def _payload(values: list[np.ndarray | None], order: np.ndarray) -> np.ndarray | None:
    """One payload of the merged parts, in the merged order (None when the parts have none)."""
    if values[0] is None:
        return None
    return np.concatenate(values)[order]  # type: ignore[arg-type]


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
    strict, tied = _pair_counts(pos, neg, bucket.weight_exponent, bucket.compiled)
    top = max(_edge(pos, -1), _edge(neg, -1))
    bottom = min(_edge(pos, 0), _edge(neg, 0))
    return PartialROC(
        pos.total,
        neg.total,
        strict,
        tied,
        TieGroup(top, _total_equal(pos, top), _total_equal(neg, top)),
        TieGroup(bottom, _total_equal(pos, bottom), _total_equal(neg, bottom)),
        bucket.weight_exponent,
    )


def _pair_counts(
    pos: SortedScores, neg: SortedScores, weight_exponent: int = 0, compiled: bool = False
) -> tuple[int | float, int | float]:
    """(pairs with pos > neg, pairs with pos == neg), weighted when weights exist.

    Weighted pair counts are in the units of
    :func:`~dask_auc._kernels.summary.pair_product` for ``weight_exponent``.
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
    if _looks_tied(pos.scores):
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
    """:func:`_pair_counts` when a part is aggregated (integer multiplicities): exact ints.

    The other part may be rows (a block that was not aggregated): rows that
    look tied are taken as their runs, others one by one.
    """
    if len(pos) == 0 or len(neg) == 0:
        return 0, 0
    values, counts = pos.scores, pos.weights
    if counts is None and _looks_tied(values):
        values, counts = _runs(values)
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
    """:func:`_pair_counts` searching only the distinct positive scores.

    Every positive of a run of equal scores has the same negatives below and
    level with it, so one search per run, weighted by the run's count (or
    total weight), gives the same sums.
    """
    values, counts = _runs(pos.scores)
    below = np.searchsorted(neg.scores, values, "left")
    through = np.searchsorted(neg.scores, values, "right")
    if pos.weights is None and neg.weights is None:
        return int(counts @ below), int(counts @ (through - below))
    assert pos.weights is not None and neg.weights is not None
    run_weights = np.add.reduceat(pos.weights, np.cumsum(counts) - counts)
    neg_cumulative = np.concatenate(([0.0], np.cumsum(neg.weights)))
    strict = float(run_weights @ neg_cumulative[below])
    return strict, float(run_weights @ (neg_cumulative[through] - neg_cumulative[below]))


#: a sorted array whose sampled neighbours are equal this often is treated as tied
_TIED_SHARE = 0.5
_TIE_PROBES = 256


def _looks_tied(scores: np.ndarray) -> bool:
    """Whether most neighbours of a sorted array are equal, judged from a sample.

    It only chooses between two exact code paths (run-length or row by row),
    so a wrong guess costs time, never exactness.  Probing a few hundred
    neighbour pairs costs microseconds where counting all runs costs a pass.
    """
    n = len(scores)
    if n < 2 * _TIE_PROBES:
        return False
    probes = np.linspace(0, n - 2, _TIE_PROBES).astype(np.int64)
    equal = np.count_nonzero(scores[probes] == scores[probes + 1])
    return bool(equal >= _TIED_SHARE * _TIE_PROBES)


def _runs(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of a sorted array and how many times each occurs."""
    if len(scores) == 0:
        return scores[:0], np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(scores[1:] != scores[:-1]) + 1
    edges = np.concatenate(([0], starts, [len(scores)]))
    return scores[edges[:-1]], np.diff(edges)


def _merge_runs(runs: list[tuple[np.ndarray, np.ndarray]]) -> SortedScores:
    """The (value, count) runs of several sorted arrays, merged.

    Kept as an aggregated part (integer multiplicities) when the merged rows
    are many and their distinct values few; otherwise the rows are rebuilt,
    linear in the rows (one ``np.repeat``) instead of a sort.
    """
    values, inverse = np.unique(np.concatenate([v for v, _ in runs]), return_inverse=True)
    counts = np.zeros(len(values), dtype=np.int64)
    np.add.at(counts, inverse, np.concatenate([c for _, c in runs]))
    rows = int(counts.sum())
    if rows >= AGGREGATE_MIN_ROWS and len(values) * _RUN_RATIO <= rows:
        return SortedScores(values, counts)  # few distinct scores: keep them aggregated
    return SortedScores(np.repeat(values, counts))


def _edge(part: SortedScores, index: int) -> Any:
    if len(part) == 0:
        return np.inf if index == 0 else -np.inf
    return part.scores[index].item()


def _total_equal(part: SortedScores, value: Any) -> int | float:
    start = np.searchsorted(part.scores, value, "left")
    stop = np.searchsorted(part.scores, value, "right")
    if part.weights is None:
        return int(stop - start)
    if part.counted:
        return int(part.weights[start:stop].sum())
    return float(part.weights[start:stop].sum())
