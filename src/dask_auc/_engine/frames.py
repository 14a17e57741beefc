"""Blocks of dask DataFrames and Series: partitions paired by position, coalesced when tiny.

Inputs of unknown partition lengths must be partitioned alike: partition
counts are checked here, row counts in every block by the planning task.
Known (or measured) lengths let consecutive tiny partitions be coalesced into
one block.  The grouped AUC's hash exchange takes its blocks from
:func:`hashed_blocks`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import dask
import dask.array as da
import dask.dataframe as dd
from dask.delayed import Delayed
from dask.highlevelgraph import HighLevelGraph

from .._kernels.core.validation import scores_checked
from .._kernels.sort.coalesce import block_row_counts
from .blocks import Blocks, keys_token, prepare_tasks
from .config import measure_above
from .sizing import (
    SAMPLES_PER_BUCKET,
    BlockSizes,
    block_samples,
    bucket_layout,
    coalesced_groups,
)


def frame_blocks(
    inputs: list[Any], names: tuple[str, ...], prepare: Any, row_bytes: int, check_scores: bool
) -> Blocks:
    """One lazy ``prepare`` per partition (or group of tiny ones) of inputs paired by partition.

    Dask arrays among ``inputs`` are turned into Series; an in-memory input
    cannot pair with partitions of unknown length.  With ``check_scores`` each
    partition's score column is checked as it is read.
    """
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
                return prepare_tasks(parts[:1], keys, rows, groups, prepare, row_bytes)
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
    ones coalesced as :func:`~dask_auc._engine.prepared_blocks` coalesces them (2,000 partitions
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
    name = "dask-auc-coalesced-" + keys_token([p.key for p in parts], repr(groups), call)
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
    known = _known_lengths(frames)
    if any(k is None for k in known):
        if frames[0].npartitions <= measure_above():
            return None
        counts = dask.compute(*map_frame(frames[0], block_row_counts, *frames[1:]))
        known = [tuple(c[i] for c in counts) for i in range(len(frames))]
    if len(set(known)) > 1:
        return None
    return known[0]


def _known_lengths(frames: list[Any]) -> list[tuple[int, ...] | None]:
    """Each frame's partition lengths where known without reading data, else None.

    Dask knows them for some inputs (Parquet metadata, ``from_pandas``); for
    partitions already in memory (a persisted frame, and any column selection
    or row-wise ``assign`` of it) they are one ``len`` a partition, computed
    here, for all the frames in one pass (the columns of one persisted frame
    share their count): then tiny partitions are coalesced and the buckets
    sized by the rows, where unknown lengths would give one bucket per
    partition and ``P x P`` exchange pieces (a persisted frame of 16
    partitions and 2e5 rows on a 2-worker cluster: 256 pieces, about a second
    a query).
    """
    try:
        from dask.dataframe.dask_expr._collection import new_collection
        from dask.dataframe.dask_expr._expr import Lengths, Literal
        from dask.dataframe.dask_expr.io.io import FromGraph
    except ImportError:  # an older or newer dask-expr: treat as unknown
        return [None] * len(frames)
    known: list[tuple[int, ...] | None] = []
    in_memory = {}
    for i, frame in enumerate(frames):
        try:
            lengths = Lengths(frame.expr).optimize(fuse=False)
        except Exception:  # an older or newer dask-expr: treat as unknown
            lengths = None
        known.append(None)
        if isinstance(lengths, Literal):
            known[i] = tuple(int(n) for n in lengths.value)
        elif (
            lengths is not None
            and frame.npartitions > 1
            and all(isinstance(e, (Lengths, FromGraph)) for e in lengths.walk())
        ):
            in_memory[i] = new_collection(lengths)
    if in_memory:
        for i, counts in zip(in_memory, dask.compute(*in_memory.values()), strict=True):
            known[i] = tuple(int(n) for n in counts)
    return known


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
