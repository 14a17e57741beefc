"""The ``dask-auc`` command on generated files.

Answers are parsed from ``--json`` and compared with scikit-learn on the same
rows; errors are checked for their exit status and a one-line message.  Cluster
runs share the session's process cluster (``--scheduler ADDRESS``).  Claims
about the process (its exit status, a closed stdout, a terminal, its own local
cluster's workers writing to its stderr) run the installed script as a user
does; the others call :func:`dask_auc.cli.main` here, output captured: the same
command without ~2-3 s of interpreter, dask and numba start-up per run.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import warnings
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from scipy.stats import ks_2samp
from sklearn.metrics import average_precision_score as sklearn_ap
from sklearn.metrics import roc_auc_score as sklearn_auc

from threshold_references import GAINS_COLUMNS, gains_reference, operating_point_reference

SCRIPT = Path(sys.executable).with_name("dask-auc")


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    """Scored rows with heavy ties, zero weights and groups lacking a class."""
    rng = np.random.default_rng(6)
    n = 30_000
    label = (rng.random(n) < 0.2).astype(np.int64)
    group = rng.integers(0, 40, n)
    label[group == 7] = 0  # a group without positives
    score = np.round(rng.random(n) + 0.3 * label, 2)  # ~130 distinct scores
    weight = rng.choice([0.0, 0.5, 1.0, 3.0], size=n)
    return pd.DataFrame({"y": label, "p": score, "w": weight, "user": group})


@pytest.fixture(scope="module")
def files(rows, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("cli")

    def pieces(frame: pd.DataFrame, n: int) -> list[pd.DataFrame]:
        cuts = np.linspace(0, len(frame), n + 1).astype(int)
        return [frame.iloc[a:b] for a, b in zip(cuts[:-1], cuts[1:], strict=True)]

    (root / "scores.parquet").mkdir()
    for i, part in enumerate(pieces(rows, 7)):  # uneven: 4285 or 4286 rows
        part.to_parquet(root / "scores.parquet" / f"part-{i}.parquet", index=False)
    as_text = rows.assign(y=np.where(rows["y"] == 1, "yes", "no"))
    (root / "csv").mkdir()
    for i, part in enumerate(pieces(as_text, 3)):
        part.to_csv(root / "csv" / f"part-{i}.csv", index=False)
    broken = rows.head(2000).astype({"p": float, "y": int})
    broken.loc[1500, "p"] = np.nan
    broken.to_csv(root / "nan-score.csv", index=False)
    broken.assign(p=rows["p"].head(2000), y=np.arange(2000) % 3).to_parquet(root / "three.parquet")
    broken.to_parquet(root / "nan-score.parquet")
    head = rows.head(2000)
    head.assign(y=head["y"] + 1).to_parquet(root / "one-two.parquet")
    head.assign(y=head["y"] == 1).to_parquet(root / "bool.parquet")
    head.assign(p=head["p"].astype(str)).to_parquet(root / "text-score.parquet")
    text = head.astype({"p": object})
    text.loc[1500, "p"] = "high"
    text.to_csv(root / "text-score.csv", index=False)
    clicked = rows.assign(y=np.where(rows["y"] == 1, "clicked", "not"))
    clicked.to_parquet(root / "clicked.parquet", index=False)
    return root


def run(
    *args: str, cwd: Path | None = None, stderr: int | None = None, module: bool = False
) -> subprocess.CompletedProcess:
    """Run the installed ``dask-auc`` (or ``python -m dask_auc``) with ``args``."""
    assert SCRIPT.exists(), f"{SCRIPT} missing: `pip install -e .` installs the console script"
    command = [sys.executable, "-m", "dask_auc"] if module else [str(SCRIPT)]
    return subprocess.run(
        [*command, *map(str, args)],
        capture_output=stderr is None,
        stdout=subprocess.PIPE if stderr is not None else None,
        stderr=stderr,
        text=True,
        timeout=240,
        cwd=cwd,
    )


def in_process(capsys, *args: str) -> tuple[int, str, str]:
    """``dask-auc ARGS`` through its entry point in this process: (status, stdout, stderr)."""
    from dask_auc.cli import main as entry

    # dask's Parquet reader on files without an index: a pandas 3.1 deprecation, which the
    # command's process hides (a DeprecationWarning raised outside __main__)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The inplace keyword", DeprecationWarning)
        try:
            status = entry([str(a) for a in args])
        except SystemExit as stopped:  # argparse's usage errors and --version
            status = stopped.code
    out, err = capsys.readouterr()
    return status, out, err


def answers(capsys, *args: str) -> dict:
    status, out, err = in_process(capsys, *args, "--json")
    assert status == 0, err
    return json.loads(out)


@pytest.mark.cluster
def test_parquet_directory_answers_equal_sklearn(files, rows, process_cluster, capsys):
    got = answers(
        capsys, files / "scores.parquet", "--label", "y", "--score", "p", "--weight", "w",
        "--max-fpr", "0.1", "--scheduler", process_cluster.scheduler_address,
    )  # fmt: skip
    y, p, w = rows["y"], rows["p"], rows["w"]
    assert got["roc_auc"] == pytest.approx(sklearn_auc(y, p, sample_weight=w), abs=1e-12)
    assert got["partial_auc"] == pytest.approx(
        sklearn_auc(y, p, sample_weight=w, max_fpr=0.1), abs=1e-12
    )
    assert got["average_precision"] == pytest.approx(sklearn_ap(y, p, sample_weight=w), abs=1e-12)
    assert (got["rows"], got["positives"], got["negatives"]) == (
        len(rows), int(y.sum()), int((y == 0).sum())
    )  # fmt: skip
    assert got["positive_weight"] == pytest.approx(w[y == 1].sum())
    assert (got["format"], got["partitions"], got["positive_class"]) == ("parquet", 7, 1)


@pytest.mark.cluster
def test_csv_glob_with_string_labels_answers_equal_sklearn(files, rows, process_cluster, capsys):
    got = answers(
        capsys, files / "csv" / "part-*.csv", "--label", "y", "--score", "p", "--pos-label", "yes",
        "--scheduler", process_cluster.scheduler_address,
    )  # fmt: skip
    y = np.where(rows["y"] == 1, "yes", "no")
    assert (got["positive_class"], got["pos_label"]) == ("yes", "yes")
    assert got["roc_auc"] == pytest.approx(sklearn_auc(y, rows["p"]), abs=1e-12)
    assert got["average_precision"] == pytest.approx(
        sklearn_ap(y, rows["p"], pos_label="yes"), abs=1e-12
    )
    assert (got["format"], got["rows"]) == ("csv", len(rows))


@pytest.mark.cluster
def test_grouped_auc_per_group_table_and_curves(files, rows, process_cluster, tmp_path, capsys):
    got = answers(
        capsys, files / "scores.parquet", "--label", "y", "--score", "p", "--by", "user",
        "--per-group", tmp_path / "groups.csv", "--curve", tmp_path / "curves.png",
        "--scheduler", process_cluster.scheduler_address,
    )  # fmt: skip
    table = pd.read_csv(tmp_path / "groups.csv", index_col="user")
    expected = {
        user: sklearn_auc(part["y"], part["p"])
        for user, part in rows.groupby("user")
        if part["y"].nunique() == 2
    }
    assert table.loc[7, "n_pos"] == 0 and np.isnan(table.loc[7, "auc"])
    np.testing.assert_allclose(
        table.loc[list(expected), "auc"], list(expected.values()), atol=1e-12
    )
    both = table.loc[list(expected)]
    gauc = np.average(both["auc"], weights=both["n_pos"] + both["n_neg"])
    assert got["gauc"] == pytest.approx(gauc, abs=1e-12)
    assert (got["groups"], got["groups_with_both_classes"]) == (40, 39)
    assert got["gauc_weight"] == "rows"
    assert got["group_auc_quantiles"]["median"] == pytest.approx(np.median(list(expected.values())))
    png = (tmp_path / "curves.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 20_000


@pytest.mark.cluster
def test_table_on_its_own_local_cluster(files, rows):
    done = run(files / "scores.parquet", "--label", "y", "--score", "p", "--workers", "1")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "ROC AUC" in text and f"{sklearn_auc(rows['y'], rows['p']):.10f}" in text
    assert f"{len(rows):,}" in text
    assert "on a local cluster (workers: 1, threads: " in text
    assert done.stderr == ""


@pytest.mark.parametrize(
    ("arguments", "status", "message"),
    [
        (["missing.parquet", "--label", "y", "--score", "p"], 1,
         "no such file or directory: 'missing.parquet'"),
        (["csv/none-*.csv", "--label", "y", "--score", "p"], 1, "no files match"),
        (["scores.parquet", "--label", "y", "--score", "prob"], 1,
         "column 'prob' not found in scores.parquet; available columns: y, p, w, user"),
        (["three.parquet", "--label", "y", "--score", "p"], 1,
         "label column 'y' is not binary: it holds 3 values (0, 1, 2)"),
        (["clicked.parquet", "--label", "y", "--score", "p"], 1,
         "label column 'y' holds 'clicked' and 'not': pass --pos-label"),
        (["one-two.parquet", "--label", "y", "--score", "p"], 1,
         "label column 'y' holds 1 and 2: pass --pos-label"),
        (["clicked.parquet", "--label", "y", "--score", "p", "--pos-label", "Clicked"], 1,
         "--pos-label 'Clicked' is not a value of label column 'y', which holds 'clicked' and"),
        (["bool.parquet", "--label", "y", "--score", "p", "--pos-label", "1.5"], 1,
         "--pos-label '1.5' is not a value of label column 'y', which holds False and True"),
        (["text-score.parquet", "--label", "y", "--score", "p"], 1,
         "score column 'p': dtype='numeric' is not compatible with arrays of bytes/strings"),
        (["text-score.csv", "--label", "y", "--score", "p"], 1,
         "score column 'p': could not convert string to float: 'high'"),
        (["text-score.csv", "--label", "y", "--score", "p", "--weight", "w"], 1,
         "score column 'p' or weight column 'w': could not convert string to float: 'high'"),
        (["scores.parquet", "--label", "y", "--score", "p", "--max-fpr", "0"], 2,
         "argument --max-fpr: must be a number in (0, 1], got '0'"),
        (["scores.parquet", "--label", "y"], 2, "the following arguments are required: --score"),
        (["scores.parquet", "--label", "y", "--score", "p", "--per-group", "x.csv"], 2,
         "--per-group needs --by"),
        (["scores.parquet", "--label", "y", "--score", "p", "--threshold-at", "fpr=1.5"], 2,
         "argument --threshold-at: must be NAME=X with NAME one of fpr, tpr, precision, recall"),
        (["scores.parquet", "--label", "y", "--score", "p", "--threshold-at", "auc=0.5"], 2,
         "and X in [0, 1], got 'auc=0.5'"),
        (["scores.parquet", "--label", "y", "--score", "p", "--best", "kappa"], 2,
         "argument --best: invalid choice: 'kappa'"),
        (["scores.parquet", "--label", "y", "--score", "p", "--gains", "0"], 2,
         "argument --gains: must be a positive integer, got '0'"),
    ],
)  # fmt: skip
def test_errors_are_one_line_with_an_exit_status(
    files, arguments, status, message, capsys, monkeypatch
):
    # the missing file through `python -m dask_auc`, a process; the others through main()
    # (its status is the command's; an exception it let out would fail the test)
    if arguments[0] == "missing.parquet":
        done = run(*arguments, "--scheduler", "threads", cwd=files, module=True)
        code, out, err = done.returncode, done.stdout, done.stderr
    else:
        monkeypatch.chdir(files)  # the paths as a user in that directory types them
        code, out, err = in_process(capsys, *arguments, "--scheduler", "threads")
    assert code == status
    assert out == ""
    last = err.strip().splitlines()[-1]
    assert last.startswith("dask-auc: error: ") and message in last, err
    assert "Traceback" not in err
    if status == 1:
        assert err.count("\n") == 1  # usage errors add the usage lines above


@pytest.mark.cluster
def test_pos_label_names_the_positive_class_of_string_labels(files, rows, process_cluster, capsys):
    got = answers(
        capsys, files / "clicked.parquet", "--label", "y", "--score", "p", "--pos-label", "clicked",
        "--weight", "w", "--by", "user", "--scheduler", process_cluster.scheduler_address,
    )  # fmt: skip
    clicked = rows["y"] == 1  # "not" is the greater string: the default rule would pick it
    p, w = rows["p"], rows["w"]
    assert got["roc_auc"] == pytest.approx(sklearn_auc(clicked, p, sample_weight=w), abs=1e-12)
    assert got["average_precision"] == pytest.approx(
        sklearn_ap(clicked, p, sample_weight=w), abs=1e-12
    )
    assert (got["pos_label"], got["positive_class"], got["negative_class"]) == (
        "clicked", "clicked", "not"
    )  # fmt: skip
    assert (got["positives"], got["negatives"]) == (int(clicked.sum()), int((~clicked).sum()))
    assert got["positive_weight"] == pytest.approx(w[clicked].sum())
    per_user = [
        (sklearn_auc(part["y"] == 1, part["p"], sample_weight=part["w"]), part["w"].sum())
        for _, part in rows[rows["w"] > 0].groupby("user")
        if part["y"].nunique() == 2
    ]
    auc, weight = zip(*per_user, strict=True)
    assert got["gauc"] == pytest.approx(np.average(auc, weights=weight), abs=1e-12)
    assert got["gauc_weight"] == "sample_weight"


@pytest.mark.parametrize(
    ("path", "pos_label", "positive"),
    [("scores.parquet", "0", 0), ("bool.parquet", "true", True), ("bool.parquet", "False", False)],
)
def test_pos_label_is_read_with_the_label_column_dtype(
    files, rows, path, pos_label, positive, capsys
):
    got = answers(
        capsys, files / path, "--label", "y", "--score", "p", "--pos-label", pos_label,
        "--scheduler", "threads",
    )  # fmt: skip
    frame = pd.read_parquet(files / path)
    hits = frame["y"] == positive
    assert got["positive_class"] is positive or got["positive_class"] == positive
    assert type(got["positive_class"]) is type(positive)
    assert got["roc_auc"] == pytest.approx(sklearn_auc(hits, frame["p"]), abs=1e-12)
    assert got["average_precision"] == pytest.approx(sklearn_ap(hits, frame["p"]), abs=1e-12)
    assert (got["positives"], got["negatives"]) == (int(hits.sum()), int((~hits).sum()))


def test_gauc_line_says_how_groups_are_weighted(files, capsys):
    arguments = [files / "scores.parquet", "--label", "y", "--score", "p", "--by", "user"]
    arguments += ["--scheduler", "threads"]
    status, weighted, err = in_process(capsys, *arguments, "--weight", "w")
    assert status == 0, err
    status, plain, err = in_process(capsys, *arguments)
    assert status == 0, err
    assert "GAUC (groups weighted by summed 'w')" in weighted
    assert "row-weighted" not in weighted
    assert "GAUC (groups weighted by rows)" in plain


def test_closed_stdout_ends_quietly(files):
    # a reader that is gone before the report comes (`dask-auc ... | head -1` once head has
    # its line): Python's advice for SIGPIPE, no traceback, status 1
    command = [str(SCRIPT), files / "scores.parquet", "--label", "y", "--score", "p", "--json"]
    with subprocess.Popen(
        [*command, "--scheduler", "threads"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        process.stdout.close()
        stderr = process.stderr.read()
        status = process.wait(timeout=240)
    assert "Traceback" not in stderr and "Broken" not in stderr, stderr
    assert (status, stderr) == (1, "")


@pytest.mark.cluster
def test_nan_score_on_the_default_local_cluster_is_one_line(files):
    # the workers are processes of our own LocalCluster: their logs reach this terminal
    done = run(files / "nan-score.parquet", "--label", "y", "--score", "p", "--workers", "1")
    assert done.returncode == 1
    assert done.stderr == "dask-auc: error: score column 'p': Input contains NaN.\n"


@pytest.mark.cluster
def test_nan_score_raised_on_a_worker_is_one_line(files, process_cluster):
    done = run(
        files / "nan-score.csv", "--label", "y", "--score", "p",
        "--scheduler", process_cluster.scheduler_address,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr == "dask-auc: error: score column 'p': Input contains NaN.\n"


def test_progress_bar_goes_to_a_terminal_not_to_the_json(files, capsys, monkeypatch):
    arguments = [files / "scores.parquet", "--label", "y", "--score", "p", "--json"]
    controller, terminal = pty.openpty()
    try:
        done = run(*arguments, "--scheduler", "threads", stderr=terminal)
        os.close(terminal)
        terminal = -1
        shown = b""
        while chunk := _read(controller):
            shown += chunk
    finally:
        os.close(controller)
        if terminal != -1:
            os.close(terminal)
    assert done.returncode == 0
    assert b"100% Completed" in shown
    assert json.loads(done.stdout)["rows"] == 30_000
    # --quiet, on a stderr that says it is a terminal (a pipe would hide the bar anyway)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert "100% Completed" in in_process(capsys, *arguments, "--scheduler", "threads")[2]
    assert in_process(capsys, *arguments, "--scheduler", "threads", "--quiet")[::2] == (0, "")


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except OSError:  # the terminal's other end closed
        return b""


def test_thresholds_gains_ks_and_gini_equal_their_references(files, rows, capsys):
    """--threshold-at, --best and --gains against the brute-force scans; KS against scipy."""
    got = answers(
        capsys, files / "scores.parquet", "--label", "y", "--score", "p", "--scheduler", "threads",
        "--threshold-at", "fpr=0.05", "--threshold-at", "recall=0.9", "--best", "youden",
        "--best", "f1", "--gains", "10",
    )  # fmt: skip
    y, p = rows["y"].to_numpy(), rows["p"].to_numpy()
    assert got["gini"] == 2 * sklearn_auc(y, p) - 1
    # dask-auc's statistic is the exact gap rounded once, scipy's a difference of two floats
    assert got["ks"] == pytest.approx(ks_2samp(p[y == 1], p[y == 0]).statistic, rel=1e-14)
    targets = [("fpr", 0.05), ("recall", 0.9), ("youden", None), ("f1", None)]
    names = ["fpr=0.05", "recall=0.9", "best=youden", "best=f1"]
    assert [point["target"] for point in got["operating_points"]] == names
    for point, (kind, value) in zip(got["operating_points"], targets, strict=True):
        expected = operating_point_reference(y, p, kind=kind, value=value)
        for field, want in expected.items():
            assert point[field] == want, (kind, field)
    table = gains_reference(y, p, n_bins=10)
    assert [row["group"] for row in got["gains"]] == table["group"].tolist()
    for column in GAINS_COLUMNS:
        assert [row[column] for row in got["gains"]] == table[column].tolist(), column
    _, text, _ = in_process(
        capsys, files / "scores.parquet", "--label", "y", "--score", "p", "--scheduler", "threads",
        "--threshold-at", "fpr=0.05", "--best", "f1", "--gains", "4",
    )  # fmt: skip
    (gini,) = [line for line in text.splitlines() if "Gini (2 AUC - 1)" in line]
    assert gini.endswith(f"{got['gini']:.10f}")
    assert "threshold at FPR <= 0.05" in text and "best threshold (f1)" in text
    assert "gains table (4 bins, ties never split)" in text and "cumulative_lift" in text


def test_calibration_overall_and_per_group_equal_sklearn(rows, tmp_path, capsys):
    from sklearn.metrics import brier_score_loss, log_loss

    probabilities = rows.assign(p=rows["p"] / 2)  # in [0, 0.65]
    path = tmp_path / "probabilities.parquet"
    probabilities.to_parquet(path, index=False)
    report = answers(
        capsys, path, "--label", "y", "--score", "p", "--weight", "w", "--by", "user",
        "--calibration", "--per-group", tmp_path / "groups.csv", "--scheduler", "threads",
    )  # fmt: skip
    y, p, w = (probabilities[c].to_numpy() for c in ("y", "p", "w"))
    assert report["log_loss"] == pytest.approx(log_loss(y, p, sample_weight=w), rel=1e-12)
    assert report["brier_score"] == pytest.approx(
        brier_score_loss(y, p, sample_weight=w), rel=1e-12
    )
    rate = np.average(y, weights=w)
    entropy = -(rate * np.log(rate) + (1 - rate) * np.log1p(-rate))
    assert report["normalized_entropy"] == pytest.approx(report["log_loss"] / entropy, rel=1e-12)
    assert report["group_calibration"]["calibration"] == pytest.approx(
        np.dot(p, w) / np.dot(y, w), rel=1e-12
    )
    table = pd.read_csv(tmp_path / "groups.csv", index_col="user")
    rows_7 = probabilities[probabilities["user"] == 7]  # no positive: NaN calibration
    assert np.isnan(table.loc[7, "calibration"]) and np.isnan(table.loc[7, "normalized_entropy"])
    assert table.loc[7, "log_loss"] == pytest.approx(
        log_loss(rows_7["y"], rows_7["p"], sample_weight=rows_7["w"], labels=[0, 1]), rel=1e-9
    )
    status, text, err = in_process(
        capsys, path, "--label", "y", "--score", "p", "--calibration", "--scheduler", "threads"
    )
    assert status == 0, err
    assert "normalized entropy" in text and "Brier score" in text


# the option parser's errors and the text report's formatting, through main() in this process


def usage_error(capsys, *arguments: str) -> str:
    """The last stderr line of ``dask-auc ARGUMENTS``, which must stop with status 2."""
    status, out, err = in_process(capsys, *arguments, "--scheduler", "threads")
    assert status == 2 and out == "" and "Traceback" not in err
    return err.strip().splitlines()[-1]


#: a valid value of every option that takes one
ONE_VALUE = {
    "--label": "y", "--pos-label": "1", "--score": "p", "--weight": "w", "--by": "user",
    "--per-group": "groups.csv", "--max-fpr": "0.5", "--gains": "10", "--curve": "out.png",
    "--scheduler": "threads", "--workers": "1", "--state-out": "day.state",
}  # fmt: skip


def test_every_single_valued_option_refuses_a_second_value(capsys):
    from dask_auc.cli.parser import build_parser as _parser

    # argparse's action list: every option that stores one value must be in ONE_VALUE
    stored = {
        action.option_strings[-1]
        for action in _parser()._actions
        if action.option_strings and action.nargs is None and not isinstance(action.default, list)
    }
    assert stored == set(ONE_VALUE)
    for option, value in ONE_VALUE.items():
        base = {"--label": "y", "--score": "p", **({option: value} if option != "--by" else {})}
        arguments = [item for pair in base.items() for item in pair]
        if option in ("--per-group", "--by"):
            arguments += ["--by", "user"]
        last = usage_error(capsys, "s.parquet", *arguments, option, value)
        assert f"argument {option}: given more than once" in last, last


def test_version_prints_the_installed_version(capsys):
    from importlib.metadata import version

    assert in_process(capsys, "--version")[:2] == (0, f"dask-auc {version('dask-auc')}\n")


def test_ks_threshold_has_ten_digits_in_the_text_and_all_in_the_json(capsys, tmp_path):
    # separated classes: KS 1 at the lowest positive score, 2/3
    frame = pd.DataFrame({"y": [0, 0, 1, 1], "p": [0.1, 0.2, 2 / 3, 0.9]})
    frame.to_parquet(tmp_path / "s.parquet")
    arguments = [tmp_path / "s.parquet", "--label", "y", "--score", "p", "--scheduler", "threads"]
    assert answers(capsys, *arguments)["ks_threshold"] == 2 / 3
    status, text, _ = in_process(capsys, *arguments, "--best", "youden")
    assert status == 0
    (ks,) = [line for line in text.splitlines() if "KS statistic" in line]
    assert ks.endswith("1.0000000000 (at score >= 0.6666666667)"), ks
    (best,) = [line for line in text.splitlines() if "best threshold" in line]
    assert "0.6666666667  (TPR" in best, best


def test_a_default_report_is_one_computation_and_label_errors_still_name_the_column(
    rows, tmp_path, capsys, monkeypatch
):
    """Without --pos-label, weights or anything built on the positive class, the labels are counted
    by the ROC's own sort (its labels and class totals) in the metrics' one computation; labels
    that break it (missing ones, one class) get the count pass's messages all the same."""
    import dask_auc.cli as cli

    computed = []
    compute = cli._compute
    monkeypatch.setattr(
        cli, "_compute", lambda lazy, *a: computed.append(set(lazy)) or compute(lazy, *a)
    )
    head = rows.head(3000)
    head.to_parquet(tmp_path / "ok.parquet")
    got = answers(capsys, tmp_path / "ok.parquet", "--label", "y", "--score", "p")
    assert len(computed) == 1 and {"0:labels", "0:totals"} <= computed[0]
    y = head["y"].to_numpy()
    assert (got["rows"], got["positives"], got["negatives"]) == (3000, y.sum(), (y == 0).sum())
    assert got["roc_auc"] == pytest.approx(sklearn_auc(y, head["p"]), abs=1e-12)
    computed.clear()
    assert answers(
        capsys, tmp_path / "ok.parquet", "--label", "y", "--score", "p", "--pos-label", "1"
    ) == {**got, "pos_label": "1", "seconds": mock.ANY}
    assert len(computed) == 2  # --pos-label is read as the labels' type: counted first
    missing = head.astype({"y": float})
    missing.loc[[10, 20], "y"] = np.nan
    missing.to_parquet(tmp_path / "missing.parquet")
    head.assign(y=1).to_parquet(tmp_path / "one.parquet")
    for name, message in (
        ("missing", "label column 'y' has 2 missing values"),
        ("one", "label column 'y' holds one class only (1): the ROC AUC is not defined"),
    ):
        status, out, err = in_process(
            capsys, tmp_path / f"{name}.parquet", "--label", "y", "--score", "p"
        )
        assert status == 1 and out == ""
        assert err.strip() == f"dask-auc: error: {message}"
    # a process of its own: the metrics' warnings (no positive: average precision's) are held
    # until the labels are checked, so the error is all that is printed, as after a count pass
    head.assign(y=0).to_parquet(tmp_path / "zero.parquet")
    done = run(tmp_path / "zero.parquet", "--label", "y", "--score", "p", "--scheduler", "threads")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "dask-auc: error: label column 'y' holds one class only (0): the ROC AUC is not defined\n"
    )
