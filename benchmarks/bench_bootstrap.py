"""Bootstrap intervals: every replicate on one sort, against one AUC and a re-sort per replicate.

Run it as a script::

    python benchmarks/bench_bootstrap.py --rows 1e7 --chunks 16 --replicates 200 --repeats 3

Every setting of ``--numba`` runs in a fresh Python process (``--in-process``:
each in the script's own, a smoke run), which generates
the same data (binary labels of ``--labels``' dtype, int8 by default,
continuous float64 scores: NumPy arrays wrapped in dask arrays of
``--chunks`` chunks), warms up once, then times
``--repeats`` runs of each row and reports the median and the peak RSS above
the process's baseline (``_memory.py``), and the ratio to one
``roc_auc_score`` measured in the same process.

Rows:

* ``roc_auc_score`` -- one exact AUC (the unit);
* ``roc(...).persist(): kept`` -- the memory a persisted ROC keeps: RSS
  after ``persist()`` minus before (not a peak), and its time; a line under
  the table gives it in bytes a row, with the bootstrap's peak beside the
  AUC's (issue 34's two memory measures);
* ``bootstrap_ci(roc_auc)`` -- ``--replicates`` replicates of the AUC (one
  sort, every replicate side by side in each bucket);
* ``bootstrap_ci(average_precision)`` -- the same for average precision
  (a second pass over the sorted buckets places every replicate's points);
* ``scikit-learn, a re-sort per replicate`` -- the plain formulation: each
  replicate draws Poisson(1) weights with NumPy and calls scikit-learn's
  ``roc_auc_score`` with them (one sort each); ``--peer-replicates`` of them
  are timed and the total is scaled to ``--replicates``;
* ``np.argsort per replicate (floor)`` -- only the sort of each replicate, the
  least a re-sorting bootstrap costs, scaled the same way.

With ``--gauc-users N`` it also times ``grouped_roc_auc_score`` of
``bench_grouped.py``'s click log of ``--gauc-rows`` rows and N users, without
and with a ``--gauc-replicates`` interval (``n_bootstraps=``): the interval is
made from the per-group table.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _process  # noqa: E402


def _data(rows: int, chunks: int, seed: int = 0, labels: str = "int8"):
    import dask.array as da
    import numpy as np

    rng = np.random.default_rng(seed)
    y = (rng.random(rows) < 0.3).astype(labels)
    s = rng.normal(size=rows) + y
    size = -(-rows // chunks)
    return y, s, da.from_array(y, chunks=size), da.from_array(s, chunks=size)


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """One process: each row's median time and peak memory."""
    import _memory
    import dask
    import numpy as np
    from bench_many import timed

    import dask_auc

    dask.config.set({"dask-auc.numba": args.numba == "on", "scheduler": "threads"})
    if args.numba == "on":
        from dask_auc._kernels.sort.compiled import compile_now

        compile_now()  # loaded, and this CPU's two choices timed, before any timing
    y_np, s_np, y, s = _data(args.rows, args.chunks, labels=args.labels)
    out: dict[str, Any] = {}

    def run(name: str, func, repeats: int = args.repeats, scale: float = 1.0) -> Any:
        func()  # warm-up (compiles numba loops, fills caches)
        _memory.start()
        seconds, result = timed(func, repeats)
        out[name] = {"seconds": seconds * scale, "memory": _memory.stop()["peak"]}
        return result

    B = args.replicates
    auc = run("roc_auc_score", lambda: dask_auc.roc_auc_score(y, s))
    curve, out[PERSISTED] = kept_by_persist(dask_auc.roc, y, s)
    out["persisted_auc_is_the_auc"] = curve.auc() == auc
    del curve
    ci = run(
        f"bootstrap_ci(roc_auc), {B} replicates",
        lambda: dask_auc.bootstrap_ci(y, s, n_bootstraps=B, random_state=0),
    )
    out["estimate_is_the_auc"] = ci.estimate == auc
    out["interval"] = [ci.low, ci.high, ci.std_error]
    run(
        f"bootstrap_ci(average_precision), {B} replicates",
        lambda: dask_auc.bootstrap_ci(
            y, s, metric="average_precision", n_bootstraps=B, random_state=0
        ),
    )
    if not args.no_peers:
        from sklearn.metrics import roc_auc_score

        rng = np.random.default_rng(1)
        k = args.peer_replicates

        def resampled() -> list[float]:
            return [
                roc_auc_score(y_np, s_np, sample_weight=rng.poisson(1.0, len(y_np)))
                for _ in range(k)
            ]

        run(f"scikit-learn, a re-sort per replicate (x{B})", resampled, 1, B / k)
        run(
            f"np.argsort per replicate (floor, x{B})",
            lambda: [np.argsort(s_np) for _ in range(k)],
            1,
            B / k,
        )
    if args.gauc_users:
        import dask.dataframe as dd
        import pandas as pd
        from bench_grouped import click_log

        # bench_grouped's click log: Zipf-like users, each holding clicks and non-clicks
        frame = pd.DataFrame(click_log(args.gauc_rows, args.gauc_users, seed=0))
        ddf = dd.from_pandas(frame, npartitions=args.chunks).persist()

        def gauc(**options):
            return dask_auc.grouped_roc_auc_score(
                ddf, by="user", label="click", score="score", **options
            )

        table = gauc().per_group
        out["gauc_users_with_both_classes"] = int(((table.n_pos > 0) & (table.n_neg > 0)).sum())

        plain = run("grouped_roc_auc_score", gauc)
        R = args.gauc_replicates
        with_ci = run(
            f"grouped_roc_auc_score(n_bootstraps={R})",
            lambda: gauc(n_bootstraps=R, random_state=0),
        )
        out["gauc_equal"] = plain.gauc == with_ci.gauc
    return out


#: the row of what a persisted ROC keeps: RSS after ``persist()`` above RSS before, not a peak
PERSISTED = "roc(...).persist(): kept (RSS after minus before)"


def kept_by_persist(roc: Any, y: Any, s: Any) -> tuple[Any, dict[str, Any]]:
    """``roc(y, s).persist()`` and its row: seconds, and the RSS it keeps (issue 34's measure).

    The resident memory after ``persist()`` minus before it, each read after a
    garbage collection and ``malloc_trim`` (so freed temporaries are not
    counted); a small ROC is persisted first, so that no first-call cost is.
    """
    import time

    from _memory import settled_rss

    roc(y[:1000], s[:1000]).persist()
    before = settled_rss()
    start = time.perf_counter()
    curve = roc(y, s).persist()
    seconds = time.perf_counter() - start
    return curve, {"seconds": seconds, "memory": max(0, settled_rss() - before)}


def _fmt_bytes(value: Any, rows: int) -> str:
    if value is None:
        return ""
    return f"{value / 2**20:,.0f} MiB ({value / rows:.1f} B/row)"


def table(results: dict[str, dict[str, Any]], rows: int, gauc_rows: int) -> str:
    lines = [
        "| measurement | " + " | ".join(f"numba {k}: s | x AUC | peak" for k in results) + " |",
        "| --- |" + " ---: | ---: | ---: |" * len(results),
    ]
    first = next(iter(results.values()))
    for row in [k for k, v in first.items() if isinstance(v, dict)]:
        cells = []
        for result in results.values():
            entry = result.get(row)
            base = result["roc_auc_score"]["seconds"]
            if row.startswith("grouped_roc_auc_score("):
                base = result["grouped_roc_auc_score"]["seconds"]
            if entry is None:
                cells += ["", "", ""]
                continue
            unit = "x GAUC" if row.startswith("grouped_roc_auc_score(") else ""
            cells += [
                f"{entry['seconds']:.3f}",
                f"{entry['seconds'] / base:.2f}{(' ' + unit) if unit else ''}",
                _fmt_bytes(entry["memory"], gauc_rows if row.startswith("grouped") else rows),
            ]
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def memory_line(result: dict[str, Any], rows: int, replicates: int) -> str:
    """Issue 34's two memory measures: what a persisted ROC keeps, the bootstrap's peak / AUC's."""
    kept = result[PERSISTED]["memory"] / rows
    auc = result["roc_auc_score"]["memory"]
    boot = result[f"bootstrap_ci(roc_auc), {replicates} replicates"]["memory"]
    ratio = f"{boot / auc:.2f}x" if auc else "-"
    return (
        f"persisted ROC keeps {kept:.1f} bytes/row (goal <= 24); bootstrap peak "
        f"{boot / rows:.1f} bytes/row, one AUC's {auc / rows:.1f}: {ratio} (goal <= 1.5x)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=lambda t: int(float(t)), default=int(1e7))
    parser.add_argument("--chunks", type=int, default=16)
    parser.add_argument(
        "--labels", default="int8", help="the labels' dtype: int8, or int64 as pandas makes them"
    )
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peer-replicates", type=int, default=3)
    parser.add_argument("--numba", default="on,off", help="on, off or on,off")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--gauc-users", type=lambda t: int(float(t)), default=0)
    parser.add_argument("--gauc-replicates", type=int, default=1000)
    parser.add_argument("--gauc-rows", type=lambda t: int(float(t)), default=int(5e7))
    _process.add_in_process_flag(parser)
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        args.numba = args.measure
        _process.emit(measure(args))
        return 0
    from bench_many import measure_each_setting, setup_line

    passed = argv if argv is not None else sys.argv[1:]
    results = measure_each_setting(
        measure,
        args,
        lambda setting: _process.script_command(
            __file__, "--measure", setting, *_without_numba(passed)
        ),
    )
    if results is None:
        return 1
    print(f"$ python {shlex.join(['benchmarks/bench_bootstrap.py', *passed])}")
    print(setup_line(args))
    print()
    print(table(results, args.rows, args.gauc_rows))
    print()
    for setting, result in results.items():
        extra = {k: v for k, v in result.items() if not isinstance(v, dict)}
        print(f"numba {setting}: {extra}")
        print(f"numba {setting}: {memory_line(result, args.rows, args.replicates)}")
    return 0


def _without_numba(argv: list[str]) -> list[str]:
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg == "--numba":
            skip = True
            continue
        if not arg.startswith("--numba="):
            out.append(arg)
    return out


if __name__ == "__main__":
    sys.exit(main())
