"""The graph of the per-sample ranking metrics: blocks, one plan, exact sums, an ordered tree.

``top_k_accuracy_score``, ``coverage_error``,
``label_ranking_average_precision_score``, ``label_ranking_loss``,
``dcg_score`` and ``ndcg_score`` rank the labels (or classes, or documents)
*of each row*: no sort across rows is needed.  The graph is

    input blocks -> validated blocks -> small metas -> one plan (checks)
    validated block + plan -> the block's exact sums (one task per block)
    sums -> an ordered tree of merges (``split_every`` at a time) -> the value

built from the engine's :func:`~dask_auc._engine.prepared_blocks`,
:func:`~dask_auc._engine.map_blocks`, :func:`~dask_auc._engine.gather`,
:func:`~dask_auc._engine.merge_tree` and :func:`~dask_auc._engine.lazy_of`.  Rows
pair by position as everywhere in dask-auc; a 2-D ``y_true`` and ``y_score`` are
joined side by side first, as for multilabel ROC AUC.  The kernels
(:mod:`dask_auc._kernels.per_row`) compute each row's value from that row alone
and sum the values *exactly* (integers in units of ``2**-1126``), so the result
is the same bits for any partitioning, row order or tree, weighted or not; it
differs from scikit-learn's float sums by a few ulps of the sum (scikit-learn's
own rounding), and per-row values equal scikit-learn's to the bit except where
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

The public faces are in :mod:`dask_auc._label_ranking` and :mod:`dask_auc._top_k`.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
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
    merge_tree,
    prepared_blocks,
    side_by_side,
)
from ._kernels.core.summary import as_float
from ._kernels.core.validation import check_declared_score_dtype
from ._kernels.per_row.ranking_target import (
    COVERAGE_ERROR,
    DCG,
    LRAP,
    NDCG,
    RANKING_LOSS,
    RankingPlan,
    plan_ranking,
    prepare_ranking_block,
    target_meta,
)
from ._kernels.per_row.ranking_values import discounts, ranking_sums
from ._kernels.per_row.row_sums import RowSums, merge_row_sums, weighted_mean
from ._params import AtLeast, Boolean, Constraint, check_every_param

DIFFERENT_SHAPE = "y_true and y_score have different shape"


class IntegerAtLeast(Constraint):
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


ROW_PARAMETERS = {"compute": Boolean(), "split_every": AtLeast(2)}


def sample_metric(
    metric: str,
    parameters: Mapping[str, Constraint],
    /,
    y_true: Any,
    y_score: Any,
    sample_weight: Any,
    **options: Any,
) -> float | LazyScore:
    """The lazy ``metric`` of a 2-D ``y_true`` and ``y_score``: checks, blocks, sums, tree.

    ``parameters`` is the public function's table and ``options`` its
    options, by name (its ``locals()`` when this is its first statement):
    exactly the table's, checked once, here, in its order (``log_base`` is
    checked, then used as given).
    """
    checked = check_every_param(metric, parameters, **options)
    compute, split_every = checked["compute"], checked["split_every"]
    k, ignore_ties = checked.get("k"), checked.get("ignore_ties", False)
    log_base = options.get("log_base", 2)
    if metric in (LRAP, RANKING_LOSS) and hasattr(y_true, "tocsr"):
        y_true = y_true.toarray()  # a SciPy sparse matrix, in memory: scikit-learn takes it too
    true_dims, n_columns = dimensions(y_true)
    score_dims, score_columns = dimensions(y_score)
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
    total = merge_tree(merge_row_sums, sums, split_every)
    finalize = MeanFinish(metric, sample_weight is not None)
    lazy = lazy_of([plan, total], finalize, metric)
    return lazy.compute() if compute else lazy


def dimensions(x: Any) -> tuple[int, int | None]:
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


class MeanFinish:
    """The plan and the exact sums -> scikit-learn's average of the per-row values."""

    def __init__(self, metric: str, weighted: bool):
        self.metric, self.weighted = metric, weighted

    def __call__(self, plan: RankingPlan, sums: RowSums) -> float:
        if self.metric == LRAP and self.weighted:
            # scikit-learn divides by np.sum(sample_weight): 0 / 0 is NaN with NumPy's warning
            return float(np.float64(as_float(sums.totals[0])) / np.float64(as_float(sums.weight)))
        return float(weighted_mean(sums, self.weighted))
