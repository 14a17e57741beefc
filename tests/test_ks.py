"""ks_statistic against scipy's two-sample KS test and a weighted brute-force scan."""

from __future__ import annotations

import warnings

import dask
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ks_2samp

import dask_auc
from strategies import dask_frame, scored_rows


def _brute_force_ks(y, s, w):
    """max |tpr - fpr| over every distinct threshold, each computed from scratch."""
    y, s = np.asarray(y), np.asarray(s)
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    positive = y == 1
    total_pos, total_neg = w[positive].sum(), w[~positive].sum()
    best, at = 0.0, None
    for t in np.unique(s[w > 0])[::-1]:  # descending: the first of equal gaps is the highest
        tpr = w[positive & (s >= t)].sum() / total_pos
        fpr = w[~positive & (s >= t)].sum() / total_neg
        if abs(tpr - fpr) > best + 1e-12:
            best, at = abs(tpr - fpr), t
    return best, at


def _cuts(data, n):
    return [0, *sorted(data.draw(st.lists(st.integers(0, n), max_size=5))), n]


@settings(max_examples=40)
@given(rows=scored_rows(), data=st.data(), buckets=st.sampled_from([1, 2, 3, 9]))
def test_unweighted_ks_equals_scipy_bit_for_bit_for_any_partitioning(rows, data, buckets):
    y, s, _ = rows
    frame = dask_frame({"y": y, "s": s}, _cuts(data, len(y)))
    with dask.config.set({"dask-auc.buckets": buckets}):
        result = dask_auc.ks_statistic(frame["y"], frame["s"])
    assert result.statistic == ks_2samp(s[y == 1], s[y == 0]).statistic
    expected, at = _brute_force_ks(y, s, None)
    assert result.statistic == pytest.approx(expected, abs=1e-12)
    if expected > 0:
        assert result.threshold == at


@settings(max_examples=40)
@given(rows=scored_rows(weighted=True), data=st.data(), buckets=st.sampled_from([1, 2, 5]))
def test_weighted_ks_equals_a_brute_force_scan(rows, data, buckets):
    y, s, w = rows
    frame = dask_frame({"y": y, "s": s, "w": w}, _cuts(data, len(y)))
    with dask.config.set({"dask-auc.buckets": buckets}):
        statistic, threshold = dask_auc.ks_statistic(
            frame["y"], frame["s"], sample_weight=frame["w"]
        )
    expected, at = _brute_force_ks(y, s, w)
    assert statistic == pytest.approx(expected, abs=1e-12)
    if expected > 1e-9:
        assert threshold == at


@pytest.mark.parametrize("buckets", [1, 2, 3])
def test_weighted_gaps_equal_in_exact_arithmetic_keep_the_highest_threshold(buckets):
    """At 0.8 the gap is 1 / 1.5 and at 0.3 it is 1 - 2 / 6: both 2/3, but 0.6666666666666666
    and 0.6666666666666667 in floats.  The exact gaps are compared, so the highest threshold of
    the equal ones is kept (as of equal integer gaps), and the statistic is 2/3 rounded once."""
    y = np.array([1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0])
    s = np.array([0.8, 0.3, 0.0, 0.5, 0.3, 0.0, 0.8, 0.8, 0.3, 0.0, 0.5])
    w = np.array([0.5, 0.5, 1.0, 1.0, 0.0, 0.0, 0.5, 0.0, 0.0, 3.0, 1.0])
    frame = dask_frame({"y": y, "s": s, "w": w}, [0, 4, 7, 11])
    with dask.config.set({"dask-auc.buckets": buckets}):
        found = dask_auc.ks_statistic(frame["y"], frame["s"], sample_weight=frame["w"])
        persisted = dask_auc.roc(frame["y"], frame["s"], sample_weight=frame["w"]).persist().ks()
    assert found == persisted == (2 / 3, 0.8)


def test_threshold_is_the_highest_of_equal_gaps_and_pos_label_is_honoured():
    y = np.array(["no", "yes", "no", "yes"])
    s = np.array([0.1, 0.9, 0.5, 0.6])
    # gaps: 0.9 -> 1/2, 0.6 -> 1, 0.5 -> 1/2: the maximum is at 0.6
    assert dask_auc.ks_statistic(y, s, pos_label="yes") == (1.0, 0.6)
    with pytest.raises(ValueError, match="pos_label is not specified"):
        dask_auc.ks_statistic(y, s)


def test_one_class_gives_nan_with_sklearns_warning_and_laziness_holds():
    from sklearn.exceptions import UndefinedMetricWarning

    with pytest.warns(UndefinedMetricWarning, match="No negative samples"):
        statistic, threshold = dask_auc.ks_statistic(np.ones(4), np.arange(4.0))
    assert np.isnan(statistic) and threshold is None

    def explode(*args, **kwargs):
        raise AssertionError("building the graph computed something")

    y, s = np.array([0, 1, 0, 1]), np.array([0.1, 0.2, 0.3, 0.4])
    with dask.config.set(scheduler=explode):
        lazy = dask_auc.ks_statistic(y, s, compute=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert lazy.compute() == dask_auc.ks_statistic(y, s)
