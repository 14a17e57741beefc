"""Turn user inputs into aligned, validated blocks of a dask graph.

Accepted: dask Series (or one-column DataFrames), 1-D dask arrays with known or
unknown chunks, pandas Series, NumPy arrays and lists.  Rows pair up by
position, as in scikit-learn; dask inputs must therefore be partitioned the
same way, which is checked here (partition counts) and in every block (row
counts), never fixed by a silent index alignment.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
from dask.delayed import Delayed

from ._kernels import prepare_block
from ._multiclass_kernels import prepare_multiclass_block
from ._validation import check_declared_score_dtype, check_lengths

_NAMES = ("y_true", "y_score", "sample_weight")
_MIN_ROWS_PER_BLOCK = 1 << 18


def prepared_blocks(
    y_true: Any,
    y_score: Any,
    sample_weight: Any = None,
    chunk_rows: int | None = None,
    prepare: Any = prepare_block,
) -> list[Delayed]:
    """One lazy :class:`~dask_auc._kernels.PreparedBlock` per aligned input block.

    Parameters
    ----------
    y_true, y_score, sample_weight
        The user's inputs, any of the accepted kinds.
    chunk_rows : int, optional
        Block size used when every input is in memory (default: enough blocks
        to keep all cores busy).
    prepare : callable, default :func:`~dask_auc._kernels.prepare_block`
        The task run on each aligned block of the inputs.
    """
    inputs = [y_true, y_score] + ([] if sample_weight is None else [sample_weight])
    inputs = [_one_dimensional(x, name) for x, name in zip(inputs, _NAMES, strict=False)]
    check_declared_score_dtype(inputs[1])
    if any(isinstance(x, (dd.Series, dd.DataFrame)) for x in inputs):
        return _frame_blocks(inputs, prepare)
    if any(isinstance(x, da.Array) for x in inputs):
        return _array_blocks(_as_aligned_arrays(inputs), prepare)
    return _array_blocks(_in_memory_as_arrays(inputs, chunk_rows), prepare)


def _one_dimensional(x: Any, name: str) -> Any:
    if isinstance(x, dd.DataFrame):
        if len(x.columns) != 1:
            raise ValueError(
                f"{name} must be 1-D for a binary target; got a DataFrame with "
                f"{len(x.columns)} columns {list(x.columns)}"
            )
        return x[x.columns[0]]
    if isinstance(x, (dd.Series, da.Array)):
        return _squeeze_array(x, name) if isinstance(x, da.Array) else x
    if hasattr(x, "iloc") and getattr(x, "ndim", 1) == 2:  # pandas DataFrame
        if x.shape[1] != 1:
            raise ValueError(f"y should be a 1d array, got an array of shape {x.shape} instead.")
        return x.iloc[:, 0]
    if hasattr(x, "iloc"):
        return x
    return _squeeze_array(np.asarray(x), name)


def _squeeze_array(x: Any, name: str) -> Any:
    if x.ndim == 2 and x.shape[1] == 1:
        return x[:, 0]
    if x.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {x.shape} instead.")
    return x


def _frame_blocks(inputs: list[Any], prepare: Any = prepare_block) -> list[Delayed]:
    series = [_as_series(x, inputs) for x in inputs]
    counts = [s.npartitions for s in series]
    if len(set(counts)) > 1:
        described = ", ".join(f"{n} has {c}" for n, c in zip(_NAMES, counts, strict=False))
        raise ValueError(
            f"Inputs have different numbers of partitions ({described}). dask-auc pairs "
            "rows by position, partition by partition: pass columns of one DataFrame "
            "(df['label'], df['score']), or align them first, e.g. "
            "`df = dd.concat([y_true, y_score], axis=1)` (aligns on the index)."
        )
    blocks = dd.map_partitions(
        prepare,
        *series,
        meta=("prepared", object),
        align_dataframes=False,
        enforce_metadata=False,
        token="dask-auc-prepare",
    )
    return list(blocks.to_delayed())


def _as_series(x: Any, inputs: list[Any]) -> Any:
    if isinstance(x, dd.Series):
        return x
    if isinstance(x, da.Array):
        return dd.from_dask_array(x)
    raise TypeError(
        "Cannot pair an in-memory input with a dask Series of unknown partition "
        "lengths: pass every input as a dask collection (e.g. columns of one dask "
        "DataFrame), or every input in memory."
    )


def _as_aligned_arrays(inputs: list[Any]) -> list[da.Array]:
    reference = next(x for x in inputs if isinstance(x, da.Array))
    known = not any(math.isnan(c) for c in reference.chunks[0])
    lengths = [x.shape[0] if isinstance(x, da.Array) else len(x) for x in inputs]
    if not any(math.isnan(n) for n in lengths):
        check_lengths(lengths)
    arrays = []
    for x in inputs:
        if not isinstance(x, da.Array):
            if not known:
                raise TypeError(
                    "Cannot pair an in-memory input with a dask array of unknown chunk "
                    "sizes: call `.compute_chunk_sizes()` on the dask array first, or "
                    "pass every input as a dask collection."
                )
            x = da.from_array(np.asarray(x), chunks=reference.chunks)
        arrays.append(x)
    if all(not any(math.isnan(c) for c in a.chunks[0]) for a in arrays):
        return [a.rechunk(reference.chunks) for a in arrays]
    if len({a.numblocks for a in arrays}) > 1:
        raise ValueError(
            "Inputs have unknown chunk sizes and different numbers of blocks "
            f"({[a.numblocks[0] for a in arrays]}): call `.compute_chunk_sizes()` on "
            "them so dask-auc can align the rows."
        )
    return arrays


def _in_memory_as_arrays(inputs: list[Any], chunk_rows: int | None) -> list[da.Array]:
    values = [np.asarray(x) for x in inputs]
    check_lengths([len(v) for v in values])
    n = len(values[0])
    if chunk_rows is None:
        cores = os.cpu_count() or 1
        chunk_rows = max(_MIN_ROWS_PER_BLOCK, math.ceil(n / (4 * cores)))
    return [da.from_array(v, chunks=max(1, chunk_rows)) for v in values]


def _array_blocks(arrays: Sequence[da.Array], prepare: Any = prepare_block) -> list[Delayed]:
    columns = [a.to_delayed(optimize_graph=False).ravel() for a in arrays]
    task = dask.delayed(prepare, pure=True)
    return [task(*blocks) for blocks in zip(*columns, strict=True)]


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


def multiclass_blocks(
    y_true: Any, y_score: Any, sample_weight: Any = None, chunk_rows: int | None = None
) -> list[Delayed]:
    """One lazy :class:`~dask_auc._multiclass_kernels.MultiBlock` per aligned row block.

    ``y_score`` is 2-D (a dask DataFrame of score columns, a 2-D dask array,
    or in memory); ``y_true`` and ``sample_weight`` are 1-D.  Rows pair by
    position, with the same rules as :func:`prepared_blocks`.
    """
    columns = [_one_dimensional(y_true, "y_true")]
    if sample_weight is not None:
        columns.append(_one_dimensional(sample_weight, "sample_weight"))
    if isinstance(y_score, da.Array):
        y_score = y_score.rechunk({1: -1})
    elif not isinstance(y_score, dd.DataFrame):
        y_score = y_score if hasattr(y_score, "iloc") else np.asarray(y_score)
    inputs = [columns[0], y_score, *columns[1:]]
    if any(isinstance(x, (dd.Series, dd.DataFrame)) for x in inputs):
        frames = [dd.from_dask_array(x) if isinstance(x, da.Array) else x for x in inputs]
        if not all(isinstance(x, (dd.Series, dd.DataFrame)) for x in frames):
            _as_series(None, inputs)  # raises the in-memory / dask TypeError
        counts = [x.npartitions for x in frames]
        if len(set(counts)) > 1:
            described = ", ".join(f"{n} has {c}" for n, c in zip(_NAMES, counts, strict=False))
            raise ValueError(
                f"Inputs have different numbers of partitions ({described}). dask-auc pairs "
                "rows by position, partition by partition: pass columns of one DataFrame."
            )
        blocks = dd.map_partitions(
            prepare_multiclass_block,
            *frames,
            meta=("prepared", object),
            align_dataframes=False,
            enforce_metadata=False,
            token="dask-auc-prepare-multiclass",
        )
        return list(blocks.to_delayed())
    if any(isinstance(x, da.Array) for x in inputs):
        arrays = _aligned_rows(inputs)
    else:
        values = [x.to_numpy() if hasattr(x, "to_numpy") else np.asarray(x) for x in inputs]
        check_lengths([len(v) for v in values])
        if chunk_rows is None:
            cores = os.cpu_count() or 1
            chunk_rows = max(_MIN_ROWS_PER_BLOCK, math.ceil(len(values[0]) / (4 * cores)))
        arrays = [_row_chunks(v, max(1, chunk_rows)) for v in values]
    delayed_rows = [a.to_delayed(optimize_graph=False).ravel() for a in arrays]
    prepare = dask.delayed(prepare_multiclass_block, pure=True)
    return [prepare(*row) for row in zip(*delayed_rows, strict=True)]


def _row_chunks(values: np.ndarray, rows: Any) -> da.Array:
    return da.from_array(values, chunks=(rows,) + values.shape[1:])


def _aligned_rows(inputs: list[Any]) -> list[da.Array]:
    """Dask arrays (1-D or 2-D) sharing the row chunks of the first dask input."""
    reference = next(x for x in inputs if isinstance(x, da.Array))
    lengths = [x.shape[0] if isinstance(x, da.Array) else len(x) for x in inputs]
    if not any(math.isnan(n) for n in lengths):
        check_lengths(lengths)
    rows = reference.chunks[0]
    if any(math.isnan(c) for c in rows):
        if not all(isinstance(x, da.Array) for x in inputs):
            raise TypeError(
                "Cannot pair an in-memory input with a dask array of unknown chunk "
                "sizes: call `.compute_chunk_sizes()` on the dask array first, or "
                "pass every input as a dask collection."
            )
        if len({x.numblocks[0] for x in inputs}) > 1:
            raise ValueError(
                "Inputs have unknown chunk sizes and different numbers of blocks "
                f"({[x.numblocks[0] for x in inputs]}): call `.compute_chunk_sizes()` on "
                "them so dask-auc can align the rows."
            )
        return list(inputs)
    aligned = []
    for x in inputs:
        if not isinstance(x, da.Array):
            x = np.asarray(x.to_numpy() if hasattr(x, "to_numpy") else x)
            aligned.append(_row_chunks(x, rows))
        else:
            aligned.append(x.rechunk((rows,) + x.chunks[1:]))
    return aligned
