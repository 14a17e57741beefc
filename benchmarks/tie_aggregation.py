"""Would hashing equal scores beat sorting them?  One block of tied scores, both ways.

Run it as a script::

    python benchmarks/tie_aggregation.py --rows 6.25e6 --repeats 5

DuckDB computes the AUC of heavily tied scores with a hash ``GROUP BY score``
and beats dask-auc there (``results/2026-11-23.md``).  dask-auc's block kernel
splits a block by class and sorts each class (``_kernels.prepare_block``).
This script times, on one block of the benchmark's ``tied`` data (``_data.py``:
scores rounded to 3 decimals), what that kernel does against what a
hash-aggregating kernel written with NumPy and pandas would have to do before
its (tiny) sort of distinct values:

- ``prepare_block``: dask-auc's own block kernel (validate labels and scores,
  ``np.compress`` by class, ``np.sort`` of each class);
- ``factorize + bincount``: ``pd.factorize`` of the scores (a hash table),
  then per-code counts of rows and of positives (``np.bincount``), without
  the validation, so the comparison favours hashing.

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

from dask_auc._kernels.sort import prepare_block  # noqa: E402


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
    assert len(pos) == positives.sum() and len(pos) + len(neg) == rows.sum()  # same rows seen
    print(f"{args.rows:,} rows, {len(values):,} distinct scores, best of {args.repeats}\n")
    print("| kernel | seconds |")
    print("| --- | ---: |")
    for name, work in [
        ("prepare_block", prepare_block),
        ("factorize + bincount", factorize_and_count),
    ]:
        print(f"| {name} | {best_of(args.repeats, lambda w=work: w(label, score)):.3f} |")


if __name__ == "__main__":
    main()
