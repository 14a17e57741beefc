"""Where ``dask-auc`` computes: dask's threads, a running scheduler, or a new local cluster."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

import dask

from .._local_cluster import Where, local_cluster

#: ``--scheduler`` values that run in this process, with dask's scheduler of that name
_LOCAL_SCHEDULERS = ("threads", "synchronous")


@contextlib.contextmanager
def scheduler(address: str | None, workers: int | None) -> Iterator[Where]:
    """``--scheduler``'s: dask's threads, a client of the scheduler at ``address``,
    or without one, a new local cluster of ``workers`` processes."""
    if address in _LOCAL_SCHEDULERS:
        with dask.config.set(scheduler=address):
            yield Where(None, f"this process ({address})")
    elif address is not None:
        from distributed import Client

        with Client(address) as client:
            yield Where(client, f"the cluster at {address}")
    else:
        with local_cluster(workers) as where:
            yield where


@contextlib.contextmanager
def quiet_distributed_logs() -> Iterator[None]:
    """Keep distributed's start-up and shutdown chatter off the user's terminal."""
    with dask.config.set({"logging.distributed": "error"}):
        logger = logging.getLogger("distributed")
        level = logger.level
        logger.setLevel(logging.ERROR)
        try:
            yield
        finally:
            logger.setLevel(level)
