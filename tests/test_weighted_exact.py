"""Issue 20, items 2-4: weighted answers that must not hang on the order of float additions.

A weighted count at a curve point is a running sum; the totals it is divided
by, the next bucket's offset and the remainders below the point are other
sums of the same weights, added in other orders.  Wherever the exact answer
is decided by *which rows* lie between two points -- every positive is in
(TPR exactly 1), no positive between two points (equal true positives), no
positive below (no false negative) -- the answer must be that exact one for
any partitioning, and a count of rows on one side of a threshold is a direct
sum of those rows, never a total minus a running sum.  Item 4: the partial
AUC over a narrow range is computed inside the range, exactly (correctly
rounded) for unweighted rows.

References: scikit-learn's ``roc_curve``, ``precision_recall_curve`` and
``confusion_matrix_at_thresholds``, and exact rational (``Fraction``) sums of
the rows, or areas of the polygon through scikit-learn's curve points.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import dask
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import dask_auc
from roc_polygon import area_over, partial_auc_reference
from strategies import boundaries, dask_array, dask_frame

# -- inputs ----------------------------------------------------------------------------------


def issue_rows(n: int = 500, seed: int = 3, zeros: float = 0.0):
    """Issue 20's example: ``default_rng(3)``, 500 rows, scores to 2 decimals, weights to 3."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    s = np.round(rng.random(n) + 0.3 * y, 2)
    w = np.round(rng.random(n) + 0.1, 3)
    if zeros:
        w[rng.random(n) < zeros] = 0.0
    return y, s, w


#: partition boundaries of a 500-row input: one partition, halves, empty and uneven ones,
#: many small ones (ties cross the edges of the sorted buckets whatever the partitions)
LAYOUTS = {
    "one": [0, 500],
    "halves": [0, 250, 500],
    "uneven": [0, 0, 37, 37, 200, 451, 500],
    "many": list(range(0, 500, 23)) + [500],
}


def on_dask(function, y, s, w, cuts, kind="frame", buckets=None, **options):
    """``function`` on dask inputs cut at ``cuts`` (some partitions may be empty)."""
    if kind == "array":
        yd, sd = dask_array(y, cuts), dask_array(s, cuts)
        wd = None if w is None else dask_array(w, cuts)
    else:
        columns = {"y": y, "s": s} | ({} if w is None else {"w": w})
        frame = dask_frame(columns, cuts)
        yd, sd, wd = frame["y"], frame["s"], None if w is None else frame["w"]
    with dask.config.set({"dask-auc.buckets": buckets}):
        return function(yd, sd, sample_weight=wd, **options)


@st.composite
def weighted_rows(draw, min_size=2, max_size=160):
    """Both classes weighted; heavy ties or none; weights continuous, with zeros, at any scale.

    ``spread`` weights span twelve decades, so that the rows left below a
    threshold can weigh far less than all rows: a remainder made as a total
    minus a running sum then has no correct digit.
    """
    n = draw(st.integers(min_size, max_size))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    distinct = draw(st.sampled_from([2, 3, 5, 20, 1000]))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = rng.integers(0, distinct, n) / distinct + 0.3 * y * draw(st.sampled_from([0, 1]))
    if draw(st.booleans()):
        w = 10.0 ** rng.uniform(-6, 6, n)
    else:
        w = rng.random(n) + 0.1
    w = w * draw(st.sampled_from([1.0, 1e-150, 1e300]))
    w[rng.random(n) < draw(st.sampled_from([0.0, 0.2]))] = 0.0
    for label in (0, 1):
        if w[y == label].sum() == 0:
            w[np.flatnonzero(y == label)[0]] = 1.0
    return y, s, w


def _exact_sum(values) -> Fraction:
    return sum(map(Fraction, values), Fraction(0))


def exact_counts(y, s, w, thresholds):
    """Exact ``(tps, fps, fns, tns)`` at each threshold (rows scoring ``>=`` it, and below it)."""
    counts = []
    for t in thresholds:
        above = s >= t
        counts.append(
            (
                _exact_sum(w[above & (y == 1)]),
                _exact_sum(w[above & (y == 0)]),
                _exact_sum(w[~above & (y == 1)]),
                _exact_sum(w[~above & (y == 0)]),
            )
        )
    return counts


def assert_close_to_exact(got: float, exact: Fraction, rtol: float = 1e-12) -> None:
    """``got`` within ``rtol`` of ``exact`` *relative to itself*; an exact 0 must be 0."""
    if exact == 0:
        assert got == 0.0
    else:
        assert abs(Fraction(got) - exact) <= rtol * abs(exact), (got, float(exact))


# -- item 2: tpr=1 / recall=1 ----------------------------------------------------------------


def _sklearn_first_threshold_at_tpr_one(y, s, w):
    fpr, tpr, thresholds = skm.roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    return thresholds[np.flatnonzero(tpr == 1.0)[0]]


@pytest.mark.parametrize("kind", ["frame", "array"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("buckets", [None, 1, 3, 7])
def test_the_issue_example_at_tpr_one_is_the_lowest_positive_score(kind, layout, buckets):
    """Issue 20 item 2: threshold 0.0 (everything positive, FPR 1) came back instead of 0.3."""
    y, s, w = issue_rows()
    expected = _sklearn_first_threshold_at_tpr_one(y, s, w)
    assert expected == 0.3 == s[y == 1].min()
    for target in ({"tpr": 1.0}, {"recall": 1.0}):
        point = on_dask(dask_auc.operating_point, y, s, w, LAYOUTS[layout], kind, buckets, **target)
        assert point.threshold == expected, target
        assert point.tpr == 1.0 and point.recall == 1.0 and point.fn == 0.0
        assert point.fp < w[y == 0].sum()  # not the end of the curve


def test_the_issue_example_on_numpy_inputs():
    y, s, w = issue_rows()
    assert dask_auc.operating_point(y, s, sample_weight=w, tpr=1.0).threshold == 0.3
    assert dask_auc.operating_point(y, s, sample_weight=w, recall=1.0).threshold == 0.3


@settings(max_examples=24, deadline=None)
@given(rows=weighted_rows(), data=st.data())
def test_tpr_and_recall_one_are_reached_at_the_last_positive(rows, data):
    """TPR is exactly 1 from the point holding the last positive row on, for any partitioning."""
    y, s, w = rows
    lowest_positive = s[(y == 1) & (w > 0)].min()
    cuts = data.draw(boundaries(len(y)))
    kind = data.draw(st.sampled_from(["frame", "array"]))
    buckets = data.draw(st.sampled_from([None, 1, 2, 3, 7]))
    for target in ({"tpr": 1.0}, {"recall": 1.0}):
        point = on_dask(dask_auc.operating_point, y, s, w, cuts, kind, buckets, **target)
        assert point.threshold == lowest_positive, target
        assert point.tpr == 1.0 and point.fn == 0.0


def test_the_command_line_threshold_at_tpr_one(tmp_path):
    """``--threshold-at tpr=1`` is the same operating point (it gave the lowest score)."""
    y, s, w = issue_rows()
    path = tmp_path / "scores.csv"
    pd.DataFrame({"y": y, "s": s, "w": w}).to_csv(path, index=False)
    done = subprocess.run(
        [sys.executable, "-m", "dask_auc", str(path), "--label", "y", "--score", "s"]
        + ["--weight", "w", "--threshold-at", "tpr=1", "--scheduler", "threads", "--json"],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    (point,) = json.loads(done.stdout)["operating_points"]
    assert point["threshold"] == 0.3 and point["tpr"] == 1.0 and point["fn"] == 0.0


# -- item 3: decisions and remainders that are exact ------------------------------------------


@settings(max_examples=24, deadline=None)
@given(rows=weighted_rows(), data=st.data())
def test_confusion_matrix_remainders_are_direct_sums(rows, data):
    """``fns`` and ``tns`` are the rows below each threshold, summed: 0 where none is left.

    scikit-learn makes them as ``tps[-1] - tps``, which is 0 after the last
    positive in its own summation order only; here every value is checked
    against the exact sum of its rows, relative to itself.
    """
    y, s, w = rows
    cuts = data.draw(boundaries(len(y)))
    buckets = data.draw(st.sampled_from([None, 1, 2, 3, 7]))
    tns, fps, fns, tps, thresholds = on_dask(
        dask_auc.confusion_matrix_at_thresholds, y, s, w, cuts, "frame", buckets
    )
    theirs = skm.confusion_matrix_at_thresholds(y, s, sample_weight=w)
    np.testing.assert_array_equal(thresholds, theirs[4])
    np.testing.assert_allclose(tps, theirs[3], rtol=1e-12, atol=0)
    np.testing.assert_allclose(fps, theirs[1], rtol=1e-12, atol=0)
    assert (fns[thresholds <= s[(y == 1) & (w > 0)].min()] == 0.0).all()
    assert tns[-1] == 0.0 and theirs[0][-1] == 0.0
    for i, exact in enumerate(exact_counts(y, s, w, thresholds)):
        for got, want in zip((tps[i], fps[i], fns[i], tns[i]), exact, strict=True):
            assert_close_to_exact(got, want, rtol=1e-12 if want == 0 else 1e-11)


def test_confusion_matrix_at_huge_weights_has_no_residue_after_the_last_positive():
    """Issue 20 item 3: ``fns`` after the last positive was +9.5e285 at weights x 1e300."""
    y, s, w = issue_rows(zeros=0.1)
    w = w * 1e300
    lowest_positive = s[(y == 1) & (w > 0)].min()
    for name, cuts in LAYOUTS.items():
        for buckets in (None, 3, 7):
            tns, fps, fns, tps, thresholds = on_dask(
                dask_auc.confusion_matrix_at_thresholds, y, s, w, cuts, "array", buckets
            )
            assert (fns[thresholds <= lowest_positive] == 0.0).all(), (name, buckets)
            assert tns[-1] == 0.0


def _exact_bins(y, s, w, lower_thresholds):
    """Exact ``(positives, rows)`` of each gains bin: scores in ``[lower, previous lower)``."""
    upper = np.inf
    sums = []
    for lower in lower_thresholds:
        inside = (s >= lower) & (s < upper)
        sums.append((_exact_sum(w[inside & (y == 1)]), _exact_sum(w[inside])))
        upper = lower
    return sums


@settings(max_examples=20, deadline=None)
@given(rows=weighted_rows(min_size=20), n_bins=st.sampled_from([3, 10, 20]), data=st.data())
def test_gains_bins_hold_direct_sums_of_their_rows(rows, n_bins, data):
    """A bin's positives and rows are sums of its rows: exactly 0 for a bin without positive."""
    y, s, w = rows
    cuts = data.draw(boundaries(len(y)))
    buckets = data.draw(st.sampled_from([None, 1, 2, 3, 7]))
    table = on_dask(dask_auc.gains_table, y, s, w, cuts, "frame", buckets, n_bins=n_bins)
    lower = table["lower_threshold"].to_numpy()
    assert lower[-1] == s[w > 0].min()  # every row of nonzero weight is in a bin
    for (positives, rows_in), got_pos, got_rows in zip(
        _exact_bins(y, s, w, lower), table["positives"], table["rows"], strict=True
    ):
        assert_close_to_exact(got_pos, positives, rtol=1e-12)
        assert_close_to_exact(got_rows, rows_in, rtol=1e-12)
    assert (table["positives"] >= 0).all()


def test_the_issue_gains_table_has_no_negative_positives():
    """Issue 20 item 3: a weighted bin without positive reported -7.7e-12 positives."""
    y, s, w = issue_rows(zeros=0.1)
    for name, cuts in LAYOUTS.items():
        for buckets in (None, 3, 7):
            table = on_dask(dask_auc.gains_table, y, s, w, cuts, "array", buckets, n_bins=20)
            exact = _exact_bins(y, s, w, table["lower_threshold"].to_numpy())
            for (positives, _), got in zip(exact, table["positives"], strict=True):
                assert_close_to_exact(got, positives)
            assert (table["positives"] >= 0).all(), (name, buckets)


def _first_of_equal_true_positives(y, s, w, threshold):
    """The highest score whose point has the same positive rows as the point at ``threshold``."""
    counted = w > 0
    rows_in = np.count_nonzero((s >= threshold) & (y == 1) & counted)
    candidates = np.unique(s[counted])[::-1]
    return next(t for t in candidates if np.count_nonzero((s >= t) & (y == 1) & counted) == rows_in)


FPR_TARGETS = [0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 0.95]


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("buckets", [None, 3, 7, 13])
def test_fpr_targets_take_the_lowest_fpr_of_equal_true_positives(layout, buckets):
    """Issue 20 item 3: at a bucket edge TP differed by 1 ulp and the point with more FP won.

    Of points with the same positive rows (so the same TP), the one with the
    fewest false positives -- the highest threshold -- is the answer; the
    point is the same for every partitioning.
    """
    y, s, w = issue_rows(seed=1, zeros=0.1)  # at 7 buckets fpr=0.03 took 0.97, not 0.98
    for fpr in FPR_TARGETS:
        whole = dask_auc.operating_point(y, s, sample_weight=w, fpr=fpr)
        point = on_dask(
            dask_auc.operating_point, y, s, w, LAYOUTS[layout], "array", buckets, fpr=fpr
        )
        assert point.threshold == _first_of_equal_true_positives(y, s, w, point.threshold), fpr
        assert point.threshold == whole.threshold, fpr


@settings(max_examples=16, deadline=None)
@given(rows=weighted_rows(min_size=10), data=st.data())
def test_equal_true_positives_never_differ_by_an_ulp(rows, data):
    """Every fpr target's point is the first of its plateau of equal TP, for any partitioning."""
    y, s, w = rows
    cuts = data.draw(boundaries(len(y)))
    buckets = data.draw(st.sampled_from([1, 2, 3, 7]))
    for fpr in (0.1, 0.3, 0.6):
        point = on_dask(dask_auc.operating_point, y, s, w, cuts, "frame", buckets, fpr=fpr)
        if np.isfinite(point.threshold):
            assert point.threshold == _first_of_equal_true_positives(y, s, w, point.threshold)


@pytest.mark.parametrize("max_points", [12, 50, 198, 200])
def test_thinned_weighted_curves_keep_the_same_points_for_every_layout(max_points):
    """Issue 20 item 3: a thinned weighted curve kept 199 or 198 points depending on layout.

    The curve's last point is at the totals exactly, so its place on the
    thinning grid (``tpr + fpr = 2``, a cell edge) does not depend on the order
    of the additions.
    """
    y, s, w = issue_rows(n=500, seed=5, zeros=0.1)
    s = np.round(s + np.random.default_rng(1).random(500) * 1e-3, 5)  # ~500 distinct scores
    curves = {
        "roc": (dask_auc.roc_curve, 2),
        "precision_recall": (dask_auc.precision_recall_curve, 2),
        "det": (dask_auc.det_curve, 2),
        "confusion": (dask_auc.confusion_matrix_at_thresholds, 4),
    }
    for name, (function, at) in curves.items():
        options = {"max_points": max_points}
        if name != "confusion":
            options["drop_intermediate"] = False
        whole = function(y, s, sample_weight=w, **options)[at]
        for layout, cuts in LAYOUTS.items():
            for buckets in (3, 7):
                got = on_dask(function, y, s, w, cuts, "array", buckets, **options)[at]
                np.testing.assert_array_equal(got, whole, err_msg=f"{name} {layout} {buckets}")


def test_one_weighted_tie_group_has_tpr_and_fpr_exactly_one_in_any_layout():
    """Every row on one score: the curve's one point is (1, 1) exactly, its KS gap exactly 0."""
    rng = np.random.default_rng(4)
    y = (rng.random(500) < 0.3).astype(int)
    s = np.full(500, 0.5)
    w = np.round(rng.random(500) + 0.1, 3)
    for name, cuts in LAYOUTS.items():
        for buckets in (None, 3, 7):
            fpr, tpr, _ = on_dask(dask_auc.roc_curve, y, s, w, cuts, "frame", buckets)
            assert (fpr[-1], tpr[-1]) == (1.0, 1.0), (name, buckets)
            ks = on_dask(dask_auc.ks_statistic, y, s, w, cuts, "array", buckets)
            assert ks.statistic == 0.0, (name, buckets)


# -- item 4: the partial AUC inside a narrow range --------------------------------------------


def _sklearn_polygon(y, s, w=None):
    """Exact ROC vertices through scikit-learn's curve points (its counts, as rationals)."""
    _, fps, _, tps, _ = skm.confusion_matrix_at_thresholds(y, s, sample_weight=w)
    fps = [Fraction(0)] + [Fraction(v) for v in fps]
    tps = [Fraction(0)] + [Fraction(v) for v in tps]
    return [(fp / fps[-1], tp / tps[-1]) for fp, tp in zip(fps, tps, strict=True)]


def exact_partial_area(y, s, w=None, *, fpr_range=None, tpr_range=None, standardized=False):
    """pROC's partial area over the polygon of scikit-learn's points, in rationals."""
    points = _sklearn_polygon(y, s, w)
    if fpr_range is not None:
        low, high = map(Fraction, fpr_range)
        raw = area_over(points, low, high)
        floor = (high * high - low * low) / 2  # the chance diagonal's area
    else:
        low, high = map(Fraction, tpr_range)
        raw = area_over([(tpr, 1 - fpr) for fpr, tpr in points], low, high)
        floor = (high - low) - (high * high - low * low) / 2
    if not standardized:
        return raw
    return (1 + (raw - floor) / ((high - low) - floor)) / 2


def issue_one_rows():
    """Issue 20 item 1's data (unweighted), where ``fpr_range=(0.5, 0.500001)`` lost digits."""
    rng = np.random.default_rng(0)
    n = 3000
    y = (rng.random(n) < 0.3).astype(int)
    return y, np.round(rng.random(n) + 0.4 * y, 3)


NARROW = [(0.5, 0.500001), (0.1, 0.1 + 1e-10), (0.25, 0.25 + 2**-40), (0.3, 0.7), (0.0, 1e-7)]


@pytest.mark.parametrize("interval", NARROW)
@pytest.mark.parametrize("axis", ["fpr_range", "tpr_range"])
@pytest.mark.parametrize("standardized", [False, True])
def test_a_narrow_range_is_correctly_rounded(interval, axis, standardized):
    """Issue 20 item 4: ``fpr_range=(0.5, 0.500001)`` was off by 3e-11 (relative).

    Unweighted counts are integers: the area inside the range is computed
    exactly and rounded once, so it is the exact rational area rounded.
    """
    y, s = issue_one_rows()
    expected = exact_partial_area(y, s, standardized=standardized, **{axis: interval})
    if standardized and axis == "fpr_range" and interval[0] == 0:
        # scikit-learn's max_fpr formula in floats (fpr_range=(0, m) is roc_auc_score(max_fpr=m))
        want = pytest.approx(float(expected), rel=1e-9)
    else:
        want = float(expected)
    assert dask_auc.partial_roc_auc_score(y, s, standardized=standardized, **{axis: interval}) == (
        want
    )
    n = len(y)
    for cuts in ([0, n], [0, 0, 400, 400, 1700, n], list(range(0, n, 230)) + [n]):
        for buckets in (None, 3, 11):
            got = on_dask(
                dask_auc.partial_roc_auc_score,
                y,
                s,
                None,
                cuts,
                "array",
                buckets,
                standardized=standardized,
                **{axis: interval},
            )
            assert got == want


@st.composite
def narrow_ranges(draw):
    """``(low, low + width)`` inside [0, 1], width from 1e-12 to 0.5."""
    width = 10.0 ** -draw(st.integers(0, 12)) * draw(st.sampled_from([0.5, 0.37, 1.0]))
    low = draw(st.floats(0, 1 - width))
    return low, min(low + width, 1.0)


@settings(max_examples=24, deadline=None)
@given(
    n=st.integers(2, 300),
    seed=st.integers(0, 2**32 - 1),
    distinct=st.sampled_from([2, 5, 50, 1000]),
    interval=narrow_ranges(),
    axis=st.sampled_from(["fpr_range", "tpr_range"]),
    data=st.data(),
)
def test_unweighted_partial_areas_are_the_exact_areas_rounded(
    n, seed, distinct, interval, axis, data
):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = rng.integers(0, distinct, n) / distinct + 0.2 * y
    cuts = data.draw(boundaries(n))
    buckets = data.draw(st.sampled_from([None, 1, 2, 5]))
    got = on_dask(
        dask_auc.partial_roc_auc_score, y, s, None, cuts, "frame", buckets,
        standardized=False, **{axis: interval},
    )  # fmt: skip
    assert got == float(exact_partial_area(y, s, **{axis: interval}))
    if interval[0] > 0 or axis == "tpr_range":
        standardized = on_dask(
            dask_auc.partial_roc_auc_score, y, s, None, cuts, "array", buckets,
            **{axis: interval},
        )  # fmt: skip
        assert standardized == float(
            exact_partial_area(y, s, standardized=True, **{axis: interval})
        )


@settings(max_examples=16, deadline=None)
@given(
    n=st.integers(2, 120),
    seed=st.integers(0, 2**32 - 1),
    interval=narrow_ranges(),
    axis=st.sampled_from(["fpr_range", "tpr_range"]),
    data=st.data(),
)
def test_dyadic_weights_give_the_exact_area_rounded(n, seed, interval, axis, data):
    """Weights of a few binary digits sum exactly in any order: the area is exact too."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = np.round(rng.random(n) + 0.2 * y, 1)
    w = rng.integers(0, 64, n) / 8
    w[:2] = [1.0, 1.0]
    cuts = data.draw(boundaries(n))
    buckets = data.draw(st.sampled_from([None, 1, 3]))
    got = on_dask(
        dask_auc.partial_roc_auc_score, y, s, w, cuts, "array", buckets,
        standardized=False, **{axis: interval},
    )  # fmt: skip
    assert got == float(partial_auc_reference(y, s, w, standardized=False, **{axis: interval}))


@pytest.mark.parametrize("interval", [(0.5, 0.500001), (0.2, 0.2 + 1e-9), (0.71, 0.7100001)])
@pytest.mark.parametrize("axis", ["fpr_range", "tpr_range"])
def test_weighted_narrow_ranges_keep_their_digits(interval, axis):
    """Continuous weights: the area inside the range is a product of the range's width and a
    height, not a difference of two areas ~1e6 times larger, so no digit is lost to the width
    (the reference is the exact polygon of the rows, in rationals).
    """
    y, s, w = issue_rows(n=500, seed=7)
    expected = partial_auc_reference(y, s, w, standardized=False, **{axis: interval})
    for cuts in LAYOUTS.values():
        for buckets in (None, 3, 7):
            got = on_dask(
                dask_auc.partial_roc_auc_score, y, s, w, cuts, "frame", buckets,
                standardized=False, **{axis: interval},
            )  # fmt: skip
            assert_close_to_exact(got, expected, rtol=1e-13)


@pytest.mark.parametrize("scale", [2.0**-1000, 2.0**1000])
@pytest.mark.parametrize("axis", ["fpr_range", "tpr_range"])
def test_weights_scaled_by_a_power_of_two_give_the_same_bits(scale, axis):
    """Weights near 1e-301 or 1e301 (pair counts kept in scaled units): the same exact area."""
    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, 300)
    s = np.round(rng.random(300) + 0.2 * y, 2)
    w = rng.integers(1, 64, 300) / 8
    interval = (0.3, 0.3 + 1e-7)
    expected = float(partial_auc_reference(y, s, w, standardized=False, **{axis: interval}))
    for cuts in ([0, 300], [0, 0, 120, 120, 300]):
        for buckets in (None, 4):
            got = on_dask(
                dask_auc.partial_roc_auc_score, y, s, w * scale, cuts, "array", buckets,
                standardized=False, **{axis: interval},
            )  # fmt: skip
            assert got == expected
