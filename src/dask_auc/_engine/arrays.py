"""Blocks of dask arrays and in-memory inputs: one row layout, realigned by position.

Known chunk sizes (and in-memory inputs) are rechunked to the first dask
input's rows: an exact realignment, at no cost until computed.  Unknown ones
must come in as many blocks, whose row counts the planning task checks.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import dask
import dask.array as da
import numpy as np

from .._kernels.core.validation import check_lengths
from .._kernels.sort.coalesce import block_row_counts
from .blocks import Blocks, computed_per_block, prepare_tasks
from .config import measure_above
from .sizing import coalesced_groups

#: the smallest block an in-memory input is cut into (a dask DataFrame made from pandas too)
MIN_ROWS_PER_BLOCK = 1 << 18


def aligned_arrays(inputs: list[Any], names: tuple[str, ...]) -> list[da.Array]:
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
        x.rechunk((rows,) + x.chunks[1:]) if isinstance(x, da.Array) else row_chunks(x, rows)
        for x in inputs
    ]


def in_memory_as_arrays(inputs: list[Any], chunk_rows: int | None) -> list[da.Array]:
    values = [as_ndarray(x) for x in inputs]
    check_lengths([len(v) for v in values])
    if chunk_rows is None:
        # about four blocks per core, none smaller than a quarter million rows
        cores = os.cpu_count() or 1
        chunk_rows = max(MIN_ROWS_PER_BLOCK, math.ceil(len(values[0]) / (4 * cores)))
    return [row_chunks(v, max(1, chunk_rows)) for v in values]


def as_ndarray(x: Any) -> np.ndarray:
    return x.to_numpy() if hasattr(x, "to_numpy") else np.asarray(x)


def row_chunks(values: Any, rows: Any) -> da.Array:
    values = as_ndarray(values)
    return da.from_array(values, chunks=(rows,) + values.shape[1:])


def array_blocks(arrays: Sequence[da.Array], prepare: Any, row_bytes: int) -> Blocks:
    # one key per row block of each input (a score matrix has one column chunk)
    columns = [list(dask.core.flatten(a.__dask_keys__())) for a in arrays]
    per_block = [list(keys) for keys in zip(*columns, strict=True)]
    rows = _array_lengths(arrays[0], arrays)
    groups = None if rows is None else coalesced_groups(rows, row_bytes)
    return prepare_tasks(arrays, per_block, rows, groups, prepare, row_bytes)


def _array_lengths(reference: da.Array, arrays: Sequence[da.Array]) -> tuple[int, ...] | None:
    rows = reference.chunks[0]
    if not any(math.isnan(n) for n in rows):
        return tuple(int(n) for n in rows)
    if reference.numblocks[0] <= measure_above():
        return None
    columns = [list(dask.core.flatten(a.__dask_keys__())) for a in arrays]
    per_block = [tuple(keys) for keys in zip(*columns, strict=True)]
    counts = computed_per_block(arrays, per_block, block_row_counts)
    if any(len(set(c)) > 1 for c in counts):
        return None  # cut differently: the planning task says where
    return tuple(c[0] for c in counts)
