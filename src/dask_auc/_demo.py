"""``dask-auc-demo``: the exact AUC of a generated, realistic scored dataset.

Generates click-through-like data (a rare positive class, a model whose scores
are rounded to 4 decimals so that ties occur), starts a local cluster sized to
the machine, computes the exact ROC AUC and the partial AUC at ``max_fpr=0.1``,
and prints them with the time taken; when scikit-learn is installed it runs
on the same data beside it.
"""

from __future__ import annotations

import argparse
import time

import dask.array as da
import numpy as np

from ._ranking import roc_auc_score


def generate(rows: int, chunk_rows: int, seed: int = 0) -> tuple[da.Array, da.Array]:
    """Labels (int8, ~5% positive) and float32 scores from a noisy logistic model."""
    state = da.random.default_rng(seed)
    signal = state.standard_normal(rows, chunks=chunk_rows)
    noise = state.standard_normal(rows, chunks=chunk_rows)
    label = (signal + 0.8 * noise > 1.65).astype(np.int8)
    score = da.round(1 / (1 + da.exp(-(signal - 1.6) * 1.5)), 4).astype(np.float32)
    return label, score


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="dask-auc-demo", description=__doc__)
    parser.add_argument("--rows", type=float, default=1e7, help="rows to generate (1e7)")
    parser.add_argument("--workers", type=int, default=None, help="local worker processes")
    args = parser.parse_args(argv)
    rows = int(args.rows)
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=args.workers, threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster) as client:
        workers = len(client.scheduler_info()["workers"])
        print(f"dask-auc demo: {rows:,} rows on a LocalCluster of {workers} worker processes")
        label, score = generate(rows, chunk_rows=max(1, rows // (4 * workers)))
        label, score = client.persist([label, score])
        label.sum().compute()  # materialise the data before timing
        start = time.perf_counter()
        auc = roc_auc_score(label, score)
        auc_seconds = time.perf_counter() - start
        start = time.perf_counter()
        pauc = roc_auc_score(label, score, max_fpr=0.1)
        pauc_seconds = time.perf_counter() - start
        print(f"  ROC AUC                  {auc:.12f}   {auc_seconds:6.2f} s")
        print(f"  partial AUC, max_fpr=0.1 {pauc:.12f}   {pauc_seconds:6.2f} s")
        _compare_with_sklearn(label.compute(), score.compute(), auc)


def _compare_with_sklearn(label: np.ndarray, score: np.ndarray, auc: float) -> None:
    try:
        from sklearn.metrics import roc_auc_score as sklearn_auc
    except ImportError:
        print("  (install scikit-learn to time it beside dask-auc)")
        return
    start = time.perf_counter()
    reference = sklearn_auc(label, score)
    seconds = time.perf_counter() - start
    print(f"  scikit-learn ROC AUC     {reference:.12f}   {seconds:6.2f} s (one process)")
    print(f"  difference               {abs(reference - auc):.1e}")


if __name__ == "__main__":  # pragma: no cover
    main()
