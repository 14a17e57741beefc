"""Work on the blocks before, or beside, a sort, and one lazy result over several graphs.

Plain ``dask.delayed`` tasks, one per block (:func:`map_blocks`,
:func:`map_indexed_blocks`, :func:`zip_blocks`), one over all of them
(:func:`gather`), a tree of merges of consecutive ones (:func:`merge_tree`),
and :func:`lazy_of`, which joins the graphs of several parts under one finish.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import dask
from dask.base import tokenize
from dask.delayed import Delayed
from dask.highlevelgraph import HighLevelGraph

from .blocks import Blocks, sizes_of
from .config import split_every_default
from .lazy import LazyScore


def _sized_like(result: list[Delayed], blocks: Sequence[Any]) -> list[Delayed]:
    """``result`` (one per block of ``blocks``) with the sizes ``blocks`` carry."""
    sizes = sizes_of(blocks)
    return Blocks(result, sizes) if sizes is not None else result


def map_blocks(func: Callable, blocks: Sequence[Delayed], *args: Any) -> list[Delayed]:
    """``func(block, *args)`` on every block (work before, or beside, a sort)."""
    task = dask.delayed(func, pure=True)
    return _sized_like([task(block, *args) for block in blocks], blocks)


def map_indexed_blocks(func: Callable, blocks: Sequence[Delayed], *args: Any) -> list[Delayed]:
    """``func(block, i, *args)`` on every block ``i``."""
    task = dask.delayed(func, pure=True)
    return _sized_like([task(block, i, *args) for i, block in enumerate(blocks)], blocks)


def zip_blocks(
    func: Callable, blocks: Sequence[Delayed], *per_block: Sequence[Any]
) -> list[Delayed]:
    """``func(block_i, a_i, b_i, ...)`` on every block: one argument per block from each list."""
    task = dask.delayed(func, pure=True)
    return [task(block, *args) for block, *args in zip(blocks, *per_block, strict=True)]


def gather(func: Callable, items: Sequence[Any], *args: Any, **kwargs: Any) -> Delayed:
    """One task ``func(list_of_items, *args, **kwargs)``.

    ``items`` that are Delayed objects enter by their keys, and their graphs
    as dependencies: ``dask.delayed(func)(items)`` would optimize (cull) each
    item's whole graph to build the task, and a tree of such tasks over 800
    blocks took 18 s to build.
    """
    delayed = [x for x in items if isinstance(x, Delayed)]
    plain = [*args, *kwargs.values()]
    if len(delayed) < len(items) or not all(map(_inert, plain)):
        return dask.delayed(func, pure=True)(list(items), *args, **kwargs)
    keys = [x.key for x in delayed]
    name = f"{getattr(func, '__name__', 'gather')}-{tokenize(func, keys, args, kwargs)}"
    task = (_call_on_list, func, keys, args, kwargs)
    graph = HighLevelGraph.from_collections(name, {name: task}, dependencies=delayed)  # type: ignore[arg-type]
    return Delayed(name, graph)


def merge_tree(merge: Callable, parts: Sequence[Any], split_every: int | None) -> Delayed:
    """A tree of ``merge`` tasks over consecutive parts, ``split_every`` at a time, to one.

    Consecutive only: ``merge(list of parts)`` may be order-sensitive, never
    commutative.  ``split_every`` None: ``dask-auc.split-every``.
    """
    fan_in = split_every or split_every_default()
    level = list(parts)
    while True:
        runs = [level[i : i + fan_in] for i in range(0, max(len(level), 1), fan_in)]
        level = [gather(merge, run) for run in runs]
        if len(level) == 1:
            return level[0]


def _call_on_list(func: Callable, items: list, args: tuple, kwargs: dict) -> Any:
    return func(items, *args, **kwargs)


def _inert(value: Any) -> bool:
    """A value a task may hold as it is: no collection, nothing dask would read as a task."""
    if isinstance(value, (list, tuple)):
        starts_a_task = isinstance(value, tuple) and value and callable(value[0])
        return not starts_a_task and all(map(_inert, value))
    if isinstance(value, dict):
        return all(map(_inert, value.values()))
    return not dask.is_dask_collection(value)


def lazy_of(
    parts: Sequence[Delayed | LazyScore], finalize: Callable[..., Any], label: str
) -> LazyScore:
    """One lazy result over several graphs: ``finalize(*results of parts)``."""
    graphs = [p.__dask_graph__() for p in parts]
    keys: list[Hashable] = []
    for part in parts:
        keys.extend(part.__dask_keys__() if isinstance(part, LazyScore) else [part.key])
    return LazyScore(HighLevelGraph.merge(*graphs), keys, finalize, label)
