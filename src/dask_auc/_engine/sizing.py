"""How big the sort's blocks and buckets are: sized by the data, not by the partition count.

The row count of every input partition is taken from what dask already
knows (chunk sizes of dask arrays, Parquet metadata and other known
partition lengths); only when it does not know and there are many
partitions is it measured, by one pass over the inputs
(``dask-auc.measure-above``).  From the sizes:

* consecutive tiny partitions are **coalesced** into blocks of at most a
  quarter of the bucket budget, so that per-partition overhead cannot
  dominate (never into fewer blocks than four per scheduler thread);
* the **bucket count** ``K`` is what keeps every bucket below the budget
  ``dask-auc.bucket-bytes`` (with a factor two of headroom for the sample's
  error), and more when the scheduler's threads need more tasks;
* each block contributes **samples** in proportion to its rows, about
  ``16 K sqrt(P)`` in all, so the plan's splitters cut buckets of near-equal
  size whatever the number of blocks.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .config import bucket_bytes, coalesce_enabled, configured_buckets, scheduler_threads

#: below this many rows a bucket is not worth its task (when the budget allows more)
MIN_BUCKET_ROWS = 1 << 18
#: samples per bucket the plan draws, before the sqrt(P) factor
SAMPLES_PER_BUCKET = 16


@dataclass(frozen=True)
class BlockSizes:
    """What is known of the sort's input blocks before any is computed.

    ``rows`` holds the row count of every block, or is None when unknown;
    ``row_bytes`` is what one row takes once prepared (its score, plus its
    weight when weighted).
    """

    rows: tuple[int, ...] | None
    row_bytes: int = 8

    @property
    def budget_rows(self) -> int:
        """The most rows one bucket may hold."""
        return max(1, bucket_bytes() // max(1, self.row_bytes))


@dataclass(frozen=True)
class BucketLayout:
    """The bucket count and how many sampled scores each block gives the plan."""

    n_buckets: int
    samples: tuple[int, ...]


def coalesced_groups(rows: Sequence[int], row_bytes: int) -> list[range]:
    """Consecutive partitions joined into blocks of at most a quarter of the bucket budget.

    Blocks are not made larger than what gives every scheduler thread four
    blocks (nor smaller than ``MIN_BUCKET_ROWS``); a partition at least that
    large stays alone; partitions are never split.

    Examples
    --------
    >>> import dask
    >>> with dask.config.set({"dask-auc.bucket-bytes": 800, "dask-auc.coalesce": True}):
    ...     coalesced_groups([10, 10, 10, 30, 5, 5], row_bytes=8)
    [range(0, 2), range(2, 3), range(3, 4), range(4, 6)]
    """
    if not coalesce_enabled():
        return [range(i, i + 1) for i in range(len(rows))]
    parallel = max(MIN_BUCKET_ROWS, math.ceil(sum(rows) / (4 * scheduler_threads())))
    target = max(1, min(BlockSizes(None, row_bytes).budget_rows // 4, parallel))
    groups, start, held = [], 0, 0
    for i, n in enumerate(rows):
        if i > start and held + n > target:
            groups.append(range(start, i))
            start, held = i, 0
        held += n
    if len(rows):
        groups.append(range(start, len(rows)))
    return groups


def bucket_layout(sizes: BlockSizes | None, n_blocks: int) -> BucketLayout:
    """How many buckets to sort into, and each block's share of the plan's sample.

    ``dask-auc.buckets`` fixes the count.  Unknown sizes give one bucket per
    block (buckets then hold about what an input partition holds).  Known
    sizes give ``ceil(N / (budget / 2))`` buckets, or more, up to one per
    block, while there are fewer than four per scheduler thread and each
    holds ``MIN_BUCKET_ROWS``.

    Examples
    --------
    >>> import dask
    >>> with dask.config.set({"dask-auc.bucket-bytes": "128 MiB"}):
    ...     bucket_layout(BlockSizes((6_250_000,) * 8), 8).n_buckets
    8
    >>> with dask.config.set({"dask-auc.bucket-bytes": "128 MiB"}):
    ...     bucket_layout(BlockSizes((4_000_000,) * 2_500), 2_500).n_buckets
    1193
    """
    fixed = configured_buckets()
    rows = None if sizes is None else sizes.rows
    if rows is None or len(rows) != n_blocks:
        n_buckets = fixed or max(1, n_blocks)
        return BucketLayout(n_buckets, (SAMPLES_PER_BUCKET * n_buckets,) * n_blocks)
    assert sizes is not None
    total = sum(rows)
    if fixed:
        n_buckets = fixed
    else:
        target = max(1, sizes.budget_rows // 2)
        by_volume = math.ceil(total / target)
        parallel = min(n_blocks, 4 * scheduler_threads(), math.ceil(total / MIN_BUCKET_ROWS))
        n_buckets = max(1, by_volume, parallel)
    return BucketLayout(n_buckets, block_samples(rows, n_buckets))


def block_samples(rows: Sequence[int], n_buckets: int) -> tuple[int, ...]:
    """Each block's share of a sample of ``16 K sqrt(P)`` rows, in proportion to its rows.

    Examples
    --------
    >>> block_samples([1000, 3000], 2)
    (17, 49)
    """
    total = sum(rows)
    overall = SAMPLES_PER_BUCKET * n_buckets * max(1, math.isqrt(len(rows) - 1) + 1)
    return tuple(min(n, math.ceil(overall * n / total) + 1) if total else 1 for n in rows)
