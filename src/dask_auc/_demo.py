"""``dask-auc-demo``: exact metrics of a generated, realistic scored dataset.

Generates click-through-like data (a rare positive class, a model whose scores
are rounded to 4 decimals so that ties occur), starts a local cluster sized to
the machine, computes the exact ROC AUC, the partial AUC at ``max_fpr=0.1``
and the average precision, and prints them with the time each took; when
scikit-learn is installed it computes them beside, on the same rows, in one
process.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import dask.array as da
import numpy as np

from ._curves import average_precision_score
from ._ranking import roc_auc_score
from .cli import local_cluster

MAX_FPR = 0.1


def generate(rows: int, chunk_rows: int, seed: int = 0) -> tuple[da.Array, da.Array]:
    """Labels (int8, ~10% positive) and float32 scores from a noisy logistic model."""
    state = da.random.default_rng(seed)
    signal = state.standard_normal(rows, chunks=chunk_rows)
    noise = state.standard_normal(rows, chunks=chunk_rows)
    label = (signal + 0.8 * noise > 1.65).astype(np.int8)
    score = da.round(1 / (1 + da.exp(-(signal - 1.6) * 1.5)), 4).astype(np.float32)
    return label, score


def chunk_rows(rows: int, workers: int) -> int:
    """Four blocks per worker: enough to keep every worker busy."""
    return max(1, rows // (4 * workers))


#: (name, dask-auc function, keyword arguments), in printing order
METRICS: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    ("ROC AUC", roc_auc_score, {}),
    (f"partial AUC, max_fpr={MAX_FPR:g}", roc_auc_score, {"max_fpr": MAX_FPR}),
    ("average precision", average_precision_score, {}),
]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="dask-auc-demo", description=__doc__)
    parser.add_argument("--rows", type=float, default=1e7, help="rows to generate (1e7)")
    parser.add_argument("--workers", type=int, default=None, help="local worker processes")
    args = parser.parse_args(argv)
    rows = int(args.rows)
    with local_cluster(args.workers) as where:
        workers = len(where.client.scheduler_info()["workers"])
        label, score = generate(rows, chunk_rows(rows, workers))
        label, score = where.client.persist([label, score])
        positives = int(label.sum().compute())  # materialises the data before timing
        print(
            f"dask-auc demo: {rows:,} generated rows ({positives:,} positive), "
            f"scores rounded to 4 decimals, on {where.description}"
        )
        ours = [_timed(function, label, score, **options) for _, function, options in METRICS]
        theirs = _sklearn(label.compute(), score.compute())
    _print(ours, theirs)


def _timed(function: Callable[..., Any], *args: Any, **options: Any) -> tuple[float, float]:
    start = time.perf_counter()
    value = function(*args, **options)
    return value, time.perf_counter() - start


def _sklearn(label: np.ndarray, score: np.ndarray) -> list[tuple[float, float]] | None:
    try:
        from sklearn import metrics
    except ImportError:
        return None
    functions: dict[Callable[..., Any], Callable[..., Any]] = {
        roc_auc_score: metrics.roc_auc_score,
        average_precision_score: metrics.average_precision_score,
    }
    return [
        _timed(functions[function], label, score, **options) for _, function, options in METRICS
    ]


def _print(ours: list[tuple[float, float]], theirs: list[tuple[float, float]] | None) -> None:
    width = max(len(name) for name, _, _ in METRICS) + 2
    header = f"  {'':<{width}}{'dask-auc':<26}"
    print(header + ("" if theirs is None else "scikit-learn (one process)"))
    for i, (name, _, _) in enumerate(METRICS):
        value, seconds = ours[i]
        line = f"  {name:<{width}}{value:.12f} {seconds:6.2f} s   "
        if theirs is not None:
            reference, reference_seconds = theirs[i]
            line += f"{reference:.12f} {reference_seconds:6.2f} s"
        print(line)
    if theirs is None:
        print("  (install scikit-learn to time it beside dask-auc)")
    else:
        difference = max(abs(a[0] - b[0]) for a, b in zip(ours, theirs, strict=True))
        print(f"  largest difference from scikit-learn: {difference:.1e}")


if __name__ == "__main__":  # pragma: no cover
    main()
