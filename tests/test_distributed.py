"""On a real distributed cluster with worker processes: same answers, warnings in the caller."""

from __future__ import annotations

import dask
import numpy as np
import pytest
from sklearn.metrics import roc_auc_score as sklearn_auc

import dask_auc
from strategies import dask_array, dask_frame

pytestmark = pytest.mark.cluster


def _data(n=40_000, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.2).astype(np.int8)
    s = np.round(rng.random(n) + 0.25 * y, 3)
    w = rng.choice([0.0, 1.0, 2.5], size=n)
    return y, s, w


def test_cluster_answers_equal_threaded_and_sklearn(client):
    y, s, w = _data()
    cuts = [0, 5000, 5000, 17_000, 40_000]
    frame = dask_frame({"label": y, "score": s, "weight": w}, cuts).persist()
    on_cluster = dask_auc.roc_auc_score(frame["label"], frame["score"])
    weighted = dask_auc.roc_auc_score(frame["label"], frame["score"], sample_weight=frame["weight"])
    partial = dask_auc.roc_auc_score(frame["label"], frame["score"], max_fpr=0.05)
    workers_used = client.run(lambda dask_worker: len(dask_worker.data))
    assert len(workers_used) == 2
    with dask.config.set(scheduler="threads"):
        threaded = dask_auc.roc_auc_score(dask_array(y, cuts), dask_array(s, cuts))
    assert on_cluster == threaded  # exact integers: bit-identical across schedulers
    assert on_cluster == pytest.approx(sklearn_auc(y, s), abs=1e-12)
    assert weighted == pytest.approx(sklearn_auc(y, s, sample_weight=w), abs=1e-12)
    assert partial == pytest.approx(sklearn_auc(y, s, max_fpr=0.05), abs=1e-12)


def test_lazy_scores_compute_together_on_the_cluster(client):
    y, s, _ = _data(seed=1)
    yd, sd = dask_array(y, [0, 10_000, 40_000]), dask_array(s, [0, 10_000, 40_000])
    full = dask_auc.roc_auc_score(yd, sd, compute=False)
    partial = dask_auc.roc_auc_score(yd, sd, max_fpr=0.2, compute=False)
    got = dask.compute(full, partial)
    assert got[0] == pytest.approx(sklearn_auc(y, s), abs=1e-12)
    assert got[1] == pytest.approx(sklearn_auc(y, s, max_fpr=0.2), abs=1e-12)


@pytest.mark.parametrize("exchange", ["tasks", "p2p"])
def test_curve_queries_computed_together_on_the_cluster_read_shared_points_in_one_task(
    client, exchange
):
    """AP, KS and a curve of one ROC in one compute: each bucket's points are read by one
    task (the fused readers, :mod:`dask_auc._engine.fusion`) on the workers, behind either
    exchange (P2P's tasks are specs the fusion leaves as they are); the answers are the
    threaded scheduler's, each query computed alone."""
    y, s, _ = _data(seed=3)
    cuts = [0, 7_000, 7_000, 25_000, 40_000]

    def asked(exchange):
        with dask.config.set({"dask-auc.buckets": 3, "dask-auc.exchange": exchange}):
            curve = dask_auc.roc(dask_array(y, cuts), dask_array(s, cuts))
        return [
            curve.average_precision(compute=False),
            curve.ks(compute=False),
            curve.roc_curve(max_points=40, compute=False),
        ]

    from distributed import get_task_stream

    with get_task_stream(client) as stream:
        on_cluster = dask_auc.compute(*asked(exchange))
    ran = [str(task["key"]) for task in stream.data]
    assert any("curve-placed-points-readers-" in key for key in ran), ran
    with dask.config.set(scheduler="threads"):  # (P2P runs on a cluster only)
        alone = [lazy.compute() for lazy in asked("tasks")]
    assert repr(list(on_cluster)) == repr(alone)


def test_one_class_warning_reaches_the_calling_process(client):
    y = np.zeros(1000, dtype=np.int8)
    s = np.random.default_rng(2).random(1000)
    with pytest.warns(dask_auc.UndefinedMetricWarning, match="Only one class"):
        result = dask_auc.roc_auc_score(
            dask_array(y, [0, 500, 1000]), dask_array(s, [0, 500, 1000])
        )
    assert np.isnan(result)


def test_worker_errors_reach_the_caller_with_sklearns_message(client):
    s = np.random.default_rng(3).random(1000)
    s[777] = np.nan
    y = np.arange(1000) % 2
    with pytest.raises(ValueError, match="Input contains NaN."):
        dask_auc.roc_auc_score(dask_array(y, [0, 500, 1000]), dask_array(s, [0, 500, 1000]))
