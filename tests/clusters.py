"""Local process clusters of the cluster tests."""

from __future__ import annotations

from typing import Any


def two_worker_processes(memory_limit: str = "auto") -> Any:
    """A LocalCluster of two single-thread worker *processes* (nannies restart killed ones)."""
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        memory_limit=memory_limit,
        dashboard_address=None,
    )
