"""A process's first call against its second: what the background numba compile costs a call.

Run it as a script::

    python benchmarks/bench_first_call.py --rows 1e6 --replicates 300 --processes 3

Every measurement is a FRESH Python process that generates ``_data.py``'s
continuous scores (``--rows`` rows in dask arrays of ``--chunks`` chunks),
then times the same call twice: the first call of the process (the numba
loops compile in the background meanwhile; a task whose NumPy work outweighs
the compile left waits for it) and the second (everything compiled).  Calls:

* ``bootstrap_ci(average_precision)`` -- ``--replicates`` replicates;
* ``roc_auc_score`` -- one exact AUC.

Each call runs with ``dask-auc.numba`` on and off (``--numba``), on the
threaded scheduler or, with ``--scheduler distributed``, on a fresh
``LocalCluster`` of one worker process with two threads (the worker compiles
the loops itself).  ``--numba-cache filled`` (default) fills a new numba cache
directory first, in a process of its own, so that every measured process
loads the loops from it; ``empty`` gives every process an empty one (a cold
compile); ``default`` leaves numba's cache where it is.  ``--processes``
fresh processes per row: the table gives the median and the range of each
call's seconds, and the tasks that waited for the compile (median).

It has no ``--in-process`` mode (``_process.py``): a first call is only a
first call in a fresh process.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _process  # noqa: E402

CALLS = ("bootstrap_ci(average_precision)", "roc_auc_score")


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """One fresh process: the first and second call's seconds."""
    import dask
    import dask.array as da
    from _data import generate

    import dask_auc
    from dask_auc._kernels.sort import compiled

    label, score = generate(args.rows, "continuous")
    size = -(-args.rows // args.chunks)
    y, s = da.from_array(label, chunks=size), da.from_array(score, chunks=size)
    settings: dict[str, Any] = {"dask-auc.numba": args.numba == "on"}
    client = None
    if args.scheduler == "distributed":
        from distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=1, threads_per_worker=2, processes=True)
        client = Client(cluster)
        y, s = client.persist([y, s])
    else:
        settings["scheduler"] = "threads"

    def call() -> float:
        if args.measure == CALLS[0]:
            ci = dask_auc.bootstrap_ci(
                y, s, metric="average_precision", n_bootstraps=args.replicates, random_state=0
            )
            return float(ci.estimate)
        return float(dask_auc.roc_auc_score(y, s))

    def waited() -> int:  # tasks that waited for the bootstrap's loops (0 where none can)
        family = getattr(compiled, "_REPLICATES", None)
        return int(getattr(family, "waited", 0))

    out: dict[str, Any] = {"seconds": [], "answers": []}
    with dask.config.set(settings):
        for _ in range(2):
            started = time.perf_counter()
            out["answers"].append(call())
            out["seconds"].append(time.perf_counter() - started)
    out["waited"] = client.run(waited) if client is not None else {"local": waited()}
    out["waited"] = sum(out["waited"].values())
    if client is not None:
        client.close()
        cluster.close()
    return out


def _child(args: argparse.Namespace, call: str, numba: str, cache: str) -> dict[str, Any]:
    """Run ``measure`` in a fresh process with numba's cache at ``cache``."""
    command = _process.script_command(
        __file__, "--rows", args.rows, "--chunks", args.chunks, "--replicates", args.replicates,
        "--scheduler", args.scheduler, "--numba", numba, "--measure", call,
    )  # fmt: skip
    result = _process.run_child(command, env={"NUMBA_CACHE_DIR": cache} if cache else None)
    if "error" in result:
        raise SystemExit(f"the measuring process failed ({result['error']}): {shlex.join(command)}")
    return result


def _seconds(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=lambda t: int(float(t)), default=int(1e6))
    parser.add_argument("--chunks", type=int, default=4)
    parser.add_argument("--replicates", type=int, default=300)
    parser.add_argument("--processes", type=int, default=3, help="fresh processes per row")
    parser.add_argument("--numba", default="on,off", help="on, off or on,off")
    parser.add_argument("--calls", default=",".join(CALLS), help=f"of {', '.join(CALLS)}")
    parser.add_argument("--numba-cache", choices=("filled", "empty", "default"), default="filled")
    parser.add_argument("--scheduler", choices=("threads", "distributed"), default="threads")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        _process.emit(measure(args))
        return 0
    calls = args.calls.split(",")
    if unknown := sorted(set(calls) - set(CALLS)):
        parser.error(f"--calls: unknown {', '.join(unknown)}; expected {', '.join(CALLS)}")
    passed = argv if argv is not None else sys.argv[1:]
    rows = []
    with tempfile.TemporaryDirectory() as caches:
        filled = os.path.join(caches, "filled")
        if args.numba_cache == "filled" and "on" in args.numba:
            warm = "from dask_auc._kernels.sort import compiled; compiled.compile_now()"
            env = dict(os.environ, NUMBA_CACHE_DIR=filled)
            subprocess.run([sys.executable, "-c", warm], check=True, env=env)
        for call in calls:
            for numba in args.numba.split(","):
                runs = []
                for i in range(args.processes):
                    cache = {"filled": filled, "empty": f"{caches}/empty-{i}"}.get(
                        args.numba_cache, os.environ.get("NUMBA_CACHE_DIR", "")
                    )
                    runs.append(_child(args, call, numba, cache))
                rows.append((call, numba, runs))
    print(f"$ python {shlex.join(['benchmarks/bench_first_call.py', *passed])}")
    print(
        f"{args.rows:,} rows, {args.chunks} chunks, {args.replicates} replicates, "
        f"{args.scheduler} scheduler, numba cache {args.numba_cache}, {os.cpu_count()} cores, "
        f"{args.processes} fresh processes per row: median (range) seconds"
    )
    print()
    answers: dict[str, set[float]] = {}
    for call, _, runs in rows:  # every process's both calls, numba on and off alike
        answers.setdefault(call, set()).update(a for r in runs for a in r["answers"])
    print("| call | numba | 1st call s | 2nd call s | 1st / 2nd | tasks waited | same answer |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
    for call, numba, runs in rows:
        first = [r["seconds"][0] for r in runs]
        second = [r["seconds"][1] for r in runs]
        ratio = statistics.median(f / s for f, s in zip(first, second, strict=True))
        waited = statistics.median(r["waited"] for r in runs)
        cells = [call, numba, _seconds(first), _seconds(second), f"{ratio:.2f}x", f"{waited:g}"]
        cells.append("yes" if len(answers[call]) == 1 else f"NO: {sorted(answers[call])}")
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
