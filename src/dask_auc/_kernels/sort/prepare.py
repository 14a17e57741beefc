"""Pure-NumPy chunk kernels: the per-block work of the sort, before its plan.

The sort is a sample sort that never moves pandas rows:

1. :func:`prepare_block` validates one input block, splits its rows by label
   and sorts each class's scores locally (``np.sort``; ``argsort`` only when
   weights must travel with the scores).  A block of few distinct scores (a
   sample of it tells, :func:`few_distinct`) is aggregated instead: one
   entry per (score, class) with its row count, or its summed weight
   (:func:`~dask_auc._kernels.sort.aggregate.aggregated_rows`), so that everything
   after it moves and merges distinct values, not rows.
2. :func:`block_meta` draws a regular sample of those sorted scores; one task
   turns all samples into score splitters with
   :func:`~dask_auc._kernels.sort.plan.plan_sort`.
3. :func:`~dask_auc._kernels.sort.buckets.split_block` cuts every sorted class
   array at the splitters (binary searches, views, no copy) into one piece
   per bucket.
4. :func:`~dask_auc._kernels.sort.buckets.assemble_bucket` merges the pieces of
   one bucket, and :func:`~dask_auc._kernels.sort.buckets.summarize_bucket`
   reduces it to a :class:`~dask_auc._kernels.core.summary.PartialROC`.

This module holds steps 1 and 2: :class:`PreparedBlock` and
:func:`prepare_block` (and :func:`sorted_rows`, one array's rows prepared
alike), :func:`few_distinct`, and :func:`block_meta`, the block's
:class:`~dask_auc._kernels.sort.plan.BlockMeta`.
The forms of one class's rows are in :mod:`~dask_auc._kernels.sort.rows`, the
plan in :mod:`~dask_auc._kernels.sort.plan`, steps 3 and 4 in
:mod:`~dask_auc._kernels.sort.buckets`.

With the optional ``numba`` extra (:mod:`~dask_auc._kernels.sort.compiled`), a
continuous unweighted block is not sorted at all: :func:`prepare_block`
keeps its rows as they are (:class:`~dask_auc._kernels.sort.rows.UnsplitRows`),
:func:`~dask_auc._kernels.sort.buckets.split_block` groups them by class and
bucket in two compiled passes, and
:func:`~dask_auc._kernels.sort.buckets.assemble_bucket` sorts each bucket's rows
once, with one ``np.sort``.  Float64 scores that are all float32 values are kept
as float32 until then (:func:`narrowed`): held, split and moved in half the
bytes.  Tied blocks are aggregated by a compiled hash, and bucket summaries
count pairs by a merge.

Nothing here imports dask.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.validation import (
    ROW_INPUTS,
    RowCounts,
    as_score_array,
    as_weight_array,
    check_finite_scores,
    distinct_labels,
    to_numpy,
)
from . import compiled as _compiled
from . import rows as _rows
from .aggregate import aggregated_rows
from .plan import BlockMeta
from .rows import SortedScores, UnsplitRows, sort_owned


@dataclass(frozen=True)
class PreparedBlock(SizedByArrays):
    """One validated input block, its rows sorted within each label.

    Or, on the compiled path, its rows ``unsplit`` (then ``by_label`` is empty).
    """

    lengths: RowCounts
    classes: tuple[Any, ...]
    by_label: dict[Any, SortedScores]
    unsplit: UnsplitRows | None = None


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
        kept :class:`~dask_auc._kernels.sort.rows.UnsplitRows` for the compiled
        split.  Same results.
    any_labels : bool, default False
        Keep any number of labels, one sorted part each (the ROC object's
        sort, whose positive label is chosen later); else more than two
        labels raise scikit-learn's multi-class error.

    Returns
    -------
    PreparedBlock
        With no rows at all when the inputs' lengths differ: the planning task
        then raises (:func:`~dask_auc._kernels.core.validation.check_aligned`) before any
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
    # asked only of a block the probe reads: asking starts the loops' background compile
    # (~90 s of CPU cold), which a small input must not pay for
    hashed = (
        weights is None
        and len(score) >= _rows.AGGREGATE_MIN_ROWS
        and _compiled.hashes(compiled, score)
    )
    if 0 < len(classes) <= 2 and few_distinct(score, hashed):
        positive = label == classes[-1] if len(classes) > 1 else None
        parts = aggregated_rows(score, weights, positive, compiled=compiled)
        if deferred:
            check_finite_scores(np.concatenate([part.scores for part in parts]))
        return PreparedBlock(lengths, classes, dict(zip(classes, parts, strict=True)))
    if deferred:
        check_finite_scores(score)
    unsplit = unsplit_rows(classes, label, score, compiled=compiled) if weights is None else None
    if unsplit is not None:
        return PreparedBlock(lengths, classes, {}, unsplit)
    by_label = {}
    for value in classes:
        # np.compress copies the selected rows about 1.7x faster than a boolean index
        rows = label == value if len(classes) > 1 else np.ones(len(label), dtype=bool)
        by_label[value] = sort_owned(
            np.compress(rows, score), None if weights is None else np.compress(rows, weights)
        )
    return PreparedBlock(lengths, classes, by_label)


def sorted_rows(scores: np.ndarray, weights: np.ndarray | None) -> SortedScores:
    """The rows sorted by score, leaving the given arrays untouched (aggregated when tied)."""
    if few_distinct(scores):
        return aggregated_rows(scores, weights)[0]
    return sort_owned(scores.copy(), weights)


#: blocks of fewer rows are sorted even on the compiled path (same reason as
#: :data:`~dask_auc._kernels.sort.rows.AGGREGATE_MIN_ROWS`: their sort costs little either way)
UNSPLIT_MIN_ROWS = 1 << 16
#: rows sampled to tell a block of few distinct scores
_PROBE_ROWS = 4096
#: at most this share of the sampled rows may hold a score seen once in the sample
_PROBE_SINGLES = 0.05
#: else the hash still pays for a block of at most one distinct score (Chao1's estimate) in
#: this many rows, and at most this many distinct scores (measured: below)
_ROWS_PER_DISTINCT, _MOST_DISTINCT = 128, 1 << 15
_GOLDEN = 0.6180339887498949


def few_distinct(scores: np.ndarray, hashed: bool = False) -> bool:
    """Whether a block's scores take few distinct values, judged from a sample of its rows.

    The probe reads ``_PROBE_ROWS`` rows spread over the block (a golden-ratio
    sequence of positions, so sorted blocks are sampled evenly too).  By
    Good-Turing, the share of sampled rows whose score occurs once in the
    sample estimates the share of all rows whose scores were not seen; when
    it is small, nearly every row holds one of a few hundred or thousand
    scores.  Else, when the compiled hash would aggregate them (``hashed``:
    :func:`~dask_auc._kernels.sort.compiled.hashes`), Chao1's estimate of the
    block's distinct scores, ``d + f1**2 / (2 * f2)`` (``f1``, ``f2``: the
    scores seen once, twice; no estimate without a score seen twice),
    decides: the hash of a 2.5e6-row block beat its sort up to ~3e4 distinct
    scores and lost at ~7e4 (normal scores rounded to 3 decimals: 8,300 a
    block, 2x faster by the hash; 4 decimals, ~7e4: 25% slower), and Chao1
    estimates about half of those.  Arrow's ``group_by``, the other
    aggregation, lost to the sort there (2-2.5x slower), so it is not offered
    more blocks than before.  It only chooses between two exact code paths
    (hashing or sorting), so a wrong guess costs time, never exactness, and
    on continuous scores it costs a few thousand reads, never a pass.
    """
    n = len(scores)
    # read from rows when called: one threshold for this probe and for the runs
    # of sorted rows (rows.AGGREGATE_MIN_ROWS)
    if n < _rows.AGGREGATE_MIN_ROWS:
        return False
    counts = _probed_counts(scores)
    singles = np.count_nonzero(counts == 1)
    if singles <= _PROBE_SINGLES * _PROBE_ROWS:
        return True
    if not hashed:
        return False
    return bool(_chao1(counts) <= min(n / _ROWS_PER_DISTINCT, _MOST_DISTINCT))


def distinct_estimate(scores: np.ndarray) -> float:
    """How many distinct scores a block holds: counted up to ``_PROBE_ROWS`` rows, else estimated.

    Chao1's estimate from :func:`few_distinct`'s probe of a larger block
    (``inf`` when no sampled score was seen twice).  A guess that only picks
    between exact code paths (DeLong's lookup of placements by score:
    :mod:`~dask_auc._kernels.binary.delong_tables`).

    Examples
    --------
    >>> distinct_estimate(np.array([0.5, 0.1, 0.5]))
    2.0
    >>> distinct_estimate(np.arange(10**5) % 7)
    7.0
    """
    if len(scores) <= _PROBE_ROWS:
        return float(len(np.unique(scores)))
    return _chao1(_probed_counts(scores))


def _probed_counts(scores: np.ndarray) -> np.ndarray:
    """How often each distinct score occurs among ``_PROBE_ROWS`` rows spread over the block."""
    positions = (np.arange(_PROBE_ROWS) * _GOLDEN % 1.0 * len(scores)).astype(np.int64)
    return np.unique(scores[positions], return_counts=True)[1]


def _chao1(counts: np.ndarray) -> float:
    """Chao1's estimate of the distinct values, ``d + f1**2 / (2 * f2)``, from a sample's counts."""
    singles = np.count_nonzero(counts == 1)
    doubles = np.count_nonzero(counts == 2)
    if not singles:
        return float(len(counts))
    return float(len(counts) + singles * singles / (2 * doubles)) if doubles else np.inf


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
        rows.dtype,
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


def unsplit_rows(
    classes: tuple[Any, ...],
    label: np.ndarray,
    score: np.ndarray,
    *,
    compiled: bool,
    ids: np.ndarray | None = None,
) -> UnsplitRows | None:
    """The unweighted rows of a continuous block kept for the compiled split, or None.

    No class split and no sort in the block: the split groups the rows by
    class and bucket in two compiled passes, and each bucket sorts its rows
    once.  None where the compiled loops are not asked for or cannot take the
    scores, or the block is small or has more than two classes.  ``ids``:
    the rows' ids, on a traced sort.
    """
    if not (
        compiled
        and 0 < len(classes) <= 2
        and len(score) >= UNSPLIT_MIN_ROWS
        and _compiled.supports(score.dtype)
    ):
        return None
    codes = (
        np.asarray(label == classes[-1]).view(np.uint8)
        if len(classes) == 2
        else np.zeros(len(score), np.uint8)
    )
    narrow = narrowed(score) if ids is None else None
    if narrow is not None:  # held, split and exchanged in half the bytes; the bucket widens them
        return UnsplitRows(narrow, codes, classes, given=score.dtype)
    return UnsplitRows(score, codes, classes, ids)


#: rows converted and compared at a time (L2-sized: the check costs ~0.6 ns a row)
_NARROW_STEP = 1 << 15


def narrowed(scores: np.ndarray) -> np.ndarray | None:
    """float64 scores as float32 when every one is a float32 value, else None.

    A float32 model's scores often reach us as doubles (a pandas column, a
    Parquet file written after an ``astype``): exactly representable in half
    the bytes, which the sort then holds, moves and sorts.  The conversion is
    checked value by value (a chunk at a time, so continuous doubles are
    turned down after the first chunk), so the narrowed scores order and
    compare exactly as the given ones; :class:`UnsplitRows` keeps the given
    dtype, to which each bucket widens its sorted rows.

    Examples
    --------
    >>> narrowed(np.array([0.5, 0.25, 3.0])).dtype
    dtype('float32')
    >>> narrowed(np.array([0.1, 0.5])) is None
    True
    """
    if scores.dtype != np.float64:
        return None
    narrow = np.empty(len(scores), np.float32)
    equal = np.empty(min(len(scores), _NARROW_STEP), bool)
    with np.errstate(over="ignore"):  # a double beyond float32's range becomes inf: unequal
        for start in range(0, len(scores), _NARROW_STEP):
            given = scores[start : start + _NARROW_STEP]
            chunk = narrow[start : start + _NARROW_STEP]
            chunk[...] = given
            if not np.equal(chunk, given, out=equal[: len(given)]).all():
                return None
    return narrow
