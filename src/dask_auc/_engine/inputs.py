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
"""

from __future__ import annotations

import inspect
import math
import os
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
from dask.base import tokenize
from dask.delayed import Delayed
from dask.highlevelgraph import HighLevelGraph

from .._kernels.core.validation import (
    ROW_INPUTS,
    check_declared_label_dtype,
    check_declared_score_dtype,
    check_lengths,
    scores_checked,
)
from .._kernels.sort.coalesce import block_row_counts, prepare_coalesced
from .._kernels.sort.prepare import prepare_block
from .config import compiled_kernels, measure_above
from .sizing import (
    SAMPLES_PER_BUCKET,
    BlockSizes,
    block_samples,
    bucket_layout,
    coalesced_groups,
)

MIN_ROWS_PER_BLOCK = 1 << 18


class Blocks(list):  # type: ignore[type-arg]
    """Lazy prepared blocks (a list of Delayed), with what is known of their sizes."""

    def __init__(self, blocks: Sequence[Delayed], sizes: BlockSizes | None = None):
        super().__init__(blocks)
        self.sizes = sizes


def sizes_of(blocks: Sequence[Any]) -> BlockSizes | None:
    """The sizes known of ``blocks`` (None for a plain list)."""
    return getattr(blocks, "sizes", None)


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
        return _frame_blocks(inputs, names, prepare, row_bytes, check_scores)
    if any(isinstance(x, da.Array) for x in inputs):
        return _array_blocks(_aligned_arrays(inputs, names), prepare, row_bytes)
    return _array_blocks(_in_memory_as_arrays(inputs, chunk_rows), prepare, row_bytes)


def _frame_blocks(
    inputs: list[Any], names: tuple[str, ...], prepare: Any, row_bytes: int, check_scores: bool
) -> Blocks:
    frames = [dd.from_dask_array(x) if isinstance(x, da.Array) else x for x in inputs]
    if not all(isinstance(x, (dd.Series, dd.DataFrame)) for x in frames):
        raise TypeError(
            "Cannot pair an in-memory input with a dask Series of unknown partition "
            "lengths: pass every input as a dask collection (e.g. columns of one dask "
            "DataFrame), or every input in memory."
        )
    check_partition_counts([x.npartitions for x in frames], names)
    # a partition's dtype may not be the declared one (a later Parquet file's): each is
    # checked as it is read, before blocks are joined and text is parsed as numbers
    split = partial(scores_checked, _partitions) if check_scores else _partitions
    kernel = partial(scores_checked, prepare) if check_scores else prepare
    rows = _frame_lengths(frames)
    if rows is not None:
        groups = coalesced_groups(rows, row_bytes)
        if len(groups) < len(rows):
            parts = map_frame(frames[0], split, *frames[1:])
            # dask may fuse partitions when it optimizes (small Parquet files):
            # the lengths then describe other partitions, and nothing is coalesced
            if len(parts) == len(rows):
                keys = [p.key for p in parts]
                return _prepare_tasks(parts[:1], keys, rows, groups, prepare, row_bytes)
            rows = None
    blocks = map_frame(frames[0], kernel, *frames[1:])
    if rows is not None and len(rows) != len(blocks):
        rows = None
    return Blocks(blocks, BlockSizes(rows, row_bytes))


def hashed_blocks(
    frames: Sequence[Any], *, row_bytes: int, join: Callable[[list[Any]], Any] = list
) -> tuple[list[Any], int, tuple[int, ...]]:
    """The blocks of a hash exchange, each a list of consecutive pandas partitions; ``K``; samples.

    ``frames`` are column selections of one dask DataFrame (the rows to
    exchange, and what a sample pass reads): each gets the same blocks, as
    separate tasks when the partitions are read (Parquet, CSV, ...), so that
    a pass over one selection does not hold the partitions of the other in
    memory while it waits (a sample of every block is read, then the rows are
    read and split as they come); rows already in memory share the first
    selection's blocks.  A block
    is one partition, or, when the partition lengths are known, several tiny
    ones coalesced as :func:`prepared_blocks` coalesces them (2,000 partitions
    of a thousand rows make a few blocks, not 2,000 tasks that each cut a
    piece for every bucket).  The bucket count ``K`` follows from the rows
    (:func:`~dask_auc._engine.sizing.bucket_layout`; ``dask.config`` key
    ``dask-auc.buckets`` overrides), and so does each block's share of a
    sample of ``~16 K sqrt(P)`` rows.  A block's task is ``join(partitions)``
    (by default the list itself): the metric may join them once for all passes.
    """
    frame = frames[0]
    rows = _frame_lengths([frame])
    n_buckets = bucket_layout(BlockSizes(rows, row_bytes), frame.npartitions).n_buckets
    # rows in memory (pandas, persisted) are not held by a pass that waits: one selection
    # serves every pass, without a second read of the partitions
    shared = _in_memory(frame)
    parts = [f.to_delayed() for f in (frames[:1] if shared else frames)]
    # dask may fuse partitions when it optimizes: then the lengths describe others
    if rows is not None and all(len(p) == len(rows) for p in parts):
        groups = coalesced_groups(rows, row_bytes)
        samples = block_samples([sum(rows[i] for i in group) for group in groups], n_buckets)
    elif len({len(p) for p in parts}) == 1:
        groups = [range(i, i + 1) for i in range(len(parts[0]))]
        samples = (SAMPLES_PER_BUCKET * n_buckets,) * len(groups)
    else:  # selections optimized into different partitionings: one selection for all
        return hashed_blocks([frame] * len(frames), row_bytes=row_bytes, join=join)
    blocks = [_coalesced_tasks(p, groups, join) for p in parts]
    return blocks * len(frames) if shared else blocks, n_buckets, samples


def _in_memory(frame: Any) -> bool:
    """Whether a dask DataFrame's partitions are in memory (pandas or persisted), not read.

    Any input expression that reads (Parquet, CSV, ``from_map``, delayed
    functions) counts as a read.
    """
    from dask.dataframe.dask_expr.io.io import BlockwiseIO, FromPandas

    try:
        expressions = frame.expr.walk()
        return not any(
            isinstance(e, BlockwiseIO) and not isinstance(e, FromPandas) for e in expressions
        )
    except AttributeError:  # not a dask-expr collection: read apart, the safe choice
        return False


def _coalesced_tasks(parts: list[Delayed], groups: list[range], call: Callable) -> list[Delayed]:
    """One task ``call([partitions of the group])`` per group, in one layer of raw tasks.

    Not ``dask.delayed`` calls on lists of Delayed: those inspect every item
    (``is_dataframe_like``), seconds for thousands of partitions.
    """
    name = "dask-auc-coalesced-" + tokenize([p.key for p in parts], groups, call)
    dsk: dict[Any, Any] = {
        (name, g): (call, [parts[i].key for i in group]) for g, group in enumerate(groups)
    }
    dependencies: Sequence[Any] = parts[:1]  # they share one graph
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=dependencies)
    return [Delayed((name, g), graph, layer=name) for g in range(len(groups))]


def _partitions(*partitions: Any) -> tuple[Any, ...]:
    return partitions


def _frame_lengths(frames: list[Any]) -> tuple[int, ...] | None:
    """Rows per partition when they pair up and are known (or worth a measuring pass).

    Known lengths (Parquet metadata, ``from_pandas``, ...) cost nothing; with
    more than ``dask-auc.measure-above`` partitions unknown lengths are
    measured by one pass over the inputs.  Inputs cut differently give
    None: the planning task names the first block where they differ.
    """
    known = [_known_lengths(x) for x in frames]
    if any(k is None for k in known):
        if frames[0].npartitions <= measure_above():
            return None
        counts = dask.compute(*map_frame(frames[0], block_row_counts, *frames[1:]))
        known = [tuple(c[i] for c in counts) for i in range(len(frames))]
    if len(set(known)) > 1:
        return None
    return known[0]


def _known_lengths(frame: Any) -> tuple[int, ...] | None:
    """Partition lengths dask knows without reading data, or None."""
    try:
        from dask.dataframe.dask_expr._expr import Lengths, Literal

        lengths = Lengths(frame.expr).optimize(fuse=False)
    except Exception:  # an older or newer dask-expr: treat as unknown
        return None
    if isinstance(lengths, Literal):
        return tuple(int(n) for n in lengths.value)
    return None


def map_frame(frame: Any, func: Callable, *args: Any) -> list[Delayed]:
    """``func(partition, *args)`` on every partition of a dask collection, as Delayed objects.

    Dask collections in ``args`` are passed partition by partition, as they
    come: the caller has checked that they pair up.
    """
    kernel = func
    while isinstance(kernel, partial):  # named by the kernel, not by its wrappers
        kernel = kernel.args[0] if kernel.func is scores_checked else kernel.func
    name = getattr(kernel, "__name__", "block")
    mapped = frame.map_partitions(
        func,
        *args,
        meta=("block", object),
        align_dataframes=False,
        enforce_metadata=False,
        token=f"dask-auc-{name}",
    )
    return list(mapped.to_delayed())


def check_partition_counts(counts: list[int], names: tuple[str, ...]) -> None:
    """Raise when inputs of unknown partition lengths come in different numbers of partitions."""
    if len(set(counts)) > 1:
        described = ", ".join(f"{n} has {c}" for n, c in zip(names, counts, strict=False))
        raise ValueError(
            f"Inputs have different numbers of partitions ({described}). dask-auc pairs "
            "rows by position, partition by partition: pass columns of one DataFrame "
            "(df['label'], df['score']), or align them first, e.g. "
            "`df = dd.concat([y_true, y_score], axis=1)` (aligns on the index), or "
            "pass dask arrays of known chunk sizes (`x.to_dask_array(lengths=True)`), "
            "which are realigned by position exactly."
        )


def _aligned_arrays(inputs: list[Any], names: tuple[str, ...]) -> list[da.Array]:
    """Dask arrays (1-D or 2-D) sharing the row chunks of the first dask input.

    Known chunk sizes are realigned by position (``rechunk``: exact, lazy);
    unknown ones must come in as many blocks, whose row counts the planning
    task checks.
    """
    reference = next(x for x in inputs if isinstance(x, da.Array))
    lengths = [x.shape[0] if isinstance(x, da.Array) else len(x) for x in inputs]
    if not any(math.isnan(n) for n in lengths):
        check_lengths(lengths)
    rows = reference.chunks[0]
    if any(math.isnan(c) for c in rows) or any(
        isinstance(x, da.Array) and any(math.isnan(c) for c in x.chunks[0]) for x in inputs
    ):
        if not all(isinstance(x, da.Array) for x in inputs):
            raise TypeError(
                "Cannot pair an in-memory input with a dask array of unknown chunk "
                "sizes: call `.compute_chunk_sizes()` on the dask array first, or "
                "pass every input as a dask collection."
            )
        counts = [x.numblocks[0] for x in inputs]
        if len(set(counts)) > 1:
            described = ", ".join(f"{n} has {c}" for n, c in zip(names, counts, strict=True))
            raise ValueError(
                f"Inputs have unknown chunk sizes and different numbers of blocks ({described}): "
                "call `.compute_chunk_sizes()` on them so dask-auc can align the rows."
            )
        return list(inputs)
    return [
        x.rechunk((rows,) + x.chunks[1:]) if isinstance(x, da.Array) else _row_chunks(x, rows)
        for x in inputs
    ]


def _in_memory_as_arrays(inputs: list[Any], chunk_rows: int | None) -> list[da.Array]:
    values = [_as_ndarray(x) for x in inputs]
    check_lengths([len(v) for v in values])
    if chunk_rows is None:
        # about four blocks per core, none smaller than a quarter million rows
        cores = os.cpu_count() or 1
        chunk_rows = max(MIN_ROWS_PER_BLOCK, math.ceil(len(values[0]) / (4 * cores)))
    return [_row_chunks(v, max(1, chunk_rows)) for v in values]


def _as_ndarray(x: Any) -> np.ndarray:
    return x.to_numpy() if hasattr(x, "to_numpy") else np.asarray(x)


def _row_chunks(values: Any, rows: Any) -> da.Array:
    values = _as_ndarray(values)
    return da.from_array(values, chunks=(rows,) + values.shape[1:])


def _array_blocks(arrays: Sequence[da.Array], prepare: Any, row_bytes: int) -> Blocks:
    # one key per row block of each input (a score matrix has one column chunk)
    columns = [list(dask.core.flatten(a.__dask_keys__())) for a in arrays]
    per_block = [list(keys) for keys in zip(*columns, strict=True)]
    rows = _array_lengths(arrays[0], arrays)
    groups = None if rows is None else coalesced_groups(rows, row_bytes)
    return _prepare_tasks(arrays, per_block, rows, groups, prepare, row_bytes)


def _array_lengths(reference: da.Array, arrays: Sequence[da.Array]) -> tuple[int, ...] | None:
    rows = reference.chunks[0]
    if not any(math.isnan(n) for n in rows):
        return tuple(int(n) for n in rows)
    if reference.numblocks[0] <= measure_above():
        return None
    columns = [a.to_delayed(optimize_graph=False).ravel() for a in arrays]
    task = dask.delayed(block_row_counts, pure=True)
    counts = dask.compute(*[task(*blocks) for blocks in zip(*columns, strict=True)])
    if any(len(set(c)) > 1 for c in counts):
        return None  # cut differently: the planning task says where
    return tuple(c[0] for c in counts)


def _prepare_tasks(
    dependencies: Sequence[Any],
    per_block: list[Any],
    rows: Sequence[int] | None,
    groups: list[range] | None,
    prepare: Any,
    row_bytes: int,
) -> Blocks:
    """One ``prepare`` task per group of consecutive blocks, in one graph layer.

    ``per_block[i]`` gives block ``i`` of every input: a list of their keys,
    or the key of a task that returns them as a tuple.  ``groups`` are the
    coalesced groups (None: one block each, when ``rows`` are unknown).
    Built as raw tasks, not ``dask.delayed`` calls: a graph of 1e5
    partitions builds in seconds.
    """
    if groups is None:
        groups = [range(i, i + 1) for i in range(len(per_block))]
    name = "dask-auc-prepare-" + tokenize(per_block, groups, prepare)
    dsk: dict[Any, Any] = {
        (name, g): (prepare_coalesced, prepare, [per_block[i] for i in group])
        for g, group in enumerate(groups)
    }
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=dependencies)
    blocks = [Delayed((name, g), graph, layer=name) for g in range(len(groups))]
    sizes = None
    if rows is not None:
        sizes = tuple(sum(rows[i] for i in group) for group in groups)
    return Blocks(blocks, BlockSizes(sizes, row_bytes))


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

    :func:`prepared_blocks` aligns one 2-D input with 1-D ones; a multilabel
    target (or a per-sample ranking metric's ``y_true``) has two 2-D inputs, so
    they are joined here first, then given to :func:`prepared_blocks` as
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
    label_values, score_values = _as_ndarray(y_true), _as_ndarray(y_score)
    check_lengths([len(label_values), len(score_values)])
    dtype = np.result_type(label_values, score_values)
    joined = np.hstack([label_values.astype(dtype), score_values])
    return joined[:, 0], joined


def _as_array(x: Any) -> da.Array:
    return da.from_array(_as_ndarray(x))


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
