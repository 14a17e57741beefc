"""The sort's exchange on ``distributed``'s peer-to-peer shuffle machinery.

Dask's P2P shuffle (``distributed.shuffle``) moves data between workers out of
band: one *transfer* task per input hands its data to the worker's shuffle
extension, which sends shards to the workers that own their destination and
buffers what it receives on disk; a *barrier* task waits for every transfer;
one *output* task per destination reads its shards back.  The scheduler
extension pins outputs to workers and restarts the whole exchange when a
worker dies.  Task count: ``P + 1 + K`` instead of ``P x K``.

Dask ships two clients of this machinery (DataFrame shuffles and array
rechunks); this module adds a third through the same extension points
(``ShuffleSpec`` / ``ShuffleRun``): the data of an input are a list of
*pieces*, one per destination, already cut by the sort (views of the sorted
block), so nothing is re-sorted or converted on the way: a piece travels as a
small pickle header and its arrays' buffers, which are sent, written and read
back without a copy in Python (pickle protocol 5, as Dask's rechunk does).

Empty pieces are not sent.  So that a destination nothing reached still
gets a piece of the right kind (its dtype, whether it carries weights), every
source sends each worker one empty piece of its own as a *template*.
"""

from __future__ import annotations

import os
import pickle
from collections import defaultdict
from collections.abc import Callable, Generator, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dask
import numpy as np
from dask._task_spec import Task, TaskRef
from distributed.shuffle._core import (
    NDIndex,
    P2PBarrierTask,
    ShuffleId,
    ShuffleRun,
    ShuffleSpec,
    barrier_key,
    get_worker_plugin,
    handle_transfer_errors,
    handle_unpack_errors,
    p2p_barrier,
)
from distributed.shuffle._exceptions import DataUnavailable
from distributed.shuffle._limiter import ResourceLimiter
from distributed.shuffle._pickle import unpickle_bytestream
from distributed.sizeof import sizeof

#: what a source sends: (destination, (source, piece))
_Shard = tuple[int, tuple[int, Any]]


def p2p_exchange(
    dsk: dict,
    kind: str,
    token: str,
    sources: Sequence[Hashable],
    n_out: int,
    holds_rows: Callable[[Any], bool],
    combine: Callable[..., Any],
    args: Sequence[Any],
) -> list[tuple]:
    """Add a P2P exchange to ``dsk``; return one key per destination.

    Source ``i`` is the key of a list of ``n_out`` pieces; destination ``d``
    computes ``combine(*args, *pieces)`` on the non-empty pieces sent to it
    (in source order), or on one empty template when none was.
    """
    shuffle_id = ShuffleId(f"{kind}-{token}")
    transfers = []
    for i, source in enumerate(sources):
        key = (f"{kind}-transfer-{token}", i)
        dsk[key] = Task(key, _transfer, TaskRef(source), shuffle_id, i)  # type: ignore[arg-type]
        transfers.append(TaskRef(key))
    barrier = P2PBarrierTask(
        barrier_key(shuffle_id),
        p2p_barrier,
        shuffle_id,
        *transfers,
        spec=PieceExchangeSpec(
            id=shuffle_id,
            disk=bool(dask.config.get("distributed.p2p.storage.disk")),
            n_out=n_out,
            holds_rows=holds_rows,
        ),
    )
    dsk[barrier.key] = barrier
    keys = []
    for d in range(n_out):
        key = (f"{kind}-{token}", d)
        # a tuple task: dask finds the keys among ``args`` (the plan) as it does everywhere
        dsk[key] = (_received, shuffle_id, d, barrier.key, combine, list(args))
        keys.append(key)
    return keys


def _transfer(pieces: Sequence[Any], shuffle_id: ShuffleId, source: int) -> int:
    with handle_transfer_errors(shuffle_id):
        return get_worker_plugin().add_partition(pieces, source, shuffle_id)


def _received(
    shuffle_id: ShuffleId,
    destination: int,
    run_id: int,
    combine: Callable[..., Any],
    args: Sequence[Any],
) -> Any:
    with handle_unpack_errors(shuffle_id):
        pieces = get_worker_plugin().get_output_partition(shuffle_id, run_id, destination)
    return combine(*args, *pieces)


@dataclass(frozen=True)
class PieceExchangeSpec(ShuffleSpec[int]):
    """What the scheduler needs to start a piece exchange: its destinations."""

    n_out: int
    holds_rows: Callable[[Any], bool]

    @property
    def output_partitions(self) -> Generator[int]:
        yield from range(self.n_out)

    def pick_worker(self, partition: int, workers: Sequence[str]) -> str:
        # consecutive destinations (neighbouring buckets) on the same worker
        return workers[len(workers) * partition // self.n_out]

    def create_run_on_worker(
        self,
        run_id: int,
        span_id: str | None,
        worker_for: dict[int, str],
        plugin: Any,
    ) -> ShuffleRun:
        return PieceExchangeRun(
            worker_for=worker_for,
            n_out=self.n_out,
            holds_rows=self.holds_rows,
            id=self.id,
            run_id=run_id,
            span_id=span_id,
            directory=os.path.join(plugin.worker.local_directory, f"shuffle-{self.id}-{run_id}"),
            executor=plugin._executor,
            local_address=plugin.worker.address,
            rpc=plugin.worker.rpc,
            digest_metric=plugin.worker.digest_metric,
            scheduler=plugin.worker.scheduler,
            memory_limiter_disk=(
                plugin.memory_limiter_disk if self.disk else ResourceLimiter(None)
            ),
            memory_limiter_comms=plugin.memory_limiter_comms,
            disk=self.disk,
            loop=plugin.worker.loop,
        )


class PieceExchangeRun(ShuffleRun[int, list]):
    """One worker's side of a piece exchange (sending, receiving, reading back)."""

    def __init__(
        self,
        worker_for: dict[int, str],
        n_out: int,
        holds_rows: Callable[[Any], bool],
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.worker_for = worker_for
        self.n_out = n_out
        self.holds_rows = holds_rows
        self.workers = sorted(set(worker_for.values()))

    def _shard_partition(
        self, data: list, partition_id: int, **kwargs: Any
    ) -> dict[str, tuple[int, list[_Shard]]]:
        if len(data) != self.n_out:
            raise ValueError(f"expected {self.n_out} pieces, got {len(data)}")
        out: dict[str, list[_Shard]] = defaultdict(list)
        template = None
        for d, piece in enumerate(data):
            if self.holds_rows(piece):
                out[self.worker_for[d]].append((d, (partition_id, _pickled(piece))))
            elif template is None:
                template = _pickled(piece)
        if template is not None:
            # the template's slot is one past the last destination
            for worker in self.workers:
                out[worker].append((self.n_out, (partition_id, template)))
        return {worker: (partition_id, shards) for worker, shards in out.items()}

    async def _receive(self, data: list[tuple[int, list[_Shard]]]) -> None:
        self.raise_if_closed()
        by_destination: dict[NDIndex, list[tuple[int, Any]]] = defaultdict(list)
        for source, shards in data:
            if source in self.received:
                continue  # a transfer task that ran twice
            self.received.add(source)
            self.total_recvd += sizeof(shards)
            for destination, shard in shards:
                by_destination[(destination,)].append(shard)
        del data
        if not by_destination:
            return
        try:
            await self._write_to_disk(by_destination)
        except Exception as e:
            self._exception = e
            raise

    def _get_output_partition(self, partition_id: int, key: Any, **kwargs: Any) -> list:
        try:
            shards = self._read_from_disk((partition_id,))
        except DataUnavailable:
            shards = []
        pieces = [_unpickled(piece) for _, piece in sorted(_flattened(shards), key=_source)]
        if pieces:
            return pieces
        try:
            templates = sorted(_flattened(self._read_from_disk((self.n_out,))), key=_source)
        except DataUnavailable:
            templates = []
        if not templates:
            raise RuntimeError(
                f"P2P {self.id}: destination {partition_id} received no piece and no template"
            )
        return [_unpickled(templates[0][1])]

    def _get_assigned_worker(self, id: int) -> str:
        return self.worker_for[id]

    def read(self, path: Path) -> tuple[list, int]:
        # read into memory (not a memory map): pieces may be kept as they are
        buffer = path.read_bytes()
        return list(unpickle_bytestream(buffer)), len(buffer)

    def deserialize(self, buffer: Any) -> Any:
        return buffer


def _pickled(piece: Any) -> tuple[bytes, list[np.ndarray]]:
    """A piece as a pickle header and its arrays' buffers, without copying them.

    P2P's comm and disk buffers size and move buffers, not objects: the
    buffers go out as NumPy byte arrays (sent and written zero-copy) and come
    back as views of what was read (:func:`_unpickled`).
    """
    buffers: list[np.ndarray] = []
    header = pickle.dumps(
        piece,
        protocol=5,
        buffer_callback=lambda b: buffers.append(np.frombuffer(b.raw(), dtype=np.uint8)),
    )
    return header, buffers


def _unpickled(pickled: tuple[bytes, list[np.ndarray]]) -> Any:
    header, buffers = pickled
    return pickle.loads(header, buffers=buffers)


def _flattened(shards: list) -> list[tuple[int, Any]]:
    """The (source, piece) pairs of what was read: lists of them from disk, pairs from memory."""
    flat: list[tuple[int, Any]] = []
    for item in shards:
        if isinstance(item, list):
            flat.extend(item)
        else:
            flat.append(item)
    return flat


def _source(shard: tuple[int, Any]) -> int:
    return shard[0]
