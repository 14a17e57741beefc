"""The exact AUC inside xgboost.dask training: its cost per round beside xgboost's own ``auc``.

Run it as a script, on an idle machine::

    python benchmarks/bench_training.py --rows 2e6 --rounds 20 --repeats 3

A local cluster of two single-thread worker processes (or ``--scheduler``, an
address of two or more workers) trains ``binary:logistic`` on generated rows of
two populations, one per worker: worker 0 holds rows of label rate ~0.4,
worker 1 rows whose first feature is shifted up and whose label rate is ~0.1,
in the training set and in the eval set (``--rows`` each) alike.  So the
workers' own AUCs are not the AUC of the eval set, and xgboost's ``auc`` (the
pair-weighted mean of the workers' AUCs) is off.

Timed, each run the same booster parameters and rounds, best of ``--repeats``:

- ``base``: the eval set evaluated with ``logloss`` only (a cheap metric: an
  eval set needs one);
- ``xgboost auc``: ``logloss`` and xgboost's own ``auc``;
- ``dask-auc``: ``logloss`` and ``dask_auc.XGBoostAUC()`` (its defaults), with
  its history callback.

The cost of a metric per round is ``(run - base) / rounds``; the table gives
both and their ratio (the goal: dask-auc's at most 1.5x xgboost's).  Then,
round by round: xgboost's ``auc``, dask-auc's metric, and the exact AUC of the
round's predictions after training (``xgboost.dask.inplace_predict`` with
``iteration_range``, then ``dask_auc.roc_auc_score``), and whether the metric
equals it bit for bit.
"""

from __future__ import annotations

import argparse
import time

import dask.array as da
import numpy as np
import xgboost
import xgboost.dask
from distributed import Client, LocalCluster

import dask_auc


def population(which: int, rows: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Population 0: label rate ~0.4; population 1: its first feature shifted up, rate ~0.1."""
    rng = np.random.default_rng(seed + which)
    x = rng.normal(size=(rows, 3))
    x[:, 0] += 1.5 * which
    logit = (-0.5 - 2.0 * which) + 1.2 * (x[:, 0] - 1.5 * which) + 0.5 * x[:, 1]
    y = (rng.random(rows) < 1 / (1 + np.exp(-logit))).astype(np.float32)
    return x, y


def _pick(pair: tuple, i: int) -> np.ndarray:
    return pair[i]


def pinned(client: Client, rows: int, seed: int) -> list:
    """``[X, y]``, persisted, block ``i`` (population ``i % 2``) on worker ``i`` only."""
    workers = sorted(client.scheduler_info()["workers"])
    per = rows // len(workers)
    X, y = [], []
    for i, worker in enumerate(workers):
        pair = client.submit(population, i % 2, per, seed + 10 * i, workers=[worker], pure=False)
        for out, j, shape, dtype in ((X, 0, (per, 3), np.float64), (y, 1, (per,), np.float32)):
            part = client.submit(_pick, pair, j, workers=[worker])
            out.append(da.from_delayed(part, shape=shape, dtype=dtype))
    return client.persist([da.concatenate(X), da.concatenate(y)])


def train(client: Client, data: tuple, args: argparse.Namespace, kind: str) -> tuple[float, dict]:
    """Seconds of one training of ``kind`` (base, xgboost auc, dask-auc, both) and its history."""
    dtrain, dvalid = data
    params = {
        "objective": "binary:logistic", "max_depth": args.max_depth, "eta": 0.3,
        "tree_method": "hist", "nthread": 1,
        "eval_metric": ["logloss", "auc"] if kind in ("xgboost auc", "both") else ["logloss"],
    }  # fmt: skip
    extra: dict = {}
    if kind in ("dask-auc", "both"):
        metric = dask_auc.XGBoostAUC()
        extra = {"custom_metric": metric, "callbacks": [metric.history_callback()]}
    start = time.perf_counter()
    out = xgboost.dask.train(
        client, params, dtrain, num_boost_round=args.rounds, evals=[(dvalid, "valid")],
        verbose_eval=False, **extra,
    )  # fmt: skip
    return time.perf_counter() - start, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--rows", type=lambda t: int(float(t)), default=20_000,
                        help="rows of the training set and of the eval set")  # fmt: skip
    parser.add_argument("--rounds", type=int, default=5, help="boosting rounds")
    parser.add_argument("--max-depth", type=int, default=6, help="the trees' depth")
    parser.add_argument("--repeats", type=int, default=1, help="timed runs of each kind")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated data")
    parser.add_argument("--scheduler", help="a scheduler's address (default: a local cluster)")
    args = parser.parse_args(argv)

    if args.scheduler:
        client = Client(args.scheduler)
        cluster = None
    else:
        cluster = LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    try:
        (Xt, yt), (Xv, yv) = (
            pinned(client, args.rows, args.seed),
            pinned(client, args.rows, args.seed + 1000),
        )
        data = (
            xgboost.dask.DaskDMatrix(client, Xt, yt),
            xgboost.dask.DaskDMatrix(client, Xv, yv),
        )
        train(client, data, args, "base")  # warm-up: imports and connections on the workers
        seconds = {
            kind: min(train(client, data, args, kind)[0] for _ in range(args.repeats))
            for kind in ("base", "xgboost auc", "dask-auc")
        }
        own = (seconds["xgboost auc"] - seconds["base"]) / args.rounds
        ours = (seconds["dask-auc"] - seconds["base"]) / args.rounds
        workers = len(client.scheduler_info()["workers"])
        print(f"{args.rows} rows (train and eval each), {args.rounds} rounds, "
              f"{workers} workers, best of {args.repeats}\n")  # fmt: skip
        print("| run | seconds | metric per round (s) |")
        print("|---|---|---|")
        print(f"| base (logloss) | {seconds['base']:.3f} | |")
        print(f"| xgboost auc | {seconds['xgboost auc']:.3f} | {own:.4f} |")
        print(f"| dask-auc XGBoostAUC | {seconds['dask-auc']:.3f} | {ours:.4f} |")
        if own > 0 and ours > 0:
            print(f"\ndask-auc's cost per round / xgboost auc's: {ours / own:.2f} (goal <= 1.5)\n")
        else:  # a metric's cost below the runs' noise
            print(
                "\nthe metrics cost less than the runs' noise: more --rows, --rounds or --repeats\n"
            )

        _, out = train(client, data, args, "both")
        log = out["history"]["valid"]
        lazy = [
            dask_auc.roc_auc_score(
                yv,
                xgboost.dask.inplace_predict(
                    client, out["booster"], Xv, iteration_range=(0, r + 1)
                ),
                compute=False,
            )
            for r in range(args.rounds)
        ]
        exact = dask_auc.compute(*lazy)
        print("| round | xgboost auc | dask-auc metric | exact AUC of the predictions | equal |")
        print("|---|---|---|---|---|")
        for r in range(args.rounds):
            own_auc, metric = log["auc"][r], log["auc_exact"][r]
            same = "bit for bit" if metric == exact[r] else f"{metric - exact[r]:+.2e}"
            print(f"| {r} | {own_auc:.6f} | {metric:.17g} | {exact[r]:.17g} | {same} |")
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
