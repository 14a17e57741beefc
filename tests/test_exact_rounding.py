"""Unweighted AUC and average precision are exact rationals rounded once (issue 29, items 3-4).

The references are exact (``Fraction`` and integer arithmetic, ``references.py``);
scikit-learn's floats drift by an ulp or two from them (its trapezoid and its
precision terms are float sums), so scikit-learn is compared within a tolerance.
"""

from __future__ import annotations

import dask
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import dask_auc
from references import exact_auc, exact_average_precision
from strategies import boundaries, dask_array, dask_frame

RTOL = 1e-12
BUCKETS = (None, 1, 2, 7)


def _issue_rows(n: int = 1000, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.2).astype(int)
    return y, rng.random(n) + 0.3 * y


def _on_dask(function, y, s, cuts, layout, **options):
    if layout == "array":
        return function(dask_array(y, cuts), dask_array(s, cuts), **options)
    frame = dask_frame({"y": y, "s": s}, cuts)
    return function(frame["y"], frame["s"], **options)


@st.composite
def rows(draw, max_size: int = 1500):
    """Both classes; continuous scores (where float sums drift) or heavy ties."""
    n = draw(st.integers(2, max_size))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = (rng.random(n) < draw(st.sampled_from([0.05, 0.2, 0.5]))).astype(int)
    y[:2] = [0, 1]
    distinct = draw(st.sampled_from([3, 50, None]))
    noise = rng.random(n) if distinct is None else rng.integers(0, distinct, n) / distinct
    return y, noise + 0.3 * y


@st.composite
def layouts(draw, n: int) -> dict:
    """Partition boundaries, a bucket count, numba on or off and an input layout."""
    return {
        "cuts": draw(boundaries(n)),
        "buckets": draw(st.sampled_from(BUCKETS)),
        "numba": draw(st.booleans()),
        "layout": draw(st.sampled_from(["array", "frame"])),
    }


def _run(function, y, s, layout: dict, **options):
    settings = {"dask-auc.numba": layout["numba"]}
    if layout["buckets"] is not None:
        settings["dask-auc.buckets"] = layout["buckets"]
    with dask.config.set(settings):
        return _on_dask(function, y, s, layout["cuts"], layout["layout"], **options)


def test_the_issues_example_is_the_exact_auc_correctly_rounded():
    """Issue 29 item 3: 0.7727898019075569 is the exact AUC rounded; scikit-learn's is close."""
    y, s = _issue_rows()
    exact = float(exact_auc(y, s))
    assert exact == 0.7727898019075569
    assert dask_auc.roc_auc_score(y, s) == exact
    assert dask_auc.roc_auc_score(dask_array(y, [0, 300, 300, 1000]), dask_array(s, [0, 1000])) == (
        exact
    )
    assert skm.roc_auc_score(y, s) == pytest.approx(exact, rel=RTOL)


@settings(max_examples=16, deadline=None)
@given(data=st.data())
def test_unweighted_auc_is_the_exact_fraction_rounded_for_any_layout(data):
    y, s = data.draw(rows())
    layout = data.draw(layouts(len(y)))
    exact = float(exact_auc(y, s))
    assert _run(dask_auc.roc_auc_score, y, s, layout) == exact
    assert skm.roc_auc_score(y, s) == pytest.approx(exact, rel=RTOL)


@settings(max_examples=16, deadline=None)
@given(data=st.data())
def test_unweighted_average_precision_is_the_exact_fraction_rounded_for_any_layout(data):
    """Issue 29 item 4: the terms summed exactly and rounded once, whatever the layout.

    The same bits for any partitioning, bucket count, input layout and numba
    on or off, because they are the exact rational rounded once.
    """
    y, s = data.draw(rows())
    layout = data.draw(layouts(len(y)))
    exact = float(exact_average_precision(y, s))
    assert _run(dask_auc.average_precision_score, y, s, layout) == exact
    assert skm.average_precision_score(y, s) == pytest.approx(exact, rel=RTOL)


def test_average_precision_keeps_its_bits_across_partitionings_on_the_numpy_path():
    """Issue 29 item 4's report: with ``dask-auc.numba`` False the last bit moved with the cut."""
    y, s = _issue_rows(3000, seed=4)
    n = len(y)
    exact = float(exact_average_precision(y, s))
    found = set()
    for numba in (False, True):
        for cuts in ([0, n], [0, 1000, 2000, n], list(range(0, n, 217)) + [n]):
            for buckets in BUCKETS:
                layout = {"cuts": cuts, "buckets": buckets, "numba": numba, "layout": "array"}
                found.add(_run(dask_auc.average_precision_score, y, s, layout))
    assert found == {exact}


@st.composite
def placed_counts(draw):
    """A bucket's placed points: ascending counts of each class, any gains, huge or small."""
    n = draw(st.integers(1, 60))
    scale = draw(st.sampled_from([1, 1000, 2**40]))
    gains = draw(st.lists(st.integers(0, 3), min_size=2 * n, max_size=2 * n))
    before = draw(st.integers(0, 5)) * scale
    asked = before + np.cumsum(np.array(gains[:n], np.int64) * scale)
    other = draw(st.integers(0, 5)) * scale + np.cumsum(np.array(gains[n:], np.int64) * scale)
    return asked, other, before


@pytest.mark.float_order
@settings(max_examples=40, deadline=None)
@given(case=placed_counts(), swap=st.booleans())
def test_the_compiled_precision_sum_is_the_numpy_paths_integer(case, swap) -> None:
    """The compiled pass adds ratio_terms' floats exactly: the same integer (ties, 2**40 counts)."""
    pytest.importorskip("numba")
    from dask_auc._kernels.binary.average_precision import _compiled_precision_sum
    from dask_auc._kernels.binary.curve_points import CurvePoints
    from dask_auc._kernels.core.summary import exact_total, ratio_terms

    asked, other, before = case
    tps, fps = (other, asked) if swap else (asked, other)
    points = CurvePoints(tps, fps, np.arange(len(tps), 0, -1, dtype=float))
    expected = exact_total(ratio_terms(np.diff(asked, prepend=before), asked, asked + other))
    assert _compiled_precision_sum(points, before, swap) == expected


@pytest.mark.parametrize("persist", [False, True])
def test_the_roc_objects_average_precision_is_the_exact_fraction_rounded(persist):
    """The ROC object's AP, persisted or not, of either class of a {1, 2} target."""
    y, s = _issue_rows(2000, seed=7)
    labels = y + 1  # AP's class is 1 by default: the ROC's negative class here
    with dask.config.set({"dask-auc.buckets": 5}):
        curve = dask_auc.roc(dask_array(labels, [0, 700, 2000]), dask_array(s, [0, 700, 2000]))
        curve = curve.persist() if persist else curve
        assert curve.average_precision() == float(exact_average_precision(labels, s))
        other = dask_auc.roc(
            dask_array(labels, [0, 1300, 2000]), dask_array(s, [0, 1300, 2000]), pos_label=2
        )
        other = other.persist() if persist else other
        assert other.average_precision() == float(exact_average_precision(labels, s, 2))


def test_multilabel_average_precision_columns_are_the_exact_fractions_rounded():
    """Each column of a multilabel AP, and the micro average (the raveled columns), exact."""
    rng = np.random.default_rng(11)
    n = 1200
    y = (rng.random((n, 3)) < [0.1, 0.3, 0.6]).astype(int)
    s = rng.random((n, 3)) + 0.3 * y
    with dask.config.set({"dask-auc.buckets": 3}):
        columns = dask_auc.average_precision_score(y, s, average=None)
        micro = dask_auc.average_precision_score(y, s, average="micro")
    expected = [float(exact_average_precision(y[:, k], s[:, k])) for k in range(3)]
    assert columns.tolist() == expected
    assert micro == float(exact_average_precision(y.ravel(), s.ravel()))


def test_an_exact_reference_is_not_scikit_learns_float():
    """The references really are exact: scikit-learn's floats differ from them somewhere."""
    differ = {"auc": 0, "ap": 0}
    for seed in range(20):
        y, s = _issue_rows(500, seed)
        differ["auc"] += skm.roc_auc_score(y, s) != float(exact_auc(y, s))
        differ["ap"] += skm.average_precision_score(y, s) != float(exact_average_precision(y, s))
    assert differ["auc"] > 0 and differ["ap"] > 0
