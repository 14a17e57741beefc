"""Prepared blocks: lazy tasks that carry their sizes, and the one layer that makes them.

Every input path (dask DataFrames, dask arrays, in-memory inputs) ends here:
one ``prepare`` task per group of consecutive input blocks, built as raw
tasks in one graph layer, and a :class:`Blocks` list that tells the sort how
many rows each block holds when that is known.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dask
from dask.base import tokenize
from dask.delayed import Delayed
from dask.highlevelgraph import HighLevelGraph
from dask.task_spec import List, Task

from .._kernels.sort.coalesce import prepare_coalesced
from .held import held_blocks, reference
from .sizing import BlockSizes


class Blocks(list):  # type: ignore[type-arg]
    """Lazy prepared blocks (a list of Delayed), with what is known of their sizes."""

    def __init__(self, blocks: Sequence[Delayed], sizes: BlockSizes | None = None):
        super().__init__(blocks)
        self.sizes = sizes


def keys_token(keys: Sequence[Any], *rest: Any) -> str:
    """A token of a long list of graph keys (and ``rest``), by their text.

    Keys are strings and tuples of strings and integers, whose ``repr`` names
    them exactly; ``tokenize`` normalises each key one by one in Python (tens of
    microseconds a key: a tenth of a second and more for 10,000 partitions of two
    inputs), ``repr`` is one C-level pass.
    """
    return tokenize(repr(keys), *rest)


def sizes_of(blocks: Sequence[Any]) -> BlockSizes | None:
    """The sizes known of ``blocks`` (None for a plain list)."""
    return getattr(blocks, "sizes", None)


def prepare_tasks(
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
    name = "dask-auc-prepare-" + keys_token(per_block, repr(groups), prepare)
    # task-spec objects, not raw tuples: dask would convert each raw task's list of
    # input keys at compute time, a walk as long as the partitions are many; blocks a
    # persisted input holds in its graph are passed as values, not keys (see .held)
    held, dependencies = held_blocks(dependencies)
    dsk: dict[Any, Any] = {
        (name, g): Task(
            (name, g),
            prepare_coalesced,
            prepare,
            List(*(_refs(per_block[i], held) for i in group)),
        )
        for g, group in enumerate(groups)
    }
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=dependencies)
    blocks = [Delayed((name, g), graph, layer=name) for g in range(len(groups))]
    sizes = None
    if rows is not None:
        sizes = tuple(sum(rows[i] for i in group) for group in groups)
    return Blocks(blocks, BlockSizes(sizes, row_bytes))


def computed_per_block(dependencies: Sequence[Any], per_block: list[Any], func: Any) -> list[Any]:
    """``func(*per_block[i])`` for every block, computed now, as one layer of raw tasks.

    ``per_block[i]``: the keys of block ``i`` of every input (in the graph of
    ``dependencies``).  Not a ``dask.delayed`` call a block: those inspect
    every argument, and each Delayed carries the graph (2,000 blocks of a
    dask array of unknown chunks: 3.2-3.7 s by delayed calls, 1.5-2.0 s so).
    """
    name = "dask-auc-measure-" + keys_token(per_block, func)
    dsk: dict[Any, Any] = {(name, i): (func, *keys) for i, keys in enumerate(per_block)}
    dsk[name] = (list, [(name, i) for i in range(len(per_block))])
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=dependencies)
    (results,) = dask.compute(Delayed(name, graph, layer=name))
    return list(results)


def _refs(block: Any, held: dict[Any, Any]) -> Any:
    """A block's inputs as task-spec references (a list of keys, or one key), or held values."""
    if isinstance(block, list):
        return List(*(reference(key, held) for key in block))
    return reference(block, held)
