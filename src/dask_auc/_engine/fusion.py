"""Readers of one shared per-bucket result, computed together, run as one task a bucket.

A per-bucket result that several queries read -- a ROC bucket's curve points,
24 bytes a distinct score -- is made once (``per_bucket(..., shared=True)``).
Each query reads it in a task of its own; computed together, the queries'
tasks of every bucket hang off it, and ``dask.order`` runs them query by query
(the whole average precision, then the whole KS statistic): every bucket's
points stay in memory until the last query has read them.  The graph
optimization of :class:`~dask_auc._engine.lazy.LazyScore`, run on the merged
graph of every lazy result of one ``compute``, gives each shared result's
readers one task instead (:func:`fused_readers`): it runs them one after the
other on the same points and returns their results as a tuple, each former
reader becoming a pick of its own.  The points then leave memory as soon as
the bucket's queries are done: the command line's report of 2e7 rows peaked at
990-998 MiB against 1,295-1,299 and ran 1.15-1.17x one AUC's time against
1.32-1.33x (``benchmarks/results/2026-11-28-fused-readers.md``).

The results are the same calls on the same inputs; only the tasks' grouping
changes.  Nothing else is fused: siblings of a result that is not shared may
depend on one another (a bucket's summary feeds the contexts its placed
points read), and one task of both would be a cycle.
"""

from __future__ import annotations

import operator
from collections.abc import Hashable, Iterable
from typing import Any

import dask
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph, MaterializedLayer

#: the kinds of per-bucket tasks whose results several queries read (``per_bucket(shared=True)``)
SHARED_KINDS: set[str] = set()


def share(kind: str) -> None:
    """Mark ``kind``'s per-bucket results as read by several queries: their readers fuse."""
    SHARED_KINDS.add(kind)


def kind_of(name: str) -> str:
    """The kind of a task name ``kind-<token>`` (:meth:`~._engine.tasks.TaskLayer.name`)."""
    return name.rsplit("-", 1)[0]


def optimized(dsk: Any, keys: Iterable[Any]) -> Any:
    """The graph culled to ``keys``, each shared result's readers fused (:func:`fused_readers`)."""
    flat = set(dask.core.flatten(keys))
    if isinstance(dsk, HighLevelGraph):
        dsk = dsk.cull(flat)
    return fused_readers(dsk)


def fused_readers(dsk: Any) -> Any:
    """``dsk`` with the tasks reading one shared result (as first argument) run as one task.

    Returns ``dsk`` itself when no shared result has two readers; else a
    materialized graph (a dict) where the readers' task ``(fused, index)``
    computes them all, in an order fixed by their keys, and each reader's key
    picks its own result from it.
    """
    shared = _shared_keys(dsk)
    if not shared:
        return dsk
    tasks = dict(dsk)
    readers: dict[tuple, list[Hashable]] = {}
    for key, task in tasks.items():
        if type(task) is tuple and len(task) > 1 and callable(task[0]):
            first = task[1]
            if type(first) is tuple and first in shared:
                readers.setdefault(first, []).append(key)
    fused = False
    for source, keys in readers.items():
        if len(keys) < 2:
            continue
        keys.sort(key=repr)  # the same task, whichever order the queries were asked in
        name = f"{kind_of(source[0])}-readers-{tokenize(keys)}"
        together = (name, *source[1:])
        tasks[together] = (tuple, [tasks[key] for key in keys])
        for index, key in enumerate(keys):
            tasks[key] = (operator.getitem, together, index)
        fused = True
    return tasks if fused else dsk


def _shared_keys(dsk: Any) -> set[tuple]:
    """The graph's keys of shared per-bucket results, found without materializing it."""
    if not SHARED_KINDS:
        return set()
    if isinstance(dsk, HighLevelGraph):
        mappings = [
            layer.mapping for layer in dsk.layers.values() if isinstance(layer, MaterializedLayer)
        ]
    else:
        mappings = [dsk]
    found: set[tuple] = set()
    for mapping in mappings:
        for key in mapping:
            if type(key) is tuple and isinstance(key[0], str) and kind_of(key[0]) in SHARED_KINDS:
                found.add(key)
    return found
