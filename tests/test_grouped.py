"""grouped_roc_auc_score vs scikit-learn per group and a brute-force pair count, on dask frames."""

from __future__ import annotations

import warnings

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score as sklearn_auc

import dask_auc
from references import pairwise_auc
from strategies import boundaries, dask_frame, examples


def reference_per_group(frame, by, label="y", score="s", weight=None):
    """pandas groupby + sklearn's roc_auc_score per group (NaN where a class is missing)."""
    positive_label = np.unique(frame[label])[-1]
    rows = []
    # scikit-learn's own computation, without its per-call input checks (the rows are
    # checked once here): hundreds of groups a test, ~10 ms of checks a call otherwise
    with sklearn.config_context(skip_parameter_validation=True, assume_finite=True):
        for key, group in frame.groupby(by, sort=True, dropna=True):
            counted = group if weight is None else group[group[weight] != 0]
            is_pos = counted[label] == positive_label
            n_pos, n_neg = int(is_pos.sum()), int((~is_pos).sum())
            auc = np.nan
            if n_pos and n_neg:
                w = None if weight is None else group[weight].to_numpy()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    auc = sklearn_auc(
                        group[label].to_numpy(), group[score].to_numpy(), sample_weight=w
                    )
            rows.append((key, auc, n_pos, n_neg))
    keys = [r[0] for r in rows]
    index = (
        pd.MultiIndex.from_tuples(keys, names=by)
        if isinstance(by, list) and len(by) > 1
        else pd.Index([k[0] if isinstance(k, tuple) else k for k in keys], name=by)
    )
    return pd.DataFrame(
        {"auc": [r[1] for r in rows], "n_pos": [r[2] for r in rows], "n_neg": [r[3] for r in rows]},
        index=index,
    )


def check_against_references(result, frame, by, weight=None):
    expected = reference_per_group(frame, by, weight=weight)
    got = result.per_group
    assert list(got.index) == list(expected.index)
    assert got["n_pos"].tolist() == expected["n_pos"].tolist()
    assert got["n_neg"].tolist() == expected["n_neg"].tolist()
    np.testing.assert_allclose(got["auc"], expected["auc"], rtol=0, atol=1e-12)
    # and an independent brute-force pair count on a few groups
    keys = by if isinstance(by, list) else [by]
    for key, group in list(frame.groupby(keys))[:15]:
        key = key if len(keys) > 1 else key[0]
        if got.loc[key, "n_pos"] and got.loc[key, "n_neg"]:
            w = None if weight is None else group[weight]
            brute = pairwise_auc(group["y"], group["s"], w)
            assert got.loc[key, "auc"] == pytest.approx(brute, abs=1e-12)


def scored_frame(n, n_groups, seed, distinct=20, key_kind="int", zero_weights=False):
    rng = np.random.default_rng(seed)
    user = rng.integers(0, n_groups, n)
    y = (rng.random(n) < rng.random(n_groups)[user]).astype(np.int8)  # one-class groups too
    s = rng.integers(0, distinct, n) / distinct + 0.2 * y * rng.random(n)
    frame = pd.DataFrame({"user": user, "y": y, "s": s})
    if key_kind == "str":
        frame["user"] = np.char.add("user-", user.astype(str)).astype(object)
    if zero_weights:
        frame["w"] = rng.choice([0.0, 0.0, 0.5, 1.0, 4.0], size=n)
    return frame


def even_cuts(n, parts):
    return [n * i // parts for i in range(parts + 1)]


@pytest.mark.parametrize(
    "case, n, n_groups, cuts",
    [
        ("one partition", 3000, 80, [0, 3000]),
        ("groups span every partition", 3000, 5, even_cuts(3000, 12)),
        ("many partitions", 4000, 300, even_cuts(4000, 150)),
        ("empty partitions", 2000, 60, [0, 0, 700, 700, 700, 1999, 2000, 2000]),
        ("one-row groups", 500, 5000, even_cuts(500, 4)),
    ],
)
def test_per_group_auc_equals_sklearn(case, n, n_groups, cuts):
    frame = scored_frame(n, n_groups, seed=len(case))
    ddf = dask_frame(frame.to_dict("series"), cuts)
    result = dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score="s")
    check_against_references(result, frame, "user")


def test_all_ties_in_every_group():
    frame = scored_frame(2000, 30, seed=9, distinct=1)
    frame["s"] = 0.5
    result = dask_auc.grouped_roc_auc_score(
        dask_frame(frame.to_dict("series"), even_cuts(2000, 7)), by="user", label="y", score="s"
    )
    defined = result.per_group.dropna()
    assert len(defined) > 0 and (defined["auc"] == 0.5).all()
    check_against_references(result, frame, "user")


@pytest.mark.float_order
def test_weighted_with_zero_weights_and_string_keys():
    frame = scored_frame(3000, 120, seed=4, key_kind="str", zero_weights=True)
    ddf = dask_frame(frame.to_dict("series"), even_cuts(3000, 9))
    result = dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score="s", sample_weight="w")
    check_against_references(result, frame, "user", weight="w")
    per_group = result.per_group
    assert list(per_group.columns) == ["auc", "n_pos", "n_neg", "weight_pos", "weight_neg"]
    expected_weight = frame[frame["y"] == 1].groupby("user")["w"].sum()
    np.testing.assert_allclose(
        per_group["weight_pos"], expected_weight.reindex(per_group.index, fill_value=0), rtol=1e-14
    )


def test_two_key_columns_and_missing_keys_dropped_like_pandas():
    frame = scored_frame(2500, 40, seed=5)
    rng = np.random.default_rng(5)
    frame["country"] = rng.choice(["de", "fr", None], size=len(frame))
    frame.loc[::37, "user"] = np.nan
    ddf = dask_frame(frame.to_dict("series"), even_cuts(2500, 6))
    dropped = int(frame[["country", "user"]].isna().any(axis=1).sum())
    with pytest.warns(UserWarning, match=f"{dropped:,} of 2,500 rows have a missing key"):
        result = dask_auc.grouped_roc_auc_score(ddf, by=["country", "user"], label="y", score="s")
    assert result.rows_without_group == dropped
    assert result.per_group.index.names == ["country", "user"]
    assert len(result.per_group) == frame.groupby(["country", "user"]).ngroups
    check_against_references(result, frame, ["country", "user"])


def test_string_labels_take_the_greater_as_positive():
    frame = scored_frame(1500, 20, seed=6)
    frame["y"] = np.where(frame["y"] == 1, "spam", "ham")  # "spam" > "ham"
    result = dask_auc.grouped_roc_auc_score(frame, by="user", label="y", score="s")
    binary = frame.assign(y=(frame["y"] == "spam").astype(int))
    check_against_references(result, binary, "user")


def gauc_reference(per_group, weights):
    both = (per_group["n_pos"] > 0) & (per_group["n_neg"] > 0)
    return float((per_group["auc"][both] * weights[both]).sum() / weights[both].sum())


@pytest.mark.float_order
def test_gauc_weight_rules():
    frame = scored_frame(3000, 50, seed=7, zero_weights=True)
    frame["impressions"] = np.random.default_rng(7).integers(0, 5, len(frame)).astype(float)
    ddf = dask_frame(frame.to_dict("series"), even_cuts(3000, 5))
    expected = reference_per_group(frame, "user")
    counts = expected["n_pos"] + expected["n_neg"]
    rules = {
        "rows": counts,
        "positives": expected["n_pos"],
        "uniform": pd.Series(1.0, index=expected.index),
        "impressions": frame.groupby("user")["impressions"].sum(),
    }
    for rule, weights in rules.items():
        got = dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score="s", gauc_weight=rule)
        assert got.gauc == pytest.approx(gauc_reference(expected, weights), abs=1e-12), rule
    weighted = dask_auc.grouped_roc_auc_score(
        ddf, by="user", label="y", score="s", sample_weight="w", gauc_weight="rows"
    )
    per_group = weighted.per_group
    assert weighted.gauc == pytest.approx(
        gauc_reference(per_group, per_group["weight_pos"] + per_group["weight_neg"]), abs=1e-12
    )


def test_gauc_is_nan_with_a_warning_when_no_group_has_both_classes():
    frame = pd.DataFrame({"user": [1, 1, 2, 3], "y": [1, 1, 0, 1], "s": [0.1, 0.2, 0.3, 0.4]})
    with pytest.warns(dask_auc.UndefinedMetricWarning, match="no group holds both classes"):
        result = dask_auc.grouped_roc_auc_score(frame, by="user", label="y", score="s")
    assert np.isnan(result.gauc)
    assert result.per_group["n_pos"].tolist() == [2, 0, 1]
    assert result.per_group["auc"].isna().all()


def test_a_lone_zero_class_counts_as_negatives():
    frame = pd.DataFrame({"user": [1, 1, 2], "y": [0, 0, 0], "s": [0.1, 0.2, 0.3]})
    with pytest.warns(dask_auc.UndefinedMetricWarning):
        result = dask_auc.grouped_roc_auc_score(frame, by="user", label="y", score="s")
    assert result.per_group["n_neg"].tolist() == [2, 1]
    assert result.per_group["n_pos"].tolist() == [0, 0]


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"by": "nope"}, ValueError, r"by='nope'.*df has columns"),
        ({"label": "lab"}, ValueError, r"label='lab'"),
        ({"sample_weight": "ww"}, ValueError, r"sample_weight='ww'"),
        ({"gauc_weight": "clicks"}, ValueError, r"gauc_weight='clicks'.*one of"),
        ({"gauc_weight": 3}, dask_auc.InvalidParameterError, "gauc_weight"),
        ({"by": []}, ValueError, "at least one column"),
        ({"score": "name"}, ValueError, "bytes/strings"),
        # a list of score columns is several models (tests/test_grouped_many_scores.py)
        ({"score": {"s"}}, TypeError, r"'score' parameter.*one column name.*or a list of them"),
        ({"label": ["y"]}, TypeError, r"'label' parameter.*one column name"),
        ({"sample_weight": {"s"}}, TypeError, r"'sample_weight' parameter.*one column name"),
        ({"gauc_weight": ["s"]}, TypeError, r"'gauc_weight' parameter"),
        ({"by": [["user", "y"]]}, TypeError, r"'by' parameter.*or a list of them"),
        ({"by": {"user": 1}}, TypeError, r"'by' parameter.*or a list of them"),
    ],
)
def test_bad_arguments_raise_before_any_work(kwargs, error, message):
    frame = pd.DataFrame({"user": [1, 2], "y": [0, 1], "s": [0.1, 0.9], "name": ["a", "b"]})
    arguments = {"by": "user", "label": "y", "score": "s", **kwargs}
    with pytest.raises(error, match=message):
        dask_auc.grouped_roc_auc_score(frame, **arguments, compute=False)


@pytest.mark.parametrize(
    "column, values, message",
    [
        ("s", [0.1, np.nan, 0.3, 0.4], "Input contains NaN"),
        ("s", [0.1, np.inf, 0.3, 0.4], "Input contains infinity"),
        ("w", [1.0, -2.0, 1.0, 1.0], "Negative values in data passed to `sample_weight`"),
        ("y", [0, 1, 0, 2], "grouped_roc_auc_score only supports binary classification"),
    ],
)
def test_bad_values_raise_sklearns_errors(column, values, message):
    frame = pd.DataFrame({"user": [1, 1, 2, 2], "y": [0, 1, 0, 1], "s": [0.1, 0.2, 0.3, 0.4]})
    frame["w"] = 1.0
    frame[column] = values
    # one class pair per partition: only the union of the partitions is non-binary
    ddf = dask_frame(frame.to_dict("series"), [0, 2, 4])
    with pytest.raises(ValueError, match=message):
        dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score="s", sample_weight="w")


def test_not_a_dataframe_is_a_type_error():
    with pytest.raises(TypeError, match="dask or pandas DataFrame"):
        dask_auc.grouped_roc_auc_score(np.zeros((3, 3)), by="a", label="b", score="c")


def test_lazy_result_builds_without_computing():
    calls = []

    def block(lo, hi):
        calls.append(lo)
        return scored_frame(2000, 30, seed=8).iloc[lo:hi]

    meta = scored_frame(2000, 30, seed=8).iloc[:0]
    ddf = dd.from_delayed(
        [dask.delayed(block)(lo, lo + 500) for lo in range(0, 2000, 500)], meta=meta
    )
    lazy = dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score="s", compute=False)
    assert calls == [] and isinstance(lazy, dask_auc.LazyScore)
    result = lazy.compute()
    assert isinstance(result, dask_auc.GroupedAUC)
    check_against_references(result, scored_frame(2000, 30, seed=8), "user")


@st.composite
def grouped_rows(draw):
    n = draw(st.integers(1, 150))
    n_groups = draw(st.sampled_from([1, 3, 10, 200]))
    distinct = draw(st.sampled_from([1, 2, 5, 1000]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "user": rng.integers(0, n_groups, n),
            "y": rng.integers(0, 2, n),
            "s": rng.integers(0, distinct, n) / distinct,
            "w": rng.choice([0.0, 0.5, 1.0, 3.0], size=n),
        }
    )
    return frame, draw(boundaries(n)), draw(boundaries(n)), draw(st.booleans()), seed


@settings(max_examples=examples(25))
@given(grouped_rows())
@pytest.mark.float_order
def test_per_group_auc_invariant_to_partitioning_and_row_order(case):
    frame, cuts, other_cuts, weighted, seed = case
    weight = "w" if weighted else None
    shuffled = frame.sample(frac=1.0, random_state=seed % 2**31).reset_index(drop=True)
    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dask_auc.UndefinedMetricWarning)
        for data, parts in ((frame, cuts), (shuffled, other_cuts)):
            ddf = dask_frame(data.to_dict("series"), parts)
            results.append(
                dask_auc.grouped_roc_auc_score(
                    ddf, by="user", label="y", score="s", sample_weight=weight
                )
            )
    first, second = (r.per_group for r in results)
    pd.testing.assert_index_equal(first.index, second.index)
    assert first[["n_pos", "n_neg"]].equals(second[["n_pos", "n_neg"]])
    np.testing.assert_allclose(first["auc"], second["auc"], rtol=0, atol=1e-12)
    if not weighted:
        assert first["auc"].equals(second["auc"])  # exact integers: bit-identical
    assert results[0].gauc == pytest.approx(results[1].gauc, abs=1e-12, nan_ok=True)


@pytest.mark.cluster
def test_grouped_auc_on_a_real_cluster_equals_sklearn(client):
    frame = scored_frame(20_000, 400, seed=11, key_kind="str", zero_weights=True)
    ddf = dask_frame(frame.to_dict("series"), [0, 3000, 3000, 12_000, 20_000]).persist()
    result = dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score="s", sample_weight="w")
    check_against_references(result, frame, "user", weight="w")
    unweighted = dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score="s")
    with dask.config.set(scheduler="threads"):
        threaded = dask_auc.grouped_roc_auc_score(frame, by="user", label="y", score="s")
    assert unweighted.per_group.equals(threaded.per_group)
    assert unweighted.gauc == threaded.gauc


@pytest.mark.float_order
def test_one_heavy_group_with_most_rows_and_a_tail_of_light_ones():
    rng = np.random.default_rng(12)
    frame = scored_frame(6000, 900, seed=12)
    frame.loc[rng.random(6000) < 0.6, "user"] = -1  # 60% of the rows: one bucket holds them
    ddf = dask_frame(frame.to_dict("series"), even_cuts(6000, 10))
    result = dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score="s")
    check_against_references(result, frame, "user")


def test_benchmark_script_runs_and_every_method_agrees(tmp_path):
    from pathlib import Path

    from test_benchmarks import run_script

    script = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_grouped.py"
    output = tmp_path / "report.md"
    import importlib.util

    # the peers are the bench extra's: compared where installed (CI installs the test extra)
    peers = {
        "polars-ranksum": "polars",
        "polars-groupby-cumulative": "polars",
        "duckdb-groupby-window": "duckdb",
    }
    methods = [
        "dask-auc-threads",
        *(m for m, module in peers.items() if importlib.util.find_spec(module) is not None),
        "sklearn-per-group",
    ]
    # every method in the script's own process (--in-process: not a Python start per
    # method), the script file run as __main__ in this one (run_script): a small table
    # suffices to see every method agree; 140 users of which 20 timed with sklearn:
    # extrapolated x7
    completed = run_script(
        script, "--rows", "4000", "--groups", "140", "--sklearn-groups", "20",
        "--repeats", "1", "--output", str(output), "--methods", ",".join(methods),
        "--in-process",
    )  # fmt: skip
    rows = [line for line in completed.stdout.splitlines() if line.startswith("| ")][2:]
    assert [row.split("|")[1].strip() for row in rows] == methods
    for row in rows:
        same = row.split("|")[11]
        assert same.count("yes (") == len(methods) - 1 and "NO" not in same, row
    assert "**extrapolated** x7" in completed.stdout
    assert "- in-process (--in-process): every row was measured" in completed.stdout
    assert output.read_text().strip() == completed.stdout.strip()


def weighted_reference(frame, weight="w"):
    """sklearn per group, the summed weights per class, and GAUC weighted by rows."""
    expected = reference_per_group(frame, "user", weight=weight)
    by_class = frame.groupby(["user", "y"])[weight].sum().unstack(fill_value=0.0)
    expected["weight_pos"] = by_class[1].reindex(expected.index, fill_value=0.0)
    expected["weight_neg"] = by_class[0].reindex(expected.index, fill_value=0.0)
    return expected


def extreme_weights_frame(scale, seed=13):
    """Ordinary weights times ``scale``: one number, or one per group ('mixed')."""
    frame = scored_frame(3000, 60, seed=seed, zero_weights=True)
    if scale == "mixed":
        rng = np.random.default_rng(seed)
        per_group = rng.choice([1e160, 1e-170, 1.0, 1e300, 1e-300], size=60)
        frame["w"] *= per_group[frame["user"]]
        # one group whose positives weigh 1e160 and negatives 1e-170: pos * neg ~ 1e-10
        lopsided = frame["user"] == 0
        frame.loc[lopsided, "w"] = np.where(frame.loc[lopsided, "y"] == 1, 1e160, 1e-170)
    else:
        frame["w"] *= scale
    return frame


@pytest.mark.parametrize(
    "scale",
    [1e160, 1e-170, 1e305, 2.0**-1014, "mixed"],
    ids=["1e160", "1e-170", "1e305 (the groups' sum overflows)", "2**-1014", "mixed per group"],
)
@pytest.mark.float_order
def test_weights_at_the_edges_of_float_range_equal_sklearn(scale):
    frame = extreme_weights_frame(scale)
    ddf = dask_frame(frame.to_dict("series"), [0, 0, 800, 1500, 1500, 3000])
    result = dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score="s", sample_weight="w")
    expected = weighted_reference(frame)
    got = result.per_group
    assert list(got.index) == list(expected.index)
    assert got["n_pos"].tolist() == expected["n_pos"].tolist()
    assert got["n_neg"].tolist() == expected["n_neg"].tolist()
    assert got["auc"].notna().tolist() == ((got["n_pos"] > 0) & (got["n_neg"] > 0)).tolist()
    np.testing.assert_allclose(got["auc"], expected["auc"], rtol=0, atol=1e-12)
    for column in ("weight_pos", "weight_neg"):
        np.testing.assert_allclose(got[column], expected[column], rtol=1e-14, atol=0)
    mass = expected["weight_pos"] + expected["weight_neg"]
    both = (expected["n_pos"] > 0) & (expected["n_neg"] > 0)
    top = mass[both].max()  # the reference's own scaling, so that its sums cannot overflow
    gauc = (expected["auc"][both] * (mass[both] / top)).sum() / (mass[both] / top).sum()
    assert result.gauc == pytest.approx(gauc, abs=1e-12)


@pytest.mark.float_order
def test_a_power_of_two_scale_changes_no_auc_and_scales_the_weights_exactly():
    frame = extreme_weights_frame(1.0, seed=14)
    cuts = [0, 0, 1000, 3000, 3000]
    ddf = dask_frame(frame.to_dict("series"), cuts)
    ordinary = dask_auc.grouped_roc_auc_score(
        ddf, by="user", label="y", score="s", sample_weight="w"
    )
    for exponent in (700, -700):
        scaled = frame.assign(w=np.ldexp(frame["w"], exponent))
        result = dask_auc.grouped_roc_auc_score(
            dask_frame(scaled.to_dict("series"), cuts),
            by="user", label="y", score="s", sample_weight="w",
        )  # fmt: skip
        for column in ("weight_pos", "weight_neg"):
            expected = np.ldexp(ordinary.per_group[column], exponent)
            # bit for bit: same layout, same operations in the same order; a power of two
            # scales every rounding exactly
            assert result.per_group[column].equals(expected)
        np.testing.assert_allclose(result.per_group["auc"], ordinary.per_group["auc"], rtol=1e-15)
        assert result.gauc == pytest.approx(ordinary.gauc, rel=1e-15)


@pytest.mark.float_order
def test_zero_weights_give_nan_for_their_group_and_every_weight_zero_a_nan_gauc():
    frame = scored_frame(600, 6, seed=15, zero_weights=True)
    frame.loc[frame["user"] == 2, "w"] = 0.0
    ddf = dask_frame(frame.to_dict("series"), [0, 200, 200, 600])
    result = dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score="s", sample_weight="w")
    check_against_references(result, frame, "user", weight="w")
    assert np.isnan(result.per_group.loc[2, "auc"]) and result.per_group.loc[2, "n_pos"] == 0
    assert not np.isnan(result.gauc)
    frame["w"] = 0.0
    ddf = dask_frame(frame.to_dict("series"), [0, 200, 200, 600])
    with pytest.warns(dask_auc.UndefinedMetricWarning, match="nonzero sample_weight"):
        result = dask_auc.grouped_roc_auc_score(
            ddf, by="user", label="y", score="s", sample_weight="w"
        )
    assert np.isnan(result.gauc) and result.per_group["auc"].isna().all()
    assert (result.per_group[["n_pos", "n_neg"]] == 0).all().all()
    assert (result.per_group[["weight_pos", "weight_neg"]] == 0.0).all().all()


@pytest.mark.float_order
def test_groups_weighing_1e30_and_1e_minus_30_in_one_bucket_equal_sklearn():
    """Within the safe range, but a light group after a heavy one lost every digit."""
    frame = scored_frame(3000, 60, seed=16, zero_weights=True)
    scale = 10.0 ** np.random.default_rng(16).choice([-30, -10, 0, 10, 30], size=60)
    frame["w"] *= scale[frame["user"]]
    ddf = dask_frame(frame.to_dict("series"), [0, 1000, 1000, 3000])
    with dask.config.set({"dask-auc.buckets": 1}):  # every group in one bucket
        result = dask_auc.grouped_roc_auc_score(
            ddf, by="user", label="y", score="s", sample_weight="w"
        )
    expected = weighted_reference(frame)
    np.testing.assert_allclose(result.per_group["auc"], expected["auc"], rtol=0, atol=1e-12)
    for column in ("weight_pos", "weight_neg"):
        np.testing.assert_allclose(result.per_group[column], expected[column], rtol=1e-14)


# -- calibration columns beside the AUC (issue 23) ---------------------------------------------


def _click_frame(n=3000, users=40, seed=5):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "user": rng.integers(0, users, n),
            "y": rng.integers(0, 2, n),
            "p": np.round(rng.random(n), 2),
            "w": rng.choice([0.0, 0.5, 1.0, 3.0], n),
        }
    )
    frame.loc[frame["user"] == 0, "y"] = 1  # one class: NaN normalized entropy
    frame.loc[frame["user"] == 1, "w"] = 0.0  # zero weight: NaN everywhere (weighted)
    frame.loc[frame["user"] == 2, "p"] = np.r_[0.0, 1.0][frame.loc[frame["user"] == 2, "y"]]
    return frame


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    "cuts", [[0, 3000], [0, 0, 700, 700, 2999, 3000], list(range(0, 3001, 100))]
)
@pytest.mark.float_order
def test_calibration_columns_equal_sklearn_per_group(weighted, cuts):
    from metric_registry import GROUPED_CALIBRATION, calibration_by_group_reference

    frame = _click_frame()
    ddf = dask_frame({name: frame[name].to_numpy() for name in frame}, cuts)
    result = dask_auc.grouped_roc_auc_score(
        ddf, by="user", label="y", score="p", sample_weight="w" if weighted else None,
        metrics=GROUPED_CALIBRATION,
    )  # fmt: skip
    weights = frame["w"].to_numpy() if weighted else None
    for user, rows in frame.groupby("user"):
        want = calibration_by_group_reference(
            rows["y"].to_numpy(), rows["p"].to_numpy(), None if weights is None else rows["w"]
        )
        got = result.per_group.loc[user]
        for name in GROUPED_CALIBRATION:
            np.testing.assert_allclose(got[name], want[name], rtol=1e-12, err_msg=f"{user} {name}")
    overall = calibration_by_group_reference(frame["y"].to_numpy(), frame["p"].to_numpy(), weights)
    for name in GROUPED_CALIBRATION:
        np.testing.assert_allclose(result.overall[name], overall[name], rtol=1e-12)
    assert np.isnan(result.per_group.loc[0, "normalized_entropy"])
    plain = dask_auc.grouped_roc_auc_score(
        ddf, by="user", label="y", score="p", sample_weight="w" if weighted else None
    )
    pd.testing.assert_frame_equal(result.per_group[plain.per_group.columns], plain.per_group)
    assert plain.overall == {} and result.gauc == plain.gauc


def test_calibration_columns_check_probabilities_and_names():
    frame = _click_frame(n=200)
    frame.loc[5, "p"] = 1.5
    ddf = dd.from_pandas(frame, npartitions=3)
    # the AUC alone reads scores, any scores
    dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score="p")
    with pytest.raises(ValueError, match="y_prob contains values greater than 1: 1.5"):
        dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score="p", metrics=["brier"])
    with pytest.raises(dask_auc.InvalidParameterError, match="'metrics' parameter"):
        dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score="p", metrics=["auc"])


@pytest.mark.float_order
def test_calibration_columns_without_numba_are_the_same():
    ddf = dd.from_pandas(_click_frame(n=500), npartitions=4)
    options = dict(by="user", label="y", score="p", metrics=("log_loss", "calibration"))
    with dask.config.set({"dask-auc.numba": False}):
        numpy_path = dask_auc.grouped_roc_auc_score(ddf, **options)
    default = dask_auc.grouped_roc_auc_score(ddf, **options)
    pd.testing.assert_frame_equal(default.per_group, numpy_path.per_group)
    assert default.overall == numpy_path.overall
