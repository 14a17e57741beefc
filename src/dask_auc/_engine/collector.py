"""Python's cyclic garbage collector kept off dask's graph work.

A graph of many input partitions is tens of thousands of small tracked
objects (keys, tasks, dicts of dependencies) that live until the compute
ends, and dask's local scheduler makes as many again (``order``, its
state).  Each time enough new objects pile up, the collector walks them all
-- and everything else the process holds, the user's objects included --
and finds no garbage: on 5e7 rows in 10,000 partitions (threads) it ran
~400 times and took 0.36-0.50 s of a 1.2-1.5 s AUC.

* :func:`collector_paused` while the graph of the inputs is built
  (:func:`~.inputs.prepared_blocks`): it allocates a bounded amount and frees
  none of it.  dask pauses the collector so when it slices an array
  (``dask.utils.disable_gc``); this one restores the state it finds on
  entry, not the one when it was made.
* :func:`frozen_heap` while a graph is computed: the objects that exist on
  entry (the graph, the inputs' graphs, the rest of the process) move to
  the collector's permanent generation (``gc.freeze``) and back on exit
  (``gc.unfreeze``), so collections during the compute walk only what the
  compute makes -- garbage made then is still collected.  Left alone when
  the collector is off or something is frozen already (a server that froze
  its heap before forking keeps it frozen).

Neither changes a result.  Nothing here imports a metric.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused", "frozen_heap"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic collection inside the block; the collector's state on entry restored on exit."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Collections inside the block skip every object that existed on entry.

    Examples
    --------
    >>> with frozen_heap():
    ...     gc.get_freeze_count() > 0
    True
    >>> gc.get_freeze_count()
    0
    """
    if not gc.isenabled() or gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
