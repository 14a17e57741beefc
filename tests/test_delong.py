"""DeLong's confidence interval and paired test against an independent O(P * N) reference."""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist

import dask
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score as sklearn_auc

import dask_auc
from dask_auc._kernels.binary.delong_paired import pair_products
from dask_auc._kernels.core.order import stable_order
from dask_auc._kernels.sort import compiled
from dask_auc._roc import delong_covariance
from strategies import boundaries, dask_array, dask_frame, examples


def _placements(y, s):
    """Every (positive, negative) pair: V10 per positive, V01 per negative, ties 1/2."""
    y, s = np.asarray(y), np.asarray(s, dtype=float)
    positive = y == np.unique(y)[-1]
    pos, neg = s[positive], s[~positive]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    return psi.mean(axis=1), psi.mean(axis=0)


def reference_ci(y, s, level=0.95):
    v10, v01 = _placements(y, s)
    auc = v10.mean()
    se = math.sqrt(np.var(v10, ddof=1) / len(v10) + np.var(v01, ddof=1) / len(v01))
    z = NormalDist().inv_cdf(0.5 + level / 2)
    return auc, max(0.0, auc - z * se), min(1.0, auc + z * se), se


def _exact_contrast_variance(y, a, b):
    """DeLong's variance of ``AUC_a - AUC_b`` in exact arithmetic (its zero is exact)."""
    y, a, b = np.asarray(y), np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    positive = y == np.unique(y)[-1]
    total = Fraction(0)
    for rows, others, sign in ((positive, ~positive, 1), (~positive, positive, -1)):
        differences = []
        for r in np.flatnonzero(rows):
            d = Fraction(0)
            for s, w in ((a, 1), (b, -1)):
                wins = sign * (s[r] - s[others])
                d += w * Fraction(int(2 * np.sum(wins > 0) + np.sum(wins == 0)), 2 * len(wins))
            differences.append(d)
        mean = sum(differences, Fraction(0)) / len(differences)
        square_sum = sum(((d - mean) ** 2 for d in differences), Fraction(0))
        total += square_sum / (len(differences) - 1) / len(differences)
    return total


def reference_test(y, a, b):
    v10a, v01a = _placements(y, a)
    v10b, v01b = _placements(y, b)
    contrast = np.array([1.0, -1.0])
    s10, s01 = np.cov(np.vstack([v10a, v10b])), np.cov(np.vstack([v01a, v01b]))
    diff = v10a.mean() - v10b.mean()
    if _exact_contrast_variance(y, a, b) == 0:  # (the float one: a few ulps either way)
        return v10a.mean(), v10b.mean(), diff, 0.0, math.nan, math.nan
    se = math.sqrt(contrast @ s10 @ contrast / len(v10a) + contrast @ s01 @ contrast / len(v01a))
    z = diff / se
    return v10a.mean(), v10b.mean(), diff, se, z, math.erfc(abs(z) / math.sqrt(2))


def reference_covariance(y, scores):
    """Every model's AUC and DeLong's covariance ``S10 / m + S01 / n`` of the placements."""
    components = [_placements(y, s) for s in scores]
    v10 = np.array([c[0] for c in components])  # models x positives
    v01 = np.array([c[1] for c in components])  # models x negatives
    return v10.mean(axis=1), np.cov(v10) / v10.shape[1] + np.cov(v01) / v01.shape[1]


def _rows(seed, n, distinct):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:4] = [0, 1, 0, 1]
    a = np.floor((rng.random(n) + 0.4 * y) * distinct) / distinct
    b = np.floor((rng.random(n) + 0.2 * y + 0.3 * a) * distinct) / distinct
    return y, a, b


@given(
    st.integers(0, 2**32 - 1),
    st.integers(4, 150),
    st.sampled_from([1, 2, 3, 10, 1000]),
    st.sampled_from([None, 1, 3, 9]),
    st.data(),
)
@settings(max_examples=30)
def test_interval_and_test_match_the_pairwise_reference_for_any_partitioning(
    seed, n, distinct, buckets, data
):
    y, a, b = _rows(seed, n, distinct)
    cuts = data.draw(boundaries(n, max_parts=8))
    yd, ad, bd = (dask_array(x, cuts) for x in (y, a, b))
    level = data.draw(st.sampled_from([0.5, 0.9, 0.95, 0.999]))
    with dask.config.set({"dask-auc.buckets": buckets}):
        ci = dask_auc.roc_auc_ci(yd, ad, confidence_level=level)
        test = dask_auc.delong_test(yd, ad, bd)
    expected = reference_ci(y, a, level)
    assert ci.auc == sklearn_auc(y, a) or ci.auc == pytest.approx(sklearn_auc(y, a), abs=1e-12)
    np.testing.assert_allclose(ci[:4], expected, rtol=1e-9, atol=1e-12)
    assert ci.confidence_level == level
    expected_test = reference_test(y, a, b)
    np.testing.assert_allclose(test[:4], expected_test[:4], rtol=1e-9, atol=1e-12)
    if expected_test[3] > 1e-9:
        np.testing.assert_allclose(test[4:], expected_test[4:], rtol=1e-7, atol=1e-12)


def test_hanley_mcneil_ratings_give_statas_published_delong_interval():
    """The published worked example: Hanley & McNeil (1982), Table 1.

    109 CT images rated 1 (definitely normal) to 5 (definitely abnormal) by a
    radiologist: 58 normal patients rated (33, 6, 6, 11, 2), 51 abnormal ones
    (3, 2, 2, 11, 33).  Stata's manual runs ``roctab disease rating`` on these
    data, whose standard error is DeLong's by default, and prints area 0.8932,
    std. err. 0.0307 and the asymptotic normal 95% interval 0.83295 to 0.95339.
    Five distinct scores make every placement a tie-heavy one.
    """
    normal, abnormal = [33, 6, 6, 11, 2], [3, 2, 2, 11, 33]
    ratings = np.arange(1, 6)
    y = np.repeat([0, 1], [sum(normal), sum(abnormal)])
    s = np.concatenate([np.repeat(ratings, normal), np.repeat(ratings, abnormal)])
    order = np.random.default_rng(0).permutation(len(y))  # spread the ratings over blocks
    cuts = [0, 20, 20, 57, 90, 109]
    ci = dask_auc.roc_auc_ci(dask_array(y[order], cuts), dask_array(s[order], cuts))
    assert round(ci.auc, 4) == 0.8932
    assert round(ci.std_error, 4) == 0.0307
    assert (round(ci.low, 5), round(ci.high, 5)) == (0.83295, 0.95339)


def test_heavy_ties_spread_over_many_buckets():
    rng = np.random.default_rng(7)
    n = 3000
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.8, 0.5, rng.random(n).round(1))  # one value holds 80 %
    b = np.where(y == 1, 0.7, rng.choice([0.2, 0.7], n))
    cuts = list(range(0, n, 250)) + [n]
    for buckets in (1, 5, 40):
        with dask.config.set({"dask-auc.buckets": buckets}):
            ci = dask_auc.roc_auc_ci(dask_array(y, cuts), dask_array(a, cuts))
            test = dask_auc.delong_test(*(dask_array(x, cuts) for x in (y, a, b)))
        np.testing.assert_allclose(ci[:4], reference_ci(y, a), rtol=1e-9)
        np.testing.assert_allclose(test, reference_test(y, a, b), rtol=1e-9)


def test_dask_dataframe_columns_and_symmetry():
    y, a, b = _rows(11, 2000, 20)
    frame = dask_frame({"y": y, "a": a, "b": b}, [0, 500, 500, 1300, 2000])
    forward = dask_auc.delong_test(frame["y"], frame["a"], frame["b"])
    backward = dask_auc.delong_test(frame["y"], frame["b"], frame["a"])
    np.testing.assert_allclose(forward, reference_test(y, a, b), rtol=1e-9)
    assert backward.z == pytest.approx(-forward.z)
    assert backward.p_value == pytest.approx(forward.p_value)
    ci = dask_auc.roc_auc_ci(frame["y"], frame["b"], confidence_level=0.9)
    np.testing.assert_allclose(ci[:4], reference_ci(y, b, 0.9), rtol=1e-9)


def test_same_scores_twice_have_zero_standard_error():
    y, a, _ = _rows(3, 300, 10)
    test = dask_auc.delong_test(y, a, a)
    assert test.difference == 0 and test.std_error == 0
    assert math.isnan(test.z) and math.isnan(test.p_value)


@pytest.mark.parametrize("cuts", [[0, 6], [0, 1, 3, 3, 6], [0, 2, 4, 5, 6]])
def test_placements_apart_by_a_constant_have_no_z_from_rounding(cuts):
    """Models whose placements differ by a constant: an exact variance of 0, z NaN.

    The float contrast ``S_aa - 2 S_ab + S_bb`` left 4.6e-18 here (a standard
    error of 2.2e-9, z = -2.3e8, p = 0) where the exact variance is 0.
    """
    y = np.array([0, 1, 0, 1, 1, 0])
    a = -np.array([0.0, 0.0, 0.0, 1.0, 1.0, 0.0])
    b = np.array([0.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    assert _exact_contrast_variance(y, a, b) == 0
    test = dask_auc.delong_test(*(dask_array(x, cuts) for x in (y, a, b)))
    assert (test.auc_a, test.auc_b, test.difference) == (1 / 6, 2 / 3, -0.5)
    assert test.std_error == 0 and math.isnan(test.z) and math.isnan(test.p_value)
    table = dask_auc.compare(y, {"a": a, "b": b}, baseline="b")
    assert table.loc["a", "std_error"] == 0 and math.isnan(table.loc["a", "p_value"])


def test_lazy_results_compute_together():
    y, a, b = _rows(5, 500, 50)
    yd, ad, bd = (dask_array(x, [0, 100, 500]) for x in (y, a, b))
    lazy_ci = dask_auc.roc_auc_ci(yd, ad, compute=False)
    lazy_test = dask_auc.delong_test(yd, ad, bd, compute=False)
    assert isinstance(lazy_ci, dask_auc.LazyScore) and isinstance(lazy_test, dask_auc.LazyScore)
    ci, test = dask.compute(lazy_ci, lazy_test)
    assert ci == lazy_ci.compute()
    np.testing.assert_allclose(test, reference_test(y, a, b), rtol=1e-9)


def test_weights_method_and_level_are_checked():
    y, a, _ = _rows(1, 20, 5)
    with pytest.raises(ValueError, match="sample_weight is not supported for DeLong"):
        dask_auc.roc_auc_ci(y, a, sample_weight=np.ones(20))
    with pytest.raises(dask_auc.InvalidParameterError, match="'method' parameter"):
        dask_auc.roc_auc_ci(y, a, method="jackknife")
    for level in (0, 1, 1.5, "0.9", True):
        with pytest.raises(dask_auc.InvalidParameterError, match="'confidence_level' parameter"):
            dask_auc.roc_auc_ci(y, a, confidence_level=level)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        dask_auc.delong_test(y, a, a[:-1])


def test_one_class_warns_and_returns_nan():
    with pytest.warns(dask_auc.UndefinedMetricWarning, match="Only one class"):
        ci = dask_auc.roc_auc_ci(np.ones(5), np.arange(5.0))
    assert all(math.isnan(v) for v in ci[:4])
    with pytest.warns(dask_auc.UndefinedMetricWarning, match="Only one class"):
        test = dask_auc.delong_test(np.ones(5), np.arange(5.0), np.arange(5.0))
    assert all(math.isnan(v) for v in test)


@given(
    st.integers(0, 2**32 - 1),
    st.integers(6, 120),
    st.sampled_from([1, 2, 4, 1000]),
    st.sampled_from([None, 1, 5, 16]),
    st.data(),
)
@settings(max_examples=examples(10), deadline=None)
def test_covariance_of_k_models_is_the_reference_of_their_placements(
    seed, n, distinct, buckets, data
):
    """The k x k matrix of one pass against DeLong's structural components, in memory."""
    y, a, b = _rows(seed, n, distinct)
    noise = np.floor(np.random.default_rng(seed).random(n) * distinct) / distinct
    scores = [a, b, noise, -a]  # the last a reversed: its covariance with a is -var(a)
    cuts = data.draw(boundaries(n, max_parts=10))
    with dask.config.set({"dask-auc.buckets": buckets}):
        lazy = delong_covariance(
            dask_array(y, cuts), [dask_array(s, cuts) for s in scores], names=tuple("yabcd")
        )
        covariance = lazy.compute()
    aucs, matrix = reference_covariance(y, scores)
    assert covariance.aucs == tuple(dask_auc.roc_auc_score(y, s) for s in scores)
    np.testing.assert_allclose(covariance.aucs, aucs, rtol=1e-12)
    np.testing.assert_allclose(covariance.matrix, matrix, rtol=1e-9, atol=1e-15)
    assert np.array_equal(covariance.matrix, covariance.matrix.T)
    # any pair's test is the pairwise reference's
    np.testing.assert_allclose(covariance.test(3, 1), reference_test(y, -a, b), rtol=1e-9)


def test_covariance_of_one_class_warns_and_is_nan():
    y, s = np.zeros(6, int), np.arange(6.0)
    with pytest.warns(dask_auc.UndefinedMetricWarning, match="Only one class"):
        covariance = delong_covariance(y, [s, -s, s], names=tuple("yabc")).compute()
    assert np.isnan(covariance.aucs).all() and np.isnan(covariance.matrix).all()
    assert covariance.matrix.shape == (3, 3)
    assert all(math.isnan(v) for v in covariance.test(0, 2))
    with pytest.raises(ValueError, match="f: DeLong's covariance needs at least two models"):
        delong_covariance(y, [s], names=("y", "a"), function="f")


def _lanes(x, y):
    """Four lanes of x * y in Python floats: row r in lane r % 4, each from 0.0 in row order."""
    lanes = [0.0] * 4
    for r, (a, b) in enumerate(zip(x.tolist(), y.tolist(), strict=True)):
        lanes[r % 4] += a * b
    return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])


@pytest.mark.float_order
@given(st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 3, 7, 64, 385, 5003]))
@settings(max_examples=examples(6), deadline=None)
def test_a_pairs_products_are_four_lanes_of_its_two_rows_alone(seed, n):
    """Each entry is its two rows' products in four lanes, as Python floats add them, on every
    CPU, with numba or without: what lets a k-model pass test a pair as delong_test does."""
    compiled.compile_now()
    x, y, z = np.random.default_rng(seed).random((3, n)) - 0.3
    y[::5] = -0.0  # signed zeros among the terms
    rows = np.stack([x, y, z, x])
    for flag in (True, False):
        sums = pair_products(rows, compiled=flag)
        for i, j in ((0, 1), (0, 0), (1, 1), (2, 0), (1, 2), (3, 3)):
            assert sums[i, j] == sums[j, i] == _lanes(rows[i], rows[j])
        assert sums[0, 3] == sums[0, 0] == sums[3, 3]  # a row twice: its square sum
    zeros = np.full((2, 9), -0.0)
    assert np.signbit(pair_products(zeros, True)).tolist() == [[False] * 2] * 2
    assert np.signbit(pair_products(zeros, False)).tolist() == [[False] * 2] * 2


def _adversarial_scores():
    """Arrays whose packed sort keys collide, tie, or cannot be packed at all."""
    rng = np.random.default_rng(4)
    eps = np.finfo(float).eps
    near_one = 1 + rng.integers(0, 40, 3000) * eps  # scores apart by one ulp...
    yield np.concatenate([[1e300, -1e300], near_one])  # ...in a wide span: shared keys
    yield np.concatenate([[2**62, -(2**62)], rng.integers(0, 4, 3000)]).astype(np.int64)
    yield rng.choice([-0.0, 0.0, 0.5, -1.0], 3000)  # -0.0 and 0.0 tie in row order
    yield rng.standard_normal(5000)
    yield np.round(rng.random(5000), 2).astype(np.float32)
    yield rng.integers(0, 2**64 - 1, 3000, dtype=np.uint64, endpoint=True)
    yield np.array([2**63 - 1, -(2**63), 0] * 50, dtype=np.int64)
    yield np.array([np.nan, 1.0, -np.nan, 0.5] * 50)  # no keys: NumPy's stable sort
    yield np.concatenate([np.sort(np.round(rng.random(700), 1)) for _ in range(5)])  # runs
    yield from (np.arange(k, dtype=float)[::-1] for k in (0, 1, 2))
    # more rows than one run of positions (order._OR_ROWS), shared keys and groups across runs
    yield np.concatenate([[1e300, -1e300], 1 + rng.integers(0, 40, 140_000) * eps])


def test_the_traced_sort_is_numpys_stable_argsort_on_adversarial_scores():
    """stable_order (packed keys, collided runs put in order again) against kind="stable".

    Also with the two classes of a block sorted at once (``groups``, the keys' top bit).
    """
    rng = np.random.default_rng(9)
    for scores in _adversarial_scores():
        expected = np.argsort(scores, kind="stable")
        for runs in (False, True):
            order, ranked = stable_order(scores, runs=runs)
            np.testing.assert_array_equal(order, expected)
            np.testing.assert_array_equal(ranked.view(np.uint8), scores[expected].view(np.uint8))
        groups = rng.random(len(scores)) < 0.3
        rows = [np.flatnonzero(~groups), np.flatnonzero(groups)]
        expected = np.concatenate([r[np.argsort(scores[r], kind="stable")] for r in rows])
        order, ranked = stable_order(scores, groups=groups)
        np.testing.assert_array_equal(order, expected)
        np.testing.assert_array_equal(ranked.view(np.uint8), scores[expected].view(np.uint8))


def test_the_compiled_walk_and_partition_are_the_binary_searches_and_the_stable_grouping():
    pytest.importorskip("numba")
    rng = np.random.default_rng(8)
    for dtype in (np.float64, np.int64):
        values = np.sort(rng.integers(-3, 4, 500)).astype(dtype)
        for queries in (values[::3].copy(), values[:0].copy(), np.sort(rng.integers(-5, 6, 90))):
            queries = queries.astype(dtype)
            for a, b in ((values, queries), (queries, values), (values[:0], queries)):
                below, through = compiled.ranks(a, b)
                np.testing.assert_array_equal(below, np.searchsorted(a, b, "left"))
                np.testing.assert_array_equal(through, np.searchsorted(a, b, "right"))
    assert compiled.ranks(values, values, compiled=False) is None
    groups = rng.integers(0, 7, 1000).astype(np.uint16)
    ids, placed = rng.integers(0, 2**40, 1000), rng.random(1000)
    starts, (by_ids, by_placed) = compiled.partitioned(groups, 9, ids, placed)
    order = np.argsort(groups, kind="stable")
    np.testing.assert_array_equal(starts, np.searchsorted(groups[order], np.arange(10)))
    np.testing.assert_array_equal(by_ids, ids[order])
    np.testing.assert_array_equal(by_placed, placed[order])


#: 160 rows: (cuts, dask-auc.buckets, distinct scores)
_TRACED_LAYOUTS = {
    "ties across block and bucket edges": ([*range(0, 160, 9), 160], 9, 3),
    "empty blocks": ([0, 0, 50, 50, 120, 160, 160], 4, 7),
    "one block": ([0, 160], None, 1000),
}


@pytest.mark.parametrize("layout", _TRACED_LAYOUTS, ids=list(_TRACED_LAYOUTS))
def test_compiled_and_numpy_placements_and_routes_give_the_same_sums_bit_for_bit(layout):
    """The walk and the counting partition (numba) against the searches and the radix sort."""
    cuts, buckets, distinct = _TRACED_LAYOUTS[layout]
    y, a, b = _rows(17, 160, distinct)
    scores = [a, b, -a]
    found = []
    for flag in (True, False):
        with dask.config.set({"dask-auc.numba": flag, "dask-auc.buckets": buckets}):
            lazy = delong_covariance(
                dask_array(y, cuts), [dask_array(s, cuts) for s in scores], names=tuple("yabc")
            )
            ci = dask_auc.roc_auc_ci(dask_array(y, cuts), dask_array(b, cuts))
            found.append((lazy.compute(scheduler="sync"), ci))
    (fast, fast_ci), (slow, slow_ci) = found
    assert fast.aucs == slow.aucs and fast_ci == slow_ci
    np.testing.assert_array_equal(fast.sums.pos, slow.sums.pos)
    np.testing.assert_array_equal(fast.sums.neg, slow.sums.neg)
    np.testing.assert_allclose(fast.matrix, reference_covariance(y, scores)[1], rtol=1e-9)
    np.testing.assert_allclose(fast_ci[:4], reference_ci(y, b), rtol=1e-9, atol=1e-15)


def test_large_traced_blocks_are_kept_unsplit_and_sum_as_the_numpy_path(monkeypatch):
    """Blocks of UNSPLIT_MIN_ROWS rows or more, on the compiled path, keep their rows unsplit with
    their ids (the plain sort's two-pass split; each bucket sorts its pieces once); beside a small
    sorted block, with ties across block and bucket edges, DeLong's sums are the NumPy path's."""
    pytest.importorskip("numba")
    from dask_auc._kernels.binary import delong_paired as kernels
    from dask_auc._kernels.sort.prepare import UNSPLIT_MIN_ROWS

    kept = []

    def counted(*args, **kwargs):
        found = unsplit(*args, **kwargs)
        kept.append(found is not None)
        return found

    compiled.compile_now()  # the compiled split, not its NumPy fallback
    unsplit = kernels.unsplit_rows
    monkeypatch.setattr(kernels, "unsplit_rows", counted)
    n = 2 * UNSPLIT_MIN_ROWS + 300
    y, a, b = _rows(23, n, 20_000)
    cuts = [0, 300, 300 + UNSPLIT_MIN_ROWS, n]
    found = []
    for flag in (True, False):
        with dask.config.set({"dask-auc.numba": flag, "dask-auc.buckets": 5}):
            lazy = delong_covariance(
                dask_array(y, cuts), [dask_array(a, cuts), dask_array(b, cuts)], names=tuple("yab")
            )
            found.append(lazy.compute(scheduler="sync"))
    assert kept.count(True) == 4  # the two large blocks of each model, compiled
    fast, slow = found
    assert fast.aucs == slow.aucs
    np.testing.assert_array_equal(fast.sums.pos, slow.sums.pos)
    np.testing.assert_array_equal(fast.sums.neg, slow.sums.neg)
    np.testing.assert_array_equal(fast.matrix, slow.matrix)


def _bucket_of(scores, positive, lo, hi, rng):
    """A bucket of rows scoring in ``[lo, hi]`` (some rows tied at ``lo`` and at ``hi`` left in
    the buckets below and above), its context, and each class's doubled placements of its rows in
    sorted order, by brute-force pair counts."""
    from dask_auc._kernels.binary.delong import BucketContext

    inside, above, below = {}, {}, {}
    for cls in (True, False):
        own = np.sort(scores[positive == cls])
        at_lo, at_hi = np.count_nonzero(own == lo), np.count_nonzero(own == hi)
        if lo == hi:  # one tie spread over the three buckets
            first, second = np.sort(rng.integers(0, at_lo + 1, 2))
            n_above, n_inside, n_below = first, second - first, at_lo - second
            edges = [lo] * n_inside
        else:
            kept_lo, kept_hi = rng.integers(0, at_lo + 1), rng.integers(0, at_hi + 1)
            n_above, n_below = at_hi - kept_hi, at_lo - kept_lo
            edges = [lo] * kept_lo + list(own[(own > lo) & (own < hi)]) + [hi] * kept_hi
        inside[cls] = np.array(edges, float)
        above[cls] = np.concatenate([own[own > hi], [hi] * n_above])
        below[cls] = np.concatenate([own[own < lo], [lo] * n_below])
    filled = [*inside[True], *inside[False]]
    top, bottom = (max(filled), min(filled)) if filled else (np.inf, -np.inf)
    context = BucketContext(
        int(np.count_nonzero(positive)), int(np.count_nonzero(~positive)),
        len(above[True]), len(above[False]),
        int(np.count_nonzero(above[True] == top)), int(np.count_nonzero(above[False] == top)),
        int(np.count_nonzero(below[True] == bottom)), int(np.count_nonzero(below[False] == bottom)),
        0.5,
    )  # fmt: skip
    all_pos, all_neg = scores[positive], scores[~positive]
    expected = (
        [2 * np.count_nonzero(all_neg < x) + np.count_nonzero(all_neg == x) for x in inside[True]],
        [2 * np.count_nonzero(all_pos > x) + np.count_nonzero(all_pos == x) for x in inside[False]],
    )
    return inside[True], inside[False], context, expected


@given(st.integers(0, 2**32 - 1), st.sampled_from([2, 5, 40]), st.booleans())
@settings(max_examples=examples(12), deadline=None)
def test_placements_of_rows_and_of_counted_entries_are_the_pair_counts(seed, distinct, numba):
    """The rows' formula (left + right ranks) and the counted entries' (cumulative counts) of one
    bucket, ties shared with the buckets above and below, against brute-force pair counts."""
    from dask_auc._kernels.binary.delong import bucket_placements
    from dask_auc._kernels.sort.buckets import Bucket
    from dask_auc._kernels.sort.rows import SortedScores

    rng = np.random.default_rng(seed)
    scores = rng.integers(0, distinct, 200).astype(float)
    positive = rng.random(200) < 0.4
    positive[:2] = [True, False]
    lo, hi = np.sort(rng.choice(scores, 2))
    pos, neg, context, (want_pos, want_neg) = _bucket_of(scores, positive, lo, hi, rng)
    rows = bucket_placements(
        Bucket.binary(SortedScores(pos), SortedScores(neg), compiled=numba), context
    )
    assert rows.pos.tolist() == want_pos and rows.neg.tolist() == want_neg

    def counted(part):
        values, counts = np.unique(part, return_counts=True)
        return SortedScores(values, counts.astype(np.int64))

    entries = bucket_placements(Bucket.binary(counted(pos), counted(neg), compiled=numba), context)
    assert np.repeat(entries.pos, counted(pos).weights).tolist() == want_pos
    assert np.repeat(entries.neg, counted(neg).weights).tolist() == want_neg


def test_class_positions_route_each_placement_to_its_row_of_its_class():
    """Ids carry a row's position among its block's rows of its label (2 labels, 1, or 3), and
    cross_sums puts every routed placement in its row's slot, whatever the pieces' order."""
    from dask_auc._kernels.binary.delong_paired import (
        class_positions,
        cross_sums,
        prepare_paired_block,
    )

    rng = np.random.default_rng(3)
    for labels in (rng.integers(0, 2, 300), np.array(["b", "a", "b"]), rng.integers(0, 3, 50),
                   np.ones(4, int), np.zeros(0, int)):  # fmt: skip
        classes = tuple(np.unique(labels).tolist())
        expected = np.zeros(len(labels), np.int64)
        for value in classes:
            expected[labels == value] = np.arange(np.count_nonzero(labels == value))
        np.testing.assert_array_equal(class_positions(classes, labels), expected)
    y = rng.integers(0, 2, 300)
    block = prepare_paired_block(y, rng.random(300), rng.random(300))
    values = rng.random((2, 300)) - 0.5
    ids = block.positions | np.int64(5) << np.int64(32)  # any block number: the low bits index
    pieces = []
    for model in (0, 1):
        shuffled = [rng.permutation(np.flatnonzero(y == c)) for c in (1, 0)]
        cut = [np.array_split(rows, 3) for rows in shuffled]  # three buckets' pieces, any order
        pieces.append([(ids[p], values[model, p], ids[n], values[model, n])
                       for p, n in zip(*cut, strict=True)])  # fmt: skip
    sums = cross_sums(block, *pieces)
    for side, rows in ((sums.pos, values[:, y == 1]), (sums.neg, values[:, y == 0])):
        assert side.tolist() == pair_products(rows).tolist()  # in row order: the same lanes


#: 4,000 rows: (cuts, dask-auc.buckets); the first 600 rows are all of one label
_TABLED_LAYOUTS = {
    "one block": ([0, 4000], None),
    "uneven blocks, an empty one, a heavy tie over buckets": ([0, 600, 600, 2100, 4000], 9),
    "even blocks, ties across bucket edges": ([0, 1000, 2000, 3000, 4000], 5),
}


@pytest.mark.parametrize("layout", _TABLED_LAYOUTS, ids=list(_TABLED_LAYOUTS))
def test_models_of_few_scores_look_their_placements_up_and_sum_as_routed_rows(monkeypatch, layout):
    """A model of few distinct scores in every block skips the row ids: its blocks are aggregated,
    each bucket sends its table, each block looks its rows up by score.  Beside a continuous model
    (routed), with -0.0 beside 0.0, a block of one label, an empty block and ties over bucket
    edges, the AUCs and sums are the routed path's and the NumPy path's to the bit."""
    pytest.importorskip("numba")
    import dask_auc._roc.delong as face
    from dask_auc._kernels.binary import delong_paired

    compiled.compile_now()  # the compiled hash, not its NumPy fallback
    looked_up = []
    lookup = delong_paired.tabled_values

    def spy(scores, positive, tables, out):
        looked_up.append(scores)
        return lookup(scores, positive, tables, out)

    monkeypatch.setattr(delong_paired, "tabled_values", spy)
    cuts, buckets = _TABLED_LAYOUTS[layout]
    rng = np.random.default_rng(29)
    y = rng.integers(0, 2, 4000)
    y[:600] = 0
    y[600:604] = [0, 1, 0, 1]
    tied = np.floor((rng.random(4000) + 0.3 * y) * 12) / 4 - 1.0  # 0.0 among 16 values
    tied[tied == 0] = rng.choice([0.0, -0.0], np.count_nonzero(tied == 0))
    rounded = np.round(rng.normal(size=4000) + 0.5 * y, 1)
    continuous = rng.random(4000) + 0.2 * y
    scores = [tied, rounded, continuous]
    untabled = face.tabled_models
    found = []
    for flag, tables in ((True, True), (True, False), (False, False)):
        decide = untabled if tables else (lambda probes, compiled: (False,) * len(scores))
        monkeypatch.setattr(face, "tabled_models", decide)
        with dask.config.set({"dask-auc.numba": flag, "dask-auc.buckets": buckets}):
            lazy = delong_covariance(
                dask_array(y, cuts), [dask_array(s, cuts) for s in scores], names=tuple("yabc")
            )
            found.append(lazy.compute(scheduler="sync"))
    blocks = [(start, stop) for start, stop in zip(cuts, cuts[1:], strict=False) if stop > start]
    # the tied models only, each block's rows once (the first run: the others route every row)
    assert sorted(
        (m, start)
        for looked in looked_up
        for m, model in enumerate(scores)
        for start, stop in blocks
        if np.array_equal(model[start:stop], looked)
    ) == sorted((m, start) for m in (0, 1) for start, _ in blocks)
    tabled, routed, numpy_path = found
    for other in (routed, numpy_path):
        assert tabled.aucs == other.aucs
        np.testing.assert_array_equal(tabled.sums.pos, other.sums.pos)
        np.testing.assert_array_equal(tabled.sums.neg, other.sums.neg)
    np.testing.assert_allclose(tabled.matrix, reference_covariance(y, scores)[1], rtol=1e-9)


def test_the_lookup_of_placements_by_score_is_numpys_search_and_refuses_a_missing_score():
    """The compiled hash and the binary searches give each row its class's value of its score, in
    row order per class (equal keys: the first; -0.0 found as 0.0; integer and float32 scores);
    a score its class's tables lack raises, whichever class it is."""
    pytest.importorskip("numba")
    from dask_auc._kernels.binary.delong_paired import prepare_paired_block
    from dask_auc._kernels.binary.delong_tables import PlacementTable, tabled_values

    compiled.compile_now()
    rng = np.random.default_rng(5)
    for dtype in (np.float64, np.float32, np.int64, np.uint8):
        signed = dtype != np.uint8
        values = (np.arange(-40, 40) if signed else np.arange(80)).astype(dtype)
        scores = rng.choice(values, 500)
        if signed:
            scores[scores == 0] = -0.0 if scores.dtype.kind == "f" else 0
        labels = rng.integers(0, 2, 500)
        block = prepare_paired_block(labels, scores, scores)
        positive = labels == 1
        halves = np.array_split(np.unique(values), 3)  # three buckets' entries
        for flag in (True, False):
            tables = [
                PlacementTable(1, h, h * 0.5, h, h * -2.0, flag)
                for h in halves
                for _ in range(2)  # every entry twice: the first is kept, equal anyway
            ]
            pos, neg = np.empty(np.count_nonzero(positive)), np.empty(np.count_nonzero(~positive))
            tabled_values(block.scores[0], positive, tables, (pos, neg))
            as_float = block.scores[0].astype(np.float64) + 0.0
            assert pos.tolist() == (as_float[positive] * 0.5).tolist()
            assert neg.tolist() == (as_float[~positive] * -2.0 + 0.0).tolist()
            for side in (True, False):
                wanting = halves[-1][-1]  # the highest score: one class's tables lack it
                missing = [
                    PlacementTable(1, h[h != wanting] if side else h, h[h != wanting] * 0.5
                                   if side else h * 0.5, h if side else h[h != wanting],
                                   (h if side else h[h != wanting]) * -2.0, flag)
                    for h in halves
                ]  # fmt: skip
                with pytest.raises(RuntimeError, match="in no bucket's table"):
                    tabled_values(block.scores[0], positive, missing, (pos, neg))


@given(
    seed=st.integers(0, 2**32 - 1),
    distinct=st.integers(1, 12),
    n=st.integers(200, 600),
    data=st.data(),
    buckets=st.sampled_from([None, 2, 5]),
)
@settings(max_examples=examples(20), deadline=None)
def test_looked_up_placements_are_the_numpy_paths_routed_ones(seed, distinct, n, data, buckets):
    """Any tied models (a model is looked up by score when every block holds few of its scores)
    on any partitioning (empty blocks, ties over bucket edges, -0.0 beside 0.0, one label in a
    block): the AUCs and cross sums of the NumPy path, where every row carries its id."""
    pytest.importorskip("numba")
    compiled.compile_now()
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[: n // 4] = rng.integers(0, 2)  # a first block may hold one label
    y[-2:] = [0, 1]
    scores = [np.floor((rng.random(n) + 0.3 * y) * distinct) / distinct - 0.5 for _ in range(3)]
    for s in scores:
        s[s == 0] = -0.0
    cuts = [0, *sorted(data.draw(st.lists(st.integers(0, n), max_size=2))), n]
    found = []
    for flag in (True, False):
        with dask.config.set({"dask-auc.numba": flag, "dask-auc.buckets": buckets}):
            lazy = delong_covariance(
                dask_array(y, cuts), [dask_array(s, cuts) for s in scores], names=tuple("yabc")
            )
            found.append(lazy.compute(scheduler="sync"))
    tabled, numpy_path = found
    assert tabled.aucs == numpy_path.aucs
    np.testing.assert_array_equal(tabled.sums.pos, numpy_path.sums.pos)
    np.testing.assert_array_equal(tabled.sums.neg, numpy_path.sums.neg)
