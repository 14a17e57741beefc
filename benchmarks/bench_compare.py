"""Many models in one pass: ``compare`` and the grouped AUC of several score columns.

Run it as a script (on an idle machine; the defaults are a quick check)::

    python benchmarks/bench_compare.py --rows 2e7 --models 5 --repeats 3

(``--only grouped``: the three grouped measurements alone.  ``--profile``: no
timings, but the task-seconds of ``compare`` with ``test=None`` and with DeLong's
test by task-key prefix, from :class:`dask.diagnostics.Profiler` on the threaded
scheduler: which tasks DeLong adds and what each costs per row.)

The data: ``--rows`` scored rows in ``--files`` Parquet files (labels, a user
key of ``--groups`` users, ``--models`` score columns of different quality,
rounded to 4 decimals), written to a temporary directory and read with
``dask.dataframe.read_parquet``, so that reading the labels is part of every
timing, as it is for a user.  Each measurement is timed ``--repeats`` times
after one untimed run; the table shows the median and the ratio to the one
model's time.

- ``roc_auc_score x1``: ``dask_auc.roc_auc_score(df["y"], df["s0"])``.
- ``roc_auc_score xN separate``: one call per model, one after the other.
- ``compare xN``: ``dask_auc.compare(df["y"], {...}, test=None)``: every
  model's AUC in one computation (the issue's goal: <= 3x one AUC).
- ``compare xN delong``: the same with DeLong's paired test of each model
  against the first: one multi-model DeLong (every model's scores sorted once
  more, with row ids, its placements routed back to their blocks once, and
  every pair's cross sums made there).
- ``delong_test x(N-1) pairwise``: what ``compare``'s tests cost before, one
  ``delong_test`` per model and the first (each sorts and routes both models).
- ``grouped x1``: ``grouped_roc_auc_score(df, by="user", score="s0")``.
- ``grouped xN``: ``score=[s0, ..., sN-1]``, one hash exchange (the issue's
  goal: <= 2.5x one).
- ``grouped xN separate``: one call per column.

Every answer is checked: ``compare``'s AUCs against the separate calls' (the
same bits), its DeLong columns against the pairwise ``delong_test`` calls'
(to rounding: see :func:`check_delong`), the grouped tables of the list against the separate calls'.
``--scheduler processes`` runs on a ``distributed.LocalCluster`` of
``--workers`` single-thread worker processes instead of threads.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd


def write_data(root: Path, rows: int, models: int, groups: int, files: int, seed: int) -> None:
    """``files`` Parquet files of labels, users and ``models`` score columns."""
    rng = np.random.default_rng(seed)
    for i, cut in enumerate(np.array_split(np.arange(rows), files)):
        n = len(cut)
        user = rng.integers(0, groups, n)
        y = (rng.random(n) < 0.1 + 0.2 * (user % 3 == 0)).astype(np.int8)
        columns: dict[str, Any] = {"user": user, "y": y}
        for m in range(models):
            signal = (1.0 - 0.15 * m) * y
            columns[f"s{m}"] = np.round(1 / (1 + np.exp(-(signal + rng.normal(size=n)))), 4)
        pd.DataFrame(columns).to_parquet(root / f"part-{i:04d}.parquet", index=False)


def timed(run: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """The median seconds of ``repeats`` runs after one untimed run, and the last answer."""
    answer = run()
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        answer = run()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), answer


@contextlib.contextmanager
def scheduler(kind: str, workers: int) -> Iterator[None]:
    if kind == "threads":
        yield
        return
    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, processes=True) as cluster,
        Client(cluster),
    ):
        yield


def measure(
    path: Path, models: int, repeats: int, only: str = "all"
) -> list[tuple[str, float, str]]:
    """Every measurement: ``(name, seconds, note)``; raises if two answers disagree.

    ``only="grouped"``: the grouped AUC's three measurements alone.
    """
    import dask.dataframe as dd

    import dask_auc

    df = dd.read_parquet(str(path))
    names = [f"s{m}" for m in range(models)]
    rows: list[tuple[str, float, str]] = []

    def add(name: str, run: Callable[[], Any], note: str = "") -> Any:
        seconds, answer = timed(run, repeats)
        rows.append((name, seconds, note))
        print(f"  {name}: {seconds:.3f} s", file=sys.stderr, flush=True)
        return answer

    if only != "grouped":
        measure_compare(df, names, add)

    def grouped(score: Any) -> Any:
        return dask_auc.grouped_roc_auc_score(df, by="user", label="y", score=score)

    add("grouped x1", lambda: grouped("s0"))
    many = add(f"grouped x{models}", lambda: grouped(names), "goal <= 2.5x one")
    each = add(f"grouped x{models} separate", lambda: [grouped(n) for n in names])
    for name, one in zip(names, each, strict=True):
        pd.testing.assert_frame_equal(many.per_group[name], one.per_group, check_exact=True)
    return rows


def measure_compare(df: Any, names: list[str], add: Callable[..., Any]) -> None:
    """``roc_auc_score``, ``compare`` and ``delong_test``'s measurements (see the module)."""
    import dask_auc

    models = len(names)
    add("roc_auc_score x1", lambda: dask_auc.roc_auc_score(df["y"], df["s0"]))
    separate = add(
        f"roc_auc_score x{models} separate",
        lambda: [dask_auc.roc_auc_score(df["y"], df[n]) for n in names],
    )
    table = add(
        f"compare x{models}",
        lambda: dask_auc.compare(df["y"], {n: df[n] for n in names}, test=None),
        "goal <= 3x one AUC",
    )
    if list(table["roc_auc"]) != separate:
        raise AssertionError(f"compare's AUCs {list(table['roc_auc'])} != {separate}")
    tested = add(
        f"compare x{models} delong",
        lambda: dask_auc.compare(df["y"], {n: df[n] for n in names}),
        "DeLong against s0, one multi-model pass",
    )
    if models > 1:
        pairwise = add(
            f"delong_test x{models - 1} pairwise",
            lambda: [dask_auc.delong_test(df["y"], df[n], df["s0"]) for n in names[1:]],
            "each model against s0, one call a pair",
        )
        check_delong(tested, names, pairwise)


def check_delong(table: pd.DataFrame, names: list[str], pairwise: list[Any]) -> None:
    """``compare``'s DeLong columns are the pairwise ``delong_test`` results.

    The same bits on the same blocks; ``compare`` cuts a frame's columns into
    one block per partition, where a direct call may join small partitions
    (coalescing), so their float sums may differ in the last bits.
    """
    for name, test in zip(names[1:], pairwise, strict=True):
        got = tuple(table.loc[name, ["difference", "std_error", "z", "p_value"]])
        want = (test.difference, test.std_error, test.z, test.p_value)
        if not np.allclose(got, want, rtol=1e-11, atol=0, equal_nan=True):
            raise AssertionError(f"compare's DeLong row of {name} {got} != delong_test's {want}")
    print(table.to_string(float_format="{:.6g}".format), file=sys.stderr, flush=True)


def profile(path: Path, models: int) -> str:
    """Task-seconds of ``compare`` (``test=None``, then DeLong's) by task-key prefix, per row.

    One untimed run of each first (the files cached), then one run
    under :class:`dask.diagnostics.Profiler`; the threaded scheduler.
    """
    import collections

    import dask
    import dask.dataframe as dd
    from dask.diagnostics import Profiler

    import dask_auc
    from dask_auc._kernels.sort import compiled

    compiled.compile_now()  # the compiled loops (if numba is installed), not their NumPy paths
    df = dd.read_parquet(str(path))
    names = [f"s{m}" for m in range(models)]
    rows = len(df)
    by_test: dict[str, collections.Counter[str]] = {}
    with dask.config.set(scheduler="threads"):
        for test in (None, "delong"):

            def run(test: str | None = test) -> Any:
                return dask_auc.compare(df["y"], {n: df[n] for n in names}, test=test)

            run()
            with Profiler() as prof:
                run()
            spent: collections.Counter[str] = collections.Counter()
            for result in prof.results:
                key = result.key[0] if isinstance(result.key, tuple) else result.key
                spent[str(key).rsplit("-", 1)[0]] += result.end_time - result.start_time
            by_test[str(test)] = spent
    lines = [
        f"task-seconds of compare x{models} by task-key prefix, {rows} rows (ns per row)",
        "| task | test=None | test='delong' |",
        "| --- | ---: | ---: |",
    ]
    none, delong = by_test["None"], by_test["delong"]
    for key in sorted(set(none) | set(delong), key=lambda k: -max(none[k], delong[k])):
        cells = [f"{t[key]:.3f} ({t[key] / rows * 1e9:.0f})" for t in (none, delong)]
        lines.append(f"| {key} | {cells[0]} | {cells[1]} |")
    totals = [f"{sum(t.values()):.3f} ({sum(t.values()) / rows * 1e9:.0f})" for t in (none, delong)]
    lines.append(f"| total | {totals[0]} | {totals[1]} |")
    return "\n".join(lines)


def report(rows: list[tuple[str, float, str]]) -> str:
    """A Markdown table: seconds, and the ratio to the one-model time of the same kind."""
    lines = ["| measurement | seconds | x one model | note |", "| --- | ---: | ---: | --- |"]
    base = {"gro": next(s for n, s, _ in rows if n == "grouped x1")}
    if rows[0][0] == "roc_auc_score x1":
        base.update({"roc": rows[0][1], "com": rows[0][1], "del": rows[0][1]})
    for name, seconds, note in rows:
        ratio = seconds / base[name[:3]]
        lines.append(f"| {name} | {seconds:.3f} | {ratio:.2f}x | {note} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=2e5, help="rows (default 2e5)")
    parser.add_argument("--models", type=int, default=5, help="score columns (default 5)")
    parser.add_argument("--groups", type=float, default=1e4, help="users (default 1e4)")
    parser.add_argument("--files", type=int, default=8, help="Parquet files (default 8)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs (default 3)")
    parser.add_argument("--scheduler", choices=("threads", "processes"), default="threads")
    parser.add_argument("--workers", type=int, default=2, help="with --scheduler processes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--only",
        choices=("all", "grouped"),
        default="all",
        help="grouped: the grouped AUC's measurements alone (default all)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="task-seconds of compare (test=None and DeLong's) by task key, not timings",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "scores"
        root.mkdir()
        write_data(root, int(args.rows), args.models, int(args.groups), args.files, args.seed)
        if args.profile:
            table = profile(root, args.models)
        else:
            with scheduler(args.scheduler, args.workers):
                table = report(measure(root, args.models, args.repeats, args.only))
    command = " ".join(["python benchmarks/bench_compare.py", *(argv or sys.argv[1:])])
    text = f"`{command}`\n\n{table}"
    print(text)
    return text


if __name__ == "__main__":
    main()
