"""Turn user inputs into aligned, validated blocks of a dask graph.

Accepted: dask Series (or one-column DataFrames), 1-D dask arrays with known or
unknown chunks, pandas Series, NumPy arrays and lists.  Rows pair up by
position, as in scikit-learn:

* dask arrays of known chunk sizes, and in-memory inputs, are rechunked to
  one layout: exact realignment by position, at no cost until computed;
* inputs of unknown partition lengths (dask DataFrames, arrays of unknown
  chunks) must be partitioned alike.  Partition counts are checked here;
  row counts in every block, by the planning task, which raises before any
  bucket is made (:func:`~dask_auc._kernels.core.validation.check_aligned`).  Nothing is
  fixed by a silent index alignment, no block is dropped.

:func:`prepared_blocks` is the entry; the blocks are made by
:mod:`~dask_auc._engine.frames` (dask DataFrames and Series) or
:mod:`~dask_auc._engine.arrays` (dask arrays, in-memory inputs), both through
:mod:`~dask_auc._engine.blocks`; 2-D inputs are read by
:mod:`~dask_auc._engine.matrices`.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from functools import partial
from typing import Any

import dask.array as da
import dask.dataframe as dd
import numpy as np

from .._kernels.core.validation import (
    ROW_INPUTS,
    check_declared_label_dtype,
    check_declared_score_dtype,
)
from .._kernels.sort.prepare import prepare_block
from .arrays import aligned_arrays, array_blocks, in_memory_as_arrays
from .blocks import Blocks
from .collector import collector_paused
from .config import compiled_kernels
from .frames import frame_blocks
from .matrices import score_column_count


@collector_paused()  # the graph of every input is built here: many objects, none garbage
def prepared_blocks(
    y_true: Any,
    y_score: Any,
    sample_weight: Any = None,
    *,
    prepare: Any = prepare_block,
    names: tuple[str, ...] = ROW_INPUTS,
    score_matrix: bool = False,
    chunk_rows: int | None = None,
    extra: Sequence[Any] = (),
) -> Blocks:
    """One lazy ``prepare(*blocks, names=...)`` per aligned block of the inputs.

    The one entry of every metric's inputs: rows pair by position (see the
    module notes), values are checked in the blocks with the caller's names.
    When the row counts of the partitions are known (see
    :mod:`~dask_auc._engine.sizing`), consecutive tiny partitions are
    coalesced into one block, and the blocks carry their sizes.

    Parameters
    ----------
    y_true, y_score, sample_weight
        The user's inputs, any of the accepted kinds.
    prepare : callable, default :func:`~dask_auc._kernels.sort.prepare.prepare_block`
        The task run on each aligned block of the inputs; one that takes a
        ``compiled`` keyword gets ``dask-auc.numba`` through it.
    names : tuple of str
        The caller's names of the three inputs, used in every error message.
    score_matrix : bool, default False
        ``y_score`` is 2-D (one column per class): a dask DataFrame of score
        columns, a 2-D dask array, or in memory.
    chunk_rows : int, optional
        Block size used when every input is in memory (default: enough blocks
        to keep all cores busy).
    extra : sequence, optional
        More 1-D row inputs, after ``sample_weight`` (e.g. group keys), named
        by the rest of ``names``.
    """
    inputs = [y_true, y_score] + ([] if sample_weight is None else [sample_weight])
    if extra:
        names = (*names[: len(inputs)], *names[3 : 3 + len(extra)])
        inputs += list(extra)
    names = names[: len(inputs)]
    for i, (x, name) in enumerate(zip(inputs, names, strict=True)):
        if i != 1 or not score_matrix:
            inputs[i] = _one_dimensional(x, name)
    check_declared_label_dtype(inputs[0])
    if score_matrix and isinstance(y_score, da.Array):
        inputs[1] = y_score.rechunk({1: -1})  # a block holds every column of its rows
    elif not score_matrix:
        check_declared_score_dtype(inputs[1])
    values_per_row = (score_column_count(y_score) or 1) if score_matrix else 1
    row_bytes = 8 * (values_per_row + len(inputs) - 2)
    options: dict[str, Any] = {"names": names}
    if "compiled" in inspect.signature(prepare).parameters:
        options["compiled"] = compiled_kernels()
    kernel = partial(prepare, **options)
    return _aligned_blocks(inputs, names, kernel, chunk_rows, row_bytes, not score_matrix)


def _one_dimensional(x: Any, name: str) -> Any:
    if isinstance(x, dd.DataFrame):
        return only_column(x, f"{name} must be 1-D for a binary target", show_names=True)
    if isinstance(x, (dd.Series, da.Array)):
        return _squeeze_array(x, name) if isinstance(x, da.Array) else x
    if hasattr(x, "iloc") and getattr(x, "ndim", 1) == 2:  # pandas DataFrame
        if x.shape[1] != 1:
            raise ValueError(f"y should be a 1d array, got an array of shape {x.shape} instead.")
        return x.iloc[:, 0]
    if hasattr(x, "iloc"):
        return x
    return _squeeze_array(np.asarray(x), name)


def only_column(frame: dd.DataFrame, must: str, *, show_names: bool = False) -> dd.Series:
    """The one column of a dask DataFrame; else ``must``'s ValueError with its columns' count.

    ``show_names``: the message lists the columns too.
    """
    if len(frame.columns) != 1:
        names = f" {list(frame.columns)}" if show_names else ""
        raise ValueError(f"{must}; got a DataFrame with {len(frame.columns)} columns{names}")
    return frame[frame.columns[0]]


def _squeeze_array(x: Any, name: str) -> Any:
    if x.ndim == 2 and x.shape[1] == 1:
        return x[:, 0]
    if x.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {x.shape} instead.")
    return x


def _aligned_blocks(
    inputs: list[Any],
    names: tuple[str, ...],
    prepare: Any,
    chunk_rows: int | None,
    row_bytes: int,
    check_scores: bool = False,
) -> Blocks:
    """One lazy ``prepare(*blocks)`` per row block of the inputs, which pair by position.

    The one place where inputs are aligned, for every metric.  Inputs are 1-D
    or 2-D (a multi-class score matrix); ``names`` are the caller's names.
    """
    if any(isinstance(x, (dd.Series, dd.DataFrame)) for x in inputs):
        return frame_blocks(inputs, names, prepare, row_bytes, check_scores)
    if any(isinstance(x, da.Array) for x in inputs):
        return array_blocks(aligned_arrays(inputs, names), prepare, row_bytes)
    return array_blocks(in_memory_as_arrays(inputs, chunk_rows), prepare, row_bytes)
