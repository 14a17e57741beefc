"""dask-auc's settings in ``dask.config``, registered with their defaults so users can see them.

>>> import dask
>>> dask.config.get("dask-auc.split-every")
8
"""

from __future__ import annotations

import dask

#: the defaults, visible as ``dask.config.get("dask-auc")``
DEFAULTS = {
    "dask-auc": {
        # fan-in of the neighbour-only merge tree
        "split-every": 8,
        # score buckets of the sort; None: chosen from the number of input blocks
        "buckets": None,
    }
}
dask.config.update_defaults(DEFAULTS)

#: bound on P * K piece tasks; above it fewer buckets are used
_MAX_PIECES = 10_000


def split_every_default() -> int:
    """``split_every`` from ``dask.config`` key ``dask-auc.split-every`` (default 8)."""
    return int(dask.config.get("dask-auc.split-every"))


def bucket_count(n_blocks: int) -> int:
    """How many score buckets to sort into (``dask-auc.buckets`` overrides)."""
    configured = dask.config.get("dask-auc.buckets", None)
    if configured is not None:
        return max(1, int(configured))
    return max(1, min(n_blocks, _MAX_PIECES // max(n_blocks, 1)))
