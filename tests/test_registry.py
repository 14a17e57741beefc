"""The registry of binary queries (``dask_auc._roc.registry``) against what it declares.

Every entry names a public function and a ``ROC`` method: both exist and take
its parameters, both answer with its result type and the same value, its
bootstrap metrics answer ``bootstrap_ci(metric=...)`` with the value of the
query itself, and the tests' metric registry runs every entry (as a function
and as a persisted ROC's method) and every bootstrap metric.  A new entry
without them fails here.
"""

from __future__ import annotations

import inspect
import math
import sys

import numpy as np
import pandas as pd
import pytest

import dask_auc
from dask_auc._roc import BOOTSTRAP_METRICS, BY_METHOD, QUERIES, ROC, answer
from metric_registry import REGISTRY, ROC_QUERIES

#: the function's keywords a ROC method does not take: its class is the ROC's, and the
#: multi-class and multilabel averages are the function's own (a ROC is of one binary input)
FUNCTION_ONLY = {"pos_label", "average", "multi_class"}
#: the method's keywords a function does not take: roc_auc_ci's bootstrap is always of the
#: AUC, its interval the percentile one (ROC.ci(method="bootstrap") takes any metric's)
METHOD_BOOTSTRAP = {"metric", "interval"}
#: the method's keywords with no constraint in the table: passed to the bootstrap as they are
METHOD_ONLY = {"random_state", "groups"}

#: options making each query answer (the others take their defaults)
OPTIONS = {"operating_point": {"fpr": 0.5}, "partial_roc_auc_score": {"fpr_range": (0, 0.5)}}

Y = np.array([0, 0, 1, 1, 0, 1, 1, 0, 1, 0])
S = np.array([0.1, 0.4, 0.35, 0.8, 0.4, 0.9, 0.2, 0.55, 0.55, 0.3])


def keywords(func) -> set[str]:
    return {
        name
        for name, p in inspect.signature(func).parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    }


@pytest.mark.parametrize("function", sorted(QUERIES))
def test_each_entry_is_a_roc_method_taking_its_parameters(function):
    query = QUERIES[function]
    method = getattr(ROC, query.method)
    assert BY_METHOD[query.method] is query
    table, taken = set(query.parameters), keywords(method)
    assert table - taken <= FUNCTION_ONLY, f"ROC.{query.method} lacks {table - taken}"
    assert taken - table <= METHOD_ONLY, f"ROC.{query.method} takes unchecked {taken - table}"


@pytest.mark.parametrize("function", sorted(QUERIES))
def test_each_entry_is_a_public_function_taking_its_parameters(function):
    assert function in dask_auc.__all__
    taken = set(inspect.signature(getattr(dask_auc, function)).parameters)
    assert set(QUERIES[function].parameters) - METHOD_BOOTSTRAP <= taken


@pytest.mark.parametrize("function", sorted(QUERIES))
def test_function_and_method_give_the_entry_result_alike(function):
    query = QUERIES[function]
    options = OPTIONS.get(function, {})
    by_function = getattr(dask_auc, function)(Y, S, **options)
    by_method = getattr(dask_auc.roc(Y, S), query.method)(**options)
    assert isinstance(by_function, query.result)
    assert isinstance(by_method, query.result)
    if isinstance(by_function, pd.DataFrame):
        pd.testing.assert_frame_equal(by_function, by_method)
    elif isinstance(by_function, tuple):  # curve arrays, or a result's fields
        for a, b in zip(by_function, by_method, strict=True):
            np.testing.assert_array_equal(a, b)
    else:
        assert by_function == by_method


#: the faces that answer by themselves rather than through ``answer``: a 2-D target (multilabel,
#: multi-class) is not one binary input, and roc_auc_ci is DeLong's (``_roc/delong.py``)
SELF_ANSWERED = {"roc_auc_score", "average_precision_score", "roc_auc_ci"}
#: the ROC methods that do not forward their own parameters alone: ``auc`` adds roc_auc_score's
#: ``multi_class``, ``ci`` hands the bootstrap's parameters over unchecked
METHODS_ASKING_MORE = {"auc", "ci"}


def recorder(calls):
    def record(*args, **kwargs):
        calls.append((args, kwargs))
        return "answered"

    return record


@pytest.mark.parametrize("function", sorted(set(QUERIES) - SELF_ANSWERED))
def test_each_face_hands_answer_every_parameter_of_its_signature(function, monkeypatch):
    """A parameter added to a face's signature reaches the query (none dropped on the way)."""
    face, calls = getattr(dask_auc, function), []
    monkeypatch.setattr(sys.modules[face.__module__], "answer", recorder(calls))
    given = {name: object() for name in inspect.signature(face).parameters}
    assert face(**given) == "answered"
    [(args, kwargs)] = calls
    assert args == (function,)
    assert kwargs.keys() == given.keys()
    assert all(kwargs[name] is given[name] for name in given)
    data = {"y_true", "y_score", "y_proba", "sample_weight"}
    assert set(given) - data == set(QUERIES[function].parameters)


@pytest.mark.parametrize("method", sorted(set(BY_METHOD) - METHODS_ASKING_MORE))
def test_each_roc_method_hands_ask_every_parameter_of_its_signature(method, monkeypatch):
    calls = []
    monkeypatch.setattr(sys.modules[ROC.__module__], "ask", recorder(calls))
    bound = getattr(dask_auc.roc(Y, S), method)
    given = {name: object() for name in inspect.signature(bound).parameters}
    assert bound(**given) == "answered"
    [(args, kwargs)] = calls
    assert args[1] == method
    assert kwargs.keys() == given.keys()
    assert all(kwargs[name] is given[name] for name in given)


def test_answer_refuses_a_parameter_its_table_does_not_declare():
    with pytest.raises(KeyError, match=r"ks_statistic declares no \['max_points'\]"):
        answer(
            "ks_statistic", y_true=Y, y_score=S, sample_weight=None, pos_label=None,
            compute=True, max_points=5,
        )  # fmt: skip


#: each bootstrap metric's parameters, and its estimate by the query it replicates
ESTIMATES = {
    "roc_auc": ({"max_fpr": 0.5}, lambda r: r.auc(max_fpr=0.5)),
    "partial_auc": ({"tpr_range": (0.2, 0.7)}, lambda r: r.partial_auc(tpr_range=(0.2, 0.7))),
    "average_precision": ({}, lambda r: r.average_precision()),
    "ks": ({}, lambda r: r.ks().statistic),
    "tpr_at_fpr": ({"fpr": 0.5}, lambda r: r.operating_point(fpr=0.5).tpr),
    "fpr_at_tpr": ({"tpr": 0.6}, lambda r: r.operating_point(tpr=0.6).fpr),
}


def test_every_bootstrap_metric_has_an_estimate_check():
    assert set(ESTIMATES) == set(BOOTSTRAP_METRICS)


@pytest.mark.parametrize("metric", sorted(BOOTSTRAP_METRICS))
def test_each_bootstrap_metric_estimates_its_query(metric):
    params, estimate = ESTIMATES[metric]
    assert set(params) <= set(BOOTSTRAP_METRICS[metric].parameters)
    interval = dask_auc.bootstrap_ci(Y, S, metric=metric, n_bootstraps=5, random_state=0, **params)
    expected = estimate(dask_auc.roc(Y, S))
    assert interval.estimate == expected or math.isclose(interval.estimate, expected, rel_tol=1e-12)
    assert metric in {r.metric for query in QUERIES.values() for r in query.bootstrap}


def test_every_entry_is_in_the_tests_registry_as_function_and_persisted_method():
    functions = {name.partition("-")[0] for name in REGISTRY}
    assert set(QUERIES) <= functions
    asked = {method for method, _ in ROC_QUERIES.values()}
    assert asked == set(BY_METHOD), f"no persisted-ROC entry asks {set(BY_METHOD) - asked}"


def test_every_bootstrap_metric_is_in_the_tests_registry():
    tested = {
        name.removeprefix("bootstrap_ci-").partition("-")[0]
        for name in REGISTRY
        if name.startswith("bootstrap_ci-")
    }
    assert set(BOOTSTRAP_METRICS) <= tested, set(BOOTSTRAP_METRICS) - tested


def test_a_bootstrap_metric_refuses_another_metric_parameter():
    with pytest.raises(TypeError, match="metric='ks' takes no parameter; got fpr"):
        dask_auc.bootstrap_ci(Y, S, metric="ks", fpr=0.5, n_bootstraps=5, random_state=0)
