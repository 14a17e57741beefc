"""Two-dimensional inputs: the score columns of a matrix, and labels beside scores.

A multi-class score matrix pairs with a 1-D ``y_true``; a multilabel target
(or a per-sample ranking metric's ``y_true``) is itself a matrix, so labels
and scores are joined side by side first, rows paired by position.
"""

from __future__ import annotations

from typing import Any

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd

from .._kernels.core.validation import check_lengths
from .arrays import as_ndarray


def score_column_count(y_score: Any) -> int | None:
    """The number of score columns of a 2-D ``y_score`` with two or more, else None.

    Examples
    --------
    >>> score_column_count(np.zeros((4, 3))), score_column_count(np.zeros(4))
    (3, None)
    """
    if isinstance(y_score, dd.DataFrame):
        n = len(y_score.columns)
    elif isinstance(y_score, dd.Series):
        return None
    else:
        if not hasattr(y_score, "ndim"):
            y_score = np.asarray(y_score)
        if y_score.ndim != 2:
            return None
        n = y_score.shape[1]
    return int(n) if n >= 2 else None


def side_by_side(y_true: Any, y_score: Any, n_labels: int) -> tuple[Any, Any]:
    """One collection ``[labels | scores]`` pairing the rows by position, and its first column.

    :func:`~dask_auc._engine.prepared_blocks` aligns one 2-D input with 1-D ones; a multilabel
    target (or a per-sample ranking metric's ``y_true``) has two 2-D inputs, so
    they are joined here first, then given to :func:`~dask_auc._engine.prepared_blocks` as
    ``(first column, matrix)``:
    dask arrays by ``concatenate`` (known chunks realigned), dask DataFrames
    partition by partition (each pair of partitions must have equal lengths),
    in-memory inputs as one array.
    """
    frames = [isinstance(x, (dd.DataFrame, dd.Series)) for x in (y_true, y_score)]
    if all(frames):
        if y_true.npartitions != y_score.npartitions:
            raise ValueError(
                "Inputs have different numbers of partitions (y_true has "
                f"{y_true.npartitions}, y_score has {y_score.npartitions}). dask-auc pairs rows "
                "by position, partition by partition: pass columns of one DataFrame."
            )
        columns = [f"label_{k}" for k in range(n_labels)] + [f"score_{k}" for k in range(n_labels)]
        meta = pd.DataFrame({c: pd.Series(dtype=float) for c in columns})
        matrix = y_true.map_partitions(
            _join_partitions, y_score, columns, align_dataframes=False, meta=meta
        )
        return matrix[columns[0]], matrix
    if any(frames):
        raise TypeError(
            "Pass y_true and y_score of a multilabel target as the same kind of collection: "
            "both dask DataFrames (columns of one DataFrame) or both arrays."
        )
    if isinstance(y_true, da.Array) or isinstance(y_score, da.Array):
        labels, scores = (x if isinstance(x, da.Array) else _as_array(x) for x in (y_true, y_score))
        if not any(np.isnan(labels.shape[0:1] + scores.shape[0:1])):
            check_lengths([labels.shape[0], scores.shape[0]])
            reference = y_score if isinstance(y_score, da.Array) else y_true
            labels = labels.rechunk((reference.chunks[0], -1))
            scores = scores.rechunk((reference.chunks[0], -1))
        matrix = da.concatenate([labels, scores], axis=1)
        return matrix[:, 0], matrix
    label_values, score_values = as_ndarray(y_true), as_ndarray(y_score)
    check_lengths([len(label_values), len(score_values)])
    dtype = np.result_type(label_values, score_values)
    joined = np.hstack([label_values.astype(dtype), score_values])
    return joined[:, 0], joined


def _as_array(x: Any) -> da.Array:
    return da.from_array(as_ndarray(x))


def _join_partitions(labels: Any, scores: Any, columns: list[str]) -> pd.DataFrame:
    if len(labels) != len(scores):
        raise ValueError(
            "y_true and y_score are partitioned differently: a partition holds "
            f"{len(labels)} rows of y_true and {len(scores)} rows of y_score. dask-auc pairs "
            "rows by position, partition by partition: pass columns of one DataFrame."
        )
    joined = pd.concat(
        [labels.reset_index(drop=True), scores.reset_index(drop=True)], axis=1, ignore_index=True
    )
    joined.columns = columns
    return joined.astype(float)
