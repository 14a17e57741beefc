"""Bad input: scikit-learn's errors and warnings, raised as early as the input allows."""

from __future__ import annotations

import re
import warnings

import dask
import dask.array as da
import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import UndefinedMetricWarning as SklearnUndefinedMetricWarning
from sklearn.metrics import roc_auc_score as sklearn_auc

import dask_auc
from references import DASK_READER_NOTICE
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


# -- every partition passes the score check (issue 29, item 7) ----------------------------------

STRING_SCORES = "dtype='numeric' is not compatible with arrays of bytes/strings."


def _parquet_with_a_string_score_file(folder, odd: int):
    """Three files of 6 rows; file ``odd``'s ``score`` column holds strings."""
    folder.mkdir()
    for i in range(3):
        scores = GOOD_S[::-1] if i % 2 else GOOD_S
        part = pd.DataFrame({"label": GOOD_Y, "score": scores, "user": np.arange(6) % 2})
        if i == odd:
            part["score"] = part["score"].astype(str)  # "0.1": numbers written as text
        part.to_parquet(folder / f"part-{i}.parquet", index=False)
    return folder


@pytest.mark.filterwarnings(f"ignore:{DASK_READER_NOTICE}")
@pytest.mark.parametrize("odd", [0, 1, 2])  # the file dask takes the columns' dtypes from, or not
def test_a_string_score_file_in_a_parquet_dataset_raises_as_alone(tmp_path, odd):
    import dask.dataframe as dd

    folder = _parquet_with_a_string_score_file(tmp_path / "data", odd)
    alone = dd.read_parquet(folder / f"part-{odd}.parquet")
    with pytest.raises(ValueError, match=re.escape(STRING_SCORES)):
        dask_auc.roc_auc_score(alone["label"], alone["score"])
    frame = dd.read_parquet(folder)
    for metric in (
        dask_auc.roc_auc_score,
        dask_auc.average_precision_score,
        dask_auc.log_loss,
        dask_auc.brier_score_loss,
        dask_auc.roc_curve,
        dask_auc.delong_test,
    ):
        scores = (frame["score"],) * (2 if metric is dask_auc.delong_test else 1)
        with pytest.raises(ValueError, match=re.escape(STRING_SCORES)):
            metric(frame["label"], *scores)
    with pytest.raises(ValueError, match=re.escape(STRING_SCORES)):
        dask_auc.grouped_roc_auc_score(frame, by="user", label="label", score="score")


@pytest.mark.filterwarnings(f"ignore:{DASK_READER_NOTICE}")
def test_cli_refuses_a_string_score_file_in_a_parquet_dataset(tmp_path, capsys):
    from dask_auc import cli

    folder = _parquet_with_a_string_score_file(tmp_path / "data", 2)
    for extra in ([], ["--by", "user"]):
        arguments = [str(folder), "--label", "label", "--score", "score", *extra]
        status = cli.main([*arguments, "--scheduler", "threads", "--quiet"])
        captured = capsys.readouterr()
        assert status == 1 and captured.out == "", captured
        assert captured.err.startswith("dask-auc: error: ") and STRING_SCORES in captured.err
        assert captured.err.count("\n") == 1


# -- (n, 2) scores of a binary target: scikit-learn's shape error (issue 29, item 8) ----------


def _sklearn_message(y, scores, **kwargs):
    with pytest.raises(ValueError) as raised, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sklearn_auc(y, scores, **kwargs)
    return str(raised.value)


def _two_score_columns(classes: int, normalized: bool, n: int = 100) -> tuple:
    rng = np.random.default_rng(29)
    y = rng.integers(0, classes, n)
    scores = rng.random((n, 2)) + 0.05
    if normalized:
        scores = scores / scores.sum(axis=1, keepdims=True)
    return y, scores, rng.random(n)


@pytest.mark.parametrize("normalized", [False, True], ids=["rows-not-summing-to-1", "summing"])
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"multi_class": "ovr"},
        {"multi_class": "ovo"},
        {"max_fpr": 0.5},
        {"average": None},
        {"labels": [0, 1]},
        {"multi_class": "ovr", "labels": [0, 1, 2]},
        {"sample_weight": True},
    ],
)
def test_binary_target_with_two_score_columns_raises_sklearns_1d_error(normalized, kwargs):
    """Issue 29, item 8: scikit-learn reads a binary target's (n, 2) scores as a
    wrong shape, whether or not their rows sum to 1; never the multi-class messages."""
    y, scores, weights = _two_score_columns(2, normalized)
    kwargs = dict(kwargs)  # the parameter's dict is shared by both values of ``normalized``
    if kwargs.pop("sample_weight", False):
        kwargs["sample_weight"] = weights
    expected = _sklearn_message(y, scores, **kwargs)
    assert expected == "y should be a 1d array, got an array of shape (100, 2) instead."
    cuts = [0, 30, 30, 61, 100]
    frame = dask_frame({"y": y, "a": scores[:, 0], "b": scores[:, 1], "w": weights}, cuts)
    layouts = [
        (y, scores, weights),
        (dask_array(y, cuts), da.from_array(scores, chunks=((30, 0, 31, 39), 1)), None),
        (frame["y"], frame[["a", "b"]], frame["w"]),
    ]
    for y_in, s_in, w_in in layouts:
        options = dict(kwargs)
        if "sample_weight" in options:
            options["sample_weight"] = weights if w_in is None else w_in
        with pytest.raises(ValueError, match=re.escape(expected)):
            dask_auc.roc_auc_score(y_in, s_in, **options)


@pytest.mark.parametrize("normalized", [False, True], ids=["rows-not-summing-to-1", "summing"])
@pytest.mark.parametrize("kwargs", [{"multi_class": "ovr"}, {"multi_class": "ovo"}, {}])
def test_three_classes_with_two_score_columns_keep_sklearns_multiclass_errors(normalized, kwargs):
    y, scores, _ = _two_score_columns(3, normalized)
    expected = _sklearn_message(y, scores, **kwargs)
    y_in, s_in = dask_array(y, [0, 50, 100]), da.from_array(scores, chunks=(50, 1))
    with pytest.raises(ValueError, match=re.escape(expected)):
        dask_auc.roc_auc_score(y_in, s_in, **kwargs)
