"""dask-auc's settings in ``dask.config``, registered with their defaults so users can see them.

>>> import dask
>>> dask.config.get("dask-auc.split-every")
8
>>> dask.config.get("dask-auc.bucket-bytes")
'128 MiB'

Keys (all under ``dask-auc``):

``split-every``
    Fan-in of the neighbour-only merge tree.
``bucket-bytes``
    The most data one score bucket of the sort may hold (rows times the
    bytes a sorted row takes: its score, plus its weight when weighted).
    The bucket count follows from the data's size; tiny input partitions
    are coalesced to about a quarter of it before the sort.
``buckets``
    A fixed bucket count instead (``None``: chosen from the size).
``exchange``
    How rows move between the sort's blocks and buckets: ``"auto"``
    (``"direct"`` on the threaded or synchronous scheduler; under a
    ``distributed`` client ``"p2p"`` when the exchange has more than
    ``p2p-above`` pieces -- blocks times buckets -- else ``"tasks"``;
    ``"tasks"`` on other schedulers), ``"p2p"``
    (``distributed``'s peer-to-peer shuffle: one transfer task per block,
    one output task per bucket, disk-backed buffers), ``"direct"`` (each
    bucket task reads its pieces from the blocks in shared memory) or
    ``"tasks"`` (one small task per piece: ``P x K`` tasks).
``p2p-above``
    Pieces (blocks x buckets) above which ``"auto"`` takes the P2P exchange
    on a cluster: below, one task per piece costs less than P2P's fixed
    overhead (``benchmarks/results/2026-11-24-scale-out.md``).
``coalesce``
    Join consecutive tiny input partitions into one block before the sort
    (default True; False keeps one block per partition).
``measure-above``
    Inputs of unknown partition lengths with more partitions than this are
    measured (one pass computing the length of every partition of every
    input) so that they can be coalesced and
    their buckets sized; with fewer, each partition is one block and there
    is one bucket per block.
``numba``
    Use the compiled kernels of the optional ``numba`` extra where numba is
    installed on the worker (default True); False keeps every kernel in
    NumPy.  Either way the results are the same.
"""

from __future__ import annotations

import os
from typing import Any

import dask
from dask.utils import parse_bytes

#: the defaults, visible as ``dask.config.get("dask-auc")``
DEFAULTS = {
    "dask-auc": {
        "split-every": 8,
        "bucket-bytes": "128 MiB",
        "buckets": None,
        "exchange": "auto",
        "p2p-above": 2500,
        "coalesce": True,
        "measure-above": 64,
        "numba": True,
    }
}
dask.config.update_defaults(DEFAULTS)

EXCHANGE_METHODS = ("auto", "p2p", "direct", "tasks")


def split_every_default() -> int:
    """``split_every`` from ``dask.config`` key ``dask-auc.split-every`` (default 8)."""
    return int(dask.config.get("dask-auc.split-every"))


def bucket_bytes() -> int:
    """The bucket budget in bytes (``dask-auc.bucket-bytes``, default 128 MiB)."""
    value = dask.config.get("dask-auc.bucket-bytes")
    budget = parse_bytes(value) if isinstance(value, str) else int(value)
    if budget <= 0:
        raise ValueError(f"dask-auc.bucket-bytes must be positive, got {value!r}")
    return budget


def configured_buckets() -> int | None:
    """``dask-auc.buckets``: a fixed bucket count, or None to size buckets by the data."""
    configured = dask.config.get("dask-auc.buckets", None)
    return None if configured is None else max(1, int(configured))


def coalesce_enabled() -> bool:
    """``dask-auc.coalesce``: whether tiny input partitions are joined before the sort."""
    return bool(dask.config.get("dask-auc.coalesce"))


def measure_above() -> int:
    """Partition count above which unknown partition lengths are measured."""
    return int(dask.config.get("dask-auc.measure-above"))


def compiled_kernels() -> bool:
    """``dask-auc.numba``: whether tasks may use the compiled kernels (where numba is installed).

    Read when the graph is built and passed to its tasks, so that workers
    follow the client's setting.
    """
    return bool(dask.config.get("dask-auc.numba"))


def _active_client() -> Any:
    """The ``distributed`` client the graph is built for, or None (another scheduler)."""
    client = getattr(dask.base.get_scheduler(), "__self__", None)
    return client if type(client).__name__ == "Client" else None


def scheduler_threads() -> int:
    """Threads of the scheduler the graph is built for (a distributed client's, or local cores)."""
    client = _active_client()
    if client is not None:
        try:
            return max(1, sum(client.nthreads().values()))
        except Exception:  # a client that cannot answer: assume local cores
            pass
    return max(1, int(dask.config.get("num_workers", None) or os.cpu_count() or 1))


def exchange_method(pieces: int = 0) -> str:
    """The row exchange to build for ``pieces`` (blocks x buckets): ``dask-auc.exchange``.

    ``"auto"`` is resolved by the scheduler when the graph is built, as dask's
    own shuffles are: a graph built without a client and computed on one
    later uses the exchange of the scheduler it was built for (``"direct"``),
    which is correct but moves whole blocks; set ``dask-auc.exchange`` to choose.
    """
    method = str(dask.config.get("dask-auc.exchange"))
    if method not in EXCHANGE_METHODS:
        raise ValueError(
            f"dask-auc.exchange must be one of {', '.join(EXCHANGE_METHODS)}; got {method!r}"
        )
    if method != "auto":
        return method
    scheduler = dask.base.get_scheduler()
    if scheduler is None or scheduler in (dask.threaded.get, dask.local.get_sync):
        return "direct"
    if _active_client() is not None:
        return "p2p" if pieces > int(dask.config.get("dask-auc.p2p-above")) else "tasks"
    return "tasks"
