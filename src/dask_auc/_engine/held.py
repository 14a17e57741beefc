"""Input blocks held in a graph itself, handed to the prepare tasks as values.

A dask array persisted on a local scheduler (threads, processes, synchronous),
or made from an array in memory, keeps its blocks in its graph, one key a
block: ``{key: array}``.
dask's local scheduler orders and tracks every key of the graph it runs, so
an input of two columns in 10,000 partitions is 20,000 keys that ``cull``,
``order`` and ``start_state_from_dask`` walk before the first task runs --
0.5-0.6 s of a 0.9-1.0 s AUC of 5e7 rows, when the same rows in 8 partitions
take 0.4 s.  Every block of every input reaches the engine through the
``prepare`` task of its group (:func:`~.blocks.prepare_tasks`), which takes
a held block itself, as a value (``DataNode``): the graph then has one key a
group, not one a block, and none of the input's.  The blocks are the same
objects (nothing is copied); a collection whose graph holds anything else
(a task, a future on a cluster) is referenced by its keys, as before.  A
DataFrame's partitions reach the prepare tasks through a task of their own
(:func:`~.frames.frame_blocks`): they stay keys.

Only for a local scheduler (the default one when the graph is built): under
a ``distributed`` client a block in the graph is sent once and shared by its
key, and a value inside each task that reads it would be sent with every
one of them (the labels of ``compare``'s models, say).

Nothing here imports a metric.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import dask.local
import dask.multiprocessing
import dask.threaded
import numpy as np
from dask.base import get_scheduler
from dask.highlevelgraph import HighLevelGraph, MaterializedLayer
from dask.task_spec import DataNode, GraphNode, TaskRef

__all__ = ["held_blocks", "reference"]

#: what a held block is: a dask array's data, not a task, a key or a future
_HELD = np.ndarray
#: the schedulers that run a graph in this process's memory or pickle each task's inputs
#: with it (None: none set, a collection's own default: the threaded one for dask-auc's)
_LOCAL = (None, dask.threaded.get, dask.local.get_sync, dask.multiprocessing.get)


def held_blocks(collections: Sequence[Any]) -> tuple[dict[Hashable, Any], list[Any]]:
    """The blocks of the collections whose graphs hold nothing but blocks; the other collections.

    A graph counts as held when every layer is materialized and every value
    in it is a NumPy array: a persisted dask array on a local scheduler.
    Returns ``(held, rest)``: ``held`` maps each such block's key to its
    value, ``rest`` the collections that stay dependencies.  Under a
    ``distributed`` client nothing is held.
    """
    held: dict[Hashable, Any] = {}
    rest: list[Any] = []
    if get_scheduler() not in _LOCAL:
        return held, list(collections)
    for collection in collections:
        blocks = _blocks(collection)
        if blocks is None:
            rest.append(collection)
        else:
            held.update(blocks)
    return held, rest


def reference(key: Hashable, held: dict[Hashable, Any]) -> GraphNode | TaskRef:
    """The block itself when it is held, else a reference to its key."""
    return DataNode(key, held[key]) if key in held else TaskRef(key)  # type: ignore[arg-type]


def _blocks(collection: Any) -> dict[Hashable, Any] | None:
    graph = collection.__dask_graph__()
    if not isinstance(graph, HighLevelGraph):
        return None
    blocks: dict[Hashable, Any] = {}
    for layer in graph.layers.values():
        if not isinstance(layer, MaterializedLayer):
            return None  # a layer of tasks (e.g. blockwise) is not held data
        for key, value in layer.items():
            if isinstance(value, DataNode):
                value = value.value
            if not isinstance(value, _HELD):
                return None
            blocks[key] = value
    return blocks
