"""Bad input: scikit-learn's errors and warnings, raised as early as the input allows."""

from __future__ import annotations

import re
import warnings

import dask
import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import UndefinedMetricWarning as SklearnUndefinedMetricWarning
from sklearn.metrics import roc_auc_score as sklearn_auc

import dask_auc
from strategies import dask_array, dask_frame

GOOD_Y = np.array([0, 1, 1, 0, 1, 0])
GOOD_S = np.array([0.1, 0.8, 0.4, 0.3, 0.9, 0.2])
CUTS = [0, 2, 2, 6]


def _no_compute(*args, **kwargs):
    raise AssertionError("raised only after computing")


def _cuts(values):
    return [0, min(2, len(values)), min(2, len(values)), len(values)]


def _same_error_as_sklearn(y, s, **kwargs):
    with pytest.raises(Exception) as expected, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn's own RuntimeWarnings on the way
        sklearn_auc(y, s, **kwargs)
    with pytest.raises(type(expected.value), match=re.escape(str(expected.value))):
        dask_auc.roc_auc_score(y, s, **kwargs)
    with pytest.raises(type(expected.value), match=re.escape(str(expected.value))):
        dask_auc.roc_auc_score(dask_array(y, _cuts(y)), dask_array(s, _cuts(s)), **kwargs)


@pytest.mark.parametrize(
    "scores",
    [
        np.array([0.1, np.nan, 0.4, 0.3, 0.9, 0.2]),
        np.array([0.1, np.inf, 0.4, 0.3, 0.9, 0.2]),
        np.array([0.1, -np.inf, 0.4, 0.3, 0.9, 0.2]),
        np.array([0.1, np.inf, 0.4, 0.3, 0.9, 0.2], dtype=np.float32),
    ],
    ids=["nan", "inf", "-inf", "inf-float32"],
)
def test_non_finite_scores_raise_sklearns_error(scores):
    _same_error_as_sklearn(GOOD_Y, scores)


@pytest.mark.parametrize(
    "labels",
    [
        np.array([0, 1, 2, 0, 1, 0]),
        np.array([0.0, 1.0, 0.5, 0.0, 1.0, 0.0]),
        np.array([0.0, 1.0, np.nan, 0.0, 1.0, 0.0]),
    ],
    ids=["multiclass", "continuous", "nan"],
)
def test_non_binary_labels_raise_sklearns_error(labels):
    _same_error_as_sklearn(labels, GOOD_S)


def test_multiclass_across_partitions_is_caught_globally():
    y = np.array([0, 1, 1, 2, 2, 1])  # each partition of CUTS alone holds two classes at most
    with pytest.raises(ValueError, match=re.escape("multi_class must be in ('ovo', 'ovr')")):
        dask_auc.roc_auc_score(dask_array(y, [0, 3, 3, 6]), dask_array(GOOD_S, [0, 3, 3, 6]))


@pytest.mark.parametrize(
    "weights, message",
    [
        (
            np.array([1.0, -1.0, 1.0, 1.0, 1.0, 1.0]),
            "Negative values in data passed to `sample_weight`",
        ),
        (np.array([1.0, np.nan, 1.0, 1.0, 1.0, 1.0]), "Input sample_weight contains NaN."),
        (np.array([1.0, np.inf, 1.0, 1.0, 1.0, 1.0]), "Input sample_weight contains infinity"),
    ],
)
def test_bad_weights_raise(weights, message):
    for y, s, w in [
        (GOOD_Y, GOOD_S, weights),
        (dask_array(GOOD_Y, CUTS), dask_array(GOOD_S, CUTS), dask_array(weights, CUTS)),
    ]:
        with pytest.raises(ValueError, match=re.escape(message)):
            dask_auc.roc_auc_score(y, s, sample_weight=w)


def test_inconsistent_lengths_raise_sklearns_error_before_computing():
    _same_error_as_sklearn(GOOD_Y, GOOD_S[:5])
    with (
        dask.config.set(scheduler=_no_compute),
        pytest.raises(ValueError, match=re.escape("[6, 6, 5]")),
    ):
        dask_auc.roc_auc_score(
            dask_array(GOOD_Y, CUTS),
            dask_array(GOOD_S, CUTS),
            sample_weight=np.ones(5),
            compute=False,
        )


def test_dask_series_with_different_lengths_per_partition_report_totals():
    left = dask_frame({"label": GOOD_Y}, CUTS)["label"]
    right = dask_frame({"score": GOOD_S[:5]}, [0, 2, 2, 5])["score"]
    with pytest.raises(ValueError, match=re.escape("inconsistent numbers of samples: [6, 5]")):
        dask_auc.roc_auc_score(left, right)


def test_dask_series_with_different_partition_counts_are_rejected_with_a_fix():
    left = dask_frame({"label": GOOD_Y}, CUTS)["label"]
    right = dask_frame({"score": GOOD_S}, [0, 6])["score"]
    with (
        dask.config.set(scheduler=_no_compute),
        pytest.raises(ValueError, match="different numbers of partitions.*dd.concat"),
    ):
        dask_auc.roc_auc_score(left, right)


def test_in_memory_input_beside_dask_series_says_how_to_fix():
    left = dask_frame({"label": GOOD_Y}, CUTS)["label"]
    with pytest.raises(TypeError, match="every input as a dask collection"):
        dask_auc.roc_auc_score(left, GOOD_S)


@pytest.mark.parametrize(
    "scores",
    [np.array(["a", "b", "c", "d", "e", "f"]), pd.Series(list("abcdef"), dtype="string")],
    ids=["numpy-str", "pandas-string"],
)
def test_string_scores_raise_before_computing(scores):
    message = "dtype='numeric' is not compatible with arrays of bytes/strings."
    with pytest.raises(ValueError, match=re.escape(message)):
        dask_auc.roc_auc_score(GOOD_Y, scores)
    frame = dask_frame({"label": GOOD_Y, "score": scores}, CUTS)
    with (
        dask.config.set(scheduler=_no_compute),
        pytest.raises(ValueError, match=re.escape(message)),
    ):
        dask_auc.roc_auc_score(frame["label"], frame["score"], compute=False)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_fpr": 0},
        {"max_fpr": 1.5},
        {"max_fpr": "a"},
        {"average": "foo"},
        {"multi_class": "foo"},
    ],
)
def test_bad_parameters_raise_sklearns_invalid_parameter_error(kwargs):
    with pytest.raises(ValueError) as expected:
        sklearn_auc(GOOD_Y, GOOD_S, **kwargs)
    with dask.config.set(scheduler=_no_compute):
        with pytest.raises(dask_auc.InvalidParameterError) as ours:
            dask_auc.roc_auc_score(dask_array(GOOD_Y, CUTS), dask_array(GOOD_S, CUTS), **kwargs)
    assert _without_set_order(str(ours.value)) == _without_set_order(str(expected.value))


def _without_set_order(message):
    """sklearn prints the allowed values as a set, in no fixed order."""
    return re.sub(
        r"\{([^}]*)\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", message
    )


@pytest.mark.parametrize(
    "split_every, error", [(1, ValueError), (2.5, TypeError), (True, TypeError)]
)
def test_bad_split_every(split_every, error):
    with pytest.raises(error, match="split_every"):
        dask_auc.roc_auc_score(GOOD_Y, GOOD_S, split_every=split_every)


def test_empty_input_raises():
    _same_error_as_sklearn(np.array([], dtype=int), np.array([]))


@pytest.mark.parametrize("max_fpr", [None, 0.5])
def test_one_class_returns_nan_with_sklearns_warning_in_the_caller(max_fpr):
    y = np.ones(6, dtype=int)
    with pytest.warns(SklearnUndefinedMetricWarning, match="Only one class is present"):
        assert np.isnan(sklearn_auc(y, GOOD_S, max_fpr=max_fpr))
    with pytest.warns(dask_auc.UndefinedMetricWarning, match="Only one class is present in y_true"):
        assert np.isnan(
            dask_auc.roc_auc_score(dask_array(y, CUTS), dask_array(GOOD_S, CUTS), max_fpr=max_fpr)
        )


def test_all_negative_weight_zero_warns_like_sklearn():
    weights = np.where(GOOD_Y == 0, 0.0, 1.0)
    with pytest.warns(dask_auc.UndefinedMetricWarning, match="No negative samples in y_true"):
        assert np.isnan(dask_auc.roc_auc_score(GOOD_Y, GOOD_S, sample_weight=weights))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(sklearn_auc(GOOD_Y, GOOD_S, sample_weight=weights))


def test_zero_weight_rows_are_ignored():
    weights = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    keep = weights > 0  # weights 0 and 1: integer sums, exact in any order
    assert dask_auc.roc_auc_score(GOOD_Y, GOOD_S, sample_weight=weights) == sklearn_auc(
        GOOD_Y[keep], GOOD_S[keep]
    )
