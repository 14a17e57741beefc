"""The ROC object (issue 21): one sort per input, every binary metric a query on it.

* every method equals the function of the same meaning, bit for bit, lazy or
  persisted, weighted or not, with a ``pos_label`` or without;
* label errors are the functions' own (raised by each query's finish);
* any two binary metrics of one input, computed together, share one sort:
  checked on the graph for every pair of registry entries;
* ``repr`` computes nothing; ``persist`` keeps the buckets, and on a real
  cluster survives a killed worker.
"""

from __future__ import annotations

import itertools
import warnings

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask.highlevelgraph import HighLevelGraph
from sklearn import metrics as skm

import dask_auc
from dask_auc._engine.fusion import kind_of
from dask_auc._engine.lazy import LazyScore
from metric_registry import PERSISTED_SUFFIX, REGISTRY, dask_inputs

RNG = np.random.default_rng(21)
N = 600
CUTS = [0, 40, 40, 170, 333, 420, 600]


def _frame(weighted: bool, labels: np.ndarray | None = None) -> dd.DataFrame:
    y = (RNG.random(N) < 0.35).astype(int) if labels is None else labels
    data = {"y": y, "s": np.round(RNG.random(N) + 0.3 * (y == np.unique(y)[-1]), 2)}
    if weighted:
        data["w"] = np.where(RNG.random(N) < 0.1, 0.0, np.round(RNG.random(N) * 3, 3))
    return dd.from_pandas(pd.DataFrame(data), npartitions=5)


#: (function, method, keyword arguments both take) of every binary query
QUERIES = [
    (dask_auc.roc_auc_score, "auc", {}),
    (dask_auc.roc_auc_score, "auc", {"max_fpr": 0.25}),
    (dask_auc.partial_roc_auc_score, "partial_auc", {"fpr_range": (0.1, 0.5)}),
    (dask_auc.partial_roc_auc_score, "partial_auc", {"tpr_range": (0.2, 0.9)}),
    (dask_auc.average_precision_score, "average_precision", {}),
    (dask_auc.roc_curve, "roc_curve", {}),
    (dask_auc.roc_curve, "roc_curve", {"drop_intermediate": False, "max_points": 7}),
    (dask_auc.precision_recall_curve, "precision_recall_curve", {"drop_intermediate": True}),
    (dask_auc.det_curve, "det_curve", {"drop_intermediate": True}),
    (dask_auc.confusion_matrix_at_thresholds, "confusion_matrix_at_thresholds", {}),
    (dask_auc.ks_statistic, "ks", {}),
    (dask_auc.operating_point, "operating_point", {"fpr": 0.2}),
    (dask_auc.operating_point, "operating_point", {"criterion": "youden"}),
    (dask_auc.gains_table, "gains_table", {"n_bins": 4}),
    (dask_auc.roc_auc_ci, "ci", {"confidence_level": 0.9}),
]
QUERY_IDS = [
    f"{method}-{'-'.join(map(str, kw.values())) or 'default'}" for _, method, kw in QUERIES
]


def _plain(result):
    """A result as a tuple of arrays (float, curve, NamedTuple or DataFrame)."""
    if isinstance(result, pd.DataFrame):
        return tuple(result.reset_index().to_numpy().T)
    if isinstance(result, tuple):
        return tuple(np.asarray(v, dtype=object if v is None else None) for v in result)
    return (np.asarray(result),)


def _assert_identical(got, want) -> None:
    got, want = _plain(got), _plain(want)
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype


@pytest.mark.parametrize("function, method, options", QUERIES, ids=QUERY_IDS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("persisted", [False, True])
def test_each_method_is_its_function_bit_for_bit(function, method, options, weighted, persisted):
    """The method and the function give the same bits, from a lazy or a persisted ROC."""
    if weighted and method == "ci":
        pytest.skip("DeLong's interval takes no weights (tested below)")
    frame = _frame(weighted)
    weight = frame.w if weighted else None
    expected = function(frame.y, frame.s, sample_weight=weight, **options)
    curve = dask_auc.roc(frame.y, frame.s, sample_weight=weight)
    if persisted:
        curve = curve.persist()
    _assert_identical(getattr(curve, method)(**options), expected)
    lazy = getattr(curve, method)(compute=False, **options)
    assert isinstance(lazy, dask_auc.LazyScore)
    _assert_identical(lazy.compute(), expected)


@pytest.mark.parametrize("pos_label", [0, 1])
def test_pos_label_picks_the_positive_class_of_every_query(pos_label):
    """``roc(..., pos_label=k)``: each curve query is the function's with ``pos_label=k``."""
    frame = _frame(False)
    curve = dask_auc.roc(frame.y, frame.s, pos_label=pos_label).persist()
    for function, method, options in QUERIES:
        if method in ("auc", "partial_auc", "ci"):
            continue  # no pos_label: checked against the flipped labels below
        expected = function(frame.y, frame.s, pos_label=pos_label, **options)
        _assert_identical(getattr(curve, method)(**options), expected)
    flipped = (frame.y == pos_label).astype(int)
    assert curve.auc() == dask_auc.roc_auc_score(flipped, frame.s)
    assert curve.ci() == dask_auc.roc_auc_ci(flipped, frame.s)


def test_a_multiclass_target_with_a_pos_label_is_one_vs_rest():
    """Three labels and ``pos_label``: the curves treat every other label as negative."""
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    labels = RNG.integers(0, 3, N)
    frame = _frame(False, labels)
    curve = dask_auc.roc(frame.y, frame.s, pos_label=2)
    y, s = frame.y.compute().to_numpy(), frame.s.compute().to_numpy()
    for got, want in zip(
        curve.roc_curve(drop_intermediate=False),
        sklearn_metrics.roc_curve(y, s, pos_label=2, drop_intermediate=False),
        strict=True,
    ):
        np.testing.assert_array_equal(got, want)
    assert curve.auc() == dask_auc.roc_auc_score((y == 2).astype(int), s)
    with pytest.raises(ValueError, match=r"multi_class must be in \('ovo', 'ovr'\)"):
        dask_auc.roc(frame.y, frame.s).auc()


@pytest.mark.parametrize(
    "labels, method, message",
    [
        (np.array(["a", "b"] * (N // 2)), "roc_curve", "y_true takes value in {'a', 'b'}"),
        (np.array([0, 2] * (N // 2)), "ks", "y_true takes value in {0, 2}"),
        (np.arange(N) % 3, "roc_curve", "multiclass format is not supported"),
        (np.arange(N) % 3, "average_precision", "needs to be of shape"),
        (np.arange(N) % 3, "auc", r"multi_class must be in \('ovo', 'ovr'\)"),
    ],
)
def test_label_errors_are_the_functions(labels, method, message):
    """The same error from the query as from the function, before any number."""
    frame = _frame(False, labels)
    function = {
        "roc_curve": dask_auc.roc_curve,
        "ks": dask_auc.ks_statistic,
        "average_precision": dask_auc.average_precision_score,
        "auc": dask_auc.roc_auc_score,
    }[method]
    with pytest.raises(ValueError, match=message):
        function(frame.y, frame.s)
    with pytest.raises(ValueError, match=message):
        getattr(dask_auc.roc(frame.y, frame.s), method)()


def test_string_labels_give_the_greater_one_an_auc():
    """Two string labels: the AUC takes the greater as positive, as roc_auc_score does."""
    labels = np.where(RNG.random(N) < 0.4, "spam", "ham")
    frame = _frame(False, labels)
    curve = dask_auc.roc(frame.y, frame.s)
    assert curve.auc() == dask_auc.roc_auc_score(frame.y, frame.s)
    spam = dask_auc.roc(frame.y, frame.s, pos_label="spam")
    assert spam.average_precision() == dask_auc.average_precision_score(
        frame.y, frame.s, pos_label="spam"
    )
    with pytest.raises(ValueError, match="pos_label=1 is not a valid label"):
        curve.average_precision()


@pytest.mark.parametrize("weighted", [False, True])
def test_average_precision_of_a_roc_without_pos_label_is_of_label_one(weighted):
    """Labels {1, 2}: the ROC's positive is 2 (the AUC's rule), AP's default class is 1.

    The ROC answers AP's class from the same points (the counts exchanged):
    bit for bit the AP of a ROC whose positive class is 1, equal to
    scikit-learn's, and the function shares the sort and summaries of the
    input's other metrics.
    """
    frame = _frame(weighted, np.where(RNG.random(N) < 0.4, 2, 1))
    w = frame.w if weighted else None
    data = frame.compute()
    expected = skm.average_precision_score(
        data.y, data.s, sample_weight=None if w is None else data.w
    )
    curve = dask_auc.roc(frame.y, frame.s, sample_weight=w)
    got = curve.average_precision()
    assert got == dask_auc.roc(frame.y, frame.s, pos_label=1, sample_weight=w).average_precision()
    assert got == dask_auc.average_precision_score(frame.y, frame.s, sample_weight=w)
    assert got == pytest.approx(expected, rel=1e-12)
    assert curve.auc() == pytest.approx(
        skm.roc_auc_score(data.y, data.s, sample_weight=None if w is None else data.w), rel=1e-12
    )
    lazies = [
        dask_auc.roc_auc_score(frame.y, frame.s, sample_weight=w, compute=False),
        dask_auc.average_precision_score(frame.y, frame.s, sample_weight=w, compute=False),
    ]
    assert len(_tasks(lazies, "auc-summary-")) == 1


def test_one_class_warns_as_the_functions_do():
    frame = _frame(False, np.zeros(N, dtype=int))
    curve = dask_auc.roc(frame.y, frame.s).persist()
    with pytest.warns(dask_auc.UndefinedMetricWarning, match="Only one class"):
        assert np.isnan(curve.auc())
    with pytest.warns(dask_auc.UndefinedMetricWarning, match="No positive samples"):
        curve.roc_curve()


def test_weighted_roc_refuses_delongs_interval():
    frame = _frame(True)
    with pytest.raises(ValueError, match="sample_weight is not supported for DeLong"):
        dask_auc.roc(frame.y, frame.s, sample_weight=frame.w).ci()


def test_bad_parameters_raise_the_functions_errors():
    frame = _frame(False)
    curve = dask_auc.roc(frame.y, frame.s)
    with pytest.raises(dask_auc.InvalidParameterError, match="'max_fpr' parameter of roc_auc"):
        curve.auc(max_fpr=2)
    with pytest.raises(dask_auc.InvalidParameterError, match="'max_points' parameter of roc_c"):
        curve.roc_curve(max_points=1)
    with pytest.raises(ValueError, match="operating_point needs exactly one of"):
        curve.operating_point()
    with pytest.raises(dask_auc.InvalidParameterError, match="'pos_label' parameter of roc"):
        dask_auc.roc(frame.y, frame.s, pos_label=[1])


class ComputedWhileBuilding(Exception):
    pass


def _refuse_to_compute(dsk, keys, **kwargs):
    raise ComputedWhileBuilding(f"asked to compute {keys!r}")


def test_building_and_repr_compute_nothing():
    frame = _frame(False)
    with dask.config.set(scheduler=_refuse_to_compute):
        curve = dask_auc.roc(frame.y, frame.s)
        lazies = [getattr(curve, m)(compute=False, **kw) for _, m, kw in QUERIES]
        text = repr(curve)
    assert text.startswith("ROC(rows=600, positives=?, buckets=")
    assert text.endswith("persisted=False)")
    assert all(isinstance(lazy, dask_auc.LazyScore) for lazy in lazies)
    curve.persist()
    assert repr(curve).startswith(f"ROC(rows=600, positives={int(frame.y.sum().compute())},")


def _tasks(lazies, prefix: str) -> set:
    """Distinct task names ``<prefix><token>`` in the merged graphs of ``lazies``.

    Only the token may follow the prefix: ``auc-bucket-`` names the buckets,
    not the task listing their sources (``auc-bucket-sources-<token>``).
    """
    names = set()
    for lazy in lazies:
        for key in dict(lazy.__dask_graph__()):
            name = key[0] if isinstance(key, tuple) else key
            if name.startswith(prefix) and "-" not in name.removeprefix(prefix):
                names.add(name)
    return names


# the binary metrics that sort (calibration metrics are binary but read each row alone)
BINARY = {
    name: m
    for name, m in REGISTRY.items()
    if m.scores == "binary" and m.sorts and not name.endswith(PERSISTED_SUFFIX)
}
_COLUMNS = {"y_true": (RNG.random(N) < 0.3).astype(int), "y_score": np.round(RNG.random(N), 2)}
_INPUTS = dask_inputs(_COLUMNS, CUTS, "frame")


@pytest.mark.parametrize(
    "first, second",
    list(itertools.combinations(BINARY, 2)),
    ids=[f"{a}+{b}" for a, b in itertools.combinations(BINARY, 2)],
)
def test_two_metrics_of_one_input_share_one_sort(first: str, second: str):
    """Any two binary registry metrics of one input: one sample, plan, split and bucket set.

    The sort layer's names hash its input blocks' keys: one ``auc-meta`` name
    means one set of prepared blocks.
    """
    lazies = [BINARY[name].run(_INPUTS, compute=False) for name in (first, second)]
    for prefix in ("auc-meta-", "auc-plan-", "auc-split-", "auc-bucket-"):
        assert len(_tasks(lazies, prefix)) == 1, prefix


def test_every_binary_metric_computed_together_gives_its_own_answer():
    """All binary registry metrics of one input in one ``dask_auc.compute``: one sort."""
    lazies = [metric.run(_INPUTS, compute=False) for metric in BINARY.values()]
    assert len(_tasks(lazies, "auc-split-")) == 1
    for metric, got in zip(BINARY.values(), dask_auc.compute(*lazies), strict=True):
        metric.compare(metric.plain(got), metric(_INPUTS), exact=True)


def test_ten_metrics_computed_together_sort_once():
    """The issue's ten metrics as ``compute=False``, then one ``dask_auc.compute``: one sort."""
    frame = _frame(False)
    y, s = frame.y, frame.s
    lazies = [
        dask_auc.roc_auc_score(y, s, compute=False),
        dask_auc.roc_auc_score(y, s, max_fpr=0.1, compute=False),
        dask_auc.average_precision_score(y, s, compute=False),
        dask_auc.roc_curve(y, s, max_points=50, compute=False),
        dask_auc.precision_recall_curve(y, s, compute=False),
        dask_auc.det_curve(y, s, compute=False),
        dask_auc.confusion_matrix_at_thresholds(y, s, max_points=50, compute=False),
        dask_auc.ks_statistic(y, s, compute=False),
        dask_auc.operating_point(y, s, fpr=0.1, compute=False),
        dask_auc.gains_table(y, s, compute=False),
    ]
    assert len(_tasks(lazies, "auc-split-")) == 1
    # one label choice, one set of summaries and of placed points (AP's default class 1 is
    # answered by the same ROC as the others)
    for layer in ("auc-positive-", "auc-summary-", "curve-placed-points-"):
        assert len(_tasks(lazies, layer)) == 1, layer
    results = dask_auc.compute(*lazies)
    assert results[0] == dask_auc.roc_auc_score(y, s)
    # their readers of the shared points fused (:mod:`dask_auc._engine.fusion`): each alone's
    assert repr(list(results)) == repr([lazy.compute() for lazy in lazies])


def _readers(lazies) -> dict:
    """Each placed-points key of the lazies' optimized merged graph, and the tasks reading it."""
    parts = [lazy.parts() for lazy in lazies]
    merged = HighLevelGraph.merge(*(part.__dask_graph__() for part in parts))
    graph = dict(LazyScore.__dask_optimize__(merged, [part.__dask_keys__() for part in parts]))
    readers: dict = {}
    for key in graph:
        for dependency in dask.core.get_dependencies(graph, key):
            if kind_of(dependency[0]) == "curve-placed-points":
                readers.setdefault(dependency, []).append(key)
    return readers


def test_queries_computed_together_read_each_buckets_points_in_one_task():
    """Several queries of one ROC in one compute: a bucket's points have one reader task.

    Otherwise ``dask.order`` runs the queries one after the other over every
    bucket, and all the buckets' points (24 bytes a distinct score) stay in
    memory until the last query has read them.  The answers are those of
    each query computed alone, whichever order the queries are asked in.
    """
    frame = _frame(False)
    with dask.config.set({"dask-auc.buckets": 4}):
        curve = dask_auc.roc(frame.y, frame.s)

    def asked():
        return [
            curve.average_precision(compute=False),
            curve.ks(compute=False),
            curve.roc_curve(max_points=50, compute=False),
            curve.operating_point(fpr=0.1, compute=False),
        ]

    readers = _readers(asked())
    assert len(readers) > 1  # buckets
    assert all(len(tasks) == 1 for tasks in readers.values()), readers
    assert readers == _readers(asked()[::-1])  # the same fused task, named alike
    together = dask_auc.compute(*asked())
    alone = [lazy.compute() for lazy in asked()]
    assert repr(list(together)) == repr(alone)
    # a query alone keeps its own reader tasks (nothing to fuse)
    alone_readers = list(_readers([curve.ks(compute=False)]).values())
    assert alone_readers and {kind_of(r[0]) for (r,) in alone_readers} == {"bucket-ks"}


@pytest.mark.cluster
def test_a_persisted_roc_survives_a_killed_worker():
    """On a 2-process cluster: persist, restart the worker holding most buckets, same answers.

    Unweighted, the answers are exact, so equal to the bit; weighted ones are
    float sums whose last bits may follow the memory layout of the recomputed
    arrays, so within the README's relative 1e-12.
    """
    distributed = pytest.importorskip("distributed")
    frame = _frame(True)
    expected = {
        "auc": dask_auc.roc_auc_score(frame.y, frame.s),
        "ks": dask_auc.ks_statistic(frame.y, frame.s),
        "curve": dask_auc.roc_curve(frame.y, frame.s),
        "weighted": dask_auc.roc_auc_score(frame.y, frame.s, sample_weight=frame.w),
    }
    from clusters import two_worker_processes  # forked workers: the restart takes a second

    with (
        dask.config.set({"dask-auc.buckets": 4}),
        two_worker_processes() as cluster,
        distributed.Client(cluster) as client,
    ):
        curve = dask_auc.roc(frame.y, frame.s).persist()
        weighted = dask_auc.roc(frame.y, frame.s, sample_weight=frame.w).persist()
        distributed.wait(list(dict(curve._sort.graph.graph()).values()))
        distributed.wait(list(dict(weighted._sort.graph.graph()).values()))
        assert curve.auc() == expected["auc"]
        held = client.has_what()
        victim = max(held, key=lambda address: len(held[address]))
        assert held[victim]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the scheduler's notices of the lost keys
            client.restart_workers(workers=[victim])
        client.wait_for_workers(2, timeout=60)
        assert curve.auc() == expected["auc"]
        assert curve.ks() == expected["ks"]
        _assert_identical(curve.roc_curve(), expected["curve"])
        assert weighted.auc() == pytest.approx(expected["weighted"], rel=1e-12)
