"""A local cluster of worker processes, for the commands ``dask-auc`` and ``dask-auc-demo``.

Both commands start one when no scheduler is given; it lives here, outside
either command, so that neither imports the other.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Where:
    """Where the computation runs: a distributed client, or dask's threads (``client=None``)."""

    client: Any
    description: str


@contextlib.contextmanager
def local_cluster(workers: int | None = None) -> Iterator[Where]:
    """A client of a new local cluster of worker processes (default: sized to the machine)."""
    from distributed import Client, LocalCluster

    sizing: dict[str, int] = {}
    if workers is not None:
        cpus = os.cpu_count() or 1
        sizing = {"n_workers": workers, "threads_per_worker": max(1, cpus // workers)}
    # ":0": any free port for the scheduler's web server; 8787 may be taken.
    # silence_logs: each worker process logs a failed task ("Compute Failed" and its
    # traceback) to this terminal, before the client re-raises it as our one-line error
    with (
        LocalCluster(
            processes=True, dashboard_address=":0", silence_logs=logging.CRITICAL, **sizing
        ) as cluster,
        Client(cluster) as client,
    ):
        found = client.scheduler_info()["workers"].values()
        threads = sum(w["nthreads"] for w in found)
        yield Where(client, f"a local cluster (workers: {len(found)}, threads: {threads})")
