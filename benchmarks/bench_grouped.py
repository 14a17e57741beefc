"""Grouped AUC (per user, as in click logs): dask-auc beside pandas + NumPy and pandas + sklearn.

Run it as a script::

    python benchmarks/bench_grouped.py --rows 5e7 --groups 1e6 --repeats 3

The data are click logs: ``--groups`` users whose row counts follow a
Zipf-like law (a few heavy users, a long tail of light ones, at least one row
each), shuffled so that every user's rows are spread over all partitions;
about 10% clicks, with each user's own click rate; scores rounded to 4
decimals (ties within users).  Methods, each in a fresh process with the
data loaded before the peak-memory baseline (``_memory.PeakMeter``;
``--in-process``: all in the script's own process, a smoke run):

- ``dask-auc-threads``: ``dask_auc.grouped_roc_auc_score(ddf, by="user", ...)``
  on a dask DataFrame of ~4 partitions per core, threaded scheduler.
- ``dask-auc-numpy-threads``: the same with ``dask-auc.numba`` off (no compiled loop).
- ``polars-ranksum``: polars, average ranks within users
  (``rank("average").over("user")``), the positives' rank sum per user and
  Mann-Whitney's formula -- exact (half-integer ranks).
- ``polars-groupby-cumulative``: polars, ``group_by(user, score)`` counts of
  each class, sorted, the negatives below each score by a cumulative sum over
  the user, and the twice-area ``pos * (2 * below + neg)`` summed per user.
- ``duckdb-groupby-window``: DuckDB, the same as SQL: ``GROUP BY user, score``
  and a window ``SUM(neg) OVER (PARTITION BY user ORDER BY score)``.
- ``pandas-ranksum``: the vectorized single-process baseline: average ranks
  within users (``groupby().rank()``), the positives' rank sum per user, and
  Mann-Whitney's ``(R - P(P+1)/2) / (P N)`` -- exact, like dask-auc.
- ``sklearn-per-group``: ``for user, rows in df.groupby("user"):
  roc_auc_score(...)`` over the users having both classes.  Far too slow for
  every user: it is timed on ``--sklearn-groups`` users drawn at random and
  its seconds are **extrapolated** linearly to all users (marked so in the table).

Every method but sklearn's runs once untimed before the timed runs (lazy
imports, thread pools, caches), outside the peak-memory metering.

Answers: each method's per-user AUCs are compared, as the maximum absolute
difference over the users both computed (dask-auc and pandas over all users;
either against sklearn over its sample).
"""

from __future__ import annotations

import argparse
import datetime
import os
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _process  # noqa: E402
from bench_auc import environment, fmt_ratio, fmt_rows, fmt_seconds, markdown_table  # noqa: E402

METHODS = (
    "dask-auc-threads",
    "dask-auc-numpy-threads",
    "polars-ranksum",
    "polars-groupby-cumulative",
    "duckdb-groupby-window",
    "pandas-ranksum",
    "sklearn-per-group",
)
#: the peers issue 23 sets the goals against (dask-auc >= 2x faster than the best of them)
PEERS = ("polars-ranksum", "polars-groupby-cumulative", "duckdb-groupby-window")
TOLERANCE = 1e-12
MIB = 1 << 20
_ZIPF_OFFSET = 50  # users ranked below it share the head about evenly
_ZIPF_EXPONENT = 1.1


# -- data -------------------------------------------------------------------------------


def user_sizes(rows: int, groups: int, seed: int) -> np.ndarray:
    """Rows per user: Zipf-like ``1 / (rank + 50) ** 1.1``, at least 1 each, ``rows`` in all."""
    if rows < groups:
        raise ValueError(f"need at least one row per group: rows={rows} < groups={groups}")
    share = 1.0 / (np.arange(groups) + _ZIPF_OFFSET) ** _ZIPF_EXPONENT
    sizes = 1 + np.floor(share / share.sum() * (rows - groups)).astype(np.int64)
    sizes[: rows - int(sizes.sum())] += 1  # the rounding remainder, one row to each head user
    return np.random.default_rng([seed, 1]).permutation(sizes)  # sizes unrelated to user ids


def click_log(rows: int, groups: int, seed: int) -> dict[str, np.ndarray]:
    """``user`` (int64), ``click`` (int8), ``score`` (float64, 4 decimals), rows shuffled."""
    rng = np.random.default_rng([seed, 2])
    user = np.repeat(np.arange(groups, dtype=np.int64), user_sizes(rows, groups, seed))
    rng.shuffle(user)
    rate = rng.beta(2.0, 18.0, groups)  # each user's click rate, mean 10%
    click = (rng.random(rows) < rate[user]).astype(np.int8)
    logit = np.log(rate / (1 - rate))[user] + 1.2 * click + rng.standard_normal(rows)
    score = np.round(1.0 / (1.0 + np.exp(-logit)), 4)
    return {"user": user, "click": click, "score": score}


def sampled_users(groups: int, sample: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng([seed, 3])
    return np.sort(rng.choice(groups, size=min(sample, groups), replace=False))


# -- the methods (each returns (user ids, auc per user)) --------------------------------


def setup_dask_auc(
    data: dict[str, np.ndarray], args: argparse.Namespace, compiled: bool = True
) -> Callable[[], Any]:
    import dask
    import dask.dataframe as dd
    import pandas as pd

    import dask_auc

    if compiled:  # the numba loops compiled (or loaded from disk) before timing, not during
        from dask_auc._kernels.sort.compiled import compile_now

        compile_now()
    frame = pd.DataFrame(data)
    partitions = args.partitions or 4 * (os.cpu_count() or 1)
    ddf = dd.from_pandas(frame, npartitions=partitions, sort=False)

    def run() -> tuple[np.ndarray, np.ndarray]:
        with dask.config.set({"scheduler": "threads", "dask-auc.numba": compiled}):
            result = dask_auc.grouped_roc_auc_score(ddf, by="user", label="click", score="score")
        return result.per_group.index.to_numpy(), result.per_group["auc"].to_numpy()

    return run


def setup_dask_auc_numpy(data: dict[str, np.ndarray], args: argparse.Namespace) -> Callable:
    return setup_dask_auc(data, args, compiled=False)


def _auc_of_counts(twice_area: np.ndarray, n_pos: np.ndarray, n_neg: np.ndarray) -> np.ndarray:
    """``twice_area / (2 n_pos n_neg)``, NaN for a user lacking a class (exact integer inputs)."""
    twice_area, n_pos, n_neg = (np.asarray(a, dtype=np.float64) for a in (twice_area, n_pos, n_neg))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((n_pos > 0) & (n_neg > 0), twice_area / (2 * n_pos * n_neg), np.nan)


def setup_polars_ranksum(data: dict[str, np.ndarray], args: argparse.Namespace) -> Callable:
    import polars as pl

    frame = pl.DataFrame(data)

    def run() -> tuple[np.ndarray, np.ndarray]:
        click = pl.col("click").cast(pl.Int64)
        per_user = (
            frame.with_columns(rank=pl.col("score").rank("average").over("user"))
            .group_by("user")
            .agg(
                rank_sum=(pl.col("rank") * click).sum(),
                n_pos=click.sum(),
                n=pl.len(),
            )
            .sort("user")
        )
        n_pos = per_user["n_pos"].to_numpy().astype(np.float64)
        n_neg = per_user["n"].to_numpy().astype(np.float64) - n_pos
        # twice the Mann-Whitney U: ranks are half-integers, so this is exact
        twice = 2 * per_user["rank_sum"].to_numpy() - n_pos * (n_pos + 1)
        return per_user["user"].to_numpy(), _auc_of_counts(twice, n_pos, n_neg)

    return run


def setup_polars_cumulative(data: dict[str, np.ndarray], args: argparse.Namespace) -> Callable:
    import polars as pl

    frame = pl.DataFrame(data)

    def run() -> tuple[np.ndarray, np.ndarray]:
        click = pl.col("click").cast(pl.Int64)
        ties = (
            frame.group_by("user", "score")
            .agg(pos=click.sum(), neg=pl.len().cast(pl.Int64) - click.sum())
            .sort("user", "score")
            .with_columns(below=pl.col("neg").cum_sum().over("user") - pl.col("neg"))
        )
        per_user = (
            ties.group_by("user")
            .agg(
                twice=(pl.col("pos") * (2 * pl.col("below") + pl.col("neg"))).sum(),
                n_pos=pl.col("pos").sum(),
                n_neg=pl.col("neg").sum(),
            )
            .sort("user")
        )
        auc = _auc_of_counts(
            per_user["twice"].to_numpy(), per_user["n_pos"].to_numpy(), per_user["n_neg"].to_numpy()
        )
        return per_user["user"].to_numpy(), auc

    return run


_DUCKDB_QUERY = """
WITH ties AS (
    SELECT "user", score, SUM(click)::BIGINT AS pos, (COUNT(*) - SUM(click))::BIGINT AS neg
    FROM clicks GROUP BY "user", score
), ranked AS (
    SELECT "user", pos, neg,
           COALESCE(SUM(neg) OVER (PARTITION BY "user" ORDER BY score
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS below
    FROM ties
)
SELECT "user", SUM(pos * (2 * below + neg))::DOUBLE AS twice,
       SUM(pos)::DOUBLE AS n_pos, SUM(neg)::DOUBLE AS n_neg
FROM ranked GROUP BY "user" ORDER BY "user"
"""


def setup_duckdb(data: dict[str, np.ndarray], args: argparse.Namespace) -> Callable:
    import duckdb
    import pandas as pd

    connection = duckdb.connect()
    connection.execute(f"SET threads TO {os.cpu_count() or 1}")
    clicks = pd.DataFrame(data)
    connection.execute("CREATE TABLE clicks AS SELECT * FROM clicks")  # loaded before timing

    def run() -> tuple[np.ndarray, np.ndarray]:
        result = connection.execute(_DUCKDB_QUERY).fetchnumpy()
        auc = _auc_of_counts(result["twice"], result["n_pos"], result["n_neg"])
        return np.asarray(result["user"]), auc

    del clicks
    return run


def setup_pandas_ranksum(data: dict[str, np.ndarray], args: argparse.Namespace) -> Callable:
    import pandas as pd

    frame = pd.DataFrame(data)

    def run() -> tuple[np.ndarray, np.ndarray]:
        ranks = frame.groupby("user")["score"].rank(method="average").to_numpy()
        positive = frame["click"].to_numpy() == 1
        per_user = (
            pd.DataFrame(
                {"user": frame["user"], "rank": np.where(positive, ranks, 0.0), "pos": positive}
            )
            .groupby("user")
            .agg(rank_sum=("rank", "sum"), n_pos=("pos", "sum"), n=("pos", "size"))
        )
        n_pos = per_user["n_pos"].to_numpy(np.float64)
        n_neg = per_user["n"].to_numpy(np.float64) - n_pos
        # ranks are half-integers: the numerator is exact, the division rounds once
        numerator = per_user["rank_sum"].to_numpy() - n_pos * (n_pos + 1) / 2
        with np.errstate(divide="ignore", invalid="ignore"):
            auc = np.where((n_pos > 0) & (n_neg > 0), numerator / (n_pos * n_neg), np.nan)
        return per_user.index.to_numpy(), auc

    return run


def setup_sklearn(data: dict[str, np.ndarray], args: argparse.Namespace) -> Callable:
    import pandas as pd
    from sklearn.metrics import roc_auc_score

    users = sampled_users(args.groups, args.sklearn_groups, args.seed)
    frame = pd.DataFrame(data)
    frame = frame[np.isin(frame["user"].to_numpy(), users)].reset_index(drop=True)

    def run() -> tuple[np.ndarray, np.ndarray]:
        keys, aucs = [], []
        for user, rows in frame.groupby("user"):
            label = rows["click"].to_numpy()
            keys.append(user)
            if label.min() == label.max():
                aucs.append(np.nan)  # one class: skipped, as GAUC does
            else:
                aucs.append(roc_auc_score(label, rows["score"].to_numpy()))
        return np.asarray(keys), np.asarray(aucs)

    return run


SETUPS = {
    "dask-auc-threads": setup_dask_auc,
    "dask-auc-numpy-threads": setup_dask_auc_numpy,
    "polars-ranksum": setup_polars_ranksum,
    "polars-groupby-cumulative": setup_polars_cumulative,
    "duckdb-groupby-window": setup_duckdb,
    "pandas-ranksum": setup_pandas_ranksum,
    "sklearn-per-group": setup_sklearn,
}


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """In the measuring process: load the data, set up, meter ``--repeats`` timed runs."""
    import _memory

    with np.load(args.workdir / "data.npz") as stored:
        data = {name: stored[name] for name in stored.files}
    run = SETUPS[args.measure](data, args)
    if args.measure != "sklearn-per-group":  # extrapolated from one run: no second
        run()  # warm-up, untimed and unmetered: lazy imports, thread pools, first-touch caches
    meter = _memory.PeakMeter()
    meter.start()
    seconds, answers = [], []
    for _ in range(args.repeats):
        start = time.perf_counter()
        answers.append(run())
        seconds.append(time.perf_counter() - start)
    peak = meter.stop()
    keys, auc = answers[-1]
    np.savez(args.workdir / f"{args.measure}.npz", keys=keys, auc=auc)
    agree = all(np.array_equal(a[1], auc, equal_nan=True) for a in answers)
    return {
        "seconds": seconds,
        "peak": peak,
        "meter": meter.method,
        "groups": len(keys),
        "repeats_agree": agree,
    }


# -- the parent -------------------------------------------------------------------------


def run_measurement(method: str, args: argparse.Namespace) -> dict[str, Any]:
    """One method: :func:`measure` in a fresh process (or in this one with ``--in-process``)."""
    repeats = args.repeats if method != "sklearn-per-group" else args.sklearn_repeats
    command = _process.script_command(
        __file__, "--measure", method, "--workdir", args.workdir, "--rows", args.rows,
        "--groups", args.groups, "--repeats", repeats, "--sklearn-groups", args.sklearn_groups,
        "--seed", args.seed, "--partitions", args.partitions,
    )  # fmt: skip
    return _process.measure_row(
        measure, args, command, timeout=args.timeout, measure=method, repeats=repeats
    )


def max_difference(workdir: Path, first: str, second: str) -> tuple[float, int] | None:
    """Max |auc difference| over the users both methods computed, and how many those are."""
    try:
        a, b = np.load(workdir / f"{first}.npz"), np.load(workdir / f"{second}.npz")
    except OSError:
        return None
    common, ia, ib = np.intersect1d(a["keys"], b["keys"], return_indices=True)
    x, y = a["auc"][ia], b["auc"][ib]
    if not np.array_equal(np.isnan(x), np.isnan(y)):
        return float("inf"), len(common)
    defined = ~np.isnan(x)
    return (float(np.max(np.abs(x[defined] - y[defined]), initial=0.0)), len(common))


def build_table(results: dict[str, dict[str, Any]], args: argparse.Namespace) -> list[list[str]]:
    seconds: dict[str, float] = {}
    for method, result in results.items():
        if "error" not in result:
            median = statistics.median(result["seconds"])
            if method == "sklearn-per-group":  # extrapolated to every user
                median *= args.groups / result["groups"]
            seconds[method] = median
    peers = [seconds[m] for m in PEERS if m in seconds]
    best_peer = min(peers) if peers else None
    lines = []
    for method, result in results.items():
        if "error" in result:
            failed = [method, fmt_rows(args.rows), "-", "failed", *["-"] * 6, result["error"], "-"]
            lines.append(failed)
            continue
        checks = []
        for other in METHODS:
            if other != method and other in seconds:
                diff = max_difference(args.workdir, method, other)
                if diff is not None:
                    verdict = "yes" if diff[0] <= TOLERANCE else "NO"
                    checks.append(f"{verdict} (Δ {diff[0]:.1e} vs {other}, {diff[1]:,} groups)")
        if not result["repeats_agree"]:
            checks.append("NO: repeats disagree")
        if method == "sklearn-per-group":
            measured = statistics.median(result["seconds"])
            timing = (
                f"**extrapolated** x{args.groups / result['groups']:.0f} from "
                f"{measured:.2f} s measured on {result['groups']:,} random users"
            )
        else:
            timing = f"measured, all {result['groups']:,} users"
        lines.append(
            [
                method,
                fmt_rows(args.rows),
                f"{result['groups']:,}",
                fmt_seconds(seconds[method]),
                f"{result['peak'] / MIB:.0f}",
                f"{result['peak'] / args.rows:.1f}",
                fmt_ratio(seconds.get("sklearn-per-group"), seconds[method]),
                fmt_ratio(seconds.get("pandas-ranksum"), seconds[method]),
                fmt_ratio(seconds.get("dask-auc-threads"), seconds[method]),
                fmt_ratio(best_peer, seconds[method]),
                "; ".join(checks) or "-",
                timing,
            ]
        )
    return lines


HEADER = [
    "method",
    "rows",
    "groups computed",
    "seconds, all groups (median)",
    "peak MiB",
    "bytes/row",
    "x sklearn",
    "x pandas-ranksum",
    "x dask-auc",
    "x best polars/DuckDB",
    "same answer",
    "timing",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--rows", type=lambda t: int(float(t)), default=int(5e7))
    parser.add_argument("--groups", type=lambda t: int(float(t)), default=int(1e6))
    parser.add_argument(
        "--methods", default=",".join(METHODS), help=f"comma-separated among {', '.join(METHODS)}"
    )
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per method")
    parser.add_argument(
        "--sklearn-groups",
        type=lambda t: int(float(t)),
        default=int(2e4),
        help="users timed with sklearn (seconds extrapolated to all users)",
    )
    parser.add_argument(
        "--sklearn-repeats", type=int, default=1, help="timed runs of the sklearn loop"
    )
    parser.add_argument(
        "--partitions", type=int, default=0, help="dask partitions (default: 4 per core)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--output", type=Path, default=None, help="also write the report here")
    _process.add_in_process_flag(parser)
    parser.add_argument("--workdir", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--measure", default=None, help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.measure is not None:
        _process.emit(measure(args))
        return 0
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        raise SystemExit(f"unknown methods {unknown}; choose among {', '.join(METHODS)}")
    command = "python benchmarks/bench_grouped.py " + shlex.join(
        argv if argv is not None else sys.argv[1:]
    )
    started = datetime.datetime.now().astimezone()
    env_line = environment()
    with tempfile.TemporaryDirectory(prefix="bench-grouped-") as workdir:
        args.workdir = Path(workdir)
        start = time.perf_counter()
        np.savez(args.workdir / "data.npz", **click_log(args.rows, args.groups, args.seed))
        print(f"data: {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
        results = {}
        for method in methods:
            print(f"{method} ...", end=" ", file=sys.stderr, flush=True)
            results[method] = run_measurement(method, args)
            shown = results[method].get("error") or f"{min(results[method]['seconds']):.2f} s"
            print(shown, file=sys.stderr, flush=True)
        table = markdown_table(HEADER, build_table(results, args))
    sizes = user_sizes(args.rows, args.groups, args.seed)
    meters = sorted({r["meter"] for r in results.values() if "meter" in r})
    _process.write_report(
        command=command,
        started=started,
        env_line=env_line,
        table=table,
        notes=[
            f"data: {args.rows:,} rows, {args.groups:,} users; rows per user: median "
            f"{int(np.median(sizes))}, mean {sizes.mean():.1f}, max {sizes.max():,} "
            f"({sizes.max() / args.rows:.2%} of rows), {np.sum(sizes == 1):,} one-row users",
            "seconds: median of the timed runs; for sklearn-per-group, the sampled users' time "
            "x (all users / sampled users)",
            "peak memory: RSS high-water mark above the RSS with the data loaded "
            f"({', '.join(meters)})",
        ],
        in_process=args.in_process,
        output=args.output,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
