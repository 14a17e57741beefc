"""``dask-auc-demo``: exact metrics of a generated, realistic scored dataset.

Generates click-through-like data (a rare positive class, a model whose scores
are rounded to 4 decimals so that ties occur), starts a local cluster sized to
the machine, computes the exact ROC AUC, the partial AUC at ``max_fpr=0.1``
and the average precision, and prints them with the time each took; when
scikit-learn is installed it computes them beside, on the same rows, in one
process.  ``dask-auc-demo --write DIR`` writes the documentation's example data set
(:func:`example_frame`) to ``DIR`` as Parquet instead, and exits.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dask.array as da
import numpy as np
import pandas as pd

from . import average_precision_score, roc_auc_score
from ._local_cluster import local_cluster

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


#: the documentation's example data set: scored impressions of an online shop
EXAMPLE_COLUMNS = (
    "user",  # int64 user id, for the grouped AUC
    "label",  # int8: 1 = clicked
    "score",  # model A's click probability, rounded to 4 decimals (ties occur)
    "score_b",  # model B's, a weaker model
    "weight",  # a positive sample weight
    "outcome",  # "skip" (no click), "click" or "buy": a multi-class target
    "p_buy",  # per-class probabilities of a multi-class model, summing to 1,
    "p_click",  # in the sorted order of the outcome's labels
    "p_skip",
)
#: rows of one Parquet file written by ``--write``
_FILE_ROWS = 250_000


def example_frame(rows: int, seed: int = 0) -> pd.DataFrame:
    """``rows`` rows of the documentation's example data set (:data:`EXAMPLE_COLUMNS`).

    Examples
    --------
    >>> frame = example_frame(1000)
    >>> tuple(frame.columns) == EXAMPLE_COLUMNS, sorted(frame.outcome.unique())
    (True, ['buy', 'click', 'skip'])
    """
    users = max(1, rows // 50)
    # each user's activity and own propensity to click
    population = np.random.default_rng(2024)
    activity = population.lognormal(0.0, 1.0, users)
    propensity = population.normal(0.0, 0.8, users)
    rng = np.random.default_rng(seed)
    user = rng.choice(users, size=rows, p=activity / activity.sum())
    signal = rng.standard_normal(rows)
    label = rng.random(rows) < 1 / (1 + np.exp(-(-2.0 + propensity[user] + 1.5 * signal)))
    # the models see the signal through noise: model B through more of it
    logit_a = -2.0 + 0.5 * propensity[user] + 1.5 * signal + rng.normal(0, 0.8, rows)
    logit_b = -2.0 + 1.5 * signal + rng.normal(0, 1.6, rows)
    score = np.round(1 / (1 + np.exp(-logit_a)), 4)
    buy = label & (rng.random(rows) < 0.3)
    # a click is a purchase with probability q, which the model reads from noisy hints
    q = 1 / (1 + np.exp(-(2.0 * buy - 1.0 + rng.normal(0, 1.0, rows))))
    p_click = 1 / (1 + np.exp(-(logit_a + rng.normal(0, 0.3, rows))))
    return pd.DataFrame(
        {
            "user": user.astype(np.int64),
            "label": label.astype(np.int8),
            "score": score,
            "score_b": 1 / (1 + np.exp(-logit_b)),
            "weight": np.round(rng.uniform(0.5, 2.0, rows), 2),
            "outcome": np.where(label, np.where(buy, "buy", "click"), "skip"),
            "p_buy": p_click * q,
            "p_click": p_click * (1 - q),
            "p_skip": 1 - p_click,
        }
    )


def write_example(directory: str, rows: int) -> None:
    """The example data set in Parquet files of at most 250,000 rows (at least 4 files)."""
    files = max(4, -(-rows // _FILE_ROWS))
    bounds = np.linspace(0, rows, files + 1).astype(np.int64)
    frame = example_frame(rows)
    Path(directory).mkdir(parents=True, exist_ok=True)
    for i in range(files):
        # the row numbers stay pandas metadata (index=False would make dask's reader
        # reset the index in place, which pandas 3.1 deprecates)
        frame.iloc[bounds[i] : bounds[i + 1]].to_parquet(Path(directory) / f"part.{i}.parquet")
    print(f"dask-auc demo: wrote {rows:,} rows in {files} Parquet files to {directory}")


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
    parser.add_argument(
        "--write", metavar="DIR", help="write the docs' example data set to DIR as Parquet, exit"
    )
    args = parser.parse_args(argv)
    rows = int(args.rows)
    if args.write is not None:
        write_example(args.write, rows)
        return
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
