"""Errors and warnings a user reads (issue 20, items 5-8), on dask inputs.

* item 5: the command line names the file and the column when the files of a
  dataset disagree, before any computation; an empty directory says so.
* item 6: the "GAUC is not defined" warning is scikit-learn's
  ``UndefinedMetricWarning`` and points at the caller's line.
* item 7: binary-only functions name themselves and the classes found for a
  multi-class target; ``roc_auc_score`` raises scikit-learn's own messages.
* item 8: rows whose group key is missing are counted and reported, never
  dropped silently.
"""

from __future__ import annotations

import json
import re
import warnings

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning as SklearnUndefinedMetricWarning
from sklearn.metrics import roc_auc_score as sklearn_auc
from sklearn.metrics import roc_curve as sklearn_roc_curve

import dask_auc
from dask_auc import cli
from dask_auc._engine import SortedGraph, prepared_blocks
from dask_auc._kernels.sort.plan import SHARED_BINARY_PLAN
from references import DASK_READER_NOTICE
from strategies import boundaries, dask_array, dask_frame

# --- helpers --------------------------------------------------------------------------


def sklearn_error(function, *args, **kwargs) -> str:
    """The message of the ValueError scikit-learn raises for this call."""
    with pytest.raises(ValueError) as raised, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        function(*args, **kwargs)
    return str(raised.value)


def three_classes(n: int = 600, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    s = np.round(rng.random(n) + 0.2 * y, 2)  # ties
    t = np.round(rng.random(n), 3)
    return y, s, t


#: partitions of 600 rows: an empty one, one row, uneven
CUTS = [0, 0, 1, 250, 600]


def binary_only_message(function: str, classes: list) -> str:
    return re.escape(
        f"{function} only supports binary classification (two classes in y_true); "
        f"y_true holds {len(classes)} classes: {classes}"
    )


#: the console script's users see no warning filter "error" (see references.DASK_READER_NOTICE)
IGNORE_DASK_READER_NOTICE = f"ignore:{DASK_READER_NOTICE}"


def run_cli(capsys, *arguments) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in arguments] + ["--scheduler", "threads", "--quiet"])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_one_line_error(status: int, out: str, err: str, *expected: str) -> str:
    assert status == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("dask-auc: error: "), err
    assert "Traceback" not in err
    for text in expected:
        assert text in err, err
    return err


# --- item 7: a multi-class target ------------------------------------------------------


@pytest.mark.parametrize("multi_class", ["ovr", "ovo"])
def test_roc_auc_score_multi_class_with_1d_scores_raises_sklearns_shape_error(multi_class):
    y, s, _ = three_classes()
    expected = sklearn_error(sklearn_auc, y, s, multi_class=multi_class)
    # sklearn 1.9's own test matches this prefix
    assert expected.startswith("`y_score` needs to be of shape `(n_samples, n_classes)`")
    for y_in, s_in in [
        (dask_array(y, CUTS), dask_array(s, CUTS)),
        (dask_frame({"y": y}, CUTS)["y"], dask_frame({"s": s}, CUTS)["s"]),
    ]:
        with pytest.raises(ValueError, match=re.escape(expected)):
            dask_auc.roc_auc_score(y_in, s_in, multi_class=multi_class)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},  # multi_class="raise": sklearn's "multi_class must be in ('ovo', 'ovr')"
        {"multi_class": "ovr", "max_fpr": 0.3},  # max_fpr's error comes first
        {"max_fpr": 0.3},
        {"multi_class": "ovo", "sample_weight": True},
    ],
)
def test_roc_auc_score_multi_class_errors_are_sklearns_in_its_order(kwargs):
    y, s, t = three_classes()
    if kwargs.pop("sample_weight", False):
        kwargs["sample_weight"] = t
    expected = sklearn_error(sklearn_auc, y, s, **kwargs)
    if "sample_weight" in kwargs:
        kwargs["sample_weight"] = dask_array(t, CUTS)
    with pytest.raises(ValueError, match=re.escape(expected)):
        dask_auc.roc_auc_score(dask_array(y, CUTS), dask_array(s, CUTS), **kwargs)


@pytest.mark.parametrize(
    "function, call",
    [
        (
            "partial_roc_auc_score",
            lambda y, s, t, **kw: dask_auc.partial_roc_auc_score(y, s, fpr_range=(0.1, 0.4), **kw),
        ),
        (
            "partial_roc_auc_score",
            lambda y, s, t, **kw: dask_auc.partial_roc_auc_score(y, s, tpr_range=(0.0, 1.0), **kw),
        ),
        ("roc_auc_ci", lambda y, s, t, **kw: dask_auc.roc_auc_ci(y, s, **kw)),
        ("delong_test", lambda y, s, t, **kw: dask_auc.delong_test(y, s, t, **kw)),
    ],
)
@pytest.mark.parametrize("labels", ["ints", "strings"])
def test_binary_only_functions_name_themselves_and_the_classes(function, call, labels):
    y, s, t = three_classes()
    classes = [0, 1, 2]
    if labels == "strings":
        names = np.array(["ham", "eggs", "spam"])
        y, classes = names[y], ["eggs", "ham", "spam"]
    # scikit-learn rejects the same input for its binary-only curve
    assert sklearn_error(sklearn_roc_curve, y, s) == "multiclass format is not supported"
    frame = dask_frame({"y": y, "s": s, "t": t}, CUTS)
    columns = frame["y"], frame["s"], frame["t"]
    message = binary_only_message(function, classes)
    with pytest.raises(ValueError, match=message):
        call(*columns)
    # lazily: the finish step raises, in the caller, whichever way it is computed
    lazy = call(*columns, compute=False)
    with pytest.raises(ValueError, match=message):
        dask.compute(lazy)
    with pytest.raises(ValueError, match=message):
        lazy.finish(lazy.parts().compute())


def test_grouped_roc_auc_score_names_itself_for_three_classes():
    y, s, _ = three_classes()
    frame = dask_frame({"user": np.arange(len(y)) % 7, "y": y, "s": s}, CUTS)
    with pytest.raises(ValueError, match=binary_only_message("grouped_roc_auc_score", [0, 1, 2])):
        dask_auc.grouped_roc_auc_score(frame, by="user", label="y", score="s")


def test_classes_spread_over_partitions_are_all_named():
    # each partition holds two classes at most: only their union is not binary
    y = np.repeat([0, 1, 1, 2, 2, 3], 50)
    s = np.linspace(0, 1, len(y))
    cuts = [0, 100, 200, 300]
    with pytest.raises(ValueError, match=binary_only_message("roc_auc_ci", [0, 1, 2, 3])):
        dask_auc.roc_auc_ci(dask_array(y, cuts), dask_array(s, cuts))
    expected = sklearn_error(sklearn_auc, y, s, multi_class="ovr")
    with pytest.raises(ValueError, match=re.escape(expected)):
        dask_auc.roc_auc_score(dask_array(y, cuts), dask_array(s, cuts), multi_class="ovr")


def test_many_classes_are_elided_after_ten():
    y = np.arange(300) % 15
    s = np.linspace(0, 1, 300)
    shown = ", ".join(map(str, range(10)))
    with pytest.raises(ValueError, match=re.escape(f"holds 15 classes: [{shown}, ...]")):
        dask_auc.partial_roc_auc_score(
            dask_array(y, [0, 150, 300]), dask_array(s, [0, 150, 300]), fpr_range=(0, 0.5)
        )


def test_scores_are_checked_before_the_classes_as_sklearn_does():
    y, s, _ = three_classes()
    s = s.astype(float)
    s[400] = np.nan
    expected = sklearn_error(sklearn_auc, y, s, multi_class="ovr")
    assert expected == "Input contains NaN."
    with pytest.raises(ValueError, match=re.escape(expected)):
        dask_auc.roc_auc_score(dask_array(y, CUTS), dask_array(s, CUTS), multi_class="ovr")
    with pytest.raises(ValueError, match=re.escape(expected)):
        dask_auc.partial_roc_auc_score(dask_array(y, CUTS), dask_array(s, CUTS), fpr_range=(0, 0.5))


def test_all_zero_weights_of_three_classes_still_name_the_target():
    y, s, _ = three_classes()
    w = np.zeros(len(y))
    expected = sklearn_error(sklearn_auc, y, s, sample_weight=w)  # the multi_class error
    with pytest.raises(ValueError, match=re.escape(expected)):
        dask_auc.roc_auc_score(dask_array(y, CUTS), dask_array(s, CUTS), sample_weight=w)
    with pytest.raises(ValueError, match=binary_only_message("partial_roc_auc_score", [0, 1, 2])):
        dask_auc.partial_roc_auc_score(
            dask_array(y, CUTS), dask_array(s, CUTS), sample_weight=w, fpr_range=(0, 0.5)
        )


@pytest.mark.parametrize("compiled", [False, True])
def test_a_multi_class_target_is_not_sorted(compiled):
    """delong_test's plan of a target of three classes sends no row to any bucket (the
    finish step raises); blocks of two classes each, large enough for the
    compiled unsplit path, included."""
    n = 70_000
    rng = np.random.default_rng(3)
    y = np.concatenate([rng.integers(0, 2, n), rng.integers(1, 3, n)])
    s = rng.random(2 * n)
    cuts = [0, n, 2 * n]
    with dask.config.set({"dask-auc.numba": compiled, "dask-auc.buckets": 4}):
        graph = SortedGraph(
            prepared_blocks(dask_array(y, cuts), dask_array(s, cuts)), plan=SHARED_BINARY_PLAN
        )
        plan, *buckets = graph.lazy([graph.plan_key, *graph.bucket_keys]).compute()
    assert plan.classes == (0, 1, 2) and plan.rows == 2 * n
    assert sum(len(part) for bucket in buckets for part in bucket.groups) == 0
    with dask.config.set({"dask-auc.numba": compiled}):
        with pytest.raises(ValueError, match=binary_only_message("roc_auc_ci", [0, 1, 2])):
            dask_auc.roc_auc_ci(dask_array(y, cuts), dask_array(s, cuts))


def test_binary_metrics_of_one_input_still_share_one_sort():
    rng = np.random.default_rng(4)
    y, s = rng.integers(0, 2, 800), np.round(rng.random(800), 2)
    frame = dask_frame({"y": y, "s": s}, [0, 300, 300, 800])
    lazies = [
        dask_auc.roc_auc_score(frame["y"], frame["s"], compute=False),
        dask_auc.roc_auc_score(frame["y"], frame["s"], max_fpr=0.2, compute=False),
        dask_auc.partial_roc_auc_score(frame["y"], frame["s"], fpr_range=(0.1, 0.3), compute=False),
        dask_auc.roc_auc_ci(frame["y"], frame["s"], compute=False),
    ]
    plans = {k for lazy in lazies for k in lazy.__dask_graph__() if "auc-plan" in str(k)}
    assert len(plans) == 1
    auc, partial, *_ = dask_auc.compute(*lazies)
    assert auc == pytest.approx(sklearn_auc(y, s), abs=1e-12)
    assert partial == pytest.approx(sklearn_auc(y, s, max_fpr=0.2), abs=1e-12)


@settings(max_examples=10)
@given(data=st.data())
def test_any_partitioning_names_every_class(data):
    n_classes = data.draw(st.integers(3, 6))
    n = data.draw(st.integers(n_classes, 80))
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, n - n_classes)])
    rng.shuffle(y)
    s = np.round(rng.random(n), 1)
    cuts = data.draw(boundaries(n))
    message = binary_only_message("partial_roc_auc_score", list(range(n_classes)))
    with pytest.raises(ValueError, match=message):
        dask_auc.partial_roc_auc_score(
            dask_array(y, cuts), dask_array(s, cuts), tpr_range=(0.2, 0.9)
        )
    expected = sklearn_error(sklearn_auc, y, s, multi_class="ovo")
    with pytest.raises(ValueError, match=re.escape(expected)):
        dask_auc.roc_auc_score(dask_array(y, cuts), dask_array(s, cuts), multi_class="ovo")


# --- item 6: the GAUC warning ------------------------------------------------------------


def test_gauc_undefined_warning_is_sklearns_class_at_the_callers_line():
    # every group holds one class: no group counts towards GAUC
    frame = dask_frame(
        {"user": [1, 1, 2, 2, 3], "y": [0, 0, 1, 1, 0], "s": [0.1, 0.4, 0.3, 0.8, 0.5]},
        [0, 2, 2, 5],
    )
    with pytest.warns(SklearnUndefinedMetricWarning, match="GAUC is not defined") as caught:
        result = dask_auc.grouped_roc_auc_score(frame, by="user", label="y", score="s")
    assert np.isnan(result.gauc)
    (warning,) = caught
    assert issubclass(warning.category, dask_auc.UndefinedMetricWarning)
    assert warning.filename == __file__
    lazy = dask_auc.grouped_roc_auc_score(frame, by="user", label="y", score="s", compute=False)
    for compute in (lazy.compute, lambda: dask_auc.compute(lazy)[0]):
        with pytest.warns(SklearnUndefinedMetricWarning, match="GAUC is not defined") as caught:
            compute()
        assert [w.filename for w in caught] == [__file__]


def test_gauc_of_all_zero_weights_warns_with_sklearns_class():
    frame = dask_frame(
        {"user": [1, 1, 2, 2], "y": [0, 1, 0, 1], "s": [0.1, 0.4, 0.3, 0.8], "w": [0.0] * 4},
        [0, 1, 4],
    )
    with pytest.warns(SklearnUndefinedMetricWarning, match="nonzero sample_weight") as caught:
        dask_auc.grouped_roc_auc_score(frame, by="user", label="y", score="s", sample_weight="w")
    assert [w.filename for w in caught] == [__file__]


# --- item 8: rows without a group --------------------------------------------------------


def _frame_with_missing_keys(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 900
    frame = pd.DataFrame(
        {
            "user": rng.integers(0, 12, n).astype(float),
            "country": rng.choice(["de", "fr", "it"], n).astype(object),
            "y": rng.integers(0, 2, n),
            "s": np.round(rng.random(n), 2),
        }
    )
    frame.loc[rng.random(n) < 0.1, "user"] = np.nan
    frame.loc[rng.random(n) < 0.05, "country"] = None
    frame.loc[:40, "user"] = np.nan  # a partition of missing keys only
    return frame


@pytest.mark.parametrize("by", ["user", ["country", "user"]])
def test_rows_without_a_group_are_counted_and_warned(by):
    frame = _frame_with_missing_keys(5)
    keys = [by] if isinstance(by, str) else by
    missing = int(frame[keys].isna().any(axis=1).sum())
    assert missing > 40
    ddf = dask_frame(frame.to_dict("series"), [0, 41, 41, 500, 900])
    expected = f"{missing:,} of 900 rows have a missing key in by={by!r}"
    with pytest.warns(UserWarning, match=re.escape(expected)) as caught:
        result = dask_auc.grouped_roc_auc_score(ddf, by=by, label="y", score="s")
    assert [w.filename for w in caught] == [__file__]
    assert result.rows_without_group == missing
    # the groups are pandas' groupby(dropna=True) groups, each with sklearn's AUC
    groups = frame.dropna(subset=keys).groupby(keys)
    assert len(result.per_group) == groups.ngroups
    for key, group in groups:
        key = key if len(keys) > 1 else key[0]
        expected = sklearn_auc(group["y"], group["s"])
        assert result.per_group.loc[key, "auc"] == pytest.approx(expected, abs=1e-12)


def test_no_warning_when_every_row_has_a_key():
    frame = _frame_with_missing_keys(6).dropna()
    ddf = dd.from_pandas(frame, npartitions=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score="s")
    assert result.rows_without_group == 0


@pytest.mark.parametrize("kind", ["Int64", "string"])
def test_missing_keys_of_nullable_dtypes_are_counted(kind):
    frame = _frame_with_missing_keys(7)
    frame["user"] = frame["user"].astype("Int64")
    if kind == "string":
        frame["user"] = frame["user"].astype("string")
    missing = int(frame["user"].isna().sum())
    ddf = dd.from_pandas(frame, npartitions=4)
    with pytest.warns(UserWarning, match=f"{missing:,} of 900 rows have a missing key"):
        result = dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score="s")
    assert result.rows_without_group == missing


@pytest.mark.filterwarnings(IGNORE_DASK_READER_NOTICE)
def test_cli_says_how_many_rows_had_no_group(tmp_path, capsys):
    frame = _frame_with_missing_keys(8)
    for i, cut in enumerate([(0, 300), (300, 900)]):
        frame.iloc[slice(*cut)].to_parquet(tmp_path / f"part-{i}.parquet", index=False)
    missing = int(frame["user"].isna().sum())
    arguments = [tmp_path, "--label", "y", "--score", "s", "--by", "user"]
    status, out, err = run_cli(capsys, *arguments, "--json")
    assert status == 0 and err == ""
    report = json.loads(out)
    assert report["rows_without_group"] == missing
    assert report["rows"] == 900
    with pytest.warns(UserWarning, match="rows have a missing key"):
        grouped = dask_auc.grouped_roc_auc_score(frame, by="user", label="y", score="s")
    assert report["gauc"] == grouped.gauc
    status, out, err = run_cli(capsys, *arguments)
    assert status == 0 and err == ""
    (line,) = [line for line in out.splitlines() if "rows without a group" in line]
    assert line.split()[-1] == f"{missing:,}"


# --- item 5: files that disagree, and empty directories ----------------------------------


@pytest.fixture
def no_compute(monkeypatch):
    """Fail if the command line computes anything: the checks must come first."""

    def refuse(*args, **kwargs):
        raise AssertionError("computed before the error")

    monkeypatch.setattr(cli, "_compute", refuse)


def _scored(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {"y": rng.integers(0, 2, n), "score": rng.random(n), "user": rng.integers(0, 5, n)}
    )


@pytest.mark.parametrize("kind", ["parquet", "csv"])
@pytest.mark.parametrize("odd", [0, 2])  # the file dask reads its columns from, or a later one
def test_a_file_lacking_a_column_is_named_in_one_line(tmp_path, capsys, no_compute, kind, odd):
    for i in range(3):
        part = _scored(40, i)
        if i == odd:
            part = part.rename(columns={"score": "scroe"})
        if kind == "csv":
            part.to_csv(tmp_path / f"part-{i}.csv", index=False)
        else:
            part.to_parquet(tmp_path / f"part-{i}.parquet", index=False)
    odd_file = tmp_path / f"part-{odd}.{kind}"
    for target in (tmp_path, tmp_path / f"*.{kind}"):
        status, out, err = run_cli(capsys, target, "--label", "y", "--score", "score")
        assert_one_line_error(
            status, out, err, f"column 'score' not found in {odd_file}", "2 of 3 files", "scroe"
        )


def test_a_column_in_no_file_keeps_the_message_on_the_whole_input(tmp_path, capsys, no_compute):
    for i in range(2):
        _scored(30, i).to_parquet(tmp_path / f"part-{i}.parquet", index=False)
    status, out, err = run_cli(capsys, tmp_path, "--label", "y", "--score", "prob")
    assert_one_line_error(
        status, out, err, f"column 'prob' not found in {tmp_path}; available columns: y, score"
    )


@pytest.mark.filterwarnings(IGNORE_DASK_READER_NOTICE)
def test_hive_partition_columns_are_not_missing(tmp_path, capsys):
    frame = _scored(600, 9)
    for user, part in frame.groupby("user"):
        folder = tmp_path / f"user={user}"
        folder.mkdir()
        part.drop(columns="user").to_parquet(folder / "part.parquet", index=False)
    status, out, err = run_cli(
        capsys, tmp_path, "--label", "y", "--score", "score", "--by", "user", "--json"
    )
    assert status == 0, err
    report = json.loads(out)
    assert report["roc_auc"] == pytest.approx(sklearn_auc(frame["y"], frame["score"]), abs=1e-12)
    assert report["groups"] == 5 and report["rows_without_group"] == 0


def test_an_unreadable_file_is_named(tmp_path, capsys, no_compute):
    _scored(30, 0).to_parquet(tmp_path / "part-0.parquet", index=False)
    (tmp_path / "part-1.parquet").write_bytes(b"not parquet at all")
    status, out, err = run_cli(capsys, tmp_path, "--label", "y", "--score", "score")
    assert_one_line_error(
        status, out, err, f"cannot read the columns of {tmp_path / 'part-1.parquet'}"
    )


@pytest.mark.parametrize("content", [None, "notes.txt", "_SUCCESS"])
def test_an_empty_directory_says_no_files_were_found(tmp_path, capsys, no_compute, content):
    if content is not None:
        (tmp_path / content).write_text("nothing to read")
    status, out, err = run_cli(capsys, tmp_path, "--label", "y", "--score", "score")
    assert_one_line_error(
        status, out, err, f"no Parquet or CSV files found in {str(tmp_path)!r}", ".parquet", ".csv"
    )


@pytest.mark.filterwarnings(IGNORE_DASK_READER_NOTICE)
def test_a_column_missing_in_a_task_is_one_line(tmp_path, capsys):
    """fsspec URLs are not listed ahead (a request per file): pandas' KeyError in a
    task still ends as one line."""
    for i in range(2):
        part = _scored(30, i)
        if i == 1:
            part = part.rename(columns={"score": "scroe"})
        part.to_parquet(tmp_path / f"part-{i}.parquet", index=False)
    status, out, err = run_cli(capsys, f"file://{tmp_path}", "--label", "y", "--score", "score")
    assert_one_line_error(status, out, err, "a file lacks a column the options name", "score")
