"""Grouped AUC kernels without a scheduler: per-group sums vs brute force, hash split, sums."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from dask_auc._kernels.groups import pair_sums
from dask_auc._kernels.groups.pair_sums import (
    compensated_cumsum,
    exact_ratio,
    group_pair_sums,
    grouped_pair_counts,
    grouped_pair_counts_many,
    radix_order,
)
from dask_auc._kernels.groups.plan import GroupBlockInfo, GroupPlan, GroupSpec, plan_groups
from dask_auc._kernels.groups.scores import stacked_scores
from dask_auc._kernels.groups.split import split_group_block
from dask_auc._kernels.groups.tables import bucket_table, concat_group_tables
from dask_auc._kernels.sort import compiled
from references import pairwise_auc


def _brute_twice_area(score, positive):
    pos, neg = score[positive], score[~positive]
    return int(2 * (pos[:, None] > neg[None, :]).sum() + (pos[:, None] == neg[None, :]).sum())


@pytest.mark.parametrize("distinct", [1, 3, 50, 10_000])
@pytest.mark.float_order
def test_group_pair_sums_equal_brute_force_pair_counts(distinct):
    rng = np.random.default_rng(distinct)
    n, n_groups = 3000, 60
    codes = rng.integers(0, n_groups, n)
    scores = rng.integers(0, distinct, n) / distinct
    positive = rng.random(n) < rng.random(n_groups)[codes]  # some groups one-class
    sums = group_pair_sums(codes, n_groups, scores, positive)
    auc = sums.auc()
    for g in range(n_groups):
        rows = codes == g
        s, p = scores[rows], positive[rows]
        assert sums.pos[g] == p.sum() and sums.neg[g] == (~p).sum()
        assert sums.twice_area[g] == _brute_twice_area(s, p)
        if p.all() or not p.any():
            assert np.isnan(auc[g])
        else:
            assert auc[g] == pairwise_auc(p, s)  # exact: one rounding of the same rational


@pytest.mark.parametrize("largest", [None, 4])
@pytest.mark.parametrize("kind", ["few-floats", "many-floats", "ints"])
@pytest.mark.float_order
def test_compiled_pair_counts_equal_the_numpy_path(kind, largest, monkeypatch):
    """The counting sort by (group, class) gives the NumPy path's exact counts (stacked too).

    Groups of every size: one row, a few (insertion sort), dozens, one of 800
    rows (a class sorted by ``ndarray.sort``), and heavy ones past
    ``LARGE_GROUP_ROWS`` (the loop leaves them to NumPy's sort, as it leaves
    every group of more than 4 rows with ``largest=4``), one of them of one
    class; one-class groups; ``-0.0`` beside ``0.0``; integer scores.
    """
    pytest.importorskip("numba")
    assert compiled.compile_now(timeout=300)
    if largest is not None:
        monkeypatch.setattr(pair_sums, "LARGE_GROUP_ROWS", largest)
    sorted_groups = []
    monkeypatch.setattr(
        pair_sums,
        "sorted_twice_area",
        lambda neg, pos, count=pair_sums.sorted_twice_area: (
            sorted_groups.append(len(neg) + len(pos)) or count(neg, pos)
        ),
    )
    rng = np.random.default_rng(len(kind))
    sizes = np.r_[1, 1, 2, 3, 16, 17, 33, 800, 1025, 3000, 1500, rng.integers(1, 40, 60)]
    codes = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))
    n = len(codes)
    if kind == "ints":
        scores = rng.integers(-5, 5, n)
    else:
        scores = rng.integers(0, 4 if kind == "few-floats" else 10**6, n) / 4.0 - 0.5
        scores[rng.random(n) < 0.1] = -0.0
        scores[rng.random(n) < 0.1] = 0.0
    positive = rng.random(n) < rng.random(len(sizes))[codes]
    positive[codes == 3] = True  # a one-class group
    positive[codes == 10] = False  # a heavy one-class group
    direct = grouped_pair_counts(codes, len(sizes), scores, positive)
    two_class = (np.bincount(codes, positive) > 0) & (np.bincount(codes, ~positive) > 0)
    heavy = two_class & (sizes > pair_sums.LARGE_GROUP_ROWS)
    assert sorted(sorted_groups) == sorted(sizes[heavy].tolist())
    assert direct is not None
    numpy_path = group_pair_sums(codes, len(sizes), scores, positive, compiled=False)
    np.testing.assert_array_equal(direct[0], numpy_path.pos)
    np.testing.assert_array_equal(direct[1], numpy_path.neg)
    np.testing.assert_array_equal(direct[2], numpy_path.twice_area)
    # several models stacked (rows x models): one counting sort, each column's own counts
    stack = np.column_stack((scores, -scores, rng.integers(0, 2, n).astype(scores.dtype)))
    many = grouped_pair_counts_many(codes, len(sizes), stack, positive)
    assert many is not None
    np.testing.assert_array_equal(many[0], numpy_path.pos)
    np.testing.assert_array_equal(many[1], numpy_path.neg)
    for i in range(stack.shape[1]):
        alone = group_pair_sums(codes, len(sizes), stack[:, i], positive, compiled=False)
        np.testing.assert_array_equal(many[2][i], alone.twice_area)


@pytest.mark.float_order
def test_weighted_pair_sums_with_zero_weights_equal_brute_force():
    rng = np.random.default_rng(1)
    n, n_groups = 2000, 40
    codes = rng.integers(0, n_groups, n)
    scores = rng.integers(0, 7, n) / 7
    positive = rng.random(n) < 0.4
    weights = rng.choice([0.0, 0.25, 1.0, 3.0, 7.5], size=n)
    sums = group_pair_sums(codes, n_groups, scores, positive, weights)
    auc = sums.auc()
    for g in range(n_groups):
        rows = codes == g
        w, p = weights[rows], positive[rows]
        assert sums.pos[g] == pytest.approx(w[p].sum(), rel=1e-14)
        assert sums.neg[g] == pytest.approx(w[~p].sum(), rel=1e-14)
        if w[p].sum() > 0 and w[~p].sum() > 0:
            assert auc[g] == pytest.approx(pairwise_auc(p, scores[rows], w), abs=1e-14)
        else:
            assert np.isnan(auc[g])


@pytest.mark.float_order
def test_small_group_after_a_heavy_bucket_keeps_its_digits():
    """A running total of 1e16 would swallow weights of 1; the compensated prefix does not."""
    rng = np.random.default_rng(2)
    big = 500
    codes = np.r_[np.zeros(big, dtype=np.int64), np.ones(6, dtype=np.int64)]
    scores = np.r_[rng.random(big), [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]]
    positive = np.r_[rng.random(big) < 0.5, [False, True, False, True, False, True]]
    weights = np.r_[np.full(big, 1e14), [1.0, 1.0, 3.0, 1.0, 1.0, 2.0]]
    sums = group_pair_sums(codes, 2, scores, positive, weights)
    small = slice(big, None)
    expected = pairwise_auc(positive[small], scores[small], weights[small])
    assert sums.auc()[1] == pytest.approx(expected, abs=1e-15)


@pytest.mark.float_order
def test_compensated_prefix_differences_are_exact_on_adversarial_sums():
    rng = np.random.default_rng(3)
    values = np.r_[[1e17, -1e17 + 3.0, 1e16], rng.random(200) * 10.0 ** rng.integers(-3, 15, 200)]
    high, low = compensated_cumsum(values)
    exact = np.cumsum([Fraction(v) for v in values])
    for i, j in [(3, 10), (50, 60), (100, 202), (0, 2)]:
        got = (high[j] - high[i]) + (low[j] - low[i])
        truth = float(exact[j] - exact[i])
        assert got == pytest.approx(truth, rel=1e-13, abs=1e-300)


def test_exact_ratio_divides_large_counts_with_python_integers():
    numerator = np.array([2**60 + 1, 6, 0], dtype=np.int64)
    denominator = np.array([2**61 + 3, 8, 0], dtype=np.int64)
    got = exact_ratio(numerator, denominator)
    assert got[0] == (2**60 + 1) / (2**61 + 3)  # Python: correctly rounded
    assert got[1] == 0.75 and np.isnan(got[2])


@pytest.mark.parametrize("bits", [1, 16, 17, 40, 48, 63])
@pytest.mark.float_order
def test_radix_order_is_the_stable_argsort(bits):
    """One to three 16-bit passes (and the comparison sort beyond), ties in row order."""
    rng = np.random.default_rng(bits)
    keys = rng.integers(0, 2**bits, 5000, dtype=np.int64)
    keys[::7] = keys[0]  # a heavy tie
    for values in (keys, keys.astype(np.uint64)):
        order = radix_order(values, int(values.max()) + 1)
        np.testing.assert_array_equal(order, np.argsort(values, kind="stable"))


@pytest.mark.parametrize("keys", [[5, -(2**63), 2**63 - 1, -1, 0], [2**64 - 1, 3, 2**63]])
def test_concat_group_tables_sorts_integer_keys_of_any_range(keys):
    dtype = np.int64 if min(keys) < 0 else np.uint64
    tables = [
        pd.DataFrame({"auc": [float(i)], "n_pos": [i]}, index=pd.Index([k], dtype=dtype, name="u"))
        for i, k in enumerate(keys)
    ]
    got = concat_group_tables(tables)
    assert got.index.tolist() == sorted(keys) and got.index.dtype == dtype
    assert got["n_pos"].tolist() == [keys.index(k) for k in sorted(keys)]


def test_empty_input_gives_zero_sums_for_every_group():
    empty = np.empty(0)
    sums = group_pair_sums(empty.astype(np.int64), 3, empty, empty.astype(bool))
    assert sums.pos.tolist() == [0, 0, 0] and np.isnan(sums.auc()).all()


_SPEC = GroupSpec(("user",), "y", "s", "w")


def _block(users, seed):
    rng = np.random.default_rng(seed)
    n = len(users)
    return pd.DataFrame(
        {"user": users, "y": rng.integers(0, 2, n), "s": rng.random(n), "w": rng.random(n)}
    )


def test_hash_split_sends_a_key_to_the_same_bucket_from_every_block():
    first = _block(["a", "b", "c", "d", "e"] * 20, 0)
    second = _block(["e", "d", "c", "b", "a", "z"] * 7, 1)
    buckets = {}
    for block in (first, second):
        info, pieces, _ = split_group_block(block, _SPEC, 4)
        assert info.classes == (0, 1)
        assert sum(len(p.score) for p in pieces) == len(block)
        for b, piece in enumerate(pieces):
            for user in piece.row_keys["user"]:
                assert buckets.setdefault(user, b) == b


def test_split_drops_rows_with_a_missing_key_and_counts_them():
    block = _block(["a", None, "b", np.nan, "a"], 2)
    info, pieces, _ = split_group_block(block, _SPEC, 3)
    kept = pd.concat([p.row_keys for p in pieces])["user"]
    assert sorted(kept) == ["a", "a", "b"]
    assert (info.rows, info.missing_keys) == (5, 2)


@pytest.mark.parametrize(
    "column, value, message",
    [
        ("s", np.nan, "Input contains NaN"),
        ("s", np.inf, "Input contains infinity"),
        ("w", -1.0, "Negative values in data passed to `sample_weight`"),
    ],
)
def test_split_validates_the_block_with_sklearns_messages(column, value, message):
    block = _block(["a", "b", "c"], 3)
    block.loc[1, column] = value
    with pytest.raises(ValueError, match=message):
        split_group_block(block, _SPEC, 2)


@pytest.mark.parametrize(
    "classes, positive",
    [((0, 1), 1), (("no", "yes"), "yes"), ((1,), 1), ((True,), True), ((0,), None), (("a",), None)],
)
def test_plan_picks_the_greater_class_and_a_lone_one_only(classes, positive):
    plan = plan_groups([GroupBlockInfo(classes)])
    if positive is None:
        assert all(plan.positive_label != c for c in classes)
    else:
        assert plan.positive_label == positive


def test_plan_rejects_three_classes_spread_over_blocks():
    message = r"grouped_roc_auc_score only .* y_true holds 3 classes: \[0, 1, 2\]"
    with pytest.raises(ValueError, match=message):
        plan_groups([GroupBlockInfo((0, 1)), GroupBlockInfo((1, 2))])


def test_bucket_table_with_two_key_columns_matches_pandas_groupby():
    rng = np.random.default_rng(4)
    n = 600
    frame = pd.DataFrame(
        {
            "country": rng.choice(["de", "fr", "jp"], n),
            "day": rng.integers(0, 5, n),
            "y": rng.integers(0, 2, n),
            "s": rng.integers(0, 4, n) / 4,
        }
    )
    spec = GroupSpec(("country", "day"), "y", "s")
    _, pieces, _ = split_group_block(frame, spec, 3)
    tables = [bucket_table(GroupPlan((0, 1)), spec, piece) for piece in pieces]
    got = pd.concat(tables).sort_index()
    assert got.index.names == ["country", "day"]
    for (country, day), rows in frame.groupby(["country", "day"]):
        assert got.loc[(country, day), "auc"] == pairwise_auc(rows["y"], rows["s"])
        assert got.loc[(country, day), "n_pos"] == rows["y"].sum()


_KEYS_OF_ONE_VALUE = {
    # value: representations a partition may carry
    3: [("int64", 3), ("int32", 3), ("uint64", 3), ("float64", 3.0), ("float32", 3.0),
        ("Int64", 3), ("Float64", 3.0), ("uint8", 3), ("int64[pyarrow]", 3),
        ("double[pyarrow]", 3.0), ("category", 3)],
    -1: [("int64", -1), ("int32", -1), ("int8", -1), ("float64", -1.0), ("Int32", -1)],
    1: [("int64", 1), ("bool", True), ("boolean", True), ("float64", 1.0)],
    2**53 + 1: [("int64", 2**53 + 1), ("uint64", 2**53 + 1), ("Int64", 2**53 + 1)],
    2**63: [("uint64", 2**63), ("float64", 2.0**63), ("UInt64", 2**63)],
    0.5: [("float64", 0.5), ("float32", 0.5), ("Float64", 0.5), ("category", 0.5)],
    "ann": [(object, "ann"), ("str", "ann"), ("string[python]", "ann"),
            ("string[pyarrow]", "ann"), ("category", "ann"), ("large_string[pyarrow]", "ann")],
}  # fmt: skip


@pytest.mark.parametrize("value", list(_KEYS_OF_ONE_VALUE), ids=str)
def test_hash_split_sends_a_value_to_one_bucket_whatever_its_dtype(value):
    representations = _KEYS_OF_ONE_VALUE[value]
    buckets = set()
    pieces = []
    for seed, (dtype, key) in enumerate(representations):
        block = _block(pd.Series([key] * 5, dtype=dtype), seed)
        _, split, _ = split_group_block(block, _SPEC, 16)
        buckets.update(b for b, piece in enumerate(split) if len(piece.score))
        pieces.append(split)
    assert len(buckets) == 1, representations
    (bucket,) = buckets
    table = bucket_table(GroupPlan((0, 1)), _SPEC, *(split[bucket] for split in pieces))
    assert len(table) == 1 and table.index[0] == value
    assert table["n_pos"].iloc[0] + table["n_neg"].iloc[0] == 5 * len(representations)


def test_neighbouring_floats_and_ints_stay_apart():
    """2**53 + 1 and 2.0**53, 2**63 + 8 and 2.0**63 + 2048: equal as float64, not as values."""
    blocks = [
        _block(pd.Series([2**53 + 1, 2**63 - 1], dtype="int64"), 0),
        _block(pd.Series([2.0**53, 2.0**63, 0.5]), 1),
        _block(pd.Series([2**63 + 8], dtype="uint64"), 2),
    ]
    pieces = [split_group_block(block, _SPEC, 1)[1][0] for block in blocks]
    table = bucket_table(GroupPlan((0, 1)), _SPEC, *pieces)
    assert sorted(table.index) == sorted([2**53 + 1, 2**63 - 1, 2**53, 2**63, 0.5, 2**63 + 8])
    assert table.index.is_unique


@pytest.mark.float_order
def test_pair_sums_are_scale_safe_at_the_edges_of_float_range():
    """Weights near 1e160 overflow the pair products, near 1e-170 underflow them."""
    rng = np.random.default_rng(5)
    n, n_groups = 2000, 30
    codes = rng.integers(0, n_groups, n)
    scores = rng.integers(0, 9, n) / 9
    positive = rng.random(n) < 0.5
    weights = rng.choice([0.0, 0.25, 1.0, 3.0, 7.5], size=n)
    ordinary = group_pair_sums(codes, n_groups, scores, positive, weights)
    per_group = rng.choice([-900, -600, 0, 550, 900], size=n_groups)
    per_group[0] = 1000  # a group beside groups 2**1900 times lighter
    cases = [  # (exponent of the positives, of the negatives), per group
        (per_group, per_group),
        (np.full(n_groups, 600), np.full(n_groups, -600)),  # pos * neg ~ 1, each extreme
        (np.full(n_groups, 700), np.full(n_groups, 700)),
        (np.full(n_groups, -540), np.full(n_groups, -540)),
    ]
    for pos_exponent, neg_exponent in cases:
        row_exponent = np.where(positive, pos_exponent[codes], neg_exponent[codes])
        sums = group_pair_sums(codes, n_groups, scores, positive, np.ldexp(weights, row_exponent))
        np.testing.assert_allclose(sums.auc(), ordinary.auc(), rtol=1e-14)
        pos, neg = sums.totals()
        # bit for bit: the same rows in the same (stable) order, summed by the same operations,
        # each term scaled by one power of two, so each rounding is too (on any CPU)
        assert np.array_equal(pos, np.ldexp(ordinary.pos, pos_exponent))
        assert np.array_equal(neg, np.ldexp(ordinary.neg, neg_exponent))


@pytest.mark.parametrize(
    "case, scaled",
    [
        ("near 2**250", False),
        ("near 2**-250", False),
        ("each group spanning 2**200, their largest alike", False),
        ("one group 2**40 lighter", True),
        ("one group above 2**256", True),
    ],
)
@pytest.mark.float_order
def test_only_extreme_weights_leave_the_unscaled_path(case, scaled):
    rng = np.random.default_rng(6)
    codes = np.repeat(np.arange(5), 20)
    positive = np.tile([True, False], 50)
    weights = rng.random(100) + 0.5
    if case == "near 2**250":
        weights = np.ldexp(weights, 250)
    elif case == "near 2**-250":
        weights = np.ldexp(weights, -250)
    elif case.startswith("each group"):
        weights = np.ldexp(weights, np.tile([0, 0, -200, -200], 25))  # each class: 1 and 2**-200
    elif case.startswith("one group 2**40"):
        weights[codes == 3] /= 2.0**40
    else:
        weights[codes == 3] *= 2.0**260
    sums = group_pair_sums(codes, 5, rng.random(100), positive, weights)
    assert (sums.neg_exponent is not None) == scaled
    if not scaled:
        assert sums.totals() == (sums.pos, sums.neg)


@pytest.mark.parametrize("exponent", [40, 60, 100, 200])
@pytest.mark.float_order
def test_a_light_group_after_a_heavy_one_keeps_its_digits_at_any_ratio(exponent):
    """The negatives' running sum crosses group borders: 2**60 per row swallows weights of 1."""
    rng = np.random.default_rng(exponent)
    heavy, light = 5000, 300
    codes = np.r_[np.zeros(heavy, np.int64), np.ones(light, np.int64)]
    scores = rng.integers(0, 50, heavy + light) / 50
    positive = rng.random(heavy + light) < 0.5
    weights = rng.random(heavy + light) + 0.5
    alone = group_pair_sums(codes[:light] * 0, 1, scores[heavy:], positive[heavy:], weights[heavy:])
    weights[:heavy] = np.ldexp(weights[:heavy], exponent)
    sums = group_pair_sums(codes, 2, scores, positive, weights)
    assert sums.auc()[1] == pytest.approx(alone.auc()[0], abs=1e-15)
    # bit for bit: the light group's rows in their own order (a stable sort) and the same
    # reduceat over its runs, alone or beside the heavy group, on any CPU
    assert sums.totals()[1][1] == alone.neg[0]


def test_pieces_with_per_row_keys_and_key_codes_meet_in_one_bucket():
    """A block of numeric keys (one per row) and one of object keys (codes) join by value."""
    numbers = _block(np.array([3, 1, 3, 2, 1, 3]), 7)
    objects = _block(np.array([1, "x", 3, "x", 1], dtype=object), 8)
    pieces = [split_group_block(block, _SPEC, 1)[1][0] for block in (numbers, objects)]
    assert pieces[0].codes is None and pieces[1].codes is not None
    assert len(pieces[1].keys) == 3  # 1, "x", 3: each distinct key once
    table = bucket_table(GroupPlan((0, 1)), _SPEC, *pieces)
    frame = pd.concat([numbers, objects], ignore_index=True)
    expected = frame.groupby(frame["user"].astype(str))["y"].size()
    got = table["n_pos"] + table["n_neg"]
    counted = frame[frame["w"] != 0].groupby(frame["user"].astype(str))["y"].size()
    assert sorted(map(str, table.index)) == sorted(expected.index)
    assert got.groupby(table.index.map(str)).sum().sort_index().tolist() == (
        counted.reindex(expected.index, fill_value=0).sort_index().tolist()
    )


@pytest.mark.parametrize(
    ("label_dtype", "key", "scores"),
    [
        ("int8", np.arange(50, dtype=np.int64), ("s",)),
        ("bool", np.arange(50, dtype=np.uint64), ("s", "t")),
        ("int64", np.arange(50) / 4.0 - 3.0, ("t",)),
        ("int8", np.arange(50) % 2 == 0, ("s", "t", "u")),
        ("int8", np.array([f"user-{i}" for i in range(50)], dtype=object), ("s",)),
        ("bool", np.array([f"u{i}" for i in range(50)], dtype=object), ("s", "t")),
        ("int64", "two columns", ("s",)),
    ],
)
@pytest.mark.parametrize("n_buckets", [1, 3, 8])
def test_the_compiled_counting_sort_cuts_a_block_into_the_numpy_paths_pieces(
    label_dtype, key, scores, n_buckets, monkeypatch
):
    """Label, scores (one column, or stacked) and the key, bucket by bucket in input order: the
    stable argsort's pieces, whatever the dtypes (each moved as unsigned bytes); keys of
    strings or of two columns keep the NumPy path."""
    pytest.importorskip("numba")
    assert compiled.compile_now(timeout=300)
    from dask_auc._kernels.groups import _numba as loops

    calls = []
    count = loops.bucketed_rows
    monkeypatch.setattr(loops, "bucketed_rows", lambda *a: calls.append(1) or count(*a))
    rng = np.random.default_rng(n_buckets)
    n = 3000
    two = isinstance(key, str)  # a key of two columns: codes, as strings have
    frame = pd.DataFrame(
        {
            "user": rng.integers(0, 30, n) if two else rng.choice(key, n),
            "day": rng.integers(0, 3, n),
            "y": (rng.random(n) < 0.3).astype(label_dtype),
            "s": rng.random(n),
            "t": rng.integers(-5, 5, n).astype(np.float32),
            "u": rng.integers(0, 10**6, n),
        }
    )
    spec = GroupSpec(("user", "day") if two else ("user",), "y", scores[0], more_scores=scores[1:])
    found = []
    for flag in (True, False):
        with_flag = replace(spec, compiled=flag)
        found.append(split_group_block(frame, with_flag, n_buckets))
    (info, pieces, _), (numpy_info, numpy_pieces, _) = found
    assert info == numpy_info and len(pieces) == len(numpy_pieces) == n_buckets
    for piece, expected in zip(pieces, numpy_pieces, strict=True):
        pd.testing.assert_frame_equal(piece.keys, expected.keys)
        for a, b in ((piece.label, expected.label), (piece.score, expected.score)):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
        if expected.codes is None:
            assert piece.codes is None
        else:
            np.testing.assert_array_equal(piece.codes, expected.codes)
    # one bucket: the block is its piece, no sort; strings or two key columns: the NumPy path
    assert len(calls) == (n_buckets > 1 and not two and key.dtype != object)


def test_score_columns_of_one_block_stack_as_a_view_and_others_as_a_copy() -> None:
    """Several score columns as rows x columns: a view where they are one buffer's rows in
    order (pandas' block of one dtype, as read from Parquet), else a copy; the same values."""
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({name: rng.random(500) for name in ("a", "b", "c")})
    columns = [frame[name].to_numpy() for name in ("a", "b", "c")]
    np.testing.assert_array_equal(
        stacked_scores(columns, ("a", "b", "c")), np.column_stack(columns)
    )
    buffer = rng.random((3, 400))
    expected = buffer.T.copy()
    view = stacked_scores(list(buffer), ("a", "b", "c"))
    assert np.shares_memory(view, buffer) and not view.flags.writeable
    del buffer  # the view keeps its block alive
    np.testing.assert_array_equal(view, expected)
    rows = list(view.T)
    for apart in ([rows[1], rows[0], rows[2]], [rows[0], rows[1].copy(), rows[2]]):
        copied = stacked_scores(apart, ("a", "b", "c"))
        assert not np.shares_memory(copied, view) and copied.flags.writeable
        np.testing.assert_array_equal(copied, np.column_stack(apart))
    mixed = stacked_scores([rows[0], rows[1].astype(np.float32)], ("a", "b"))
    assert mixed.dtype == np.float64 and not np.shares_memory(mixed, view)
