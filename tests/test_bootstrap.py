"""Bootstrap intervals: every replicate against an independent computation, and the counts.

The metric registry runs ``bootstrap_ci`` (four metrics) and ``bootstrap_test``
through every invariance test; here: every metric replicate by replicate on
ties spread across many buckets, the cluster bootstrap, the counts' law, the
agreement with an ordinary resampling bootstrap, the errors, and a real
process cluster.
"""

from __future__ import annotations

import math
import warnings

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dask_auc
from dask_auc._roc.replicate_metrics import replicate_interval
from metric_registry import BOOTSTRAPS, SEED, bootstrap_reference
from strategies import boundaries, dask_array, dask_frame, scored_rows

#: every metric of bootstrap_ci with its parameters, and whether its replicates are exact
METRICS = [
    ("roc_auc", {}, True),
    ("roc_auc", {"max_fpr": 0.3}, False),  # scikit-learn interpolates in floats
    ("partial_auc", {"fpr_range": (0.1, 0.45)}, True),
    ("partial_auc", {"tpr_range": (0.2, 0.7), "standardized": False}, True),
    ("average_precision", {}, False),
    ("ks", {}, True),
    ("tpr_at_fpr", {"fpr": 0.25}, True),
    ("fpr_at_tpr", {"tpr": 0.6}, True),
]
IDS = [f"{m}-{'-'.join(map(str, p))}" if p else m for m, p, _ in METRICS]


def _compare(result, expected: dict, exact: bool) -> None:
    fields = result._asdict()
    for name, want in expected.items():
        got = np.asarray(fields[name], dtype=float)
        if exact:
            np.testing.assert_array_equal(got, want, err_msg=name)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=name)


@pytest.mark.parametrize("metric, params, exact", METRICS, ids=IDS)
@settings(max_examples=8, deadline=None)
@given(rows=scored_rows(min_size=20, max_size=150), data=st.data())
def test_every_replicate_equals_the_reference(metric, params, exact, rows, data) -> None:
    """Each replicate (and the estimate) equals the metric of the rows weighted by their counts.

    The counts come from the public :func:`dask_auc.bootstrap_counts`; the
    metric from scikit-learn or an exact reference.  Tie groups straddle the
    edges of up to 7 buckets, in any partitioning (empty partitions too).
    Unweighted, every replicate but average precision's is exact: equal to the bit.
    """
    y, s, _ = rows
    cuts = data.draw(boundaries(len(y)))
    buckets = data.draw(st.sampled_from([1, 3, 7]))
    with dask.config.set({"dask-auc.buckets": buckets}):
        result = dask_auc.bootstrap_ci(
            dask_array(y, cuts),
            dask_array(s, cuts),
            metric=metric,
            n_bootstraps=BOOTSTRAPS,
            random_state=SEED,
            **params,
        )
    expected = bootstrap_reference(metric, **params)({"y_true": y, "y_score": s})
    _compare(result, expected, exact)


def test_a_heavy_tie_spread_over_buckets_is_one_tie_group() -> None:
    """Half the rows share one score, dealt over several buckets by the sort: still exact."""
    rng = np.random.default_rng(4)
    n = 4000
    y = rng.integers(0, 2, n)
    s = np.where(rng.random(n) < 0.5, 0.5, np.round(rng.random(n), 2))
    cuts = [0, 700, 700, 2500, n]
    for metric, params, exact in METRICS:
        with dask.config.set({"dask-auc.buckets": 9}):
            result = dask_auc.bootstrap_ci(
                dask_array(y, cuts), dask_array(s, cuts), metric=metric, n_bootstraps=6,
                random_state=11, **params,
            )  # fmt: skip
        reference = dask_auc.bootstrap_ci(
            y, s, metric=metric, n_bootstraps=6, random_state=11, **params
        )
        _compare(result, reference._asdict() | {"replicates": reference.replicates}, exact)


def test_the_same_for_any_partitioning_scheduler_and_the_compiled_loops() -> None:
    """Bit for bit: one partition or many, the direct or the tasks exchange, numba or not."""
    rng = np.random.default_rng(8)
    n = 3000
    y = (rng.random(n) < 0.3).astype(int)
    s = np.round(rng.random(n) + 0.3 * y, 2)
    runs = []
    for cuts, settings_ in (
        ([0, n], {}),
        ([0, 11, 11, 1200, 2999, n], {"dask-auc.exchange": "tasks"}),
        (list(range(0, n + 1, 100)), {"dask-auc.numba": False, "dask-auc.buckets": 5}),
    ):
        with dask.config.set(settings_):
            runs.append(
                dask_auc.bootstrap_ci(
                    dask_array(y, cuts), dask_array(s, cuts), n_bootstraps=40, random_state=3
                )
            )
    for other in runs[1:]:
        np.testing.assert_array_equal(other.replicates, runs[0].replicates)
        assert other[:6] == runs[0][:6]


def test_the_cluster_bootstrap_resamples_each_group_whole() -> None:
    """With ``groups``, every row of a key gets its key's count: invariant to row order too."""
    rng = np.random.default_rng(5)
    n = 600
    user = rng.integers(0, 40, n)
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n) + 0.2 * y, 1)
    counts = dask_auc.bootstrap_counts(groups=user, n_bootstraps=5, random_state=2)
    for key in np.unique(user):
        rows = counts[:, user == key]
        assert (rows == rows[:, :1]).all()
    # string keys of the same values hash alike in every block
    counts_str = dask_auc.bootstrap_counts(groups=user.astype(str), n_bootstraps=5, random_state=2)
    for key in np.unique(user):
        assert np.unique(counts_str[:, user == key], axis=1).shape[1] == 1
    frame = dask_frame({"y": y, "s": s, "user": user}, [0, 100, 100, 450, n])
    result = dask_auc.bootstrap_ci(
        frame.y, frame.s, groups=frame.user, n_bootstraps=5, random_state=2
    )
    from metric_registry import exact_auc

    for b in range(5):
        assert result.replicates[b] == exact_auc(y, s, counts[b])
    order = rng.permutation(n)
    shuffled = dask_auc.bootstrap_ci(
        dask_array(y[order], [0, 300, n]),
        dask_array(s[order], [0, 300, n]),
        groups=dask_array(user[order], [0, 300, n]),
        n_bootstraps=5,
        random_state=2,
    )
    np.testing.assert_array_equal(shuffled.replicates, result.replicates)


def test_a_group_key_is_its_value_whatever_its_dtype() -> None:
    """7 and 7.0 are one group, as grouped_roc_auc_score takes them (issue 29, item 6).

    The counts of float, nullable and categorical ids equal those of the
    int64 ids of the same values; a frame whose id column is int64 in one
    partition and float64 in another gives each replicate the exact AUC of
    the rows weighted by the int64 ids' counts.
    """
    rng = np.random.default_rng(29)
    n = 400
    user = rng.integers(-20, 20, n)
    user[:3] = [2**40, 2**40, -(2**40)]
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n) + 0.3 * y, 1)
    counts = dask_auc.bootstrap_counts(groups=user, n_bootstraps=6, random_state=4)
    same_values = (
        user.astype(np.float64),
        user.astype(np.float32),
        pd.array(user, dtype="Int64"),
        pd.Series(user.astype(np.float64)).astype("category"),
    )
    for ids in same_values:
        got = dask_auc.bootstrap_counts(groups=ids, n_bootstraps=6, random_state=4)
        np.testing.assert_array_equal(got, counts, err_msg=str(ids.dtype))
    half = n // 2
    parts = [
        pd.DataFrame({"y": y[:half], "s": s[:half], "user": user[:half]}),
        pd.DataFrame({"y": y[half:], "s": s[half:], "user": user[half:].astype(np.float64)}),
    ]
    frame = dd.from_delayed(
        [dask.delayed(part) for part in parts], meta=parts[0].iloc[:0], verify_meta=False
    )
    result = dask_auc.bootstrap_ci(
        frame.y, frame.s, groups=frame.user, n_bootstraps=6, random_state=4
    )
    from metric_registry import exact_auc

    for b in range(6):
        assert result.replicates[b] == exact_auc(y, s, counts[b])


def test_the_counts_of_keys_of_one_dtype_are_unchanged() -> None:
    """The counts of integer, non-integer float, string and boolean keys, pinned (issue 29)."""
    pinned = [
        (np.array([7, -1, 2**40, 0]), [[0, 0, 2, 1], [3, 0, 0, 0], [1, 0, 0, 0]]),
        (np.array([0.5, -2.25, 1e300]), [[1, 1, 0], [0, 0, 0], [0, 1, 0]]),
        (np.array(["a", "7", ""]), [[0, 1, 0], [0, 0, 2], [1, 2, 1]]),
        (np.array([True, False]), [[2, 1], [0, 0], [1, 0]]),
        (np.array([2**64 - 1, 3], dtype=np.uint64), [[0, 1], [0, 1], [0, 0]]),
    ]
    for keys, want in pinned:
        got = dask_auc.bootstrap_counts(groups=keys, n_bootstraps=3, random_state=11)
        assert got.tolist() == want, keys.dtype


def test_the_counts_are_poisson_one_draws() -> None:
    """Mean and variance 1, and the Poisson(1) frequencies, within 5 standard errors."""
    counts = dask_auc.bootstrap_counts(200_000, n_bootstraps=5, random_state=1).ravel()
    n = len(counts)
    assert abs(counts.mean() - 1) < 5 * math.sqrt(1 / n)
    assert abs(counts.var() - 1) < 5 * math.sqrt(3 / n)  # Var of X^2-ish terms: 2 + 1
    for k in range(6):
        p = math.exp(-1) / math.factorial(k)
        assert abs((counts == k).mean() - p) < 5 * math.sqrt(p * (1 - p) / n), k
    # a replicate's counts do not depend on which other rows or replicates are asked
    part = dask_auc.bootstrap_counts(
        positions=np.arange(1000, 1010), n_bootstraps=5, random_state=1
    )
    full = dask_auc.bootstrap_counts(1010, n_bootstraps=5, random_state=1)
    np.testing.assert_array_equal(part, full[:, 1000:])


def _rank_auc(y: np.ndarray, s: np.ndarray) -> float:
    """The AUC by the rank sum (average ranks for ties): Mann-Whitney's U over P * N."""
    order = np.argsort(s, kind="stable")
    ranks = np.empty(len(s))
    sorted_s = s[order]
    starts = np.flatnonzero(np.r_[True, sorted_s[1:] != sorted_s[:-1]])
    ends = np.r_[starts[1:], len(s)]
    for a, b in zip(starts, ends, strict=True):
        ranks[order[a:b]] = (a + b + 1) / 2
    pos = y == 1
    p, n = pos.sum(), (~pos).sum()
    return (ranks[pos].sum() - p * (p + 1) / 2) / (p * n)


def test_the_interval_agrees_with_a_resampling_bootstrap() -> None:
    """Against a plain NumPy bootstrap (rows drawn with replacement, another random stream).

    Tolerance from theory: a bootstrap percentile from ``B`` replicates has a
    standard error of about ``sqrt(q (1 - q) / B) / phi(z_q)`` bootstrap
    standard errors (0.084 for ``q = 0.025``, ``B = 1000``); the two methods'
    ends differ by at most 4 of their combined errors, 0.48 standard errors.
    The Poisson and the multinomial bootstrap differ by O(1/n) only.
    """
    rng = np.random.default_rng(12)
    n, B = 1000, 1000
    y = (rng.random(n) < 0.4).astype(int)
    s = y + rng.normal(0, 1.5, n)
    ours = dask_auc.bootstrap_ci(
        da.from_array(y, chunks=250), da.from_array(s, chunks=250), n_bootstraps=B,
        random_state=21,
    )  # fmt: skip
    plain = []
    for _ in range(B):
        rows = rng.integers(0, n, n)
        plain.append(_rank_auc(y[rows], s[rows]))
    low, high = np.quantile(plain, [0.025, 0.975])
    se = np.std(plain, ddof=1)
    assert ours.estimate == pytest.approx(_rank_auc(y, s), abs=1e-15)
    assert abs(ours.low - low) < 0.48 * se
    assert abs(ours.high - high) < 0.48 * se
    assert ours.std_error == pytest.approx(se, rel=0.15)  # 4 x the std's relative error


def test_interval_kinds() -> None:
    """Percentile, basic (reflected about the estimate) and normal, from the same replicates."""
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 500)
    s = y + rng.normal(size=500)
    kinds = {
        kind: dask_auc.bootstrap_ci(y, s, n_bootstraps=100, random_state=4, interval=kind)
        for kind in ("percentile", "basic", "normal")
    }
    p, b, z = kinds["percentile"], kinds["basic"], kinds["normal"]
    np.testing.assert_array_equal(p.replicates, b.replicates)
    assert b.low == pytest.approx(2 * p.estimate - p.high)
    assert b.high == pytest.approx(2 * p.estimate - p.low)
    assert z.low == pytest.approx(z.estimate - 1.959963984540054 * z.std_error)
    assert np.quantile(p.replicates, (1 - 0.95) / 2) == p.low


def test_the_paired_test_uses_the_same_counts_for_both_models() -> None:
    rng = np.random.default_rng(6)
    n = 800
    y = rng.integers(0, 2, n)
    a, b = y + rng.normal(size=n), y + 2 * rng.normal(size=n)
    test = dask_auc.bootstrap_test(y, a, b, n_bootstraps=50, random_state=9)
    one = dask_auc.bootstrap_ci(y, a, n_bootstraps=50, random_state=9)
    two = dask_auc.bootstrap_ci(y, b, n_bootstraps=50, random_state=9)
    np.testing.assert_array_equal(test.replicates, one.replicates - two.replicates)
    assert test.difference == one.estimate - two.estimate
    assert test.z == pytest.approx(test.difference / np.std(test.replicates, ddof=1))
    assert test.p_value == pytest.approx(math.erfc(abs(test.z) / math.sqrt(2)))
    same = dask_auc.bootstrap_test(y, a, a, n_bootstraps=20, random_state=9)
    assert same.difference == 0 and math.isnan(same.z) and math.isnan(same.p_value)


@pytest.mark.parametrize("chunks", [1, 2, 5])
@pytest.mark.float_order
def test_weighted_models_that_rank_alike_have_no_z_from_rounding(chunks: int) -> None:
    """Two perfect models, float weights: their replicate AUCs differ only by rounding.

    Model ``a`` ties its negatives, ``b`` does not, so their weighted sums are
    added in different orders: replicate differences of ~1e-16 whose spread
    gave z = 2.54 (p = 0.011) on one partitioning (found by the invariance
    test).  Within the rounding bound, z and p are NaN with a warning, on any
    partitioning; a real difference keeps its z.
    """
    y = np.array([0, 0, 1, 0, 1])
    a = np.array([0.0, 0.0, 0.3, 0.0, 0.3])
    b = np.array([0.1, 0.2, 0.4, -0.3, 0.5])
    w = np.array([0.91275558, 1.0, 3.0, 0.91275558, 3.0])
    inputs = [da.from_array(x, chunks=chunks) for x in (y, a, b, w)]
    with pytest.warns(dask_auc.UndefinedMetricWarning, match="rounding of their weighted sums"):
        test = dask_auc.bootstrap_test(
            *inputs[:3], sample_weight=inputs[3], n_bootstraps=9, random_state=6
        )
    assert test.estimate_a == test.estimate_b == 1.0
    assert abs(test.difference) < 1e-15 and math.isnan(test.z) and math.isnan(test.p_value)
    rng = np.random.default_rng(3)
    n = 400
    y = rng.integers(0, 2, n)
    w = rng.random(n) * 3
    worse = y + 2 * rng.normal(size=n)
    with warnings.catch_warnings():
        warnings.simplefilter("error", dask_auc.UndefinedMetricWarning)
        real = dask_auc.bootstrap_test(
            y, y + rng.normal(size=n), worse, sample_weight=w, n_bootstraps=50, random_state=1
        )
    assert real.z > 2 and 0 < real.p_value < 0.05


@pytest.mark.parametrize("value", [0.3, 1 / 3, 0.7, 0.1])
@pytest.mark.parametrize("replicates", [7, 200])
def test_replicates_that_do_not_vary_have_a_standard_error_of_exactly_zero(
    value: float, replicates: int
) -> None:
    """np.std of copies of 0.3 is 5.6e-17 (its mean is rounded): a test's z would be 1e16."""
    values = np.full(replicates + 1, value)
    for kind in ("percentile", "normal", "basic"):
        low, high, std_error = replicate_interval(values, 0.95, kind, "bootstrap_test")
        assert std_error == 0.0 and low == high == value


def test_roc_auc_ci_bootstrap_and_a_persisted_roc_sort_once() -> None:
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 2000)
    s = np.round(y + rng.normal(size=2000), 2)
    Y, S = da.from_array(y, chunks=500), da.from_array(s, chunks=500)
    ci = dask_auc.roc_auc_ci(Y, S, method="bootstrap", n_bootstraps=60, random_state=1)
    full = dask_auc.bootstrap_ci(Y, S, n_bootstraps=60, random_state=1)
    assert isinstance(ci, dask_auc.AUCInterval)
    assert ci == (full.estimate, full.low, full.high, full.std_error, 0.95)
    assert ci.auc == dask_auc.roc_auc_score(Y, S)
    curve = dask_auc.roc(Y, S).persist()
    first = curve.ci(method="bootstrap", n_bootstraps=60, random_state=1)
    np.testing.assert_array_equal(first.replicates, full.replicates)
    # the replicate sort is kept: a later query of another metric sorts nothing
    lazy = curve.ci(method="bootstrap", metric="ks", n_bootstraps=60, random_state=2, compute=False)
    assert not [k for k in dict(lazy.__dask_graph__()) if "auc-split" in str(k)]
    assert lazy.compute().estimate == dask_auc.ks_statistic(Y, S).statistic


@pytest.mark.parametrize(
    "labels",
    [
        np.array([3, 7]),  # int64, not 0/1
        np.array([False, True]),
        np.array([-1.0, 1.0]),
        np.array(["no", "yes"]),
        np.array([0, 1], dtype=object),  # kept as given
    ],
)
def test_a_persisted_roc_keeps_its_rows_labels_as_class_codes(labels) -> None:
    """The persisted rows hold each label as its class's index: the same replicates as lazily."""
    rng = np.random.default_rng(3)
    picked = rng.integers(0, 2, 3000)
    y, s = labels[picked], np.round(picked + rng.normal(size=3000), 1)
    Y, S = da.from_array(y, chunks=700), da.from_array(s, chunks=700)
    pos_label, options = labels[1], dict(n_bootstraps=40, random_state=5)
    lazy = dask_auc.roc(Y, S, pos_label=pos_label).ci(method="bootstrap", **options)
    curve = dask_auc.roc(Y, S, pos_label=pos_label).persist()
    blocks = dask.compute(*curve._sort.replicates.kept)  # the kept rows, before any bootstrap
    coded = y.dtype.kind != "O"
    assert all(b.coded is coded for b in blocks)
    assert all((b.labels.dtype == np.uint8) is coded for b in blocks)
    persisted = curve.ci(method="bootstrap", **options)
    np.testing.assert_array_equal(persisted.replicates, lazy.replicates)
    assert persisted.estimate == lazy.estimate == curve.auc()


def test_class_codes_are_indices_among_the_sorted_classes() -> None:
    from dask_auc._kernels.core.label_codes import class_codes

    np.testing.assert_array_equal(class_codes(np.array([5, 5]), (5,)), [0, 0])
    np.testing.assert_array_equal(class_codes(np.array([-0.0, 0.0, 1.0]), (0.0, 1.0)), [0, 0, 1])
    np.testing.assert_array_equal(
        class_codes(np.array(["c", "a", "b"]), ("a", "b", "c")), [2, 0, 1]
    )
    many = np.arange(300)
    assert class_codes(many, tuple(range(300))) is many
    mixed = np.array([1, "a"], dtype=object)
    assert class_codes(mixed, (1, "a")) is mixed


def test_weighted_replicates_weigh_counts_by_the_weights() -> None:
    rng = np.random.default_rng(9)
    n = 300
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n) + 0.3 * y, 1)
    w = rng.choice([0.0, 0.5, 1.0, 2.25], n)
    cuts = [0, 100, n]
    result = dask_auc.bootstrap_ci(
        dask_array(y, cuts),
        dask_array(s, cuts),
        sample_weight=dask_array(w, cuts),
        metric="average_precision",
        n_bootstraps=BOOTSTRAPS,
        random_state=SEED,
    )
    expected = bootstrap_reference("average_precision")(
        {"y_true": y, "y_score": s, "sample_weight": w}
    )
    assert result.estimate == pytest.approx(dask_auc.average_precision_score(y, s, sample_weight=w))
    _compare(result, expected, exact=False)


def test_undefined_replicates_are_left_out_with_a_warning() -> None:
    y, s = np.array([0, 1, 0, 0]), np.array([0.1, 0.9, 0.3, 0.2])
    with pytest.warns(dask_auc.UndefinedMetricWarning, match="bootstrap replicates drew no"):
        result = dask_auc.bootstrap_ci(y, s, n_bootstraps=30, random_state=0)
    assert np.isnan(result.replicates).any() and not np.isnan(result.replicates).all()
    defined = result.replicates[~np.isnan(result.replicates)]
    assert result.low == np.quantile(defined, (1 - 0.95) / 2)
    with pytest.warns(dask_auc.UndefinedMetricWarning, match="Only one class"):
        one = dask_auc.bootstrap_ci(np.zeros(4), s, n_bootstraps=5, random_state=0)
    assert all(math.isnan(v) for v in one[:4])


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"metric": "f1"}, ValueError, "metric"),
        ({"metric": "ks", "fpr": 0.1}, TypeError, "metric='ks' takes no parameter; got fpr"),
        ({"metric": "tpr_at_fpr"}, ValueError, "needs fpr="),
        ({"metric": "partial_auc"}, ValueError, "exactly one of fpr_range and tpr_range"),
        ({"metric": "roc_auc", "max_fpr": 1.5}, ValueError, "max_fpr"),
        ({"n_bootstraps": 0}, ValueError, "n_bootstraps"),
        ({"random_state": -1}, ValueError, "between 0 and 2\\*\\*64 - 1"),
        ({"random_state": "7"}, TypeError, "random_state must be"),
        ({"random_state": True}, TypeError, "random_state must be"),
        ({"interval": "bca"}, ValueError, "interval"),
        ({"confidence_level": 1.0}, ValueError, "confidence_level"),
    ],
)
def test_bad_parameters_raise_before_any_work(options, error, message) -> None:
    y, s = da.from_array(np.array([0, 1, 0, 1])), da.from_array(np.array([0.1, 0.9, 0.3, 0.2]))
    with dask.config.set(scheduler=_refuse):
        with pytest.raises(error, match=message):
            dask_auc.bootstrap_ci(y, s, **{"n_bootstraps": 5, "random_state": 1, **options})


def _refuse(*args, **kwargs):
    raise AssertionError("computed before the parameters were checked")


def test_input_errors() -> None:
    y, s = np.array([0, 1, 0, 1]), np.array([0.1, 0.9, 0.3, 0.2])
    with pytest.raises(ValueError, match="groups has 1 missing key"):
        dask_auc.bootstrap_ci(y, s, groups=np.array([1.0, np.nan, 2.0, 3.0]), n_bootstraps=3)
    with pytest.raises(ValueError, match="NaN"):
        dask_auc.bootstrap_ci(y, np.array([0.1, np.nan, 0.3, 0.2]), n_bootstraps=3)
    with pytest.raises(ValueError, match="Input contains NaN|inconsistent numbers|length"):
        dask_auc.bootstrap_ci(y, s[:3], n_bootstraps=3)
    with pytest.raises(ValueError, match="DeLong's interval is of the AUC only"):
        dask_auc.roc(y, s).ci(metric="ks")
    with pytest.raises(TypeError, match="int random_state"):
        dask_auc.bootstrap_counts(4, n_bootstraps=2, random_state=None)
    # random_state=None: a fresh seed each call
    y, s = np.tile(y, 50), np.tile(s, 50)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fresh = [dask_auc.bootstrap_ci(y, s, n_bootstraps=4).replicates for _ in range(2)]
    assert fresh[0].shape == (4,) and not np.array_equal(fresh[0], fresh[1])


@pytest.mark.cluster
def test_on_a_process_cluster_the_replicates_are_the_threaded_ones(client) -> None:
    rng = np.random.default_rng(10)
    n = 20_000
    y = (rng.random(n) < 0.3).astype(np.int8)
    s = np.round(rng.random(n) + 0.3 * y, 3)
    cuts = [0, 4000, 4000, 13_000, n]
    frame = dask_frame({"y": y, "s": s}, cuts).persist()
    on_cluster = dask_auc.bootstrap_ci(
        frame.y, frame.s, metric="average_precision", n_bootstraps=50, random_state=5
    )
    with dask.config.set(scheduler="threads"):
        threaded = dask_auc.bootstrap_ci(
            dask_array(y, [0, n]), dask_array(s, [0, n]), metric="average_precision",
            n_bootstraps=50, random_state=5,
        )  # fmt: skip
    np.testing.assert_allclose(on_cluster.replicates, threaded.replicates, rtol=1e-12)
    auc_cluster = dask_auc.bootstrap_ci(frame.y, frame.s, n_bootstraps=50, random_state=5)
    with dask.config.set(scheduler="threads"):
        auc_threaded = dask_auc.bootstrap_ci(y, s, n_bootstraps=50, random_state=5)
    np.testing.assert_array_equal(auc_cluster.replicates, auc_threaded.replicates)


# -- GAUC's interval: the groups resampled whole, from the per-group table ---------------------


def _click_log(n: int = 6000, users: int = 300, seed: int = 3):
    import pandas as pd

    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "user": rng.zipf(1.5, n) % users,
            "region": rng.integers(0, 3, n),
            "click": (rng.random(n) < 0.2).astype(int),
            "score": np.round(rng.random(n), 2),
            "weight": rng.choice([0.0, 1.0, 2.5], n),
        }
    )


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"gauc_weight": "positives"},
        {"sample_weight": "weight", "gauc_weight": "uniform"},
        {"by": ["region", "user"]},
    ],
)
def test_the_gauc_interval_equals_a_per_group_reference(options) -> None:
    """Each replicate: the weighted mean of the groups' AUCs with each group's count."""
    import dask.dataframe as dd
    from sklearn.metrics import roc_auc_score

    frame = _click_log()
    by = options.get("by", "user")
    kwargs = {k: v for k, v in options.items() if k != "by"}
    result = dask_auc.grouped_roc_auc_score(
        dd.from_pandas(frame, npartitions=5), by=by, label="click", score="score",
        n_bootstraps=40, random_state=8, **kwargs,
    )  # fmt: skip
    weight = kwargs.get("sample_weight")
    rows = []
    for key, group in frame.groupby(by, sort=True):
        click, score = group.click.to_numpy(), group.score.to_numpy()
        w = group[weight].to_numpy() if weight else np.ones(len(group))
        pos, neg = w[click == 1].sum(), w[click == 0].sum()
        if (click[w > 0] == 1).any() and (click[w > 0] == 0).any():
            auc = roc_auc_score(click, score, sample_weight=w)
            mode = kwargs.get("gauc_weight", "rows")
            g_weight = {"rows": pos + neg, "positives": pos, "uniform": 1.0}[mode]
            rows.append((key, auc, g_weight))
    keys = [k for k, _, _ in rows]
    auc = np.array([a for _, a, _ in rows])
    w = np.array([g for _, _, g in rows])
    if isinstance(by, list):
        # a MultiIndex key: its levels' hashes combined, as the per-group table is indexed
        from dask_auc._kernels.replicates.counts import (
            counts_for,
            group_keys,
            mix64,
            replicate_keys,
        )

        hashed = np.zeros(len(keys), np.uint64)
        for level in range(len(by)):
            hashed = mix64(hashed ^ group_keys(np.array([k[level] for k in keys])))
        counts = counts_for(hashed, replicate_keys(8, np.arange(40)))
    else:
        counts = dask_auc.bootstrap_counts(groups=np.array(keys), n_bootstraps=40, random_state=8)
    expected = (counts * w * auc).sum(axis=1) / (counts * w).sum(axis=1)
    np.testing.assert_allclose(result.interval.replicates, expected, rtol=1e-12)
    assert result.interval.estimate == result.gauc
    assert result.gauc == pytest.approx(float(np.dot(w, auc) / w.sum()), rel=1e-12)
    assert result.interval.low == np.quantile(result.interval.replicates, (1 - 0.95) / 2)


def test_the_gauc_interval_is_the_same_for_any_partitioning_and_lazy() -> None:
    import dask.dataframe as dd

    frame = _click_log(seed=4)
    results = [
        dask_auc.grouped_roc_auc_score(
            dd.from_pandas(frame, npartitions=parts), by="user", label="click", score="score",
            n_bootstraps=30, random_state=2,
        ).interval
        for parts in (1, 9)
    ]  # fmt: skip
    np.testing.assert_array_equal(results[0].replicates, results[1].replicates)
    with dask.config.set({"dask-auc.numba": False}):
        numpy_path = dask_auc.grouped_roc_auc_score(
            dd.from_pandas(frame, npartitions=3), by="user", label="click", score="score",
            n_bootstraps=30, random_state=2,
        ).interval  # fmt: skip
    np.testing.assert_array_equal(numpy_path.replicates, results[0].replicates)
    lazy = dask_auc.grouped_roc_auc_score(
        dd.from_pandas(frame, npartitions=3), by="user", label="click", score="score",
        n_bootstraps=10, compute=False,
    )  # fmt: skip
    np.testing.assert_array_equal(
        lazy.compute().interval.replicates, lazy.compute().interval.replicates
    )
    with pytest.raises(ValueError, match="n_bootstraps"):
        dask_auc.grouped_roc_auc_score(
            frame, by="user", label="click", score="score", n_bootstraps=0
        )


def test_every_estimate_is_its_functions_result() -> None:
    """The estimate (every row counted once) is what the metric's own function returns."""
    rng = np.random.default_rng(13)
    n = 3000
    y = (rng.random(n) < 0.35).astype(int)
    s = np.round(rng.random(n) + 0.3 * y, 2)
    Y, S = da.from_array(y, chunks=700), da.from_array(s, chunks=700)
    functions = {
        "roc_auc": lambda: dask_auc.roc_auc_score(Y, S),
        "roc_auc-max_fpr": lambda: dask_auc.roc_auc_score(Y, S, max_fpr=0.3),
        "partial_auc-fpr_range": lambda: dask_auc.partial_roc_auc_score(
            Y, S, fpr_range=(0.1, 0.45)
        ),
        "partial_auc-tpr_range-standardized": lambda: dask_auc.partial_roc_auc_score(
            Y, S, tpr_range=(0.2, 0.7), standardized=False
        ),
        "average_precision": lambda: dask_auc.average_precision_score(Y, S),
        "ks": lambda: dask_auc.ks_statistic(Y, S).statistic,
        "tpr_at_fpr-fpr": lambda: dask_auc.operating_point(Y, S, fpr=0.25).tpr,
        "fpr_at_tpr-tpr": lambda: dask_auc.operating_point(Y, S, tpr=0.6).fpr,
    }
    for (metric, params, exact), name in zip(METRICS, IDS, strict=True):
        estimate = dask_auc.bootstrap_ci(
            Y, S, metric=metric, n_bootstraps=2, random_state=0, **params
        ).estimate
        expected = functions[name]()
        if exact or metric == "roc_auc":  # max_fpr: the package's own exact formula
            assert estimate == expected, name
        else:
            assert estimate == pytest.approx(expected, rel=1e-12), name


def test_pair_counts_beyond_int64_are_refused() -> None:
    """A replicate with more pairs than int64 point counts hold exactly raises (never wraps)."""
    from dask_auc._kernels.replicates.queries import check_pair_range
    from dask_auc._kernels.replicates.scan import ReplicateContext

    big = np.array([3 * 10**9, 3 * 10**9], dtype=object)
    context = ReplicateContext(big, big, big, big, False, big, big)
    with pytest.raises(ValueError, match="int64 pair counts"):
        check_pair_range(context)
    small = np.array([10**9, 10**9], dtype=object)
    check_pair_range(ReplicateContext(small, small, small, small, False, small, small))


def test_the_reprs_summarise_the_replicates() -> None:
    """One short line: every field but the replicates, which are counted (issue 29)."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    s = np.round(y + rng.normal(size=300), 2)
    ci = dask_auc.bootstrap_ci(y, s, n_bootstraps=200, random_state=1)
    assert repr(ci) == (
        f"BootstrapInterval(estimate={ci.estimate!r}, low={ci.low!r}, high={ci.high!r}, "
        f"std_error={ci.std_error!r}, confidence_level=0.95, n_bootstraps=200, "
        "replicates=<200 values>)"
    )
    test = dask_auc.bootstrap_test(y, s, s + rng.normal(size=300), n_bootstraps=200, random_state=1)
    text = repr(test)
    assert text.startswith(f"BootstrapTest(estimate_a={test.estimate_a!r}, ")
    assert text.endswith(
        f"p_value={test.p_value!r}, confidence_level=0.95, "
        "n_bootstraps=200, replicates=<200 values>)"
    )
    # replicates that drew no row of a class are counted as NaN
    few = np.array([0, 1, 0, 0, 0, 0, 1, 0])
    with pytest.warns(dask_auc.UndefinedMetricWarning):
        small = dask_auc.bootstrap_ci(few, np.arange(8.0), n_bootstraps=20, random_state=0)
    nan = int(np.isnan(small.replicates).sum())
    assert nan and repr(small).endswith(f"replicates=<20 values, {nan} NaN>)")
