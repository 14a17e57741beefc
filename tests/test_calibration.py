"""log_loss, brier_score_loss and normalized_entropy against scikit-learn: values, errors, warnings.

The registry (``metric_registry.py``) runs the invariance tests (partitionings,
layouts, laziness, empty partitions, task keys); here are the cases it does not
draw: labels and ``pos_label`` rules, clipping at 0 and 1, float32, every error
and warning with scikit-learn's message, and what dask-auc does not support.
"""

from __future__ import annotations

import re
import warnings

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

import dask_auc
from metric_registry import normalized_entropy_reference

RTOL = 1e-12
Y = np.array([0, 1, 1, 0, 1, 0, 0, 1])
P = np.array([0.1, 0.9, 0.8, 0.35, 0.0, 1.0, 1e-20, 0.5])
W = np.array([1.0, 0.0, 2.5, 0.25, 3.0, 1.0, 0.0, 7.0])


def _chunked(values, chunks=3):
    return da.from_array(np.asarray(values), chunks=chunks)


def _outcome(function, *args, **kwargs):
    """``("value", result, warnings)`` or ``("error", type, message)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = function(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - the comparison is the point
            return ("error", type(error), str(error))
    return ("value", value, sorted(str(w.message) for w in caught))


PAIRS = [
    (dask_auc.log_loss, skm.log_loss),
    (dask_auc.brier_score_loss, skm.brier_score_loss),
]


@pytest.mark.parametrize(("ours", "theirs"), PAIRS, ids=["log_loss", "brier_score_loss"])
@pytest.mark.parametrize(
    ("y", "p", "options"),
    [
        (Y, P, {}),
        (Y, P, {"sample_weight": W}),
        (Y.astype(bool), P, {}),
        (np.where(Y == 1, "spam", "ham"), P, {"labels": ["ham", "spam"]}),
        (Y * 2 + 3, P, {}),  # {3, 5}: the greater class is positive
        (Y * 2 - 1, P, {}),
        (np.ones(8, int), P, {"labels": [0, 1]}),
        (np.zeros(8, int), P, {"labels": [0, 1]}),
        (Y, P.astype(np.float32), {}),  # eps of float32 clips the zeros
        (Y, P > 0.5, {}),
        (Y, np.array([0, 1, 1, 0, 1, 0, 0, 1]), {}),
        (Y, P, {"labels": [1, 0]}),  # scikit-learn warns of the order, and sorts them
    ],
)
def test_values_and_warnings_equal_sklearn(ours, theirs, y, p, options) -> None:
    if ours is dask_auc.brier_score_loss and "labels" in options:
        options = {"pos_label": options["labels"][-1] if y.dtype.kind == "U" else None}
    got = _outcome(ours, _chunked(y), _chunked(p), **_chunked_weights(options))
    want = _outcome(theirs, y, p, **options)
    assert got[0] == want[0] == "value", (got, want)
    tolerance = 1e-6 if np.asarray(p).dtype == np.float32 else RTOL  # float32 sums in sklearn
    np.testing.assert_allclose(got[1], want[1], rtol=tolerance)
    assert got[2] == want[2]


def _chunked_weights(options):
    if "sample_weight" in options:
        return {**options, "sample_weight": _chunked(options["sample_weight"])}
    return options


@pytest.mark.parametrize("pos_label", [0, 1, 2, None])
def test_brier_pos_label_equals_sklearn(pos_label) -> None:
    y = np.array([0, 2, 2, 0, 2])
    p = np.array([0.2, 0.7, 0.1, 0.5, 0.9])
    got = dask_auc.brier_score_loss(_chunked(y, 2), _chunked(p, 2), pos_label=pos_label)
    np.testing.assert_allclose(got, skm.brier_score_loss(y, p, pos_label=pos_label), rtol=RTOL)


BAD = [
    ("nan", Y, np.where(np.arange(8) == 3, np.nan, P), {}),
    ("inf", Y, np.where(np.arange(8) == 3, np.inf, P), {}),
    ("above one", Y, np.where(np.arange(8) == 3, 1.5, P), {}),
    ("below zero", Y, np.where(np.arange(8) == 3, -0.5, P), {}),
    ("one class", np.ones(8, int), P, {}),
    ("three classes", np.arange(8) % 3, P, {}),
    ("undeclared label", np.arange(8) % 3, P, {"labels": [0, 1]}),
    ("three labels", Y, P, {"labels": [0, 1, 2]}),
    ("one label", np.ones(8, int), P, {"labels": [1]}),
    ("zero weights", Y, P, {"sample_weight": np.zeros(8)}),
    ("strings without pos_label", np.where(Y == 1, "b", "a"), P, {}),
    ("lengths", Y[:7], P, {}),
]


@pytest.mark.parametrize(("ours", "theirs"), PAIRS, ids=["log_loss", "brier_score_loss"])
@pytest.mark.parametrize(("case", "y", "p", "options"), BAD, ids=[b[0] for b in BAD])
def test_errors_equal_sklearn(ours, theirs, case, y, p, options) -> None:
    got = _outcome(ours, y, p, **options)
    want = _outcome(theirs, y, p, **options)
    if want[0] == "value":  # brier ignores labels, log loss takes strings
        np.testing.assert_allclose(got[1], want[1], rtol=RTOL)
    else:
        assert got[:2] == want[:2], (case, got, want)
        if case == "lengths":  # the package lists the lengths in argument order
            assert got[2] == want[2].replace("[8, 7]", "[7, 8]")
        else:
            assert got[2] == want[2], case


def test_empty_input_raises_sklearns_error() -> None:
    for function in (dask_auc.log_loss, dask_auc.brier_score_loss, dask_auc.normalized_entropy):
        with pytest.raises(ValueError, match=re.escape("Found array with 0 sample(s)")):
            function(_chunked(np.array([], int)), _chunked(np.array([])))


def test_two_dimensional_probabilities_are_refused() -> None:
    proba = np.array([[0.2, 0.8], [0.6, 0.4]])
    for function in (dask_auc.log_loss, dask_auc.brier_score_loss, dask_auc.normalized_entropy):
        with pytest.raises(ValueError, match="Multiclass probabilities are not supported"):
            function(np.array([0, 1]), proba)
    # one column is the positive class's probabilities, as in scikit-learn
    one_column = dask_auc.log_loss(np.array([0, 1]), proba[:, 1:])
    assert one_column == skm.log_loss(np.array([0, 1]), proba[:, 1])


def test_misaligned_partitions_raise_before_a_wrong_number() -> None:
    frame = dd.from_pandas(pd.DataFrame({"y": Y, "p": P}), npartitions=2)
    shifted = dd.from_pandas(pd.DataFrame({"p": P}), npartitions=3)
    with pytest.raises(ValueError, match="partition"):
        dask_auc.log_loss(frame["y"], shifted["p"])


def test_frame_columns_pandas_and_lists_give_one_value() -> None:
    frame = pd.DataFrame({"y": Y, "p": P, "w": W})
    want = skm.log_loss(Y, P, sample_weight=W)
    parted = dd.from_pandas(frame, npartitions=3)
    for y, p, w in [
        (parted["y"], parted["p"], parted["w"]),
        (frame["y"], frame["p"], frame["w"]),
        (Y.tolist(), P.tolist(), W.tolist()),
    ]:
        np.testing.assert_allclose(dask_auc.log_loss(y, p, sample_weight=w), want, rtol=RTOL)


def test_normalized_entropy_equals_its_reference_and_warns_for_one_class() -> None:
    for weights in (None, W):
        got = dask_auc.normalized_entropy(_chunked(Y), _chunked(P), sample_weight=weights)
        np.testing.assert_allclose(got, normalized_entropy_reference(Y, P, weights), rtol=RTOL)
    with pytest.warns(dask_auc.UndefinedMetricWarning, match="base rate's entropy is 0"):
        value = dask_auc.normalized_entropy(np.zeros(8, int), P, labels=[0, 1])
    assert np.isnan(value)
    # a class present only in rows of weight zero does not make the base rate
    only_zero = np.where(W == 0, 1, 0)
    with pytest.warns(dask_auc.UndefinedMetricWarning):
        dask_auc.normalized_entropy(only_zero, P, sample_weight=W)


def test_parameters_are_checked_at_the_call() -> None:
    with pytest.raises(dask_auc.InvalidParameterError, match="'normalize' parameter"):
        dask_auc.log_loss(Y, P, normalize="yes")
    with pytest.raises(dask_auc.InvalidParameterError, match="'scale_by_half' parameter"):
        dask_auc.brier_score_loss(Y, P, scale_by_half="half")
    with pytest.raises(dask_auc.InvalidParameterError, match="'compute' parameter"):
        dask_auc.normalized_entropy(Y, P, compute=1)
