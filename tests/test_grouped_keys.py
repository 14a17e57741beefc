"""Group keys whose dtype differs between partitions: one group per key *value*.

Parquet files written at different times disagree on a key column's dtype
(int64 here, float64 there after a null id; int32 vs int64; uint64; object vs
``string[pyarrow]`` vs ``category``).  The reference concatenates the
partitions with every key turned into a Python object (ints stay exact ints,
strings stay strings) and groups them by the exact value, written out as a
fraction: ``3`` and ``3.0`` are one group, ``2**53 + 1`` and ``2.0**53`` two.
(pandas' own groupby of such an object column is exact, but labels the groups
with an index it infers as float64, rounding ``2**53 + 1``.)
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score as sklearn_auc

import dask_auc

NA = None  # a missing key, in whichever dtype the partition has


def partition(keys: dict, seed: int, weighted: bool = False) -> pd.DataFrame:
    """One partition: key columns given as (values, dtype), random labels and tied scores."""
    columns = {name: pd.Series(values, dtype=dtype) for name, (values, dtype) in keys.items()}
    n = len(next(iter(columns.values())))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame({**columns, "y": y, "s": rng.integers(0, 5, n) / 5 + 0.1 * y})
    if weighted:
        frame["w"] = rng.choice([0.0, 0.5, 1.0, 3.0], size=n)
    return frame


def dask_from_parts(parts: list[pd.DataFrame]) -> dd.DataFrame:
    """Each partition keeps its own dtypes (what ``read_parquet`` of mixed files yields)."""
    meta = parts[0].iloc[:0]
    return dd.from_delayed([dask.delayed(p) for p in parts], meta=meta, verify_meta=False)


def as_python_objects(parts: list[pd.DataFrame], by: list[str]) -> pd.DataFrame:
    """The concatenated data with keys as Python objects: grouping by value, exactly."""
    objects = [p.astype({name: object for name in by}) for p in parts]
    return pd.concat(objects, ignore_index=True)


def value_token(value):
    """The exact value of a key as a string (None if missing): '3' for 3 and 3.0, 's:ann'."""
    if isinstance(value, str):
        return "s:" + value
    if value is None or pd.isna(value):
        return None
    return str(Fraction(value))


def reference(frame: pd.DataFrame, by: list[str], weight: str | None = None) -> dict:
    """{key: (auc, n_pos, n_neg, rows weight)} from sklearn per group of equal values, sorted."""
    tokens = [frame[name].map(value_token) for name in by]
    groups = []
    for _, group in frame.groupby(tokens, sort=False, dropna=True):
        key = tuple(group[name].iloc[0] for name in by)  # a Python object, exact
        groups.append((key, group))
    table = {}
    for key, group in sorted(groups, key=lambda item: item[0]):
        w = None if weight is None else group[weight].to_numpy()
        counted = group if w is None else group[w != 0]
        n_pos, n_neg = int((counted["y"] == 1).sum()), int((counted["y"] == 0).sum())
        auc = np.nan
        if n_pos and n_neg:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                auc = sklearn_auc(group["y"], group["s"], sample_weight=w)
        mass = n_pos + n_neg if w is None else float(w.sum())
        table[key if len(by) > 1 else key[0]] = (auc, n_pos, n_neg, mass)
    return table


def check_layout(parts, by, weight=None):
    with warnings.catch_warnings():  # layouts without a two-class group: gauc NaN, checked below
        warnings.simplefilter("ignore", dask_auc.UndefinedMetricWarning)
        # rows with a missing key: counted below
        warnings.filterwarnings("ignore", "grouped_roc_auc_score: .* missing key", UserWarning)
        result = dask_auc.grouped_roc_auc_score(
            dask_from_parts(parts), by=by, label="y", score="s", sample_weight=weight
        )
    objects = as_python_objects(parts, by)
    missing = sum(any(value_token(row[n]) is None for n in by) for _, row in objects.iterrows())
    assert result.rows_without_group == missing
    expected = reference(objects, by, weight)
    got = result.per_group
    assert got.index.is_unique and got.index.is_monotonic_increasing
    assert list(got.index) == list(expected)  # Python equality: by value, exact
    rows = list(expected.values())
    assert got["n_pos"].tolist() == [r[1] for r in rows]
    assert got["n_neg"].tolist() == [r[2] for r in rows]
    np.testing.assert_allclose(got["auc"], [r[0] for r in rows], rtol=0, atol=1e-12)
    both = [r for r in rows if r[1] and r[2]]
    if not both:
        assert np.isnan(result.gauc)
        return got.index
    gauc = sum(r[3] * r[0] for r in both) / sum(r[3] for r in both)
    assert result.gauc == pytest.approx(gauc, abs=1e-12)
    return got.index


def repeat(values, times=6):
    return [v for v in values for _ in range(times)]


BIG = 2**53  # the first integer whose neighbour float64 cannot hold


@pytest.mark.parametrize(
    "case, layout, index_dtype",
    [
        (
            "int64 ids above 2**53 beside float64 partitions holding other ids",
            [
                (repeat([BIG + 1, BIG + 3, 1, 7, 2**62 + 1]), "int64"),
                ([], "float64"),
                (repeat([float(BIG), 1.0, np.nan, 7.0, 2.0**60]), "float64"),
                (repeat([float(BIG + 2), 1.0, np.nan, 5.0]), "float64"),
                ([], "int64"),
            ],
            np.int64,
        ),
        (
            "int32 and int16 beside int64, negative ids",
            [
                (repeat([-1, -5, 3]), "int32"),
                (repeat([-1, -5, 3, 2**40]), "int64"),
                ([], "int32"),
                (repeat([-1, -(2**15)]), "int16"),
            ],
            np.int64,
        ),
        (
            "uint64 above 2**63 beside int64 and float64",
            [
                (repeat([2**63 + 5, 2**64 - 1, 3]), "uint64"),
                (repeat([3, 9]), "int64"),
                ([], "uint64"),
                (repeat([9, 2**63 + 5]), "uint64"),
                (repeat([2.0**63, 9.0, np.nan]), "float64"),
            ],
            np.uint64,
        ),
        (
            "uint64 above 2**63 beside negative int64: exact Python ints",
            [
                (repeat([2**63 + 1, 4]), "uint64"),
                ([], "int64"),
                (repeat([-4, 4, -(2**63)]), "int64"),
            ],
            object,
        ),
        (
            "nullable Int64 and Float64 beside int8 and float32",
            [
                (repeat([1, NA, BIG + 1]), "Int64"),
                (repeat([1, 2, -3]), "int8"),
                ([], "Float64"),
                (repeat([2.0, NA, -3.0]), "Float64"),
                (repeat([2.0, 1.0]), "float32"),
            ],
            np.int64,
        ),
        (
            "non-integral floats beside ints",
            [
                (repeat([1, 2, 3]), "int64"),
                (repeat([0.5, 2.0, np.nan]), "float64"),
                ([], "int64"),
                (repeat([0.5, 3.0, -0.0]), "float32"),
            ],
            np.float64,
        ),
        (
            "ints beyond 2**53 beside non-integral floats: exact Python numbers",
            [
                (repeat([BIG + 1, 1]), "int64"),
                (repeat([float(BIG), 0.5, 1.0]), "float64"),
                ([], "float64"),
            ],
            object,
        ),
    ],
)
def test_numeric_keys_of_mixed_dtypes_group_by_value(case, layout, index_dtype):
    parts = [partition({"user": keys}, seed) for seed, keys in enumerate(layout)]
    index = check_layout(parts, ["user"])
    assert index.dtype == index_dtype
    if index_dtype is object:
        assert all(type(v) in (int, float) for v in index)


def test_string_keys_as_object_string_and_category_are_the_same_strings():
    categories = pd.CategoricalDtype(["zed", "cat", "ann"])  # unsorted, "zed" unobserved
    layout = [
        (repeat(["ann", "bob", None]), object),
        (repeat(["bob", "cat"]), "string[pyarrow]"),
        ([], "category"),
        (repeat(["cat", "ann"]), categories),
        (repeat(["ann", "dan"]), "string[python]"),
        (repeat(["dan", None, "eve"]), "str"),
        ([], object),
    ]
    parts = [partition({"user": keys}, seed) for seed, keys in enumerate(layout)]
    index = check_layout(parts, ["user"])
    assert list(index) == ["ann", "bob", "cat", "dan", "eve"]
    assert all(type(v) is str for v in index)


def test_category_keys_sort_as_strings_not_by_category_order():
    categories = pd.CategoricalDtype(["zed", "cat", "ann"])
    parts = [
        partition({"user": (repeat(v), categories)}, s)
        for s, v in enumerate([["zed", "ann"], ["cat"], []])
    ]
    index = check_layout(parts, ["user"])
    assert list(index) == ["ann", "cat", "zed"]


def test_bool_keys_stay_bool_and_compare_as_0_and_1_beside_numbers():
    bools = [(repeat([True, False]), bool), ([], bool), (repeat([True, NA]), "boolean")]
    parts = [partition({"user": keys}, seed) for seed, keys in enumerate(bools)]
    assert check_layout(parts, ["user"]).dtype == bool
    mixed = [*bools, (repeat([1, 2]), "int64")]
    parts = [partition({"user": keys}, seed) for seed, keys in enumerate(mixed)]
    assert list(check_layout(parts, ["user"])) == [0, 1, 2]


def test_weighted_keys_of_mixed_dtypes():
    layout = [
        (repeat([BIG + 1, 1, 7], 9), "int64"),
        (repeat([float(BIG), 1.0, np.nan, 7.0], 9), "float64"),
        ([], "float64"),
        (repeat([7, 1], 9), "int32"),
    ]
    parts = [partition({"user": keys}, seed, weighted=True) for seed, keys in enumerate(layout)]
    index = check_layout(parts, ["user"], weight="w")
    assert index.dtype == np.int64


def test_two_key_columns_of_mixed_dtypes():
    layout = [
        {
            "user": (repeat([BIG + 1, 1, 7]), "int64"),
            "country": (repeat(["de", "fr", "de"]), object),
        },
        {"user": ([], "float64"), "country": ([], "category")},
        {
            "user": (repeat([float(BIG), 1.0, np.nan, 7.0]), "float64"),
            "country": (repeat(["de", "de", "fr", None]), "category"),
        },
        {
            "user": (repeat([7, 1, NA]), "Int64"),
            "country": (repeat(["de", "fr", "fr"]), "string[pyarrow]"),
        },
    ]
    parts = [partition(keys, seed) for seed, keys in enumerate(layout)]
    index = check_layout(parts, ["user", "country"])
    assert index.names == ["user", "country"]
    assert index.levels[0].dtype == np.int64
    assert all(type(v) is str for v in index.get_level_values("country"))


def test_float_ids_that_are_all_integers_come_back_as_int64():
    """A float64 id column is an int64 one with nulls: the index is int64, exact."""
    layout = [(repeat([1.0, 2.0**60, np.nan]), "float64"), (repeat([3.0, np.nan]), "float64")]
    parts = [partition({"user": keys}, seed) for seed, keys in enumerate(layout)]
    index = check_layout(parts, ["user"])
    assert index.dtype == np.int64 and list(index) == [1, 3, 2**60]


def test_one_dtype_everywhere_keeps_its_index_dtype():
    """The common path: nothing to reconcile, the index dtype is the column's."""
    for values, dtype in [([3, 1, 2], "int64"), ([0.5, 1.5], "float64"), (["b", "a"], "str")]:
        parts = [partition({"user": (repeat(values), dtype)}, s) for s in range(3)]
        assert check_layout(parts, ["user"]).dtype == pd.Series([], dtype=dtype).dtype


_IDS = [0, 1, -1, 7, -(2**31) - 1, 2**53, 2**53 + 1, 2**62 + 1, 2**63, 2**63 + 5, 2**64 - 1,
        0.5, -2.5]  # fmt: skip
_DTYPES = {  # dtype: whether it holds an id exactly
    "int8": lambda v: float(v).is_integer() and -128 <= v < 128,
    "int32": lambda v: float(v).is_integer() and -(2**31) <= v < 2**31,
    "int64": lambda v: float(v).is_integer() and -(2**63) <= v < 2**63,
    "Int64": lambda v: float(v).is_integer() and -(2**63) <= v < 2**63,
    "uint64": lambda v: float(v).is_integer() and 0 <= v < 2**64,
    "float32": lambda v: float(np.float32(v)) == v,
    "float64": lambda v: float(v) == v,
    "Float64": lambda v: float(v) == v,
}


@st.composite
def mixed_dtype_layouts(draw):
    """Partitions (some empty) of one key column, each of its own dtype and ids it holds."""
    parts = []
    for seed in range(draw(st.integers(1, 6))):
        dtype = draw(st.sampled_from(sorted(_DTYPES)))
        held = [v for v in _IDS if _DTYPES[dtype](v)]
        keys = draw(st.lists(st.sampled_from(held), max_size=20))
        if dtype[0] in "fFI" and keys and draw(st.booleans()):
            keys[draw(st.integers(0, len(keys) - 1))] = NA  # a null id, as in Parquet
        parts.append(partition({"user": (keys, dtype)}, seed))
    return parts


@settings(max_examples=20, deadline=None)
@given(mixed_dtype_layouts())
def test_any_layout_of_numeric_key_dtypes_groups_by_value(parts):
    check_layout(parts, ["user"])


@pytest.mark.parametrize(
    "layout",
    [
        [(repeat([BIG + 1, 1]), "int64"), ([], "float64"), (repeat([float(BIG), 0.5]), "float64")],
        [(repeat([2**63 + 1, 4]), "uint64"), (repeat([-4, 4]), "int64"), (repeat([4]), "int64")],
        [(repeat(["a", "b"]), "object"), (repeat(["b", "c"]), "string"), ([], "object")],
    ],
    ids=["beyond 2**53 beside 0.5", "uint64 beside int64", "object beside string"],
)
def test_coalesced_partitions_of_mixed_dtypes_group_by_value(layout):
    """Tiny partitions of known length are joined into one block: by ``concat`` only when
    their dtypes agree, else split apart and stacked (``concat`` would round 2**53 + 1)."""
    parts = [partition({"user": keys}, seed) for seed, keys in enumerate(layout)]
    with dask.config.set({"dask-auc.measure-above": 0, "dask-auc.coalesce": True}):
        lazy = dask_auc.grouped_roc_auc_score(
            dask_from_parts(parts), by="user", label="y", score="s", compute=False
        )
        assert any("coalesced" in str(key) for key in dict(lazy.__dask_graph__()))
        check_layout(parts, ["user"])
