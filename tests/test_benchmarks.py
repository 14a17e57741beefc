"""The benchmark script runs, prints its table, and every method gives sklearn's answer.

Nothing here looks at a timing: the machine running the tests is not the one
the numbers are for.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
SCRIPT = BENCHMARKS / "bench_auc.py"


def _run(script: Path, *args: str, timeout: float) -> subprocess.CompletedProcess:
    """Run a benchmark script as a person would; its output, or an error if it fails."""
    return subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def bench_methods():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import _methods

        yield _methods
    finally:
        sys.path.remove(str(BENCHMARKS))


def _table(stdout: str) -> tuple[list[str], list[dict[str, str]]]:
    lines = [line for line in stdout.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]
    rows = [dict(zip(header, row, strict=True)) for row in cells]
    return header, rows


#: the methods with an answer in the shared run of the script (``one_run``)
ANSWERING = ["sklearn", "numpy-floor", "dask-auc-threads"] + [
    m for m in ("polars", "duckdb") if importlib.util.find_spec(m) is not None
]


@pytest.fixture(scope="module")
def one_run(tmp_path_factory):
    """One run of the script with every answering method and the sort floor of issue 14.

    Each (method, score kind) is a fresh process of its own: one run serves the answers'
    test and the issue-14 columns' test, which read different cells of the same table.
    """
    output = tmp_path_factory.mktemp("bench") / "report.md"
    methods = ",".join([*ANSWERING, "numpy-sort-2threads"])
    completed = _run(
        # tied scores: the kind where the methods' tie handling can disagree; the kinds
        # share every other line of the script, and each (method, kind) is a process
        SCRIPT, "--rows", "20000", "--repeats", "1", "--methods", methods, "--kinds", "tied",
        "--output", str(output), timeout=180,
    )  # fmt: skip
    return completed, output


def test_script_prints_one_table_with_same_answers(one_run):
    completed, output = one_run
    header, rows = _table(completed.stdout)
    assert header[:4] == ["method", "rows", "score kind", "seconds (median)"]
    assert {"peak MiB", "bytes/row", "x sklearn", "x numpy-floor", "same answer"} <= set(header)
    assert sorted((r["method"], r["score kind"]) for r in rows) == sorted(
        (m, "tied") for m in [*ANSWERING, "numpy-sort-2threads"]
    )
    for row in rows:
        assert row["rows"] == "20,000"
        if row["method"] != "numpy-sort-2threads":
            assert row["same answer"].startswith("yes"), row
    assert output.read_text().strip() == completed.stdout.strip()


def test_sklearn_is_skipped_above_its_limit_with_a_note():
    completed = _run(
        SCRIPT,
        "--rows",
        "3000",
        "--repeats",
        "1",
        "--kinds",
        "tied",
        "--methods",
        "sklearn,numpy-floor",
        "--sklearn-max-rows",
        "1000",
        timeout=60,
    )
    _, rows = _table(completed.stdout)
    assert [r["method"] for r in rows] == ["numpy-floor"]
    assert rows[0]["same answer"].startswith("- (no reference)")
    assert "sklearn skipped at 3,000 rows" in completed.stdout


@pytest.fixture
def heavy_ties():
    rng = np.random.default_rng(7)
    score = rng.integers(0, 6, 3000) / 5
    label = (rng.random(3000) < 0.3 + 0.4 * score).astype(np.int8)
    return label, score


def test_two_thread_floor_is_exact_with_ties(bench_methods, heavy_ties):
    from concurrent.futures import ThreadPoolExecutor

    label, score = heavy_ties
    with ThreadPoolExecutor(2) as pool:
        got = bench_methods.numpy_floor_threads_auc(label, score, pool)
    assert got == roc_auc_score(label, score)
    assert bench_methods.numpy_floor_auc(label, score) == roc_auc_score(label, score)


@pytest.mark.parametrize("cuts", [[1000, 2000], [10, 11, 12, 1500, 2999], [0, 3000]])
def test_naive_merge_corrects_ties_cut_by_partitions(bench_methods, heavy_ties, cuts):
    label, score = heavy_ties
    frame = pd.DataFrame({"label": label, "score": score}).sort_values("score")
    edges = [0, *cuts, len(frame)]  # tie groups cut anywhere, some parts empty
    parts = [frame.iloc[lo:hi] for lo, hi in zip(edges[:-1], edges[1:], strict=True)]
    summaries = pd.concat([bench_methods._naive_partition(p) for p in parts], ignore_index=True)
    assert bench_methods.naive_merge(summaries) == roc_auc_score(label, score)


def test_curve_digest_is_the_area_under_the_curve(bench_methods, heavy_ties):
    from sklearn.metrics import roc_curve

    label, score = heavy_ties
    fpr, tpr, _ = roc_curve(label, score)
    assert abs(bench_methods.curve_digest(fpr, tpr) - roc_auc_score(label, score)) <= 1e-12


def test_tie_aggregation_script_prints_both_kernels():
    done = _run(BENCHMARKS / "tie_aggregation.py", "--rows", "1e5", "--repeats", "1", timeout=120)
    _, rows = _table(done.stdout)
    assert [row["kernel"] for row in rows] == [
        "prepare_block",
        "prepare_block, rows",
        "factorize + bincount",
    ]
    assert all(float(row["seconds"]) >= 0 for row in rows)
    assert "100,000 rows" in done.stdout and "distinct scores" in done.stdout
    assert "(aggregated)" in done.stdout  # 1e5 tied rows: the probe aggregates them


def test_numba_cost_script_prints_three_runs():
    pytest.importorskip("numba")
    done = _run(BENCHMARKS / "numba_cost.py", timeout=300)
    _, rows = _table(done.stdout)
    assert [row["run"] for row in rows] == [
        "numba off",
        "numba, empty cache",
        "numba, cache filled",
    ]
    for row in rows:
        assert float(row["RSS after MiB"]) > 0
        assert len(row["continuous: 1st, 2nd call s"].split(" / ")) == 2


def test_issue_14_references_print_beside_dask_auc(one_run):
    """The sort floor (sorting only, no answer) and DuckDB's ratio columns, in the same run.

    (A row without a reference in its run, "- (no reference)", is
    ``test_sklearn_is_skipped_above_its_limit_with_a_note``'s.)
    """
    header, rows = _table(one_run[0].stdout)
    assert {"x sort-2threads", "x duckdb"} <= set(header)
    by_method = {row["method"]: row for row in rows if row["score kind"] == "tied"}
    assert by_method["numpy-sort-2threads"]["same answer"] == "- (sorting only)"
    assert by_method["numpy-sort-2threads"]["x sort-2threads"] == "1.00x"
    assert by_method["dask-auc-threads"]["x sort-2threads"].endswith("x")
    if "duckdb" in by_method:
        assert by_method["dask-auc-threads"]["x duckdb"].endswith("x")


def test_sort_floor_sorts_both_halves(bench_methods):
    from concurrent.futures import ThreadPoolExecutor

    halves = [np.array([3.0, 1.0, 2.0]), np.array([0.5, 0.25])]
    with ThreadPoolExecutor(2) as pool:
        assert np.isnan(bench_methods.sort_halves(halves, pool))
    assert halves[0].tolist() == [3.0, 1.0, 2.0]  # np.sort: the data stay as generated


def test_bench_many_prints_every_way_with_equal_answers():
    """The sort-once benchmark runs as a person would; its three ways agree (smoke test)."""
    done = _run(
        BENCHMARKS / "bench_many.py",
        *("--rows", "3e4", "--chunks", "4", "--repeats", "1", "--numba", "off", "--no-sklearn"),
        timeout=300,
    )
    header, rows = _table(done.stdout)
    names = [row["measurement"] for row in rows]
    assert names[0] == "roc_auc_score"
    assert {"ten together", "persist", "persisted ROC: ten queries"} <= set(names)
    assert "three dask-auc ways give equal answers: True" in done.stdout


def test_bench_bootstrap_prints_every_row_and_the_estimate_is_the_auc():
    """The bootstrap benchmark runs as a person would (smoke test; no timing is read)."""
    done = _run(
        BENCHMARKS / "bench_bootstrap.py",
        *("--rows", "2e4", "--chunks", "4", "--replicates", "10", "--repeats", "1"),
        *("--numba", "on", "--peer-replicates", "1"),
        timeout=300,
    )
    header, rows = _table(done.stdout)
    names = [row["measurement"] for row in rows]
    assert names[0] == "roc_auc_score"
    assert "bootstrap_ci(roc_auc), 10 replicates" in names
    assert "'estimate_is_the_auc': True" in done.stdout


def test_bootstrap_coverage_prints_both_intervals():
    done = _run(
        BENCHMARKS / "bootstrap_coverage.py",
        *("--trials", "3", "--rows", "300", "--replicates", "20"),
        timeout=300,
    )
    assert "| bootstrap (95%) |" in done.stdout and "| DeLong (95%) |" in done.stdout


def test_bench_first_call_prints_both_calls_with_one_answer():
    """Fresh processes time a first and a second call (smoke test; no timing is read)."""
    pytest.importorskip("numba")
    done = _run(
        BENCHMARKS / "bench_first_call.py",
        *("--rows", "2e4", "--replicates", "10", "--processes", "1"),
        *("--calls", "bootstrap_ci(average_precision)", "--numba-cache", "default"),
        timeout=300,
    )
    _, rows = _table(done.stdout)
    assert [(row["call"], row["numba"]) for row in rows] == [
        ("bootstrap_ci(average_precision)", "on"),
        ("bootstrap_ci(average_precision)", "off"),
    ]
    for row in rows:
        assert row["same answer"] == "yes", row
        assert float(row["1st call s"].split()[0]) > 0 and float(row["2nd call s"].split()[0]) > 0
