"""Scale-out: the same rows in 8 to 10,000 input partitions, threads and a process cluster.

Run it as a script (each measurement in a fresh process, or all in the script's
own with ``--in-process`` for a smoke run; medians of repeats)::

    python benchmarks/scale_out.py --rows 5e7 --partitions 8,200,2000,10000 \
        --schedulers threads,cluster --repeats 3

The data are a pure function of the row index (a splitmix64 hash), so every
partition count computes the *same* rows and the same AUC, generated where the
tasks run (no data shipped from the client) and persisted before the clock
starts: only ``roc_auc_score`` (graph building included) is timed.  Scores are continuous floats,
labels depend on the score (AUC ~0.68).  ``--src`` imports dask-auc from
another checkout (``git worktree add /tmp/old <commit>``) to compare commits
in one run; ``--exchange`` forces ``dask-auc.exchange`` (p2p, direct, tasks).
``--workers`` gives the cluster's worker processes (one thread each) for
strong scaling; ``--memory-limit`` their memory.

Prints one Markdown table: seconds (median and all runs), the AUC (equal across
rows of the same data), the bucket count the engine chose and the task count.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _process  # noqa: E402


def _scored(index):
    """Scores and labels of rows ``index`` (uint64): the same whatever the chunking."""
    import numpy as np

    def splitmix(x):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))

    with np.errstate(over="ignore"):
        a = splitmix(index)
        b = splitmix(a)
    score = (a >> np.uint64(11)).astype(np.float64) * 2.0**-53
    noise = (b >> np.uint64(11)).astype(np.float64) * 2.0**-53
    label = (noise < 0.15 + 0.5 * score).astype(np.int8)
    return label, score


def _labels(index):
    return _scored(index)[0]


def _scores(index):
    return _scored(index)[1]


def measure(args: argparse.Namespace) -> dict:
    if args.src:
        sys.path.insert(0, args.src)
    import dask
    import dask.array as da
    import numpy as np

    import dask_auc

    chunk = -(-args.rows // args.partitions)
    index = da.arange(args.rows, chunks=chunk, dtype=np.uint64)
    y = index.map_blocks(_labels, dtype=np.int8)
    s = index.map_blocks(_scores, dtype=np.float64)
    settings = {} if not args.exchange else {"dask-auc.exchange": args.exchange}
    client = cluster = None
    if args.scheduler == "cluster":
        from distributed import Client, LocalCluster

        cluster = LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=args.memory_limit,
            dashboard_address=None,
        )
        client = Client(cluster)
    times, value, tasks, buckets = [], None, 0, None
    try:
        # the rows are made and held in memory first: only the AUC is timed
        y, s = dask.persist(y, s)
        if client is not None:
            from distributed import wait

            wait([y, s])
        with dask.config.set(settings):
            for _ in range(args.repeats):
                start = time.perf_counter()
                lazy = dask_auc.roc_auc_score(y, s, compute=False)
                value = float(lazy.compute())
                times.append(time.perf_counter() - start)
                graph = lazy.__dask_graph__()
                tasks = len(graph)
                buckets = sum(1 for k in graph if isinstance(k, tuple) and "auc-summary" in k[0])
    finally:
        if client is not None:
            client.close()
            cluster.close()
    return {"times": times, "auc": value, "tasks": tasks, "buckets": buckets}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=lambda t: int(float(t)), default=50_000_000)
    parser.add_argument("--partitions", default="8,20,200,2000,10000")
    parser.add_argument("--schedulers", default="threads,cluster")
    parser.add_argument("--workers", default="2", help="cluster worker processes, e.g. 1,2")
    parser.add_argument("--memory-limit", default="6GiB")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--src", default="", help="import dask_auc from this src directory")
    parser.add_argument("--label", default="", help="name of this checkout in the table")
    parser.add_argument("--exchange", default="", help="force dask-auc.exchange")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--scheduler", default="threads", help=argparse.SUPPRESS)
    parser.add_argument("--max-cluster-partitions", type=int, default=2000)
    parser.add_argument(
        "--timeout", type=float, default=None, help="seconds per measurement (default: none)"
    )
    _process.add_in_process_flag(parser)
    args = parser.parse_args()
    if args.measure:
        args.partitions = int(args.partitions)
        args.workers = int(args.workers)
        _process.emit(measure(args))
        return
    rows = []
    for scheduler in args.schedulers.split(","):
        for workers in args.workers.split(",") if scheduler == "cluster" else ["-"]:
            for partitions in args.partitions.split(","):
                if scheduler == "cluster" and int(partitions) > args.max_cluster_partitions:
                    continue
                one = {
                    "partitions": int(partitions),
                    "scheduler": scheduler,
                    "workers": 1 if workers == "-" else int(workers),
                }
                command = _process.script_command(
                    __file__, "--measure", f"--rows={args.rows}",
                    f"--partitions={partitions}", f"--scheduler={scheduler}",
                    f"--workers={one['workers']}", f"--memory-limit={args.memory_limit}",
                    f"--repeats={args.repeats}", f"--src={args.src}",
                    f"--exchange={args.exchange}",
                )  # fmt: skip
                result = _process.measure_row(measure, args, command, timeout=args.timeout, **one)
                if "error" in result:
                    failed = (scheduler, workers, partitions, "failed", result["error"], "", "", "")
                    rows.append(failed)
                    continue
                times = result["times"]
                rows.append(
                    (
                        scheduler,
                        workers,
                        partitions,
                        f"{statistics.median(times):.2f}",
                        " ".join(f"{t:.2f}" for t in times),
                        f"{result['auc']:.15f}",
                        str(result["buckets"]),
                        str(result["tasks"]),
                    )
                )
                print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
    label = args.label or (args.src or "this checkout")
    exchange = args.exchange or "auto"
    where = f"; {_process.IN_PROCESS_NOTE}" if args.in_process else ""
    print(f"\n{args.rows:.0e} rows, dask-auc from {label}, exchange {exchange}{where}\n")
    header = ["scheduler", "workers", "partitions", "median s", "runs", "AUC", "buckets", "tasks"]
    print("| " + " | ".join(header) + " |")
    print("|" + " --- |" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
