"""ROC and precision-recall curves: dask-auc beside scikit-learn, time and peak memory.

Run it as a script::

    python benchmarks/bench_curves.py --rows 1e7 --repeats 3

Every (function, method, rows, score kind) is measured in a fresh Python process
that generates the data (``_data.py``), records its RSS, runs the function
``--repeats`` times and reports the median time and the peak RSS above that
baseline (``_memory.py``; ``--in-process``: every row in the script's own
process, a smoke run).  After the metering stops, a dask-auc measurement
computes scikit-learn's answer in the same process and compares: the curve
arrays must have sklearn's lengths and values to 1e-12; a ``max_points`` curve
must have at most that many points, all on sklearn's exact curve, and a
trapezoid area within the grid bound ``N / (N - 2)**2`` of the exact AUC.
dask-auc runs on the threaded scheduler over dask arrays of the NumPy data
(~4 chunks per core), as ``dask-auc-threads`` in ``bench_auc.py``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _process  # noqa: E402
from _data import DEFAULT_KINDS, KINDS, generate  # noqa: E402
from bench_auc import (  # noqa: E402
    MIB,
    environment,
    fmt_ratio,
    fmt_rows,
    fmt_seconds,
    markdown_table,
    parse_list,
    parse_rows,
)

FUNCTIONS = ("roc_curve", "precision_recall_curve", "average_precision_score")
TOLERANCE = 1e-12


def cases(functions: list[str], max_points: int) -> list[tuple[str, str]]:
    """``(function, method)`` pairs in table order; sklearn first in each group."""
    todo = []
    for function in functions:
        todo += [(function, "sklearn"), (function, "dask-auc")]
        if function != "average_precision_score":
            todo.append((function, f"dask-auc max_points={max_points}"))
    return todo


def _runner(function: str, method: str, label: Any, score: Any) -> Callable[[], Any]:
    """The timed call, its inputs built here (outside the timing)."""
    if method == "sklearn":
        from sklearn import metrics

        sklearn_function = getattr(metrics, function)
        return lambda: sklearn_function(label, score)
    import dask.array as da
    from _methods import blocks_per_core_chunk

    import dask_auc

    chunks = blocks_per_core_chunk(len(label), os.cpu_count() or 1)
    y_true, y_score = da.from_array(label, chunks=chunks), da.from_array(score, chunks=chunks)
    ours = getattr(dask_auc, function)
    if "max_points=" in method:
        max_points = int(method.split("=")[1])
        return lambda: ours(y_true, y_score, max_points=max_points)
    return lambda: ours(y_true, y_score)


def measure(function: str, method: str, rows: int, kind: str, repeats: int, seed: int) -> dict:
    """Time ``repeats`` runs, meter the peak RSS above the setup, then check the answer."""
    import _memory
    import dask

    label, score = generate(rows, kind, seed)
    run = _runner(function, method, label, score)
    with dask.config.set(scheduler="threads"):
        meter = _memory.PeakMeter()
        meter.start()
        seconds = []
        for _ in range(repeats):
            start = time.perf_counter()
            answer = run()
            seconds.append(time.perf_counter() - start)
        peak = meter.stop()
    points = 1 if function == "average_precision_score" else len(answer[0])
    check = (
        "reference" if method == "sklearn" else same_answer(function, method, label, score, answer)
    )
    return {
        "seconds": seconds,
        "peak": peak,
        "meter": meter.method,
        "points": points,
        "same": check,
    }


def same_answer(function: str, method: str, label: Any, score: Any, answer: Any) -> str:
    """Compare with scikit-learn's answer on the same rows (run after the metering)."""
    import numpy as np
    from sklearn import metrics

    expected = getattr(metrics, function)(label, score)
    if function == "average_precision_score":
        delta = abs(answer - expected)
        return f"{'yes' if delta <= TOLERANCE else 'NO'} (Δ {delta:.1e})"
    if "max_points=" not in method:
        if any(len(a) != len(e) for a, e in zip(answer, expected, strict=True)):
            return f"NO (lengths {[len(a) for a in answer]} vs {[len(e) for e in expected]})"
        delta = max(
            float(np.nanmax(np.abs(a - e), initial=0.0))
            for a, e in zip(answer, expected, strict=True)
        )
        return f"{'yes' if delta <= TOLERANCE else 'NO'} (Δ {delta:.1e}, same lengths)"
    max_points = int(method.split("=")[1])
    if function == "roc_curve":
        x, y, thresholds = answer
        at = np.searchsorted(-expected[2], -thresholds)
        on_curve = np.array_equal(expected[0][at], x) and np.array_equal(expected[1][at], y)
        area = float(np.trapezoid(y, x))
        exact = metrics.roc_auc_score(label, score)
    else:
        precision, recall, thresholds = answer
        at = np.searchsorted(expected[2], thresholds)
        on_curve = np.array_equal(expected[0][at], precision[:-1])
        area = float(-np.sum(np.diff(recall) * precision[:-1]))
        exact = metrics.average_precision_score(label, score)
    bound = max_points / (max_points - 2) ** 2 if max_points > 2 else 0.5
    ok = len(thresholds) <= max_points and on_curve
    if function == "roc_curve":
        ok = ok and abs(area - exact) <= bound
    verdict = "yes" if ok else "NO"
    return (
        f"{verdict} ({len(answer[0])} points on sklearn's curve; area - exact "
        f"{area - exact:+.1e}, grid bound {bound:.1e})"
    )


def run_measurement(function: str, method: str, rows: int, kind: str, args: Any) -> dict:
    """One row: :func:`measure` in a fresh process (or in this one with ``--in-process``)."""
    if args.in_process:
        return _process.run_here(measure, function, method, rows, kind, args.repeats, args.seed)
    command = _process.script_command(
        __file__, "--measure", f"{function}|{method}", "--rows", rows, "--kinds", kind,
        "--repeats", args.repeats, "--seed", args.seed,
    )  # fmt: skip
    return _process.run_child(command, timeout=args.timeout)


HEADER = [
    "function",
    "method",
    "rows",
    "score kind",
    "points",
    "seconds (median)",
    "peak MiB",
    "x sklearn time",
    "x sklearn memory",
    "same answer",
]


def table_rows(todo: list[tuple[str, str, int, str]], results: dict) -> list[list[str]]:
    lines = []
    for function, method, rows, kind in todo:
        result = results[(function, method, rows, kind)]
        if "error" in result:
            failed = [function, method, fmt_rows(rows), kind, "-", "failed", *["-"] * 3]
            lines.append([*failed, result["error"]])
            continue
        reference = results.get((function, "sklearn", rows, kind), {})
        median = statistics.median(result["seconds"])
        reference_median = (
            statistics.median(reference["seconds"]) if "seconds" in reference else None
        )
        lines.append(
            [
                function,
                method,
                fmt_rows(rows),
                kind,
                f"{result['points']:,}",
                fmt_seconds(median),
                f"{result['peak'] / MIB:.1f}",
                fmt_ratio(reference_median, median),
                fmt_ratio(result["peak"], reference.get("peak")),
                result["same"],
            ]
        )
    return lines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=parse_rows, default=parse_rows("1e7"))
    parser.add_argument("--kinds", type=parse_list(KINDS), default=list(DEFAULT_KINDS))
    parser.add_argument("--functions", type=parse_list(FUNCTIONS), default=list(FUNCTIONS))
    parser.add_argument(
        "--max-points", type=int, default=2000, help="the bounded curve's max_points"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--output", type=Path, default=None)
    _process.add_in_process_flag(parser)
    parser.add_argument("--measure", default=None, help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.measure is not None:
        function, method = args.measure.split("|")
        _process.emit(
            measure(function, method, args.rows[0], args.kinds[0], args.repeats, args.seed)
        )
        return 0
    command = "python benchmarks/bench_curves.py " + shlex.join(
        argv if argv is not None else sys.argv[1:]
    )
    started = datetime.datetime.now().astimezone()
    env_line = environment()
    todo = [
        (f, m, rows, kind)
        for rows in args.rows
        for kind in args.kinds
        for f, m in cases(args.functions, args.max_points)
    ]
    results = {}
    for index, key in enumerate(todo, 1):
        print(
            f"[{index}/{len(todo)}] {' '.join(map(str, key))} ...",
            end=" ",
            file=sys.stderr,
            flush=True,
        )
        results[key] = run_measurement(*key, args)
        shown = results[key].get("error") or f"{statistics.median(results[key]['seconds']):.3f} s"
        print(shown, file=sys.stderr, flush=True)
    meters = sorted({r["meter"] for r in results.values() if "meter" in r})
    _process.write_report(
        command=command,
        started=started,
        env_line=env_line,
        table=markdown_table(HEADER, table_rows(todo, results)),
        notes=[
            "peak MiB: RSS high-water mark above the RSS after the data were generated, by "
            f"{', '.join(meters) or '-'}; x sklearn = sklearn's value / this row's "
            "(time: > 1 is faster than sklearn; memory: this row's / sklearn's, < 1 is less)"
        ],
        in_process=args.in_process,
        output=args.output,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
