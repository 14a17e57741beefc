"""The per-sample ranking metrics and ``auc`` against scikit-learn and brute-force references.

``coverage_error``, ``label_ranking_average_precision_score``,
``label_ranking_loss``, ``dcg_score``, ``ndcg_score`` and
``top_k_accuracy_score``: values, warnings and error messages, on dask arrays
and dask DataFrame columns of any partitioning (one partition, many, empty
ones, partitions emptied by a filter), weighted (with zeros) or not, with
heavy ties.

Tolerances: dask-auc sums the rows' values exactly and rounds once, so its
result is the same bits for any partitioning (checked with ``==``);
scikit-learn sums the same values in floats (pairwise, or LRAP's running
sum), so the two agree within a few ulps of the sum: ``rtol=1e-12`` here, on
non-negative values (DCG of gains of both signs: relative to the sum of the
absolute values).  Coverage (a mean of integers) and unweighted top-k
accuracy (a count over the rows) are exact in both and compared with ``==``.

scikit-learn's own tests of these functions (``sklearn/metrics/tests/test_ranking.py``)
run at the end with dask-auc's functions in their place.
"""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics._ranking import _dcg_sample_scores, _ndcg_sample_scores

import dask_auc
from dask_auc._kernels.core.summary import UNIT_BITS, as_float, exact_total
from dask_auc._kernels.per_row.ranking_values import (
    coverage_values,
    dcg_values,
    discounts,
    lrap_values,
    ndcg_values,
    ranking_loss_values,
    ranking_sums,
)
from dask_auc._kernels.per_row.row_sums import merge_row_sums, row_sums
from references import run_and_record
from strategies import boundaries, dask_frame

MULTILABEL = [
    "coverage_error",
    "label_ranking_average_precision_score",
    "label_ranking_loss",
    "dcg_score",
    "ndcg_score",
]
RTOL = 1e-12


def _run(function, *args, **kwargs):
    """(result or error, the set of warning messages)."""
    errors = (ValueError, TypeError, ZeroDivisionError)
    return run_and_record(lambda: function(*args, **kwargs), errors=errors)


def _same_bits(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def _dask_inputs(layout, cuts, y, s, w=None):
    """y and s (2-D, or y 1-D) and w, as dask arrays cut at ``cuts`` or columns of one frame.

    ``"filtered"``: a frame with extra rows, removed by a filter (which leaves
    partitions empty), whose remaining rows are exactly ``y``, ``s``, ``w``.
    """
    sizes = tuple(int(b - a) for a, b in zip(cuts[:-1], cuts[1:], strict=True))
    if layout == "array":
        arrays = [da.from_array(x, chunks=(sizes, *x.shape[1:])) for x in (y, s)]
        return (*arrays, None if w is None else da.from_array(w, chunks=(sizes,)))
    columns, names = {}, {}
    for role, values in (("y", y), ("s", s)):
        if values.ndim == 2:
            names[role] = [f"{role}{j}" for j in range(values.shape[1])]
            columns.update({name: values[:, j] for j, name in enumerate(names[role])})
        else:
            names[role] = role
            columns[role] = values
    if w is not None:
        columns["w"] = w
    if layout == "filtered":
        columns, cuts = _with_dropped_rows(columns, cuts)
    frame = dask_frame(columns, cuts)
    if layout == "filtered":
        frame = frame[frame["keep"]]
    return (
        frame[names["y"]],
        frame[names["s"]],
        None if w is None else frame["w"],
    )


def _with_dropped_rows(columns, cuts):
    """The columns with a row to drop before every kept row, and a run of them at the end."""
    n = len(next(iter(columns.values())))
    order = []
    for i in range(n):
        order += [-1, i]
    order += [-1, -1, -1]
    index = np.array([max(i, 0) for i in order])
    keep = np.array([i >= 0 for i in order])
    out = {name: np.asarray(values)[index] for name, values in columns.items()}
    out["keep"] = keep
    new_cuts = [0, *[2 * c for c in cuts[1:-1]], len(order)]
    return out, new_cuts


@st.composite
def multilabel_cases(draw, gains: bool = False, weighted: bool | None = None):
    """``(y, s, w)``: an indicator matrix (or gains 0..3), heavily tied scores, weights."""
    n = draw(st.integers(1, 45))
    k = draw(st.integers(2, 7))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if gains:
        y = rng.integers(0, 4, (n, k)) * (rng.random((n, 1)) < 0.8)
    else:
        density = rng.choice([0.0, 0.2, 0.5, 0.9, 1.0], size=(n, 1))
        y = (rng.random((n, k)) < density).astype(int)
    distinct = draw(st.sampled_from([1, 2, 3, 10, 1000]))
    s = rng.integers(0, distinct, (n, k)) / distinct
    if weighted is None:
        weighted = draw(st.booleans())
    w = None
    if weighted:
        w = rng.choice([0.0, 0.5, 1.0, 3.0, rng.random()], size=n)
        if w.sum() == 0:
            w[0] = 1.0
    return y, s, w


@st.composite
def partitioned(draw, n: int):
    cuts = draw(boundaries(n))
    return sorted(cuts + draw(st.lists(st.sampled_from(cuts), max_size=3)))


def _sklearn(name, y, s, w, **options):
    return getattr(skm, name)(y, s, sample_weight=w, **options)


# -- values against scikit-learn ----------------------------------------------------------------


@pytest.mark.parametrize("name", MULTILABEL)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_multilabel_metrics_equal_sklearn_on_any_partitioning(name, data) -> None:
    """scikit-learn's value (to a few ulps), the same bits for every partitioning and layout."""
    y, s, w = data.draw(multilabel_cases(gains=name in ("dcg_score", "ndcg_score")))
    options = {}
    if name in ("dcg_score", "ndcg_score"):
        options["k"] = data.draw(st.sampled_from([None, 1, 2, y.shape[1], y.shape[1] + 3]))
        options["ignore_ties"] = data.draw(st.booleans())
    expected, expected_warnings = _run(_sklearn, name, y, s, w, **options)
    function = getattr(dask_auc, name)
    whole = function(y, s, sample_weight=w, **options)
    cuts = data.draw(partitioned(len(y)))
    layout = data.draw(st.sampled_from(["array", "frame", "filtered"]))
    dy, ds, dw = _dask_inputs(layout, cuts, y, s, w)
    got, got_warnings = _run(function, dy, ds, sample_weight=dw, **options)
    assert got_warnings == expected_warnings
    assert _same_bits(got, whole), (got, whole)
    if name == "coverage_error" and w is None:
        assert got == expected  # integers over the row count: exact in both
    else:  # ignore_ties with ties too: NumPy's argsort of each row, as scikit-learn's
        np.testing.assert_allclose(got, expected, rtol=RTOL)


@pytest.mark.parametrize("name", ["dcg_score", "ndcg_score"])
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_ignore_ties_equals_sklearn_without_ties(name, data) -> None:
    """``ignore_ties=True`` on distinct scores is scikit-learn's, and equals the tie average."""
    y, _, w = data.draw(multilabel_cases(gains=True))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    s = np.argsort(rng.random(y.shape), axis=1) / 10  # distinct in every row
    k = data.draw(st.sampled_from([None, 1, 3]))
    function = getattr(dask_auc, name)
    fast = function(da.from_array(y, chunks=(7, -1)), s, sample_weight=w, k=k, ignore_ties=True)
    np.testing.assert_allclose(fast, _sklearn(name, y, s, w, k=k, ignore_ties=True), rtol=RTOL)
    np.testing.assert_allclose(fast, function(y, s, sample_weight=w, k=k), rtol=RTOL)


def test_dcg_of_gains_of_both_signs() -> None:
    """Negative gains (dcg_score takes them): the exact sum, within ulps of the absolute sum."""
    rng = np.random.default_rng(3)
    y = rng.normal(0, 1e3, (300, 6))
    s = rng.integers(0, 3, (300, 6)).astype(float)
    got = dask_auc.dcg_score(da.from_array(y, chunks=(41, 6)), da.from_array(s, chunks=(41, 6)))
    expected = skm.dcg_score(y, s)
    scale = np.abs(_dcg_sample_scores(np.abs(y), s)).mean()
    assert abs(got - expected) <= 1e-12 * scale
    assert got == dask_auc.dcg_score(y, s)


# -- per-row values: scikit-learn's, and brute-force references ----------------------------------


def _discount(k_columns, k=None, log_base=2):
    return discounts(k_columns, k, log_base)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_tie_averaged_dcg_rows_equal_sklearn_bit_for_bit(data) -> None:
    """Per row, DCG and NDCG with tie averaging are scikit-learn's bits (< 8 tie groups).

    scikit-learn's ``_tie_averaged_dcg`` sums a row's tie groups with NumPy's
    pairwise sum, sequential below 8 terms: rows of fewer distinct scores are
    the same bits; others within ulps.
    """
    y, s, _ = data.draw(multilabel_cases(gains=True, weighted=False))
    y = y * data.draw(st.sampled_from([1, 0.37, 1e-300, 7e10]))
    k = data.draw(st.sampled_from([None, 1, 2, 5]))
    expected = _dcg_sample_scores(y, s, k=k)
    got = dcg_values(y, s, _discount(y.shape[1], k), False)
    few = np.array([len(np.unique(row)) < 8 for row in s])
    np.testing.assert_array_equal(got[few], expected[few])
    np.testing.assert_allclose(got, expected, rtol=RTOL)
    expected = _ndcg_sample_scores(y, s, k=k)
    got = ndcg_values(y, s, _discount(y.shape[1], k), False)
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=0)


def _tie_average_reference(gains, scores, k):
    """DCG averaged over every order of the tied items (McSherry & Najork's definition)."""
    positions = len(gains)
    discount = [1 / math.log2(i + 2) if k is None or i < k else 0.0 for i in range(positions)]
    groups = [np.flatnonzero(scores == value) for value in np.unique(scores)[::-1]]
    total, orders = 0.0, 0
    for arrangement in itertools.product(*(itertools.permutations(g) for g in groups)):
        ranked = [i for group in arrangement for i in group]
        total += sum(discount[p] * gains[i] for p, i in enumerate(ranked))
        orders += 1
    return total / orders


@pytest.mark.parametrize("k", [None, 1, 2, 4])
def test_tie_averaged_dcg_is_the_mean_over_every_order_of_the_ties(k) -> None:
    """An independent reference: enumerate every tie-breaking order and average the DCG."""
    rng = np.random.default_rng(k or 0)
    for _ in range(40):
        size = int(rng.integers(2, 6))
        gains = rng.integers(0, 5, size).astype(float)
        scores = rng.integers(0, 3, size).astype(float)
        got = dcg_values(gains[None], scores[None], _discount(size, k), False)[0]
        assert got == pytest.approx(_tie_average_reference(gains, scores, k), rel=1e-12)


def _brute_force(name, truth, scores):
    """Per-row references from the definitions, in exact rationals where they are ratios."""
    values = []
    for t, s in zip(truth, scores, strict=True):
        relevant = np.flatnonzero(t != 0)
        others = np.flatnonzero(t == 0)
        if name == "coverage_error":
            values.append(0 if not len(relevant) else int((s >= s[relevant].min()).sum()))
        elif name == "label_ranking_average_precision_score":
            if len(relevant) in (0, len(t)):
                values.append(Fraction(1))
                continue
            ratios = [
                Fraction(int((s[relevant] >= s[j]).sum()), int((s >= s[j]).sum())) for j in relevant
            ]
            values.append(sum(ratios) / len(relevant))
        else:
            if len(relevant) in (0, len(t)):
                values.append(Fraction(0))
                continue
            bad = sum(int(s[i] <= s[j]) for i in relevant for j in others)
            values.append(Fraction(bad, len(relevant) * len(others)))
    return values


@pytest.mark.parametrize(
    "name", ["coverage_error", "label_ranking_average_precision_score", "label_ranking_loss"]
)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_multilabel_rows_equal_brute_force_definitions(name, data) -> None:
    """Each row's value from the definition (pairs and ranks counted one by one)."""
    y, s, _ = data.draw(multilabel_cases(weighted=False))
    kernel = {
        "coverage_error": coverage_values,
        "label_ranking_average_precision_score": lrap_values,
        "label_ranking_loss": ranking_loss_values,
    }[name]
    got = kernel(y, s)
    expected = _brute_force(name, y, s)
    if name == "coverage_error":
        np.testing.assert_array_equal(got, expected)
    elif name == "label_ranking_loss":  # one division of two integers: correctly rounded
        np.testing.assert_array_equal(got, [float(v) for v in expected])
    else:
        np.testing.assert_allclose(got, [float(v) for v in expected], rtol=1e-14)
    mean = sum(Fraction(v) for v in expected) / len(expected)
    assert getattr(dask_auc, name)(y, s) == pytest.approx(float(mean), rel=1e-14)


def test_integer_scores_beyond_float_precision_stay_exact() -> None:
    """Integer scores are compared as integers (2**60 + 1 and 2**60 differ)."""
    big = 2**60
    y = np.array([[1, 0, 0]])
    s = np.array([[big, big + 1, big - 1]], dtype=np.int64)
    assert coverage_values(y, s)[0] == skm.coverage_error(y, s) == 2


# -- adversarial cases --------------------------------------------------------------------------

ADVERSARIAL = {
    "all scores equal": (
        np.array([[1, 0, 1, 0], [0, 0, 0, 1], [1, 1, 1, 1]]),
        np.full((3, 4), 0.5),
    ),
    "rows with no relevant label": (
        np.array([[0, 0, 0], [0, 0, 0], [1, 0, 0]]),
        np.array([[0.1, 0.2, 0.3], [0.3, 0.3, 0.1], [0.2, 0.2, 0.2]]),
    ),
    "every label relevant": (np.ones((2, 3), int), np.array([[0.1, 0.2, 0.3], [3, 2, 1]])),
    "one row": (np.array([[0, 1, 1, 0, 1]]), np.array([[5, 5, 1, 5, 0]])),
    "two labels": (np.array([[1, 0], [0, 1], [1, 1]]), np.array([[0, 0], [1, 0], [2, 3]])),
    "negative and -0.0 scores": (
        np.array([[1, 0, 1], [0, 1, 0]]),
        np.array([[-0.0, 0.0, -1.0], [-2.0, -0.0, 0.0]]),
    ),
}


@pytest.mark.parametrize("case", ADVERSARIAL, ids=list(ADVERSARIAL))
@pytest.mark.parametrize("name", MULTILABEL)
@pytest.mark.parametrize("weights", ["none", "with zeros"])
def test_adversarial_inputs_equal_sklearn(case, name, weights) -> None:
    y, s = ADVERSARIAL[case]
    w = None if weights == "none" else np.resize([0.0, 2.0, 0.5], len(y))
    options_list = [{}]
    if name in ("dcg_score", "ndcg_score"):
        width = y.shape[1]
        options_list = [
            {"k": k, "ignore_ties": ignore}
            for k in (None, 1, width - 1, width, width + 2)
            for ignore in (False, True)
        ]
    layouts = list(
        itertools.product(
            ([0, len(y)], [0, 1, 1, len(y)], [0, 0, len(y), len(y)]), ("array", "frame")
        )
    )
    # every option on two of the six partitionings and layouts, in turn, so that each of
    # the six meets several options (DCG's ten options on all six: 60 calls, a CI cost of
    # its own); one option alone is run on all six
    per_option = 2 if len(options_list) > 1 else len(layouts)
    for i, options in enumerate(options_list):
        expected = _run(_sklearn, name, y, s, w, **options)
        for j in range(per_option):
            cuts, layout = layouts[(i * per_option + j) % len(layouts)]
            dy, ds, dw = _dask_inputs(layout, cuts, y, s, w)
            got = _run(getattr(dask_auc, name), dy, ds, sample_weight=dw, **options)
            assert got[1] == expected[1]
            if isinstance(expected[0], str):  # weights summing to zero
                assert got[0] == expected[0]
            else:
                np.testing.assert_allclose(got[0], expected[0], rtol=RTOL)


def test_ignore_ties_with_ties_is_numpys_order_as_in_sklearn() -> None:
    """With ties, ``ignore_ties=True`` follows ``np.argsort`` as scikit-learn does (documented)."""
    y, s = np.array([[10, 0, 0, 1, 5]]), np.array([[1, 0, 0, 0, 1]])
    for name in ("dcg_score", "ndcg_score"):
        for k in (None, 1, 2):
            expected = _sklearn(name, y, s, None, k=k, ignore_ties=True)
            assert getattr(dask_auc, name)(y, s, k=k, ignore_ties=True) == expected
    assert dask_auc.dcg_score(y, s, k=1) == 7.5  # the tie average, not 5.0 or 10.0


def test_one_column_lrap_is_one_as_in_sklearn() -> None:
    y, s = np.array([[1], [0], [1], [0]]), np.full((4, 1), 0.5)
    assert dask_auc.label_ranking_average_precision_score(y, s) == 1.0
    assert skm.label_ranking_average_precision_score(y, s) == 1.0


def test_sparse_y_true_is_accepted_where_sklearn_accepts_it() -> None:
    from scipy.sparse import csr_matrix

    y = csr_matrix(np.array([[1, 0, 0], [0, 0, 1]]))
    s = np.array([[0.5, 0.9, 0.6], [0, 0, 1]])
    for name in ("label_ranking_average_precision_score", "label_ranking_loss"):
        assert getattr(dask_auc, name)(y, s) == getattr(skm, name)(y, s)


def test_zero_weights_sum_as_sklearn() -> None:
    """Weights summing to 0: scikit-learn's ZeroDivisionError, LRAP's NaN with NumPy's warning."""
    y, s = np.array([[1, 0, 1], [0, 1, 0]]), np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]])
    w = da.zeros(2, chunks=1)
    for name in MULTILABEL:
        expected = _run(_sklearn, name, y, s, np.zeros(2))
        got = _run(getattr(dask_auc, name), y, s, sample_weight=w)
        if isinstance(expected[0], float):
            assert math.isnan(got[0]) and math.isnan(expected[0])
            assert got[1] == expected[1]
        else:
            assert got == expected


def test_large_values_and_many_rows_sum_exactly() -> None:
    """Sums far beyond float precision (1e300 gains beside small ones) stay exact."""
    y = np.array([[1e300, 1.0], [1.0, 1e-300], [3.0, 0.0]])
    s = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    values = dcg_values(y, s, _discount(2), False)
    exact = sum(Fraction(v) for v in values) / 3
    assert dask_auc.dcg_score(da.from_array(y, chunks=(1, 2)), s) == float(exact)


# -- top-k accuracy -----------------------------------------------------------------------------


@st.composite
def top_k_cases(draw):
    n = draw(st.integers(1, 40))
    n_classes = draw(st.integers(2, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.integers(0, n_classes, n)
    distinct = draw(st.sampled_from([1, 2, 3, 100]))
    p = rng.integers(0, distinct, (n, n_classes)) / distinct
    given_labels = draw(st.booleans())
    kind = draw(st.sampled_from(["int", "str"]))
    classes = (
        np.arange(n_classes) if kind == "int" else np.array([f"c{i}" for i in range(n_classes)])
    )
    y = classes[y]
    if not given_labels and len(np.unique(y)) < n_classes:
        y[:n_classes] = classes[: min(n, n_classes)]
        if len(np.unique(y)) < n_classes:
            given_labels = True
    w = None
    if draw(st.booleans()):
        w = rng.choice([0.0, 0.5, 1.0, 3.0, rng.random()], size=n)
        if w.sum() == 0:
            w[0] = 1.0
    return y, p, w, (classes if given_labels else None)


@settings(max_examples=25, deadline=None)
@given(data=st.data(), k=st.integers(1, 6), normalize=st.booleans())
def test_top_k_equals_sklearn(data, k, normalize) -> None:
    """Multi-class, with ties, string or integer classes, labels or not, weighted or not."""
    y, p, w, labels = data.draw(top_k_cases())
    options = {"k": k, "normalize": normalize, "labels": labels}
    expected = _run(skm.top_k_accuracy_score, y, p, sample_weight=w, **options)
    cuts = data.draw(partitioned(len(y)))
    layout = data.draw(st.sampled_from(["array", "frame", "filtered"]))
    dy, dp, dw = _dask_inputs(layout, cuts, y, p, w)
    got = _run(dask_auc.top_k_accuracy_score, dy, dp, sample_weight=dw, **options)
    assert got[1] == expected[1]
    if w is None or isinstance(expected[0], str):
        assert got[0] == expected[0]  # a count (over the rows): exact in both; or an error
    else:
        np.testing.assert_allclose(got[0], expected[0], rtol=RTOL)
        in_memory = _run(dask_auc.top_k_accuracy_score, y, p, sample_weight=w, **options)
        assert got == in_memory


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize(
    "scores",
    [
        np.array([0.2, 0.7, 0.5, 0.5, 0.9, 0.0]),  # in [0, 1]: threshold 0.5
        np.array([-1.0, 0.3, 0.0, 2.0, -0.5, 0.7]),  # outside: threshold 0
        np.array([0, 1, 1, 0, 1, 1]),  # integers
        np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
    ],
)
@pytest.mark.parametrize("labels", [[0, 1], [True, False], ["no", "yes"]])
def test_top_k_binary_equals_sklearn(k, scores, labels) -> None:
    """A 1-D y_score: scikit-learn's threshold from all rows' extremes, across blocks."""
    y = np.array(labels * 3, dtype=object if isinstance(labels[0], str) else None)
    expected = _run(skm.top_k_accuracy_score, y, scores, k=k)
    for cuts in ([0, 6], [0, 3, 3, 6], [0, 1, 2, 3, 4, 5, 6]):
        dy, ds, _ = _dask_inputs("frame", cuts, y, scores)
        assert _run(dask_auc.top_k_accuracy_score, dy, ds, k=k) == expected


TOP_K_ERRORS = [
    ([0, 0.57, 1, 2], np.full((4, 3), 1 / 3), None),
    ([0, 1, 2, 3], np.full((4, 3), 1 / 3), None),
    (["c", "c", "a", "b"], np.full((4, 3), 1 / 3), ["a", "b", "c", "c"]),
    (["c", "c", "a", "b"], np.full((4, 3), 1 / 3), ["a", "c", "b"]),
    ([0, 0, 1, 2], np.full((4, 3), 1 / 3), [0, 1, 2, 3]),
    ([0, 0, 1, 2], np.full((4, 3), 1 / 3), [0, 1, 3]),
    ([0, 1], np.array([[0.5, 0.2, 0.2], [0.3, 0.4, 0.2]]), None),
    ([0, 1, 2, 0], np.array([0.5, 0.4, 0.8, 0.9]), None),
    ([0, 1, 1, 0], np.array([0.5, 0.4, 0.8, 0.9]), [0, 1, 2]),
    ([1, 1, 1, 1], np.array([0.5, 0.4, 0.8, 0.9]), None),
    ([0, 1, np.nan, 1], np.full((4, 3), 1 / 3), None),
    ([0, 1, 2, 2], np.array([[0.5, 0.5, np.nan]] * 4), None),
    ([0, 1, 2, 2], np.array([[0.5, 0.5, np.inf]] * 4), None),
    ([0, 1, 2, 2], np.full((4, 3), 1 / 3), [[0, 1, 2]]),
    ([0, 1, 2, 2], np.full((4, 3), 1 / 3), []),
    (np.array([], dtype=int), np.empty((0, 3)), None),
    ([0, 1, 2, 2], np.full((4, 3, 1), 1 / 3), None),
    ([0, 1, 2], np.full((4, 3), 1 / 3), None),
]


@pytest.mark.parametrize("case", range(len(TOP_K_ERRORS)))
def test_top_k_errors_are_sklearns(case) -> None:
    y, p, labels = TOP_K_ERRORS[case]
    y = np.asarray(y)
    expected = _run(skm.top_k_accuracy_score, y, p, k=2, labels=labels)
    assert isinstance(expected[0], str), expected
    assert _run(dask_auc.top_k_accuracy_score, y, p, k=2, labels=labels) == expected
    if len(y) == len(p) and p.ndim <= 2 and len(y):
        dy, dp, _ = _dask_inputs("array", [0, 1, len(y)], y, p)
        assert _run(dask_auc.top_k_accuracy_score, dy, dp, k=2, labels=labels) == expected


@pytest.mark.parametrize(
    "options",
    [{"k": 0}, {"k": None}, {"k": 1.0}, {"normalize": 1}, {"labels": "abc"}],
)
def test_top_k_parameter_errors_are_sklearns(options) -> None:
    y, p = np.array([0, 1, 2]), np.eye(3)
    expected = _run(skm.top_k_accuracy_score, y, p, **options)
    assert _run(dask_auc.top_k_accuracy_score, y, p, **options) == expected


# -- errors of the multilabel metrics -----------------------------------------------------------

_Y = np.array([[1, 0, 1], [0, 1, 0]])
_S = np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]])
ERROR_CASES = {
    "NaN in y_true": (np.array([[1, 0, np.nan], [0, 1, 0]]), _S, None),
    "NaN in y_score": (_Y, np.array([[1, 0, np.nan], [0, 1, 0]]), None),
    "inf in y_score": (_Y, np.array([[1, 0, np.inf], [0, 1, 0]]), None),
    "inf in y_true": (np.array([[1, 0, np.inf], [0, 1, 0]]), _S, None),
    "no rows": (_Y[:0], _S[:0], None),
    "1-D binary": (np.array([1, 0, 1]), np.array([0.1, 0.2, 0.3]), None),
    "1-D multiclass": (np.array([1, 0, 2]), np.array([0.1, 0.2, 0.3]), None),
    "1-D y_true, 2-D y_score": (np.array([1, 0]), _S, None),
    "fewer score columns": (_Y, _S[:, :2], None),
    "fewer score rows": (_Y, _S[:1], None),
    "multiclass-multioutput": (np.array([[1, 2, 3], [0, 1, 0]]), _S, None),
    "continuous-multioutput": (np.array([[1.5, 2, 3], [0, 1, 0]]), _S, None),
    "one binary column": (_Y[:, :1], _S[:, :1], None),
    "one multiclass column": (np.array([[1], [2], [3]]), np.array([[1], [2], [3]]), None),
    "weights sum to zero": (_Y, _S, np.zeros(2)),
    "too many weights": (_Y, _S, np.ones(3)),
    "negative gains": (np.array([[-1, 1, 1], [1, -1, 1]]), _S, None),
    "strings": (np.array([["a", "b"], ["b", "a"]]), _S[:, :2], None),
    "one document": (np.array([[1], [0]]), np.array([[1.0], [2.0]]), None),
    "3-D": (_Y[:, :, None], _S[:, :, None], None),
}
# scikit-learn's dcg/ndcg of different widths fails by accident ("array is not
# broadcastable to correct shape", IndexError): dask-auc says what is wrong
_DIFFERENT_WIDTHS = {("fewer score columns", "dcg_score"), ("fewer score columns", "ndcg_score")}


@pytest.mark.parametrize("case", ERROR_CASES, ids=list(ERROR_CASES))
@pytest.mark.parametrize("name", MULTILABEL)
def test_multilabel_errors_are_sklearns(case, name) -> None:
    y, s, w = ERROR_CASES[case]
    expected = _run(_sklearn, name, y, s, w)
    got = _run(getattr(dask_auc, name), y, s, sample_weight=w)
    if (case, name) in _DIFFERENT_WIDTHS:
        assert got == ("ValueError: y_true and y_score have different shape", set())
        return
    if isinstance(expected[0], float):  # valid after all (e.g. {-1, 1} is an indicator)
        assert got[1] == expected[1]
        np.testing.assert_allclose(got[0], expected[0], rtol=RTOL)  # NaN equal to NaN
        return
    assert got == expected
    frame_able = w is None or len(w) == len(y)
    if y.ndim == 2 and y.shape == s.shape and len(y) and frame_able and not case.startswith("3"):
        dy, ds, dw = _dask_inputs("frame", [0, 1, len(y)], y, s, w)
        assert _run(getattr(dask_auc, name), dy, ds, sample_weight=dw) == expected


def test_one_dimensional_dask_input_of_coverage_error_names_the_problem() -> None:
    """Without the data scikit-learn prints, the message starts as scikit-learn's."""
    y = da.from_array(np.array([1, 0, 1]), chunks=2)
    with pytest.raises(ValueError, match=r"^Expected 2D array, got 1D array instead:"):
        dask_auc.coverage_error(y, y)


@pytest.mark.parametrize(
    "name, options",
    [
        ("dcg_score", {"k": 0}),
        ("dcg_score", {"k": 1.0}),
        ("dcg_score", {"log_base": 0}),
        ("dcg_score", {"ignore_ties": 1}),
        ("ndcg_score", {"k": 0}),
        ("ndcg_score", {"ignore_ties": "yes"}),
    ],
)
def test_parameter_errors_are_sklearns(name, options) -> None:
    expected = _run(getattr(skm, name), _Y, _S, **options)
    assert _run(getattr(dask_auc, name), _Y, _S, **options) == expected


def test_log_base_one_warns_as_sklearn_in_the_caller() -> None:
    expected = _run(skm.dcg_score, _Y, _S, log_base=1)
    assert _run(dask_auc.dcg_score, da.from_array(_Y), da.from_array(_S), log_base=1) == expected


def test_checks_run_before_any_row_is_scored(monkeypatch) -> None:
    """The plan's checks gate the row kernels: a wrong target scores no row."""
    from dask_auc import _per_row

    scored = []

    def spy(*args, **kwargs):
        scored.append(1)
        return ranking_sums(*args, **kwargs)

    monkeypatch.setattr(_per_row, "ranking_sums", spy)
    y = da.from_array(np.array([[1, 2, 3], [0, 1, 0]] * 4), chunks=(2, 3))
    s = da.from_array(np.tile(_S, (4, 1)), chunks=(2, 3))
    with pytest.raises(ValueError, match="multiclass-multioutput format is not supported"):
        dask_auc.coverage_error(y, s)
    assert not scored
    dask_auc.coverage_error(y % 2, s)
    assert len(scored) == 4


# -- laziness and graphs ------------------------------------------------------------------------


def _refuse(dsk, keys, **kwargs):
    raise AssertionError(f"computed {keys!r} while building a graph")


@pytest.mark.parametrize("name", [*MULTILABEL, "top_k_accuracy_score"])
@pytest.mark.parametrize("layout", ["array", "frame"])
def test_compute_false_builds_a_lazy_score_without_computing(name, layout) -> None:
    rng = np.random.default_rng(9)
    if name == "top_k_accuracy_score":
        y, s = rng.integers(0, 3, 30), rng.random((30, 3))
    else:
        y, s = (rng.random((30, 4)) < 0.4).astype(int), rng.integers(0, 3, (30, 4)) / 3
    w = rng.random(30)
    dy, ds, dw = _dask_inputs(layout, [0, 10, 10, 30], y, s, w)
    function = getattr(dask_auc, name)
    with dask.config.set(scheduler=_refuse):
        lazy = function(dy, ds, sample_weight=dw, compute=False)
    assert isinstance(lazy, dask_auc.LazyScore)
    assert lazy.compute() == function(y, s, sample_weight=w)
    (together,) = dask_auc.compute(lazy)
    assert together == lazy.compute()


def test_several_metrics_in_one_pass() -> None:
    rng = np.random.default_rng(4)
    y, s = (rng.random((50, 5)) < 0.3).astype(int), rng.random((50, 5))
    dy, ds = da.from_array(y, chunks=(9, 5)), da.from_array(s, chunks=(9, 5))
    lazies = [getattr(dask_auc, name)(dy, ds, compute=False) for name in MULTILABEL]
    results = dask_auc.compute(*lazies)
    assert results == tuple(getattr(dask_auc, name)(y, s) for name in MULTILABEL)


@pytest.mark.parametrize("split_every", [2, 3, 100])
def test_split_every_shapes_the_tree_not_the_result(split_every) -> None:
    rng = np.random.default_rng(5)
    y, s = (rng.random((64, 3)) < 0.5).astype(int), rng.random((64, 3))
    dy, ds = da.from_array(y, chunks=(4, 3)), da.from_array(s, chunks=(4, 3))
    lazy = dask_auc.label_ranking_loss(dy, ds, compute=False, split_every=split_every)
    baseline = dask_auc.label_ranking_loss(dy, ds, compute=False, split_every=100)
    assert lazy.compute() == baseline.compute()
    if split_every == 2:  # 16 blocks: a tree of 15 merges instead of one
        assert len(dict(lazy.__dask_graph__())) == len(dict(baseline.__dask_graph__())) + 14


def test_many_partitions_with_empty_ones() -> None:
    """300 partitions of 200 rows, most of them empty: the one-partition bits.

    Above ``dask-auc.measure-above`` (64): the unknown lengths are measured, the tiny
    partitions joined into blocks.
    """
    rng = np.random.default_rng(800)
    n = 200
    y, s = (rng.random((n, 4)) < 0.3).astype(int), rng.integers(0, 4, (n, 4)) / 4
    w = rng.choice([0.0, 1.0, 2.5], n)
    cuts = [0, *np.sort(rng.integers(0, n + 1, 299)).tolist(), n]
    assert sum(a == b for a, b in zip(cuts[:-1], cuts[1:], strict=True)) > 100
    dy, ds, dw = _dask_inputs("frame", cuts, y, s, w)
    got = dask_auc.ndcg_score(dy, ds, sample_weight=dw)  # ~1.5 s: 300 partitions measured
    assert got == dask_auc.ndcg_score(y, s, sample_weight=w)
    np.testing.assert_allclose(got, skm.ndcg_score(y, s, sample_weight=w), rtol=RTOL)


# -- exact sums ---------------------------------------------------------------------------------

_FINITE = st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(_FINITE, max_size=40), cut=st.integers(0, 40))
def test_exact_total_is_the_rational_sum(values, cut) -> None:
    """Any finite floats (subnormals, 1e308, signs): the exact sum, split anywhere."""
    array = np.array(values, dtype=np.float64)
    exact = sum((Fraction(v) for v in values), Fraction(0))
    assert exact_total(array) == exact * 2**UNIT_BITS
    parts = [row_sums([array[:cut]], None), row_sums([array[cut:]], None)]
    merged = merge_row_sums(parts)
    assert merged.totals[0] == exact_total(array)
    try:
        rounded = float(exact)
    except OverflowError:
        rounded = math.inf if exact > 0 else -math.inf
    assert as_float(merged.totals[0]) == rounded


# -- auc ----------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    x=st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=30),
    y=st.lists(st.floats(-1e6, 1e6), min_size=30, max_size=30),
    decreasing=st.booleans(),
    dtype=st.sampled_from([np.float64, np.float32, np.int64]),
)
def test_auc_equals_sklearn(x, y, decreasing, dtype) -> None:
    xs = np.sort(np.array(x))[:: -1 if decreasing else 1].astype(dtype)
    ys = np.array(y[: len(x)]).astype(dtype)
    assert _run(dask_auc.auc, xs, ys) == _run(skm.auc, xs, ys)


@pytest.mark.parametrize(
    "x, y",
    [
        ([0.0, 0.5, 1.0], [0.1, 0.2]),
        ([0.0], [0.1]),
        ([2, 1, 3, 4], [5, 6, 7, 8]),
        ([[0, 1], [1, 2]], [1, 2]),
        ([[0], [1]], [[1], [2]]),
        ([1, 0, 0], [0, 1, 1]),
    ],
)
def test_auc_errors_and_edge_cases_are_sklearns(x, y) -> None:
    assert _run(dask_auc.auc, x, y) == _run(skm.auc, x, y)


def test_auc_of_dask_curve_arrays() -> None:
    fpr, tpr, _ = dask_auc.roc_curve(np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]))
    assert dask_auc.auc(da.from_array(fpr), da.from_array(tpr)) == skm.auc(fpr, tpr) == 0.75


# -- scikit-learn's own tests, with dask-auc's functions ----------------------------------------

UPSTREAM_TESTS = [
    "test_auc",
    "test_auc_errors",
    "test_multiclass_ranking_metrics_raise_for_incorrect_shape_of_y_score",
    "test_label_ranking_avp",
    "test_lrap_error_raised",
    "test_alternative_lrap_implementation",
    "test_lrap_sample_weighting_zero_labels",
    "test_coverage_error",
    "test_coverage_tie_handling",
    "test_coverage_1d_error_message",
    "test_label_ranking_loss",
    "test_label_ranking_loss_sparse",
    "test_ranking_appropriate_input_shape",
    "test_ranking_loss_ties_handling",
    "test_dcg_score",
    "test_dcg_ties",
    "test_ndcg_ignore_ties_with_k",
    "test_ndcg_negative_ndarray_error",
    "test_ndcg_invariant",
    "test_ndcg_toy_examples",
    "test_ndcg_error_single_document",
    "test_ndcg_score",
    "test_top_k_accuracy_score",
    "test_top_k_accuracy_score_binary",
    "test_top_k_accuracy_score_multiclass_with_labels",
    "test_top_k_accuracy_score_increasing",
    "test_top_k_accuracy_score_ties",
    "test_top_k_accuracy_score_warning",
    "test_top_k_accuracy_score_error",
    "test_label_ranking_avg_precision_score_should_allow_csr_matrix_for_y_true_input",
]


def _our_dcg_sample_scores(y_true, y_score, k=None, log_base=2, ignore_ties=False):
    y_true, y_score = np.asarray(y_true), np.asarray(y_score)
    discount = discounts(y_true.shape[1], k, log_base)
    return dcg_values(y_true, y_score, discount, ignore_ties)


def _our_ndcg_sample_scores(y_true, y_score, k=None, ignore_ties=False):
    y_true, y_score = np.asarray(y_true), np.asarray(y_score)
    discount = discounts(y_true.shape[1], k, 2)
    return ndcg_values(y_true, y_score, discount, ignore_ties)


def _replacements():
    names = [
        "auc",
        "average_precision_score",
        "roc_auc_score",
        "coverage_error",
        "dcg_score",
        "label_ranking_average_precision_score",
        "label_ranking_loss",
        "ndcg_score",
        "top_k_accuracy_score",
    ]
    ours = {name: getattr(dask_auc, name) for name in names}
    ours["_dcg_sample_scores"] = _our_dcg_sample_scores
    ours["_ndcg_sample_scores"] = _our_ndcg_sample_scores
    return ours


#: upstream tests that fail for a reason outside these functions, pinned (strict xfail)
UPSTREAM_XFAIL: dict[str, str] = {}


def upstream_cases(module_name: str, tests: list[str], xfail=None) -> list:
    """One ``pytest.param`` per parametrization of each upstream test (its marks expanded).

    ``xfail(name, kwargs)`` gives the reason a case is pinned as a strict xfail, or None.
    """
    module = pytest.importorskip(module_name)
    cases = []
    for name in tests:
        function = getattr(module, name)
        grids = []
        for mark in getattr(function, "pytestmark", []):
            if mark.name != "parametrize":
                continue
            argnames, argvalues = mark.args[0], mark.args[1]
            if isinstance(argnames, str):
                argnames = [a.strip() for a in argnames.split(",")]
            rows = []
            for value in argvalues:
                value = value.values if hasattr(value, "values") else value
                values = value if len(argnames) > 1 else [value]
                rows.append(dict(zip(argnames, values, strict=True)))
            grids.append(rows)
        for i, combination in enumerate(itertools.product(*grids)):
            kwargs = {k: v for part in combination for k, v in part.items()}
            reason = xfail(name, kwargs) if xfail is not None else None
            marks = [] if reason is None else [pytest.mark.xfail(strict=True, reason=reason)]
            cases.append(pytest.param(module, name, kwargs, id=f"{name}-{i}", marks=marks))
    return cases


def run_upstream(module, name, kwargs, replacements, monkeypatch) -> None:
    """Run one upstream test with dask-auc's functions in its module's namespace (and params)."""
    originals = {id(getattr(module, n)): f for n, f in replacements.items() if hasattr(module, n)}
    for attribute, function in replacements.items():
        if hasattr(module, attribute):
            monkeypatch.setattr(module, attribute, function)
    kwargs = {k: originals.get(id(v), v) for k, v in kwargs.items()}
    with warnings.catch_warnings():
        # scikit-learn's test suite does not make warnings errors: some of these tests
        # warn under scikit-learn too ('k' >= 'n_classes'); the warnings are compared
        # with scikit-learn's in the tests above
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        getattr(module, name)(**kwargs)


@pytest.mark.parametrize(
    "module, name, kwargs",
    upstream_cases(
        "sklearn.metrics.tests.test_ranking",
        UPSTREAM_TESTS,
        lambda name, kwargs: UPSTREAM_XFAIL.get(name),
    ),
)
def test_sklearn_test_ranking(module, name, kwargs, monkeypatch) -> None:
    run_upstream(module, name, kwargs, _replacements(), monkeypatch)


def test_every_public_function_of_sklearns_ranking_module_exists_with_its_signature() -> None:
    """scikit-learn's ``_ranking`` public functions, their parameters in order, in dask-auc.

    Each of scikit-learn's parameters is there, in its order and of its kind
    (positional-or-keyword or keyword-only); dask-auc adds keyword-only options
    after them (``compute``, ``split_every``, ``max_points``).
    """
    import inspect

    from sklearn.metrics import _ranking

    public = [
        name
        for name, value in vars(_ranking).items()
        if inspect.isfunction(value)
        and not name.startswith("_")
        and value.__module__ == _ranking.__name__
    ]
    assert "metric_at_thresholds" in public and "top_k_accuracy_score" in public
    for name in public:
        theirs = inspect.signature(getattr(_ranking, name)).parameters
        ours = inspect.signature(getattr(dask_auc, name)).parameters
        assert list(ours)[: len(theirs)] == list(theirs), name
        for parameter in theirs.values():
            mine = ours[parameter.name]
            assert mine.kind == parameter.kind, (name, parameter)
            assert mine.default == parameter.default or (
                mine.default is None and parameter.default is None
            ), (name, parameter)
