"""mannwhitneyu against scipy.stats.mannwhitneyu: the statistic exactly, the p-value to 1e-10."""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import roc_auc_score

import dask_auc
from dask_auc._kernels.binary.mannwhitney import (
    NAN_KEY,
    TieSummary,
    bucket_ties,
    exact_pvalue,
    float_keys,
    merge_tie_run,
    u_frequencies,
)
from dask_auc._kernels.sort.buckets import Bucket
from dask_auc._kernels.sort.rows import SortedScores

ALTERNATIVES = ("two-sided", "less", "greater")


def reference(x, y, **options):
    """scipy's result, warnings kept out (its small-sample warning is tested apart)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return stats.mannwhitneyu(np.asarray(x, float), np.asarray(y, float), **options)


def assert_same(result, expected, rel=1e-10):
    assert isinstance(result, dask_auc.MannwhitneyuResult)
    if math.isnan(expected.statistic):
        assert math.isnan(result.statistic) and math.isnan(result.pvalue)
        return
    assert result.statistic == expected.statistic  # exact
    if math.isnan(expected.pvalue):
        assert math.isnan(result.pvalue)
    else:
        assert result.pvalue == pytest.approx(float(expected.pvalue), rel=rel, abs=0)


def chunked(values, chunks):
    return da.from_array(np.asarray(values), chunks=chunks)


# -- against scipy, every option -------------------------------------------------------------


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("use_continuity", [True, False])
@pytest.mark.parametrize("method", ["auto", "asymptotic", "exact"])
def test_every_option_small_samples(alternative, use_continuity, method):
    rng = np.random.default_rng(1)
    for n1, n2 in [(1, 1), (3, 8), (5, 4), (8, 20), (12, 9)]:
        x, y = rng.permutation(n1 + n2)[:n1] / 3.0, rng.permutation(n1 + n2)[n1:] / 3.0 + 0.1
        options = dict(alternative=alternative, use_continuity=use_continuity, method=method)
        assert_same(dask_auc.mannwhitneyu(x, y, **options), reference(x, y, **options))


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("use_continuity", [True, False])
def test_heavy_ties_dask_arrays(alternative, use_continuity):
    rng = np.random.default_rng(2)
    x = rng.integers(0, 6, 500).astype(float)
    y = rng.integers(1, 8, 300).astype(float)
    options = dict(alternative=alternative, use_continuity=use_continuity)
    result = dask_auc.mannwhitneyu(chunked(x, 37), chunked(y, 61), **options)
    assert_same(result, reference(x, y, **options))


def test_exact_on_one_small_sample_and_a_large_one():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=6), rng.normal(0.5, size=300)
    for alternative in ALTERNATIVES:
        options = dict(alternative=alternative)
        assert_same(dask_auc.mannwhitneyu(x, y, **options), reference(x, y, **options))
    # C(3008, 8) > 2**62: the exact frequencies are Python ints; U in the tail, where
    # scipy's own exact sum is quick (its cost grows as the square of the tail)
    x, y = rng.normal(size=8), rng.normal(1.5, size=3000)
    assert_same(dask_auc.mannwhitneyu(x, y), reference(x, y))


def test_ties_across_bucket_edges():
    """Heavy tie groups are dealt over several buckets; the tie sum must join them."""
    rng = np.random.default_rng(4)
    x = rng.choice([0.0, 1.0, 2.0, np.inf], size=600, p=[0.5, 0.3, 0.15, 0.05])
    y = rng.choice([-np.inf, 0.0, 1.0, 3.0], size=500, p=[0.05, 0.6, 0.3, 0.05])
    with dask.config.set({"dask-auc.buckets": 24}):
        lazy = dask_auc.mannwhitneyu(chunked(x, 50), chunked(y, 40), compute=False)
        result = lazy.compute()
    assert_same(result, reference(x, y))
    assert result.pvalue < 1e-3  # the tie correction matters: a wrong sum would show here


def test_tie_summaries_merge_as_one_run():
    """Any cut of a sorted pooled run into buckets merges to its own tie sum."""
    rng = np.random.default_rng(5)
    for _ in range(30):
        keys = np.sort(rng.integers(0, 6, rng.integers(1, 40)))[::-1]
        _, counts = np.unique(keys, return_counts=True)
        expected = int(np.sum(counts**3 - counts))
        cuts = np.sort(rng.integers(0, len(keys) + 1, rng.integers(0, 6)))
        parts = np.split(keys, cuts)  # highest first; some parts empty
        summaries = []
        for part in parts:  # each bucket's rows dealt at random between the two samples
            is_x = rng.random(len(part)) < 0.5
            x, y = SortedScores(np.sort(part[is_x])), SortedScores(np.sort(part[~is_x]))
            summaries.append(bucket_ties(Bucket.binary(x, y)))
        assert merge_tie_run(summaries).total() == expected
        # and in a tree of runs: the merge is associative
        left = merge_tie_run(summaries[: len(summaries) // 2])
        right = merge_tie_run(summaries[len(summaries) // 2 :])
        assert merge_tie_run([left, right]) == merge_tie_run(summaries)
    assert TieSummary.empty().total() == 0


def test_counted_bucket_parts():
    """Aggregated parts (integer multiplicities) count as their rows."""
    pos = SortedScores(np.array([1, 3]), np.array([4, 2]))
    neg = SortedScores(np.array([3, 3, 5]))
    assert bucket_ties(Bucket.binary(pos, neg)) == TieSummary((5, 1), (1, 4), 4**3 - 4)
    # groups whose t**3 overflows int64: Python ints
    big = 3_000_000
    pos = SortedScores(np.array([2, 5, 9]), np.array([big, big, 1]))
    neg = SortedScores(np.array([0, 5]), np.array([1, big]))
    assert bucket_ties(Bucket.binary(pos, neg)).total() == (
        (big**3 - big) + ((2 * big) ** 3 - 2 * big)
    )


def test_infinities_and_signed_zeros():
    x = np.array([np.inf, -np.inf, 0.0, -0.0, 1.0, np.inf])
    y = np.array([-0.0, np.inf, -np.inf, 2.0, -5.0])
    for method in ("auto", "asymptotic"):
        assert_same(dask_auc.mannwhitneyu(x, y, method=method), reference(x, y, method=method))
    keys = float_keys(np.array([-np.inf, -1e308, -5e-324, 0.0, 5e-324, 1e308, np.inf, np.nan]))
    assert np.all(np.diff(keys) > 0) and keys[-1] == NAN_KEY
    assert float_keys(np.array([-0.0]))[0] == float_keys(np.array([0.0]))[0]


# -- NaN and empty samples -------------------------------------------------------------------


@pytest.mark.parametrize("nan_policy", ["propagate", "omit"])
def test_nan_policies(nan_policy):
    rng = np.random.default_rng(6)
    x, y = rng.integers(0, 5, 40).astype(float), rng.integers(0, 5, 30).astype(float)
    x[[1, 7, 9]] = np.nan
    y[[0, 29]] = np.nan
    options = dict(nan_policy=nan_policy)
    with dask.config.set({"dask-auc.buckets": 8}):
        result = dask_auc.mannwhitneyu(chunked(x, 6), chunked(y, 7), **options)
    assert_same(result, reference(x, y, **options))


def test_nan_raise_and_all_nan_omitted():
    x, y = np.array([1.0, np.nan, 3.0]), np.array([2.0, 0.5])
    with pytest.raises(ValueError, match="contains nan"):
        dask_auc.mannwhitneyu(x, y, nan_policy="raise")
    assert dask_auc.mannwhitneyu(x[[0, 2]], y, nan_policy="raise") == reference(x[[0, 2]], y)
    with pytest.warns(RuntimeWarning, match="After omitting NaNs"):
        result = dask_auc.mannwhitneyu([np.nan, np.nan], y, nan_policy="omit")
    assert math.isnan(result.statistic) and math.isnan(result.pvalue)


@pytest.mark.parametrize("x, y", [([], [1.0, 2.0]), ([1.0], []), ([], [])])
def test_empty_samples_are_nan_with_a_warning(x, y):
    with pytest.warns(RuntimeWarning, match="too small"):
        result = dask_auc.mannwhitneyu(np.array(x, float), np.array(y, float))
    assert math.isnan(result.statistic) and math.isnan(result.pvalue)


# -- partitions and input kinds --------------------------------------------------------------


def test_partitions_empty_one_and_many():
    rng = np.random.default_rng(7)
    x, y = rng.integers(0, 20, 300).astype(float), rng.integers(0, 25, 200).astype(float)
    expected = reference(x, y)
    with_empty = (da.from_array(x, chunks=((0, 150, 0, 150),)), chunked(y, ((100, 0, 100),)))
    one = (chunked(x, -1), chunked(y, -1))
    many = (chunked(x, 2), chunked(y, 1))  # 350 partitions
    for pair in (with_empty, one, many):
        assert_same(dask_auc.mannwhitneyu(*pair), expected)


def test_dask_series_pandas_and_lists_of_different_lengths():
    rng = np.random.default_rng(8)
    x, y = rng.normal(size=70), rng.normal(0.3, size=45)
    expected = reference(x, y)
    series_x = dd.from_pandas(pd.Series(x), npartitions=3)
    series_y = dd.from_pandas(pd.Series(y), npartitions=5)
    assert_same(dask_auc.mannwhitneyu(series_x, series_y), expected)
    assert_same(dask_auc.mannwhitneyu(series_x, chunked(y, 10)), expected)
    assert_same(dask_auc.mannwhitneyu(pd.Series(x), list(y)), expected)
    frame = dd.from_pandas(pd.DataFrame({"a": x}), npartitions=2)
    assert_same(dask_auc.mannwhitneyu(frame, y), expected)
    ints = rng.integers(0, 9, 30)
    assert_same(dask_auc.mannwhitneyu(ints, ints[::-1] + 1), reference(ints, ints[::-1] + 1))


def test_lazy_result():
    x, y = np.array([1.0, 4.0, 2.0, 9.0]), np.array([3.0, 0.5, 7.0])
    lazy = dask_auc.mannwhitneyu(chunked(x, 2), chunked(y, 2), compute=False)
    assert isinstance(lazy, dask_auc.LazyScore)
    (result,) = dask_auc.compute(lazy)
    assert_same(result, reference(x, y))
    assert_same(lazy.compute(), reference(x, y))
    # requests differing only in the p-value's options share the sort, each finishes its own
    less = dask_auc.mannwhitneyu(chunked(x, 2), chunked(y, 2), alternative="less", compute=False)
    both = dask_auc.compute(lazy, less)
    assert_same(both[0], reference(x, y))
    assert_same(both[1], reference(x, y, alternative="less"))


def test_statistic_is_auc_times_pairs():
    rng = np.random.default_rng(9)
    x, y = rng.integers(0, 30, 257).astype(float), rng.integers(0, 40, 191).astype(float)
    labels = np.r_[np.ones(len(x)), np.zeros(len(y))]
    auc = roc_auc_score(labels, np.r_[x, y])
    u = dask_auc.mannwhitneyu(chunked(x, 31), chunked(y, 17)).statistic
    assert u == auc * len(x) * len(y)
    assert 2 * u == round(2 * auc * len(x) * len(y))


# -- the exact distribution --------------------------------------------------------------------


def test_u_frequencies_brute_force_and_totals():
    for m, n in [(1, 1), (2, 3), (3, 4), (4, 4)]:
        counts = [0] * (m * n + 1)
        for xs in itertools.combinations(range(m + n), m):
            # U of x: pairs (x, y) where x's rank is greater than y's
            counts[sum(sum(1 for r in range(m + n) if r not in xs and r < v) for v in xs)] += 1
        assert u_frequencies(m, n, m * n) == tuple(counts)
    # beyond int64: Python ints, exact
    m, n = 30, 40
    assert sum(u_frequencies(m, n, m * n)) == math.comb(m + n, m)


def scipy_exact_reference(x, y, alternative):
    """scipy's ``method="exact"`` by brute force, as exact fractions: U1 with ties as 1/2,
    and the no-ties null distribution of U (all ``C(m + n, m)`` orderings of distinct
    values) at the tested U truncated to an integer, as scipy's ``np.asarray(U, np.int64)``."""
    m, n = len(x), len(y)
    u1 = Fraction(sum(2 * int(a > b) + int(a == b) for a in x for b in y), 2)
    u = {"greater": u1, "less": m * n - u1, "two-sided": max(u1, m * n - u1)}[alternative]
    k = math.floor(u)
    # the i-th lowest x at pooled position v has v - i values of y below it
    as_high = sum(
        1
        for xs in itertools.combinations(range(m + n), m)
        if sum(v - i for i, v in enumerate(xs)) >= k
    )
    tail = Fraction(as_high, math.comb(m + n, m)) * (2 if alternative == "two-sided" else 1)
    return float(u1), min(float(tail), 1.0)


def test_exact_with_ties_brute_force():
    """Ties: scipy's exact p-value is the no-ties distribution at the truncated U, exactly."""
    rng = np.random.default_rng(10)
    for m, n in [(1, 1), (1, 3), (2, 2), (3, 4), (4, 5), (2, 7)]:
        for levels in (1, 2, 3, 6):
            x, y = rng.integers(0, levels, m), rng.integers(0, levels, n)
            for alternative in ALTERNATIVES:
                statistic, pvalue = scipy_exact_reference(x, y, alternative)
                u1 = Fraction(int(2 * statistic), 2)
                assert exact_pvalue(u1, m, n, alternative=alternative) == pvalue
                expected = reference(x, y, method="exact", alternative=alternative)
                assert expected.statistic == statistic
                assert float(expected.pvalue) == pytest.approx(pvalue, rel=1e-12, abs=0)


def tied_samples():
    """Small tied samples (and tie-free ones) of many shapes."""
    rng = np.random.default_rng(11)
    for n1, n2 in [(1, 1), (1, 4), (2, 2), (3, 5), (4, 4), (5, 7), (8, 8), (8, 30), (9, 9)]:
        for levels in (1, 2, 4):
            yield rng.integers(0, levels, n1) / 2, rng.integers(0, levels, n2) / 2
    yield np.array([1.0, 1.0, 2.0, 3.0]), np.array([0.0, 4.0, 5.0])  # ties within x only
    yield np.array([1.0, 2.0, 3.0]), np.array([2.0, 3.0, 4.0, 0.5])  # ties across only
    yield np.array([-np.inf, 0.0, np.inf]), np.array([np.inf, -0.0, 1.0])  # infinities, zeros


def test_exact_and_auto_with_ties_equal_scipy():
    """Tied samples, each with the next of every option and of several partitionings.

    The statistic is equal (scipy's float ranks are exact at these sizes); the
    p-value to 1e-12: ours is the exact fraction rounded once, scipy's a sum of
    float probabilities (``1 - cdf + pmf``), whose last bits drift.
    """
    options = itertools.cycle(
        [
            dict(method=method, alternative=alternative, use_continuity=continuity)
            for continuity in (True, False)
            for alternative in ALTERNATIVES
            for method in ("exact", "auto")
        ]
    )
    partitionings = itertools.cycle([(1, 1), (2, 3), (3, 2), (-1, 1), (1, 4)])
    for (x, y), o, (chunks, buckets) in zip(tied_samples(), options, partitionings, strict=False):
        with dask.config.set({"dask-auc.buckets": buckets}):
            result = dask_auc.mannwhitneyu(chunked(x, chunks), chunked(y, chunks), **o)
        assert_same(result, reference(x, y, **o), rel=1e-12)


@settings(max_examples=20, deadline=None)
@given(
    x=st.lists(st.integers(0, 4), min_size=1, max_size=9),
    y=st.lists(st.integers(0, 4), min_size=1, max_size=9),
    chunks=st.integers(1, 5),
    buckets=st.integers(1, 4),
    method=st.sampled_from(["exact", "auto"]),
    alternative=st.sampled_from(ALTERNATIVES),
)
def test_property_tied_samples_against_scipy(x, y, chunks, buckets, method, alternative):
    options = dict(method=method, alternative=alternative)
    with dask.config.set({"dask-auc.buckets": buckets}):
        result = dask_auc.mannwhitneyu(
            chunked(np.array(x, float), chunks), chunked(np.array(y, float), chunks), **options
        )
    assert_same(result, reference(x, y, **options), rel=1e-12)


def test_exact_far_in_the_tail_of_large_samples():
    """scipy builds U's distribution only as far as the tail it sums; so must the work limit.

    Below ``min(n1, n2)`` the orderings with U = j are the partitions of j: an
    exact reference.  scipy agrees to 1e-10 only: its ``special.binom(7120, 120)``
    is 6e-12 off ``math.comb``.
    """
    y = np.arange(7000.0)
    x = np.r_[y[:110] + 1e4, y[-10:] + 0.5]  # only 10 values of x rank below some of y
    x[-1] = y[-3]  # and one tie: U2 = 45 + 2.5
    partitions = [1] + [0] * 48
    for part in range(1, 49):
        for j in range(part, 49):
            partitions[j] += partitions[j - part]
    tail = Fraction(sum(partitions), math.comb(7120, 120))  # P(U <= 48), U2 = 47.5 rounded up
    exact = {"two-sided": float(2 * tail), "greater": float(tail), "less": 1.0}
    for alternative in ALTERNATIVES:
        options = dict(method="exact", alternative=alternative)
        result = dask_auc.mannwhitneyu(x, y, **options)
        assert result == (120 * 7000 - 47.5, exact[alternative])
        assert_same(result, reference(x, y, **options))
    x, y = np.arange(3000.0) + 1e4, np.arange(3000.0)  # separated: p is 0.0 (underflow)
    assert_same(dask_auc.mannwhitneyu(x, y, method="exact"), reference(x, y, method="exact"))


# -- errors ------------------------------------------------------------------------------------


def test_errors():
    x, y = np.array([1.0, 2.0, 3.0]), np.array([2.0, 5.0])
    with pytest.raises(NotImplementedError, match="PermutationMethod"):
        dask_auc.mannwhitneyu(x, y, method=stats.PermutationMethod())
    with pytest.raises(NotImplementedError, match="axis=1"):
        dask_auc.mannwhitneyu(x, y, axis=1)
    with pytest.raises(NotImplementedError, match="keepdims"):
        dask_auc.mannwhitneyu(x, y, keepdims=True)
    with pytest.raises(ValueError, match="1-D"):
        dask_auc.mannwhitneyu(np.ones((3, 2)), y)
    with pytest.raises(TypeError, match="real numbers"):
        dask_auc.mannwhitneyu(np.array(["a", "b"]), y)
    with pytest.raises(dask_auc.InvalidParameterError, match="alternative"):
        dask_auc.mannwhitneyu(x, y, alternative="bigger")
    with pytest.raises(ValueError, match="pass method='asymptotic'"):
        dask_auc.mannwhitneyu(np.arange(3000.0), np.arange(3000.0) + 0.5, method="exact")


# -- property --------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    x=st.lists(st.sampled_from([-np.inf, -1.0, 0.0, 0.5, 1.0, 2.0, np.inf]), max_size=25),
    y=st.lists(st.floats(-3, 3, width=16), max_size=25),
    chunks=st.integers(1, 9),
    buckets=st.integers(1, 6),
    alternative=st.sampled_from(ALTERNATIVES),
)
def test_property_against_scipy(x, y, chunks, buckets, alternative):
    with dask.config.set({"dask-auc.buckets": buckets}), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy's small-sample warning, ours
        result = dask_auc.mannwhitneyu(
            chunked(np.array(x, float), chunks),
            chunked(np.array(y, float), chunks),
            alternative=alternative,
        )
    assert_same(result, reference(x, y, alternative=alternative))


def test_values_one_ulp_apart_stay_distinct_through_the_sort():
    """Keys of neighbouring floats differ by 1 near 2**62: the sort must not round them."""
    base = np.nextafter(1.0, 2.0) ** np.arange(40)  # 1, 1 + ulp, 1 + 2 ulp, ... distinct
    x, y = base[::2], base[1::2]
    with dask.config.set({"dask-auc.buckets": 5}):
        result = dask_auc.mannwhitneyu(chunked(x, 3), chunked(y, 4), method="asymptotic")
    assert_same(result, reference(x, y, method="asymptotic"))
    assert result.statistic == sum(int(a > b) for a in x for b in y)  # no ties
