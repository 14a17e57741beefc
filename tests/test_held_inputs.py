"""Held input blocks and the garbage collector: what the engine does around dask's graph work.

A persisted input on a local scheduler holds its blocks in its graph; the
prepare tasks take them as values, so the graph a metric hands dask has none
of the input's keys (``dask_auc._engine.held``).  The collector is paused
while the inputs' graph is built and the heap frozen while a graph is
computed (``dask_auc._engine.collector``); neither may change an answer or
leave the collector in another state than it found.
"""

from __future__ import annotations

import gc

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

import dask_auc
from dask_auc._engine.collector import collector_paused, frozen_heap


def _rows(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int8)
    s = np.round(rng.random(n) + 0.4 * y, 2)  # ties, many across partition edges
    return y, s


def _input_keys(*collections):
    return {k for c in collections for k in dask.core.flatten(c.__dask_keys__())}


@pytest.mark.parametrize("chunks", [3000, 700, 37, 1])
def test_a_persisted_array_hands_its_blocks_to_the_prepare_tasks(chunks):
    y, s = _rows()
    ly, ls = dask.persist(da.from_array(y, chunks=chunks), da.from_array(s, chunks=chunks))
    lazy = dask_auc.roc_auc_score(ly, ls, compute=False)
    graph = dict(lazy.__dask_graph__())
    assert not _input_keys(ly, ls) & graph.keys()  # none of the input's keys is left
    assert lazy.compute() == dask_auc.roc_auc_score(y, s) == pytest.approx(roc_auc_score(y, s))


def test_a_lazy_input_keeps_its_tasks():
    y, s = _rows()
    ly = da.from_array(y, chunks=500) + 0  # a layer of tasks, not held blocks
    ls = da.from_array(s, chunks=500) * 1.0
    graph = dict(dask_auc.roc_auc_score(ly, ls, compute=False).__dask_graph__())
    assert _input_keys(ly, ls) <= graph.keys()


def test_a_persisted_input_beside_an_unpersisted_one_and_other_collections():
    y, s = _rows()
    (ly,) = dask.persist(da.from_array(y, chunks=400))
    ls = da.from_array(s, chunks=400) * 1.0
    auc, ap, total = dask_auc.compute(
        dask_auc.roc_auc_score(ly, ls, compute=False),
        dask_auc.average_precision_score(ly, ls, compute=False),
        ly.sum(),  # a dask collection that reads the held blocks itself
    )
    assert auc == pytest.approx(roc_auc_score(y, s), rel=1e-15)
    assert ap == pytest.approx(average_precision_score(y, s), rel=1e-14)
    assert total == y.sum()


@pytest.mark.parametrize("scheduler", ["sync", "processes"])
def test_held_blocks_on_other_local_schedulers(scheduler):
    y, s = _rows(seed=1)
    ly, ls = dask.persist(da.from_array(y, chunks=300), da.from_array(s, chunks=300))
    with dask.config.set(scheduler=scheduler):
        assert dask_auc.roc_auc_score(ly, ls) == dask_auc.roc_auc_score(y, s)


def test_a_persisted_frame_keeps_its_partition_keys_and_its_answers():
    """A DataFrame's partitions are read by a task of their own first: they stay keys."""
    y, s = _rows(seed=2)
    frame = dd.from_pandas(pd.DataFrame({"y": y, "s": s}), npartitions=9).persist()
    lazy = dask_auc.roc_auc_score(frame["y"], frame["s"], compute=False)
    assert _input_keys(frame) <= dict(lazy.__dask_graph__()).keys()
    assert lazy.compute() == dask_auc.roc_auc_score(y, s)
    grouped = dask_auc.grouped_roc_auc_score(
        frame.assign(g=frame["s"] > 0.5), by="g", label="y", score="s"
    )
    reference = pd.DataFrame({"y": y, "s": s}).assign(g=s > 0.5)
    for key, rows in reference.groupby("g"):
        expected = roc_auc_score(rows.y, rows.s)
        assert grouped.per_group.loc[key, "auc"] == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_left_as_it_was_found(enabled):
    y, s = _rows()
    ly, ls = dask.persist(da.from_array(y, chunks=100), da.from_array(s, chunks=100))
    (gc.enable if enabled else gc.disable)()
    try:
        assert dask_auc.roc_auc_score(ly, ls) == dask_auc.roc_auc_score(y, s)
        assert gc.isenabled() is enabled
        assert gc.get_freeze_count() == 0
    finally:
        gc.enable()


def test_a_heap_frozen_by_its_owner_stays_frozen():
    gc.freeze()
    try:
        with frozen_heap():
            pass
        y, s = _rows()
        dask_auc.roc_auc_score(da.from_array(y, chunks=500), da.from_array(s, chunks=500))
        assert gc.get_freeze_count() > 0  # (fewer: frozen objects freed meanwhile)
    finally:
        gc.unfreeze()


def test_garbage_made_while_the_heap_is_frozen_is_collected():
    class Cycle:
        pass

    with frozen_heap():
        made = Cycle()
        made.itself = made
        del made
        assert gc.collect() >= 1  # the new cycle is not frozen


def test_the_collector_comes_back_after_an_error():
    with pytest.raises(ValueError), collector_paused():
        raise ValueError
    assert gc.isenabled()
    with pytest.raises(ValueError), frozen_heap():
        raise ValueError
    assert gc.get_freeze_count() == 0
