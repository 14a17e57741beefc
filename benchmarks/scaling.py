"""Strong scaling of dask-auc: the same rows on 1 and 2 workers, threads and processes.

Run it as a script::

    python benchmarks/scaling.py --rows 5e7 --repeats 3

For each score kind it times ``dask_auc.roc_auc_score`` on the threaded
scheduler with 1, 2, ... threads, and on a ``LocalCluster`` of 1, 2, ... worker
processes of one thread each.  The problem is fixed (strong scaling): the same
data cut into the same blocks, ~4 per core of the machine, whatever the number
of workers.  Each measurement runs in a fresh process, as in ``bench_auc.py``
(whose machinery it reuses), and the script prints one Markdown table:

- ``speedup`` = seconds on 1 worker / seconds on ``n`` workers (same kind of worker);
- ``efficiency`` = speedup / ``n`` (1.0 is perfect scaling).
"""

from __future__ import annotations

import argparse
import datetime
import shlex
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _process  # noqa: E402
from _data import DEFAULT_KINDS, KINDS  # noqa: E402
from _methods import SCALING_KINDS  # noqa: E402
from bench_auc import (  # noqa: E402
    MIB,
    environment,
    fmt_rows,
    fmt_seconds,
    markdown_table,
    parse_list,
    parse_rows,
    run_measurement,
)

HEADER = [
    "scheduler",
    "workers",
    "rows",
    "score kind",
    "seconds (median)",
    "speedup",
    "efficiency",
    "peak MiB",
    "same answer",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument(
        "--rows", type=parse_rows, default=parse_rows("5e7"), help="comma-separated row counts"
    )
    parser.add_argument(
        "--kinds",
        type=parse_list(KINDS),
        default=list(DEFAULT_KINDS),
        help=f"score kinds: {', '.join(KINDS)}",
    )
    parser.add_argument(
        "--schedulers",
        type=parse_list(SCALING_KINDS),
        default=list(SCALING_KINDS),
        help="threads (threaded scheduler) and/or cluster (LocalCluster, "
        "one-thread worker processes)",
    )
    parser.add_argument(
        "--workers",
        type=lambda text: sorted({int(x) for x in text.split(",")}),
        default=[1, 2],
        help="comma-separated worker (or thread) counts",
    )
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per measurement")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated data")
    parser.add_argument(
        "--timeout", type=float, default=3600, help="seconds allowed to one measurement process"
    )
    parser.add_argument(
        "--output", type=Path, default=None, help="also write the report to this file"
    )
    _process.add_in_process_flag(parser)
    return parser


def scaling_rows(results: dict[tuple[str, int, int, str], dict[str, Any]]) -> list[list[str]]:
    """Table rows; speedups are against the fewest workers of the same scheduler."""
    lines = []
    for (scheduler, rows, workers, kind), result in results.items():
        if "error" in result:
            failed = [scheduler, str(workers), fmt_rows(rows), kind, "failed", *["-"] * 3]
            lines.append([*failed, result["error"]])
            continue
        seconds = statistics.median(result["seconds"])
        base_workers = min(w for (s, r, w, k) in results if (s, r, k) == (scheduler, rows, kind))
        base = results[(scheduler, rows, base_workers, kind)]
        speedup = efficiency = "-"
        if "seconds" in base:
            ratio = statistics.median(base["seconds"]) / seconds
            speedup = f"{ratio:.2f}x"
            efficiency = f"{ratio * base_workers / workers:.2f}"
        peaks = result["worker_peaks"] or [result["peak"]]
        same = "-"
        if "value" in base:
            agree = result["value"] == base["value"] and result["values_agree"]
            same = "yes" if agree else f"NO ({result['value']!r} vs {base['value']!r})"
        lines.append(
            [
                scheduler,
                str(workers),
                fmt_rows(rows),
                kind,
                fmt_seconds(seconds),
                speedup,
                efficiency,
                f"{max(peaks) / MIB:.0f}",
                same,
            ]
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.repeats < 1:
        raise SystemExit("--repeats must be >= 1")
    command = "python benchmarks/scaling.py " + shlex.join(
        argv if argv is not None else sys.argv[1:]
    )
    started = datetime.datetime.now().astimezone()
    env_line = environment()
    results: dict[tuple[str, int, int, str], dict[str, Any]] = {}
    for rows in args.rows:
        for kind in args.kinds:
            for scheduler in args.schedulers:
                for workers in args.workers:
                    method = f"scaling:{scheduler}-{workers}"
                    print(
                        f"{method} {fmt_rows(rows)} {kind} ...",
                        end=" ",
                        file=sys.stderr,
                        flush=True,
                    )
                    result = run_measurement(method, rows, kind, args)
                    results[(scheduler, rows, workers, kind)] = result
                    shown = result.get("error") or f"{statistics.median(result['seconds']):.3f} s"
                    print(shown, file=sys.stderr, flush=True)
    _process.write_report(
        command=command,
        started=started,
        env_line=env_line,
        table=markdown_table(HEADER, scaling_rows(results), right=frozenset({1, 4, 5, 6, 7})),
        notes=[
            "threads: the threaded scheduler of one process with `num_workers` threads; "
            "cluster: `LocalCluster(n_workers, threads_per_worker=1, processes=True)` with the "
            "data generated and persisted on the workers",
            "the same blocks for every worker count; speedup and efficiency against the "
            "fewest workers of the same scheduler; same answer: bit-identical to that run",
            "peak MiB: RSS high-water mark above the setup (cluster: the largest worker's)",
        ],
        in_process=args.in_process,
        output=args.output,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
