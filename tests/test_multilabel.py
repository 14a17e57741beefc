"""Multilabel ROC AUC and average precision, multi-class average precision, against sklearn.

Values, warnings and error messages, on dask arrays and dask DataFrame columns
of any partitioning (empty partitions, one partition), weighted (with zeros)
or not, with heavy ties (few distinct scores) and columns holding one class.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import dask_auc
from references import run_and_record
from strategies import boundaries, dask_frame

AVERAGES = ["micro", "macro", "weighted", "samples", None]
METRICS = ["roc_auc_score", "average_precision_score"]


def _run(function, *args, **kwargs):
    """(result or error text, the set of warning messages)."""
    return run_and_record(lambda: function(*args, **kwargs))


def _assert_same(got, expected):
    (value, warned), (want, want_warned) = got, expected
    assert warned == want_warned
    if isinstance(want, str):
        assert value == want
    else:
        np.testing.assert_allclose(value, want, rtol=1e-12, atol=1e-15)
        assert np.shape(value) == np.shape(want)


def _as_dask(kind, cuts, y, s, w=None):
    """y (1-D or 2-D), s (2-D) and w as dask arrays cut at ``cuts``, or columns of one frame."""
    sizes = tuple(int(b - a) for a, b in zip(cuts[:-1], cuts[1:], strict=True))
    if kind == "array":
        arrays = [da.from_array(x, chunks=(sizes, *x.shape[1:])) for x in (y, s)]
        return (*arrays, None if w is None else da.from_array(w, chunks=(sizes,)))
    columns = {}
    label_names = [f"y{k}" for k in range(y.shape[1])] if y.ndim == 2 else "y"
    if y.ndim == 2:
        columns.update({name: y[:, k] for k, name in enumerate(label_names)})
    else:
        columns["y"] = y
    score_names = [f"s{k}" for k in range(s.shape[1])]
    columns.update({name: s[:, k] for k, name in enumerate(score_names)})
    if w is not None:
        columns["w"] = w
    frame = dask_frame(columns, cuts)
    return frame[label_names], frame[score_names], None if w is None else frame["w"]


@st.composite
def multilabel_cases(draw, max_rows=40):
    """An indicator matrix (some columns of one class), tied scores, maybe weights with zeros."""
    n = draw(st.integers(2, max_rows))
    k = draw(st.integers(2, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = (rng.random((n, k)) < rng.random(k)).astype(int)
    if draw(st.booleans()):  # a column of one class
        y[:, rng.integers(k)] = draw(st.sampled_from([0, 1]))
    distinct = draw(st.sampled_from([1, 2, 4, 1000]))
    s = rng.integers(0, distinct, (n, k)) / distinct + 0.3 * y * draw(st.sampled_from([0, 1]))
    w = None
    if draw(st.booleans()):
        w = rng.choice([0.0, 0.5, 1.0, 3.0], size=n)
        w[rng.integers(n)] = 1.0
    labels = draw(st.sampled_from(["01", "bool", "pm1"]))
    if labels == "bool":
        y = y.astype(bool)
    elif labels == "pm1":
        y = 2 * y - 1
    return y, s, w


@st.composite
def multiclass_cases(draw, max_rows=40):
    """A 1-D target of 3 or 4 present classes (any labels) and scores of one column per class."""
    n_classes = draw(st.integers(3, 4))
    n = draw(st.integers(n_classes, max_rows))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    codes = rng.integers(0, n_classes, n)
    codes[:n_classes] = np.arange(n_classes)
    rng.shuffle(codes)
    names = draw(st.sampled_from([np.arange(n_classes) * 3 - 1, np.array(list("dcba"))]))
    y = np.sort(names[:n_classes])[codes]
    distinct = draw(st.sampled_from([1, 3, 1000]))
    s = rng.integers(0, distinct, (n, n_classes)) / distinct
    s[np.arange(n), codes] += draw(st.sampled_from([0.0, 0.2]))
    w = None
    if draw(st.booleans()):
        w = rng.choice([0.0, 0.5, 2.0], size=n)
        w[:n_classes] = 1.0
    return y, s, w


@settings(max_examples=12, deadline=None)
@given(
    case=multilabel_cases(),
    metric=st.sampled_from(METRICS),
    average=st.sampled_from(AVERAGES),
    kind=st.sampled_from(["array", "frame"]),
    data=st.data(),
)
def test_multilabel_equals_sklearn_for_any_partitioning(case, metric, average, kind, data):
    y, s, w = case
    cuts = data.draw(boundaries(len(y)))
    yd, sd, wd = _as_dask(kind, cuts, y, s, w)
    with dask.config.set({"dask-auc.buckets": data.draw(st.sampled_from([None, 1, 3]))}):
        got = _run(getattr(dask_auc, metric), yd, sd, sample_weight=wd, average=average)
    expected = _run(getattr(skm, metric), y, s, sample_weight=w, average=average)
    _assert_same(got, expected)


@settings(max_examples=10, deadline=None)
@given(
    case=multiclass_cases(),
    average=st.sampled_from(AVERAGES),
    kind=st.sampled_from(["array", "frame"]),
    data=st.data(),
)
def test_multiclass_average_precision_equals_sklearn(case, average, kind, data):
    y, s, w = case
    yd, sd, wd = _as_dask(kind, data.draw(boundaries(len(y))), y, s, w)
    got = _run(dask_auc.average_precision_score, yd, sd, sample_weight=wd, average=average)
    expected = _run(skm.average_precision_score, y, s, sample_weight=w, average=average)
    _assert_same(got, expected)


@settings(max_examples=6, deadline=None)
@given(case=multilabel_cases(), average=st.sampled_from(AVERAGES), data=st.data())
def test_multilabel_partial_auc_equals_sklearn(case, average, data):
    y, s, w = case
    y = np.asarray(y, dtype=int) % 2  # {0, 1}
    yd, sd, wd = _as_dask("array", data.draw(boundaries(len(y))), y, s, w)
    if average == "samples":
        with pytest.raises(ValueError, match="average='samples' with max_fpr"):
            dask_auc.roc_auc_score(yd, sd, sample_weight=wd, average=average, max_fpr=0.4)
        return
    got = _run(dask_auc.roc_auc_score, yd, sd, sample_weight=wd, average=average, max_fpr=0.4)
    expected = _run(skm.roc_auc_score, y, s, sample_weight=w, average=average, max_fpr=0.4)
    _assert_same(got, expected)


@settings(max_examples=8, deadline=None)
@given(case=multilabel_cases(), metric=st.sampled_from(METRICS), data=st.data())
def test_unweighted_samples_average_is_bit_identical_for_any_partitioning(case, metric, data):
    """Each row's value is computed within its block; their sum is exact, so is the mean."""
    y, s, _ = case
    yd, sd, _ = _as_dask(
        data.draw(st.sampled_from(["array", "frame"])), data.draw(boundaries(len(y))), y, s
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = getattr(dask_auc, metric)(da.from_array(y), da.from_array(s), average="samples")
        got = getattr(dask_auc, metric)(yd, sd, average="samples")
    np.testing.assert_array_equal(got, whole)


def test_samples_auc_is_the_exact_mean_of_exact_row_aucs():
    """Rows of many tied columns: each row's AUC is a ratio of pair counts (ties one half)."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, (50, 7))
    y[:, 0], y[:, 1] = 1, 0  # every row holds both classes
    s = rng.integers(0, 3, (50, 7)) / 3
    rows = []
    for yr, sr in zip(y, s, strict=True):
        pos, neg = sr[yr == 1], sr[yr == 0]
        twice = 2 * (pos[:, None] > neg).sum() + (pos[:, None] == neg).sum()
        rows.append(Fraction(int(twice), 2 * len(pos) * len(neg)))
    exact_mean = sum(Fraction(float(r)) for r in rows) / len(rows)  # the mean of the rounded rows
    got = dask_auc.roc_auc_score(
        da.from_array(y, chunks=13), da.from_array(s, chunks=13), average="samples"
    )
    assert got == float(exact_mean)
    assert got == pytest.approx(skm.roc_auc_score(y, s, average="samples"), abs=1e-15)


# -- errors, with scikit-learn's messages ---------------------------------------------------

Y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1]])
S = np.array([[0.9, 0.2, 0.3], [0.1, 0.8, 0.4], [0.7, 0.6, 0.2], [0.3, 0.1, 0.9]])
Y_CLASSES = np.array([0, 1, 2, 2, 1, 0])
P = np.array(
    [
        [0.7, 0.2, 0.1],
        [0.2, 0.5, 0.3],
        [0.1, 0.3, 0.6],
        [0.3, 0.3, 0.4],
        [0.4, 0.4, 0.2],
        [0.5, 0.1, 0.4],
    ]
)

SKLEARN_ERRORS = [
    ("average_precision_score", Y, S, {"pos_label": 0}),
    ("roc_auc_score", Y * 2, S, {}),
    ("roc_auc_score", Y * 0.5, S, {}),
    ("average_precision_score", Y * 0.5, S, {}),
    ("roc_auc_score", np.array([[0, 1, 2], [1, 0, 0], [1, 2, 0], [0, 0, 1]]), S, {}),
    ("average_precision_score", np.array([[0, 1, 2], [1, 0, 0], [1, 2, 0], [0, 0, 1]]), S, {}),
    ("roc_auc_score", Y, np.where(S > 0.85, np.nan, S), {}),
    ("average_precision_score", Y_CLASSES, P, {"pos_label": 2}),
    ("average_precision_score", Y_CLASSES, P[:, :2], {}),
    ("average_precision_score", Y_CLASSES, np.hstack([P, P[:, :1]]), {}),
    ("average_precision_score", np.array([0, 1, 1, 0]), P[:4, :2], {}),
    ("average_precision_score", np.array([0, 1, 1, 0]), P[:4, :2], {"pos_label": 3}),
]


@pytest.mark.parametrize("name, y, s, kwargs", SKLEARN_ERRORS)
def test_bad_input_raises_sklearns_error(name, y, s, kwargs):
    expected, _ = _run(getattr(skm, name), y, s, **kwargs)
    assert isinstance(expected, str), expected
    got, _ = _run(
        getattr(dask_auc, name), da.from_array(y, chunks=2), da.from_array(s, chunks=2), **kwargs
    )
    assert got == expected


def test_inconsistent_lengths():
    expected, _ = _run(skm.roc_auc_score, Y, S[:3])
    assert _run(dask_auc.roc_auc_score, Y, S[:3])[0] == expected


@pytest.mark.parametrize("name", METRICS)
def test_score_columns_must_match_the_labels(name):
    with pytest.raises(ValueError, match="y_true has 3 label columns but y_score has 2"):
        getattr(dask_auc, name)(Y, S[:, :2])
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array instead"):
        getattr(dask_auc, name)(Y, S[:, 0])


def test_dask_frames_cut_differently_raise():
    frame_y = dask_frame({"a": Y[:, 0], "b": Y[:, 1]}, [0, 2, 4])
    frame_s = dask_frame({"a": S[:, 0], "b": S[:, 1]}, [0, 1, 4])
    with pytest.raises(ValueError, match="partitioned differently"):
        dask_auc.roc_auc_score(frame_y, frame_s)
    frame_s = dask_frame({"a": S[:, 0], "b": S[:, 1]}, [0, 4])
    with pytest.raises(ValueError, match="different numbers of partitions"):
        dask_auc.roc_auc_score(frame_y, frame_s)


@pytest.mark.parametrize("name", METRICS)
def test_lazy_results_compute_together(name):
    f = getattr(dask_auc, name)
    yd, sd = da.from_array(Y, chunks=3), da.from_array(S, chunks=3)
    lazies = [f(yd, sd, average=a, compute=False) for a in AVERAGES]
    for got, average in zip(dask_auc.compute(*lazies), AVERAGES, strict=True):
        np.testing.assert_allclose(got, getattr(skm, name)(Y, S, average=average), rtol=1e-12)
