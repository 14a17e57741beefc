"""Task keys name everything that decides a task's result (issue 20, item 1).

Two requests of one input that differ in a parameter, or in a ``dask.config``
setting that shapes the graph, must never share a task name: computed together
(``dask_auc.compute``), or one after the other on a cluster where another
caller holds a future of the first, each must give its own answer.  Before the
engine made every name from a hash of the task's function, arguments and
operation, ``roc_auc_score(split_every=2)`` beside a default one returned the
wrong AUC (or ``merge_adjacent: the left run must hold the higher scores``).

Driven by the registry: every entry, every one of its ``variants``, and the
graph-shaping settings below.
"""

from __future__ import annotations

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import dask_auc
from metric_registry import N_CLASSES, REGISTRY, Metric, dask_inputs

every_metric = pytest.mark.parametrize("metric", REGISTRY.values(), ids=REGISTRY.keys())

#: dask.config settings that change a graph's shape (and, if keys forgot them, its answer)
CONFIG_VARIANTS = (
    {"dask-auc.split-every": 2},
    {"dask-auc.buckets": 3},
    {"dask-auc.numba": False},
    {"dask-auc.exchange": "tasks"},
)

#: partition cuts of the 240 rows of a case: uneven, one empty partition
CUTS = [0, 17, 60, 60, 101, 150, 199, 240]
#: the cluster test's: still uneven, one empty, three blocks (a ``split-every`` 2 tree
#: differs from the default one), and less than half the tasks of ``CUTS`` through the
#: scheduler (each costs a round trip there, not a microsecond as on threads)
HELD_CUTS = [0, 100, 100, 240]
#: the cluster test's entries: one per builder of task names (the ROC's sort and its
#: curve and operating-point finishes, the class columns, the multilabel matrix, the per-row
#: rankings, the grouped hash exchange, the bootstrap's replicate sort, Mann-Whitney's own
#: sort, the paired DeLong sort, the calibration sums, the state's one pass, the PAV
#: diagram).  That each entry's parameters are in its names is the threaded test above,
#: for every entry; this one is the scheduler's side (a held key answering a new request),
#: which depends on how a builder names tasks, not on the metric (every entry took 22 s)
HELD_ENTRIES = (
    "roc_auc_score",
    "roc_curve",
    "operating_point-youden",
    "roc_auc_score-ovr",
    "roc_auc_score-multilabel",
    "coverage_error",
    "grouped_roc_auc_score",
    "bootstrap_ci-roc_auc",
    "mannwhitneyu",
    "delong_test",
    "log_loss",
    "roc_state",
    "reliability_diagram",
)


def _columns(metric: Metric) -> dict[str, np.ndarray]:
    """240 unweighted rows with ties, both classes in every class column, no NaN results."""
    rng = np.random.default_rng(20)
    n = 240
    if metric.scores == "proba":
        y = rng.integers(0, N_CLASSES, n)
        counts = rng.integers(1, 5, (n, N_CLASSES)).astype(float)
        counts[np.arange(n), y] += 2
        return {"y_true": y, "y_score": counts / counts.sum(axis=1, keepdims=True)}
    y = (rng.random(n) < 0.4).astype(int)
    columns = {"y_true": y, "y_score": np.round(rng.random(n) + 0.4 * y, 1)}
    if metric.scores == "paired":
        columns["score_b"] = np.round(rng.random(n) + 0.2 * y, 1)
    elif metric.scores == "grouped":
        columns["group"] = rng.integers(0, 6, n)
    return columns


def _requests(metric: Metric) -> list[tuple[dict, dict]]:
    """(options, dask.config settings) of requests that differ from the entry's own."""
    return [(options, {}) for options in metric.variants] + [
        ({}, config) for config in CONFIG_VARIANTS
    ]


def _lazy(metric: Metric, inputs: dict, options: dict, config: dict) -> dask_auc.LazyScore:
    with dask.config.set(config):
        return metric.run(inputs, compute=False, **options)


def _same(metric: Metric, got, want) -> None:
    """The same result to the last bit: the same graph, computed alone or beside another."""
    metric.compare(metric.plain(got), metric.plain(want), exact=True)
    for name, values in metric.plain(got).items():
        np.testing.assert_array_equal(values, metric.plain(want)[name], err_msg=name)


def test_every_entry_names_variants_or_takes_no_options() -> None:
    """A registry entry lists the options that change its result (these two take none)."""
    without = [name for name, metric in REGISTRY.items() if not metric.variants]
    assert without == ["delong_test", "metric_at_thresholds-matthews_corrcoef"]
    assert len(REGISTRY) > 30


@every_metric
def test_requests_differing_in_one_parameter_computed_together(metric: Metric) -> None:
    """Requests differing in one parameter, computed in one graph, give what each gives alone."""
    layout = metric.layouts[0]
    inputs = dask_inputs(_columns(metric), CUTS, layout)
    requests = [({}, {}), *_requests(metric)]
    lazies, alone = [], []
    for options, config in requests:
        lazies.append(_lazy(metric, inputs, options, config))
        with dask.config.set(config):
            alone.append(lazies[-1].compute())
    # all in one graph: tasks of two requests sharing a name would leave one version in
    # the merged graph, and a request whose task was replaced would give another answer
    # than alone
    together = dask_auc.compute(*lazies)
    for got, want in zip(together, alone, strict=True):
        _same(metric, got, want)


def test_the_reported_collision_gives_sklearns_auc() -> None:
    """The issue's reproduction: a default and a ``split_every=2`` AUC of one filtered frame."""
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(0)
    n = 3000
    y = (rng.random(n) < 0.3).astype(int)
    s = np.round(rng.random(n) + 0.4 * y, 3)
    d = dd.from_pandas(pd.DataFrame({"y": y, "s": s}), npartitions=8)
    d = d[d.s >= 0]
    expected = sklearn_metrics.roc_auc_score(y, s)
    a = dask_auc.roc_auc_score(d.y, d.s, compute=False)
    b = dask_auc.roc_auc_score(d.y, d.s, split_every=2, compute=False)
    assert dask_auc.compute(a, b) == (expected, expected)
    assert dask_auc.compute(b, a) == (expected, expected)
    assert set(a.__dask_keys__()) != set(b.__dask_keys__())


def test_equal_requests_share_their_tasks() -> None:
    """Content-addressed keys: the same request built twice is the same graph (one sort)."""
    y = np.array([0, 1, 1, 0, 1, 0, 1, 1])
    s = np.array([0.1, 0.9, 0.4, 0.4, 0.8, 0.2, 0.4, 0.7])
    frame = dd.from_pandas(pd.DataFrame({"y": y, "s": s}), npartitions=3)
    first = dask_auc.roc_auc_score(frame.y, frame.s, compute=False)
    second = dask_auc.roc_auc_score(frame.y, frame.s, compute=False)
    assert first.__dask_keys__() == second.__dask_keys__()
    assert dict(first.__dask_graph__()).keys() == dict(second.__dask_graph__()).keys()


@pytest.mark.cluster
def test_a_held_future_does_not_answer_another_request(client) -> None:
    """On a real cluster, a future of one request held by a caller never answers another.

    Before, ``client.compute(lazy.parts())`` of a ``split_every=2`` AUC made a
    later plain ``roc_auc_score`` on the same client return the wrong number
    (the scheduler kept the held tasks and logged "Detected different run_spec").
    One entry per graph builder (``HELD_ENTRIES``): hold a future of a variant, then
    compute the entry's own request on the cluster; it must equal its threaded result.
    """
    distributed = pytest.importorskip("distributed")
    threaded = {}
    built = {}
    entries = {name: REGISTRY[name] for name in HELD_ENTRIES}
    for name, metric in entries.items():
        inputs = dask_inputs(_columns(metric), HELD_CUTS, metric.layouts[0])
        built[name] = inputs
        threaded[name] = metric.run(inputs, compute=False).compute(scheduler="threads")
    # on the shared process cluster (conftest.py's ``client``): every entry's variants held
    # at once (one round trip), then every entry's own request in one compute: each must be
    # its own answer, not a held variant's
    held = client.compute(
        [
            _lazy(metric, built[name], options, config).parts()
            for name, metric in entries.items()
            for options, config in _requests(metric)[:1] + [({}, CONFIG_VARIANTS[0])]
        ]
    )
    distributed.wait(held)
    lazies = [metric.run(built[name], compute=False) for name, metric in entries.items()]
    results = dask_auc.compute(*lazies)
    for (name, metric), result in zip(entries.items(), results, strict=True):
        _same(metric, result, threaded[name])
    client.cancel(held)
