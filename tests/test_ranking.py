"""roc_auc_score against scikit-learn and a brute-force pairwise count."""

from __future__ import annotations

import dask
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score as sklearn_auc

import dask_auc
from references import pairwise_auc
from strategies import boundaries, dask_array, dask_frame, scored_rows


def _as_dask(kind, cuts, *columns):
    if kind == "array":
        return [None if c is None else dask_array(c, cuts) for c in columns]
    names = ["label", "score", "weight"][: len(columns)]
    present = {n: c for n, c in zip(names, columns, strict=False) if c is not None}
    frame = dask_frame(present, cuts)
    return [frame[n] if n in present else None for n in names]


@settings(max_examples=25)
@given(scored_rows(), st.data(), st.sampled_from(["array", "frame"]), st.integers(2, 9))
def test_unweighted_auc_is_bit_identical_to_exact_pair_count_for_any_partitioning(
    rows, data, kind, split_every
):
    y, s, _ = rows
    cuts = data.draw(boundaries(len(y)))
    buckets = data.draw(st.sampled_from([None, 1, 2, 5, 13]))
    yd, sd = _as_dask(kind, cuts, y, s)
    with dask.config.set({"dask-auc.buckets": buckets}):
        result = dask_auc.roc_auc_score(yd, sd, split_every=split_every)
    assert result == pairwise_auc(y, s)
    assert result == pytest.approx(sklearn_auc(y, s), abs=1e-12)


@settings(max_examples=20)
@given(scored_rows(weighted=True), st.data(), st.sampled_from(["array", "frame"]))
def test_weighted_auc_matches_sklearn_for_any_partitioning(rows, data, kind):
    y, s, w = rows
    cuts = data.draw(boundaries(len(y)))
    yd, sd, wd = _as_dask(kind, cuts, y, s, w)
    result = dask_auc.roc_auc_score(yd, sd, sample_weight=wd)
    assert result == pytest.approx(sklearn_auc(y, s, sample_weight=w), abs=1e-12)
    assert result == pytest.approx(pairwise_auc(y, s, w), abs=1e-12)


@settings(max_examples=20)
@given(
    scored_rows(min_size=3),
    st.data(),
    st.floats(0.001, 1.0, exclude_min=False),
    st.booleans(),
)
def test_partial_auc_matches_sklearn_mcclish_for_any_partitioning(rows, data, max_fpr, weighted):
    y, s, w = rows
    if weighted:
        w = (
            np.where(w is None, 1.0, w)
            if w is not None
            else data.draw(
                st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=len(y), max_size=len(y))
            )
        )
        w = np.asarray(w, dtype=float)
        if w[y == 1].sum() == 0 or w[y == 0].sum() == 0:
            w = w + 0.25
    else:
        w = None
    cuts = data.draw(boundaries(len(y)))
    buckets = data.draw(st.sampled_from([None, 1, 3, 7]))
    yd, sd, wd = _as_dask("array", cuts, y, s, w)
    with dask.config.set({"dask-auc.buckets": buckets}):
        result = dask_auc.roc_auc_score(yd, sd, sample_weight=wd, max_fpr=max_fpr)
    assert result == pytest.approx(sklearn_auc(y, s, sample_weight=w, max_fpr=max_fpr), abs=1e-12)


def test_partial_auc_is_identical_for_any_partitioning_when_unweighted():
    rng = np.random.default_rng(3)
    # 1,000 rows of 100 distinct scores: ties within and across blocks of every size
    n = 1000
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n), 2)
    results = set()
    for chunks in (n, 300, 77, 13):
        for buckets in (1, 4, 50):
            with dask.config.set({"dask-auc.buckets": buckets}):
                results.add(
                    dask_auc.roc_auc_score(
                        dask_array(y, list(range(0, n, chunks)) + [n]),
                        dask_array(s, list(range(0, n, chunks)) + [n]),
                        max_fpr=0.2,
                    )
                )
    assert len(results) == 1
    assert results.pop() == pytest.approx(sklearn_auc(y, s, max_fpr=0.2), abs=1e-12)


@pytest.mark.parametrize(
    "labels",
    [
        np.array([0, 1]),
        np.array([-1, 1]),
        np.array([False, True]),
        np.array([1, 2]),
        np.array(["ham", "spam"], dtype=object),
        np.array([0.0, 1.0]),
    ],
    ids=["01", "-11", "bool", "12", "strings", "floats"],
)
def test_any_two_classes_use_the_greater_as_positive(labels):
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 2, 400)
    y = labels[codes]
    s = rng.random(400) + 0.2 * codes
    expected = sklearn_auc(y, s)
    assert dask_auc.roc_auc_score(y, s) == pytest.approx(expected, abs=1e-12)
    series = dask_frame({"label": y, "score": s}, [0, 100, 100, 400])
    assert dask_auc.roc_auc_score(series["label"], series["score"]) == pytest.approx(
        expected, abs=1e-12
    )


def test_thousands_of_partitions_and_one_partition_agree():
    rng = np.random.default_rng(1)
    n = 4000  # 2,000 partitions of 2 rows
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n), 1)
    many = dask_auc.roc_auc_score(
        dask_array(y, list(range(0, n, 2)) + [n]), dask_array(s, list(range(0, n, 2)) + [n])
    )
    one = dask_auc.roc_auc_score(dask_array(y, [0, n]), dask_array(s, [0, n]))
    assert many == one == pairwise_auc(y, s)


def test_in_memory_inputs_numpy_pandas_and_lists():
    y = [0, 0, 1, 1, 1, 0]
    s = [0.1, 0.4, 0.35, 0.8, 0.4, 0.9]
    expected = pairwise_auc(y, s)  # exact; scikit-learn's trapezoid may differ in the last bits
    assert expected == pytest.approx(sklearn_auc(y, s), rel=1e-12)
    assert dask_auc.roc_auc_score(y, s) == expected
    assert dask_auc.roc_auc_score(np.array(y), pd.Series(s)) == expected
    assert dask_auc.roc_auc_score(pd.Series(y), np.array(s, dtype=np.float32)) == pytest.approx(
        sklearn_auc(y, np.array(s, dtype=np.float32)), abs=1e-12
    )


def test_mixed_dask_array_and_numpy_inputs_are_aligned():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 1000)
    s = rng.random(1000)
    assert dask_auc.roc_auc_score(y, dask_array(s, [0, 10, 500, 1000])) == pytest.approx(
        sklearn_auc(y, s), abs=1e-12
    )
    # differently chunked dask arrays with known chunks are re-chunked to match
    assert dask_auc.roc_auc_score(
        dask_array(y, [0, 999, 1000]), dask_array(s, [0, 1, 1000])
    ) == pytest.approx(sklearn_auc(y, s), abs=1e-12)


def test_nullable_and_arrow_dtypes():
    y = pd.Series([0, 1, 1, 0, 1], dtype="Int8")
    s = pd.Series([0.1, 0.9, 0.4, 0.5, 0.4], dtype="float64[pyarrow]")
    expected = pairwise_auc(y.to_numpy(int), s.to_numpy(float))
    assert dask_auc.roc_auc_score(y, s) == expected
    assert expected == pytest.approx(sklearn_auc(y.to_numpy(int), s.to_numpy(float)), rel=1e-12)


def test_integer_scores_beyond_float_precision_are_not_merged_as_ties():
    big = 2**62
    y = np.array([1, 0, 1, 0])
    s = np.array([big + 1, big, big + 3, big + 2], dtype=np.int64)
    with dask.config.set({"dask-auc.buckets": 4}):
        assert (
            dask_auc.roc_auc_score(dask_array(y, [0, 1, 2, 3, 4]), dask_array(s, [0, 1, 2, 3, 4]))
            == 0.75
        )
