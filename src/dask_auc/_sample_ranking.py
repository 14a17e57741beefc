"""scikit-learn's per-sample ranking metrics on dask collections, and ``auc``.

``top_k_accuracy_score``, ``coverage_error``,
``label_ranking_average_precision_score``, ``label_ranking_loss``,
``dcg_score`` and ``ndcg_score`` rank the labels (or classes, or documents)
*of each row*: no sort across rows is needed.  The graph is

    input blocks -> validated blocks -> small metas -> one plan (checks)
    validated block + plan -> the block's exact sums (one task per block)
    sums -> an ordered tree of merges (``split_every`` at a time) -> the value

built from the engine's :func:`~dask_auc._engine.prepared_blocks`,
:func:`~dask_auc._engine.map_blocks`, :func:`~dask_auc._engine.gather` and
:func:`~dask_auc._engine.lazy_of`.  Rows pair by position as everywhere in
dask-auc; a 2-D ``y_true`` and ``y_score`` are joined side by side first, as
for multilabel ROC AUC.  The kernels (:mod:`dask_auc._kernels.per_row.sample_ranking`)
compute each row's value from that row alone and sum the values *exactly*
(integers in units of ``2**-1126``), so the result is the same bits for any
partitioning, row order or tree, weighted or not; it differs from
scikit-learn's float sums by a few ulps of the sum (scikit-learn's own
rounding), and per-row values equal scikit-learn's to the bit except where
scikit-learn sums eight or more terms of a row pairwise (LRAP's ratios, DCG's
tie groups) or with BLAS (DCG's dot product).

Checks: parameters first, then the shapes known without data (a 1-D input
where scikit-learn needs 2-D, ``y_true`` and ``y_score`` of different widths),
then, in the tasks, the values (NaN, infinities, strings) and, in one plan
task before any row is scored, the checks of the whole target
(``type_of_target``, no rows, negative gains for NDCG, top-k's classes), with
scikit-learn 1.9's messages.  An input wrong in two ways at once may be
reported for the other one than scikit-learn reports.  Where scikit-learn's
DCG of mismatched shapes fails by accident (``array is not broadcastable``),
dask-auc says "y_true and y_score have different shape".  Negative sample
weights are rejected, as everywhere in dask-auc.

``auc(x, y)``: scikit-learn's ``_ranking`` module also has ``auc``, the
trapezoidal area under given curve points.  It takes a curve's points, not
rows -- a few thousand numbers that :func:`roc_curve` and friends already
return in memory -- so it needs no dask: :func:`auc` is scikit-learn's
computation in NumPy (same checks, messages and arithmetic), provided so that
every public function of scikit-learn's ``_ranking`` exists here with its
signature; dask arrays given to it are computed first.
"""

from __future__ import annotations

import numbers
from functools import partial
from types import SimpleNamespace
from typing import Any

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd

from ._engine import (
    LazyScore,
    gather,
    lazy_of,
    map_blocks,
    prepared_blocks,
    side_by_side,
    split_every_default,
)
from ._kernels.core.validation import check_declared_score_dtype, warn_undefined
from ._kernels.per_row.sample_ranking import (
    COVERAGE_ERROR,
    DCG,
    LRAP,
    NDCG,
    RANKING_LOSS,
    RankingPlan,
    RowSums,
    TopKPlan,
    as_float,
    binary_threshold_index,
    discounts,
    merge_row_sums,
    plan_ranking,
    plan_top_k,
    prepare_ranking_block,
    prepare_top_k_block,
    ranking_sums,
    target_meta,
    top_k_meta,
    top_k_sums,
    trapezoid_area,
    weighted_mean,
)
from ._params import AtLeast, Boolean, Constraint, Interval, check_params

DIFFERENT_SHAPE = "y_true and y_score have different shape"


class _Integral(Constraint):
    """An integer of at least ``low`` (scikit-learn's ``Interval(Integral, low, None)``)."""

    def __init__(self, low: int, none: bool):
        self.low, self.none = low, none
        self.description = f"an int in the range [{low}, inf)" + (" or None" if none else "")

    def accepts(self, value: Any) -> bool:
        if value is None:
            return self.none
        return isinstance(value, numbers.Integral) and int(value) >= self.low

    def convert(self, value: Any) -> Any:
        return None if value is None else int(value)


class _ArrayLike(Constraint):
    """An array-like (not a string or a scalar), or None."""

    description = "an array-like or None"

    def accepts(self, value: Any) -> bool:
        if value is None:
            return True
        shaped = hasattr(value, "__len__") or hasattr(value, "shape") or hasattr(value, "__array__")
        return shaped and not np.isscalar(value)


_COMMON = {"compute": Boolean(), "split_every": AtLeast(2)}
_TOP_K_PARAMETERS = {
    "k": _Integral(1, none=False),
    "normalize": Boolean(),
    "labels": _ArrayLike(),
    **_COMMON,
}
_NDCG_PARAMETERS = {"k": _Integral(1, none=True), "ignore_ties": Boolean(), **_COMMON}
_DCG_PARAMETERS = {
    "k": _Integral(1, none=True),
    "log_base": Interval(0, np.inf, closed="neither"),
    "ignore_ties": Boolean(),
    **_COMMON,
}


# -- public functions ---------------------------------------------------------------------------


def top_k_accuracy_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int = 2,
    normalize: bool = True,
    sample_weight: Any = None,
    labels: Any = None,
    compute: bool = True,
    split_every: int | None = None,
) -> float | LazyScore:
    """Top-k accuracy: how often the true class is among the ``k`` best-scored, with dask.

    Same definition and result as :func:`sklearn.metrics.top_k_accuracy_score`:
    a class tied with the true class's score ranks before it when its index is
    higher; a binary target with a 1-D ``y_score`` predicts
    ``y_score > threshold`` for ``k=1`` (threshold 0.5 when every score is in
    [0, 1], else 0) and is always right for ``k >= 2``.

    Parameters
    ----------
    y_true : dask Series or Array, pandas Series, ndarray or list
        True labels (any classes: numbers, strings, bools), one per row.
    y_score : dask DataFrame or 2-D Array, ndarray, ... of shape (n_samples, n_classes)
        Scores per class, in the order of ``labels`` (or of the sorted classes
        of ``y_true``); 1-D for a binary target.  Rows pair with ``y_true`` by
        position (columns of one DataFrame do).
    k : int >= 1, default=2
        Number of best-scored classes to look at.
    normalize : bool, default=True
        Return the fraction (weighted) of hits; False: their count (weight).
    sample_weight : same kinds as ``y_true``, optional
        Non-negative row weights.
    labels : array-like, optional
        All classes, sorted, one per score column; needed when ``y_true``
        lacks some.
    compute : bool, default=True
        If False, return a :class:`~dask_auc.LazyScore`.
    split_every : int >= 2, optional
        Fan-in of the tree that adds up the blocks' sums (default:
        ``dask-auc.split-every``).  The result does not depend on it.

    Returns
    -------
    float or LazyScore
        The top-k accuracy.  ``k`` at least the number of classes warns
        (:class:`~dask_auc.UndefinedMetricWarning`) and gives a perfect score,
        as scikit-learn does.  Unweighted counts are exact integers.

    Examples
    --------
    >>> import numpy as np, dask.array as da, dask_auc
    >>> y = da.from_array(np.array([0, 1, 2, 2]), chunks=2)
    >>> p = da.from_array(np.array([[0.5, 0.2, 0.2], [0.3, 0.4, 0.2],
    ...                             [0.2, 0.4, 0.3], [0.7, 0.2, 0.1]]), chunks=(2, 3))
    >>> dask_auc.top_k_accuracy_score(y, p, k=2)
    0.75
    >>> dask_auc.top_k_accuracy_score(y, p, k=2, normalize=False)
    3.0
    """
    name = "top_k_accuracy_score"
    checked = check_params(
        name,
        _TOP_K_PARAMETERS,
        k=k,
        normalize=normalize,
        labels=labels,
        compute=compute,
        split_every=split_every,
    )
    k = checked["k"]
    score_dims, score_columns = _dimensions(y_score)
    if score_dims > 2:
        raise ValueError(f"Found array with dim {score_dims}, while dim <= 2 is required.")
    score_shape = (score_columns,) if score_dims == 2 else ()
    blocks = prepared_blocks(
        y_true, y_score, sample_weight, prepare=prepare_top_k_block, score_matrix=score_dims == 2
    )
    given = None if labels is None else np.asarray(labels)
    plan = gather(plan_top_k, map_blocks(top_k_meta, blocks), labels=given, score_shape=score_shape)
    total = _ordered_sum(map_blocks(top_k_sums, blocks, plan, k), checked["split_every"])
    finalize = _TopKFinalizer(k, checked["normalize"], sample_weight is not None)
    lazy = lazy_of([plan, total], finalize, name)
    return lazy.compute() if checked["compute"] else lazy


def coverage_error(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    compute: bool = True,
    split_every: int | None = None,
) -> float | LazyScore:
    """Coverage error of a multilabel ranking: how deep the ranking must go, with dask.

    Same as :func:`sklearn.metrics.coverage_error`: per row, the number of
    labels scoring at least as high as its lowest-scored relevant label (ties
    take the worst rank; 0 for a row with no relevant label), averaged over
    the rows (weighted).

    Parameters
    ----------
    y_true : 2-D dask Array or DataFrame, ndarray, ... of shape (n_samples, n_labels)
        Label indicator matrix: a label is relevant where it is nonzero.
    y_score : same kinds and shape as ``y_true``
        Scores; higher ranks first.  Rows pair with ``y_true`` by position
        (two dask DataFrames: partition by partition, of equal lengths).
    sample_weight : 1-D dask Array or Series, ndarray, ..., optional
        Non-negative row weights.
    compute : bool, default=True
        If False, return a :class:`~dask_auc.LazyScore`.
    split_every : int >= 2, optional
        Fan-in of the tree that adds up the blocks' sums; no effect on the result.

    Returns
    -------
    float or LazyScore
        The same bits for any partitioning.

    Examples
    --------
    >>> import numpy as np, dask.array as da, dask_auc
    >>> y = da.from_array(np.array([[1, 0, 0], [0, 1, 1]]), chunks=(1, 3))
    >>> s = da.from_array(np.array([[1, 0, 0], [0, 1, 1]]), chunks=(1, 3))
    >>> dask_auc.coverage_error(y, s)
    1.5
    """
    return _sample_metric(
        COVERAGE_ERROR, y_true, y_score, sample_weight, compute=compute, split_every=split_every
    )


def label_ranking_average_precision_score(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    compute: bool = True,
    split_every: int | None = None,
) -> float | LazyScore:
    """Label ranking average precision (LRAP) of a multilabel ranking, with dask.

    Same as :func:`sklearn.metrics.label_ranking_average_precision_score`:
    per row, the mean over its relevant labels of the fraction of relevant
    labels among those scoring at least as high (ties take the worst rank);
    1 for a row with no relevant label or only relevant labels.

    Parameters
    ----------
    y_true, y_score, sample_weight, compute, split_every
        As in :func:`coverage_error`.  A one-column ``y_true`` of two classes is
        accepted (every row then scores 1), as in scikit-learn; so is a SciPy
        sparse ``y_true`` (made dense: it is in memory already).

    Returns
    -------
    float or LazyScore
        The same bits for any partitioning.  Weights summing to 0 give NaN
        with NumPy's ``RuntimeWarning``, as in scikit-learn.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> y_true = np.array([[1, 0, 0], [0, 0, 1]])
    >>> y_score = np.array([[0.75, 0.5, 1], [1, 0.2, 0.1]])
    >>> dask_auc.label_ranking_average_precision_score(y_true, y_score)
    0.41666666666666663
    """
    return _sample_metric(
        LRAP, y_true, y_score, sample_weight, compute=compute, split_every=split_every
    )


def label_ranking_loss(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    compute: bool = True,
    split_every: int | None = None,
) -> float | LazyScore:
    """Ranking loss of a multilabel ranking: the share of misordered label pairs, with dask.

    Same as :func:`sklearn.metrics.label_ranking_loss`: per row, the
    (relevant, irrelevant) label pairs where the relevant one scores no
    higher (a tie counts), over all such pairs; 0 for a row with no relevant
    or no irrelevant label.

    Parameters
    ----------
    y_true, y_score, sample_weight, compute, split_every
        As in :func:`coverage_error`; a SciPy sparse ``y_true`` is accepted, as
        in scikit-learn (made dense: it is in memory already).

    Returns
    -------
    float or LazyScore
        The same bits for any partitioning.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> dask_auc.label_ranking_loss([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]])
    0.75
    """
    return _sample_metric(
        RANKING_LOSS, y_true, y_score, sample_weight, compute=compute, split_every=split_every
    )


def dcg_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int | None = None,
    log_base: float = 2,
    sample_weight: Any = None,
    ignore_ties: bool = False,
    compute: bool = True,
    split_every: int | None = None,
) -> float | LazyScore:
    """Discounted cumulative gain of each row's ranking, averaged, with dask.

    Same as :func:`sklearn.metrics.dcg_score`: the gains ``y_true`` of a row,
    ranked by ``y_score`` and discounted by ``1 / log_base(position + 1)``,
    summed (the top ``k`` positions only, when given).  With
    ``ignore_ties=False`` tied scores share their positions: each tie group
    counts its mean gain times the sum of its positions' discounts, exactly as
    scikit-learn's tie averaging does.

    Parameters
    ----------
    y_true : 2-D dask Array or DataFrame, ndarray, ... of shape (n_samples, n_labels)
        Gains (relevances) of each row's items; any finite numbers.
    y_score : same kinds and shape as ``y_true``
        Scores ranking each row's items.
    k : int >= 1, optional
        Only the ``k`` best-ranked positions count.
    log_base : float > 0, default=2
        Base of the logarithm of the discount.
    sample_weight, compute, split_every
        As in :func:`coverage_error`.
    ignore_ties : bool, default=False
        Rank by NumPy's sort alone (tied scores in the order it leaves them),
        as scikit-learn does: faster, and right only without ties.

    Returns
    -------
    float or LazyScore
        The same bits for any partitioning.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> true_relevance = np.asarray([[10, 0, 0, 1, 5]])
    >>> dask_auc.dcg_score(true_relevance, np.asarray([[.1, .2, .3, 4, 70]]))
    9.499457825916874
    >>> dask_auc.dcg_score(true_relevance, np.asarray([[1, 0, 0, 0, 1]]), k=1)
    7.5
    """
    checked = check_params(
        DCG,
        _DCG_PARAMETERS,
        k=k,
        log_base=log_base,
        ignore_ties=ignore_ties,
        compute=compute,
        split_every=split_every,
    )
    return _sample_metric(
        DCG,
        y_true,
        y_score,
        sample_weight,
        compute=checked["compute"],
        split_every=checked["split_every"],
        k=checked["k"],
        log_base=log_base,
        ignore_ties=checked["ignore_ties"],
    )


def ndcg_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int | None = None,
    sample_weight: Any = None,
    ignore_ties: bool = False,
    compute: bool = True,
    split_every: int | None = None,
) -> float | LazyScore:
    """Normalized discounted cumulative gain of each row's ranking, averaged, with dask.

    Same as :func:`sklearn.metrics.ndcg_score`: each row's :func:`dcg_score`
    over the DCG of its ideal ranking (0 for a row whose gains are all 0).

    Parameters
    ----------
    y_true : 2-D dask Array or DataFrame, ndarray, ... of shape (n_samples, n_labels)
        Non-negative gains of each row's items (two items or more).
    y_score, k, sample_weight, ignore_ties, compute, split_every
        As in :func:`dcg_score` (base-2 discount).

    Returns
    -------
    float or LazyScore
        The same bits for any partitioning.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> true_relevance = np.asarray([[10, 0, 0, 1, 5]])
    >>> dask_auc.ndcg_score(true_relevance, np.asarray([[.1, .2, .3, 4, 70]]))
    0.6956940443813076
    >>> dask_auc.ndcg_score(true_relevance, np.asarray([[1, 0, 0, 0, 1]]), k=1)
    0.75
    """
    checked = check_params(
        NDCG,
        _NDCG_PARAMETERS,
        k=k,
        ignore_ties=ignore_ties,
        compute=compute,
        split_every=split_every,
    )
    return _sample_metric(
        NDCG,
        y_true,
        y_score,
        sample_weight,
        compute=checked["compute"],
        split_every=checked["split_every"],
        k=checked["k"],
        log_base=2,
        ignore_ties=checked["ignore_ties"],
    )


def auc(x: Any, y: Any) -> float:
    """Area under the curve through the points ``(x, y)`` by the trapezoidal rule.

    :func:`sklearn.metrics.auc` in NumPy: the same checks, messages and
    result.  It takes a curve's points (already small, in memory), not rows:
    for the area under the ROC curve of data, use :func:`roc_auc_score`.
    Dask arrays are computed first.

    Parameters
    ----------
    x : array-like of shape (n,)
        Increasing or decreasing x coordinates.
    y : array-like of shape (n,)
        y coordinates.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> fpr, tpr, _ = dask_auc.roc_curve(np.array([1, 1, 2, 2]),
    ...                                  np.array([0.1, 0.4, 0.35, 0.8]), pos_label=2)
    >>> dask_auc.auc(fpr, tpr)
    0.75
    """
    return trapezoid_area(x, y)


# -- the graph ----------------------------------------------------------------------------------


def _sample_metric(
    metric: str,
    y_true: Any,
    y_score: Any,
    sample_weight: Any,
    *,
    compute: bool,
    split_every: int | None,
    k: int | None = None,
    log_base: float = 2,
    ignore_ties: bool = False,
) -> float | LazyScore:
    """The lazy ``metric`` of a 2-D ``y_true`` and ``y_score``: checks, blocks, sums, tree."""
    if metric not in (DCG, NDCG):
        checked = check_params(metric, _COMMON, compute=compute, split_every=split_every)
        compute, split_every = checked["compute"], checked["split_every"]
    if metric in (LRAP, RANKING_LOSS) and hasattr(y_true, "tocsr"):
        y_true = y_true.toarray()  # a SciPy sparse matrix, in memory: scikit-learn takes it too
    true_dims, n_columns = _dimensions(y_true)
    score_dims, score_columns = _dimensions(y_score)
    for x in (y_true, y_score):  # strings: scikit-learn's check_array message, before any join
        _check_numeric(x)
    _check_shapes(metric, y_true, y_score, (true_dims, n_columns), (score_dims, score_columns))
    if true_dims == 2:
        assert n_columns is not None
        first, matrix = side_by_side(y_true, y_score, n_columns)
        prepare = partial(prepare_ranking_block, n_labels=n_columns)
        blocks = prepared_blocks(first, matrix, sample_weight, prepare=prepare, score_matrix=True)
    else:  # a 1-D y_true: the plan raises scikit-learn's error for its type
        prepare = partial(prepare_ranking_block, n_labels=None)
        blocks = prepared_blocks(
            y_true, y_score, sample_weight, prepare=prepare, score_matrix=score_dims == 2
        )
    plan = gather(
        plan_ranking,
        map_blocks(target_meta, blocks),
        metric=metric,
        ndim=true_dims,
        n_columns=n_columns or 1,
    )
    discount = None
    if metric in (DCG, NDCG):  # here, not in a task: log_base=1 warns in the caller
        discount = discounts(n_columns or 1, k, log_base)
    sums = map_blocks(ranking_sums, blocks, plan, metric, discount, ignore_ties)
    total = _ordered_sum(sums, split_every)
    finalize = _MeanFinalizer(metric, sample_weight is not None)
    lazy = lazy_of([plan, total], finalize, metric)
    return lazy.compute() if compute else lazy


def _ordered_sum(parts: list, split_every: int | None) -> Any:
    """A tree of merges of consecutive parts, ``split_every`` at a time (exact: any tree)."""
    fan_in = split_every or split_every_default()
    level = list(parts)
    while True:
        runs = [level[i : i + fan_in] for i in range(0, max(len(level), 1), fan_in)]
        level = [gather(merge_row_sums, run) for run in runs]
        if len(level) == 1:
            return level[0]


def _dimensions(x: Any) -> tuple[int, int | None]:
    """``(ndim, number of columns)`` of an input, without reading its data."""
    if isinstance(x, dd.DataFrame):
        return 2, len(x.columns)
    if isinstance(x, dd.Series):
        return 1, None
    if not hasattr(x, "ndim") or not hasattr(x, "shape"):
        x = np.asarray(x)
    if x.ndim < 2:
        return x.ndim, None
    columns = x.shape[1]
    if isinstance(columns, float):  # a dask array of unknown column chunks
        raise ValueError(
            "The number of columns of a dask array input is unknown: call "
            "`.compute_chunk_sizes()` on it first."
        )
    return x.ndim, int(columns)


def _check_numeric(x: Any) -> None:
    """scikit-learn's error for a string or complex input, from its declared dtypes."""
    if isinstance(x, (dd.DataFrame, pd.DataFrame)):
        dtypes = list(x.dtypes)
    else:
        dtypes = [getattr(x, "dtype", None) if hasattr(x, "dtype") else np.asarray(x).dtype]
    for dtype in dtypes:
        check_declared_score_dtype(SimpleNamespace(dtype=dtype))


def _check_shapes(
    metric: str,
    y_true: Any,
    y_score: Any,
    true_shape: tuple[int, int | None],
    score_shape: tuple[int, int | None],
) -> None:
    """scikit-learn's errors for shapes, known without reading data."""
    for x, (dims, _) in ((y_true, true_shape), (y_score, score_shape)):
        if dims > 2:
            raise ValueError(f"Found array with dim {dims}, while dim <= 2 is required.")
        if metric == COVERAGE_ERROR and dims < 2:
            raise ValueError(
                "Expected 2D array, got 1D array instead:\n"
                f"array={_shown(x)}.\n"
                "Reshape your data either using array.reshape(-1, 1) if your data has a "
                "single feature or array.reshape(1, -1) if it contains a single sample."
            )
    if true_shape[0] == 1 and metric != LRAP:
        return  # scikit-learn reports a 1-D y_true's type first (from its values)
    if true_shape != score_shape:
        raise ValueError(DIFFERENT_SHAPE)


def _shown(x: Any) -> str:
    return repr(x) if isinstance(x, (da.Array, dd.Series, dd.DataFrame)) else str(np.asarray(x))


class _MeanFinalizer:
    """The plan and the exact sums -> scikit-learn's average of the per-row values."""

    def __init__(self, metric: str, weighted: bool):
        self.metric, self.weighted = metric, weighted

    def __call__(self, plan: RankingPlan, sums: RowSums) -> float:
        if self.metric == LRAP and self.weighted:
            # scikit-learn divides by np.sum(sample_weight): 0 / 0 is NaN with NumPy's warning
            return float(np.float64(as_float(sums.totals[0])) / np.float64(as_float(sums.weight)))
        return float(weighted_mean(sums, self.weighted))


class _TopKFinalizer:
    def __init__(self, k: int, normalize: bool, weighted: bool):
        self.k, self.normalize, self.weighted = k, normalize, weighted

    def __call__(self, plan: TopKPlan, sums: RowSums) -> float:
        n_classes = len(plan.classes)
        if self.k >= n_classes:
            warn_undefined(
                f"'k' ({self.k}) greater than or equal to 'n_classes' ({n_classes}) will "
                "result in a perfect score and is therefore meaningless."
            )
        index = binary_threshold_index(sums) if plan.binary and self.k == 1 else 0
        if self.normalize:
            return float(weighted_mean(sums, self.weighted, index))
        return float(as_float(sums.totals[index]))
