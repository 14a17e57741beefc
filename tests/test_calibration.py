"""log_loss, brier_score_loss and normalized_entropy against scikit-learn: values, errors, warnings.

The registry (``metric_registry.py``) runs the invariance tests (partitionings,
layouts, laziness, empty partitions, task keys); here are the cases it does not
draw: labels and ``pos_label`` rules, clipping at 0 and 1, float32, every error
and warning with scikit-learn's message, and what dask-auc does not support.
"""

from __future__ import annotations

import math
import re
import warnings

import dask
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


# -- float16 probabilities: clipped with float16's eps (issue 29, item 1) -----------------------

#: float16 probabilities at and near the edges: 0, 1 and values inside the clip margin
#: (1e-4 and 1 - 2**-11 are within float16's eps of 0 and 1)
P16 = np.array([0.0, 1.0, 0.3, 0.2, 0.0, 1e-4, 1 - 2**-11, 0.75, 0.5, 0.999], dtype=np.float16)
Y16 = np.array([0, 1, 1, 0, 1, 0, 0, 1, 1, 0])
W16 = np.array([1.0, 2.0, 0.5, 1.0, 3.0, 1.0, 0.25, 1.0, 2.0, 0.0])


def _float16_row_losses(y, p16):
    """Each row's log loss, scikit-learn's formula with float16's clip, in float64 steps.

    A float16 value, its complement and the clip bounds ``2**-10`` and
    ``1 - 2**-10`` are exact in float64: only the logarithm rounds.
    """
    eps = 2.0**-10
    assert eps == float(np.finfo(np.float16).eps)
    values = [float(v) for v in p16]
    truth = [v if label == 1 else 1 - v for label, v in zip(y, values, strict=True)]
    return [-math.log(min(max(q, eps), 1 - eps)) for q in truth]


def _float16_log_loss_reference(y, p16, weights=None):
    losses = _float16_row_losses(y, p16)
    w = [1.0] * len(losses) if weights is None else [float(v) for v in weights]
    return math.fsum(a * b for a, b in zip(losses, w, strict=True)) / math.fsum(w)


def _float16_entropy_reference(y, p16, weights=None):
    w = np.ones(len(y)) if weights is None else np.asarray(weights, float)
    rate = math.fsum(w[np.asarray(y) == 1]) / math.fsum(w)
    entropy = -(rate * math.log(rate) + (1 - rate) * math.log1p(-rate))
    return _float16_log_loss_reference(y, p16, weights) / entropy


def test_float16_issue_example_clips_with_float16_eps() -> None:
    y = np.array([0, 1, 1, 0, 1])
    p = np.array([0.0, 1.0, 0.3, 0.2, 0.0], dtype=np.float16)
    got = dask_auc.log_loss(da.from_array(y, chunks=2), da.from_array(p, chunks=2))
    assert got == pytest.approx(_float16_log_loss_reference(y, p), rel=1e-14)
    assert round(got, 5) == 1.67206
    np.testing.assert_allclose(got, skm.log_loss(y, p), rtol=2e-4)  # sklearn sums in float16


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("layout", ["array", "frame"])
def test_float16_log_loss_and_entropy_use_float16_eps(layout, weighted) -> None:
    weights = W16 if weighted else None
    if layout == "array":
        y, p = _chunked(Y16, 3), _chunked(P16, 3)
        w = None if weights is None else _chunked(weights, 3)
    else:
        frame = pd.DataFrame({"y": Y16, "p": P16, "w": W16})
        assert frame["p"].dtype == np.float16
        parted = dd.from_pandas(frame, npartitions=4)
        y, p, w = parted["y"], parted["p"], (parted["w"] if weighted else None)
    got = dask_auc.log_loss(y, p, sample_weight=w)
    assert got == pytest.approx(_float16_log_loss_reference(Y16, P16, weights), rel=1e-14)
    np.testing.assert_allclose(got, skm.log_loss(Y16, P16, sample_weight=weights), rtol=2e-3)
    entropy = dask_auc.normalized_entropy(y, p, sample_weight=w)
    assert entropy == pytest.approx(_float16_entropy_reference(Y16, P16, weights), rel=1e-14)


@pytest.mark.parametrize("buckets", [1, 4])  # 4: the big group is cut over heavy slots
def test_grouped_float16_calibration_columns_use_float16_eps(buckets) -> None:
    rng = np.random.default_rng(29)
    n = 400
    user = np.where(rng.random(n) < 0.6, 0, rng.integers(1, 6, n))
    y = rng.integers(0, 2, n)
    p = rng.choice(P16, n).astype(np.float16)
    frame = pd.DataFrame({"user": user, "y": y, "p": p})
    ddf = dd.from_pandas(frame, npartitions=5)
    metrics = ("log_loss", "normalized_entropy")
    with dask.config.set({"dask-auc.buckets": buckets}):
        result = dask_auc.grouped_roc_auc_score(
            ddf, by="user", label="y", score="p", metrics=metrics
        )
    for key, rows in frame.groupby("user"):
        got = result.per_group.loc[key]
        want = _float16_log_loss_reference(rows["y"].to_numpy(), rows["p"].to_numpy())
        assert got["log_loss"] == pytest.approx(want, rel=1e-12), key
        np.testing.assert_allclose(got["log_loss"], skm.log_loss(rows["y"], rows["p"]), rtol=2e-3)
        entropy = _float16_entropy_reference(rows["y"].to_numpy(), rows["p"].to_numpy())
        assert got["normalized_entropy"] == pytest.approx(entropy, rel=1e-12), key
    assert result.overall["log_loss"] == pytest.approx(_float16_log_loss_reference(y, p), rel=1e-12)
    assert result.overall["normalized_entropy"] == pytest.approx(
        _float16_entropy_reference(y, p), rel=1e-12
    )
