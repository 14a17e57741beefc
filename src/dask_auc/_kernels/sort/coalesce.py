"""Join consecutive input blocks into one before the sort (pure NumPy).

Data often arrive in thousands of tiny partitions (a file per hour, per
shard); sorting each alone would make the per-block overhead dominate, so the
engine hands several consecutive partitions of every input to one ``prepare``
task, which joins them here first.  Rows keep their order and their values:
blocks of different dtypes meet in one dtype that holds every value exactly
(the rule the sort's plan applies across blocks), or raise.

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.validation import RowCounts, to_numpy
from .plan import BlockMeta, common_score_dtype


def prepare_coalesced(prepare: Callable[..., Any], parts: Sequence[tuple[Any, ...]]) -> Any:
    """``prepare`` on consecutive blocks of the inputs, joined into one.

    ``parts`` holds one tuple per block: that block of each input, in the
    order ``prepare`` takes them (``None`` for an absent input).  The engine
    only coalesces blocks whose row counts it knows to pair up.

    Examples
    --------
    >>> from dask_auc._kernels.sort.prepare import prepare_block
    >>> block = prepare_coalesced(prepare_block, [([0, 1], [0.2, 0.9]), ([1], [0.4])])
    >>> block.by_label[1].scores
    array([0.4, 0.9])
    """
    if len(parts) == 1:
        return prepare(*parts[0])
    columns = list(zip(*parts, strict=True))
    joined = [
        None if column[0] is None else joined_values(column, exact=(i > 0))
        for i, column in enumerate(columns)
    ]
    return prepare(*joined)


def joined_values(blocks: Sequence[Any], *, exact: bool = True) -> np.ndarray:
    """The blocks of one input as one array (rows along axis 0), every value unchanged.

    Empty blocks do not vote on the dtype (an empty pandas partition is
    often float64 beside integer ones).  With ``exact``, blocks of different
    numeric dtypes meet as the sort's plan would have them meet
    (:func:`~dask_auc._kernels.sort.plan.common_score_dtype`), which raises when no
    NumPy type holds them all exactly.

    Examples
    --------
    >>> joined_values([np.array([1, 2], np.int8), np.array([], float), np.array([2**40])])
    array([            1,             2, 1099511627776])
    """
    arrays = [to_numpy(b) for b in blocks]
    filled = [a for a in arrays if len(a)] or arrays[:1]
    dtypes = {a.dtype for a in filled}
    if len(dtypes) == 1:
        return filled[0] if len(filled) == 1 else np.concatenate(filled)
    dtype = None
    if exact and all(d.kind in "biuf" for d in dtypes):
        dtype = common_score_dtype([_value_range(a) for a in filled])
    return np.concatenate(filled, dtype=dtype)


def _value_range(values: np.ndarray) -> BlockMeta:
    """What :func:`common_score_dtype` reads of a block: its dtype and integer range."""
    empty = np.empty(0)
    dtype = np.dtype(np.int64) if values.dtype.kind == "b" else values.dtype
    if dtype.kind not in "iu" or not values.size:
        return BlockMeta(RowCounts((), ()), (), empty, empty, dtype, (0, 0))
    return BlockMeta(
        RowCounts((), ()), (), empty, empty, dtype, (int(values.min()), int(values.max()))
    )


def block_row_counts(*columns: Any) -> tuple[int, ...]:
    """How many rows one block of each input holds (``None`` inputs left out)."""
    return tuple(len(c) for c in columns if c is not None)
