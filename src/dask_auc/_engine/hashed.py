"""The hash exchange: rows routed by a hash of their group key (the grouped AUC)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from dask.base import tokenize
from dask.delayed import Delayed

from .exchange import exchange
from .tasks import GraphOperations, TaskLayer


class HashedGraph(GraphOperations):
    """Rows routed by a hash of their group key (the grouped AUC), through one or more exchanges.

    Layout, for ``P`` blocks (each a list of consecutive input partitions)::

        block_i' -> sample_i -------> route        (optional: P samples -> a routing plan;
                                                    block_i' may be another read of block_i)
        block_i + route -> split_i                 (info, then one list of pieces per exchange)
        split_* -> destination_d of exchange e     (:func:`exchange`)

    ``split(block, *args, route)`` returns ``(info, pieces_0, pieces_1, ...)``
    with ``n_outs[e]`` pieces in list ``e`` (``route`` is None without
    ``sample``).  Each exchange's pieces are of one kind, so a destination
    nothing reached gets an empty piece of its own exchange's kind.
    """

    def __init__(
        self,
        blocks: Sequence[Delayed],
        split: Callable[..., Any],
        args: tuple[Any, ...],
        n_outs: Sequence[int],
        *,
        sample: Callable[..., Any] | None = None,
        sample_blocks: Sequence[Delayed] = (),
        sample_sizes: Sequence[int] = (),
        route: Callable[..., Any] | None = None,
        route_args: tuple[Any, ...] = (),
    ):
        self.n_outs = tuple(n_outs)
        token = tokenize([b.key for b in blocks], split, args, self.n_outs)
        self.layer = TaskLayer(token, [*blocks, *sample_blocks])
        self.route: Hashable | None = None
        if sample is not None and route is not None:
            read = [b.key for b in sample_blocks] or [b.key for b in blocks]
            name = self.layer.name("auc-grouped-sample", sample, sample_sizes, read)
            samples = [
                self.layer.add((name, i), sample, key, n)
                for i, (key, n) in enumerate(zip(read, sample_sizes, strict=True))
            ]
            self.route = self.task("auc-grouped-route", route, samples, *route_args)
        name = self.layer.name("auc-grouped-split", split, args, self.route)
        splits = [
            self.layer.add((name, i), split, block.key, *args, self.route)
            for i, block in enumerate(blocks)
        ]
        info = self.layer.name("auc-grouped-info", name)
        self.infos = [
            self.layer.add((info, i), operator.getitem, s, 0) for i, s in enumerate(splits)
        ]
        self.sources = []
        for e in range(len(self.n_outs)):
            pieces = self.layer.name(f"auc-grouped-pieces-{e}", name)
            self.sources.append(
                [
                    self.layer.add((pieces, i), operator.getitem, s, 1 + e)
                    for i, s in enumerate(splits)
                ]
            )

    def per_bucket(
        self, kind: str, func: Callable, *args: Any, exchange_index: int = 0
    ) -> list[tuple]:
        """One task per destination of an exchange, ``func(*args, *pieces)``, after it."""
        sources = self.sources[exchange_index]
        return exchange(self.layer, kind, sources, self.n_outs[exchange_index], func, *args)
