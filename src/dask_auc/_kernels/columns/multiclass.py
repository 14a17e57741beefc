"""Pure-NumPy kernels of the multi-class ROC AUC (one-vs-rest, one-vs-one, micro).

The multi-class sort is the binary sample sort (:mod:`dask_auc._kernels.sort.prepare`,
:mod:`~dask_auc._kernels.sort.plan`, :mod:`~dask_auc._kernels.sort.buckets`), once per
score column.  The rows of column ``c`` keep their class: a block of
column ``c`` holds one ascending :class:`~dask_auc._kernels.sort.rows.SortedScores` per
class (keyed by class index), cut at the same splitters and merged bucket by
bucket exactly as the binary negatives and positives are: a bucket has one
part per class instead of two.  From one sorted
column both kinds of summary follow, bucket by bucket:

* one-vs-rest: class ``c`` against all other classes (:func:`summarize_one_vs_rest`);
* one-vs-one: class ``c`` against class ``b``, scored by column ``c``
  (:func:`summarize_pair`), the half of Hand & Till's pair ``(c, b)`` that
  uses column ``c``.

Micro averaging is the binary AUC of the raveled indicator matrix against the
raveled scores; :func:`micro_block` turns a block into that binary block.

Pipeline per input block: :func:`prepare_multiclass_block` (validate) ->
:func:`class_meta` (small) -> one :func:`plan_classes` task -> :func:`encode_block`
(rows grouped by class) -> :func:`column_groups` per column, or :func:`micro_block`.

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.label_codes import label_codes
from ..core.summary import PartialROC, TieGroup
from ..core.validation import (
    ROW_INPUTS,
    LabelledBlock,
    RowCounts,
    as_score_array,
    as_weight_array,
    check_rows,
    distinct_labels,
    sorted_labels,
    to_numpy,
)
from ..sort.buckets import Bucket, edge, pair_counts, summarize_bucket, total_equal
from ..sort.prepare import PreparedBlock, sorted_rows

PROBABILITY_MESSAGE = (
    "Target scores need to be probabilities for multiclass "
    "roc_auc, i.e. they should sum up to 1.0 over classes"
)
CLASS_COUNT_MESSAGE = "Number of classes in y_true not equal to the number of columns in 'y_score'"
UNKNOWN_LABEL_MESSAGE = "'y_true' contains labels not in parameter 'labels'"


@dataclass(frozen=True)
class MultiBlock(LabelledBlock):
    """One validated input block: labels, an ``(n, K)`` score matrix, weights."""

    #: scikit-learn's checks that wait for the target (:func:`plan_classes`): do the rows
    #: sum to 1, the weights' error
    summed: bool = True
    weight_error: Exception | None = None


def prepare_multiclass_block(
    label: Any,
    score: Any,
    weight: Any = None,
    *,
    names: tuple[str, ...] = ROW_INPUTS,
    probabilities: bool = True,
) -> MultiBlock:
    """Validate one block of a multi-class input (scikit-learn's messages).

    With ``probabilities`` (ROC AUC), every row of scores must sum to 1, and
    that check and the weights' are left to :func:`plan_classes` (their
    messages depend on every block's labels); average precision takes any
    scores.

    Examples
    --------
    >>> block = prepare_multiclass_block([2, 0, 1], [[0.2, 0.3, 0.5], [1, 0, 0], [0, 1, 0]])
    >>> block.classes
    (0, 1, 2)
    """
    label, score = to_numpy(label), _score_matrix(score)
    lengths = RowCounts.of(names, label, score, weight)
    if not lengths.aligned:
        empty = np.empty((0, score.shape[1] if score.ndim == 2 else 0))
        return MultiBlock(lengths, (), label[:0], empty, None)
    classes = distinct_labels(label)
    score = as_score_array(score)
    # what scikit-learn says next depends on the target, known once every block's labels
    # are (plan_classes): (n, 2) scores of a binary one are a wrong shape; a multi-class
    # one's rows must sum to 1; the weights are checked last
    summed = not (probabilities and len(score) and not np.allclose(1, score.sum(axis=1)))
    try:
        weights = None if weight is None else as_weight_array(weight)
    except (TypeError, ValueError) as error:
        if not probabilities:  # average precision's plan does not wait: raise now
            raise
        return MultiBlock(lengths, classes, label, score, None, summed, error)
    return MultiBlock(lengths, classes, label, score, weights, summed)


def _score_matrix(score: Any) -> np.ndarray:
    dtypes = getattr(score, "dtypes", None)
    if dtypes is not None and hasattr(score, "to_numpy"):  # a pandas DataFrame
        if all(getattr(dt, "kind", "O") in "biuf" for dt in dtypes):
            return score.to_numpy(dtype=np.float64, na_value=np.nan)
        return score.to_numpy()
    return np.asarray(score)


@dataclass(frozen=True)
class ClassMeta:
    """What the class plan needs of a block: lengths, per-class rows and weight."""

    lengths: RowCounts
    counts: dict[Any, int]
    weights: dict[Any, float] | None
    summed: bool = True
    weight_error: Exception | None = None


def class_meta(block: MultiBlock) -> ClassMeta:
    counts: dict[Any, int] = {}
    weights: dict[Any, float] | None = None if block.weights is None else {}
    for value in block.classes:
        rows = block.labels == value
        counts[value] = int(rows.sum())
        if weights is not None:
            assert block.weights is not None
            weights[value] = float(block.weights[rows].sum())
    return ClassMeta(block.lengths, counts, weights, block.summed, block.weight_error)


@dataclass(frozen=True)
class ClassPlan(SizedByArrays):
    """The classes indexing the score columns, with their row counts and weights."""

    classes: tuple[Any, ...]
    counts: np.ndarray  # rows of each class (zero-weight rows included)
    weights: np.ndarray | None  # total sample weight of each class
    n_rows: int

    @property
    def support(self) -> np.ndarray:
        """Rows (or total weight) of each class: ``average='weighted'``'s weights."""
        return self.counts if self.weights is None else self.weights


def plan_classes(
    metas: Sequence[ClassMeta],
    labels: tuple[Any, ...] | None,
    n_columns: int,
    deferred_checks: Callable[[], None] | None = None,
) -> ClassPlan:
    """Check the blocks' labels against ``labels`` or the number of score columns.

    ``deferred_checks`` runs once the target is known to be multi-class; with
    two score columns that is only known from the data (a binary target with
    two score columns is scikit-learn's "1d array" error instead, whatever
    the scores).  Then the blocks' scores must sum to 1, then the classes
    match, then the weights are valid: scikit-learn's order.
    """
    n_rows = check_rows([meta.lengths for meta in metas])
    present = sorted_labels(meta.counts for meta in metas)
    if n_columns == 2 and len(present) <= 2:
        raise ValueError(f"y should be a 1d array, got an array of shape ({n_rows}, 2) instead.")
    if deferred_checks is not None:
        deferred_checks()
    if not all(meta.summed for meta in metas):
        raise ValueError(PROBABILITY_MESSAGE)
    if labels is not None:
        known = set(labels)
        if any(value not in known for value in present):
            raise ValueError(UNKNOWN_LABEL_MESSAGE)
        classes = tuple(labels)
    else:
        if len(present) != n_columns:
            raise ValueError(CLASS_COUNT_MESSAGE)
        classes = tuple(present)
    for meta in metas:
        if meta.weight_error is not None:
            raise meta.weight_error
    counts = np.array([sum(m.counts.get(c, 0) for m in metas) for c in classes], dtype=np.int64)
    weights = None
    if metas and metas[0].weights is not None:
        weights = np.array(
            [sum((m.weights or {}).get(c, 0.0) for m in metas) for c in classes], dtype=float
        )
    return ClassPlan(classes, counts, weights, n_rows)


@dataclass(frozen=True)
class EncodedBlock(SizedByArrays):
    """A block's rows grouped by class index, zero-weight rows dropped."""

    scores: np.ndarray  # (n, K), rows of class k in starts[k]:starts[k + 1]
    weights: np.ndarray | None
    starts: np.ndarray
    n_rows: int  # rows of the block before dropping zero weights


def encode_block(block: MultiBlock, plan: ClassPlan) -> EncodedBlock:
    """Group a block's rows by their class's position in ``plan.classes``."""
    codes = label_codes(block.labels, plan.classes)
    scores, weights = block.scores, block.weights
    if weights is not None and not weights.all():
        keep = weights != 0
        codes, scores, weights = codes[keep], scores[keep], weights[keep]
    order = np.argsort(codes, kind="stable")
    starts = np.searchsorted(codes[order], np.arange(len(plan.classes) + 1))
    return EncodedBlock(
        scores[order], None if weights is None else weights[order], starts, len(block.labels)
    )


def column_groups(block: EncodedBlock, column: int) -> PreparedBlock:
    """Sort each class's scores in ``column`` (one sort per class and column).

    The block's parts are keyed by class index: the column's sort plan uses
    :func:`class_group_keys` for its ``group_keys``.
    """
    by_class = {}
    for k in range(len(block.starts) - 1):
        rows = slice(block.starts[k], block.starts[k + 1])
        weights = None if block.weights is None else block.weights[rows]
        by_class[k] = sorted_rows(block.scores[rows, column], weights)
    return PreparedBlock(RowCounts(ROW_INPUTS[:1], (block.n_rows,)), (), by_class)


def class_group_keys(n_classes: int) -> tuple[int, ...]:
    """The ``group_keys`` of a column's sort: one bucket part per class index."""
    return tuple(range(n_classes))


def summarize_one_vs_rest(bucket: Bucket, column: int) -> PartialROC:
    """The bucket's summary with the column's own class positive, all others negative.

    Examples
    --------
    >>> from dask_auc._kernels.sort.rows import SortedScores
    >>> a = SortedScores(np.array([0.5, 0.9]))
    >>> b, c = SortedScores(np.array([0.1])), SortedScores(np.array([0.5]))
    >>> summary = summarize_one_vs_rest(Bucket((a, b, c)), column=0)
    >>> summary.strict, summary.tied, summary.neg
    (3, 1, 2)
    """
    pos = bucket.groups[column]
    rest = [g for k, g in enumerate(bucket.groups) if k != column]
    if not any(len(g) for g in bucket.groups):
        return PartialROC.empty()
    strict: int | float = 0
    tied: int | float = 0
    neg: int | float = 0
    for other in rest:
        s, t = pair_counts(pos, other, bucket.weight_exponent, bucket.compiled)
        strict, tied, neg = strict + s, tied + t, neg + other.total
    top = max(edge(g, -1) for g in bucket.groups)
    bottom = min(edge(g, 0) for g in bucket.groups)
    return PartialROC(
        pos.total,
        neg,
        strict,
        tied,
        TieGroup(top, total_equal(pos, top), sum(total_equal(g, top) for g in rest)),
        TieGroup(bottom, total_equal(pos, bottom), sum(total_equal(g, bottom) for g in rest)),
        bucket.weight_exponent,
    )


def summarize_pair(bucket: Bucket, column: int, other: int) -> PartialROC:
    """The bucket's summary of the column's class (positive) against class ``other``."""
    pair = Bucket.binary(bucket.groups[column], bucket.groups[other], bucket.weight_exponent)
    return summarize_bucket(pair)


def micro_block(block: EncodedBlock) -> PreparedBlock:
    """The block as a binary block of the raveled indicator matrix and scores.

    Examples
    --------
    >>> plan = ClassPlan((0, 1, 2), np.array([1, 1, 0]), None, 2)
    >>> block = prepare_multiclass_block([1, 0], [[0.2, 0.7, 0.1], [0.6, 0.3, 0.1]])
    >>> micro = micro_block(encode_block(block, plan))
    >>> micro.by_label[True].scores, micro.by_label[False].scores
    (array([0.6, 0.7]), array([0.1, 0.1, 0.2, 0.3]))
    """
    n, k = block.scores.shape
    codes = np.repeat(np.arange(len(block.starts) - 1), np.diff(block.starts))
    truth = np.zeros((n, k), dtype=bool)
    truth[np.arange(n), codes] = True
    weights = None if block.weights is None else np.repeat(block.weights[:, None], k, axis=1)
    by_label = {
        value: sorted_rows(
            block.scores[truth == value], None if weights is None else weights[truth == value]
        )
        for value in (False, True)
    }
    return PreparedBlock(RowCounts(ROW_INPUTS[:1], (block.n_rows,)), (False, True), by_label)
