"""partial_roc_auc_score: the partial AUC over any FPR or TPR interval (pROC's definition).

References: the exact ROC polygon of ``roc_polygon.py`` (rational arithmetic,
pROC's correction formula as pROC states it), pROC's own published values
(its test suite's ``partial_auc_boundary_expected_auc``), and scikit-learn's
``max_fpr`` for intervals starting at 0.
"""

from __future__ import annotations

import warnings

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score as sklearn_auc

import dask_auc
from roc_polygon import partial_auc_reference
from strategies import boundaries, dask_array, dask_frame, scored_rows


def _dask(kind, cuts, y, s, w=None):
    if kind == "array":
        return dask_array(y, cuts), dask_array(s, cuts), None if w is None else dask_array(w, cuts)
    columns = {"label": y, "score": s} | ({} if w is None else {"weight": w})
    frame = dask_frame(columns, cuts)
    return frame["label"], frame["score"], None if w is None else frame["weight"]


# -- pROC's published values ----------------------------------------------------------------
#
# pROC's tests/testthat/helper-partial-auc-boundary-expected.R records auc(roc, partial.auc=
# window, partial.auc.focus=focus, partial.auc.correct=FALSE) for small curves built with
# roc(response, predictor) (direction "<": higher predictor, case); the windows come from
# partial_auc_windows() in helper-partial-auc-boundary.R, in specificity (or sensitivity)
# units, (hi, lo).  Specificity (hi, lo) is fpr_range (1 - hi, 1 - lo); sensitivity (hi, lo)
# is tpr_range (lo, hi).

TIES = ([0, 0, 0, 1, 1, 1, 0, 1], [1, 2, 3, 3, 4, 5, 5, 6])
TWO_POINTS = ([0, 1], [1, 2])
CONSTANT = ([0, 0, 1, 1], [1, 1, 1, 1])

PROC_EXPECTED = [
    # curve, window (hi, lo), focus, pROC's value
    (TIES, (1.0, 0.0), "specificity", 0.8125),
    (TIES, (0.95, 0.9), "specificity", 0.01624999999999998),
    (TIES, (0.45, 0.05), "specificity", 0.40000000000000002),
    (TIES, (0.75, 0.25), "specificity", 0.46875),
    (TIES, (0.75, 0.125), "specificity", 0.59375),
    (TIES, (0.875, 0.25), "specificity", 0.5234375),
    (TIES, (0.4375, 0.3125), "specificity", 0.125),
    (TIES, (1.0, 0.0), "sensitivity", 0.8125),
    (TIES, (0.95, 0.9), "sensitivity", 0.02874999999999996),
    (TIES, (0.45, 0.05), "sensitivity", 0.38),
    (TIES, (0.75, 0.25), "sensitivity", 0.40625),
    (TIES, (0.75, 0.125), "sensitivity", 0.53125),
    (TIES, (0.875, 0.25), "sensitivity", 0.4921875),
    (TIES, (0.4375, 0.3125), "sensitivity", 0.109375),
    (TWO_POINTS, (0.95, 0.9), "specificity", 0.049999999999999933),
    (TWO_POINTS, (0.45, 0.05), "specificity", 0.40000000000000002),
    (TWO_POINTS, (0.75, 0.25), "specificity", 0.5),
    (TWO_POINTS, (0.95, 0.9), "sensitivity", 0.049999999999999933),
    (TWO_POINTS, (0.45, 0.05), "sensitivity", 0.40000000000000002),
    (TWO_POINTS, (0.75, 0.25), "sensitivity", 0.5),
    (CONSTANT, (0.95, 0.9), "specificity", 0.0037499999999999955),
    (CONSTANT, (0.45, 0.05), "specificity", 0.30000000000000004),
    (CONSTANT, (0.75, 0.25), "specificity", 0.25),
    (CONSTANT, (0.95, 0.9), "sensitivity", 0.0037499999999999955),
    (CONSTANT, (0.45, 0.05), "sensitivity", 0.30000000000000004),
    (CONSTANT, (0.75, 0.25), "sensitivity", 0.25),
]


def _range_of(window, focus):
    hi, lo = window
    if focus == "specificity":
        return {"fpr_range": (1 - hi, 1 - lo)}
    return {"tpr_range": (lo, hi)}


@pytest.mark.parametrize("curve, window, focus, expected", PROC_EXPECTED)
def test_equals_procs_published_partial_areas(curve, window, focus, expected):
    """pROC's recorded raw partial areas (floats: 1 - hi is not exact, hence the tolerance)."""
    y, s = map(np.array, curve)
    kwargs = _range_of(window, focus)
    yd, sd = da.from_array(y, chunks=3), da.from_array(s, chunks=3)
    got = dask_auc.partial_roc_auc_score(yd, sd, standardized=False, **kwargs)
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)
    exact = partial_auc_reference(y, s, standardized=False, **kwargs)
    assert got == pytest.approx(float(exact), rel=1e-13, abs=1e-16)


@pytest.mark.parametrize("focus", ["specificity", "sensitivity"])
def test_procs_correction_on_its_example_curve(focus):
    """Standardised: pROC's formula ``(1 + (auc - min) / (max - min)) / 2`` on the focus axis.

    On the ties curve, window (0.75, 0.25): min = (0.25 + 0.75) * 0.5 / 2 = 0.25, max = 0.5.
    """
    y, s = map(np.array, TIES)
    raw = {"specificity": 0.46875, "sensitivity": 0.40625}[focus]
    kwargs = _range_of((0.75, 0.25), focus)
    got = dask_auc.partial_roc_auc_score(y, s, **kwargs)
    assert got == (1 + (raw - 0.25) / (0.5 - 0.25)) / 2


# -- the exact reference on random and adversarial data -------------------------------------


@st.composite
def ranges(draw):
    """An interval ``0 <= low < high <= 1``, often on a grid (curve points, 0 and 1)."""
    grid = st.sampled_from([0.0, 0.125, 0.25, 1 / 3, 0.5, 0.75, 1.0])
    ends = draw(st.lists(st.one_of(grid, st.floats(0, 1)), min_size=2, max_size=2, unique=True))
    low, high = sorted(ends)
    # areas are floats: an interval narrower than this has areas that underflow
    assume(high - low > 1e-100)
    return (low, high)


def _zero_weights(w, y, rng):
    """Some weights set to zero, keeping both classes weighted."""
    w = np.where(rng.random(len(w)) < 0.3, 0.0, w)
    for label in (0, 1):
        if w[y == label].sum() == 0:
            w[np.flatnonzero(y == label)[0]] = 1.0
    return w


@settings(max_examples=16, deadline=None)
@given(
    rows=scored_rows(min_size=2, max_size=80),
    interval=ranges(),
    axis=st.sampled_from(["fpr_range", "tpr_range"]),
    standardized=st.booleans(),
    weighted=st.booleans(),
    kind=st.sampled_from(["array", "frame"]),
    data=st.data(),
)
def test_equals_the_exact_polygon_for_any_partitioning(
    rows, interval, axis, standardized, weighted, kind, data
):
    y, s, _ = rows
    w = None
    if weighted:
        rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
        w = _zero_weights(rng.choice([0.5, 1.0, 3.0, 0.1, 7.25], size=len(y)), y, rng)
    cuts = data.draw(boundaries(len(y)))
    buckets = data.draw(st.sampled_from([None, 1, 3, 7]))
    yd, sd, wd = _dask(kind, cuts, y, s, w)
    with dask.config.set({"dask-auc.buckets": buckets}):
        got = dask_auc.partial_roc_auc_score(
            yd, sd, sample_weight=wd, standardized=standardized, **{axis: interval}
        )
    expected = float(partial_auc_reference(y, s, w, standardized=standardized, **{axis: interval}))
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-14)


@settings(max_examples=12, deadline=None)
@given(rows=scored_rows(min_size=3), interval=ranges(), data=st.data())
def test_unweighted_result_is_bit_identical_for_any_partitioning(rows, interval, data):
    y, s, _ = rows
    axis = data.draw(st.sampled_from(["fpr_range", "tpr_range"]))
    whole = dask_auc.partial_roc_auc_score(y, s, **{axis: interval})
    yd, sd, _ = _dask(
        data.draw(st.sampled_from(["array", "frame"])), data.draw(boundaries(len(y))), y, s
    )
    with dask.config.set({"dask-auc.buckets": data.draw(st.sampled_from([1, 2, 7]))}):
        assert dask_auc.partial_roc_auc_score(yd, sd, **{axis: interval}) == whole


@settings(max_examples=12, deadline=None)
@given(
    rows=scored_rows(min_size=3, weighted=True),
    max_fpr=st.one_of(st.floats(0.001, 1.0), st.sampled_from([0.1, 0.25, 0.5, 1.0])),
    weighted=st.booleans(),
    data=st.data(),
)
def test_fpr_range_from_zero_is_max_fpr_to_the_last_bit(rows, max_fpr, weighted, data):
    y, s, w = rows
    w = w if weighted else None
    yd, sd, wd = _dask("frame", data.draw(boundaries(len(y))), y, s, w)
    got = dask_auc.partial_roc_auc_score(yd, sd, sample_weight=wd, fpr_range=(0, max_fpr))
    # bit for bit even weighted: max_fpr is the range (0, max_fpr), the same tasks and float
    # operations in the same order (on any CPU)
    assert got == dask_auc.roc_auc_score(yd, sd, sample_weight=wd, max_fpr=max_fpr)
    assert got == pytest.approx(sklearn_auc(y, s, sample_weight=w, max_fpr=max_fpr), abs=1e-12)


@settings(max_examples=8, deadline=None)
@given(rows=scored_rows(min_size=2), standardized=st.booleans())
def test_the_whole_range_on_either_axis_is_the_auc(rows, standardized):
    """Over [0, 1] both areas are the AUC, and McClish's correction leaves it unchanged."""
    y, s, _ = rows
    auc = sklearn_auc(y, s)
    for axis in ("fpr_range", "tpr_range"):
        got = dask_auc.partial_roc_auc_score(y, s, standardized=standardized, **{axis: (0, 1)})
        assert got == pytest.approx(auc, abs=1e-15)


@settings(max_examples=8, deadline=None)
@given(rows=scored_rows(min_size=2), interval=ranges())
def test_a_tpr_range_is_an_fpr_range_of_the_mirrored_problem(rows, interval):
    """Swapping the classes and negating the scores turns the curve about (0.5, 0.5):

    the TPR interval [c, d] of (y, s) is the FPR interval [1 - d, 1 - c] of (1 - y, -s).
    """
    y, s, _ = rows
    c, d = interval
    assume(1 - d < 1 - c)  # a float interval that stays one when mirrored
    got = dask_auc.partial_roc_auc_score(y, s, tpr_range=(c, d), standardized=False)
    mirrored = dask_auc.partial_roc_auc_score(
        1 - y, -s, fpr_range=(1 - d, 1 - c), standardized=False
    )
    assert got == pytest.approx(mirrored, abs=1e-14)


def test_one_tie_group_across_every_partition_edge():
    """Every row on one score, cut into many partitions (some empty): the chance diagonal."""
    n = 40
    y = np.arange(n) % 3 == 0
    s = np.full(n, 0.5)
    cuts = [0, 0, 7, 7, 13, 29, 40, 40]
    for kind in ("array", "frame"):
        yd, sd, _ = _dask(kind, cuts, y.astype(int), s)
        for axis in ("fpr_range", "tpr_range"):
            with dask.config.set({"dask-auc.buckets": 5}):
                assert dask_auc.partial_roc_auc_score(yd, sd, **{axis: (0.2, 0.7)}) == 0.5
                raw = dask_auc.partial_roc_auc_score(
                    yd, sd, standardized=False, **{axis: (0.2, 0.7)}
                )
            chance = (
                0.5 * (0.7**2 - 0.2**2) if axis == "fpr_range" else 0.5 - 0.5 * (0.7**2 - 0.2**2)
            )
            assert raw == pytest.approx(chance, abs=1e-15)


def test_a_perfect_and_a_reversed_ranking():
    y = np.array([0] * 5 + [1] * 5)
    s = np.arange(10.0)
    for axis in ("fpr_range", "tpr_range"):
        assert dask_auc.partial_roc_auc_score(y, s, **{axis: (0.3, 0.6)}) == 1.0
        assert dask_auc.partial_roc_auc_score(y, s, standardized=False, **{axis: (0.3, 0.6)}) == (
            pytest.approx(0.3, abs=1e-15)
        )
        # below the diagonal: less than 0.5 (scikit-learn's max_fpr does the same; pROC: NA)
        assert dask_auc.partial_roc_auc_score(y, -s, **{axis: (0.3, 0.6)}) < 0.5


def test_one_class_is_nan_with_sklearns_warning():
    y, s = np.zeros(6, dtype=int), np.arange(6.0)
    for axis in ("fpr_range", "tpr_range"):
        with pytest.warns(dask_auc.UndefinedMetricWarning, match="Only one class"):
            assert np.isnan(dask_auc.partial_roc_auc_score(y, s, **{axis: (0.1, 0.5)}))


def test_classes_weighing_nothing():
    """Zero-weight negatives: scikit-learn's max_fpr error on the FPR axis; NaN on the TPR axis."""
    y, s = np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8])
    w = np.array([0.0, 0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="At least 2 points are needed"):
        dask_auc.partial_roc_auc_score(y, s, sample_weight=w, fpr_range=(0.1, 0.5))
    with pytest.raises(ValueError, match="At least 2 points are needed"):
        with pytest.warns(UserWarning, match="No negative samples"):
            sklearn_auc(y, s, sample_weight=w, max_fpr=0.5)
    with pytest.warns(dask_auc.UndefinedMetricWarning, match="No negative samples"):
        assert np.isnan(dask_auc.partial_roc_auc_score(y, s, sample_weight=w, tpr_range=(0.1, 0.5)))
    w = np.array([1.0, 1.0, 0.0, 0.0])
    with pytest.warns(dask_auc.UndefinedMetricWarning, match="No positive samples"):
        assert np.isnan(dask_auc.partial_roc_auc_score(y, s, sample_weight=w, tpr_range=(0.1, 0.5)))


def test_several_intervals_of_one_input_computed_together():
    """Each interval's tasks are its own: one dask_auc.compute gives every interval's value.

    (Two roc_auc_score(max_fpr=...) of one input used to share their cut tasks' keys.)
    """
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 300)
    s = np.round(rng.random(300) + 0.4 * y, 2)
    yd, sd = da.from_array(y, chunks=70), da.from_array(s, chunks=70)
    calls = [
        {"fpr_range": (0.1, 0.3)},
        {"fpr_range": (0.0, 0.3)},
        {"tpr_range": (0.1, 0.3)},
        {"tpr_range": (0.5, 0.9), "standardized": False},
    ]
    lazies = [dask_auc.partial_roc_auc_score(yd, sd, compute=False, **c) for c in calls]
    lazies += [dask_auc.roc_auc_score(yd, sd, max_fpr=m, compute=False) for m in (0.1, 0.3)]
    results = dask_auc.compute(*lazies)
    for call, got in zip(calls, results, strict=False):
        assert got == dask_auc.partial_roc_auc_score(yd, sd, **call)
    assert results[4] == pytest.approx(sklearn_auc(y, s, max_fpr=0.1), abs=1e-12)
    assert results[5] == pytest.approx(sklearn_auc(y, s, max_fpr=0.3), abs=1e-12)
    assert results[1] == results[5]


# -- parameter checks -----------------------------------------------------------------------

Y, S = np.array([0, 1, 0, 1]), np.array([0.1, 0.9, 0.4, 0.3])


@pytest.mark.parametrize(
    "bad", [(0.5, 0.2), (0.3, 0.3), (-0.1, 0.5), (0.2, 1.5), (0.1,), 0.3, "0,1", (0.1, np.nan)]
)
@pytest.mark.parametrize("axis", ["fpr_range", "tpr_range"])
def test_a_bad_range_raises_a_value_error_naming_it(axis, bad):
    message = (
        f"The '{axis}' parameter of partial_roc_auc_score must be a pair (low, high) of "
        "floats with 0 <= low < high <= 1 or None"
    )
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        dask_auc.partial_roc_auc_score(Y, S, **{axis: bad})


@pytest.mark.parametrize(
    "kwargs, given", [({}, "neither"), ({"fpr_range": (0, 1), "tpr_range": (0, 1)}, "both")]
)
def test_exactly_one_range(kwargs, given):
    with pytest.raises(ValueError, match=f"exactly one of fpr_range and tpr_range, got {given}"):
        dask_auc.partial_roc_auc_score(Y, S, **kwargs)


def test_other_parameters_are_checked():
    with pytest.raises(ValueError, match="'standardized' parameter"):
        dask_auc.partial_roc_auc_score(Y, S, fpr_range=(0, 1), standardized="yes")
    with pytest.raises(ValueError, match="'compute' parameter"):
        dask_auc.partial_roc_auc_score(Y, S, fpr_range=(0, 1), compute=None)


def test_ranges_accept_lists_integers_and_numpy_values():
    expected = dask_auc.partial_roc_auc_score(Y, S, fpr_range=(0.0, 1.0))
    assert dask_auc.partial_roc_auc_score(Y, S, fpr_range=[0, 1]) == expected
    assert dask_auc.partial_roc_auc_score(Y, S, fpr_range=np.array([0.0, 1.0])) == expected
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = dask_auc.partial_roc_auc_score(Y, S, tpr_range=(np.float32(0), 1))
    assert got == pytest.approx(expected, abs=1e-15)
