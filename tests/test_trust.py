"""No silent wrong number: every public entry point on the layouts users really have.

Each case here ends in scikit-learn's answer or in a specific error raised
before any number is produced.  The registry ``ENTRY_POINTS`` lists every
public function that pairs rows by position, with the reference that judges
it, so that a layout bug in any of them is caught by one property test.
"""

from __future__ import annotations

import warnings

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import dask_auc
from references import pairwise_auc
from strategies import dask_frame


def _series(values, cuts):
    """A dask Series cut at ``cuts``, partition lengths unknown to dask (as from Parquet)."""
    return dask_frame({"x": values}, cuts)["x"]


def _delong_reference(y, a, b):
    return (pairwise_auc(y, a), pairwise_auc(y, b))


#: name -> (call on the dask inputs, reference on the NumPy inputs, comparison)
#: inputs are (y, s, w, s2, y3, p3): binary labels, scores, weights, a second
#: model's scores, three-class labels and their probability matrix
ENTRY_POINTS = {
    "roc_auc_score": (
        lambda y, s, w, s2, y3, p3: dask_auc.roc_auc_score(y, s),
        lambda y, s, w, s2, y3, p3: skm.roc_auc_score(y, s),
    ),
    "roc_auc_score weighted": (
        lambda y, s, w, s2, y3, p3: dask_auc.roc_auc_score(y, s, sample_weight=w),
        lambda y, s, w, s2, y3, p3: skm.roc_auc_score(y, s, sample_weight=w),
    ),
    "roc_auc_score max_fpr": (
        lambda y, s, w, s2, y3, p3: dask_auc.roc_auc_score(y, s, sample_weight=w, max_fpr=0.3),
        lambda y, s, w, s2, y3, p3: skm.roc_auc_score(y, s, sample_weight=w, max_fpr=0.3),
    ),
    "average_precision_score": (
        lambda y, s, w, s2, y3, p3: dask_auc.average_precision_score(y, s, sample_weight=w),
        lambda y, s, w, s2, y3, p3: skm.average_precision_score(y, s, sample_weight=w),
    ),
    "roc_curve": (
        lambda y, s, w, s2, y3, p3: dask_auc.roc_curve(y, s, sample_weight=w),
        lambda y, s, w, s2, y3, p3: skm.roc_curve(y, s, sample_weight=w),
    ),
    "precision_recall_curve": (
        lambda y, s, w, s2, y3, p3: dask_auc.precision_recall_curve(y, s),
        lambda y, s, w, s2, y3, p3: skm.precision_recall_curve(y, s),
    ),
    "roc_auc_ci": (
        lambda y, s, w, s2, y3, p3: dask_auc.roc_auc_ci(y, s).auc,
        lambda y, s, w, s2, y3, p3: pairwise_auc(y, s),
    ),
    "delong_test": (
        lambda y, s, w, s2, y3, p3: dask_auc.delong_test(y, s, s2)[:2],
        lambda y, s, w, s2, y3, p3: _delong_reference(y, s, s2),
    ),
    "roc_auc_score ovr": (
        lambda y, s, w, s2, y3, p3: dask_auc.roc_auc_score(y3, p3, multi_class="ovr"),
        lambda y, s, w, s2, y3, p3: skm.roc_auc_score(y3, p3, multi_class="ovr"),
    ),
}


def _rows(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = np.round(rng.random(n) + 0.3 * y, 1)  # ties, which straddle partition edges
    w = rng.choice([0.0, 0.5, 1.0, 2.0], n)
    w[:2] = 1.0
    s2 = np.round(rng.random(n), 1)
    y3 = rng.integers(0, 3, n)
    y3[:3] = [0, 1, 2]
    p3 = rng.dirichlet([1, 1, 1], n)
    return y, s, w, s2, y3, p3


def _equal(result, expected):
    if isinstance(expected, tuple):
        assert len(result) == len(expected)
        for r, e in zip(result, expected, strict=True):
            np.testing.assert_allclose(r, e, rtol=1e-12)
    else:
        assert result == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
@settings(max_examples=15)
@given(data=st.data())
def test_inputs_cut_at_different_places_raise_before_any_number(name, data):
    """Same total length, different partition boundaries: never a number from part of the rows."""
    call, reference = ENTRY_POINTS[name]
    n = data.draw(st.integers(8, 60))
    columns = _rows(n, data.draw(st.integers(0, 2**32 - 1)))
    # as many partitions in every input (else the call itself raises), some empty
    parts = data.draw(st.integers(2, 6))
    inner = st.lists(st.integers(0, n), min_size=parts - 1, max_size=parts - 1)
    cuts = [[0, *sorted(data.draw(inner)), n] for _ in range(6)]
    if name == "roc_auc_score ovr":
        dask_inputs = [None] * 4 + [
            _series(columns[4], cuts[4]),
            dask_frame({k: columns[5][:, k] for k in range(3)}, cuts[5]),
        ]
        used = (4, 5)
    else:
        dask_inputs = [_series(c, cut) for c, cut in zip(columns[:4], cuts[:4], strict=True)]
        dask_inputs += [None, None]
        used = (0, 1, 2, 3)
    aligned = all(cuts[i] == cuts[used[0]] for i in used)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's own warnings on tiny inputs
        if aligned or _layouts_agree(name, cuts):
            _equal(call(*dask_inputs), reference(*columns))
        else:
            with pytest.raises(ValueError, match="partitioned differently"):
                call(*dask_inputs)


def _layouts_agree(name, cuts):
    """Whether the inputs this entry point reads are cut alike."""
    read = {
        "roc_auc_score": (0, 1),
        "precision_recall_curve": (0, 1),
        "roc_auc_ci": (0, 1),
        "delong_test": (0, 1, 3),
        "roc_auc_score ovr": (4, 5),
    }.get(name, (0, 1, 2))
    return all(cuts[i] == cuts[read[0]] for i in read)


def test_the_issue_example_raises_instead_of_0_698():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 1000)
    s = rng.random(1000) + 0.3 * y
    labels = _series(y, [0, 300, 600, 1000])
    scores = _series(s, [0, 400, 600, 1000])
    with pytest.raises(ValueError, match="block 0 holds 300 rows of y_true, 400 rows of y_score"):
        dask_auc.roc_auc_score(labels, scores)
    # the fix the message suggests gives scikit-learn's answer
    fixed = dask_auc.roc_auc_score(
        labels.to_dask_array(lengths=True), scores.to_dask_array(lengths=True)
    )
    assert fixed == pytest.approx(skm.roc_auc_score(y, s), rel=1e-15)


def test_delong_errors_name_its_own_arguments():
    y = np.array([0, 1] * 10)
    a = np.linspace(0, 1, 20)
    with pytest.raises(ValueError, match="y_true, score_a and score_b.*4 rows of score_b"):
        dask_auc.delong_test(
            _series(y, [0, 10, 20]), _series(a, [0, 10, 20]), _series(a[::-1], [0, 4, 20])
        )


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_dask_arrays_of_known_chunks_cut_differently_are_realigned_exactly(name):
    call, reference = ENTRY_POINTS[name]
    columns = _rows(200, 7)
    chunkings = [(50, 0, 150), (120, 80), (10, 90, 100), (200,), (33, 167), (100, 0, 100)]
    arrays = [
        da.from_array(c, chunks=((ch,) + c.shape[1:]) if c.ndim == 1 else (ch, 3))
        for c, ch in zip(columns, chunkings, strict=True)
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _equal(call(*arrays), reference(*columns))


def test_unknown_chunk_arrays_cut_differently_raise():
    y = np.array([0, 1] * 50)
    s = np.linspace(0, 1, 100)
    yd = da.from_array(y, chunks=30)
    sd = da.from_array(s, chunks=40)
    yd, sd = yd[yd >= 0], sd[sd >= 0]  # unknown chunk sizes, 4 and 3 blocks
    with pytest.raises(ValueError, match="different numbers of blocks"):
        dask_auc.roc_auc_score(yd, sd)
    sd = da.from_array(s, chunks=((40, 30, 20, 10),))
    sd = sd[sd >= 0]
    with pytest.raises(ValueError, match="partitioned differently"):
        dask_auc.roc_auc_score(yd, sd)


def test_frame_columns_and_series_from_one_frame_still_compute():
    frame = dd.from_pandas(
        pd.DataFrame({"y": [0, 1, 1, 0, 1, 0], "s": [0.1, 0.9, 0.4, 0.4, 0.7, 0.2]}),
        npartitions=3,
    )
    with dask.config.set({"dask-auc.buckets": 2}):
        assert dask_auc.roc_auc_score(frame["y"], frame["s"]) == pytest.approx(
            skm.roc_auc_score([0, 1, 1, 0, 1, 0], [0.1, 0.9, 0.4, 0.4, 0.7, 0.2])
        )
