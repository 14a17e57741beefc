"""Heavy ties: a tie group larger than a worker's memory is spread over buckets, exactly.

The data imitate a model that clips: about half of all rows score exactly 0.0
and there are only 100 distinct scores.  The sample sort repeats a heavy tie
value among its splitters and cuts its run of equal scores into near-equal
parts (``cut_positions``); the merge's tie correction keeps the answer exact.

Why ``max bucket rows <= 3.125 * n / K``
----------------------------------------
Each block's class array of ``m`` rows contributes ``min(m, 16 K)`` regular
samples, each standing for at most ``m / (16 K)`` rows, so the estimated
number of rows at or below any sample value is off by at most ``n / (16 K)``
in total.  A splitter is the first sample whose estimated cumulative count
reaches its target ``j n / K``.  A bucket holds the rows strictly between its
two splitters (at most ``n / K`` plus the error at each end) and, when its
upper splitter value is not repeated, that value's whole tie group; a group
hitting only one target holds fewer than ``2 n / K`` rows.  A repeated value is
cut in parts of at most ``n / K``.  Hence ``3 n / K + 2 n / (16 K)``.
"""

from __future__ import annotations

import os
import time

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score as sklearn_auc

import dask_auc
from dask_auc._engine import SortedGraph, prepared_blocks
from references import counting_auc

BALANCE = 3 + 2 / 16  # see the module docstring
DISTINCT = 100


def clipped_block(index: int, rows: int, seed: int = 0) -> pd.DataFrame:
    """One block of a clipping model's output: ~half the rows at 0.0, 100 distinct scores.

    The latent score is ``N(0, 1) + label - 0.3``; the model reports ``ceil(25 z) / 100``
    clipped to ``[0, 0.99]``, so every ``z <= 0`` becomes exactly 0.0.
    """
    rng = np.random.default_rng([seed, index])
    label = (rng.random(rows) < 0.3).astype(np.int8)
    latent = rng.standard_normal(rows) + label - 0.3
    grid = np.clip(np.ceil(25 * latent), 0, DISTINCT - 1)
    return pd.DataFrame({"label": label, "score": grid / DISTINCT})


def class_counts(blocks) -> tuple[np.ndarray, np.ndarray]:
    """Rows of each class at each of the 100 scores (ascending), block by block."""
    pos = np.zeros(DISTINCT, dtype=np.int64)
    neg = np.zeros(DISTINCT, dtype=np.int64)
    for block in blocks:
        grid = np.rint(block["score"].to_numpy() * DISTINCT).astype(np.int64)
        positive = block["label"].to_numpy() == 1
        pos += np.bincount(grid[positive], minlength=DISTINCT)
        neg += np.bincount(grid[~positive], minlength=DISTINCT)
    return pos, neg


def exact_auc_by_counting(pos: np.ndarray, neg: np.ndarray) -> float:
    """AUC from per-class counts of each score: exact integers, any number of rows."""
    neg_below = np.cumsum(neg) - neg
    twice_area = int(pos @ (2 * neg_below + neg))  # ties count one half
    return twice_area / (2 * int(pos.sum()) * int(neg.sum()))


def test_counting_reference_equals_sklearn():
    blocks = [clipped_block(i, 20_000) for i in range(3)]
    whole = pd.concat(blocks)
    assert (whole["score"] == 0.0).mean() == pytest.approx(0.5, abs=0.05)
    assert whole["score"].nunique() == DISTINCT
    assert exact_auc_by_counting(*class_counts(blocks)) == pytest.approx(
        sklearn_auc(whole["label"], whole["score"]), abs=1e-12
    )


def _bucket_rows(y, s, cuts) -> tuple[np.ndarray, int]:
    sizes = tuple(b - a for a, b in zip(cuts[:-1], cuts[1:], strict=True))
    graph = SortedGraph(
        prepared_blocks(da.from_array(y, chunks=(sizes,)), da.from_array(s, chunks=(sizes,)))
    )
    buckets = dask.get(graph.graph(), graph.bucket_keys)  # the sort alone, no summary
    return np.array([len(b.pos) + len(b.neg) for b in buckets]), graph.n_buckets


@pytest.mark.parametrize("blocks", [8, 24])
def test_heavy_tie_group_is_spread_so_buckets_stay_balanced(blocks):
    n = 240_000
    frame = pd.concat([clipped_block(i, n // blocks) for i in range(blocks)])
    y, s = frame["label"].to_numpy(), frame["score"].to_numpy()
    cuts = np.linspace(0, n, blocks + 1).astype(int)
    cuts[1] = cuts[2]  # and one empty block
    with dask.config.set({"dask-auc.buckets": blocks}):  # 240k rows alone would be one bucket
        rows, n_buckets = _bucket_rows(y, s, cuts)
    assert n_buckets == blocks
    assert rows.sum() == n
    zeros = int((s == 0).sum())
    assert zeros > BALANCE * n / n_buckets  # kept whole, the group would break the bound
    assert rows.max() <= BALANCE * n / n_buckets, rows


def test_two_huge_tie_groups_and_nothing_else_still_balance():
    rng = np.random.default_rng(7)
    n = 200_000
    s = (rng.random(n) < 0.6).astype(float)  # two scores: 0.0 and 1.0
    y = (rng.random(n) < 0.2 + 0.5 * s).astype(np.int8)
    with dask.config.set({"dask-auc.buckets": 16}):
        rows, n_buckets = _bucket_rows(y, s, [0, 50_000, 120_000, n])
    assert rows.max() <= BALANCE * n / n_buckets, rows
    with dask.config.set({"dask-auc.buckets": 16}):
        got = dask_auc.roc_auc_score(
            da.from_array(y, chunks=70_000), da.from_array(s, chunks=70_000)
        )
    assert got == counting_auc(y, s)  # the exact ratio, correctly rounded
    assert got == pytest.approx(sklearn_auc(y, s), rel=1e-12)


# -- on a memory-limited cluster -------------------------------------------------------------

MEMORY_LIMIT = 400 * 2**20
ROWS, BLOCKS = 32_000_000, 32


def _resident_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def _spilled_bytes(dask_worker) -> float:
    return dask_worker.data.cumulative_metrics.get(("disk-write", "bytes"), 0.0)


@pytest.fixture(scope="module")
def memory_limited_client():
    """Two single-thread worker processes with 400 MiB each (not the shared cluster)."""
    from distributed import Client, LocalCluster

    with (
        dask.config.set({"distributed.worker.memory.pause": 0.9}),
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            memory_limit=MEMORY_LIMIT,
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


@pytest.mark.cluster
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc (Linux)")
def test_tie_group_larger_than_a_workers_memory_gives_the_exact_auc(memory_limited_client):
    client = memory_limited_client
    client.run(lambda: __import__("dask_auc"))  # imports count in the baseline
    pids = client.run(os.getpid)
    room = MEMORY_LIMIT - max(client.run(_resident_bytes).values())
    rows_per_block = ROWS // BLOCKS
    meta = clipped_block(0, 0)
    frame = dd.from_map(clipped_block, range(BLOCKS), rows=rows_per_block, meta=meta)
    started = time.perf_counter()
    # numba (LLVM) takes 100-160 MiB of a worker process once loaded
    # (benchmarks/numba_cost.py): with it, a 400 MiB worker passes
    # distributed's pause threshold before holding any data.  The README says
    # to switch it off on workers this small.
    with dask.config.set({"dask-auc.numba": False}):
        got = dask_auc.roc_auc_score(frame["label"], frame["score"])
    seconds = time.perf_counter() - started
    pos, neg = class_counts(clipped_block(i, rows_per_block) for i in range(BLOCKS))
    assert got == exact_auc_by_counting(pos, neg)  # correctly rounded ratios of equal integers
    # The naive way cannot run here: ``sort_values`` puts the 0.0 group in one
    # pandas partition (index, label, score: 17 bytes a row), which its sort
    # copies (17 more) through an argsort (8): a task needing 42 bytes a tied row.
    zeros = int(pos[0] + neg[0])
    assert zeros > ROWS * 0.45
    assert zeros * (17 + 17 + 8) > 1.5 * MEMORY_LIMIT
    assert ROWS * 17 > 2 * room  # the data alone exceed what both workers hold unspilled
    # No worker died or was restarted; the data went through the spill directory.
    assert client.run(os.getpid) == pids
    spilled = sum(client.run(_spilled_bytes).values())
    print(
        f"{ROWS:,} rows in {seconds:.1f} s, free room {room / 2**20:.0f} MiB/worker, "
        f"spilled {spilled / 2**20:.0f} MiB"
    )
