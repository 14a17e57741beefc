"""``dask-auc --calibration``'s CORP decomposition, and ``benchmarks/bench_reliability.py``.

The command's numbers are held to model-diagnostics' ``decompose`` (an
independent reference) and to :func:`dask_auc.reliability_diagram` of the same
rows in memory; the commands run through :func:`dask_auc.cli.main` in this
process (output captured), as most of ``test_cli.py``'s do.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dask_auc
from metric_registry import DECOMPOSITION, decomposition_reference

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
RTOL = 1e-12


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    """Tied probabilities (3 decimals, 0 and 1 among them), zero weights, text labels."""
    rng = np.random.default_rng(33)
    n = 20_000
    proba = np.round(rng.beta(2, 5, n), 3)
    proba[:3] = [0.0, 1.0, 0.5]
    label = (rng.random(n) < 0.05 + 0.9 * proba).astype(np.int64)
    label[:2] = [0, 1]  # probability 0 of a negative, 1 of a positive: the log score is finite
    weight = rng.choice([0.0, 0.5, 1.0, 3.0], size=n)
    return pd.DataFrame(
        {"y": label, "p": proba, "w": weight, "outcome": np.where(label == 1, "click", "skip")}
    )


@pytest.fixture(scope="module")
def path(rows, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("cli-reliability") / "scores.parquet"
    root.mkdir()
    for i, cut in enumerate(np.array_split(np.arange(len(rows)), 5)):  # ties across files
        rows.iloc[cut].to_parquet(root / f"part-{i}.parquet", index=False)
    return root


def in_process(capsys, *args) -> tuple[int, str, str]:
    """``dask-auc ARGS --scheduler threads`` in this process: (status, stdout, stderr)."""
    from dask_auc.cli import main

    with warnings.catch_warnings():  # dask's Parquet reader: a pandas deprecation
        warnings.filterwarnings("ignore", "The inplace keyword", DeprecationWarning)
        status = main([str(a) for a in args] + ["--scheduler", "threads"])
    out, err = capsys.readouterr()
    return status, out, err


def answers(capsys, *args) -> dict:
    status, out, err = in_process(capsys, *args, "--json")
    assert status == 0, err
    return json.loads(out)


def assert_decomposition(got: dict, want: dict) -> None:
    scale = max(abs(want["score"]), abs(want["uncertainty"]))
    for part in DECOMPOSITION:
        np.testing.assert_allclose(got[part], want[part], rtol=RTOL, atol=RTOL * scale)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_json_holds_the_decomposition_of_model_diagnostics(rows, path, capsys, weighted):
    options = ["--weight", "w"] if weighted else []
    report = answers(capsys, path, "--label", "y", "--score", "p", "--calibration", *options)
    y, p = rows["y"].to_numpy(), rows["p"].to_numpy()
    w = rows["w"].to_numpy() if weighted else None
    got = report["reliability"]
    for scoring in ("brier", "log_score"):
        assert_decomposition(got[scoring], decomposition_reference(y, p, w, scoring))
    assert got["brier"]["score"] == pytest.approx(report["brier_score"], rel=RTOL)
    np.testing.assert_allclose(got["mean_score"], np.average(p, weights=w), rtol=RTOL)
    np.testing.assert_allclose(got["mean_outcome"], np.average(y, weights=w), rtol=RTOL)
    # the same numbers as the library's, from rows in memory (one partition)
    diagram = dask_auc.reliability_diagram(y, p, sample_weight=w)
    assert got["brier"] == pytest.approx(diagram.brier._asdict(), rel=RTOL, abs=1e-15)
    assert got["log_score"] == pytest.approx(diagram.log_score._asdict(), rel=RTOL, abs=1e-15)
    assert got["steps"] == len(diagram.recalibrated)


def test_text_prints_both_decompositions(rows, path, capsys):
    status, text, err = in_process(capsys, path, "--label", "y", "--score", "p", "--calibration")
    assert status == 0, err
    diagram = dask_auc.reliability_diagram(rows["y"].to_numpy(), rows["p"].to_numpy())
    lines = {line.split("  ")[1]: line for line in text.splitlines() if "CORP" in line}
    for name, parts in (("CORP Brier score", diagram.brier), ("CORP log score", diagram.log_score)):
        score, mcb, dsc, unc = parts
        assert lines[name].endswith(
            f"{score:.10f} (MCB {mcb:.10f}, DSC {dsc:.10f}, UNC {unc:.10f})"
        )
    names = [line.split("  ")[1] for line in text.splitlines()[1:]]
    assert names[names.index("normalized entropy") + 1 :][:2] == list(lines)


def test_the_rocs_positive_class_is_the_one_decomposed(rows, path, capsys):
    """Text labels: the decomposition of ``label == --pos-label``, as the other numbers are."""
    report = answers(
        capsys, path, "--label", "outcome", "--score", "p", "--pos-label", "click",
        "--calibration", "--weight", "w",
    )  # fmt: skip
    y, p, w = rows["y"].to_numpy(), rows["p"].to_numpy(), rows["w"].to_numpy()
    assert_decomposition(report["reliability"]["brier"], decomposition_reference(y, p, w, "brier"))


def test_without_calibration_nothing_is_added(path, capsys):
    report = answers(capsys, path, "--label", "y", "--score", "p")
    assert "reliability" not in report and "brier_score" not in report
    status, text, _ = in_process(capsys, path, "--label", "y", "--score", "p", "--by", "y")
    assert status == 0 and "CORP" not in text


def test_probabilities_outside_the_unit_interval_keep_their_message(rows, tmp_path, capsys):
    rows.assign(p=rows["p"] + 0.5).to_parquet(tmp_path / "over.parquet", index=False)
    status, out, err = in_process(
        capsys, tmp_path / "over.parquet", "--label", "y", "--score", "p", "--calibration"
    )
    assert status == 1 and out == ""
    assert err.startswith("dask-auc: error: ") and "greater than 1" in err


def test_bench_reliability_prints_every_row_with_the_same_answers():
    from test_benchmarks import run_script

    done = run_script(
        # one kind: the smoke run checks that every row runs and agrees, not the kinds, which
        # the same code draws; --in-process: measured in the script's own process
        # (benchmarks/_process.py), no second Python start; run_script: the script file as
        # __main__ in this process (test_benchmarks.py), no Python start at all
        BENCHMARKS / "bench_reliability.py",
        *("--rows", "2e4", "--repeats", "1", "--kinds", "tied", "--in-process"),
    )
    text = done.stdout
    assert "tied scores" in text
    for row in (
        "roc_auc_score",
        "reliability_diagram",
        "roc(): auc + reliability, one compute",
        "IsotonicRegression, pooled ties (in-memory floor)",
        "model-diagnostics decompose",
    ):
        found = [line for line in text.splitlines() if line.startswith(f"| {row} |")]
        assert len(found) == 1, (row, text)  # the one kind asked
        assert all("| yes (Δ" in line for line in found), found
    assert "in-process (--in-process): every row was measured in this one" in text
