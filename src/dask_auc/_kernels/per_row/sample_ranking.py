"""Pure-NumPy kernels of the per-sample ranking metrics: sums of per-row values.

``top_k_accuracy_score``, ``coverage_error``, ``label_ranking_average_precision_score``,
``label_ranking_loss``, ``dcg_score`` and ``ndcg_score`` rank the columns of
each row on their own: a row's value needs no other row, so each block
computes its rows' values (:func:`ranking_sums`, :func:`top_k_sums`) and the
blocks' sums are added up (:func:`merge_row_sums`).

Exact sums
    Every finite float64 is an integer multiple of ``2**-1126``
    (:data:`~dask_auc._kernels.core.summary.UNIT_BITS`), so the rows' values (times
    their weights) are summed *exactly*, as Python integers in that unit
    (:func:`~dask_auc._kernels.core.summary.exact_total`), and rounded once at the
    end (:func:`~dask_auc._kernels.core.summary.as_float`).  The result is then the same
    bits for any partitioning, any order of the rows and any tree of merges,
    weighted or not.  scikit-learn sums the same per-row values in floats
    (``np.average``: pairwise sums; LRAP: a running sum), so results agree
    with it to a few ulps of the sum (see ``tests/test_sample_ranking.py``).

Per-row values
    Each row's value is computed from that row alone, with sums along a row
    taken sequentially (``np.cumsum``), never by BLAS or pairwise reductions
    whose association may depend on the block's shape: a row's value is the
    same bits in any block.  Ties are scikit-learn's: coverage and LRAP give
    tied labels the worst ("max") rank, the ranking loss counts a tied
    (relevant, irrelevant) pair as misordered, DCG with ``ignore_ties=False``
    gives each tie group its mean gain times the sum of its positions'
    discounts (scikit-learn's ``_tie_averaged_dcg``, McSherry & Najork 2008),
    summing the gains of a group in column order as scikit-learn does, and
    top-k ranks a tied class of higher index first.

The checks that need the data (target type, empty input, negative gains)
run in one planning task (:func:`plan_ranking`, :func:`plan_top_k`) with
scikit-learn 1.9's messages, before any row is scored.  Nothing here imports dask.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.summary import UNIT_BITS as UNIT_BITS
from ..core.summary import as_float as as_float
from ..core.summary import exact_total
from ..core.validation import (
    ROW_INPUTS,
    RowCounts,
    as_matrix,
    as_score_array,
    as_weight_array,
    check_aligned,
    distinct_labels,
    sorted_labels,
    to_numpy,
)

COVERAGE_ERROR = "coverage_error"
LRAP = "label_ranking_average_precision_score"
RANKING_LOSS = "label_ranking_loss"
DCG = "dcg_score"
NDCG = "ndcg_score"
METRICS = (COVERAGE_ERROR, LRAP, RANKING_LOSS, DCG, NDCG)

DCG_FORMATS = ("multilabel-indicator", "continuous-multioutput", "multiclass-multioutput")
WEIGHTS_SUM_TO_ZERO = "Weights sum to zero, can't be normalized"


@dataclass(frozen=True)
class RowSums:
    """A block's (or several blocks') part of a per-sample metric: exact sums and extremes.

    ``totals[i]`` is the exact sum of the rows' ``i``-th value, each times its
    weight when the metric is weighted; ``weight`` the exact sum of the weights
    (0 unweighted).  ``low`` and ``high`` are the smallest and largest score
    (top-k's binary threshold rule reads them).
    """

    rows: int
    weight: int
    totals: tuple[int, ...]
    low: float = math.inf
    high: float = -math.inf


def row_sums(
    columns: Sequence[np.ndarray],
    weights: np.ndarray | None,
    *,
    low: float = math.inf,
    high: float = -math.inf,
) -> RowSums:
    """The exact sums of per-row values ``columns`` (times ``weights``, when given).

    Examples
    --------
    >>> sums = row_sums([np.array([1.0, 0.5])], np.array([2.0, 0.0]))
    >>> sums.rows, as_float(sums.weight), as_float(sums.totals[0])
    (2, 2.0, 2.0)
    """
    rows = len(columns[0]) if columns else 0
    if weights is None:
        return RowSums(rows, 0, tuple(exact_total(c) for c in columns), low, high)
    totals = tuple(exact_total(np.asarray(c, dtype=np.float64) * weights) for c in columns)
    return RowSums(rows, exact_total(weights), totals, low, high)


def merge_row_sums(parts: Sequence[RowSums]) -> RowSums:
    """The sums of several blocks (exact: any grouping, any order gives the same result)."""
    if not parts:
        return RowSums(0, 0, ())
    width = max(len(p.totals) for p in parts)
    totals = tuple(sum(p.totals[i] for p in parts if len(p.totals) > i) for i in range(width))
    return RowSums(
        sum(p.rows for p in parts),
        sum(p.weight for p in parts),
        totals,
        min(p.low for p in parts),
        max(p.high for p in parts),
    )


def weighted_mean(sums: RowSums, weighted: bool, index: int = 0) -> float:
    """``np.average`` of the per-row values: the exact sum rounded, over the rows or weights.

    Like scikit-learn, each sum is rounded to a float before the division.
    """
    total = as_float(sums.totals[index])
    if not weighted:
        return total / sums.rows
    if sums.weight == 0:
        raise ZeroDivisionError(WEIGHTS_SUM_TO_ZERO)
    return total / as_float(sums.weight)


# -- input blocks and the target checks ---------------------------------------------------------


def _values(values: Any) -> np.ndarray:
    """A block of one input as an ndarray: a pandas DataFrame's columns as a matrix."""
    return as_matrix(values) if getattr(values, "ndim", 1) == 2 else to_numpy(values)


@dataclass(frozen=True)
class RankingBlock(SizedByArrays):
    """One validated block: ``y_true`` and ``y_score`` (``(n, L)``, or 1-D), weights."""

    lengths: RowCounts
    truth: np.ndarray
    scores: np.ndarray
    weights: np.ndarray | None


def prepare_ranking_block(
    label: Any,
    matrix: Any,
    weight: Any = None,
    *,
    n_labels: int | None,
    names: tuple[str, ...] = ROW_INPUTS,
) -> RankingBlock:
    """Validate one block, with scikit-learn's messages (``check_array`` of both inputs).

    With ``n_labels``, ``matrix`` is ``[y_true | y_score]`` side by side
    (``label``, its first column, only aligns the blocks); without, ``label``
    is ``y_true`` and ``matrix`` is ``y_score``.

    Examples
    --------
    >>> block = prepare_ranking_block(None, [[1, 0, 0.2, 0.7]], n_labels=2)
    >>> block.truth, block.scores
    (array([[1., 0.]]), array([[0.2, 0.7]]))
    """
    if n_labels is None:
        truth, scores = to_numpy(label), _values(matrix)
    else:
        values = _values(matrix)
        truth, scores = values[:, :n_labels], values[:, n_labels:]
    lengths = RowCounts.of(names, truth, scores, weight)
    if not lengths.aligned:
        return RankingBlock(lengths, truth[:0], scores[:0], None)
    truth = as_score_array(truth)  # scikit-learn checks y_true as a numeric array first
    scores = as_score_array(scores)
    weights = None if weight is None else as_weight_array(weight)
    return RankingBlock(lengths, truth, scores, weights)


@dataclass(frozen=True)
class TargetMeta:
    """What the target checks need of a block's ``y_true``."""

    lengths: RowCounts
    values: tuple[float, ...]  # up to three of its distinct values, sorted
    fractional: bool  # a value is not a whole number (as type_of_target tells)
    minimum: float | None


def target_meta(block: RankingBlock) -> TargetMeta:
    """A block's :class:`TargetMeta`, in one pass (no sort).

    Examples
    --------
    >>> meta = target_meta(prepare_ranking_block(None, [[1, 0, 0.1, 0.2]], n_labels=2))
    >>> meta.values, meta.fractional, meta.minimum
    ((0.0, 1.0), False, 0.0)
    """
    truth = block.truth
    if not truth.size:
        return TargetMeta(block.lengths, (), False, None)
    low, high = truth.min(), truth.max()
    values = [low] if low == high else [low, high]
    if low != high:
        between = truth[(truth != low) & (truth != high)]
        if between.size:
            values = [low, between.flat[0], high]
    fractional = False
    if truth.dtype.kind == "f":
        with np.errstate(invalid="ignore"):  # as scikit-learn: casts past int64 are "fractional"
            fractional = bool((truth != truth.astype(np.int64)).any())
    return TargetMeta(
        block.lengths, tuple(sorted(float(v) for v in values)), fractional, float(low)
    )


def target_type(values: Sequence[float], fractional: bool, ndim: int, n_columns: int) -> str:
    """scikit-learn's ``type_of_target`` of a numeric ``y_true`` from its summary.

    ``values`` are its distinct values (three stand for "three or more").

    Examples
    --------
    >>> target_type((0.0, 1.0), False, 2, 3), target_type((0.0, 2.0, 5.0), False, 1, 1)
    ('multilabel-indicator', 'multiclass')
    """
    multioutput = ndim == 2 and n_columns > 1
    if multioutput and len(values) < 3 and not fractional:
        return "multilabel-indicator"
    suffix = "-multioutput" if multioutput else ""
    if fractional:
        return "continuous" + suffix
    if len(values) > 2 or multioutput:
        return "multiclass" + suffix
    return "binary"


@dataclass(frozen=True)
class RankingPlan:
    """The checked target."""

    n_rows: int
    target: str


def plan_ranking(
    metas: Sequence[TargetMeta], *, metric: str, ndim: int, n_columns: int
) -> RankingPlan:
    """scikit-learn 1.9's checks of ``y_true`` that need its values, in its order.

    ``ndim`` and ``n_columns`` describe ``y_true`` (known before any data is read).

    Examples
    --------
    >>> meta = target_meta(prepare_ranking_block(None, [[1, 2, 0.1, 0.2]], n_labels=2))
    >>> plan_ranking([meta], metric="label_ranking_loss", ndim=2, n_columns=2).target
    'multilabel-indicator'
    >>> plan_ranking([meta], metric="ndcg_score", ndim=2, n_columns=1)
    Traceback (most recent call last):
    ...
    ValueError: Computing NDCG is only meaningful when there is more than 1 document. Got 1 instead.
    """
    n_rows = check_aligned([meta.lengths for meta in metas])
    if n_rows == 0:
        shape = f"(0, {n_columns})" if ndim == 2 else "(0,)"
        raise ValueError(
            f"Found array with 0 sample(s) (shape={shape}) while a minimum of 1 is required."
        )
    values = sorted({v for meta in metas for v in meta.values})
    fractional = any(meta.fractional for meta in metas)
    kind = target_type(values, fractional, ndim, n_columns)
    if metric in (COVERAGE_ERROR, RANKING_LOSS):
        if kind != "multilabel-indicator":
            raise ValueError(f"{kind} format is not supported")
    elif metric == LRAP:
        if kind != "multilabel-indicator" and not (kind == "binary" and ndim == 2):
            raise ValueError(f"{kind} format is not supported")
    else:
        if metric == NDCG:
            minimum = min(meta.minimum for meta in metas if meta.minimum is not None)
            if minimum < 0:
                raise ValueError("ndcg_score should not be used on negative y_true values.")
            if ndim > 1 and n_columns <= 1:
                raise ValueError(
                    "Computing NDCG is only meaningful when there is more than 1 document. "
                    f"Got {n_columns} instead."
                )
        if kind not in DCG_FORMATS:
            raise ValueError(f"Only {DCG_FORMATS} formats are supported. Got {kind} instead")
    return RankingPlan(n_rows, kind)


# -- per-row values of the multilabel metrics ---------------------------------------------------


def _row_total(values: np.ndarray) -> np.ndarray:
    """Each row's sum, added left to right (the same bits whatever the block holds)."""
    if values.shape[1] == 0:
        return np.zeros(len(values))
    return np.cumsum(values, axis=1)[:, -1]


def _ascending(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each row sorted ascending (stable): the order, and each position's tie group bounds.

    Returns ``order``, ``ranked`` (the sorted scores), ``first`` and ``last``:
    the first and last sorted position holding the same score.
    """
    n, k = scores.shape
    order = np.argsort(scores, axis=1, kind="stable")
    ranked = np.take_along_axis(scores, order, axis=1)
    columns = np.broadcast_to(np.arange(k), (n, k))
    starts = np.ones((n, k), dtype=bool)
    starts[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
    ends = np.ones((n, k), dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    first = np.maximum.accumulate(np.where(starts, columns, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, columns, k - 1)[:, ::-1], axis=1)[:, ::-1]
    return order, ranked, first, last


def coverage_values(truth: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Per row: how many labels score at least its lowest-scored relevant label (0 if none).

    Examples
    --------
    >>> coverage_values(np.array([[1, 0, 0], [0, 0, 0]]), np.array([[0.2, 0.5, 0.2], [1, 2, 3]]))
    array([3, 0])
    """
    relevant = truth != 0
    # the dtype's largest value, not a float inf: integer scores stay exact
    fill = np.inf if scores.dtype.kind == "f" else np.iinfo(scores.dtype).max
    lowest = np.where(relevant, scores, fill).min(axis=1, initial=fill)
    coverage = (scores >= lowest[:, None]).sum(axis=1)
    return np.where(relevant.any(axis=1), coverage, 0)


def lrap_values(truth: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Per row: mean over relevant labels of (relevant labels ranked at or above) / (rank).

    A label's rank counts the labels scoring at least as high (ties take the
    worst rank).  Rows with no relevant label, or only relevant labels, score 1.
    The ratios are summed in column order, as scikit-learn does.

    Examples
    --------
    >>> lrap_values(np.array([[1, 0, 0], [0, 0, 1]]), np.array([[0.75, 0.5, 1], [1, 0.2, 0.1]]))
    array([0.5       , 0.33333333])
    """
    n, k = scores.shape
    relevant = truth != 0
    n_relevant = relevant.sum(axis=1)
    if n == 0:
        return np.empty(0)
    order, _, first, _ = _ascending(scores)
    sorted_relevant = np.take_along_axis(relevant, order, axis=1)
    before = np.zeros((n, k + 1), dtype=np.int64)
    np.cumsum(sorted_relevant, axis=1, out=before[:, 1:])
    rank = k - first  # labels scoring at least as high
    at_least = n_relevant[:, None] - np.take_along_axis(before, first, axis=1)
    ratio_sorted = np.where(sorted_relevant, at_least / rank, 0.0)
    ratio = np.empty_like(ratio_sorted)
    np.put_along_axis(ratio, order, ratio_sorted, axis=1)
    degenerate = (n_relevant == 0) | (n_relevant == k)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(degenerate, 1.0, _row_total(ratio) / n_relevant)


def ranking_loss_values(truth: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Per row: misordered (relevant, irrelevant) pairs -- a tie is one -- over all such pairs.

    0 for rows with no relevant or no irrelevant label; each value is one
    division of two exact integers, as in scikit-learn.

    Examples
    --------
    >>> ranking_loss_values(np.array([[1, 0, 0], [0, 0, 1]]),
    ...                     np.array([[0.75, 0.5, 1], [1, 0.2, 0.1]]))
    array([0.5, 1. ])
    """
    n, k = scores.shape
    relevant = truth != 0
    n_relevant = relevant.sum(axis=1)
    if n == 0:
        return np.empty(0)
    order, _, _, last = _ascending(scores)
    sorted_relevant = np.take_along_axis(relevant, order, axis=1)
    up_to = np.cumsum(sorted_relevant, axis=1)
    # an irrelevant label is misordered with every relevant one scored at most as high
    pairs = np.where(sorted_relevant, 0, np.take_along_axis(up_to, last, axis=1)).sum(axis=1)
    degenerate = (n_relevant == 0) | (n_relevant == k)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(degenerate, 0.0, pairs / ((k - n_relevant) * n_relevant))


def discounts(n_columns: int, k: int | None, log_base: float) -> np.ndarray:
    """scikit-learn's DCG discount of each position (0 past ``k``).

    Examples
    --------
    >>> discounts(3, 2, 2)
    array([1.        , 0.63092975, 0.        ])
    """
    discount = 1 / (np.log(np.arange(n_columns) + 2) / np.log(log_base))
    if k is not None:
        discount[k:] = 0
    return discount


def dcg_values(
    truth: np.ndarray, scores: np.ndarray, discount: np.ndarray, ignore_ties: bool
) -> np.ndarray:
    """Per row: the discounted cumulative gain of ``truth`` ranked by ``scores``.

    ``ignore_ties=True`` ranks by ``np.argsort`` reversed, as scikit-learn does
    (tied scores then fall in the order NumPy's sort leaves them).  Otherwise
    each tie group contributes its mean gain times the sum of its positions'
    discounts; a group's gains are summed in column order, as scikit-learn's
    ``np.add.at`` does.

    Examples
    --------
    >>> truth, scores = np.array([[10, 0, 0, 1, 5]]), np.array([[1, 0, 0, 0, 1]])
    >>> dcg_values(truth, scores, discounts(5, 1, 2), ignore_ties=False)
    array([7.5])
    """
    n, k = scores.shape
    if n == 0:
        return np.empty(0)
    if ignore_ties:
        ranking = np.argsort(scores)[:, ::-1]
        ranked = np.take_along_axis(truth, ranking, axis=1)
        return _row_total(ranked * discount)
    order, _, first, last = _ascending(scores)
    gains = np.take_along_axis(truth, order, axis=1).astype(np.float64)
    # each tie group's sum of gains, added in column order (the stable sort keeps it)
    group_sum = np.empty((n, k))
    running = np.zeros(n)
    for j in range(k):
        running = np.where(first[:, j] == j, 0.0, running) + gains[:, j]
        group_sum[:, j] = running
    is_last = last == np.arange(k)
    counts = last - first + 1
    mean_gain = group_sum / counts
    # a group's positions in the descending ranking run up to ``k - 1 - first``
    cumulative = np.cumsum(discount)
    top = k - 1 - first
    below = top - counts  # the last position of the next higher group (-1: none)
    above = cumulative[np.maximum(below, 0)]
    discount_sum = np.where(below >= 0, cumulative[top] - above, cumulative[top])
    terms = np.where(is_last, mean_gain * discount_sum, 0.0)
    # groups summed from the highest scores down, as scikit-learn sums them
    return _row_total(terms[:, ::-1])


def ideal_dcg_values(truth: np.ndarray, discount: np.ndarray) -> np.ndarray:
    """Per row: the DCG of ``truth`` ranked by itself (ties cannot change it)."""
    return _row_total(np.sort(truth, axis=1)[:, ::-1] * discount)


def ndcg_values(
    truth: np.ndarray, scores: np.ndarray, discount: np.ndarray, ignore_ties: bool
) -> np.ndarray:
    """Per row: the DCG over the ideal DCG, 0 where every gain is 0.

    Examples
    --------
    >>> truth, scores = np.array([[10, 0, 0, 1, 5]]), np.array([[.1, .2, .3, 4, 70]])
    >>> ndcg_values(truth, scores, discounts(5, None, 2), ignore_ties=False)
    array([0.69569404])
    """
    gain = dcg_values(truth, scores, discount, ignore_ties)
    ideal = ideal_dcg_values(truth, discount)
    irrelevant = ideal == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(irrelevant, 0.0, gain / np.where(irrelevant, 1.0, ideal))


def ranking_sums(
    block: RankingBlock,
    plan: RankingPlan,
    metric: str,
    discount: np.ndarray | None = None,
    ignore_ties: bool = False,
) -> RowSums:
    """A block's exact sums of ``metric``'s per-row values (``plan``: the checked target).

    ``discount`` and ``ignore_ties`` are DCG's and NDCG's.

    Examples
    --------
    >>> block = prepare_ranking_block(None, [[1, 0, 0, 0.25, 0.5, 0.75]], n_labels=3)
    >>> sums = ranking_sums(block, RankingPlan(1, "multilabel-indicator"), "coverage_error")
    >>> as_float(sums.totals[0])
    3.0
    """
    truth, scores = block.truth, block.scores
    if metric == COVERAGE_ERROR:
        values = coverage_values(truth, scores)
    elif metric == LRAP:
        values = lrap_values(truth, scores)
    elif metric == RANKING_LOSS:
        values = ranking_loss_values(truth, scores)
    else:
        assert discount is not None
        kernel = dcg_values if metric == DCG else ndcg_values
        values = kernel(truth, scores, discount, ignore_ties)
    return row_sums([values], block.weights)


# -- top-k accuracy -----------------------------------------------------------------------------


@dataclass(frozen=True)
class TopKBlock(SizedByArrays):
    """One validated block of ``top_k_accuracy_score``: labels, scores (1-D or 2-D), weights."""

    lengths: RowCounts
    labels: np.ndarray
    scores: np.ndarray
    weights: np.ndarray | None
    classes: tuple[Any, ...] | None  # the block's distinct labels; None: continuous


def prepare_top_k_block(
    label: Any, score: Any, weight: Any = None, *, names: tuple[str, ...] = ROW_INPUTS
) -> TopKBlock:
    """Validate one block with scikit-learn's messages; find its labels.

    Examples
    --------
    >>> prepare_top_k_block(["b", "a"], [[0.1, 0.9], [0.3, 0.7]]).classes
    ('a', 'b')
    >>> prepare_top_k_block([0.5, 1.0], [0.2, 0.4]).classes is None   # continuous
    True
    """
    labels, scores = to_numpy(label), _values(score)
    lengths = RowCounts.of(names, labels, scores, weight)
    if not lengths.aligned:
        return TopKBlock(lengths, labels[:0], scores[:0], None, ())
    classes: tuple[Any, ...] | None
    if labels.dtype.kind == "f":
        if not np.isfinite(labels).all():
            if np.isnan(labels).any():
                raise ValueError("Input contains NaN.")
            raise ValueError(
                f"Input contains infinity or a value too large for dtype({labels.dtype.name!r})."
            )
        with np.errstate(invalid="ignore"):
            continuous = bool((labels != labels.astype(np.int64)).any())
        classes = None if continuous else distinct_labels(labels)
    else:
        if labels.dtype.kind == "O" and any(
            v is None or (isinstance(v, float) and v != v) for v in labels.tolist()
        ):
            raise ValueError("Input contains NaN")
        classes = distinct_labels(labels)
    scores = as_score_array(scores)
    weights = None if weight is None else as_weight_array(weight)
    return TopKBlock(lengths, labels, scores, weights, classes)


@dataclass(frozen=True)
class TopKMeta:
    lengths: RowCounts
    classes: tuple[Any, ...] | None


def top_k_meta(block: TopKBlock) -> TopKMeta:
    return TopKMeta(block.lengths, block.classes)


@dataclass(frozen=True)
class TopKPlan:
    """The checked target: the classes indexing the score columns."""

    classes: tuple[Any, ...]
    binary: bool
    n_rows: int


def _column_or_1d(values: np.ndarray) -> np.ndarray:
    if values.ndim == 1 or (values.ndim == 2 and values.shape[1] == 1):
        return values.ravel()
    raise ValueError(f"y should be a 1d array, got an array of shape {values.shape} instead.")


def plan_top_k(
    metas: Sequence[TopKMeta],
    *,
    labels: np.ndarray | None,
    score_shape: tuple[int, ...],
) -> TopKPlan:
    """scikit-learn 1.9's checks of ``top_k_accuracy_score``'s target, in its order.

    ``score_shape`` is ``()`` for a 1-D ``y_score``, ``(n_columns,)`` for a 2-D one.

    Examples
    --------
    >>> block = prepare_top_k_block([0, 1, 2, 3], [[0.4, 0.3, 0.3]] * 4)
    >>> plan_top_k([top_k_meta(block)], labels=None, score_shape=(3,))
    Traceback (most recent call last):
    ...
    ValueError: Number of classes in 'y_true' (4) not equal to the number of classes in \
'y_score' (3).You can provide a list of all known classes by assigning it to the `labels` \
parameter.
    """
    n_rows = check_aligned([meta.lengths for meta in metas])
    if n_rows == 0:
        raise ValueError(
            "Found array with 0 sample(s) (shape=(0,)) while a minimum of 1 is required."
        )
    if any(meta.classes is None for meta in metas):
        kind = "continuous"
        present: tuple[Any, ...] = ()
    else:
        present = sorted_labels(meta.classes for meta in metas)
        kind = "binary" if len(present) <= 2 else "multiclass"
    if kind == "binary" and labels is not None and len(labels) > 2:
        kind = "multiclass"
    if kind not in ("binary", "multiclass"):
        raise ValueError(f"y type must be 'binary' or 'multiclass', got '{kind}' instead.")
    if kind == "binary":
        if score_shape and score_shape[0] != 1:
            raise ValueError(
                f"`y_true` is binary while y_score is 2d with {score_shape[0]} classes. If "
                "`y_true` does not contain all the labels, `labels` must be provided."
            )
        n_score_classes = 2
    else:
        if not score_shape:
            raise ValueError(
                "`y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` "
                f"contains multiple classes. Got `y_score.shape=({n_rows},)`."
            )
        n_score_classes = score_shape[0]
    if labels is None:
        if len(present) != n_score_classes:
            raise ValueError(
                f"Number of classes in 'y_true' ({len(present)}) not equal to the number of "
                f"classes in 'y_score' ({n_score_classes}).You can provide a list of all "
                "known classes by assigning it to the `labels` parameter."
            )
        classes = present
    else:
        given = _column_or_1d(labels)
        unique = np.unique(given)
        if len(unique) != len(given):
            raise ValueError("Parameter 'labels' must be unique.")
        if not np.array_equal(unique, given):
            raise ValueError("Parameter 'labels' must be ordered.")
        if len(unique) != n_score_classes:
            raise ValueError(
                f"Number of given labels ({len(unique)}) not equal to the number of classes "
                f"in 'y_score' ({n_score_classes})."
            )
        if len(np.setdiff1d(np.asarray(present), unique)):
            raise ValueError("'y_true' contains labels not in parameter 'labels'.")
        classes = tuple(v.item() if hasattr(v, "item") else v for v in unique)
    return TopKPlan(classes, kind == "binary", n_rows)


def _encode(labels: np.ndarray, classes: tuple[Any, ...]) -> np.ndarray:
    """Each label's index among ``classes`` (every label is one of them: the plan checked)."""
    known = np.asarray(classes)
    if labels.dtype.kind in "biuf" and known.dtype.kind in "biuf":
        return np.searchsorted(known, labels)
    index = {value: i for i, value in enumerate(classes)}
    return np.fromiter((index[v] for v in labels.tolist()), np.int64, len(labels))


def top_k_sums(block: TopKBlock, plan: TopKPlan, k: int) -> RowSums:
    """A block's exact count (or weight) of rows whose class is among its ``k`` best scored.

    Multi-class: a class ranks after every class of higher score and, as
    scikit-learn breaks ties, every tied class of higher index.  Binary with
    ``k == 1``: the prediction ``score > threshold`` is right, for both of
    scikit-learn's thresholds (0.5 for scores in [0, 1], else 0: the caller
    picks from the extremes); binary with ``k >= 2``: every row is a hit.

    Examples
    --------
    >>> block = prepare_top_k_block([0, 1, 2, 3], [[5, 5, 7, 0], [1, 5, 5, 5],
    ...                                             [0, 0, 3, 3], [1, 1, 1, 1]])
    >>> sums = top_k_sums(block, TopKPlan((0, 1, 2, 3), False, 4), 2)
    >>> as_float(sums.totals[0])
    2.0
    """
    codes = _encode(block.labels, plan.classes)
    scores = block.scores
    if plan.binary:
        scores = scores.ravel()
        if k != 1:
            return row_sums([np.ones(len(codes))], block.weights)
        hits = [((scores > threshold).astype(np.int64) == codes) for threshold in (0.5, 0)]
        extremes = {}
        if len(scores):
            extremes = {"low": float(scores.min()), "high": float(scores.max())}
        return row_sums([h.astype(np.float64) for h in hits], block.weights, **extremes)
    rows = np.arange(len(codes))
    own = scores[rows, codes][:, None]
    columns = np.arange(scores.shape[1])
    ahead = (scores > own).sum(axis=1) + ((scores == own) & (columns > codes[:, None])).sum(axis=1)
    return row_sums([(ahead < k).astype(np.float64)], block.weights)


def binary_threshold_index(sums: RowSums) -> int:
    """Which of :func:`top_k_sums`'s binary totals scikit-learn's threshold rule picks."""
    return 0 if sums.low >= 0 and sums.high <= 1 else 1


# -- area under a curve -------------------------------------------------------------------------


def trapezoid_area(x: Any, y: Any) -> float:
    """scikit-learn's ``auc``: the trapezoidal area under the points ``(x, y)``.

    Same checks, messages and arithmetic (``scipy.integrate.trapezoid``'s).

    Examples
    --------
    >>> trapezoid_area([0, 0.5, 1], [0, 0.75, 1])
    0.625
    """
    x_values, y_values = np.asarray(x), np.asarray(y)
    lengths = [len(v) if v.ndim else 0 for v in (x_values, y_values)]
    if lengths[0] != lengths[1]:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: {lengths}")
    x_values, y_values = _column_or_1d(x_values), _column_or_1d(y_values)
    if x_values.shape[0] < 2:
        raise ValueError(
            "At least 2 points are needed to compute area under curve, but x.shape = "
            f"{x_values.shape[0]}"
        )
    direction = 1
    dx = np.diff(x_values)
    if np.any(dx < 0):
        if np.all(dx <= 0):
            direction = -1
        else:
            raise ValueError(f"x is neither increasing nor decreasing : {x_values}.")
    dtype = y_values.dtype if y_values.dtype.kind == "f" else np.float64
    d = x_values[1:] - x_values[:-1]
    area = np.sum(d * (y_values[1:] + y_values[:-1]) / 2.0, dtype=dtype)
    return float(direction * area)
