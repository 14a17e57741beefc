"""Scale-out: graphs grow like P + K, buckets respect their budget, coalescing and P2P are exact.

Issue 13: the sort's exchange used to be ``P x K`` tasks with ``K = min(P,
10000 // P)``, so 10,000 partitions got one bucket.  Here, on built graphs
and on data: the task count is linear in the partitions for every exchange
that claims it, bucket sizes follow ``dask-auc.bucket-bytes`` whatever the
partition count (heavy ties included), coalesced blocks give the exact
answer, and the P2P exchange gives the exact answer on a real cluster.
"""

from __future__ import annotations

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask.delayed import Delayed
from sklearn.metrics import average_precision_score, roc_curve
from sklearn.metrics import roc_auc_score as sklearn_auc

import dask_auc
from dask_auc._engine import SortedGraph, prepared_blocks
from dask_auc._engine.sizing import BlockSizes, bucket_layout
from references import counting_auc
from strategies import dask_array


def _auc_tasks(lazy) -> int:
    """Tasks dask-auc added to the graph (its layers), the inputs' own tasks left out."""
    graph = lazy.__dask_graph__()
    return sum(
        len(layer) for name, layer in graph.layers.items() if name.startswith(("auc-", "dask-auc-"))
    )


@pytest.mark.parametrize("exchange", ["direct", "p2p"])
def test_task_count_grows_like_p_plus_k_not_p_times_k(exchange):
    counts = {}
    for partitions in (250, 1000, 4000):
        y = da.zeros(4 * partitions, chunks=4, dtype=np.int8)
        s = da.zeros(4 * partitions, chunks=4)
        settings = {"dask-auc.exchange": exchange, "dask-auc.buckets": partitions}
        with dask.config.set(settings):  # K = P: P x K would be 16 million pieces
            lazy = dask_auc.roc_auc_score(y, s, compute=False)
        counts[partitions] = _auc_tasks(lazy)
        assert counts[partitions] <= 6 * (partitions + partitions) + 10, counts
    assert counts[4000] / counts[1000] < 4.2 and counts[1000] / counts[250] < 4.2, counts


def test_tasks_exchange_is_p_times_k_and_chosen_only_when_asked():
    y = da.zeros(400, chunks=4, dtype=np.int8)
    with dask.config.set({"dask-auc.exchange": "tasks", "dask-auc.buckets": 100}):
        lazy = dask_auc.roc_auc_score(y, y.astype(float), compute=False)
    assert _auc_tasks(lazy) >= 100 * 100
    with pytest.raises(ValueError, match="dask-auc.exchange must be one of"):
        with dask.config.set({"dask-auc.exchange": "shuffle"}):
            dask_auc.roc_auc_score(y, y.astype(float), compute=False)


def test_lazy_graph_of_a_billion_rows_in_ten_thousand_partitions():
    """Never computed: under 20 tasks per input partition, buckets within the budget."""
    n, chunk = 10**9, 10**5
    y = (da.random.random(n, chunks=chunk) < 0.3).astype(np.int8)
    s = da.random.random(n, chunks=chunk)
    lazy = dask_auc.roc_auc_score(y, s, compute=False)
    graph = lazy.__dask_graph__()
    assert len(graph) < 20 * y.numblocks[0]
    blocks = prepared_blocks(y, s)
    layout = bucket_layout(blocks.sizes, len(blocks))
    budget = blocks.sizes.budget_rows
    assert sum(blocks.sizes.rows) == n
    assert layout.n_buckets * budget // 2 >= n  # room for every row at half the budget
    assert max(blocks.sizes.rows) <= budget // 4  # 10,000 partitions coalesced
    assert sum(layout.samples) < 200 * layout.n_buckets * np.sqrt(len(blocks))


def _bucket_rows(y, s, w=None) -> list[int]:
    graph = SortedGraph(prepared_blocks(y, s, w))
    buckets = dask.compute(
        *[Delayed(k, graph.graph(), layer=graph.layer_name) for k in graph.bucket_keys]
    )
    return [len(b.pos) + len(b.neg) for b in buckets]


@pytest.mark.parametrize("scores", ["continuous", "heavy ties", "one value"])
@pytest.mark.parametrize("weighted", [False, True])
def test_every_bucket_respects_the_budget(scores, weighted):
    rng = np.random.default_rng(13)
    n = 200_000
    y = rng.integers(0, 2, n)
    s = {
        "continuous": rng.random(n),
        "heavy ties": np.where(rng.random(n) < 0.5, 0.5, np.round(rng.random(n), 2)),
        "one value": np.full(n, 0.25),
    }[scores]
    w = rng.choice([0.0, 1.0, 2.5], n) if weighted else None
    cuts = sorted({0, n, *rng.integers(0, n, 299).tolist()})  # ~300 partitions
    row_bytes = 16 if weighted else 8
    budget_rows = 8192
    settings = {"dask-auc.coalesce": True, "dask-auc.bucket-bytes": budget_rows * row_bytes}
    with dask.config.set(settings):
        args = [dask_array(y, cuts), dask_array(s, cuts)]
        weights = dask_array(w, cuts) if weighted else None
        sizes = _bucket_rows(*args, weights)
        got = dask_auc.roc_auc_score(*args, sample_weight=weights)
    kept = n if w is None else int((w != 0).sum())
    assert sum(sizes) == kept
    assert len(sizes) >= 2 * n / budget_rows - 1
    assert max(sizes) <= budget_rows, (max(sizes), budget_rows)
    expected = sklearn_auc(y, s, sample_weight=w) if scores != "one value" else 0.5
    assert got == pytest.approx(expected, abs=1e-12)


def test_buckets_follow_the_data_not_the_partition_count():
    rows = (5_000,) * 10_000  # 5e7 rows in 10,000 partitions: one bucket before
    with dask.config.set({"dask-auc.bucket-bytes": "128 MiB"}):
        many = bucket_layout(BlockSizes(rows), len(rows)).n_buckets
        few = bucket_layout(BlockSizes((6_250_000,) * 8), 8).n_buckets
    assert many >= 3 and few == 8
    with dask.config.set({"dask-auc.buckets": 5}):
        assert bucket_layout(BlockSizes(rows), len(rows)).n_buckets == 5


def test_coalesced_partitions_of_different_dtypes_keep_every_value_exact():
    big = 2**62 + 1  # not a float64
    parts = [
        pd.DataFrame({"y": [0, 1], "s": np.array([big, big + 2], dtype=np.int64)}),
        pd.DataFrame({"y": [1, 0], "s": np.array([3, 1], dtype=np.int8)}),
        pd.DataFrame({"y": pd.Series([], dtype=np.int64), "s": pd.Series([], dtype=float)}),
        pd.DataFrame({"y": [1, 0], "s": np.array([big + 1, big + 3], dtype=np.int64)}),
    ]
    frame = dd.from_map(lambda i: parts[i], range(4), divisions=None, enforce_metadata=False)
    settings = {"dask-auc.coalesce": True, "dask-auc.measure-above": 0}
    whole = pd.concat(parts[:2] + parts[3:])
    with dask.config.set(settings):
        blocks = prepared_blocks(frame["y"], frame["s"])
        assert len(blocks) == 1  # all four coalesced
        got = dask_auc.roc_auc_score(frame["y"], frame["s"])
    assert got == counting_auc(whole["y"].to_numpy(), whole["s"].to_numpy())
    floats = [parts[0], pd.DataFrame({"y": [0, 1], "s": [0.5, 0.25]})]
    frame = dd.from_map(lambda i: floats[i], range(2), enforce_metadata=False)
    with dask.config.set(settings), pytest.raises(ValueError, match="beyond 2\\*\\*53"):
        dask_auc.roc_auc_score(frame["y"], frame["s"])


def test_persisted_partitions_are_counted_not_read_again():
    """A persisted frame's lengths are one ``len`` a partition: coalesced, buckets by rows.

    Its column selections and row-wise ``assign`` keep the partitions' lengths, so they
    are counted too; a filter of it, or a read (``from_map``), is not computed to count
    it (below ``measure-above`` partitions).  The answer is the one of unknown lengths.
    """
    rng = np.random.default_rng(16)
    parts = [
        pd.DataFrame({"y": rng.integers(0, 2, n), "s": rng.integers(0, 9, n) / 8.0})
        for n in (40, 0, 7, 300, 1, 52)
    ]
    reads = []

    def load(i):
        reads.append(i)
        return parts[i]

    read = dd.from_map(load, range(len(parts)), enforce_metadata=False)
    kept = read.persist()
    whole = pd.concat(parts)
    expected = counting_auc(whole["y"].to_numpy(), whole["s"].to_numpy())
    with dask.config.set({"dask-auc.coalesce": True}):
        reads.clear()
        for frame in (kept, kept.assign(s=kept["s"] * 2)):
            blocks = prepared_blocks(frame["y"], frame["s"])
            assert len(blocks) == 1 and blocks.sizes.rows == (400,)
            assert dask_auc.roc_auc_score(frame["y"], frame["s"]) == expected
        assert reads == []  # counted from memory, never read again
        filtered = kept[kept["s"] >= 0]
        assert prepared_blocks(filtered["y"], filtered["s"]).sizes.rows is None
        assert dask_auc.roc_auc_score(filtered["y"], filtered["s"]) == expected
        assert prepared_blocks(read["y"], read["s"]).sizes.rows is None
        assert reads == []  # building the graph of a read reads nothing


def test_unknown_lengths_are_measured_only_above_the_threshold():
    reads = []

    def load(i):
        reads.append(i)
        rng = np.random.default_rng(i)
        return pd.DataFrame({"y": rng.integers(0, 2, 30), "s": rng.random(30)})

    meta = pd.DataFrame({"y": pd.Series([], dtype=np.int64), "s": pd.Series([], dtype=float)})
    frame = dd.from_map(load, range(100), meta=meta, enforce_metadata=False)
    with dask.config.set({"dask-auc.measure-above": 100}):
        dask_auc.roc_auc_score(frame["y"], frame["s"], compute=False)
    assert reads == []  # 100 partitions, not above 100: lazy
    with dask.config.set({"dask-auc.measure-above": 99, "dask-auc.coalesce": True}):
        lazy = dask_auc.roc_auc_score(frame["y"], frame["s"], compute=False)
        assert sorted(set(reads)) == list(range(100))  # one pass to measure
        assert len(prepared_blocks(frame["y"], frame["s"])) < 100
    data = pd.concat([load(i) for i in range(100)])
    assert lazy.compute() == pytest.approx(sklearn_auc(data.y, data.s), abs=1e-12)


@pytest.mark.cluster
def test_p2p_exchange_on_a_real_cluster_is_exact_for_many_partitions(client):
    """200 partitions of unknown length (measured, coalesced), many empty, ties across edges.

    Each request measures the lengths again, a round trip of every partition through
    the scheduler: 200 partitions (above ``measure-above``, 64) show measuring and
    coalescing as 600 did; rows and ``bucket-bytes`` keep 600's proportions, so that the
    P2P exchange still deals a dozen or so coalesced blocks over several buckets.
    """
    rng = np.random.default_rng(1313)
    n = 6_000
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n), 3)
    w = rng.choice([0.0, 0.5, 2.0], n)
    inner = np.sort(rng.integers(0, n + 1, 189))
    cuts = [0, *np.sort(np.concatenate([inner, inner[::19]])).tolist(), n]  # 10 empty or more
    whole = pd.DataFrame({"y": y, "s": s, "w": w})
    pieces = [whole.iloc[a:b] for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    frame = dd.from_map(_same, pieces, meta=whole.iloc[:0], enforce_metadata=False).persist()
    from dask_auc._engine.config import exchange_method

    assert exchange_method(2501) == "p2p" and exchange_method(2500) == "tasks"
    settings = {"dask-auc.coalesce": True, "dask-auc.bucket-bytes": 12_800, "dask-auc.p2p-above": 0}
    with dask.config.set(settings):
        assert len(prepared_blocks(frame["y"], frame["s"])) < 200
        # one compute: the curve shares the AUC's sort, one round trip of 200 partitions
        got, weighted, (fpr, tpr, thresholds) = dask_auc.compute(
            dask_auc.roc_auc_score(frame["y"], frame["s"], compute=False),
            dask_auc.roc_auc_score(
                frame["y"], frame["s"], sample_weight=frame["w"], max_fpr=0.2, compute=False
            ),
            dask_auc.roc_curve(frame["y"], frame["s"], compute=False),
        )
    assert got == counting_auc(y, s)
    assert weighted == pytest.approx(sklearn_auc(y, s, sample_weight=w, max_fpr=0.2), abs=1e-12)
    expected = roc_curve(y, s)
    np.testing.assert_array_equal(fpr, expected[0])
    np.testing.assert_array_equal(tpr, expected[1])
    np.testing.assert_array_equal(thresholds, expected[2])


def _same(frame: pd.DataFrame) -> pd.DataFrame:
    return frame


@pytest.mark.cluster
def test_p2p_destinations_nothing_reached_get_an_empty_piece_of_the_right_kind(client):
    """More buckets than distinct scores: most buckets receive nothing, weights or not."""
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1] * 25)
    s = np.array([0.1, 0.9] * 100)
    w = np.linspace(0.5, 2, 200)
    cuts = [0, 0, 50, 120, 120, 200]
    with dask.config.set({"dask-auc.buckets": 40, "dask-auc.exchange": "p2p"}):
        args = dask_array(y, cuts), dask_array(s, cuts)
        assert dask_auc.roc_auc_score(*args) == counting_auc(y, s)
        weighted = dask_auc.roc_auc_score(*args, sample_weight=dask_array(w, cuts))
        assert weighted == pytest.approx(sklearn_auc(y, s, sample_weight=w), abs=1e-12)
        test = dask_auc.delong_test(*args, dask_array(s[::-1].copy(), cuts))
        assert test.auc_a == counting_auc(y, s)
        assert dask_auc.average_precision_score(*args) == pytest.approx(
            average_precision_score(y, s), abs=1e-12
        )
