"""Multi-class roc_auc_score (one-vs-rest, one-vs-one, micro) against scikit-learn."""

from __future__ import annotations

import re
import warnings

import dask
import dask.array as da
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning as SklearnUndefinedMetricWarning
from sklearn.metrics import roc_auc_score as sklearn_auc

import dask_auc
from references import record_all_warnings
from strategies import boundaries, dask_frame

TARGETS = [
    ("ovr", "macro"),
    ("ovr", "weighted"),
    ("ovr", "micro"),
    ("ovr", None),
    ("ovo", "macro"),
    ("ovo", "weighted"),
]


def _probabilities(rng, n, k, decimals=None):
    p = rng.dirichlet(np.ones(k), n)
    if decimals is not None:  # heavy ties, still summing to 1 within allclose
        p = np.round(p, decimals)
        p[:, -1] = 1 - p[:, :-1].sum(axis=1)
    return p


def _rows(seed, n, k, decimals=None, every_class=True):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    if every_class:
        y[:k] = np.arange(k)
    return y, _probabilities(rng, n, k, decimals)


def _close(result, expected):
    np.testing.assert_allclose(result, expected, rtol=0, atol=1e-12)


def _chunked(values, cuts):
    sizes = tuple(int(b - a) for a, b in zip(cuts[:-1], cuts[1:], strict=True))
    return da.from_array(values, chunks=(sizes,) + values.shape[1:])


@given(
    st.integers(0, 2**32 - 1),
    st.integers(3, 6),
    st.sampled_from([None, 1, 2]),
    st.sampled_from(TARGETS),
    st.data(),
)
@settings(max_examples=10)
def test_dask_array_matches_sklearn_for_any_partitioning(seed, k, decimals, target, data):
    multi_class, average = target
    y, p = _rows(seed, data.draw(st.integers(k, 80)), k, decimals)
    cuts = data.draw(boundaries(len(y), max_parts=6))
    buckets = data.draw(st.sampled_from([None, 1, 3]))
    with dask.config.set({"dask-auc.buckets": buckets}):
        result = dask_auc.roc_auc_score(
            _chunked(y, cuts), _chunked(p, cuts), multi_class=multi_class, average=average
        )
    _close(result, sklearn_auc(y, p, multi_class=multi_class, average=average))


@pytest.mark.parametrize("multi_class, average", TARGETS)
def test_dask_dataframe_columns_with_several_partitions(multi_class, average):
    y, p = _rows(1, 3000, 4, decimals=2)
    columns = {"label": y, **{f"p{c}": p[:, c] for c in range(4)}}
    frame = dask_frame(columns, [0, 700, 700, 1500, 2999, 3000])
    scores = frame[["p0", "p1", "p2", "p3"]]
    result = dask_auc.roc_auc_score(
        frame["label"], scores, multi_class=multi_class, average=average
    )
    _close(result, sklearn_auc(y, p, multi_class=multi_class, average=average))


@pytest.mark.parametrize("average", ["macro", "weighted", "micro", None])
def test_one_vs_rest_with_sample_weights(average):
    y, p = _rows(2, 2000, 3, decimals=1)
    w = np.random.default_rng(3).choice([0.0, 0.5, 1.0, 2.5], size=len(y))
    expected = sklearn_auc(y, p, multi_class="ovr", average=average, sample_weight=w)
    cuts = [0, 10, 1000, 2000]
    result = dask_auc.roc_auc_score(
        _chunked(y, cuts),
        _chunked(p, cuts),
        multi_class="ovr",
        average=average,
        sample_weight=_chunked(w, cuts),
    )
    _close(result, expected)


def test_in_memory_inputs_string_labels_and_labels_parameter():
    y, p = _rows(4, 400, 3, decimals=2)
    names = np.array(["ant", "bee", "cat"], dtype=object)[y]
    for kwargs in [dict(multi_class="ovr"), dict(multi_class="ovo", average="weighted")]:
        expected = sklearn_auc(names, p, **kwargs)
        _close(dask_auc.roc_auc_score(names, p, **kwargs), expected)
        _close(dask_auc.roc_auc_score(list(names), pd.DataFrame(p), **kwargs), expected)
        labels = ["ant", "bee", "cat"]
        _close(dask_auc.roc_auc_score(pd.Series(names), p, labels=labels, **kwargs), expected)


def test_two_score_columns_with_three_classes_raise_like_sklearn():
    y = np.array([0, 1, 2, 1])
    p = np.array([[0.5, 0.5], [0.2, 0.8], [0.3, 0.7], [1.0, 0.0]])
    _same_error_as_sklearn(y, p, multi_class="ovr")


def test_binary_target_with_three_columns_needs_labels():
    y, p = _rows(5, 300, 3)
    y = np.where(y == 2, 1, y)
    _same_error_as_sklearn(y, p, multi_class="ovr")
    for multi_class, average in TARGETS:
        kwargs = dict(multi_class=multi_class, average=average, labels=[0, 1, 2])
        with warnings.catch_warnings(record=True) as expected_warnings:
            record_all_warnings()
            expected = sklearn_auc(y, p, **kwargs)
        if any(issubclass(w.category, SklearnUndefinedMetricWarning) for w in expected_warnings):
            with pytest.warns(dask_auc.UndefinedMetricWarning, match="Only one class"):
                result = dask_auc.roc_auc_score(y, p, **kwargs)
        else:
            result = dask_auc.roc_auc_score(y, p, **kwargs)
        _close(result, expected)


def _same_error_as_sklearn(y, p, **kwargs):
    with pytest.raises(Exception) as expected, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sklearn_auc(y, p, **kwargs)
    pattern = re.escape(str(expected.value))
    with pytest.raises(type(expected.value), match=pattern):
        dask_auc.roc_auc_score(y, p, **kwargs)
    cuts = [0, 1, 1, len(y)]
    with pytest.raises(type(expected.value), match=pattern):
        weights = kwargs.pop("sample_weight", None)
        if weights is not None:
            kwargs["sample_weight"] = _chunked(np.asarray(weights), cuts)
        yd, pd_ = _chunked(np.asarray(y), cuts), _chunked(np.asarray(p), cuts)
        dask_auc.roc_auc_score(yd, pd_, **kwargs)


Y3 = np.array([0, 1, 2, 2, 1, 0])
P3 = np.array(
    [
        [0.6, 0.2, 0.2],
        [0.1, 0.7, 0.2],
        [0.2, 0.2, 0.6],
        [0.3, 0.3, 0.4],
        [0.5, 0.4, 0.1],
        [0.4, 0.4, 0.2],
    ]
)


@pytest.mark.parametrize(
    "y, p, kwargs",
    [
        (Y3, P3, dict()),  # multi_class='raise'
        (Y3, P3, dict(multi_class="ovr", max_fpr=0.5)),
        (Y3, P3, dict(multi_class="ovr", average="samples")),
        (Y3, P3, dict(multi_class="ovo", average="micro")),
        (Y3, P3, dict(multi_class="ovo", average=None)),
        (Y3, P3, dict(multi_class="ovr", labels=[0, 1, 1])),
        (Y3, P3, dict(multi_class="ovr", labels=[0, 2, 1])),
        (Y3, P3, dict(multi_class="ovr", labels=[0, 1, 2, 3])),
        (Y3, P3, dict(multi_class="ovr", labels=[0, 1, 3])),
        (Y3, P3, dict(multi_class="ovo", sample_weight=np.ones(6))),
        (Y3, P3 * 2, dict(multi_class="ovr")),
        (Y3, np.where(P3 == 0.7, np.nan, P3), dict(multi_class="ovr")),
        (Y3, P3[:, :2] / P3[:, :2].sum(axis=1, keepdims=True), dict(multi_class="ovr")),
        (np.array([0, 1, 1, 0, 1, 0]), P3[:, :2] / P3[:, :2].sum(axis=1, keepdims=True), dict()),
        (np.array([0, 1, 3, 2, 1, 0]), P3, dict(multi_class="ovo")),
        (Y3 + 0.5, P3, dict(multi_class="ovr")),
    ],
    ids=[
        "raise",
        "max_fpr",
        "samples",
        "ovo-micro",
        "ovo-None",
        "labels-unique",
        "labels-ordered",
        "labels-count",
        "labels-missing",
        "ovo-weights",
        "not-probabilities",
        "nan",
        "two-columns-3-classes",
        "binary-two-columns",
        "classes-vs-columns",
        "continuous",
    ],
)
def test_errors_are_sklearns(y, p, kwargs):
    _same_error_as_sklearn(y, p, **kwargs)


def test_one_graph_one_sort_per_column_and_lazy():
    y, p = _rows(6, 1000, 4)
    yd, pd_ = _chunked(y, [0, 300, 600, 1000]), _chunked(p, [0, 300, 600, 1000])
    for multi_class, plans in [("ovo", 4), ("ovr", 4)]:
        lazy = dask_auc.roc_auc_score(yd, pd_, multi_class=multi_class, compute=False)
        assert isinstance(lazy, dask_auc.LazyScore)
        keys = dict(lazy.__dask_graph__()).keys()
        sorts = {k[0] for k in keys if isinstance(k, tuple) and str(k[0]).startswith("auc-plan-")}
        assert len(sorts) == plans  # one sample sort per score column, for every pair
        _close(lazy.compute(), sklearn_auc(y, p, multi_class=multi_class))
    micro = dask_auc.roc_auc_score(yd, pd_, multi_class="ovr", average="micro", compute=False)
    (total,) = dask.compute(micro)
    _close(total, sklearn_auc(y, p, multi_class="ovr", average="micro"))
