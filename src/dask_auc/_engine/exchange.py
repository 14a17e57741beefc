"""The one row exchange: piece ``d`` of every source to destination ``d``.

Every movement of rows between tasks (the sort's buckets, the grouped AUC's
hash split, DeLong's way back to the input blocks) goes through
:func:`exchange`, which picks how the pieces travel (shared memory, tasks, or
``distributed``'s P2P).
"""

from __future__ import annotations

import dataclasses
import math
import operator
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from .config import exchange_method
from .tasks import TaskLayer


def exchange(
    layer: TaskLayer,
    kind: str,
    sources: Sequence[Hashable],
    n_out: int,
    combine: Callable[..., Any],
    *args: Any,
) -> list[tuple]:
    """Route piece ``d`` of every source to destination ``d``; the one row exchange.

    Each source is the key of a list of ``n_out`` pieces (a split block).
    Returns, per destination, the key of ``combine(*args, *pieces)``, the
    pieces in source order.  How the pieces travel is
    :func:`~dask_auc._engine.config.exchange_method`'s choice:

    ``"direct"`` (threaded scheduler)
        destination tasks read their pieces from the sources in shared
        memory, through one task that lists them: ``P + 1 + K`` tasks.
    ``"p2p"`` (a ``distributed`` cluster, exchanges of many pieces)
        :mod:`~dask_auc._engine.p2p`: ``P + 1 + K`` tasks, data out of band,
        disk-backed; empty pieces are not sent (a destination that receives
        none gets one empty piece of the right kind).
    ``"tasks"`` (a cluster's small exchanges, other schedulers)
        one task per piece, taken out through runs of ``~sqrt(K)`` pieces
        first, so that a spilled source is read ``~2 sqrt(K)`` times rather
        than ``K`` times (``benchmarks/results/out-of-core-*.md``).
    """
    method = exchange_method(len(sources) * n_out)
    name = layer.name(kind, method, combine, args, sources, n_out)
    if method == "p2p":
        from .p2p import p2p_exchange

        token = name.removeprefix(f"{kind}-")
        return p2p_exchange(layer.dsk, kind, token, sources, n_out, holds_rows, combine, args)
    if method == "direct":
        # one task lists the sources (shared memory: nothing is copied) and each destination
        # reads that one list: P + K task references, not P * K (600 tiny partitions of
        # unknown length, one bucket each, took seconds to hand 360,000 to the scheduler)
        listed = layer.add((layer.name(f"{kind}-sources", sources), 0), _listed, *sources)
        return [
            layer.add((name, d), _combine_piece, d, combine, list(args), listed)
            for d in range(n_out)
        ]
    pieces = _piece_tasks(layer, kind, sources, n_out)
    return [layer.add((name, d), combine, *args, *row) for d, row in enumerate(pieces)]


def _listed(*sources: Any) -> list[Any]:
    return list(sources)


def _combine_piece(
    d: int, combine: Callable[..., Any], args: list, sources: Sequence[Sequence[Any]]
) -> Any:
    return combine(*args, *(source[d] for source in sources))


def _piece_tasks(
    layer: TaskLayer, kind: str, sources: Sequence[Hashable], n_out: int
) -> list[list[tuple]]:
    """``pieces[d][i]``: the key of a task taking source ``i``'s piece ``d`` out."""
    per_run = math.isqrt(n_out - 1) + 1  # ceil(sqrt(K))
    piece_name = layer.name(f"{kind}-piece", sources, n_out)
    run_name = layer.name(f"{kind}-run", sources, n_out)
    by_source = []
    for i, source in enumerate(sources):
        if per_run >= n_out:
            row = [layer.add((piece_name, i, d), operator.getitem, source, d) for d in range(n_out)]
        else:
            runs = [
                layer.add(
                    (run_name, i, start),
                    operator.getitem,
                    source,
                    slice(start, start + per_run),
                )
                for start in range(0, n_out, per_run)
            ]
            row = [
                layer.add((piece_name, i, d), operator.getitem, runs[d // per_run], d % per_run)
                for d in range(n_out)
            ]
        by_source.append(row)
    return [[row[d] for row in by_source] for d in range(n_out)]


def holds_rows(piece: Any) -> bool:
    """Whether a piece holds a row: any array in it (in dataclasses, tuples, lists) is non-empty.

    Metric-agnostic: pieces are whatever the kernels cut (buckets of sorted
    scores, group rows, per-block placements).
    """
    if isinstance(piece, np.ndarray):
        return piece.size > 0
    if isinstance(piece, (tuple, list)):
        return any(holds_rows(p) for p in piece)
    if isinstance(piece, dict):
        return any(holds_rows(p) for p in piece.values())
    if dataclasses.is_dataclass(piece):
        return any(holds_rows(getattr(piece, f.name)) for f in dataclasses.fields(piece))
    if hasattr(piece, "__len__") and not isinstance(piece, (str, bytes)):
        return len(piece) > 0
    return False
