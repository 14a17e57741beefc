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
from typing import Any, Callable, Hashable

import dask
import dask.dataframe as dd
from dask.highlevelgraph import HighLevelGraph

from ._graph import LazyScore, bucket_count
from ._grouped_kernels import GroupSpec, bucket_table, plan_groups, split_group_block


def grouped_tables(
    frame: dd.DataFrame,
    spec: GroupSpec,
    finalize: Callable[..., Any],
    n_buckets: int | None = None,
) -> LazyScore:
    """A lazy collection whose parts are the K bucket tables, ``finalize(*tables)`` its value.

    ``n_buckets`` defaults to :func:`dask_auc._graph.bucket_count` of the
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
    getitem = dask.delayed(operator.getitem, pure=True)
    classes = [getitem(split, 0) for split in splits]
    pieces = [getitem(split, 1) for split in splits]
    plan = dask.delayed(plan_groups, pure=True)(classes)
    table = dask.delayed(bucket_table, pure=True)
    tables = [
        table(plan, spec, *[getitem(block_pieces, b) for block_pieces in pieces])
        for b in range(n_buckets)
    ]
    graph = HighLevelGraph.merge(*[t.dask for t in tables])
    keys: list[Hashable] = [t.key for t in tables]
    return LazyScore(graph, keys, finalize, "grouped_roc_auc_score")
