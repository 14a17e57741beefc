"""scikit-learn's ``top_k_accuracy_score`` on dask collections.

Each row's hit from that row alone, counted exactly (:mod:`dask_auc._per_row`
builds the graph; the kernels are :mod:`dask_auc._kernels.per_row.top_k`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._docstrings import shared_docs
from ._engine import LazyScore, gather, lazy_of, map_blocks, merge_tree, prepared_blocks
from ._kernels.core.summary import as_float
from ._kernels.core.validation import warn_undefined
from ._kernels.per_row.row_sums import RowSums, merge_row_sums, weighted_mean
from ._kernels.per_row.top_k import (
    TopKPlan,
    binary_threshold_index,
    plan_top_k,
    prepare_top_k_block,
    top_k_meta,
    top_k_sums,
)
from ._params import Boolean, Satisfies, check_every_param
from ._per_row import ROW_PARAMETERS, IntegerAtLeast, dimensions


def _array_like_or_none(value: Any) -> bool:
    """An array-like (not a string or a scalar), or None."""
    if value is None:
        return True
    shaped = hasattr(value, "__len__") or hasattr(value, "shape") or hasattr(value, "__array__")
    return shaped and not np.isscalar(value)


_TOP_K_PARAMETERS = {
    "k": IntegerAtLeast(1, none=False),
    "normalize": Boolean(),
    "labels": Satisfies("an array-like or None", _array_like_or_none),
    **ROW_PARAMETERS,
}


@shared_docs
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
    %(compute_split_every)s

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
    return _top_k_accuracy(**locals())


def _top_k_accuracy(
    y_true: Any, y_score: Any, sample_weight: Any, **options: Any
) -> float | LazyScore:
    """``top_k_accuracy_score`` of the public function's arguments (its ``locals()``).

    ``options`` are exactly the parameters of ``_TOP_K_PARAMETERS``, checked once, here.
    """
    name = "top_k_accuracy_score"
    checked = check_every_param(name, _TOP_K_PARAMETERS, **options)
    k, labels = checked["k"], checked["labels"]
    score_dims, score_columns = dimensions(y_score)
    if score_dims > 2:
        raise ValueError(f"Found array with dim {score_dims}, while dim <= 2 is required.")
    score_shape = (score_columns,) if score_dims == 2 else ()
    blocks = prepared_blocks(
        y_true, y_score, sample_weight, prepare=prepare_top_k_block, score_matrix=score_dims == 2
    )
    given = None if labels is None else np.asarray(labels)
    plan = gather(plan_top_k, map_blocks(top_k_meta, blocks), labels=given, score_shape=score_shape)
    sums = map_blocks(top_k_sums, blocks, plan, k)
    total = merge_tree(merge_row_sums, sums, checked["split_every"])
    finalize = _TopKFinish(k, checked["normalize"], sample_weight is not None)
    lazy = lazy_of([plan, total], finalize, name)
    return lazy.compute() if checked["compute"] else lazy


class _TopKFinish:
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
