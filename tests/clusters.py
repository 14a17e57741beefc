"""Local process clusters of the cluster tests."""

from __future__ import annotations

import contextlib
import importlib.util
import multiprocessing
from collections.abc import Iterator
from typing import Any

import dask

#: worker processes forked from a server that has imported distributed, dask_auc (so
#: dask.array and dask.dataframe) and scikit-learn's metrics once, rather than spawned and
#: importing them each (seconds of CPU a worker: its first task unpickles a function of a
#: test module, which imports them): a worker, and a killed worker's restart, starts in a
#: fraction of the time.  The workers are still processes of their own; only where their
#: imports come from differs.
_FAST_START = (
    {"distributed.worker.multiprocessing-method": "forkserver"}
    if "forkserver" in multiprocessing.get_all_start_methods()
    else {}
)
_PRELOAD = ("distributed", "numpy", "pandas", "dask_auc", "sklearn.metrics")


def _preload_the_fork_server() -> None:
    """The fork server's imports, set before its first start (distributed sets its own once)."""
    from distributed.utils import get_mp_context

    with dask.config.set(_FAST_START):
        get_mp_context()  # distributed's list first, so that it does not replace ours later
    installed = [name for name in _PRELOAD if importlib.util.find_spec(name.split(".")[0])]
    multiprocessing.get_context("forkserver").set_forkserver_preload(installed)


@contextlib.contextmanager
def two_worker_processes(memory_limit: str = "auto") -> Iterator[Any]:
    """A LocalCluster of two single-thread worker *processes* (nannies restart killed ones).

    The start method stays set while the cluster lives: a nanny reads it at every
    (re)start of its worker.
    """
    from distributed import LocalCluster

    if _FAST_START:
        _preload_the_fork_server()
    with (
        dask.config.set(_FAST_START),
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            memory_limit=memory_limit,
            dashboard_address=None,
        ) as cluster,
    ):
        yield cluster
