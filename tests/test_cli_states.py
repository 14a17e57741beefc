"""``dask-auc --state-out`` and ``dask-auc --states``: daily states from the command line.

Days of scored rows are written as Parquet files; each run saves the day's
state, and the window's certified AUC from the files is compared with
scikit-learn on the concatenated rows.  As in ``test_cli.py``, the command
runs through :func:`dask_auc.cli.main` in this process (output captured),
and once as the installed script where the process itself is the claim; the
benchmark script ``benchmarks/bench_states.py`` runs once, small.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score as sklearn_auc

import dask_auc

SCRIPT = Path(sys.executable).with_name("dask-auc")
BENCH_STATES = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_states.py"
DAYS = 4


@pytest.fixture(scope="module")
def days() -> list[pd.DataFrame]:
    """Four days of click rows; scores rounded to 3 decimals (exact states), weights with zeros."""
    rng = np.random.default_rng(31)
    frames = []
    for day in range(DAYS):
        n = 3000 + 500 * day
        y = (rng.random(n) < 0.15).astype(np.int64)
        p = np.round(1 / (1 + np.exp(-(rng.normal(size=n) + 1.2 * y - 1.5 + 0.1 * day))), 3)
        w = rng.choice([0.0, 1.0, 2.5], size=n)
        frames.append(pd.DataFrame({"y": y, "p": p, "w": w}))
    return frames


@pytest.fixture(scope="module")
def folder(days, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("days")
    for day, frame in enumerate(days):
        frame.to_parquet(root / f"day{day}.parquet", index=False)
        frame.assign(y=np.where(frame["y"] == 1, "clicked", "not")).to_parquet(
            root / f"clicked{day}.parquet", index=False
        )
    return root


def in_process(capsys, *args: object) -> tuple[int, str, str]:
    """``dask-auc ARGS`` through its entry point here: (status, stdout, stderr)."""
    from dask_auc.cli import main as entry

    with warnings.catch_warnings():
        # dask's Parquet reader on files without an index: a pandas deprecation the
        # command's own process hides (as in test_cli.py)
        warnings.filterwarnings("ignore", "The inplace keyword", DeprecationWarning)
        try:
            status = entry([str(a) for a in args])
        except SystemExit as stopped:  # argparse's usage errors and help
            status = stopped.code
    out, err = capsys.readouterr()
    return status, out, err


def day_state(capsys, folder: Path, day: int, *options: object) -> dict:
    """Run the day's report with ``--state-out``; its JSON report."""
    status, out, err = in_process(
        capsys, folder / f"day{day}.parquet", "--label", "y", "--score", "p",
        "--scheduler", "threads", "--state-out", folder / f"day{day}.state", "--json", *options,
    )  # fmt: skip
    assert status == 0, err
    return json.loads(out)


def test_state_out_reports_the_exact_auc_of_the_day(days, folder, capsys):
    report = day_state(capsys, folder, 0)
    frame = days[0]
    state = report["state"]
    assert state["path"] == str(folder / "day0.state")
    assert state["exact"] and state["lower"] == state["upper"] == state["estimate"]
    # correctly rounded, as roc_auc_score: scikit-learn's trapezoids may differ in the last bit
    assert state["lower"] == report["roc_auc"]
    assert state["lower"] == pytest.approx(sklearn_auc(frame["y"], frame["p"]), abs=1e-12)
    loaded = dask_auc.ROCState.load(folder / "day0.state")
    assert loaded.auc() == dask_auc.roc_state(frame["y"], frame["p"]).auc()
    assert (state["bins"], state["bytes"]) == (loaded.n_bins, loaded.nbytes)
    assert state["bins"] == frame["p"].nunique()


def test_state_out_adds_a_block_and_leaves_the_report_as_it_was(folder, capsys):
    base = [folder / "day1.parquet", "--label", "y", "--score", "p", "--scheduler", "threads"]
    status, plain, _ = in_process(capsys, *base)
    assert status == 0
    status, with_state, _ = in_process(capsys, *base, "--state-out", folder / "text.state")
    assert status == 0

    def without_time(text: str) -> list[str]:
        return [line for line in text.splitlines() if not line.lstrip().startswith("time ")]

    head, _, block = with_state.partition("\n\ncertified ROC AUC of the state written")
    assert without_time(head + "\n") == without_time(plain)
    header, row = block.strip().splitlines()[1:]
    assert header.split() == ["state", "bins", "bytes", "lower", "estimate", "upper", "width",
                              "exact"]  # fmt: skip
    assert row.split()[0] == str(folder / "text.state") and row.split()[-2:] == ["0", "yes"]


def test_window_of_saved_states_equals_sklearn_on_the_days_rows(days, folder, capsys):
    for day in range(DAYS):
        day_state(capsys, folder, day)
    paths = [folder / f"day{day}.state" for day in range(DAYS)]
    status, out, err = in_process(capsys, "--states", *paths, "--window", "3", "--json")
    assert status == 0, err
    report = json.loads(out)
    window = pd.concat(days[1:])
    expected = sklearn_auc(window["y"], window["p"])
    merged = report["merged"]
    assert merged["exact"] and merged["lower"] == merged["upper"]
    assert merged["lower"] == dask_auc.roc_auc_score(window["y"], window["p"])
    assert merged["lower"] == pytest.approx(expected, abs=1e-12)
    assert (merged["states"], report["given"], report["window"]) == (3, DAYS, 3)
    assert [s["path"] for s in report["states"]] == [str(p) for p in paths[1:]]
    for state, frame in zip(report["states"], days[1:], strict=True):
        assert state["lower"] == pytest.approx(sklearn_auc(frame["y"], frame["p"]), abs=1e-12)

    status, text, _ = in_process(capsys, "--states", *paths, "--window", "3")
    assert status == 0
    lines = text.splitlines()
    assert lines[0] == "dask-auc: certified ROC AUC of 3 states (the last 3 of 4 given)"
    assert lines[-1].split()[:2] == ["merged", "(3)"] and f"{merged['lower']:.10f}" in lines[-1]
    status, text, _ = in_process(capsys, "--states", *paths[:2], "--window", "28")
    assert text.splitlines()[0].endswith("(--window 28: only 2 given)")


def test_cli_states_merge_with_a_program_s_states(days, folder, capsys):
    # without --pos-label the CLI makes its state as roc_state(y, s) does: they merge
    day_state(capsys, folder, 2)
    program = folder / "program.state"
    dask_auc.roc_state(days[3]["y"], days[3]["p"]).save(program)
    status, out, err = in_process(capsys, "--states", folder / "day2.state", program, "--json")
    assert status == 0, err
    both = pd.concat(days[2:])
    assert json.loads(out)["merged"]["lower"] == dask_auc.roc_auc_score(both["y"], both["p"])


def test_weighted_and_string_label_states_contain_sklearn(days, folder, capsys):
    reports = []
    for day in (0, 1):
        status, out, err = in_process(
            capsys, folder / f"clicked{day}.parquet", "--label", "y", "--score", "p",
            "--pos-label", "clicked", "--weight", "w", "--scheduler", "threads",
            "--state-out", folder / f"clicked{day}.state", "--json",
        )  # fmt: skip
        assert status == 0, err
        reports.append(json.loads(out))
    states = [folder / f"clicked{day}.state" for day in (0, 1)]
    status, out, err = in_process(capsys, "--states", *states, "--json")
    assert status == 0, err
    merged = json.loads(out)["merged"]
    both = pd.concat(days[:2])
    expected = sklearn_auc(both["y"], both["p"], sample_weight=both["w"])
    assert merged["lower"] == pytest.approx(expected, abs=1e-12)
    assert merged["lower"] <= merged["estimate"] <= merged["upper"]
    for report in reports:
        assert report["state"]["lower"] == pytest.approx(report["roc_auc"], abs=1e-12)
    # a state of positive class 'clicked' and one of the default rule do not merge (its own
    # file: the other test's may be written by another xdist worker, or not yet)
    default_rule = folder / "default-rule.state"
    dask_auc.roc_state(days[3]["y"], days[3]["p"]).save(default_rule)
    status, _, err = in_process(capsys, "--states", states[0], default_rule)
    assert status == 1 and "states of different positive classes do not merge" in err


@pytest.fixture(scope="module")
def odd_files(folder) -> Path:
    y, s = np.array([0, 1, 1, 0]), np.array([0.1, 0.8, 0.4, 0.3])
    dask_auc.roc_state(y, s, resolution=8).save(folder / "coarse.state")
    dask_auc.roc_state(np.ones(3, int), s[:3]).save(folder / "positives.state")
    dask_auc.roc_state(y, s).save(folder / "fine.state")
    (folder / "notes.state").write_text("not a state\n")
    return folder


@pytest.mark.parametrize(
    ("arguments", "status", "message"),
    [
        (["--states", "missing.state"], 1, "no such file or directory: 'missing.state'"),
        (["--states", "notes.state"], 1, "notes.state is not a state written by ROCState.save"),
        (["--states", "day0.parquet"], 1, "day0.parquet is not a state written by ROCState"),
        (["--states", "fine.state", "fine.state"], 1,
         "fine.state is given twice: its rows would count twice in the window"),
        (["--states", "fine.state", "./fine.state"], 1, "fine.state and ./fine.state are one"),
        (["--states", "fine.state", "coarse.state"], 1,
         "states of different resolutions do not merge: 262144 and 8 bins"),
        (["--states", "fine.state", "positives.state", "--window", "1"], 1,
         "the window (1 state) holds no positive or no negative row"),
        (["--states"], 2, "argument --states: expected at least one argument"),
        (["--states", "fine.state", "--window", "0"], 2,
         "argument --window: must be a positive integer, got '0'"),
        (["--states", "fine.state", "--label", "y"], 2, "unrecognized arguments: --label y"),
        (["--states", "fine.state", "--states", "coarse.state"], 2,
         "argument --states: given more than once"),
        (["day0.parquet", "--label", "y", "--score", "p", "--state-out", "a.state",
          "--state-out", "b.state"], 2, "argument --state-out: given more than once"),
    ],
)  # fmt: skip
def test_errors_are_one_line_with_an_exit_status(
    odd_files, arguments, status, message, capsys, monkeypatch
):
    monkeypatch.chdir(odd_files)
    code, out, err = in_process(capsys, *arguments)  # no data is read: no --scheduler
    assert (code, out) == (status, "")
    last = err.strip().splitlines()[-1]
    assert last.startswith("dask-auc: error: ") and message in last, err
    if status == 1:
        assert err.count("\n") == 1


def test_states_help_and_a_foreign_file_as_the_installed_command(odd_files, capsys):
    # the help is argparse's text whichever process prints it: checked here; one start of
    # the installed command carries the claims about its process (status, stderr, no traceback)
    status, out, _ = in_process(capsys, "--states", "-h")
    assert status == 0 and "--window N" in out
    assert SCRIPT.exists(), f"{SCRIPT} missing: `pip install -e .` installs the console script"
    done = subprocess.run(
        [str(SCRIPT), "--states", "fine.state", "notes.state"],
        capture_output=True, text=True, timeout=120, cwd=odd_files,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith("dask-auc: error: notes.state is not a state")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


@pytest.mark.cluster
def test_state_out_on_a_process_cluster(days, folder, process_cluster, capsys, tmp_path):
    status, out, err = in_process(
        capsys, folder / "day3.parquet", "--label", "y", "--score", "p", "--weight", "w",
        "--scheduler", process_cluster.scheduler_address, "--state-out", tmp_path / "d3.state",
        "--json",
    )  # fmt: skip
    assert status == 0, err
    state = json.loads(out)["state"]
    frame = days[3]
    expected = sklearn_auc(frame["y"], frame["p"], sample_weight=frame["w"])
    assert state["exact"] and state["lower"] == pytest.approx(expected, abs=1e-12)
    kept = frame[frame["w"] > 0]
    assert dask_auc.ROCState.load(tmp_path / "d3.state").n_bins == kept["p"].nunique()


def test_bench_states_script_runs_small():
    """The benchmark as a person runs it, tiny: every method's row, no timing looked at.

    ``--in-process``: every row in the script's one process (``benchmarks/_process.py``),
    not a Python start per row; the fresh-process runner is test_benchmarks.py's, as is
    ``run_script`` (the script file as ``__main__`` in this test process).
    """
    from test_benchmarks import run_script

    done = run_script(
        # one kind: the kinds share the code; 2e4 rows still cut into the 28 days' states
        BENCH_STATES, "--rows", "2e4", "--repeats", "1", "--kinds", "ctr", "--in-process",
    )  # fmt: skip
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")][2:]
    methods = {line.strip("|").split("|")[0].strip() for line in rows}
    assert {"roc_auc_score", "roc_state", "window-28", "tf-200", "torchmetrics-200"} <= methods
    assert "failed" not in done.stdout and "NO" not in done.stdout.split()
    assert "in-process (--in-process): every row was measured in this one" in done.stdout


def test_bench_states_block_pass_runs_small():
    """``--block-pass``: each step the pass takes, by name (dense table, or the one table)."""
    from test_benchmarks import run_script

    done = run_script(
        BENCH_STATES, "--block-pass", "--rows", "3e4", "--resolution", "16384", "--repeats", "1",
        "--kinds", "continuous,ctr4",
    )  # fmt: skip
    continuous, ctr4 = done.stdout.split("block pass, ")[1:]
    steps = ("one table (or stop)", "range and bitmap", "dense table", "block_bins", "floor")
    assert all(step in continuous for step in steps) and "scatter" not in continuous
    assert "one table (or stop)" in ctr4 and "range and bitmap" not in ctr4
