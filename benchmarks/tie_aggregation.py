"""Hashing equal scores against sorting them: one block of tied scores, each way.

Run it as a script::

    python benchmarks/tie_aggregation.py --rows 6.25e6 --repeats 5

DuckDB computes the AUC of heavily tied scores with a hash ``GROUP BY score``.
dask-auc's block kernel (``_kernels.sort.prepare.prepare_block``) now does the same
when a sample of the block shows few distinct scores: one Arrow ``group_by``
into (score, class, row count), then a sort of the distinct scores only.
This script times, on one block of the benchmark's ``tied`` data
(``_data.py``: scores rounded to 3 decimals):

- ``prepare_block``: the kernel as shipped (validation, the probe, the
  aggregation);
- ``prepare_block, rows``: the same kernel with aggregation off (class split
  by ``np.compress``, ``np.sort`` of each class), what it did before;
- ``factorize + bincount``: ``pd.factorize`` of the scores (a hash table),
  then per-code counts of rows and of positives (``np.bincount``), without
  the validation: the NumPy/pandas way to hash.

Everything after the block kernel (the exchange, the bucket merge, the
summary) handles the aggregated block's ~2,000 entries instead of its rows.
Prints the best time of ``--repeats`` runs of each, single-threaded.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _data import generate  # noqa: E402

from dask_auc._kernels.sort import rows as rows_module  # noqa: E402
from dask_auc._kernels.sort.prepare import prepare_block  # noqa: E402


def best_of(repeats: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def factorize_and_count(label: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, ...]:
    codes, values = pd.factorize(score)
    rows = np.bincount(codes, minlength=len(values))
    positives = np.bincount(codes, weights=label, minlength=len(values))
    return values, rows, positives


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=lambda t: int(float(t)), default=6_250_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    label, score = generate(args.rows, "tied", 0)
    block = prepare_block(label, score)
    values, rows, positives = factorize_and_count(label, score)
    pos, neg = block.by_label[1], block.by_label[0]
    assert pos.total == positives.sum() and pos.total + neg.total == rows.sum()  # same rows
    entries = len(pos) + len(neg)
    print(
        f"{args.rows:,} rows, {len(values):,} distinct scores, best of {args.repeats}; "
        f"prepare_block keeps {entries:,} entries ({'aggregated' if pos.counted else 'rows'})\n"
    )
    print("| kernel | seconds |")
    print("| --- | ---: |")
    for name, work in [
        ("prepare_block", prepare_block),
        ("prepare_block, rows", rows_block),
        ("factorize + bincount", factorize_and_count),
    ]:
        print(f"| {name} | {best_of(args.repeats, lambda w=work: w(label, score)):.3f} |")


def rows_block(label: np.ndarray, score: np.ndarray) -> object:
    """``prepare_block`` with aggregation off: every row sorted, as before issue 14."""
    minimum = rows_module.AGGREGATE_MIN_ROWS
    rows_module.AGGREGATE_MIN_ROWS = 2**62
    try:
        return prepare_block(label, score)
    finally:
        rows_module.AGGREGATE_MIN_ROWS = minimum


if __name__ == "__main__":
    main()
