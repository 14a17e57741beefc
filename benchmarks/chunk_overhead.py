"""Dask's own cost of 10,000 chunks: ``y.sum()`` and ``s.sum()`` of the rows ``scale_out.py`` times.

Run ``python benchmarks/chunk_overhead.py``: the same 5e7 persisted rows in 8
and in 10,000 chunks, threaded scheduler, three runs each.  It is the
reference for what any computation over 10,000 in-memory chunks pays in dask
itself (``scale_out.py`` times dask-auc's ``roc_auc_score`` on the same rows).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import dask
import dask.array as da
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale_out import _labels, _scores  # noqa: E402

ROWS = 50_000_000


def main() -> None:
    for partitions in (8, 10_000):
        index = da.arange(ROWS, chunks=ROWS // partitions, dtype=np.uint64)
        labels = index.map_blocks(_labels, dtype=np.int8)
        scores = index.map_blocks(_scores, dtype=np.float64)
        labels, scores = dask.persist(labels, scores)
        times = []
        for _ in range(3):
            start = time.perf_counter()
            dask.compute(labels.sum(), scores.sum())
            times.append(time.perf_counter() - start)
        runs = " ".join(f"{t:.2f}" for t in times)
        print(f"{partitions} partitions: dask y.sum() + s.sum(), seconds: {runs}")


if __name__ == "__main__":
    main()
