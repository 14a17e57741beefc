"""The exact AUC inside xgboost.dask training, and lightgbm's iterations evaluated after it.

The collective's arithmetic is tested in-process, with worker threads joined by a
barrier-based allreduce (any order of rows, partitions, ties, weights and empty
workers); the claims about the libraries on a real two-process cluster, on the
issue's two-population eval set: each worker holds one population, of its own label
rate, so pairs across workers matter.
"""

from __future__ import annotations

import inspect
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score as sklearn_auc

import dask_auc
from dask_auc._training.dense import collective_bounds
from strategies import examples

xgboost = pytest.importorskip("xgboost", reason="xgboost-cpu is in the test extra")
pytest.importorskip("xgboost.dask", reason="xgboost's dask interface")


def workers_of(parts, **options):
    """``collective_bounds`` on each part in a thread of its own, joined by an allreduce."""
    n = len(parts)
    barrier, slots, results = threading.Barrier(n, timeout=30), [None] * n, [None] * n

    def allreduce_of(i):
        def allreduce(array, op):
            slots[i] = array.copy()
            barrier.wait()
            stacked = np.stack(slots)
            reduced = stacked.sum(axis=0) if op == "sum" else stacked.max(axis=0)
            barrier.wait()
            return reduced.astype(array.dtype)

        return allreduce

    def work(i):
        try:
            results[i] = collective_bounds(*parts[i], allreduce=allreduce_of(i), **options)[0]
        except Exception as error:  # a worker raising alone would leave the others waiting
            results[i] = error

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


SCORES = {
    "continuous": lambda rng, n: rng.normal(size=n),
    "rounded": lambda rng, n: np.round(rng.random(n), 2),
    "float32 probabilities": lambda rng, n: (1 / (1 + np.exp(-rng.normal(size=n)))).astype(
        np.float32
    ),
    "extremes": lambda rng, n: rng.choice([0.0, -0.0, 1e-300, 5.0, 1e300, -1e300], n),
}


@settings(max_examples=examples(40), deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 300),
    kind=st.sampled_from(sorted(SCORES)),
    weighted=st.booleans(),
    workers=st.integers(1, 3),
    resolution=st.sampled_from([2, 16, 64, 1024]),
)
def test_every_worker_gets_the_bounds_of_all_the_rows(seed, n, kind, weighted, workers, resolution):
    rng = np.random.default_rng(seed)
    y, s = rng.integers(0, 2, n), SCORES[kind](rng, n)
    w = rng.random(n) * (rng.random(n) < 0.8) if weighted else None
    cuts = np.sort(rng.integers(0, n + 1, workers - 1))  # empty workers too
    edges = list(zip([0, *cuts], [*cuts, n], strict=True))
    parts = [(y[a:b], s[a:b], None if w is None else w[a:b]) for a, b in edges]
    if len(np.unique(y if w is None else y[w > 0])) < 2:
        return  # undefined: tested below
    exact = dask_auc.roc_auc_score(y, s, sample_weight=w)
    assert exact == pytest.approx(sklearn_auc(y, s, sample_weight=w), abs=1e-12)
    slack = 1e-12 if weighted else 0.0  # weight sums are float64, added in any order
    widths = []
    for refinements in (0, 1, 3):
        results = workers_of(parts, resolution=resolution, max_width=0.0, refinements=refinements)
        assert all(repr(r) == repr(results[0]) for r in results)
        bounds = results[0]
        assert bounds.lower - slack <= exact <= bounds.upper + slack
        if bounds.exact:  # bit for bit unweighted
            assert bounds.estimate == (exact if not weighted else pytest.approx(exact, abs=1e-12))
        widths.append(bounds.width)
    assert widths[0] >= widths[1] >= widths[2]


def test_refinement_cuts_the_crowded_bins_until_exact():
    """Outlying scores stretch the grid: 300 crowded scores land in one bin of 256, then are cut."""
    rng = np.random.default_rng(7)
    crowd = (0.5 + 1e-5 * rng.integers(0, 300, 3000)).astype(np.float32)
    s = np.concatenate([crowd, np.float32([1e-30, 0.999])])
    y = (rng.random(len(s)) < s).astype(int)
    parts = [(y[:1000], s[:1000], None), (y[1000:], s[1000:], None)]
    coarse = workers_of(parts, resolution=256, max_width=0.0, refinements=0)[0]
    exact = workers_of(parts, resolution=256, max_width=0.0, refinements=3)[0]
    assert not coarse.exact and coarse.width > 1e-2
    assert exact.exact and exact.estimate == dask_auc.roc_auc_score(y, s)
    within = workers_of(parts, resolution=256, max_width=0.01, refinements=3)[0]
    assert within.width <= 0.01 and within.lower <= exact.estimate <= within.upper


@pytest.mark.parametrize(
    "bad, message",
    [
        ((np.array([0, 2]), np.array([0.1, 0.2]), None), "labels 0 and 1"),
        ((np.array([0, 1]), np.array([0.1, np.nan]), None), "NaN"),
        ((np.array([0, 1]), np.array([0.1, 0.2]), np.array([1.0, -1.0])), "non-negative"),
        ((np.array([0, 1]), np.array([0.1]), None), "different lengths"),
    ],
)
def test_one_workers_bad_rows_raise_on_every_worker(bad, message):
    good = (np.array([0, 1, 1]), np.array([0.3, 0.6, 0.9]), None)
    results = workers_of([good, bad], resolution=16, max_width=0.0, refinements=1)
    assert all(isinstance(r, ValueError) and message in str(r) for r in results), results


def test_one_class_everywhere_is_undefined_with_the_warning():
    parts = [(np.array([1, 1]), np.array([0.1, 0.2]), None), (np.zeros(0), np.zeros(0), None)]
    with pytest.warns(dask_auc.UndefinedMetricWarning):
        results = workers_of(parts, resolution=16, max_width=0.0, refinements=1)
    assert all(np.isnan(r.estimate) and not r.exact for r in results)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"resolution": 1000}, "power of two"),
        ({"resolution": 1}, "resolution"),
        ({"max_width": 2}, "max_width"),
        ({"refinements": -1}, "refinements"),
        ({"name": "auc-exact"}, "without '-'"),
    ],
)
def test_metric_parameters_are_checked(options, message):
    with pytest.raises(ValueError, match=message):
        dask_auc.XGBoostAUC(**options)


def test_multi_class_predictions_are_refused():
    with pytest.raises(ValueError, match="binary metric"):
        dask_auc.XGBoostAUC().bounds(np.array([0, 1]), np.zeros((2, 3)))


# ---- on a real cluster: the two-population eval set -------------------------------------


def _population(which, rows, seed):
    """Population 0: a label rate near 0.4; population 1: its scores shifted up, rate near 0.1."""
    rng = np.random.default_rng(seed + which)
    x = rng.normal(size=(rows, 3))
    x[:, 0] += 1.5 * which
    logit = (-0.5 - 2.0 * which) + 1.2 * (x[:, 0] - 1.5 * which) + 0.5 * x[:, 1]
    y = (rng.random(rows) < 1 / (1 + np.exp(-logit))).astype(np.float32)
    return x, y


def _pick(pair, i):
    return pair[i]


def _pinned(client, rows, seed):
    """``X, y`` as dask arrays whose block ``i`` lives on worker ``i`` only (persisted)."""
    import dask.array as da

    workers = sorted(client.scheduler_info()["workers"])
    X, y = [], []
    for i, worker in enumerate(workers):
        pair = client.submit(_population, i, rows, seed, workers=[worker], pure=False)
        for out, j, shape, dtype in ((X, 0, (rows, 3), np.float64), (y, 1, (rows,), np.float32)):
            part = client.submit(_pick, pair, j, workers=[worker])
            out.append(da.from_delayed(part, shape=shape, dtype=dtype))
    return client.persist([da.concatenate(X), da.concatenate(y)])


@pytest.fixture
def two_populations(client):
    return client, _pinned(client, 1500, 0), _pinned(client, 1000, 100)


PARAMS = {"objective": "binary:logistic", "max_depth": 3, "eta": 0.3, "nthread": 1}


@pytest.mark.cluster
def test_xgboost_metric_is_the_exact_auc_of_each_round(two_populations):
    import xgboost.dask

    client, (Xt, yt), (Xv, yv) = two_populations
    train = xgboost.dask.DaskDMatrix(client, Xt, yt)
    valid = xgboost.dask.DaskDMatrix(client, Xv, yv)
    metric = dask_auc.XGBoostAUC(max_width=0.0)
    rounds = 4
    out = xgboost.dask.train(
        client, {**PARAMS, "eval_metric": "auc"}, train, num_boost_round=rounds,
        evals=[(valid, "valid")], custom_metric=metric, callbacks=[metric.history_callback()],
        verbose_eval=False,
    )  # fmt: skip
    log = out["history"]["valid"]
    predictions = [
        xgboost.dask.predict(client, out["booster"], valid, iteration_range=(0, r + 1))
        for r in range(rounds)
    ]
    exact = dask_auc.compute(*[dask_auc.roc_auc_score(yv, p, compute=False) for p in predictions])
    assert log["auc_exact"] == list(exact)  # bit for bit, every round
    # xgboost's own: the pair-weighted mean of the workers' AUCs, far off here
    assert min(abs(a - e) for a, e in zip(log["auc"], exact, strict=True)) > 0.03
    by_round = dask_auc.roc_auc_by_iteration(out["booster"], Xv, yv, iterations=[2, rounds])
    assert by_round == {2: exact[1], rounds: exact[-1]}


@pytest.mark.cluster
def test_early_stopping_picks_the_round_of_the_best_exact_auc(two_populations):
    import xgboost.dask

    client, (Xt, yt), (Xv, yv) = two_populations
    metric = dask_auc.XGBoostAUC(max_width=0.0)
    model = xgboost.dask.DaskXGBClassifier(
        n_estimators=30, max_depth=4, learning_rate=0.5, n_jobs=1, eval_metric=metric,
        early_stopping_rounds=3, callbacks=[metric.history_callback()],
    )  # fmt: skip
    model.client = client
    model.fit(Xt, yt, eval_set=[(Xv, yv)], verbose=False)
    log = model.evals_result()["validation_0"]["auc_exact"]
    trained = model.get_booster().num_boosted_rounds()
    exact = dask_auc.roc_auc_by_iteration(model, Xv, yv)
    assert list(exact) == list(range(1, trained + 1))
    assert log == list(exact.values())
    assert trained < 30  # it stopped
    assert model.best_iteration == int(np.argmax(log))  # the first of the best exact AUCs
    last = model.predict_proba(Xv)[:, 1]  # the best iteration's, as xgboost predicts
    assert dask_auc.roc_auc_score(yv, last) == max(log)


@pytest.mark.cluster
@pytest.mark.filterwarnings("ignore:Parameter n_jobs will be ignored")  # lightgbm.dask's own
def test_lightgbm_reports_one_workers_auc_and_its_iterations_are_evaluated_after(
    two_populations,
):
    pytest.importorskip("lightgbm", reason="lightgbm is in the test extra")
    import lightgbm.dask

    client, (Xt, yt), (Xv, yv) = two_populations
    model = lightgbm.dask.DaskLGBMClassifier(
        n_estimators=4, num_leaves=7, verbose=-1, client=client
    )
    new = "eval_X" in inspect.signature(model.fit).parameters  # lightgbm >= 4.7 renamed eval_set
    evals = {"eval_X": (Xv,), "eval_y": (yv,)} if new else {"eval_set": [(Xv, yv)]}
    model.fit(Xt, yt, eval_metric="auc", **evals)
    reported = model.evals_result_["valid_0"]["auc"]
    by_k = dask_auc.roc_auc_by_iteration(model, Xv, yv, iterations=[1, 2, 4])
    for k, value in by_k.items():
        scores = model.predict_proba(Xv, num_iteration=k)[:, 1]
        assert value == dask_auc.roc_auc_score(yv, scores)
    # LightGBM's number is one worker's share of the eval set, not the whole set's AUC
    local = model.to_local()
    own = [
        sklearn_auc(y, local.predict_proba(X, num_iteration=4)[:, 1])
        for X, y in (
            (Xv[:1000].compute(), yv[:1000].compute()),
            (Xv[1000:].compute(), yv[1000:].compute()),
        )
    ]
    assert min(abs(reported[3] - a) for a in own) < 1e-9
    assert abs(reported[3] - by_k[4]) > 0.03
