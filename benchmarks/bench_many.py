"""Sort once, ask many: ten metrics of one input, separately, together, and from a persisted ROC.

Run it as a script::

    python benchmarks/bench_many.py --rows 2e7 --chunks 16 --repeats 3

Every measurement runs in a fresh Python process (``--numba on`` and ``off``
each get their own; ``--in-process``: both in the script's own, a smoke run),
which generates the same data (binary labels, continuous float64 scores;
NumPy arrays wrapped in dask arrays of ``--chunks`` chunks), warms up once,
then times ``--repeats`` runs and reports the median and the peak RSS above
the process's baseline (``_memory.py``).  All ratios are to
one ``roc_auc_score`` measured in the same process.  The ten metrics are the
issue's: the AUC, the AUC at ``max_fpr=0.1``, average precision, the ROC,
precision-recall and DET curves, the confusion counts at every threshold,
the KS statistic, the operating point at FPR 0.1 and the gains table;
curves are asked with ``max_points=2000`` where the function takes it.

Rows of the table:

* ``each alone`` -- every metric as its own call (each sorts);
* ``together`` -- the ten as ``compute=False``, then one ``dask_auc.compute``;
* ``persisted ROC`` -- ``dask_auc.roc(...).persist()`` (the ``persist`` row,
  timed as the others: a warm-up, then the median of the repeats), then the
  ten queries of the last one persisted;
* ``scikit-learn`` -- the same ten where scikit-learn has them (it sorts for
  each; the gains table and KS come from its ``roc_curve``), one run.

The answers of the three dask-auc ways are compared with each other (equal),
and the AUC with scikit-learn's.
"""

from __future__ import annotations

import argparse
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

MAX_POINTS = 2000
#: the ten metrics' table names, in the order of :func:`_ten`
METRICS = (
    "roc_auc_score",
    "roc_auc_score(max_fpr=0.1)",
    "average_precision_score",
    "roc_curve",
    "precision_recall_curve",
    "det_curve",
    "confusion_matrix_at_thresholds",
    "ks_statistic",
    "operating_point(fpr=0.1)",
    "gains_table",
)


def _data(rows: int, chunks: int, seed: int = 0):
    import dask.array as da
    import numpy as np

    rng = np.random.default_rng(seed)
    y = (rng.random(rows) < 0.3).astype(np.int8)
    s = rng.random(rows) + 0.5 * y
    size = -(-rows // chunks)
    return y, s, da.from_array(y, chunks=size), da.from_array(s, chunks=size)


def _ten(dask_auc, y, s, compute: bool) -> list:
    """The ten metrics of the issue, as function calls."""
    return [
        dask_auc.roc_auc_score(y, s, compute=compute),
        dask_auc.roc_auc_score(y, s, max_fpr=0.1, compute=compute),
        dask_auc.average_precision_score(y, s, compute=compute),
        dask_auc.roc_curve(y, s, max_points=MAX_POINTS, compute=compute),
        dask_auc.precision_recall_curve(y, s, max_points=MAX_POINTS, compute=compute),
        dask_auc.det_curve(y, s, max_points=MAX_POINTS, compute=compute),
        dask_auc.confusion_matrix_at_thresholds(y, s, max_points=MAX_POINTS, compute=compute),
        dask_auc.ks_statistic(y, s, compute=compute),
        dask_auc.operating_point(y, s, fpr=0.1, compute=compute),
        dask_auc.gains_table(y, s, compute=compute),
    ]


def _queries(curve) -> list:
    """The same ten as queries of one ROC (its positive class is 1, as the functions')."""
    return [
        curve.auc(),
        curve.auc(max_fpr=0.1),
        curve.average_precision(),
        curve.roc_curve(max_points=MAX_POINTS),
        curve.precision_recall_curve(max_points=MAX_POINTS),
        curve.det_curve(max_points=MAX_POINTS),
        curve.confusion_matrix_at_thresholds(max_points=MAX_POINTS),
        curve.ks(),
        curve.operating_point(fpr=0.1),
        curve.gains_table(),
    ]


def _sklearn_ten(y, s) -> list:
    import numpy as np
    from sklearn import metrics

    fpr, tpr, _ = metrics.roc_curve(y, s, drop_intermediate=False)
    return [
        metrics.roc_auc_score(y, s),
        metrics.roc_auc_score(y, s, max_fpr=0.1),
        metrics.average_precision_score(y, s),
        metrics.roc_curve(y, s),
        metrics.precision_recall_curve(y, s),
        metrics.det_curve(y, s),
        metrics.confusion_matrix_at_thresholds(y, s),
        float(np.max(tpr - fpr)),
        metrics.roc_curve(y, s, drop_intermediate=False),  # the operating point's candidates
        np.quantile(s, np.linspace(0, 1, 11)),  # the gains table's bin edges, at least
    ]


def _digest(results: list) -> str:
    """A stable text of results, to compare the ways of computing them."""
    import numpy as np
    import pandas as pd

    parts = []
    for r in results:
        if isinstance(r, pd.DataFrame):
            parts.append(r.to_json())
        elif isinstance(r, tuple) and not hasattr(r, "_fields"):
            parts.append(repr([np.asarray(a).tobytes().hex()[:64] + str(len(a)) for a in r]))
        else:
            parts.append(repr(r))
    return "|".join(parts)


def timed(func, repeats: int) -> tuple[float, Any]:
    """The median of ``repeats`` runs of ``func()`` and its last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def measure_each_setting(
    measure: Callable[[argparse.Namespace], dict[str, Any]],
    args: argparse.Namespace,
    command: Callable[[str], list[str]],
) -> dict[str, dict[str, Any]] | None:
    """``measure`` for each ``--numba`` setting, in a fresh process each; None if one failed."""
    results = {}
    for setting in args.numba.split(","):
        measured = _process.measure_row(measure, args, command(setting), numba=setting)
        if "error" in measured:
            print(f"numba {setting}: the measurement failed: {measured['error']}", file=sys.stderr)
            return None
        results[setting] = measured
    return results


def setup_line(args: argparse.Namespace) -> str:
    """The rows, chunks and machine of the run (and how its rows were measured)."""
    line = f"{args.rows:,} rows, {args.chunks} chunks, threaded scheduler, {os.cpu_count()} cores"
    return line + (f"; {_process.IN_PROCESS_NOTE}" if args.in_process else "")


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """One process: every way of computing, its median time and peak memory."""
    import _memory
    import dask

    import dask_auc

    dask.config.set({"dask-auc.numba": args.numba == "on", "scheduler": "threads"})
    if args.numba == "on":
        from dask_auc._kernels.sort.compiled import compile_now

        compile_now()  # loaded, and this CPU's two choices timed, before any timing
    y_np, s_np, y, s = _data(args.rows, args.chunks)
    out: dict[str, Any] = {}

    def run(name: str, func, repeats: int = args.repeats) -> Any:
        func()  # warm-up (compiles numba loops, fills caches)
        _memory.start()
        seconds, result = timed(func, repeats)
        out[name] = {"seconds": seconds, "memory": _memory.stop()["peak"]}
        return result

    auc = run("roc_auc_score", lambda: dask_auc.roc_auc_score(y, s))
    names = METRICS[1:]
    for i, name in enumerate(names, start=1):
        run(name, lambda i=i: _ten(dask_auc, y, s, compute=False)[i].compute())
    alone = [auc] + [_ten(dask_auc, y, s, compute=False)[i].compute() for i in range(1, 10)]
    kept: list = []

    def persist() -> None:  # timed as every row: warmed up once, the median of the repeats
        kept[:] = [dask_auc.roc(y, s)]
        kept[0].persist()

    # after the rows alone, whose heaps are alike: a single cold persist after "ten together"
    # timed the free heap that row had left (its peak), not the persist
    run("persist", persist)
    curve = kept[0]
    persisted = run("persisted ROC: ten queries", lambda: _queries(curve))
    kept.clear()
    del curve
    together = run("ten together", lambda: dask_auc.compute(*_ten(dask_auc, y, s, False)))
    if not args.no_sklearn:
        start = time.perf_counter()
        reference = _sklearn_ten(y_np, s_np)
        out["scikit-learn: ten"] = {"seconds": time.perf_counter() - start, "memory": None}
        out["sklearn_auc_difference"] = abs(reference[0] - auc)
    out["equal"] = _digest(alone) == _digest(list(together)) == _digest(persisted)
    return out


def _fmt_bytes(value: Any) -> str:
    return "" if value is None else f"{value / 2**20:,.0f} MiB"


def table(results: dict[str, dict[str, Any]]) -> str:
    lines = [
        "| measurement | " + " | ".join(f"numba {k}: s | x AUC | peak" for k in results) + " |",
        "| --- |" + " ---: | ---: | ---: |" * len(results),
    ]
    first = next(iter(results.values()))
    rows = [k for k, v in first.items() if isinstance(v, dict)]
    for row in rows:
        cells = []
        for result in results.values():
            entry, base = result.get(row), result["roc_auc_score"]["seconds"]
            if entry is None:
                cells += ["", "", ""]
                continue
            cells += [
                f"{entry['seconds']:.3f}",
                f"{entry['seconds'] / base:.2f}",
                _fmt_bytes(entry["memory"]),
            ]
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    alone = {
        k: sum(v["seconds"] for name, v in r.items() if isinstance(v, dict) and name in _ALONE)
        for k, r in results.items()
    }
    cells = []
    for k, r in results.items():
        base = r["roc_auc_score"]["seconds"]
        cells += [f"{alone[k]:.3f}", f"{alone[k] / base:.2f}", ""]
    lines.append("| the ten, each alone (sum) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


_ALONE = set(METRICS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=lambda t: int(float(t)), default=int(2e7))
    parser.add_argument("--chunks", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--numba", default="on,off", help="on, off or on,off")
    parser.add_argument("--no-sklearn", action="store_true", help="skip scikit-learn's ten")
    _process.add_in_process_flag(parser)
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # the measuring child
    args = parser.parse_args(argv)
    if args.measure:
        args.numba = args.measure
        _process.emit(measure(args))
        return 0

    def command(setting: str) -> list[str]:
        return _process.script_command(
            __file__, "--measure", setting, "--rows", args.rows, "--chunks", args.chunks,
            "--repeats", args.repeats, *(["--no-sklearn"] if args.no_sklearn else []),
        )  # fmt: skip

    results = measure_each_setting(measure, args, command)
    if results is None:
        return 1
    print(f"$ python {shlex.join(['benchmarks/bench_many.py', *(argv or sys.argv[1:])])}")
    print(setup_line(args))
    print()
    print(table(results))
    print()
    for setting, result in results.items():
        print(
            f"numba {setting}: the three dask-auc ways give equal answers: {result['equal']}; "
            f"|AUC - scikit-learn's (float trapezoids)|: "
            f"{result.get('sklearn_auc_difference', 'not run')}"
        )
    return 0 if all(r["equal"] for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
