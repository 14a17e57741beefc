"""roc_curve, precision_recall_curve and average_precision_score against scikit-learn."""

from __future__ import annotations

import warnings

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics

import dask_auc
from dask_auc import InvalidParameterError, UndefinedMetricWarning
from references import exact_average_precision
from strategies import boundaries, dask_array, dask_frame, scored_rows

CURVES = {
    "roc": (dask_auc.roc_curve, metrics.roc_curve),
    "pr": (dask_auc.precision_recall_curve, metrics.precision_recall_curve),
}


def assert_same_arrays(got, expected):
    """Same number of arrays, same lengths, values within 1e-12 (NaN where sklearn has NaN)."""
    assert len(got) == len(expected)
    for mine, theirs in zip(got, expected, strict=True):
        assert mine.shape == theirs.shape
        np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-12)


def _as_dask(kind, cuts, *columns):
    if kind == "array":
        return [None if c is None else dask_array(c, cuts) for c in columns]
    names = ["label", "score", "weight"][: len(columns)]
    present = {n: c for n, c in zip(names, columns, strict=True) if c is not None}
    frame = dask_frame(present, cuts)
    return [frame[n] if n in present else None for n in names]


def _dyadic_weights(data, y):
    """Weights whose sums are exact in floating point: the collinearity tests agree bit for bit."""
    w = np.asarray(
        data.draw(
            st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25]), min_size=len(y), max_size=len(y))
        )
    )
    if w[y == 1].sum() == 0 or w[y == 0].sum() == 0:
        w = w + 0.25
    return w


@settings(max_examples=30)
@given(
    scored_rows(),
    st.data(),
    st.sampled_from(["array", "frame"]),
    st.sampled_from(list(CURVES)),
    st.booleans(),
    st.booleans(),
)
def test_curve_is_invariant_to_partitioning_and_equals_sklearn(
    rows, data, kind, curve, drop_intermediate, weighted
):
    y, s, _ = rows
    w = _dyadic_weights(data, y) if weighted else None
    cuts = data.draw(boundaries(len(y)))
    buckets = data.draw(st.sampled_from([None, 1, 2, 5, 13]))
    ours, theirs = CURVES[curve]
    yd, sd, wd = _as_dask(kind, cuts, y, s, w)
    with dask.config.set({"dask-auc.buckets": buckets}):
        got = ours(yd, sd, sample_weight=wd, drop_intermediate=drop_intermediate)
    assert_same_arrays(got, theirs(y, s, sample_weight=w, drop_intermediate=drop_intermediate))


@settings(max_examples=20)
@given(scored_rows(weighted=True), st.data(), st.sampled_from(list(CURVES)))
def test_curve_with_any_float_weights_equals_sklearn_for_any_partitioning(rows, data, curve):
    # drop_intermediate=False: with weights like 0.37 the collinearity of three points is decided
    # by rounding, which depends on the order of the additions (see the README).
    y, s, w = rows
    cuts = data.draw(boundaries(len(y)))
    ours, theirs = CURVES[curve]
    yd, sd, wd = _as_dask("array", cuts, y, s, w)
    got = ours(yd, sd, sample_weight=wd, drop_intermediate=False)
    assert_same_arrays(got, theirs(y, s, sample_weight=w, drop_intermediate=False))


@settings(max_examples=20)
@given(scored_rows(weighted=True), st.data(), st.booleans())
def test_average_precision_is_invariant_to_partitioning_and_equals_sklearn(rows, data, weighted):
    y, s, w = rows
    w = w if weighted else None
    cuts = data.draw(boundaries(len(y)))
    buckets = data.draw(st.sampled_from([None, 1, 3, 7]))
    yd, sd, wd = _as_dask("array", cuts, y, s, w)
    with dask.config.set({"dask-auc.buckets": buckets}):
        got = dask_auc.average_precision_score(yd, sd, sample_weight=wd)
    assert got == pytest.approx(metrics.average_precision_score(y, s, sample_weight=w), abs=1e-12)
    if not weighted:  # the exact step sum rounded once: the same bits for any cut
        assert got == float(exact_average_precision(y, s))


def _rows(n, seed, distinct=None):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int64)
    s = rng.random(n) + 0.3 * y
    if distinct is not None:
        s = np.floor(s * distinct) / distinct
    return y, s


@pytest.mark.parametrize("curve", list(CURVES))
@pytest.mark.parametrize(
    "case",
    ["one_score", "two_scores", "ties_on_partition_edges", "empty_partitions", "one_partition"],
)
def test_adversarial_partitionings_equal_sklearn(curve, case):
    y, s = _rows(3000, 7, distinct=40)
    cuts = [0, 1000, 2000, 3000]
    if case == "one_score":
        s = np.full(len(y), 0.25)
    elif case == "two_scores":
        s = np.where(np.arange(len(y)) % 3 == 0, 0.9, 0.1)
    elif case == "ties_on_partition_edges":
        s = np.sort(s)  # each partition edge cuts a run of equal scores
        cuts = [0] + [int(np.searchsorted(s, v)) + 3 for v in (0.2, 0.5, 0.8)] + [len(y)]
    elif case == "empty_partitions":
        cuts = [0, 0, 1500, 1500, 1500, 3000, 3000]
    else:
        cuts = [0, len(y)]
    ours, theirs = CURVES[curve]
    for buckets in (None, 4, 17):
        with dask.config.set({"dask-auc.buckets": buckets}):
            for drop in (True, False):
                got = ours(*_as_dask("frame", cuts, y, s)[:2], drop_intermediate=drop)
                assert_same_arrays(got, theirs(y, s, drop_intermediate=drop))


def test_hundreds_of_partitions_with_weights_equal_sklearn():
    y, s = _rows(40_000, 11, distinct=500)
    w = np.random.default_rng(1).choice([0.0, 1.0, 2.0, 0.5], size=len(y))
    cuts = list(range(0, 40_001, 200))  # 200 partitions, 50 buckets
    yd, sd, wd = _as_dask("array", cuts, y, s, w)
    roc, pr, ap = dask.compute(
        dask_auc.roc_curve(yd, sd, sample_weight=wd, compute=False),
        dask_auc.precision_recall_curve(yd, sd, sample_weight=wd, compute=False),
        dask_auc.average_precision_score(yd, sd, sample_weight=wd, compute=False),
    )
    assert_same_arrays(roc, metrics.roc_curve(y, s, sample_weight=w))
    assert_same_arrays(pr, metrics.precision_recall_curve(y, s, sample_weight=w))
    assert ap == pytest.approx(metrics.average_precision_score(y, s, sample_weight=w), abs=1e-12)


@pytest.mark.parametrize("curve", list(CURVES))
def test_string_labels_with_pos_label_equal_sklearn(curve):
    y, s = _rows(2000, 3, distinct=30)
    labels = np.where(y == 1, "spam", "ham").astype(object)
    yd, sd = _as_dask("frame", [0, 700, 2000], labels, s)
    ours, theirs = CURVES[curve]
    for pos_label in ("spam", "ham"):
        assert_same_arrays(
            ours(yd, sd, pos_label=pos_label), theirs(labels, s, pos_label=pos_label)
        )
    expected = float(exact_average_precision(labels, s, pos_label="ham"))
    assert dask_auc.average_precision_score(yd, sd, pos_label="ham") == expected
    assert expected == pytest.approx(
        metrics.average_precision_score(labels, s, pos_label="ham"), rel=1e-12
    )


@pytest.mark.parametrize("curve", list(CURVES))
def test_minus_one_one_and_bool_labels_default_to_positive_one(curve):
    y, s = _rows(1500, 4, distinct=20)
    ours, theirs = CURVES[curve]
    for labels in (2 * y - 1, y.astype(bool)):
        yd, sd = _as_dask("array", [0, 500, 1500], labels, s)
        assert_same_arrays(ours(yd, sd), theirs(labels, s))


def test_multiclass_target_with_pos_label_is_one_vs_rest_as_in_sklearn():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 900)
    s = np.round(rng.random(900) + 0.2 * y, 2)
    yd, sd = _as_dask("array", [0, 400, 900], y, s)
    assert_same_arrays(
        dask_auc.roc_curve(yd, sd, pos_label=2), metrics.roc_curve(y, s, pos_label=2)
    )


def _sklearn_error(func, *args, **kwargs):
    with pytest.raises((ValueError, TypeError)) as caught:
        func(*args, **kwargs)
    return str(caught.value)


@pytest.mark.parametrize(
    "labels, kwargs",
    [
        (np.array(["a", "b", "a", "b"]), {}),
        (np.array([0, 2, 0, 2]), {}),
        (np.array([0, 1, 2, 1]), {}),
        (np.array([0.5, 1.0, 0.0, 1.0]), {}),
        (np.array([0, 1, 0, 1]), {"pos_label": [1]}),
        (np.array([0, 1, 0, 1]), {"drop_intermediate": 1}),
    ],
)
@pytest.mark.parametrize("curve", list(CURVES))
def test_bad_labels_and_parameters_raise_sklearns_errors(curve, labels, kwargs):
    ours, theirs = CURVES[curve]
    s = np.array([0.1, 0.4, 0.35, 0.8])
    expected = _sklearn_error(theirs, labels, s, **kwargs)
    with pytest.raises((ValueError, TypeError)) as caught:
        ours(labels, s, **kwargs)
    assert str(caught.value) == expected


@pytest.mark.parametrize(
    "labels, kwargs",
    [
        (np.array([0, 1, 0, 1]), {"pos_label": 2}),
        (np.array(["a", "b", "a", "b"]), {}),
        (np.array([0, 1, 2, 1]), {"pos_label": 2}),
        (np.array([0, 1, 0, 1]), {"pos_label": None}),
    ],
)
def test_average_precision_pos_label_errors_are_sklearns(labels, kwargs):
    s = np.array([0.1, 0.4, 0.35, 0.8])
    expected = _sklearn_error(metrics.average_precision_score, labels, s, **kwargs)
    with pytest.raises((ValueError, TypeError)) as caught:
        dask_auc.average_precision_score(labels, s, **kwargs)
    assert str(caught.value) == expected


def test_average_precision_average_is_checked_and_ignored_for_a_binary_target():
    y, s = _rows(500, 9, distinct=10)
    expected = metrics.average_precision_score(y, s)
    for average in ("micro", "macro", "samples", "weighted", None):
        assert dask_auc.average_precision_score(y, s, average=average) == pytest.approx(
            expected, abs=1e-12
        )
    with pytest.raises(InvalidParameterError, match="'average' parameter of average_precision"):
        dask_auc.average_precision_score(y, s, average="mean")


def test_average_precision_of_a_multilabel_target_is_sklearns():
    """Formerly rejected; now scikit-learn's (tests/test_multilabel.py tests it in full)."""
    y = np.array([[0, 1], [1, 0], [1, 1]])
    s = np.random.default_rng(0).random((3, 2))
    expected = metrics.average_precision_score(y, s)
    assert dask_auc.average_precision_score(y, s) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("missing", [0, 1])
def test_a_missing_class_gives_sklearns_roc_warning_and_nan(missing):
    y = np.full(6, 1 - missing)
    s = np.array([0.1, 0.4, 0.4, 0.8, 0.3, 0.2])
    with pytest.warns(metrics._ranking.UndefinedMetricWarning) as theirs_caught:
        expected = metrics.roc_curve(y, s)
    with pytest.warns(UndefinedMetricWarning) as ours_caught:
        got = dask_auc.roc_curve(dask_array(y, [0, 3, 6]), dask_array(s, [0, 3, 6]))
    assert [str(w.message) for w in ours_caught] == [str(w.message) for w in theirs_caught]
    assert_same_arrays(got, expected)


def test_no_positive_gives_sklearns_precision_recall_warning():
    y, s = np.zeros(5, int), np.array([0.1, 0.4, 0.4, 0.8, 0.3])
    with pytest.warns(UserWarning) as theirs_caught:
        expected = metrics.precision_recall_curve(y, s)
        expected_ap = metrics.average_precision_score(y, s)
    with pytest.warns(UserWarning) as ours_caught:
        got = dask_auc.precision_recall_curve(y, s)
        got_ap = dask_auc.average_precision_score(y, s)
    assert [str(w.message) for w in ours_caught] == [str(w.message) for w in theirs_caught]
    assert_same_arrays(got, expected)
    assert got_ap == expected_ap


def test_thresholds_keep_sklearns_dtypes():
    y, s = _rows(400, 2, distinct=16)
    s32 = s.astype(np.float32)
    ours = dask_auc.precision_recall_curve(y, s32)[2]
    theirs = metrics.precision_recall_curve(y, s32)[2]
    assert ours.dtype == theirs.dtype == np.float32
    assert dask_auc.roc_curve(y, s32)[2].dtype == metrics.roc_curve(y, s32)[2].dtype


def test_unweighted_rates_are_bit_identical_to_sklearn():
    y, s = _rows(20_000, 8, distinct=3000)
    yd, sd = _as_dask("array", [0, 3000, 12_000, 20_000], y, s)
    for ours, theirs in CURVES.values():
        for mine, expected in zip(ours(yd, sd), theirs(y, s), strict=True):
            np.testing.assert_array_equal(mine, expected)


# --- max_points ---------------------------------------------------------------------------


def _binormal(n, seed):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(np.int8)
    return y, rng.normal(size=n) + 1.2 * y


@pytest.mark.parametrize("max_points", [2, 3, 10, 101, 1000])
@pytest.mark.parametrize("data", ["smooth", "ties"])
def test_bounded_roc_curve_is_monotone_keeps_the_corners_and_area_within_the_grid_bound(
    max_points, data
):
    y, s = _binormal(50_000, 1)
    if data == "ties":
        s = np.round(s, 1)  # few distinct scores: long straight segments
    yd, sd = _as_dask("array", [0, 20_000, 20_000, 50_000], y, s)
    fpr, tpr, thresholds = dask_auc.roc_curve(yd, sd, max_points=max_points)
    full = metrics.roc_curve(y, s)
    assert len(fpr) <= max_points
    assert (fpr[0], tpr[0], thresholds[0]) == (0.0, 0.0, np.inf)
    assert (fpr[-1], tpr[-1]) == (1.0, 1.0)
    assert (np.diff(fpr) >= 0).all() and (np.diff(tpr) >= 0).all()
    assert (np.diff(thresholds) < 0).all()
    # every point kept is a point of sklearn's exact curve
    at = np.searchsorted(-full[2], -thresholds)
    np.testing.assert_array_equal(full[0][at], fpr)
    np.testing.assert_array_equal(full[1][at], tpr)
    # the module's bound: a dropped run lies in a cell with dfpr + dtpr < 4 / (N - 2)
    exact = metrics.roc_auc_score(y, s)
    bound = max_points / (max_points - 2) ** 2 if max_points > 2 else 0.5
    assert abs(np.trapezoid(tpr, fpr) - exact) <= bound


def test_bounded_roc_curve_of_smooth_data_has_the_area_to_a_hundredth_of_the_bound():
    # On a smooth curve the chord error in a cell of width h shrinks like h**3 (curvature),
    # so the total stays far below the worst case N / (N - 2)**2 of a staircase.
    y, s = _binormal(200_000, 2)
    fpr, tpr, _ = dask_auc.roc_curve(y, s, max_points=200)
    error = abs(np.trapezoid(tpr, fpr) - metrics.roc_auc_score(y, s))
    assert error <= 0.01 * 200 / 198**2


def _grid_thinned(fpr, tpr, max_points):
    """The documented rule on sklearn's whole ROC curve: first and last point of each cell."""
    if len(fpr) <= max_points:
        return np.ones(len(fpr), bool)
    if max_points == 2:
        cells = np.zeros(len(fpr))
    else:
        cells = np.floor((tpr + fpr) / (4 / (max_points - 2)))
    change = cells[1:] != cells[:-1]
    return np.concatenate(([True], change)) | np.concatenate((change, [True]))


@settings(max_examples=20)
@given(scored_rows(min_size=10, max_size=300), st.data(), st.integers(2, 40))
def test_bounded_roc_curve_is_the_grid_thinned_sklearn_curve_for_any_partitioning(
    rows, data, max_points
):
    y, s, _ = rows
    cuts = data.draw(boundaries(len(y)))
    buckets = data.draw(st.sampled_from([None, 1, 3, 8]))
    yd, sd = _as_dask("array", cuts, y, s)
    with dask.config.set({"dask-auc.buckets": buckets}):
        got = dask_auc.roc_curve(yd, sd, max_points=max_points)
    fpr, tpr, thresholds = metrics.roc_curve(y, s)
    keep = _grid_thinned(fpr, tpr, max_points)
    assert_same_arrays(got, (fpr[keep], tpr[keep], thresholds[keep]))
    assert len(got[0]) <= max_points


@pytest.mark.parametrize("curve", list(CURVES))
def test_a_curve_that_fits_in_max_points_comes_whole(curve):
    y, s = _binormal(20_000, 5)
    s = np.round(s, 1)
    ours, theirs = CURVES[curve]
    expected = theirs(y, s)
    yd, sd = _as_dask("array", [0, 5000, 20_000], y, s)
    with dask.config.set({"dask-auc.buckets": 6}):
        assert_same_arrays(ours(yd, sd, max_points=len(expected[0])), expected)
        assert len(ours(yd, sd, max_points=len(expected[0]) - 1)[0]) < len(expected[0])


def test_bounded_curves_do_not_depend_on_the_partitioning():
    y, s = _binormal(30_000, 3)
    s = np.round(s, 2)
    results = []
    for cuts, buckets in [
        ([0, 30_000], None),
        ([0, 100, 100, 17_000, 30_000], 9),
        ([0, 29_999, 30_000], 23),
    ]:
        yd, sd = _as_dask("frame", cuts, y, s)
        with dask.config.set({"dask-auc.buckets": buckets}):
            results.append(
                dask_auc.roc_curve(yd, sd, max_points=50)
                + dask_auc.precision_recall_curve(yd, sd, max_points=50)
            )
    for other in results[1:]:
        for mine, first in zip(other, results[0], strict=True):
            np.testing.assert_array_equal(mine, first)


def test_bounded_precision_recall_curve_keeps_its_ends_and_exact_points():
    y, s = _binormal(40_000, 4)
    precision, recall, thresholds = dask_auc.precision_recall_curve(y, s, max_points=300)
    full_p, full_r, full_t = metrics.precision_recall_curve(y, s)
    assert len(precision) <= 300
    assert (precision[-1], recall[-1]) == (1.0, 0.0)
    assert (precision[0], recall[0], thresholds[0]) == (full_p[0], full_r[0], full_t[0])
    assert (np.diff(recall) <= 0).all() and (np.diff(thresholds) > 0).all()
    at = np.searchsorted(full_t, thresholds)
    np.testing.assert_array_equal(full_p[at], precision[:-1])
    # the step sum over the kept points is close to the exact AP on smooth data
    assert -np.sum(np.diff(recall) * precision[:-1]) == pytest.approx(
        metrics.average_precision_score(y, s), abs=5e-3
    )


@pytest.mark.parametrize(
    "bad, error", [(1, ValueError), (0, ValueError), (2.5, TypeError), (True, TypeError)]
)
def test_max_points_must_be_an_int_of_at_least_two(bad, error):
    with pytest.raises(error, match="'max_points' parameter of roc_curve must be an int >= 2"):
        dask_auc.roc_curve([0, 1], [0.2, 0.3], max_points=bad)


# --- laziness ------------------------------------------------------------------------------


def _exploding_get(*args, **kwargs):
    raise AssertionError("building the graph computed something")


def test_compute_false_returns_lazy_collections_without_computing():
    y, s = _rows(2000, 6, distinct=50)
    frame = dd.from_pandas(pd.DataFrame({"label": y, "score": s}), npartitions=3)
    with dask.config.set(scheduler=_exploding_get):
        lazy_roc = dask_auc.roc_curve(frame["label"], frame["score"], compute=False)
        lazy_pr = dask_auc.precision_recall_curve(frame["label"], frame["score"], compute=False)
        lazy_ap = dask_auc.average_precision_score(frame["label"], frame["score"], compute=False)
    assert isinstance(lazy_roc, dask_auc.LazyScore)
    assert_same_arrays(lazy_roc.compute(), metrics.roc_curve(y, s))
    roc, pr, ap = dask.compute(lazy_roc, lazy_pr, lazy_ap)
    assert_same_arrays(roc, metrics.roc_curve(y, s))
    assert_same_arrays(pr, metrics.precision_recall_curve(y, s))
    assert ap == pytest.approx(metrics.average_precision_score(y, s), abs=1e-12)


def test_roc_and_precision_recall_of_one_input_share_one_sort():
    y, s = _rows(1000, 1, distinct=50)
    yd, sd = _as_dask("array", [0, 500, 1000], y, s)
    roc = dask_auc.roc_curve(yd, sd, compute=False)
    pr = dask_auc.precision_recall_curve(yd, sd, compute=False)
    plans = [k for lazy in (roc, pr) for k in lazy.__dask_graph__() if "auc-plan" in str(k)]
    assert len(set(plans)) == 1


def test_curves_warn_nothing_on_ordinary_input():
    y, s = _rows(300, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dask_auc.roc_curve(y, s)
        dask_auc.precision_recall_curve(y, s, max_points=20)


@pytest.mark.cluster
def test_curves_on_a_process_cluster_equal_sklearn(client):
    y, s = _rows(30_000, 12, distinct=400)
    w = np.random.default_rng(2).choice([0.0, 1.0, 2.0], size=len(y))
    frame = dask_frame({"label": y, "score": s, "weight": w}, [0, 9000, 9000, 30_000]).persist()
    got = dask_auc.roc_curve(frame["label"], frame["score"], sample_weight=frame["weight"])
    assert_same_arrays(got, metrics.roc_curve(y, s, sample_weight=w))
    got = dask_auc.precision_recall_curve(frame["label"], frame["score"], max_points=100)
    assert len(got[0]) <= 100
    ap = dask_auc.average_precision_score(frame["label"], frame["score"])
    assert ap == float(exact_average_precision(y, s))
    assert ap == pytest.approx(metrics.average_precision_score(y, s), abs=1e-12)
    with pytest.warns(UndefinedMetricWarning, match="No positive samples"):
        dask_auc.roc_curve(frame["label"] * 0, frame["score"])  # warned in this process
