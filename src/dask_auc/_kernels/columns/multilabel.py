"""Pure-NumPy kernels of indicator-matrix targets: multilabel ``y_true`` and multi-class AP.

scikit-learn reduces both to an ``(n, K)`` indicator matrix: a multilabel
``y_true`` is one (a cell is positive when it equals 1), and
``average_precision_score`` binarizes a multi-class ``y_true`` against its
present classes (one-vs-rest).  From an :class:`IndicatorBlock` come

* :func:`column_block` -- column ``k`` as a binary block (cells of column ``k``
  equal to 1 positive), sorted by the binary sample sort like any binary input;
* :func:`micro_indicator_block` -- the raveled matrix as one binary block;
* :func:`sample_totals` -- ``average='samples'``: every row is ranked across its
  own columns, so it is local to a block.  Each row's AUC is exact (mid-ranks,
  integer sums, one division); each row's AP is scikit-learn's step sum; the
  row values are summed exactly (:func:`exact_sum`), so the unweighted mean is
  the same bits for any partitioning.

The checks of the labels need every block (:func:`plan_multilabel`,
:func:`plan_ap_classes`); the sorts wait for them.  Nothing here imports dask.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.label_codes import label_codes
from ..core.row_ties import row_ties
from ..core.validation import (
    ROW_INPUTS,
    RowCounts,
    as_matrix,
    as_score_array,
    as_weight_array,
    check_aligned,
    check_rows,
    sorted_labels,
)
from ..sort.labels import LabelRule
from ..sort.prepare import PreparedBlock, sorted_rows
from .multiclass import ClassMeta, ClassPlan, MultiBlock

AP_MULTICLASS_POS_LABEL = (
    "Parameter pos_label is fixed to 1 for multiclass y_true. "
    "Do not set pos_label or set pos_label to 1."
)
AP_MULTILABEL_POS_LABEL = (
    "Parameter pos_label is fixed to 1 for multilabel-indicator y_true. "
    "Do not set pos_label or set pos_label to 1."
)


@dataclass(frozen=True)
class IndicatorBlock(SizedByArrays):
    """One block of an indicator target: labels, scores, weights (zero-weight rows kept)."""

    lengths: RowCounts
    labels: np.ndarray  # (n, K): multilabel values, or a one-hot bool matrix
    scores: np.ndarray  # (n, K)
    weights: np.ndarray | None

    @property
    def truth(self) -> np.ndarray:
        """The positive cells: equal to 1 (True for a one-hot matrix)."""
        return self.labels == 1


@dataclass(frozen=True)
class LabelMeta(SizedByArrays):
    """What the label plan needs of a block: row counts, label values and column sums."""

    lengths: RowCounts
    values: tuple[Any, ...]  # distinct label values of the block, sorted
    in_column: tuple[tuple[bool, ...], ...]  # for each value, in which columns it occurs
    support: np.ndarray  # per column: sum of label values (times the weights), as scikit-learn
    integral: bool  # every label is a whole number


@dataclass(frozen=True)
class IndicatorPlan(SizedByArrays):
    """The checked target: per column, how many classes it holds and its support."""

    n_classes: tuple[int, ...]  # per column (rows of weight zero included), as scikit-learn
    n_classes_raveled: int
    support: np.ndarray  # average='weighted''s weights
    n_rows: int


def prepare_multilabel_block(
    label: Any,
    matrix: Any,
    weight: Any = None,
    *,
    n_labels: int,
    names: tuple[str, ...] = ROW_INPUTS,
) -> IndicatorBlock:
    """Validate one block of ``[labels | scores]`` (``n_labels`` label columns first).

    ``label`` is the matrix's first column, passed only to align the blocks.

    Examples
    --------
    >>> block = prepare_multilabel_block(None, [[1, 0, 0.9, 0.2], [0, 1, 0.1, 0.8]], n_labels=2)
    >>> block.truth
    array([[ True, False],
           [False,  True]])
    """
    matrix = as_matrix(matrix)
    labels, scores = matrix[:, :n_labels], matrix[:, n_labels:]
    lengths = RowCounts.of(names, labels, scores, weight)
    if not lengths.aligned:
        return IndicatorBlock(lengths, labels[:0], scores[:0], None)
    if labels.dtype.kind == "O":
        labels = labels.astype(np.float64)
    if labels.dtype.kind == "f" and np.isnan(labels).any():
        raise ValueError("Input y_true contains NaN.")
    scores = as_score_array(scores)
    weights = None if weight is None else as_weight_array(weight)
    return IndicatorBlock(lengths, labels, scores, weights)


def label_meta(block: IndicatorBlock) -> LabelMeta:
    labels = block.labels
    values = np.unique(labels) if labels.size else np.empty(0)
    in_column = tuple(tuple((labels == v).any(axis=0).tolist()) for v in values)
    numeric = labels.astype(np.float64)
    if block.weights is None:
        support = numeric.sum(axis=0)
    else:
        support = (numeric * block.weights[:, None]).sum(axis=0)
    integral = bool(np.all(np.isfinite(values) & (values == np.round(values))))
    return LabelMeta(block.lengths, _python(values), in_column, support, integral)


def _python(values: np.ndarray) -> tuple[Any, ...]:
    """Label values as Python numbers, whole floats as ints (as scikit-learn shows them)."""
    found = []
    for v in values.tolist():
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        found.append(v)
    return tuple(found)


def plan_multilabel(
    metas: Sequence[LabelMeta],
    n_columns: int,
    *,
    metric: str,
    pos_label: Any = 1,
    average: str | None = "macro",
) -> IndicatorPlan:
    """scikit-learn's checks of a multilabel ``y_true``; the classes of each column.

    ``metric`` is ``"roc_auc"`` (each binary target scored, a column, or the
    raveled matrix for ``average='micro'`` or ``'samples'``, must take values
    in {0, 1} or {-1, 1}) or ``"average_precision"`` (``pos_label`` must be 1).
    """
    n_rows = check_rows([meta.lengths for meta in metas])
    values = sorted_labels(meta.values for meta in metas)
    if not all(meta.integral for meta in metas):
        raise ValueError("continuous-multioutput format is not supported")
    if len(values) > 2:
        raise ValueError("multiclass-multioutput format is not supported")
    if metric == "average_precision" and pos_label != 1:
        raise ValueError(AP_MULTILABEL_POS_LABEL)
    by_column: list[set[Any]] = [set() for _ in range(n_columns)]
    for meta in metas:
        for value, columns in zip(meta.values, meta.in_column, strict=True):
            for k, present in enumerate(columns):
                if present:
                    by_column[k].add(value)
    if metric == "roc_auc":
        targets = [set(values)] if average in ("micro", "samples") else by_column
        for found in targets:
            if len(found) == 2:
                LabelRule("curve", None).check(tuple(sorted(found)), n_rows)
    support = np.sum([meta.support for meta in metas], axis=0)
    return IndicatorPlan(tuple(len(found) for found in by_column), len(values), support, n_rows)


def plan_ap_classes(
    metas: Sequence[ClassMeta], n_columns: int, *, pos_label: Any
) -> tuple[ClassPlan, IndicatorPlan]:
    """scikit-learn's checks of ``average_precision_score`` with a 1-D ``y_true`` and 2-D scores.

    A multi-class target is binarized against its present classes (sorted),
    which must match the score columns; a binary one raises scikit-learn's errors.
    """
    n_rows = check_aligned([meta.lengths for meta in metas])
    present = sorted_labels(meta.counts for meta in metas)
    if len(present) <= 2:
        rule = LabelRule("average_precision", pos_label)
        rule.check(present, n_rows)  # scikit-learn checks pos_label first
        rule.check(present, n_rows, n_columns)
    if pos_label != 1:
        raise ValueError(AP_MULTICLASS_POS_LABEL)
    if n_columns != len(present):
        raise ValueError(
            "`y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` "
            f"contains multiple classes. Got `y_score.shape=({n_rows}, {n_columns})`."
        )
    counts = np.array([sum(m.counts.get(c, 0) for m in metas) for c in present], dtype=np.int64)
    weights = None
    if metas and metas[0].weights is not None:
        weights = np.array(
            [sum((m.weights or {}).get(c, 0.0) for m in metas) for c in present], dtype=float
        )
    classes = ClassPlan(present, counts, weights, n_rows)
    support = counts.astype(float) if weights is None else weights
    indicator = IndicatorPlan(
        tuple(2 if 0 < c < n_rows else 1 for c in counts.tolist()),
        2,
        support,
        n_rows,
    )
    return classes, indicator


def one_hot_block(block: MultiBlock, plans: tuple[ClassPlan, IndicatorPlan]) -> IndicatorBlock:
    """A multi-class block binarized against the plan's classes (scikit-learn's label_binarize)."""
    classes = plans[0].classes
    codes = label_codes(block.labels, classes)
    labels = np.zeros((len(codes), len(classes)), dtype=bool)
    labels[np.arange(len(codes)), codes] = True
    return IndicatorBlock(block.lengths, labels, block.scores, block.weights)


def column_block(block: IndicatorBlock, column: int, plan: Any = None) -> PreparedBlock:
    """Column ``column`` as a binary block (positive: cells equal to 1), zero weights dropped.

    ``plan`` is the checked label plan: passed so that no sort starts before the checks.
    """
    truth, scores = block.truth[:, column], block.scores[:, column]
    return _binary(block, truth, scores, block.weights)


def micro_indicator_block(block: IndicatorBlock, plan: Any = None) -> PreparedBlock:
    """The raveled matrix as one binary block (scikit-learn's ``average='micro'``)."""
    k = block.scores.shape[1]
    weights = None if block.weights is None else np.repeat(block.weights, k)
    return _binary(block, block.truth.ravel(), block.scores.ravel(), weights)


def _binary(
    block: IndicatorBlock, truth: np.ndarray, scores: np.ndarray, weights: np.ndarray | None
) -> PreparedBlock:
    if weights is not None and not weights.all():
        keep = weights != 0
        truth, scores, weights = truth[keep], scores[keep], weights[keep]
    by_label = {
        value: sorted_rows(
            scores[truth == value], None if weights is None else weights[truth == value]
        )
        for value in (False, True)
    }
    return PreparedBlock(RowCounts(ROW_INPUTS[:1], (block.lengths.rows,)), (), by_label)


@dataclass(frozen=True)
class SampleTotals:
    """A block's part of ``average='samples'``: the row values' sum, and what to warn."""

    exact: int  # unweighted: the exact sum of the row values, in units of 2**-1127
    weighted: float  # weighted: sum of weight * row value (rows of weight 0 left out)
    weight: float  # sum of the weights
    rows: int
    undefined: int  # rows with no positive (AP) or a single class (ROC AUC)
    nan: bool  # a row value is NaN (and counts: unweighted, or of nonzero weight)


def sample_totals(block: IndicatorBlock, metric: str, plan: Any = None) -> SampleTotals:
    """Each row's binary metric (``roc_auc`` or ``average_precision``) across its columns, summed.

    Examples
    --------
    >>> block = prepare_multilabel_block(None, [[1, 0, 0, 0.9, 0.5, 0.5]], n_labels=3)
    >>> totals = sample_totals(block, "roc_auc")
    >>> totals.exact / 2**1127, totals.rows
    (1.0, 1)
    """
    values, undefined = row_values(block.truth, block.scores, metric)
    if block.weights is None:
        nan = bool(np.isnan(values).any())
        exact = exact_sum(np.nan_to_num(values))
        return SampleTotals(exact, 0.0, 0.0, len(values), undefined, nan)
    counted = block.weights != 0
    weighted = np.where(counted, values, 0.0) * block.weights
    nan = bool(np.isnan(weighted).any())
    return SampleTotals(
        0,
        math.fsum(np.nan_to_num(weighted)),
        math.fsum(block.weights),
        len(values),
        undefined,
        nan,
    )


def row_values(truth: np.ndarray, scores: np.ndarray, metric: str) -> tuple[np.ndarray, int]:
    """Per row: the AUC (exact, ties one half) or the average precision of its columns.

    Returns the values and how many rows are undefined (AUC: NaN; AP: 0, as in
    scikit-learn).  Ranks come from one sort per row; ties share a mid-rank.
    """
    n, k = scores.shape
    if n == 0:
        return np.empty(0), 0
    order, _, first, last = row_ties(scores)
    positive = np.take_along_axis(truth, order, axis=1)
    n_pos = positive.sum(axis=1)
    n_neg = k - n_pos
    if metric == "roc_auc":
        # twice the positives' mid-ranks (1-based), minus P(P + 1): twice the pairs won
        twice_ranks = np.where(positive, first + last + 2, 0).sum(axis=1)
        twice_pairs = twice_ranks - n_pos * (n_pos + 1)
        defined = (n_pos > 0) & (n_neg > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where(defined, twice_pairs / (2 * n_pos * n_neg), np.nan)
        return values, int((~defined).sum())
    # average precision: each positive scores the precision at its own score's threshold
    below = np.concatenate([np.zeros((n, 1), dtype=np.int64), np.cumsum(positive, axis=1)], axis=1)
    tp_at = n_pos[:, None] - np.take_along_axis(below, first, axis=1)
    precision = tp_at / (k - first)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(n_pos > 0, np.where(positive, precision, 0.0).sum(axis=1) / n_pos, 0.0)
    return values, int((n_pos == 0).sum())


#: row values in [0, 1] times 2**_SCALE are integers (53-bit mantissas, exponents >= -1074)
_SCALE = 1127


def exact_sum(values: np.ndarray) -> int:
    """The exact sum of non-negative floats below 2, as an integer in units of ``2**-1127``.

    Mantissas are split into halves whose float sums stay exact (below 2**53) for
    blocks of fewer than 2**26 rows, grouped by exponent.

    Examples
    --------
    >>> exact_sum(np.array([0.1, 0.2])) == int(Fraction(0.1) * 2**1127 + Fraction(0.2) * 2**1127)
    True
    """
    mantissa, exponent = np.frexp(values)
    integer = (mantissa * 2.0**53).astype(np.int64)
    exponents, inverse = np.unique(exponent, return_inverse=True)
    high = np.bincount(inverse, weights=(integer >> 26).astype(np.float64))
    low = np.bincount(inverse, weights=(integer & ((1 << 26) - 1)).astype(np.float64))
    total = 0
    for e, h, lo in zip(exponents.tolist(), high.tolist(), low.tolist(), strict=True):
        total += ((int(h) << 26) + int(lo)) << (e - 53 + _SCALE)
    return total


def samples_average(parts: Sequence[SampleTotals], weighted: bool) -> tuple[float, int]:
    """The mean of the row values over all blocks, and how many rows were undefined."""
    undefined = sum(p.undefined for p in parts)
    if any(p.nan for p in parts):
        return float("nan"), undefined
    if not weighted:
        rows = sum(p.rows for p in parts)
        return float(Fraction(sum(p.exact for p in parts), rows << _SCALE)), undefined
    total_weight = math.fsum(p.weight for p in parts)
    if total_weight == 0:
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    return math.fsum(p.weighted for p in parts) / total_weight, undefined
