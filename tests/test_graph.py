"""The built graph: neighbour-only merges, sorted buckets, laziness, determinism."""

from __future__ import annotations

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask.delayed import Delayed

import dask_auc
from dask_auc._engine import SortedGraph, prepared_blocks
from dask_auc._engine.fusion import kind_of
from strategies import dask_array


def _layer(lazy):
    graph = lazy.__dask_graph__()
    (name,) = [n for n in graph.layers if n.startswith("auc-")]
    return dict(graph.layers[name])


def _covered(key, layer, seen):
    """Bucket indices a summary or merge key stands for, checking every merge on the way."""
    if key in seen:
        return seen[key]
    if key[0].startswith("auc-summary-"):
        seen[key] = [key[1]]
        return seen[key]
    func, children = layer[key]
    assert func.__name__ == "merge_run"
    covered = []
    for child in children:
        run = _covered(child, layer, seen)
        assert run == list(range(run[0], run[0] + len(run))), "a child is not contiguous"
        if covered:
            assert run[0] == covered[-1] + 1, f"merge of non-adjacent runs {covered} + {run}"
        covered.extend(run)
    seen[key] = covered
    return covered


@pytest.mark.parametrize("split_every", [2, 3, 4, 8, 100])
@pytest.mark.parametrize("buckets", [1, 2, 7, 30])
def test_every_merge_task_combines_a_contiguous_run_in_score_order(split_every, buckets):
    y = np.arange(600) % 2
    s = np.linspace(0, 1, 600)
    with dask.config.set({"dask-auc.buckets": buckets}):
        lazy = dask_auc.roc_auc_score(
            dask_array(y, list(range(0, 600, 20)) + [600]),
            dask_array(s, list(range(0, 600, 20)) + [600]),
            split_every=split_every,
            compute=False,
        )
    layer = _layer(lazy)
    (root,) = [k for k in lazy.__dask_keys__() if k[0].startswith("auc-merge-")]
    seen: dict = {}
    assert _covered(root, layer, seen) == list(range(buckets))
    merges = [k for k in layer if k[0].startswith("auc-merge-")]
    assert all(len(layer[k][1]) <= split_every for k in merges)
    assert set(merges) <= set(seen)  # no merge task outside the tree


def test_buckets_hold_descending_score_ranges():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 3000)
    s = np.round(rng.random(3000), 2)
    s[:1500] = 0.5  # a heavy tie spread over several buckets
    with dask.config.set({"dask-auc.buckets": 9}):
        graph = SortedGraph(
            prepared_blocks(
                dask_array(y, [0, 1000, 2000, 3000]), dask_array(s, [0, 1000, 2000, 3000])
            )
        )
    buckets = dask.compute(
        *[Delayed(k, graph.graph(), layer=graph.layer_name) for k in graph.bucket_keys]
    )
    edges = []
    for bucket in buckets:
        scores = np.concatenate([bucket.pos.scores, bucket.neg.scores])
        if scores.size:
            edges.append((scores.max(), scores.min()))
    for (_, low), (high, _) in zip(edges, edges[1:], strict=False):
        assert low >= high
    sizes = [len(b.pos) + len(b.neg) for b in buckets]
    assert sum(sizes) == 3000
    assert max(sizes) <= 3 * 3000 / 9, sizes


def _exploding_get(*args, **kwargs):
    raise AssertionError("building the graph computed something")


def test_compute_false_builds_without_reading_data():
    reads = []

    def load(i):
        reads.append(i)
        rng = np.random.default_rng(i)
        return pd.DataFrame({"label": rng.integers(0, 2, 50), "score": rng.random(50)})

    meta = pd.DataFrame({"label": pd.Series([], dtype=int), "score": pd.Series([], dtype=float)})
    frame = dd.from_map(load, range(4), meta=meta, enforce_metadata=False)
    with dask.config.set(scheduler=_exploding_get):
        lazy = dask_auc.roc_auc_score(frame["label"], frame["score"], compute=False)
        lazy_partial = dask_auc.roc_auc_score(
            frame["label"], frame["score"], max_fpr=0.3, compute=False
        )
    assert reads == []
    assert isinstance(lazy, dask_auc.LazyScore)
    first, second = dask.compute(lazy, lazy_partial, scheduler="sync")
    assert sorted(set(reads)) == [0, 1, 2, 3]
    data = pd.concat([load(i) for i in range(4)])
    from sklearn.metrics import roc_auc_score as sklearn_auc

    assert first == pytest.approx(sklearn_auc(data.label, data.score), abs=1e-12)
    assert second == pytest.approx(sklearn_auc(data.label, data.score, max_fpr=0.3), abs=1e-12)


def _take(task):
    """``(source key, index)`` of a ``getitem`` task; index is an int or a slice."""
    func, source, index = task
    assert func.__name__ == "getitem"
    return source, index


@pytest.mark.parametrize("buckets", [1, 2, 3, 7, 30, 100])
def test_tasks_exchange_gives_each_bucket_one_piece_of_each_block_through_runs_of_sqrt_k(buckets):
    blocks = 12
    y = np.arange(600) % 2
    cuts = list(range(0, 600, 50)) + [600]
    with dask.config.set({"dask-auc.buckets": buckets, "dask-auc.exchange": "tasks"}):
        lazy = dask_auc.roc_auc_score(dask_array(y, cuts), dask_array(y / 7, cuts), compute=False)
    layer = _layer(lazy)
    runs_per_block = {}
    for key, task in layer.items():
        if key[0].startswith("auc-bucket-piece-"):
            block, bucket = key[1], key[2]
            source, index = _take(task)
            if source[0].startswith("auc-bucket-run-"):
                run_source, run = _take(layer[source])
                assert run_source[0].startswith("auc-split-") and run_source[1] == block
                assert run.start + index == bucket and source[1] == block
                assert run.stop - run.start <= np.ceil(np.sqrt(buckets))
                runs_per_block.setdefault(block, set()).add(run.start)
            else:
                assert source[0].startswith("auc-split-") and (source[1], index) == (block, bucket)
    pieces = sorted((k[1], k[2]) for k in layer if k[0].startswith("auc-bucket-piece-"))
    assert pieces == [(i, b) for i in range(blocks) for b in range(buckets)]
    # every row is taken out of a split about 2 sqrt(K) times, not K times
    takes = [len(runs) + np.ceil(np.sqrt(buckets)) for runs in runs_per_block.values()]
    assert all(t <= 2 * np.ceil(np.sqrt(buckets)) for t in takes)
    assert (buckets > 2) == bool(runs_per_block)
    assert lazy.compute(scheduler="sync") == 1.0


@pytest.mark.parametrize("buckets", [1, 3, 30])
def test_direct_exchange_is_one_task_per_bucket_reading_every_split(buckets):
    """Each bucket reads every split through one task listing them: P + K references."""
    blocks = 12
    y = np.arange(600) % 2
    cuts = list(range(0, 600, 50)) + [600]
    with dask.config.set({"dask-auc.buckets": buckets, "dask-auc.exchange": "direct"}):
        lazy = dask_auc.roc_auc_score(dask_array(y, cuts), dask_array(y / 7, cuts), compute=False)
    layer = _layer(lazy)
    (listed,) = [k for k in layer if k[0].startswith("auc-bucket-sources-")]
    _func, *sources = layer[listed]
    assert [s[1] for s in sources] == list(range(blocks))
    assert all(s[0].startswith("auc-split-") for s in sources)
    bucket_keys = sorted(k for k in layer if k[0].startswith("auc-bucket-") and k != listed)
    assert [k[1] for k in bucket_keys] == list(range(buckets))
    for key in bucket_keys:
        _func, d, _combine, _args, *read = layer[key]
        assert d == key[1] and read == [listed]
    assert not any("piece" in k[0] or "run" in k[0] for k in layer)
    assert lazy.compute() == 1.0


def test_task_keys_are_deterministic_and_readable():
    y, s = np.array([0, 1, 1, 0]), np.array([0.1, 0.2, 0.3, 0.4])
    a = dask_auc.roc_auc_score(y, s, compute=False)
    b = dask_auc.roc_auc_score(y, s, compute=False)
    assert a.__dask_keys__() == b.__dask_keys__()
    kinds = {kind_of(k[0]) for k in _layer(a)}
    assert {
        "auc-meta",
        "auc-plan",
        "auc-split",
        "auc-bucket",
        "auc-summary",
        "auc-merge",
    } <= kinds


def test_lazy_score_persists_and_composes_with_dask_compute():
    y, s = np.array([0, 1, 1, 0, 1]), np.array([0.1, 0.8, 0.3, 0.4, 0.3])
    lazy = dask_auc.roc_auc_score(y, s, compute=False)
    persisted = lazy.persist()
    assert persisted.compute() == lazy.compute() == dask.compute(lazy)[0]
    assert "LazyScore" in repr(lazy)
