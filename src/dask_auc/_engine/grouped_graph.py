"""The dask graph of the grouped AUC: a hash split by group key, one table per bucket.

Layout, for ``P`` input partitions and ``K`` buckets::

    partition_i -> split_i                       (validate, hash keys, K pieces)
    split_i -> classes_i ---------> plan         (the positive class of the frame)
    split_i -> piece_(i, b)
    plan + piece_(*, b) -> table_b               (every group of bucket b, exact)

Every row of a group goes to the same bucket, so a group spread over all
partitions is whole in its bucket; the K tables are disjoint and are
concatenated in the calling process.  No task holds more than one bucket.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable
from typing import Any

import dask.dataframe as dd
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph
from dask.typing import Key

from .._kernels.grouped import GroupSpec, bucket_table, plan_groups, split_group_block
from .graph import LazyScore, bucket_count


def grouped_tables(
    frame: dd.DataFrame,
    spec: GroupSpec,
    finalize: Callable[..., Any],
    n_buckets: int | None = None,
) -> LazyScore:
    """A lazy collection whose parts are the K bucket tables, ``finalize(*tables)`` its value.

    ``n_buckets`` defaults to :func:`dask_auc._engine.graph.bucket_count` of the
    partition count (``dask.config`` key ``dask-auc.buckets`` overrides).
    """
    n_buckets = n_buckets or bucket_count(frame.npartitions)
    splits = (
        frame[spec.columns]
        .map_partitions(
            split_group_block,
            spec,
            n_buckets,
            meta=("split", object),
            align_dataframes=False,
            enforce_metadata=False,
            token="dask-auc-group-split",
        )
        .to_delayed()
    )
    token = tokenize([split.key for split in splits], spec, n_buckets)
    name = f"auc-grouped-{token}"
    # one plain layer of tuple tasks, as SortedGraph builds: a layer per
    # delayed call would make culling quadratic in the P * K piece tasks
    dsk: dict[Key, Any] = {}
    classes = []
    for i, split in enumerate(splits):
        dsk[(name, "classes", i)] = (operator.getitem, split.key, 0)
        classes.append((name, "classes", i))
        for b in range(n_buckets):
            dsk[(name, "piece", i, b)] = (operator.getitem, (operator.getitem, split.key, 1), b)
    dsk[(name, "plan")] = (plan_groups, classes)
    keys: list[Hashable] = []
    for b in range(n_buckets):
        pieces = [(name, "piece", i, b) for i in range(len(splits))]
        dsk[(name, "table", b)] = (bucket_table, (name, "plan"), spec, *pieces)
        keys.append((name, "table", b))
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=splits)
    return LazyScore(graph, keys, finalize, "grouped_roc_auc_score")
