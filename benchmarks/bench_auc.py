"""Exact ROC AUC: dask-auc beside scikit-learn, a NumPy floor, polars, DuckDB and naive dask.

Two columns hold the bars of issue 14, measured in the same run: ``x duckdb``
(DuckDB's ``GROUP BY score`` + window sum, the bar on tied scores) and
``x sort-2threads`` (``np.sort`` of the two halves of the scores on 2 threads,
sorting only: the floor on continuous scores).  Each is the reference's time
over the method's (above 1: the method is faster).  To compare two versions
of dask-auc, run this script from one checkout with ``PYTHONPATH`` pointing
at the other's ``src`` (see ``benchmarks/README.md``).

Run it as a script::

    python benchmarks/bench_auc.py --rows 1e6,1e7,5e7 --repeats 3

Every (method, rows, score kind) is measured in a fresh Python process that
generates the data, records its RSS, runs the method ``--repeats`` times and
reports the median time and the peak RSS above that baseline.  The parent
prints one Markdown table; ratios are taken between peers of the same run.
``--in-process`` measures every row in the script's own process instead (a
smoke run; the report says so).
See ``benchmarks/README.md`` for the meaning of each column.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _process  # noqa: E402
from _data import DEFAULT_KINDS, KINDS  # noqa: E402

METHOD_ORDER = (
    "sklearn",
    "numpy-floor",
    "numpy-floor-2threads",
    "numpy-sort-2threads",
    "polars",
    "duckdb",
    "naive-dask",
    "dask-auc-threads",
    "dask-auc-numpy-threads",
    "dask-auc-cluster",
)
CURVE_ORDER = ("curve:sklearn", "curve:dask-auc-threads", "curve:dask-auc-numpy-threads")
#: references that only sort (a time, no AUC): see ``_methods.SORT_ONLY``
SORT_ONLY = frozenset({"numpy-sort-2threads"})
TOLERANCE = 1e-12
MIB = 1 << 20


def parse_rows(text: str) -> list[int]:
    """``"1e6,1e7"`` -> ``[1000000, 10000000]``."""
    rows = [int(float(item)) for item in text.split(",") if item.strip()]
    if not rows or min(rows) < 2:
        raise argparse.ArgumentTypeError(f"rows must be integers >= 2, got {text!r}")
    return rows


def parse_list(choices: tuple[str, ...]):
    def parse(text: str) -> list[str]:
        items = [item.strip() for item in text.split(",") if item.strip()]
        unknown = [item for item in items if item not in choices]
        if unknown or not items:
            raise argparse.ArgumentTypeError(
                f"unknown {unknown or text!r}; choose among {', '.join(choices)}"
            )
        return items

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument(
        "--rows",
        type=parse_rows,
        default=parse_rows("1e6,1e7"),
        help="comma-separated row counts (floats like 1e7 accepted)",
    )
    parser.add_argument(
        "--kinds",
        type=parse_list(KINDS),
        default=list(DEFAULT_KINDS),
        help=f"score kinds: {', '.join(KINDS)}",
    )
    parser.add_argument(
        "--methods",
        type=parse_list(METHOD_ORDER),
        default=list(METHOD_ORDER),
        help=f"methods: {', '.join(METHOD_ORDER)}",
    )
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per measurement")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated data")
    parser.add_argument(
        "--sklearn-max-rows",
        type=float,
        default=5e7,
        help="skip sklearn (and curve:sklearn) above this many rows",
    )
    parser.add_argument(
        "--naive-max-rows", type=float, default=1e7, help="skip naive-dask above this many rows"
    )
    parser.add_argument(
        "--curve",
        action="store_true",
        help="also time roc_curve against sklearn's, when dask_auc.roc_curve "
        "exists (skipped silently otherwise)",
    )
    parser.add_argument(
        "--timeout", type=float, default=3600, help="seconds allowed to one measurement process"
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="also write the report (command, table, notes) to this file",
    )
    _process.add_in_process_flag(parser)
    parser.add_argument("--measure", default=None, help=argparse.SUPPRESS)
    return parser


# -- the measurement process --------------------------------------------------------


def measure(method: str, rows: int, kind: str, repeats: int, seed: int) -> dict[str, Any]:
    """Set the method up, then time ``repeats`` runs and meter the peak RSS above the setup."""
    import _memory
    from _methods import CURVE_METHODS, METHODS, Spec, scaling_method

    known = {**METHODS, **CURVE_METHODS}
    setup = known[method] if method in known else scaling_method(method)
    with setup(Spec(rows, kind, seed)) as bench:
        meter = _memory.PeakMeter()
        if bench.client is not None:
            bench.client.run(_memory.start)
        meter.start()
        seconds, values = [], []
        for _ in range(repeats):
            start = time.perf_counter()
            values.append(bench.run())
            seconds.append(time.perf_counter() - start)
        peak = meter.stop()
        workers = bench.client.run(_memory.stop) if bench.client is not None else {}
    return {
        "seconds": seconds,
        "value": values[-1],
        "values_agree": len(set(values)) == 1,
        "peak": peak,
        "meter": meter.method,
        "worker_peaks": sorted(w["peak"] for w in workers.values()),
    }


# -- the parent: one process per measurement (``_process.py``) ---------------------


def run_measurement(method: str, rows: int, kind: str, args: argparse.Namespace) -> dict[str, Any]:
    """One row: :func:`measure` in a fresh process (or in this one with ``--in-process``)."""
    return _process.method_row(__file__, measure, method, rows, kind, args)


def plan(args: argparse.Namespace, curves: bool) -> tuple[list[tuple[str, int, str]], list[str]]:
    """The measurements to make, in table order, and the notes on what was skipped."""
    methods = [m for m in METHOD_ORDER if m in args.methods]
    if curves:
        methods += list(CURVE_ORDER)
    todo, notes = [], []
    for rows in args.rows:
        for kind in args.kinds:
            for method in methods:
                if method in ("sklearn", "curve:sklearn") and rows > args.sklearn_max_rows:
                    note = (
                        f"{method} skipped at {fmt_rows(rows)} rows (> --sklearn-max-rows "
                        f"{args.sklearn_max_rows:g}): ratios and answers there are taken "
                        "against numpy-floor"
                    )
                    if note not in notes:
                        notes.append(note)
                    continue
                if method == "naive-dask" and rows > args.naive_max_rows:
                    note = (
                        f"naive-dask skipped at {fmt_rows(rows)} rows "
                        f"(> --naive-max-rows {args.naive_max_rows:g})"
                    )
                    if note not in notes:
                        notes.append(note)
                    continue
                todo.append((method, rows, kind))
    return todo, notes


def curves_available() -> bool:
    try:
        import dask_auc
    except ImportError:
        return False
    return hasattr(dask_auc, "roc_curve")


# -- the table ------------------------------------------------------------------------


def fmt_rows(rows: int) -> str:
    exponent = len(str(rows)) - 1
    mantissa = rows / 10**exponent
    if rows >= 10**5 and mantissa == int(mantissa):
        return f"{int(mantissa)}e{exponent}" if mantissa != 1 else f"1e{exponent}"
    return f"{rows:,}"


def fmt_ratio(numerator: float | None, denominator: float | None) -> str:
    if numerator is None or denominator is None or denominator <= 0:
        return "-"
    return f"{numerator / denominator:.2f}x"


def fmt_seconds(seconds: float) -> str:
    return f"{seconds:.3f}" if seconds < 10 else f"{seconds:.2f}"


def reference_of(method: str, results: dict[str, dict[str, Any]]) -> str | None:
    """Which peer a method's answer is checked against."""
    order = (
        ("curve:sklearn",)
        if method.startswith("curve:")
        else ("sklearn", "numpy-floor", "numpy-floor-2threads")
    )
    for name in order:
        if name != method and name not in SORT_ONLY and "value" in results.get(name, {}):
            return name
    return None


def median_seconds(peers: dict[str, dict[str, Any]], name: str) -> float | None:
    peer = peers.get(name, {})
    return statistics.median(peer["seconds"]) if "seconds" in peer else None


def table_rows(todo: list[tuple[str, int, str]], results: dict) -> list[list[str]]:
    lines = []
    for method, rows, kind in todo:
        peers = results[(rows, kind)]
        result = peers[method]
        if "error" in result:
            lines.append([method, fmt_rows(rows), kind, "failed", *["-"] * 7, result["error"], "-"])
            continue
        median = statistics.median(result["seconds"])
        sklearn_name = "curve:sklearn" if method.startswith("curve:") else "sklearn"
        reference = reference_of(method, peers)
        if method in SORT_ONLY:
            same = "- (sorting only)"
        elif reference is None:
            same = "- (no reference)"
        else:
            delta = abs(result["value"] - peers[reference]["value"])
            verdict = "yes" if delta <= TOLERANCE and result["values_agree"] else "NO"
            same = f"{verdict} (Δ {delta:.1e} vs {reference})"
        if result["worker_peaks"]:
            peak = max(result["worker_peaks"])
            where = (
                f"worker max of {len(result['worker_peaks'])} "
                f"({', '.join(f'{p / MIB:.0f}' for p in result['worker_peaks'])}); "
                f"client+scheduler {result['peak'] / MIB:.0f}"
            )
        else:
            peak, where = result["peak"], "process"
        floors = (
            ("-",) * 4
            if method.startswith("curve:")
            else (
                fmt_ratio(median_seconds(peers, "numpy-floor"), median),
                fmt_ratio(median_seconds(peers, "numpy-floor-2threads"), median),
                fmt_ratio(median_seconds(peers, "numpy-sort-2threads"), median),
                fmt_ratio(median_seconds(peers, "duckdb"), median),
            )
        )
        lines.append(
            [
                method,
                fmt_rows(rows),
                kind,
                fmt_seconds(median),
                f"{peak / MIB:.1f}",
                f"{peak / rows:.1f}",
                fmt_ratio(median_seconds(peers, sklearn_name), median),
                *floors,
                same,
                where,
            ]
        )
    return lines


HEADER = [
    "method",
    "rows",
    "score kind",
    "seconds (median)",
    "peak MiB",
    "bytes/row",
    "x sklearn",
    "x numpy-floor",
    "x floor-2threads",
    "x sort-2threads",
    "x duckdb",
    "same answer",
    "peak memory of",
]


def markdown_table(
    header: list[str], lines: list[list[str]], right: frozenset[int] = frozenset(range(3, 11))
) -> str:
    """A Markdown table, padded to line up; columns ``right`` (numbers) right-aligned."""
    widths = [max(len(cell) for cell in column) for column in zip(header, *lines, strict=True)]

    def render(cells: list[str]) -> str:
        padded = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "| " + " | ".join(padded) + " |"

    rule = ["-" * (w - 1) + ":" if i in right else "-" * w for i, w in enumerate(widths)]
    return "\n".join([render(header), "| " + " | ".join(rule) + " |", *map(render, lines)])


def environment() -> str:
    import dask
    import numpy

    try:
        import psutil

        memory = f"{psutil.virtual_memory().total / (1 << 30):.0f} GiB"
    except ImportError:
        memory = "? GiB"
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    versions = [
        f"python {platform.python_version()}",
        f"numpy {numpy.__version__}",
        f"dask {dask.__version__}",
    ]
    for name in ("dask_auc", "sklearn", "polars", "duckdb", "pandas", "pyarrow"):
        try:
            module = __import__(name)
            versions.append(f"{name} {module.__version__}")
        except ImportError:
            pass
    return (
        f"{platform.machine()}, {os.cpu_count()} cores, {memory}; {simd_level()}; load average "
        f"{load} at start; {'; '.join(versions)}; {source_state()}"
    )


def simd_level() -> str:
    """NumPy's SIMD extensions on this CPU (``numpy.show_runtime()``): speed depends on them.

    The compiled tie hash and NumPy's sorts run different code with and
    without AVX-512, so a figure is only comparable with one of the same level.
    """
    import ast
    import contextlib
    import io

    import numpy

    shown = io.StringIO()
    try:
        with contextlib.redirect_stdout(shown), contextlib.redirect_stderr(io.StringIO()):
            numpy.show_runtime()
        text = shown.getvalue()
        simd = text[text.index("'simd_extensions'") :]
        found, baseline = (
            ast.literal_eval(re.search(rf"'{key}': (\[[^\]]*\])", simd).group(1))  # type: ignore[union-attr]
            for key in ("found", "baseline")
        )
    except Exception:  # an older NumPy, or a format this does not read
        return "SIMD unknown"
    return f"SIMD found {' '.join(found)} (baseline {' '.join(baseline)})"


def source_state() -> str:
    """The git commit dask-auc was measured at, and whether ``src/`` had local changes."""
    root = HERE.parent

    def git(*args: str) -> str:
        try:
            return subprocess.run(
                ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    commit = git("rev-parse", "--short", "HEAD")
    if not commit:
        return "git commit unknown"
    dirty = git("status", "--porcelain", "--", "src")
    return f"git {commit}" + (" with uncommitted changes in src/" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.repeats < 1:
        raise SystemExit("--repeats must be >= 1")
    if args.measure is not None:
        _process.emit(measure(args.measure, args.rows[0], args.kinds[0], args.repeats, args.seed))
        return 0

    command = "python benchmarks/bench_auc.py " + shlex.join(
        argv if argv is not None else sys.argv[1:]
    )
    started = datetime.datetime.now().astimezone()
    env_line = environment()
    todo, notes = plan(args, args.curve and curves_available())
    results: dict[tuple[int, str], dict[str, dict[str, Any]]] = {}
    for index, (method, rows, kind) in enumerate(todo, 1):
        print(
            f"[{index}/{len(todo)}] {method} {fmt_rows(rows)} {kind} ...",
            end=" ",
            file=sys.stderr,
            flush=True,
        )
        result = run_measurement(method, rows, kind, args)
        results.setdefault((rows, kind), {})[method] = result
        shown = result.get("error") or f"{statistics.median(result['seconds']):.3f} s"
        print(shown, file=sys.stderr, flush=True)
    meters = {r.get("meter") for per in results.values() for r in per.values()} - {None}
    notes.append(
        f"peak memory: RSS high-water mark above the RSS after setup, measured "
        f"by {', '.join(sorted(meters)) or '-'}; bytes/row = peak / rows"
    )
    if not any("error" in r for per in results.values() for r in per.values()):
        failed = []
    else:
        failed = ["some measurements failed: see the seconds column"]
    _process.write_report(
        command=command,
        started=started,
        env_line=env_line,
        table=markdown_table(HEADER, table_rows(todo, results)),
        notes=notes + failed,
        in_process=args.in_process,
        output=args.output,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
