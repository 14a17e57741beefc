"""The benchmark scripts run, print their tables, and every method gives sklearn's answer.

Nothing here looks at a timing: the machine running the tests is not the one
the numbers are for.  Each script runs once as a person would run it: its file
run as ``__main__`` with its command line (``run_script``), with ``--in-process``
where it has it: every row in that one process, instead of a Python start per
row (``benchmarks/_process.py``).  ``run_script`` runs the file in this test
process (its imports already warm: a Python start and a dask_auc import cost
each smoke run seconds that check nothing) with dask's configuration as a new
process has it; the scripts whose claim is a fresh process (``numba_cost.py``,
``bench_first_call.py``) run as a subprocess, as do the fresh-process runner's
children, tested here on the smallest children that show each of its behaviours.
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import io
import os
import runpy
import subprocess
import sys
import time
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


def run_script(script: Path, *args: str) -> subprocess.CompletedProcess:
    """Run a benchmark script's file as ``__main__`` in this process, as ``python script args``.

    Its command line is ``sys.argv``; the folder of the script is first on
    ``sys.path`` (as Python puts it); dask's configuration is a new process's
    (``dask.config.refresh()``: none of the suite's settings) and is restored
    after, with ``sys.argv`` and ``sys.path``.  Its printed output, or an
    AssertionError with it if the script exits with a status other than 0.
    """
    import dask

    saved_config = copy.deepcopy(dask.config.config)
    saved_argv, saved_path = sys.argv, list(sys.path)
    out, err = io.StringIO(), io.StringIO()
    status: object = 0
    sys.argv = [str(script), *args]
    sys.path.insert(0, str(script.parent))
    dask.config.refresh()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exit_:
        status = exit_.code if exit_.code is not None else 0
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
        dask.config.config.clear()
        dask.config.config.update(saved_config)
    assert status == 0, f"{script.name} exited {status!r}: {err.getvalue()}\n{out.getvalue()}"
    return subprocess.CompletedProcess([str(script), *args], 0, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def benchmarks_path():
    """The benchmarks' folder importable, as the scripts have it, for this module's tests."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        yield
    finally:
        sys.path.remove(str(BENCHMARKS))


@pytest.fixture(scope="module")
def bench_methods(benchmarks_path):
    return importlib.import_module("_methods")


@pytest.fixture(scope="module")
def bench_process(benchmarks_path):
    return importlib.import_module("_process")


@pytest.fixture(scope="module")
def bench_auc(benchmarks_path):
    return importlib.import_module("bench_auc")


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
IN_PROCESS = "in-process (--in-process): every row was measured in this one warm Python process"


@pytest.fixture(scope="module")
def one_run(tmp_path_factory):
    """One run of the script, every answering method and the sort floor of issue 14.

    Two sizes: at 20,000 rows every method is held to sklearn's answer; at
    30,000, above ``--sklearn-max-rows``, sklearn is skipped with a note and
    the others are held to numpy-floor's.  The tests below read different
    cells of the same table.
    """
    output = tmp_path_factory.mktemp("bench") / "report.md"
    methods = ",".join([*ANSWERING, "numpy-sort-2threads"])
    completed = run_script(
        # tied scores: the kind where the methods' tie handling can disagree; the kinds
        # share every other line of the script
        SCRIPT, "--rows", "20000,30000", "--sklearn-max-rows", "20000", "--repeats", "1",
        "--methods", methods, "--kinds", "tied", "--output", str(output), "--in-process",
    )  # fmt: skip
    return completed, output


def test_script_prints_one_table_with_same_answers(one_run):
    completed, output = one_run
    header, rows = _table(completed.stdout)
    assert header[:4] == ["method", "rows", "score kind", "seconds (median)"]
    assert {"peak MiB", "bytes/row", "x sklearn", "x numpy-floor", "same answer"} <= set(header)
    at_20k = [r for r in rows if r["rows"] == "20,000"]
    assert sorted((r["method"], r["score kind"]) for r in at_20k) == sorted(
        (m, "tied") for m in [*ANSWERING, "numpy-sort-2threads"]
    )
    for row in at_20k:
        if row["method"] not in ("sklearn", "numpy-sort-2threads"):
            assert row["same answer"].startswith("yes (") and "vs sklearn)" in row["same answer"]
    assert by_method(at_20k)["sklearn"]["same answer"].startswith("yes ("), at_20k
    assert output.read_text().strip() == completed.stdout.strip()
    assert IN_PROCESS in completed.stdout  # the report says how its rows were measured


def by_method(rows: list[dict[str, str]]) -> dict[str, dict[str, str]]:
    return {row["method"]: row for row in rows}


def test_sklearn_is_skipped_above_its_limit_with_a_note(one_run, bench_auc):
    _, rows = _table(one_run[0].stdout)
    at_30k = by_method([r for r in rows if r["rows"] == "30,000"])
    ran = {*ANSWERING, "numpy-sort-2threads"} - {"sklearn"}
    assert list(at_30k) == [m for m in bench_auc.METHOD_ORDER if m in ran]
    assert at_30k["numpy-floor"]["same answer"].startswith("- (no reference)")
    for method in ran - {"numpy-floor", "numpy-sort-2threads"}:
        assert at_30k[method]["same answer"].startswith("yes ("), at_30k[method]
        assert "vs numpy-floor)" in at_30k[method]["same answer"], at_30k[method]
    assert "sklearn skipped at 30,000 rows" in one_run[0].stdout


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
    done = run_script(BENCHMARKS / "tie_aggregation.py", "--rows", "1e5", "--repeats", "1")
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
    """Off, an empty numba cache (the loops compiled and written) and the filled one (loaded).

    The bootstrap's family (~6-9 s of a cold compile) is the smallest that shows the
    three; the sort's (~20 s) adds nothing the script's code would not run the same way.
    20,000 rows: the calls only start the compile (no row threshold on the bootstrap's).
    """
    pytest.importorskip("numba")
    done = _run(
        BENCHMARKS / "numba_cost.py", "--families", "replicates", "--rows", "2e4", timeout=300
    )
    _, rows = _table(done.stdout)
    assert [row["run"] for row in rows] == [
        "numba off",
        "numba, empty cache",
        "numba, cache filled",
    ]
    assert [row["loops from the cache"] for row in rows] == ["-", "no", "yes"]
    for row in rows:
        assert float(row["RSS after MiB"]) > 0
        assert len(row["bootstrap_ci continuous: 1st, 2nd call s"].split(" / ")) == 2
    assert all(float(row["loops ready s"]) > 0 for row in rows[1:])
    assert "roc_auc_score continuous: 1st, 2nd call s" not in done.stdout  # main's: not asked


def test_issue_14_references_print_beside_dask_auc(one_run):
    """The sort floor (sorting only, no answer) and DuckDB's ratio columns, in the same run.

    (A row without a reference in its run, "- (no reference)", is
    ``test_sklearn_is_skipped_above_its_limit_with_a_note``'s.)
    """
    header, rows = _table(one_run[0].stdout)
    assert {"x sort-2threads", "x duckdb"} <= set(header)
    at_20k = by_method([row for row in rows if row["rows"] == "20,000"])
    assert at_20k["numpy-sort-2threads"]["same answer"] == "- (sorting only)"
    assert at_20k["numpy-sort-2threads"]["x sort-2threads"] == "1.00x"
    assert at_20k["dask-auc-threads"]["x sort-2threads"].endswith("x")
    if "duckdb" in at_20k:
        assert at_20k["dask-auc-threads"]["x duckdb"].endswith("x")


def test_sort_floor_sorts_both_halves(bench_methods):
    from concurrent.futures import ThreadPoolExecutor

    halves = [np.array([3.0, 1.0, 2.0]), np.array([0.5, 0.25])]
    with ThreadPoolExecutor(2) as pool:
        assert np.isnan(bench_methods.sort_halves(halves, pool))
    assert halves[0].tolist() == [3.0, 1.0, 2.0]  # np.sort: the data stay as generated


def test_bench_many_prints_every_way_with_equal_answers():
    """The sort-once benchmark runs as a person would; its three ways agree (smoke test)."""
    done = run_script(
        BENCHMARKS / "bench_many.py",
        *("--rows", "3e3", "--chunks", "4", "--repeats", "1", "--numba", "off", "--no-sklearn"),
        "--in-process",
    )
    header, rows = _table(done.stdout)
    names = [row["measurement"] for row in rows]
    assert names[0] == "roc_auc_score"
    assert {"ten together", "persist", "persisted ROC: ten queries"} <= set(names)
    assert "three dask-auc ways give equal answers: True" in done.stdout
    assert IN_PROCESS in done.stdout


def test_bench_bootstrap_prints_every_row_and_the_estimate_is_the_auc():
    """The bootstrap benchmark runs as a person would (smoke test; no timing is read)."""
    done = run_script(
        BENCHMARKS / "bench_bootstrap.py",
        *("--rows", "2e3", "--chunks", "4", "--replicates", "10", "--repeats", "1"),
        *("--numba", "on", "--peer-replicates", "1", "--in-process"),
    )
    header, rows = _table(done.stdout)
    names = [row["measurement"] for row in rows]
    assert names[0] == "roc_auc_score"
    assert "bootstrap_ci(roc_auc), 10 replicates" in names
    assert "roc(...).persist(): kept (RSS after minus before)" in names
    assert "'estimate_is_the_auc': True" in done.stdout
    assert "'persisted_auc_is_the_auc': True" in done.stdout
    assert "numba on: persisted ROC keeps " in done.stdout
    assert IN_PROCESS in done.stdout


def test_bootstrap_coverage_prints_both_intervals():
    done = run_script(
        BENCHMARKS / "bootstrap_coverage.py",
        *("--trials", "3", "--rows", "300", "--replicates", "20"),
    )
    assert "| bootstrap (95%) |" in done.stdout and "| DeLong (95%) |" in done.stdout


def test_bench_first_call_prints_both_calls_with_one_answer():
    """A fresh process times a first and a second call (smoke test; no timing is read).

    A first call is only one in a fresh process: the script has no in-process
    mode.  This runs one measuring process (numba on: the path whose first call
    can wait for a compile), at the smallest size; "same answer" holds its two
    calls to one value.  Each setting's row is the same loop; that the NumPy
    path gives the compiled one's answers is test_bootstrap.py's and
    test_compiled.py's.
    """
    pytest.importorskip("numba")
    done = _run(
        BENCHMARKS / "bench_first_call.py",
        *("--rows", "2e3", "--replicates", "5", "--processes", "1", "--numba", "on"),
        *("--calls", "bootstrap_ci(average_precision)", "--numba-cache", "default"),
        timeout=300,
    )
    _, rows = _table(done.stdout)
    assert [(row["call"], row["numba"]) for row in rows] == [
        ("bootstrap_ci(average_precision)", "on"),
    ]
    for row in rows:
        assert row["same answer"] == "yes", row
        assert float(row["1st call s"].split()[0]) > 0 and float(row["2nd call s"].split()[0]) > 0


# -- the fresh-process runner (benchmarks/_process.py), on the smallest children ---------


def test_a_row_is_measured_by_the_script_in_a_fresh_process(bench_auc, bench_methods):
    """The parent builds the child's command; the child measures and answers in its line."""
    args = bench_auc.build_parser().parse_args(["--repeats", "2", "--seed", "3"])
    got = bench_auc.run_measurement("numpy-floor", 500, "tied", args)  # a NumPy-only child
    label, score = bench_methods.generate(500, "tied", 3)
    assert got["value"] == roc_auc_score(label, score) and got["values_agree"]
    assert len(got["seconds"]) == 2 and got["meter"] in ("VmHWM", "psutil sampling")
    assert got["worker_peaks"] == []


def test_a_failed_row_is_a_cell_with_its_exception(bench_auc):
    args = bench_auc.build_parser().parse_args(["--repeats", "1"])
    failed = bench_auc.run_measurement("scaling:nowhere-1", 500, "tied", args)
    assert failed == {"error": "exit 1: ValueError: not a scaling method: 'scaling:nowhere-1'"}
    (row,) = bench_auc.table_rows([("scaling:nowhere-1", 500, "tied")], {(500, "tied"): {
        "scaling:nowhere-1": failed}})  # fmt: skip
    assert row[3] == "failed" and row[-2] == failed["error"]
    args.in_process = True  # the same row in this process: the same exception, in its cell
    here = bench_auc.run_measurement("scaling:nowhere-1", 500, "tied", args)
    assert here == {"error": "raised ValueError: not a scaling method: 'scaling:nowhere-1'"}


def test_a_child_past_its_timeout_is_killed_with_its_process_group(bench_process, tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    child = (  # a child that starts a process of its own (as a LocalCluster does), then hangs
        "import subprocess, sys, time; "
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); "
        f"open({str(pid_file)!r}, 'w').write(str(p.pid)); time.sleep(120)"
    )
    started = time.monotonic()
    got = bench_process.run_child([sys.executable, "-c", child], timeout=1)
    assert got == {"error": "timed out after 1 s"} and time.monotonic() - started < 60
    grandchild = int(pid_file.read_text())
    for _ in range(100):  # killed with the group: gone, or a zombie until someone reaps it
        try:
            state = Path(f"/proc/{grandchild}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            break
        if state == "Z":
            break
        time.sleep(0.05)
    else:
        os.kill(grandchild, 9)
        pytest.fail("the child's own process outlived the timeout")


def test_the_result_line_is_read_among_other_output(bench_process):
    program = (
        "import _process, sys; print('progress'); "
        "_process.emit({'value': 0.5, 'pair': (1, 2)}); print('after'); "
        "sys.stderr.write('teardown noise\\n'); sys.exit(3)"  # measured, then a failed exit
    )
    got = bench_process.run_child([sys.executable, "-c", program], env={"UNUSED": "1"})
    assert got == {"value": 0.5, "pair": [1, 2]}
    silent = bench_process.run_child([sys.executable, "-c", "print('no result')"])
    assert silent == {"error": "exit 0: no result line"}


def test_in_process_results_read_as_a_child_s(bench_process):
    assert bench_process.run_here(lambda x: {"pair": (x, x)}, 1) == {"pair": [1, 1]}
    failed = bench_process.run_here(lambda: 1 / 0)
    assert failed == {"error": "raised ZeroDivisionError: division by zero"}
