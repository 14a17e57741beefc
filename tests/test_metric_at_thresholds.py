"""``metric_at_thresholds`` and ``confusion_metric`` against scikit-learn 1.9.

scikit-learn calls the metric once per threshold on every row; dask-auc
evaluates it on the confusion counts at every threshold.  The arrays must be
scikit-learn's: bit for bit on unweighted data (the same arithmetic on the
same integer counts), within ``rtol=1e-12`` (plus ``atol=1e-12`` for values
near 0, e.g. a correlation) on weighted data, where the counts are float sums
in another order.  Warnings too (as sets: scikit-learn repeats them once per
threshold), except NumPy's ``RuntimeWarning`` from scikit-learn's scalar
arithmetic.  On dask DataFrame columns and dask arrays of any partitioning.
"""

from __future__ import annotations

import functools
import warnings

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import dask_auc
from references import run_and_record
from strategies import boundaries, dask_array, dask_frame
from test_sample_ranking import run_upstream, upstream_cases

RTOL = ATOL = 1e-12

# every metric with the parameter values dask-auc maps (each a scikit-learn call)
VARIANTS = [
    (skm.accuracy_score, {}),
    (skm.accuracy_score, {"normalize": False}),
    (skm.zero_one_loss, {}),
    (skm.zero_one_loss, {"normalize": False}),
    (skm.hamming_loss, {}),
    (skm.precision_score, {}),
    (skm.precision_score, {"pos_label": 0}),
    (skm.precision_score, {"pos_label": 0, "zero_division": np.nan}),
    (skm.recall_score, {}),
    (skm.recall_score, {"pos_label": 0, "zero_division": 1.0}),
    (skm.f1_score, {}),
    (skm.f1_score, {"pos_label": 0, "zero_division": 0.0}),
    (skm.fbeta_score, {"beta": 2}),
    (skm.fbeta_score, {"beta": 0.5, "labels": [0, 1]}),
    (skm.fbeta_score, {"beta": 0}),
    (skm.fbeta_score, {"beta": np.inf}),
    (skm.jaccard_score, {}),
    (skm.jaccard_score, {"pos_label": 0, "zero_division": 1}),
    (skm.balanced_accuracy_score, {}),
    (skm.balanced_accuracy_score, {"adjusted": True}),
    (skm.matthews_corrcoef, {}),
    (skm.cohen_kappa_score, {}),
    (skm.cohen_kappa_score, {"weights": "quadratic", "replace_undefined_by": -0.5}),
    (skm.cohen_kappa_score, {"weights": "linear"}),
]
VARIANT_IDS = [f"{f.__name__}-{i}" for i, (f, _) in enumerate(VARIANTS)]


def _run(function, *args, **kwargs):
    """(result or error text, warning messages but NumPy's RuntimeWarnings)."""
    return run_and_record(lambda: function(*args, **kwargs), ignore=(RuntimeWarning,))


def _assert_same(got, expected, *, exact: bool) -> None:
    (arrays, warned), (want, want_warned) = got, expected
    assert warned == want_warned
    if isinstance(want, str):
        assert arrays == want
        return
    values, thresholds = arrays
    np.testing.assert_array_equal(thresholds, want[1])
    assert thresholds.dtype == want[1].dtype
    assert values.shape == want[0].shape
    if exact:
        np.testing.assert_array_equal(values, want[0])  # NaN equal to NaN
    else:
        np.testing.assert_allclose(values, want[0], rtol=RTOL, atol=ATOL)


@st.composite
def binary_rows(draw):
    """0/1 labels (sometimes one class only, sometimes bools), tied scores, weights with zeros."""
    n = draw(st.integers(1, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    prevalence = draw(st.sampled_from([0.0, 0.1, 0.5, 1.0]))
    y = (rng.random(n) < prevalence).astype(int)
    if draw(st.booleans()):
        y = y.astype(draw(st.sampled_from([bool, float])))
    distinct = draw(st.sampled_from([1, 2, 5, 1000]))
    s = rng.integers(0, distinct, n) / distinct
    w = None
    if draw(st.booleans()):
        w = rng.choice([0.0, 0.5, 1.0, 3.0, rng.random()], size=n)
        if w.sum() == 0:
            w[0] = 1.0
    return y, s, w


def _as_dask(layout, cuts, y, s, w):
    if layout == "array":
        return tuple(None if x is None else dask_array(x, cuts) for x in (y, s, w))
    columns = {"y": y, "s": s, **({} if w is None else {"w": w})}
    frame = dask_frame(columns, cuts)
    return frame["y"], frame["s"], None if w is None else frame["w"]


@pytest.mark.parametrize("variant", range(len(VARIANTS)), ids=VARIANT_IDS)
@settings(max_examples=4, deadline=None)
@given(data=st.data())
def test_equals_sklearn(variant, data) -> None:
    """scikit-learn's arrays and warnings, on dask inputs of any partitioning."""
    metric_func, params = VARIANTS[variant]
    y, s, w = data.draw(binary_rows())
    expected = _run(
        skm.metric_at_thresholds, y, s, metric_func, sample_weight=w, metric_params=params
    )
    cuts = data.draw(boundaries(len(y)))
    layout = data.draw(st.sampled_from(["array", "frame"]))
    dy, ds, dw = _as_dask(layout, cuts, y, s, w)
    got = _run(
        dask_auc.metric_at_thresholds, dy, ds, metric_func, sample_weight=dw, metric_params=params
    )
    if metric_func is skm.matthews_corrcoef and w is not None and len(np.unique(y)) == 1:
        # one class: the coefficient is undefined, and scikit-learn's convention is 0.0 --
        # which it returns only when its float sums of the weights cancel exactly (the
        # total and the one class's total, summed in two orders, can differ by an ulp:
        # then it returns NaN or +-1 of rounding).  dask-auc's counts give 0.0 always.
        values = np.asarray(got[0][0])
        assert np.all(values == 0.0), values
        expected = ((np.zeros_like(values), expected[0][1]), expected[1])
    _assert_same(got, expected, exact=w is None)


@pytest.mark.parametrize("variant", range(len(VARIANTS)), ids=VARIANT_IDS)
@pytest.mark.parametrize(
    "y, s",
    [
        (np.zeros(5, int), np.array([0.1, 0.2, 0.3, 0.4, 0.5])),  # no positive
        (np.ones(5, int), np.array([0.1, 0.6, 0.6, 0.4, 0.5])),  # no negative
        (np.array([0, 1, 1, 0]), np.full(4, 0.3)),  # one threshold
        (np.array([1]), np.array([0.7])),  # one row
        (np.array([0, 0, 1, 1, 1]), np.array([0.1, 0.6, 0.4, 0.9, 0.4])),
    ],
)
@pytest.mark.parametrize("weights", ["none", "with zeros"])
def test_adversarial_inputs_equal_sklearn(variant, y, s, weights) -> None:
    metric_func, params = VARIANTS[variant]
    w = None if weights == "none" else np.resize([2.0, 0.0, 0.5], len(y))
    if w is not None and w.sum() == 0:
        w[0] = 1.0
    expected = _run(
        skm.metric_at_thresholds, y, s, metric_func, sample_weight=w, metric_params=params
    )
    for cuts in ([0, len(y)], [0, 0, 1, len(y), len(y)]):
        dy, ds, dw = _as_dask("frame", cuts, y, s, w)
        got = _run(
            dask_auc.metric_at_thresholds,
            dy,
            ds,
            metric_func,
            sample_weight=dw,
            metric_params=params,
        )
        _assert_same(got, expected, exact=w is None)


def test_a_filter_that_empties_partitions() -> None:
    rng = np.random.default_rng(7)
    y, s = rng.integers(0, 2, 400), rng.integers(0, 20, 400) / 20
    keep = np.zeros(400, bool)
    keep[50:120] = keep[300:310] = True
    frame = dask_frame({"y": y, "s": s, "keep": keep}, list(range(0, 401, 25)))
    kept = frame[frame["keep"]]
    got = dask_auc.metric_at_thresholds(kept["y"], kept["s"], skm.f1_score)
    expected = skm.metric_at_thresholds(y[keep], s[keep], skm.f1_score)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])


def test_many_partitions_and_a_partial() -> None:
    """1000 partitions, mostly empty; ``functools.partial`` binds parameters by keyword."""
    rng = np.random.default_rng(1000)
    n = 3000
    y, s, w = rng.integers(0, 2, n), rng.integers(0, 50, n) / 50, rng.random(n)
    cuts = [0, *np.sort(rng.integers(0, n + 1, 999)).tolist(), n]
    dy, ds, dw = _as_dask("frame", cuts, y, s, w)
    f2 = functools.partial(skm.fbeta_score, beta=2)
    got = dask_auc.metric_at_thresholds(dy, ds, f2, sample_weight=dw)
    expected = skm.metric_at_thresholds(y, s, f2, sample_weight=w)
    np.testing.assert_allclose(got[0], expected[0], rtol=RTOL)
    np.testing.assert_array_equal(got[1], expected[1])


# -- the protocol of user metrics ---------------------------------------------------------------


@dask_auc.confusion_metric
def _net_benefit(tp, fp, tn, fn, *, odds=1.0):
    return (tp - odds * fp) / (tp + fp + tn + fn)


@dask_auc.confusion_metric
def _rates(tp, fp, tn, fn):
    with np.errstate(divide="ignore", invalid="ignore"):
        return tp / (tp + fn), fp / (fp + tn)


@pytest.mark.parametrize("metric, params", [(_net_benefit, {"odds": 0.25}), (_rates, None)])
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_confusion_metric_equals_sklearn_calling_it_per_threshold(metric, params, data) -> None:
    """A confusion_metric is a scikit-learn metric too: the same arrays either way."""
    y, s, w = data.draw(binary_rows())
    expected = _run(skm.metric_at_thresholds, y, s, metric, sample_weight=w, metric_params=params)
    dy, ds, dw = _as_dask("array", data.draw(boundaries(len(y))), y, s, w)
    got = _run(
        dask_auc.metric_at_thresholds, dy, ds, metric, sample_weight=dw, metric_params=params
    )
    _assert_same(got, expected, exact=False)  # per-threshold sums of weights: ulps


def test_confusion_metric_parameter_errors_come_before_any_work() -> None:
    y = da.from_array(np.array([0, 1, 1]), chunks=1)
    with dask.config.set(scheduler=_refuse), pytest.raises(TypeError, match="unexpected keyword"):
        dask_auc.metric_at_thresholds(y, y, _net_benefit, metric_params={"odd": 2})


def test_confusion_metric_that_is_not_elementwise_is_refused() -> None:
    summed = dask_auc.confusion_metric(lambda tp, fp, tn, fn: np.sum(tp))
    with pytest.raises(ValueError, match=r"returned an array of shape \(\) for counts of shape"):
        dask_auc.metric_at_thresholds([0, 1, 1], [0.1, 0.5, 0.7], summed)


# -- what is refused, and why --------------------------------------------------------------------


@pytest.mark.parametrize(
    "metric_func",
    [skm.roc_auc_score, skm.confusion_matrix, skm.log_loss, lambda y, p: 0.0, np.mean],
)
def test_other_callables_say_why_they_cannot_scale(metric_func) -> None:
    with pytest.raises(
        TypeError,
        match="cannot compute .* at scale: it computes a metric from the confusion counts",
    ):
        dask_auc.metric_at_thresholds([0, 1], [0.2, 0.4], metric_func)


@pytest.mark.parametrize(
    "metric_func, params, error, message",
    [
        (skm.precision_score, {"average": "macro"}, ValueError, "average='binary' only"),
        (skm.f1_score, {"average": None}, ValueError, "average='binary' only"),
        (skm.cohen_kappa_score, {"labels": [0, 1]}, ValueError, "without labels"),
        (skm.accuracy_score, {"sample_weight": [1, 1]}, ValueError, "not in metric_params"),
        (functools.partial(skm.fbeta_score, [0, 1]), None, TypeError, "positional arguments"),
    ],
)
def test_parameters_that_cannot_be_mapped_are_refused(metric_func, params, error, message):
    with pytest.raises(error, match=message):
        dask_auc.metric_at_thresholds([0, 1], [0.2, 0.4], metric_func, metric_params=params)


@pytest.mark.parametrize(
    "metric_func, params",
    [
        (skm.precision_score, {"foo": 2}),  # scikit-learn's TypeError
        (skm.precision_score, {"pos_label": 2}),  # its "not a valid label"
        (skm.fbeta_score, {}),  # beta is required
        (skm.fbeta_score, {"beta": -1}),  # its parameter validation
        (skm.recall_score, {"zero_division": 2}),
        (skm.jaccard_score, {"zero_division": np.nan}),
        (skm.balanced_accuracy_score, {"adjusted": "yes"}),
    ],
)
def test_bad_parameters_raise_sklearns_own_errors(metric_func, params) -> None:
    """The metric's own validation (one call on four rows) raises scikit-learn's error."""
    y, s = np.array([0, 0, 1, 1, 1]), np.array([0.1, 0.6, 0.4, 0.9, 0.4])
    got = _run(dask_auc.metric_at_thresholds, y, s, metric_func, metric_params=params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            metric_func(y, (s >= 0.5).astype(int), **params)
        except (ValueError, TypeError) as error:
            expected = f"{type(error).__name__}: {error}"
    assert got[0] == expected


@pytest.mark.parametrize(
    "y, message",
    [
        (np.array([-1, 1, 1, -1]), "needs y_true in {0, 1} (or bool): found -1"),
        (np.array([1, 2, 2, 1]), "found 2"),
        (np.array(["a", "b", "a", "b"], dtype=object), "found a, b"),
        # the one label discovery of every metric: scikit-learn's messages for these
        (np.array([0.0, 1.0, 0.5, 1.0]), "continuous format is not supported"),
        (np.array([0.0, 1.0, np.nan, 1.0]), "Input y_true contains NaN."),
    ],
)
@pytest.mark.parametrize("layout", ["memory", "array", "frame"])
def test_labels_other_than_0_and_1_are_refused(y, message, layout) -> None:
    s = np.array([0.1, 0.4, 0.35, 0.8])
    if layout != "memory":
        y, s, _ = _as_dask(layout, [0, 2, 2, 4], y, s, None)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        dask_auc.metric_at_thresholds(y, s, skm.accuracy_score)


def test_metric_at_thresholds_shares_the_binary_metrics_sort() -> None:
    """Its counts are a query of the input's one ROC: computed beside the AUC, one sort."""
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1])
    s = np.array([0.1, 0.9, 0.4, 0.4, 0.8, 0.2, 0.6, 0.3])
    y, s, _ = _as_dask("frame", [0, 3, 3, 8], y, s, None)
    lazies = [
        dask_auc.roc_auc_score(y, s, compute=False),
        dask_auc.metric_at_thresholds(y, s, skm.f1_score, compute=False),
    ]
    splits = {
        key[0] for lazy in lazies for key in dict(lazy.__dask_graph__()) if "auc-split-" in key[0]
    }
    assert len(splits) == 1
    auc, (values, thresholds) = dask_auc.compute(*lazies)
    assert auc == dask_auc.roc_auc_score(y, s)


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {"metric_func": 3},
            "The 'metric_func' parameter of metric_at_thresholds must be a "
            "callable. Got 3 instead.",
        ),
        (
            {"metric_func": skm.f1_score, "metric_params": [1]},
            "The 'metric_params' parameter "
            "of metric_at_thresholds must be an instance of 'dict' or None. Got [1] instead.",
        ),
    ],
)
def test_parameter_errors_are_sklearns(options, message) -> None:
    y, s = np.array([0, 1]), np.array([0.2, 0.4])
    assert _run(dask_auc.metric_at_thresholds, y, s, **options)[0] == (
        f"InvalidParameterError: {message}"
    )
    assert _run(skm.metric_at_thresholds, y, s, **options)[0] == (
        f"InvalidParameterError: {message}"
    )


# -- laziness -----------------------------------------------------------------------------------


def _refuse(dsk, keys, **kwargs):
    raise AssertionError(f"computed {keys!r} while building a graph")


@pytest.mark.parametrize("layout", ["array", "frame"])
def test_compute_false_and_one_pass_with_other_metrics(layout) -> None:
    rng = np.random.default_rng(2)
    y, s = rng.integers(0, 2, 100), rng.integers(0, 9, 100) / 9
    dy, ds, _ = _as_dask(layout, [0, 30, 30, 100], y, s, None)
    with dask.config.set(scheduler=_refuse):
        lazy = dask_auc.metric_at_thresholds(dy, ds, skm.matthews_corrcoef, compute=False)
        auc = dask_auc.roc_auc_score(dy, ds, compute=False)
    assert isinstance(lazy, dask_auc.LazyScore)
    (values, thresholds), area = dask_auc.compute(lazy, auc)
    expected = skm.metric_at_thresholds(y, s, skm.matthews_corrcoef)
    np.testing.assert_array_equal(values, expected[0])
    np.testing.assert_array_equal(thresholds, expected[1])
    assert area == skm.roc_auc_score(y, s)


# -- scikit-learn's own tests -------------------------------------------------------------------

_UNSUPPORTED = (
    "an arbitrary callable (roc_auc_score, a dummy tuple metric, confusion_matrix): "
    "refused with a TypeError by design, it cannot be computed from one sort"
)


def _pinned(name, kwargs):
    func = kwargs.get("metric_func")
    if name == "test_metric_at_thresholds" and func not in (
        skm.accuracy_score,
        skm.precision_score,
    ):
        return _UNSUPPORTED
    if name in (
        "test_metric_at_thresholds_sample_weight_error",
        "test_metric_at_thresholds_consistency_with_confusion_matrix",
    ):
        return _UNSUPPORTED
    return None


@pytest.mark.parametrize(
    "module, name, kwargs",
    upstream_cases(
        "sklearn.metrics.tests.test_ranking",
        [
            "test_metric_at_thresholds",
            "test_metric_at_thresholds_sample_weight_error",
            "test_metric_at_thresholds_metric_params",
            "test_metric_at_thresholds_pos_label",
            "test_metric_at_thresholds_y_score_order",
            "test_metric_at_thresholds_y_score_order_duplicate_y_score",
            "test_metric_at_thresholds_consistency_with_confusion_matrix",
            "test_metric_at_thresholds_with_nan_outputs",
        ],
        _pinned,
    ),
)
def test_sklearn_test_ranking(module, name, kwargs, monkeypatch) -> None:
    run_upstream(
        module, name, kwargs, {"metric_at_thresholds": dask_auc.metric_at_thresholds}, monkeypatch
    )
