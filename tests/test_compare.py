"""``compare``: several models in one pass, against scikit-learn and DeLong's O(P * N) reference.

Also the claim that the inputs are read once (a counting source and the
graph's tasks) and the CLI's ``--score a --score b``.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from statistics import NormalDist

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score as sklearn_ap
from sklearn.metrics import log_loss as sklearn_log_loss
from sklearn.metrics import roc_auc_score as sklearn_auc
from sklearn.metrics import roc_curve as sklearn_roc_curve

import dask_auc
from strategies import boundaries, dask_array, dask_frame, examples
from test_delong import reference_test


def _models(seed: int, n: int, distinct: int = 12) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Labels and three probability-like models with heavy ties (``distinct`` scores)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    noise = rng.random((3, n))
    raw = {"a": 0.6 * noise[0] + 0.4 * y, "b": noise[1], "c": 0.8 * noise[2] + 0.2 * y}
    return y, {k: np.floor(v * distinct) / distinct * 0.98 + 0.01 for k, v in raw.items()}


def _ks(y, s, w=None):
    fpr, tpr, _ = sklearn_roc_curve(y, s, sample_weight=w)
    return float(np.max(tpr - fpr))


@given(cuts=boundaries(300, 8), weighted=st.booleans())
@settings(max_examples=examples(6), deadline=None)
def test_each_model_matches_scikit_learn_on_any_partitioning(cuts, weighted):
    y, models = _models(1, 300)
    w = np.random.default_rng(2).choice([0.0, 0.5, 2.0], 300) if weighted else None
    if weighted:  # columns of one frame
        ddf = dask_frame({"y": y, **models, "w": w}, cuts)
        labels, scores, weight = ddf["y"], {m: ddf[m] for m in models}, ddf["w"]
    else:
        labels, weight = dask_array(y, cuts), None
        scores = {m: dask_array(s, cuts) for m, s in models.items()}
    table = dask_auc.compare(
        labels, scores, metrics=("roc_auc", "average_precision", "ks", "log_loss"),
        sample_weight=weight, test=None,
    )  # fmt: skip
    assert list(table.index) == ["a", "b", "c"] and table.index.name == "model"
    for name, s in models.items():
        # exact: the one-model call's bits, and scikit-learn's float sums to rounding
        assert table.loc[name, "roc_auc"] == dask_auc.roc_auc_score(y, s, sample_weight=w)
        assert table.loc[name, "roc_auc"] == pytest.approx(
            sklearn_auc(y, s, sample_weight=w), rel=1e-12
        )
        assert table.loc[name, "average_precision"] == pytest.approx(
            sklearn_ap(y, s, sample_weight=w), rel=1e-12
        )
        assert table.loc[name, "ks"] == pytest.approx(_ks(y, s, w), abs=1e-12)
        assert table.loc[name, "log_loss"] == pytest.approx(
            sklearn_log_loss(y, s, sample_weight=w), rel=1e-12
        )


def test_delong_columns_are_the_reference_paired_test_against_the_baseline():
    y, models = _models(4, 200)
    table = dask_auc.compare(y, models, baseline="b", confidence_level=0.9)
    assert table.attrs == {
        "baseline": "b", "test": "delong", "tested": "roc_auc", "confidence_level": 0.9
    }  # fmt: skip
    assert table.loc["b", ["difference", "p_value"]].isna().all()
    half = NormalDist().inv_cdf(0.95)
    for name in ("a", "c"):
        _, _, diff, se, z, p = reference_test(y, models[name], models["b"])
        row = table.loc[name]
        assert row["difference"] == pytest.approx(diff, abs=1e-12)
        assert row["std_error"] == pytest.approx(se, rel=1e-9)
        assert row["z"] == pytest.approx(z, rel=1e-9)
        assert row["p_value"] == pytest.approx(p, rel=1e-6, abs=1e-300)
        assert row["low"] == pytest.approx(diff - half * se, abs=1e-12)
        assert row["high"] == pytest.approx(diff + half * se, abs=1e-12)


#: adversarial layouts of 120 rows: (cuts, dask-auc.buckets, distinct scores, pos_label)
_LAYOUTS = {
    "ties across partition edges": (list(range(0, 120, 7)) + [120], 9, 2, 0),
    "one partition": ([0, 120], None, 12, None),
    "empty partitions": ([0, 0, 40, 40, 40, 110, 120, 120], 3, 5, 0),
    "many partitions": ([0, *range(2, 120, 3), 120], 30, 1000, None),
}
_ROC_COLUMNS = ["roc_auc", "average_precision", "ks"]


@pytest.mark.float_order
@pytest.mark.parametrize("layout", _LAYOUTS, ids=list(_LAYOUTS))
def test_delong_table_is_the_plain_path_and_pairwise_delong_test_bit_for_bit(layout):
    """compare's one sort a model against the two paths it replaced, to the bit.

    The metric columns against ``test=None`` (each model a plain ROC sort), the
    test columns against one ``delong_test`` per model and the baseline (its
    sign flipped where ``pos_label`` is the smaller label).
    """
    cuts, buckets, distinct, pos_label = _LAYOUTS[layout]
    y, models = _models(21, 120, distinct)
    models["d"], models["e"] = -models["a"], models["b"].copy()  # reversed; the baseline again
    labels, scores = dask_array(y, cuts), {m: dask_array(s, cuts) for m, s in models.items()}
    common = dict(metrics=_ROC_COLUMNS, pos_label=pos_label, baseline="b")
    with dask.config.set({"dask-auc.buckets": buckets}):
        table = dask_auc.compare(labels, scores, confidence_level=0.8, **common)
        plain = dask_auc.compare(labels, scores, test=None, **common)
        pairs = {m: dask_auc.delong_test(labels, scores[m], scores["b"]) for m in "acde"}
    pd.testing.assert_frame_equal(table[_ROC_COLUMNS], plain, check_exact=True)
    half, sign = NormalDist().inv_cdf(0.9), (1.0 if pos_label is None else -1.0)
    for name, test in pairs.items():
        se, difference = test.std_error, sign * test.difference
        expected = [difference, difference - half * se, difference + half * se,
                    se, sign * test.z, test.p_value]  # fmt: skip
        np.testing.assert_array_equal(
            table.loc[name, ["difference", "low", "high", "std_error", "z", "p_value"]], expected
        )
        if pos_label is None:  # DeLong's AUC, the ROC query's and roc_auc_score's: one number
            auc = dask_auc.roc_auc_score(y, models[name])
            assert table.loc[name, "roc_auc"] == test.auc_a == auc
    # the same ranking as the baseline's: a standard error of exactly 0, as delong_test's
    assert table.loc["e", "std_error"] == 0 and math.isnan(table.loc["e", "z"])


def test_one_class_of_many_models_is_nan_with_the_warning():
    y, models = np.ones(9, int), {m: np.arange(9.0) * k for k, m in enumerate("abc", 1)}
    with pytest.warns(dask_auc.UndefinedMetricWarning, match="Only one class"):
        table = dask_auc.compare(dask_array(y, [0, 4, 4, 9]), models)
    assert table.isna().all().all()


def _kinds(lazy, kind: str) -> int:
    """How many distinct ``kind-<token>`` task names the lazy result's graph holds."""
    return len({k[0] for k in dict(lazy.__dask_graph__()) if isinstance(k, tuple)
                and re.fullmatch(rf"{kind}-[0-9a-f]+", str(k[0]))})  # fmt: skip


@pytest.mark.parametrize("metrics", [("roc_auc",), (*_ROC_COLUMNS, "log_loss")])
def test_delong_sorts_and_routes_each_model_once(metrics):
    """k sorts and k routes for k models, whatever the baseline and the metrics.

    One sort a model answers its metric columns and DeLong's placements (the
    plain path sorted every model once more; one delong_test a pair took 2(k-1)).
    """
    y, models = _models(22, 60)
    models["d"] = models["a"] * 0.5
    lazy = dask_auc.compare(y, models, metrics=metrics, baseline="c", compute=False)
    assert _kinds(lazy, "auc-plan") == _kinds(lazy, "auc-bucket") == len(models)
    assert _kinds(lazy, "auc-delong-route") == len(models)
    plain = dask_auc.compare(y, models, metrics=metrics, test=None, compute=False)
    assert _kinds(plain, "auc-plan") == len(models)  # what the count sees: one a ROC


def test_pos_label_of_the_smaller_class_flips_delongs_difference():
    y, models = _models(5, 150)
    labels = np.where(y == 1, "yes", "no")  # "yes" is the greater: pos_label="no" flips
    table = dask_auc.compare(labels, models, pos_label="no")
    for name in ("b", "c"):
        assert table.loc[name, "roc_auc"] == pytest.approx(
            sklearn_auc(labels == "no", models[name]), rel=1e-12
        )
        _, _, diff, se, z, p = reference_test(labels == "no", models[name], models["a"])
        assert table.loc[name, "difference"] == pytest.approx(diff, abs=1e-12)
        assert table.loc[name, "z"] == pytest.approx(z, rel=1e-9)
    with pytest.raises(ValueError, match="log_loss reads the scores as probabilities"):
        dask_auc.compare(labels, models, metrics=("roc_auc", "log_loss"), pos_label="no")


def test_bootstrap_columns_are_bootstrap_test_with_one_seed():
    y, models = _models(6, 200)
    w = np.random.default_rng(7).choice([0.5, 1.0, 3.0], 200)
    table = dask_auc.compare(
        y, models, metrics=("average_precision", "roc_auc"), sample_weight=w,
        test="bootstrap", n_bootstraps=60, random_state=11, baseline="c",
    )  # fmt: skip
    for name in ("a", "b"):
        test = dask_auc.bootstrap_test(
            y, models[name], models["c"], metric="average_precision",
            n_bootstraps=60, random_state=11, sample_weight=w,
        )  # fmt: skip
        assert tuple(table.loc[name, ["difference", "low", "high", "std_error", "z", "p_value"]]) \
            == pytest.approx(tuple(test)[2:8], abs=1e-12)  # fmt: skip
        # the ROC's query and the bootstrap's estimate may round the weighted AP apart
        assert table.loc[name, "average_precision"] == pytest.approx(test.estimate_a, rel=1e-14)


def _counting_frame(calls: list[int], n_parts: int = 4) -> dd.DataFrame:
    def load(i: int) -> pd.DataFrame:
        calls.append(i)
        y, models = _models(100 + i, 60)
        return pd.DataFrame({"y": y, **models})

    return dd.from_map(load, range(n_parts))


def test_the_labels_are_read_once_for_every_model_and_test():
    calls: list[int] = []
    ddf = _counting_frame(calls)
    lazy = dask_auc.compare(
        ddf["y"], {m: ddf[m] for m in "abc"}, metrics=("roc_auc", "log_loss"), compute=False
    )
    assert isinstance(lazy, dask_auc.LazyScore)
    calls.clear()  # the frame's meta may have been read while building: never a partition
    graph = dict(lazy.__dask_graph__())
    readers = [k for k in graph if isinstance(k, tuple) and str(k[0]).startswith("load-")]
    assert sorted(k[1] for k in readers) == [0, 1, 2, 3], "one read task per partition"
    table = lazy.compute(scheduler="sync")
    assert sorted(calls) == [0, 1, 2, 3], "every partition read once, for 3 models and 2 tests"
    frame = ddf.compute()
    for m in "abc":
        assert table.loc[m, "roc_auc"] == pytest.approx(sklearn_auc(frame["y"], frame[m]))


def test_a_read_partition_is_joined_without_copying_its_columns():
    """The joined frame holds each input's own buffer: no copy into one block of floats."""
    from dask_auc._compare import _joined_partition

    rng = np.random.default_rng(5)
    parts = [pd.Series(rng.integers(0, 2, 50), index=np.arange(50) + 7)]
    parts += [pd.Series(rng.random(50)) for _ in range(3)]
    parts.append(pd.Series(pd.Categorical(rng.choice(["x", "y"], 50))))
    columns = [f"input_{i}" for i in range(len(parts))]
    joined = _joined_partition(*parts, columns=columns, names=tuple(columns))
    assert list(joined.columns) == columns
    assert isinstance(joined.index, pd.RangeIndex) and len(joined) == 50
    for column, part in zip(columns, parts, strict=True):
        assert joined[column].dtype == part.dtype
        if isinstance(part.dtype, np.dtype):
            assert np.shares_memory(joined[column].to_numpy(), part.to_numpy()), column
        assert joined[column].tolist() == part.tolist()


def test_separate_calls_read_the_frame_once_per_model():
    """What compare avoids: a model's own call reads every partition again."""
    calls: list[int] = []
    ddf = _counting_frame(calls, 2)
    lazies = [dask_auc.roc_auc_score(ddf["y"], ddf[m], compute=False) for m in "ab"]
    calls.clear()
    dask_auc.compute(*lazies, scheduler="sync")
    assert len(calls) > 2


def test_dask_arrays_are_shared_by_their_keys(client):
    """On a cluster the labels' blocks are graph keys, sent once and read by every model."""
    y, models = _models(8, 120)
    arrays = {m: da.from_array(s, chunks=40) for m, s in models.items()}
    labels = da.from_array(y, chunks=40)
    lazy = dask_auc.compare(labels, arrays, compute=False)
    graph = dict(lazy.__dask_graph__())
    assert sum(1 for k in graph if isinstance(k, tuple) and k[0] == labels.name) == 3
    table = lazy.compute()
    assert table.loc["c", "roc_auc"] == pytest.approx(sklearn_auc(y, models["c"]), rel=1e-12)


def test_held_label_blocks_are_handed_to_every_model_as_the_same_objects():
    """On a local scheduler the held blocks are values in the prepare tasks: never copies."""
    from dask.task_spec import DataNode, GraphNode

    y, models = _models(8, 120)
    labels = da.from_array(y, chunks=40)
    lazy = dask_auc.compare(labels, {m: da.from_array(s, chunks=40) for m, s in models.items()},
                            compute=False)  # fmt: skip
    graph = dict(lazy.__dask_graph__())
    assert not any(isinstance(k, tuple) and k[0] == labels.name for k in graph)
    passed: list[DataNode] = []

    def walk(node):
        if isinstance(node, DataNode):
            passed.append(node)
            return
        for child in getattr(node, "args", ()):
            if isinstance(child, GraphNode):
                walk(child)

    for task in graph.values():
        walk(task)
    held = [n.value for n in passed if isinstance(n.key, tuple) and n.key[0] == labels.name]
    assert len(held) >= 3 and len({id(v) for v in held}) == 3  # three blocks, each one object
    table = lazy.compute()
    assert table.loc["c", "roc_auc"] == pytest.approx(sklearn_auc(y, models["c"]), rel=1e-12)


def test_errors_name_the_argument():
    y, models = _models(9, 40)
    with pytest.raises(ValueError, match="DeLong's test is of unweighted rows"):
        dask_auc.compare(y, models, sample_weight=np.ones(40))
    with pytest.raises(ValueError, match="DeLong's test is of the AUC"):
        dask_auc.compare(y, models, metrics="ks")
    with pytest.raises(ValueError, match="the bootstrap tests metrics"):
        dask_auc.compare(y, models, metrics="log_loss", test="bootstrap")
    with pytest.raises(ValueError, match="'metrics' parameter of compare"):
        dask_auc.compare(y, models, metrics=("roc_auc", "accuracy"))
    with pytest.raises(ValueError, match="baseline='z' is not a model"):
        dask_auc.compare(y, models, baseline="z")
    with pytest.raises(TypeError, match="scores must be a mapping"):
        dask_auc.compare(y, [models["a"]])
    with pytest.raises(ValueError, match="'test' parameter of compare"):
        dask_auc.compare(y, models, test="wilcoxon")
    ddf = dd.from_pandas(pd.DataFrame({"y": y, "a": models["a"]}), npartitions=2)
    other = dd.from_pandas(pd.Series(models["b"]), npartitions=3)
    with pytest.raises(ValueError, match="different numbers of partitions"):
        dask_auc.compare(ddf["y"], {"a": ddf["a"], "b": other})
    lengths = dd.from_pandas(pd.Series(models["b"][:-1]), npartitions=2)
    with pytest.raises(ValueError, match="differ in length"):
        dask_auc.compare(ddf["y"], {"a": ddf["a"], "b": lengths}, test=None)


def test_one_model_has_no_test_columns_and_undefined_metrics_are_nan():
    one_model = dask_auc.compare([0, 1, 1, 0], {"only": [0.1, 0.2, 0.3, 0.4]})
    assert list(one_model.columns) == [
        "roc_auc",
        "difference",
        "low",
        "high",
        "std_error",
        "z",
        "p_value",
    ]
    assert one_model.loc["only", "roc_auc"] == 0.5 and one_model["p_value"].isna().all()
    with pytest.warns(dask_auc.UndefinedMetricWarning):
        one_class = dask_auc.compare(np.ones(4, int), {"a": np.arange(4.0), "b": -np.arange(4.0)})
    assert math.isnan(one_class.loc["a", "roc_auc"]) and one_class["p_value"].isna().all()
    lazy = dask_auc.compare(np.array([0, 1]), {"a": [0.1, 0.9]}, test=None, compute=False)
    assert dask.is_dask_collection(lazy) and list(lazy.compute().columns) == ["roc_auc"]


@pytest.fixture(scope="module")
def scored_files(tmp_path_factory):
    """Two models' scores, weights and string labels in three Parquet files."""
    y, models = _models(12, 900)
    w = np.random.default_rng(13).choice([0.5, 1.0, 2.0], 900)
    user = np.random.default_rng(16).integers(0, 12, 900)
    frame = pd.DataFrame({"y": np.where(y == 1, "click", "skip"), **models, "w": w, "user": user})
    root = tmp_path_factory.mktemp("compare") / "scores"
    root.mkdir()
    for i, part in enumerate(np.array_split(np.arange(900), 3)):
        frame.iloc[part].to_parquet(root / f"part-{i}.parquet", index=False)
    return root, frame


def _cli(capsys, *arguments):
    from dask_auc.cli import main

    # dask's Parquet reader on files without an index: a pandas 3.1 deprecation, which the
    # command's process hides (as tests/test_cli.py's in_process)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The inplace keyword", DeprecationWarning)
        try:
            status = main([str(a) for a in (*arguments, "--scheduler", "threads")])
        except SystemExit as stopped:  # argparse's usage errors
            status = stopped.code
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_reports_each_model_and_the_paired_comparison(capsys, scored_files):
    root, frame = scored_files
    common = (root, "--label", "y", "--pos-label", "skip", "--score", "b", "--score", "a")
    status, out, err = _cli(capsys, *common, "--score", "c", "--by", "user", "--json")
    assert status == 0, err
    report = json.loads(out)
    positive = frame["y"] == "skip"  # the smaller label: DeLong's difference is flipped
    assert [m["score"] for m in report["models"]] == ["b", "a", "c"]
    for model in report["models"]:
        assert model["positive_class"] == "skip"
        alone = dask_auc.grouped_roc_auc_score(
            frame.assign(hit=positive), by="user", label="hit", score=model["score"]
        )
        assert model["gauc"] == alone.gauc and model["groups"] == len(alone.per_group)
        assert model["roc_auc"] == pytest.approx(sklearn_auc(positive, frame[model["score"]]))
        assert model["average_precision"] == pytest.approx(
            sklearn_ap(positive, frame[model["score"]])
        )
    comparison = report["comparison"]
    assert comparison["baseline"] == "b" and comparison["test"] == "delong"
    rows = {row["model"]: row for row in comparison["models"]}
    assert rows["b"]["difference"] is None
    for name in ("a", "c"):
        _, _, diff, se, z, p = reference_test(positive, frame[name], frame["b"])
        assert rows[name]["difference"] == pytest.approx(diff, abs=1e-12)
        assert rows[name]["p_value"] == pytest.approx(p, rel=1e-6)
    status, out, err = _cli(capsys, *common)
    assert status == 0, err
    assert out.count("dask-auc: ") == 2 and "models compared with 'b'" in out
    assert "model 'a'\n" in out and "model 'b'\n" in out
    assert "(baseline)" in out and "95% interval" in out


def test_cli_weighted_comparison_is_the_paired_bootstrap(capsys, scored_files):
    root, frame = scored_files
    status, out, err = _cli(
        capsys, root, "--label", "y", "--pos-label", "click", "--score", "a", "--score", "b",
        "--weight", "w", "--json",
    )  # fmt: skip
    assert status == 0, err
    comparison = json.loads(out)["comparison"]
    assert comparison["test"] == "bootstrap"
    (row,) = [r for r in comparison["models"] if r["model"] == "b"]
    clicked = frame["y"] == "click"
    test = dask_auc.bootstrap_test(
        clicked, frame["b"], frame["a"], sample_weight=frame["w"], random_state=0
    )
    assert row["difference"] == pytest.approx(test.difference, abs=1e-12)
    assert row["low"] == pytest.approx(test.low, abs=1e-12)


def test_cli_usage_errors_of_several_scores(capsys, scored_files):
    root, _ = scored_files
    base = (root, "--label", "y", "--pos-label", "click", "--score", "a")
    for extra, message in [
        (("--score", "a"), "argument --score: given more than once ('a')"),
        (("--score", "b", "--state-out", "x.state"), "--state-out takes one --score"),
        (("--score", "b", "--by", "w", "--per-group", "g.csv"), "--per-group takes one --score"),
    ]:
        status, out, err = _cli(capsys, *base, *extra)
        assert status == 2 and out == "", err
        assert message in err.strip().splitlines()[-1]


# dask's Parquet reader on files without an index: a pandas 3.1 deprecation (as in _cli)
@pytest.mark.filterwarnings("ignore:The inplace keyword:DeprecationWarning")
def test_the_benchmark_runs_and_checks_its_answers(capsys):
    """benchmarks/bench_compare.py at a tiny size, in this process (no timing is looked at)."""
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_compare.py"
    spec = importlib.util.spec_from_file_location("bench_compare", script)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    text = bench.main(["--rows", "3000", "--models", "3", "--groups", "50", "--files", "2",
                       "--repeats", "1"])  # fmt: skip
    assert "| compare x3 |" in text and "| grouped x3 |" in text
    assert "| compare x3 delong |" in text and "| delong_test x2 pairwise |" in text
    profiled = bench.main(["--rows", "2000", "--models", "2", "--files", "1", "--profile"])
    rows = {line.split(" | ")[0].lstrip("| ") for line in profiled.splitlines()[4:]}
    assert {"auc-bucket", "auc-delong-route", "cross_sums", "total"} <= rows


def test_compare_and_grouped_many_scores_on_a_process_cluster(client):
    """The shared session cluster: the tables of the threaded scheduler, bit for bit."""
    y, models = _models(14, 600)
    users = np.random.default_rng(15).integers(0, 20, 600)
    ddf = dd.from_pandas(pd.DataFrame({"y": y, "user": users, **models}), npartitions=4)
    scores = {m: ddf[m] for m in models}
    on_cluster = dask_auc.compare(ddf["y"], scores, metrics=("roc_auc", "ks"))
    with dask.config.set(scheduler="threads"):
        threaded = dask_auc.compare(ddf["y"], scores, metrics=("roc_auc", "ks"))
    pd.testing.assert_frame_equal(on_cluster, threaded, check_exact=True)
    grouped = dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score=["a", "c"])
    alone = dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score="c")
    pd.testing.assert_frame_equal(grouped.per_group["c"], alone.per_group, check_exact=True)


def test_models_of_few_scores_are_looked_up_by_score_on_a_process_cluster(client, monkeypatch):
    """Models of a few distinct scores in every partition skip DeLong's row ids (their buckets'
    placement tables travel to every block): on the worker processes as on the threaded
    scheduler, where a spy sees the lookup, the same table bit for bit."""
    from dask_auc._kernels.binary import delong_paired

    rng = np.random.default_rng(16)
    y = rng.integers(0, 2, 4000)
    frame = pd.DataFrame({"y": y})
    for name, shift in (("a", 0.8), ("b", 0.4), ("c", 0.0)):
        frame[name] = np.round(rng.normal(size=4000) + shift * y, 1)
    ddf = dd.from_pandas(frame, npartitions=4)
    scores = {m: ddf[m] for m in "abc"}
    on_cluster = dask_auc.compare(ddf["y"], scores)
    looked_up = []
    lookup = delong_paired.tabled_values
    monkeypatch.setattr(
        delong_paired, "tabled_values", lambda *a: looked_up.append(1) or lookup(*a)
    )
    with dask.config.set(scheduler="threads"):
        threaded = dask_auc.compare(ddf["y"], scores)
    assert len(looked_up) == 3 * 4  # every model, every partition
    pd.testing.assert_frame_equal(on_cluster, threaded, check_exact=True)
    assert on_cluster["std_error"].iloc[1:].gt(0).all()
