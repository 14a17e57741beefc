"""The benchmarked methods: dask-auc and its peers, each set up outside the timing.

Every method is a context manager taking a :class:`Spec`; it builds what the
method starts from (NumPy arrays, a polars frame, a registered DuckDB table,
dask collections, a cluster with the data persisted on its workers) and yields
a :class:`Bench` whose ``run()`` is the timed part and returns the AUC.
``run()`` ends in an exact integer (or exactly representable) count of the
pairs, so every method can be held to ``|auc - sklearn| <= 1e-12``.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
from _data import block_bounds, generate, generate_range


@dataclass(frozen=True)
class Spec:
    rows: int
    kind: str
    seed: int = 0


@dataclass
class Bench:
    run: Callable[[], float]
    #: a distributed Client whose workers' memory is metered too
    client: Any = None


def blocks_per_core_chunk(rows: int, cores: int) -> int:
    """Rows per block for about 4 blocks per core."""
    return max(1, math.ceil(rows / (4 * cores)))


def exact_auc(twice_area: int, pos: int, neg: int) -> float:
    """``twice_area / (2 * pos * neg)``, correctly rounded (Python ints)."""
    return int(twice_area) / (2 * int(pos) * int(neg))


# -- NumPy ------------------------------------------------------------------------


def sorted_pair_count(pos: np.ndarray, neg: np.ndarray) -> int:
    """``2 * (pairs pos > neg) + (pairs pos == neg)`` of two *sorted* arrays."""
    if len(pos) == 0 or len(neg) == 0:
        return 0
    below = np.searchsorted(neg, pos, "left")  # negatives strictly below
    through = np.searchsorted(neg, pos, "right")  # ... and the tied ones
    return int(below.sum(dtype=np.int64)) + int(through.sum(dtype=np.int64))


def numpy_floor_auc(label: np.ndarray, score: np.ndarray) -> float:
    is_pos = label == 1
    pos, neg = np.sort(score[is_pos]), np.sort(score[~is_pos])
    return exact_auc(sorted_pair_count(pos, neg), len(pos), len(neg))


def _half_count(pos: np.ndarray, neg: np.ndarray) -> tuple[int, int, int]:
    pos, neg = np.sort(pos), np.sort(neg)
    return sorted_pair_count(pos, neg), len(pos), len(neg)


def numpy_floor_threads_auc(
    label: np.ndarray, score: np.ndarray, pool: ThreadPoolExecutor
) -> float:
    """The floor on two threads: split by value at a sampled median, one half each.

    Every positive of the upper half (``score >= split``) outranks every
    negative of the lower one, and no tie straddles the split, so the halves
    combine exactly: ``count_lo + count_hi + 2 * P_hi * N_lo``.
    """
    is_pos = label == 1
    pos, neg = score[is_pos], score[~is_pos]
    split = float(np.median(score[:: max(1, len(score) // 4096)]))
    lo = pool.submit(lambda: _half_count(pos[pos < split], neg[neg < split]))
    hi = pool.submit(lambda: _half_count(pos[pos >= split], neg[neg >= split]))
    (count_lo, p_lo, n_lo), (count_hi, p_hi, n_hi) = lo.result(), hi.result()
    twice = count_lo + count_hi + 2 * p_hi * n_lo
    return exact_auc(twice, p_lo + p_hi, n_lo + n_hi)


def sort_halves(halves: list[np.ndarray], pool: ThreadPoolExecutor) -> float:
    """Sort each half on its own thread; nothing else (no class split, no count)."""
    list(pool.map(np.sort, halves))
    return math.nan  # sorting only: no AUC to compare


@contextmanager
def numpy_sort_2threads_method(spec: Spec) -> Iterator[Bench]:
    """The sort floor: ``np.sort`` of the two halves of the scores on 2 threads, sorting only.

    The least any exact method that sorts must spend on these rows with 2
    cores; a reference for the time, not a method (it returns NaN).
    """
    _, score = generate(spec.rows, spec.kind, spec.seed)
    halves = [score[: spec.rows // 2], score[spec.rows // 2 :]]
    with ThreadPoolExecutor(2) as pool:
        yield Bench(lambda: sort_halves(halves, pool))


@contextmanager
def sklearn_method(spec: Spec) -> Iterator[Bench]:
    from sklearn.metrics import roc_auc_score

    label, score = generate(spec.rows, spec.kind, spec.seed)
    yield Bench(lambda: float(roc_auc_score(label, score)))


@contextmanager
def numpy_floor_method(spec: Spec) -> Iterator[Bench]:
    label, score = generate(spec.rows, spec.kind, spec.seed)
    yield Bench(lambda: numpy_floor_auc(label, score))


@contextmanager
def numpy_floor_2threads_method(spec: Spec) -> Iterator[Bench]:
    label, score = generate(spec.rows, spec.kind, spec.seed)
    with ThreadPoolExecutor(2) as pool:
        yield Bench(lambda: numpy_floor_threads_auc(label, score, pool))


# -- polars and DuckDB ------------------------------------------------------------


@contextmanager
def polars_method(spec: Spec) -> Iterator[Bench]:
    """Mann-Whitney: ``U = R_pos - P (P + 1) / 2`` with average ranks.

    Average ranks are multiples of 1/2, so their float64 sum is exact while it
    stays below 2**52 (``rows`` up to about 9e7); ``2 * R_pos`` is then an
    exact integer.
    """
    import polars as pl

    label, score = generate(spec.rows, spec.kind, spec.seed)
    frame = pl.DataFrame({"label": label, "score": score})
    del label, score
    query = [
        pl.col("score").rank("average").filter(pl.col("label") == 1).sum().alias("rank_sum"),
        (pl.col("label") == 1).sum().alias("pos"),
        pl.len().alias("rows"),
    ]

    def run() -> float:
        rank_sum, pos, rows = frame.select(query).row(0)
        twice_u = int(2 * rank_sum) - pos * (pos + 1)
        return exact_auc(twice_u, pos, rows - pos)

    yield Bench(run)


DUCKDB_SQL = """
WITH groups AS (
    SELECT score, SUM(label)::BIGINT AS pos, (COUNT(*) - SUM(label))::BIGINT AS neg
    FROM scored GROUP BY score
), ranked AS (
    SELECT pos, neg,
           SUM(neg) OVER (ORDER BY score ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
               AS neg_below
    FROM groups
)
SELECT 2 * SUM(pos * COALESCE(neg_below, 0)) + SUM(pos * neg) AS twice_area,
       SUM(pos) AS pos, SUM(neg) AS neg
FROM ranked
"""


@contextmanager
def duckdb_method(spec: Spec) -> Iterator[Bench]:
    """SQL over a registered Arrow table: per-score counts, a running count of negatives.

    DuckDB's ``GROUP BY score`` and a window sum: the bar for tied scores
    (issue 14), slow on continuous ones (a group per row).  Each positive
    outranks the negatives of all lower score groups and ties with the
    negatives of its own group; the sums are exact integers (HUGEINT).
    """
    import duckdb
    import pyarrow as pa

    label, score = generate(spec.rows, spec.kind, spec.seed)
    connection = duckdb.connect()
    connection.register("scored", pa.table({"label": label, "score": score}))

    def run() -> float:
        twice_area, pos, neg = connection.execute(DUCKDB_SQL).fetchone()
        return exact_auc(twice_area, pos, neg)

    try:
        yield Bench(run)
    finally:
        connection.close()


# -- dask -------------------------------------------------------------------------


def _naive_partition(part: Any) -> Any:
    """Summary of one score-sorted partition: counts, pairs inside, edge tie groups."""
    import pandas as pd

    score = part["score"].to_numpy()
    is_pos = part["label"].to_numpy() == 1
    pos, neg = score[is_pos], score[~is_pos]  # already sorted: the partition is
    row: dict[str, Any] = {"pos": len(pos), "neg": len(neg), "twice": sorted_pair_count(pos, neg)}
    for edge, value in (
        ("lo", score[0] if len(score) else np.nan),
        ("hi", score[-1] if len(score) else np.nan),
    ):
        row[edge] = value
        row[f"{edge}_pos"] = int(np.count_nonzero(pos == value))
        row[f"{edge}_neg"] = int(np.count_nonzero(neg == value))
    return pd.DataFrame([row])


_NAIVE_META = {
    "pos": "int64",
    "neg": "int64",
    "twice": "int64",
    "lo": "float64",
    "lo_pos": "int64",
    "lo_neg": "int64",
    "hi": "float64",
    "hi_pos": "int64",
    "hi_neg": "int64",
}


def naive_merge(parts: Any) -> float:
    """Combine the partition summaries in ascending score order, exactly.

    Positives of a partition outrank the negatives of every earlier one; a
    tie group cut by a partition boundary was counted as strictly ordered
    across it, which the last loop corrects to one half in both directions.
    """
    twice, neg_before, pos_total = 0, 0, 0
    edges: dict[float, dict[int, tuple[int, int]]] = {}
    for index, part in enumerate(parts.itertuples(index=False)):
        if part.pos + part.neg == 0:
            continue
        twice += int(part.twice) + 2 * int(part.pos) * neg_before
        neg_before += int(part.neg)
        pos_total += int(part.pos)
        edges.setdefault(part.lo, {})[index] = (int(part.lo_pos), int(part.lo_neg))
        edges.setdefault(part.hi, {})[index] = (int(part.hi_pos), int(part.hi_neg))
    for groups in edges.values():
        counts = [groups[i] for i in sorted(groups)]
        for j, (pos_j, neg_j) in enumerate(counts):
            for pos_i, neg_i in counts[:j]:
                twice += pos_i * neg_j - pos_j * neg_i
    return exact_auc(twice, pos_total, neg_before)


@contextmanager
def naive_dask_method(spec: Spec) -> Iterator[Bench]:
    """What a user would write: ``sort_values`` and a per-partition summary."""
    import dask
    import dask.dataframe as dd
    import pandas as pd

    label, score = generate(spec.rows, spec.kind, spec.seed)
    cores = os.cpu_count() or 1
    frame = pd.DataFrame({"label": label, "score": score})
    del label, score
    ddf = dd.from_pandas(frame, chunksize=blocks_per_core_chunk(spec.rows, cores), sort=False)

    def run() -> float:
        parts = ddf.sort_values("score").map_partitions(_naive_partition, meta=_NAIVE_META)
        return naive_merge(parts.compute())

    with dask.config.set(scheduler="threads"):
        yield Bench(run)


@contextmanager
def dask_auc_threads_method(
    spec: Spec, threads: int | None = None, compiled: bool = True
) -> Iterator[Bench]:
    """The threaded scheduler on ``threads`` threads (default: one per core).

    The blocks are the same whatever ``threads``: ~4 per core of the machine.
    ``compiled``: the ``dask-auc.numba`` setting (the numba kernels, where
    numba is installed).
    """
    import dask
    import dask.array as da

    import dask_auc
    from dask_auc._kernels.sort.compiled import compile_now

    label, score = generate(spec.rows, spec.kind, spec.seed)
    chunks = blocks_per_core_chunk(spec.rows, os.cpu_count() or 1)
    y_true, y_score = da.from_array(label, chunks=chunks), da.from_array(score, chunks=chunks)
    settings = {"scheduler": "threads", "num_workers": threads, "dask-auc.numba": compiled}
    with dask.config.set(settings):
        if compiled:  # the optional numba loops loaded (cached on disk) before timing: a
            # fresh process loads them in the background on its first large call, which
            # bench_first_call.py times; every other benchmark times the steady state
            dask_auc.roc_auc_score(y_true[: 1 << 17], y_score[: 1 << 17])
            compile_now()
        yield Bench(lambda: float(dask_auc.roc_auc_score(y_true, y_score)))


def dask_auc_numpy_threads_method(spec: Spec) -> Iterator[Bench]:
    """:func:`dask_auc_threads_method` with ``dask-auc.numba`` False: the NumPy kernels only."""
    return dask_auc_threads_method(spec, compiled=False)


@contextmanager
def dask_auc_cluster_method(
    spec: Spec, workers: int = 2, blocks: int | None = None
) -> Iterator[Bench]:
    """Worker processes of one thread each; each generates and holds its blocks.

    ``blocks`` defaults to 4 per worker; strong scaling keeps it fixed instead.
    """
    import dask
    import dask.array as da
    from distributed import Client, LocalCluster, wait

    import dask_auc
    from dask_auc._kernels.sort.compiled import compile_now

    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        labels, scores = [], []
        for lo, hi in block_bounds(spec.rows, blocks or 4 * workers):
            block = dask.delayed(generate_range, nout=2, pure=True)(
                spec.rows, lo, hi, spec.kind, spec.seed
            )
            labels.append(da.from_delayed(block[0], shape=(hi - lo,), dtype=np.int8))
            scores.append(da.from_delayed(block[1], shape=(hi - lo,), dtype=np.float64))
        y_true, y_score = client.persist([da.concatenate(labels), da.concatenate(scores)])
        wait([y_true, y_score])
        # as on a worker already in use: dask_auc imported, its numba loops loaded
        client.run(compile_now)
        yield Bench(lambda: float(dask_auc.roc_auc_score(y_true, y_score)), client=client)


# -- ROC curves (only when dask_auc.roc_curve exists) --------------------------------


def curve_digest(fpr: Any, tpr: Any) -> float:
    """The trapezoid area under a curve's points: equal curves give equal areas."""
    fpr, tpr = np.asarray(fpr, dtype=np.float64), np.asarray(tpr, dtype=np.float64)
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))


@contextmanager
def sklearn_curve_method(spec: Spec) -> Iterator[Bench]:
    from sklearn.metrics import roc_curve

    label, score = generate(spec.rows, spec.kind, spec.seed)

    def run() -> float:
        fpr, tpr, _ = roc_curve(label, score)
        return curve_digest(fpr, tpr)

    yield Bench(run)


@contextmanager
def dask_auc_curve_method(spec: Spec, compiled: bool = True) -> Iterator[Bench]:
    """``roc_curve`` on the threaded scheduler; ``compiled``: the ``dask-auc.numba`` setting."""
    import dask
    import dask.array as da

    import dask_auc
    from dask_auc._kernels.sort.compiled import compile_now

    label, score = generate(spec.rows, spec.kind, spec.seed)
    chunks = blocks_per_core_chunk(spec.rows, os.cpu_count() or 1)
    y_true, y_score = da.from_array(label, chunks=chunks), da.from_array(score, chunks=chunks)

    def run() -> float:
        fpr, tpr, _ = dask_auc.roc_curve(y_true, y_score)
        return curve_digest(*dask.compute(fpr, tpr))

    with dask.config.set({"scheduler": "threads", "dask-auc.numba": compiled}):
        if compiled:  # the optional numba loops loaded before timing (see above)
            dask_auc.roc_curve(y_true[: 1 << 17], y_score[: 1 << 17])
            compile_now()
        yield Bench(run)


def dask_auc_numpy_curve_method(spec: Spec) -> Iterator[Bench]:
    """:func:`dask_auc_curve_method` with the NumPy kernels only."""
    return dask_auc_curve_method(spec, compiled=False)


METHODS: dict[str, Callable[[Spec], Any]] = {
    "sklearn": sklearn_method,
    "numpy-floor": numpy_floor_method,
    "numpy-floor-2threads": numpy_floor_2threads_method,
    "numpy-sort-2threads": numpy_sort_2threads_method,
    "polars": polars_method,
    "duckdb": duckdb_method,
    "naive-dask": naive_dask_method,
    "dask-auc-threads": dask_auc_threads_method,
    "dask-auc-numpy-threads": dask_auc_numpy_threads_method,
    "dask-auc-cluster": dask_auc_cluster_method,
}

SCALING_KINDS = ("threads", "cluster")


def scaling_method(name: str) -> Callable[[Spec], Any]:
    """``scaling:threads-<n>`` or ``scaling:cluster-<n>``: dask-auc on ``n`` threads or
    one-thread worker processes, over the same blocks (~4 per core) whatever ``n``,
    as strong scaling asks (``benchmarks/scaling.py``)."""
    prefix, _, rest = name.partition(":")
    kind, _, count = rest.rpartition("-")
    if prefix != "scaling" or kind not in SCALING_KINDS or not count.isdigit() or int(count) < 1:
        raise ValueError(f"not a scaling method: {name!r}")
    if kind == "threads":
        return functools.partial(dask_auc_threads_method, threads=int(count))
    blocks = 4 * (os.cpu_count() or 1)
    return functools.partial(dask_auc_cluster_method, workers=int(count), blocks=blocks)


#: references that only sort: a time to compare with, no AUC (they return NaN)
SORT_ONLY = frozenset({"numpy-sort-2threads"})

CURVE_METHODS: dict[str, Callable[[Spec], Any]] = {
    "curve:sklearn": sklearn_curve_method,
    "curve:dask-auc-threads": dask_auc_curve_method,
    "curve:dask-auc-numpy-threads": dask_auc_numpy_curve_method,
}
