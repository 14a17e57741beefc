"""The threshold metrics against their references on random and adversarial data.

``confusion_matrix_at_thresholds`` and ``det_curve`` against scikit-learn;
``operating_point`` and ``gains_table`` against the brute-force scans of
``threshold_references.py`` (each candidate threshold counted from scratch).
Unweighted results must be bit-identical to the reference; weighted ones
equal within 1e-12.  ``test_invariance.py`` runs the registry's entries of
these metrics through every partitioning test besides.
"""

from __future__ import annotations

import math
import warnings

import dask
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm
from sklearn.exceptions import UndefinedMetricWarning

import dask_auc
from metric_registry import dask_inputs
from strategies import dask_array, dask_frame, scored_rows
from threshold_references import GAINS_COLUMNS, gains_reference, operating_point_reference

RTOL = 1e-12
#: weighted counts summed in another order than scikit-learn's leave a few ulps where the
#: exact value is 0 (``fns`` at the point holding every positive)
WEIGHTED_ZERO = 1e-12
TARGETS = [
    ("fpr", 0.0),
    ("fpr", 0.25),
    ("fpr", 1.0),
    ("tpr", 0.0),
    ("tpr", 0.5),
    ("tpr", 1.0),
    ("precision", 0.5),
    ("precision", 0.8),
    ("precision", 1.0),
    ("recall", 0.0),
    ("recall", 0.7),
    ("recall", 1.0),
    ("threshold", 0.5),
    ("threshold", -1.0),
    ("threshold", 9.0),
    ("youden", None),
    ("closest_topleft", None),
    ("f1", None),
    ("cost", (1.0, 1.0)),
    ("cost", (1.0, 5.0)),
    ("cost", (0.0, 1.0)),
]


def _cuts(data, n: int) -> list[int]:
    """Partition boundaries: one partition to several, empty ones included."""
    return [0, *sorted(data.draw(st.lists(st.integers(0, n), max_size=6))), n]


def _on_dask(function, data, y, s, w, **options):
    """``function`` on ``y, s, w`` as dask inputs of drawn partitions and layout."""
    columns = {"y_true": y, "y_score": s}
    if w is not None:
        columns["sample_weight"] = w
    layout = data.draw(st.sampled_from(["frame", "array"]))
    inputs = dask_inputs(columns, _cuts(data, len(y)), layout)
    weight = inputs.get("sample_weight")
    return function(inputs["y_true"], inputs["y_score"], sample_weight=weight, **options)


def _assert_arrays(actual, expected, exact: bool) -> None:
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected, strict=True):
        assert got.shape == want.shape
        if exact:
            np.testing.assert_array_equal(got, want)
            assert got.dtype == want.dtype
        else:
            np.testing.assert_allclose(got, want, rtol=RTOL, atol=WEIGHTED_ZERO)


def _operating_kwargs(kind: str, value) -> dict:
    return {"criterion": kind} if value is None else {kind: value}


# -- confusion_matrix_at_thresholds -------------------------------------------------------------


@settings(max_examples=16, deadline=None)
@given(
    rows=st.booleans().flatmap(lambda weighted: scored_rows(weighted=weighted)),
    data=st.data(),
    buckets=st.sampled_from([1, 2, 3, 7]),
)
def test_confusion_matrix_equals_sklearn_for_any_partitioning(rows, data, buckets):
    y, s, w = rows
    with dask.config.set({"dask-auc.buckets": buckets}):
        result = _on_dask(dask_auc.confusion_matrix_at_thresholds, data, y, s, w)
    expected = skm.confusion_matrix_at_thresholds(y, s, sample_weight=w)
    _assert_arrays(result, expected, exact=w is None)


@settings(max_examples=10, deadline=None)
@given(rows=scored_rows(min_size=30, max_size=300), data=st.data(), max_points=st.integers(2, 12))
def test_confusion_matrix_max_points_keeps_exact_rows_and_both_ends(rows, data, max_points):
    y, s, _ = rows
    full = skm.confusion_matrix_at_thresholds(y, s)
    with dask.config.set({"dask-auc.buckets": 5}):
        thinned = _on_dask(
            dask_auc.confusion_matrix_at_thresholds, data, y, s, None, max_points=max_points
        )
        whole = dask_auc.confusion_matrix_at_thresholds(y, s, max_points=max_points)
    _assert_arrays(thinned, whole, exact=True)  # the same rows for any partitioning
    assert len(thinned[4]) <= max_points
    if len(full[4]) + 1 <= max_points:  # as roc_curve: a short curve comes whole
        _assert_arrays(thinned, full, exact=True)
    rows_of = {t: i for i, t in enumerate(full[4])}
    kept = [rows_of[t] for t in thinned[4]]
    assert kept == sorted(kept) and kept[-1] == len(full[4]) - 1
    for got, want in zip(thinned[:4], full[:4], strict=True):
        np.testing.assert_array_equal(got, want[kept])


def test_confusion_matrix_adversarial_partitions_and_labels():
    # a tie group across every partition edge, zero weights, empty partitions
    y = np.array([0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1])
    s = np.array([0.5, 0.5, 0.5, 0.5, 0.9, 0.5, 0.5, 0.1, 0.5, 0.5, 0.5, 0.5])
    w = np.array([1.0, 0.0, 2.5, 0.0, 1.0, 0.5, 3.0, 0.0, 1.0, 0.25, 0.0, 1.0])
    for cuts in ([0, 12], [0, 0, 3, 3, 7, 12, 12], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]):
        frame = dask_frame({"y": y, "s": s, "w": w}, cuts)
        for buckets in (1, 4):
            with dask.config.set({"dask-auc.buckets": buckets}):
                weighted = dask_auc.confusion_matrix_at_thresholds(
                    frame["y"], frame["s"], sample_weight=frame["w"]
                )
                plain = dask_auc.confusion_matrix_at_thresholds(frame["y"], frame["s"])
            _assert_arrays(
                weighted, skm.confusion_matrix_at_thresholds(y, s, sample_weight=w), False
            )
            _assert_arrays(plain, skm.confusion_matrix_at_thresholds(y, s), exact=True)
    # one class: scikit-learn's arrays, without a warning; string labels need pos_label
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ones = dask_auc.confusion_matrix_at_thresholds(np.ones(4, int), np.arange(4.0))
    _assert_arrays(ones, skm.confusion_matrix_at_thresholds(np.ones(4, int), np.arange(4.0)), True)
    labels = np.array(["no", "yes", "yes", "no"])
    result = dask_auc.confusion_matrix_at_thresholds(labels, s[:4], pos_label="yes")
    _assert_arrays(result, skm.confusion_matrix_at_thresholds(labels, s[:4], pos_label="yes"), True)
    with pytest.raises(ValueError, match="pos_label is not specified"):
        dask_auc.confusion_matrix_at_thresholds(labels, s[:4])
    with pytest.raises(ValueError, match="multiclass format is not supported"):
        dask_auc.confusion_matrix_at_thresholds(np.array([0, 1, 2]), np.arange(3.0))
    with pytest.raises(dask_auc.InvalidParameterError, match="'max_points' parameter"):
        dask_auc.confusion_matrix_at_thresholds(y, s, max_points=1)


def test_integer_scores_keep_their_dtype():
    y = np.array([0, 1, 0, 1, 1])
    s = np.array([2**60, 2**60 + 1, 3, 3, -(2**62)], dtype=np.int64)
    result = dask_auc.confusion_matrix_at_thresholds(
        dask_array(y, [0, 2, 5]), dask_array(s, [0, 2, 5])
    )
    _assert_arrays(result, skm.confusion_matrix_at_thresholds(y, s), exact=True)


# -- det_curve ----------------------------------------------------------------------------------


@settings(max_examples=16, deadline=None)
@given(
    rows=st.booleans().flatmap(lambda weighted: scored_rows(weighted=weighted)),
    data=st.data(),
    buckets=st.sampled_from([1, 2, 3, 7]),
    drop_intermediate=st.booleans(),
)
def test_det_curve_equals_sklearn_for_any_partitioning(rows, data, buckets, drop_intermediate):
    y, s, w = rows
    with dask.config.set({"dask-auc.buckets": buckets}):
        result = _on_dask(dask_auc.det_curve, data, y, s, w, drop_intermediate=drop_intermediate)
    expected = skm.det_curve(y, s, sample_weight=w, drop_intermediate=drop_intermediate)
    _assert_arrays(result, expected, exact=w is None)


@settings(max_examples=10, deadline=None)
@given(
    rows=scored_rows(min_size=30, max_size=300),
    data=st.data(),
    max_points=st.integers(2, 12),
    drop_intermediate=st.booleans(),
)
def test_det_curve_max_points_keeps_exact_points_and_sklearns_ends(
    rows, data, max_points, drop_intermediate
):
    y, s, _ = rows
    full = skm.det_curve(y, s, drop_intermediate=drop_intermediate)
    with dask.config.set({"dask-auc.buckets": 5}):
        thinned = _on_dask(
            dask_auc.det_curve,
            data,
            y,
            s,
            None,
            drop_intermediate=drop_intermediate,
            max_points=max_points,
        )
        whole = dask_auc.det_curve(y, s, drop_intermediate=drop_intermediate, max_points=max_points)
    _assert_arrays(thinned, whole, exact=True)
    assert len(thinned[2]) <= max_points
    index_of = {t: i for i, t in enumerate(full[2])}
    kept = [index_of[t] for t in thinned[2]]
    assert kept == sorted(kept)
    assert kept[0] == 0 and kept[-1] == len(full[2]) - 1  # scikit-learn's two ends
    for got, want in zip(thinned[:2], full[:2], strict=True):
        np.testing.assert_array_equal(got, want[kept])


def test_det_curve_adversarial_cases():
    # every positive above every negative: the curve is one point
    y, s = np.array([0, 0, 1, 1]), np.array([0.1, 0.2, 0.8, 0.9])
    _assert_arrays(dask_auc.det_curve(y, s), skm.det_curve(y, s), exact=True)
    # one tie group holding every row, cut over several partitions and buckets
    y, s = np.array([0, 1, 1, 0, 1, 0]), np.zeros(6)
    with dask.config.set({"dask-auc.buckets": 3}):
        result = dask_auc.det_curve(dask_array(y, [0, 2, 2, 6]), dask_array(s, [0, 2, 2, 6]))
    _assert_arrays(result, skm.det_curve(y, s), exact=True)
    # one class: scikit-learn's error, raised when the labels are read
    with pytest.raises(ValueError, match="Only one class is present in y_true"):
        dask_auc.det_curve(np.ones(3, int), np.arange(3.0))
    lazy = dask_auc.det_curve(np.zeros(3, int), np.arange(3.0), compute=False)
    with pytest.raises(ValueError, match="Only one class is present in y_true"):
        lazy.compute()
    with pytest.raises(dask_auc.InvalidParameterError, match="'drop_intermediate' parameter"):
        dask_auc.det_curve(y, s, drop_intermediate="yes")


# -- operating_point ----------------------------------------------------------------------------


def _compare_point(result, expected, exact: bool) -> None:
    assert set(result._fields) == set(expected)
    for name, want in expected.items():
        got = np.asarray(getattr(result, name), dtype=float)
        if exact:
            np.testing.assert_array_equal(got, want, err_msg=name)
        else:
            np.testing.assert_allclose(got, want, rtol=RTOL, atol=1e-12, err_msg=name)


@settings(max_examples=24, deadline=None)
@given(
    rows=st.booleans().flatmap(lambda weighted: scored_rows(weighted=weighted)),
    data=st.data(),
    target=st.sampled_from(TARGETS),
    buckets=st.sampled_from([1, 2, 7]),
)
def test_operating_point_equals_a_brute_force_scan(rows, data, target, buckets):
    y, s, w = rows
    if w is not None:  # dyadic weights: sums are exact, so near-ties are true ties
        w = np.round(w * 4) / 4
        w[np.flatnonzero(y == 1)[0]] = w[np.flatnonzero(y == 0)[0]] = 1.0
    kind, value = target
    with dask.config.set({"dask-auc.buckets": buckets}), warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)  # precision not reached
        result = _on_dask(dask_auc.operating_point, data, y, s, w, **_operating_kwargs(kind, value))
    expected = operating_point_reference(y, s, w, kind=kind, value=value)
    _compare_point(result, expected, exact=w is None)
    if w is None:
        assert all(isinstance(getattr(result, n), int) for n in ("tp", "fp", "tn", "fn"))


@settings(max_examples=12, deadline=None)
@given(rows=scored_rows(weighted=True), data=st.data(), target=st.sampled_from(TARGETS))
def test_operating_point_with_arbitrary_weights_reports_a_true_point(rows, data, target):
    """Weights such as 0.37: two points whose criteria are equal in exact arithmetic may
    compare either way after rounding (documented), so only check that the point chosen
    is a threshold of the data with the scan's counts and rates there."""
    y, s, w = rows
    kind, value = target
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        result = _on_dask(dask_auc.operating_point, data, y, s, w, **_operating_kwargs(kind, value))
    assert result.threshold in {math.inf, value, *s[w > 0].tolist()}
    expected = operating_point_reference(y, s, w, kind="threshold", value=result.threshold)
    _compare_point(result, expected, exact=False)


def test_operating_point_rules_on_a_worked_example():
    # descending: 0.9 +, 0.8 -, 0.7 +, 0.7 -, 0.6 +, 0.4 -, 0.3 +, 0.2 -   (P = N = 4)
    y = np.array([1, 0, 1, 0, 1, 0, 1, 0])
    s = np.array([0.9, 0.8, 0.7, 0.7, 0.6, 0.4, 0.3, 0.2])
    points = dict(
        zip(
            [0.9, 0.8, 0.7, 0.6, 0.4, 0.3, 0.2],
            [(1, 0), (1, 1), (2, 2), (3, 2), (3, 3), (4, 3), (4, 4)],
            strict=True,
        )
    )

    def check(expected_threshold, **target):
        point = dask_auc.operating_point(y, s, **target)
        assert point.threshold == expected_threshold, target
        if expected_threshold in points:
            assert (point.tp, point.fp) == points[expected_threshold]

    check(0.9, fpr=0.0)  # highest TPR at FPR 0: 1/4
    check(0.6, fpr=0.5)  # TPR 3/4 at FPR 1/2 (0.7 has TPR 1/2 at the same FPR)
    check(0.3, tpr=1.0)  # TPR 1 first reached at FPR 3/4
    check(0.6, tpr=0.6)  # lowest FPR with TPR >= 0.6
    check(0.9, precision=1.0)
    check(0.6, precision=0.6)  # recall 3/4 at precision 3/5; 0.3 has 4/7 < 0.6
    check(0.9, recall=0.25)  # precision 1
    check(0.3, recall=1.0)  # precision 4/7 beats 0.2's 1/2
    check(0.9, criterion="youden")  # J = 1/4 at 0.9, 0.6 and 0.3: the highest threshold
    check(0.6, criterion="closest_topleft")  # 1/16 + 4/16 = 5/16, least (0.3: 0 + 9/16)
    check(0.3, criterion="f1")  # 8 / (7 + 4) = 0.727
    check(0.3, cost=(1, 10))  # misses are expensive: 3 FP, 0 FN
    check(0.9, cost=(10, 1))  # false alarms are expensive: 0 FP, 3 FN
    # the top score is a negative: only the point at inf has no false positive
    assert dask_auc.operating_point(1 - y, s, fpr=0.0)[:3] == (math.inf, 0, 0)
    point = dask_auc.operating_point(y, s, threshold=0.65)
    assert point == dask_auc.OperatingPoint(0.65, 2, 2, 2, 2, 0.5, 0.5, 0.5, 0.5, 0.5)
    assert dask_auc.operating_point(y, s, threshold=1.0)[1:3] == (0, 0)


def test_operating_point_errors_warnings_and_laziness():
    y, s = np.array([0, 1, 0, 1]), np.array([0.9, 0.8, 0.3, 0.2])
    with pytest.raises(ValueError, match="exactly one of fpr, tpr, .*; got none"):
        dask_auc.operating_point(y, s)
    with pytest.raises(ValueError, match="got fpr=0.1, criterion='f1'"):
        dask_auc.operating_point(y, s, fpr=0.1, criterion="f1")
    with pytest.raises(dask_auc.InvalidParameterError, match="'fpr' parameter of operating_point"):
        dask_auc.operating_point(y, s, fpr=1.5)
    with pytest.raises(dask_auc.InvalidParameterError, match="'criterion' parameter"):
        dask_auc.operating_point(y, s, criterion="best")
    with pytest.raises(dask_auc.InvalidParameterError, match=r"\(cost_fp, cost_fn\)"):
        dask_auc.operating_point(y, s, cost=(1, -2))
    with pytest.raises(ValueError, match="pos_label is not specified"):
        dask_auc.operating_point(np.array(["a", "b"]), [0.1, 0.2], fpr=0.1)
    # no threshold reaches the precision: the point at inf, with a warning
    with pytest.warns(UndefinedMetricWarning, match="No threshold reaches precision >= 1.0"):
        point = dask_auc.operating_point(y, s, precision=1.0)
    assert point.threshold == math.inf and point[1:5] == (0, 0, 2, 2)
    assert math.isnan(point.precision) and point.f1 == 0.0
    # one class: NaN, with scikit-learn's warning
    with pytest.warns(UndefinedMetricWarning, match="No negative samples"):
        point = dask_auc.operating_point(np.ones(3, int), np.arange(3.0), criterion="youden")
    assert point.threshold is None and all(math.isnan(v) for v in point[1:])

    def explode(*args, **kwargs):
        raise AssertionError("building the graph computed something")

    with dask.config.set(scheduler=explode):
        lazy = dask_auc.operating_point(y, s, criterion="f1", compute=False)
        lazy_gains = dask_auc.gains_table(y, s, n_bins=2, compute=False)
    assert lazy.compute() == dask_auc.operating_point(y, s, criterion="f1")
    point, table = dask_auc.compute(lazy, lazy_gains)
    assert point == lazy.compute() and table.equals(dask_auc.gains_table(y, s, n_bins=2))


# -- gains_table --------------------------------------------------------------------------------


def _compare_table(table, expected, exact: bool) -> None:
    assert table.index.name == "group"
    np.testing.assert_array_equal(table.index.to_numpy(), expected["group"])
    assert list(table.columns) == list(GAINS_COLUMNS)
    for name in GAINS_COLUMNS:
        got, want = table[name].to_numpy(), expected[name]
        if exact:
            np.testing.assert_array_equal(got, want, err_msg=name)
        else:
            np.testing.assert_allclose(got, want, rtol=RTOL, atol=1e-9, err_msg=name)


@settings(max_examples=20, deadline=None)
@given(
    rows=st.booleans().flatmap(lambda weighted: scored_rows(weighted=weighted)),
    data=st.data(),
    n_bins=st.sampled_from([1, 2, 3, 10, 50, 200]),
    buckets=st.sampled_from([1, 2, 7]),
)
def test_gains_table_equals_a_brute_force_scan(rows, data, n_bins, buckets):
    y, s, w = rows
    if w is not None:
        w = np.round(w * 4) / 4  # exact sums: a quantile reached exactly is reached everywhere
        w[np.flatnonzero(y == 1)[0]] = w[np.flatnonzero(y == 0)[0]] = 1.0
    with dask.config.set({"dask-auc.buckets": buckets}):
        table = _on_dask(dask_auc.gains_table, data, y, s, w, n_bins=n_bins)
    _compare_table(table, gains_reference(y, s, w, n_bins=n_bins), exact=w is None)
    assert len(table) <= n_bins
    assert table["rows"].sum() == pytest.approx(len(y) if w is None else w.sum())


def test_gains_table_never_splits_a_tie_group():
    # 10 rows; the score 0.5 holds rows 3..8 from the top: it fills deciles 3 to 8 alone
    y = np.array([1, 1, 0, 1, 0, 0, 1, 0, 0, 0])
    s = np.array([0.9, 0.8, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.2, 0.1])
    table = dask_auc.gains_table(dask_array(y, [0, 4, 4, 10]), dask_array(s, [0, 4, 4, 10]))
    assert table["lower_threshold"].tolist() == [0.9, 0.8, 0.5, 0.2, 0.1]
    assert table["rows"].tolist() == [1, 1, 6, 1, 1]
    assert table["positives"].tolist() == [1, 1, 2, 0, 0]
    np.testing.assert_array_equal(table["cumulative_capture_rate"], [0.25, 0.5, 1, 1, 1])
    np.testing.assert_array_equal(table["lift"], [2.5, 2.5, (2 / 6) / 0.4, 0, 0])
    np.testing.assert_array_equal(table["kolmogorov_smirnov"], [0.25, 0.5, 1 - 4 / 6, 1 - 5 / 6, 0])


def test_gains_table_one_class_and_parameters():
    with pytest.warns(UndefinedMetricWarning, match="No positive samples"):
        table = dask_auc.gains_table(np.zeros(4, int), np.arange(4.0), n_bins=2)
    assert table["rows"].tolist() == [2, 2] and table["lift"].isna().all()
    with pytest.raises(dask_auc.InvalidParameterError, match="'n_bins' parameter of gains_table"):
        dask_auc.gains_table([0, 1], [0.1, 0.2], n_bins=0)


# -- thousands of partitions --------------------------------------------------------------------


def test_thousands_of_tiny_partitions_in_one_pass():
    """2,000 partitions of 500 tied rows, most of them empty: three metrics, one sort."""
    rng = np.random.default_rng(2000)
    n = 500
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 8, n) / 8 + 0.25 * y
    cuts = [0, *np.sort(rng.integers(0, n + 1, 1999)).tolist(), n]
    frame = dask_frame({"y": y, "s": s}, cuts)
    lazies = [
        dask_auc.confusion_matrix_at_thresholds(frame["y"], frame["s"], compute=False),
        dask_auc.operating_point(frame["y"], frame["s"], fpr=0.1, compute=False),
        dask_auc.gains_table(frame["y"], frame["s"], compute=False),
    ]
    confusion, point, table = dask_auc.compute(*lazies)
    _assert_arrays(confusion, skm.confusion_matrix_at_thresholds(y, s), exact=True)
    _compare_point(point, operating_point_reference(y, s, kind="fpr", value=0.1), exact=True)
    _compare_table(table, gains_reference(y, s, n_bins=10), exact=True)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(2, 3000),
    st.sampled_from(["fpr", "tpr", "threshold"]),
    st.sampled_from(["rows", "weights", "tied weights"]),
)
def test_monotone_targets_by_bisection_pick_the_point_ranking_picks(seed, n, kind, counts):
    """The bisection's point, keys and counts equal ranking every point, ties and all."""
    from dask_auc._kernels.binary.curve_points import CurvePoints
    from dask_auc._kernels.binary.operating_point import Target, best_by_bisection, best_by_ranking

    rng = np.random.default_rng(seed)
    positive = rng.random(n) < rng.random()
    positive[rng.choice(n, 2, replace=False)] = [True, False]  # both classes
    if counts == "rows":
        weights = np.ones(n, np.int64)
    elif counts == "weights":
        weights = rng.random(n) * 2
    else:  # a few values, and rows that add nothing to a large running sum
        weights = rng.choice([0.1, 1.0, 1e17], n)
    tps = np.cumsum(np.where(positive, weights, 0))
    fps = np.cumsum(np.where(positive, 0, weights))
    remainders = (tps[-1] - tps, fps[-1] - fps)
    thresholds = np.sort(rng.choice(n * 2, n, replace=False))[::-1] / 7
    points = CurvePoints(tps, fps, thresholds, *remainders)
    total = (tps[-1], fps[-1]) if counts != "rows" else (int(tps[-1]), int(fps[-1]))
    if kind == "threshold":
        values = [thresholds[rng.integers(n)], thresholds[0] + 1, -1.0, rng.random() * n / 3]
    else:
        on_points = (tps if kind == "tpr" else fps) / (total[0] if kind == "tpr" else total[1])
        values = [on_points[rng.integers(n)], 0.0, 1.0, rng.random()]
    for value in values:
        target = Target(kind, float(value))
        assert best_by_bisection(points, total, target) == best_by_ranking(points, total, target)
