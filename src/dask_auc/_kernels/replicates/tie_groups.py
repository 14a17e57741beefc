"""The replicate counts of a bucket's tie groups, every replicate in one pass.

A bucket's rows are sorted by score with their keys (the sort's ``ids``
payload).  For a block of replicates at a time (:func:`chunks`), the bucket
adds up each tie group's counts (a ``groups x replicates`` matrix, never
``rows x replicates``: compiled where numba runs, else one hash per row and
replicate in NumPy) and hands them on, tie groups in descending score order
(:func:`column_counts`).

Column 0 of every array is the *estimate*: every row counted once (its
weight), so the estimate comes from the same kernels as the replicates.

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..sort.buckets import Bucket
from ..sort.rows import SortedScores
from . import compiled as _compiled
from .counts import CELLS, POISSON_THRESHOLDS, counts_for, replicate_keys
from .traced import TracedPlan, row_keys


@dataclass(frozen=True)
class ReplicateSpec:
    """What every bucket needs to make its replicates: they are in every task's key."""

    seed: int
    n_bootstraps: int
    weighted: bool


@dataclass(frozen=True)
class _Part(SizedByArrays):
    """One class of a bucket: its rows' keys and tie groups, placed among the bucket's."""

    keys: np.ndarray | None  # r of each row, uint64, rows in ascending score order (if drawn)
    weights: np.ndarray | None
    starts: np.ndarray  # first row of each of its tie groups, and len(rows)
    slots: np.ndarray  # each of its tie groups' index among the bucket's distinct scores


def _layout(bucket: Bucket, plan: TracedPlan, keyed: bool) -> tuple[np.ndarray, _Part, _Part]:
    """The bucket's distinct scores (ascending) and its two classes laid out on them.

    The rows' keys only if ``keyed`` (the estimate's column draws no count).
    """
    pos, neg = bucket.pos, bucket.neg
    distinct = np.unique(np.concatenate([pos.scores, neg.scores]))

    def part(rows: SortedScores) -> _Part:
        scores = rows.scores
        new = np.flatnonzero(np.diff(scores) != 0) + 1 if len(scores) else np.empty(0, np.intp)
        starts = np.concatenate([[0], new, [len(scores)]]).astype(np.int64)
        slots = np.searchsorted(distinct, scores[starts[:-1]]) if len(scores) else starts[:0]
        return _Part(row_keys(rows, plan) if keyed else None, rows.weights, starts, slots)

    return distinct, part(pos), part(neg)


def _group_counts(
    part: _Part, keys: np.ndarray, n_groups: int, weighted: bool, compiled: bool
) -> np.ndarray:
    """``(n_groups, len(keys))``: each tie group's summed counts (times weights) per replicate."""
    dtype = np.float64 if weighted else np.int64
    out = np.zeros((n_groups, len(keys)), dtype=dtype)
    if part.starts[-1] == 0 or len(keys) == 0:
        return out
    assert part.keys is not None
    own = _compiled.replicate_group_counts(
        part.keys, part.starts, keys, POISSON_THRESHOLDS, part.weights, compiled=compiled
    )
    if own is None:
        own = np.zeros((len(part.starts) - 1, len(keys)), dtype=dtype)
        group_of_row = np.repeat(np.arange(len(part.starts) - 1), np.diff(part.starts))
        step = max(1, CELLS // len(keys))
        for first in range(0, len(part.keys), step):
            rows = slice(first, first + step)
            counts = counts_for(part.keys[rows], keys).T.astype(dtype)
            if part.weights is not None:
                counts *= part.weights[rows, np.newaxis]
            # rows of a tie group are contiguous: sum each group's run (one slice may
            # end, and the next begin, inside a group)
            groups = group_of_row[rows]
            runs = np.concatenate([[0], np.flatnonzero(np.diff(groups)) + 1])
            own[groups[runs]] += np.add.reduceat(counts, runs, axis=0)
    out[part.slots] = own
    return out


def _identity(part: _Part, n_groups: int, weighted: bool) -> np.ndarray:
    """The estimate's column: each tie group's rows (or weight)."""
    out = np.zeros(n_groups, dtype=np.float64 if weighted else np.int64)
    if part.starts[-1]:
        if part.weights is None:
            own = np.diff(part.starts)
        else:
            own = np.add.reduceat(part.weights, part.starts[:-1])
        out[part.slots] = own
    return out


def chunks(spec: ReplicateSpec, n_rows: int) -> Iterator[tuple[int, int]]:
    """Columns ``[first, stop)`` of the replicate arrays, a block at a time (0: the estimate)."""
    width = spec.n_bootstraps + 1
    step = max(1, min(width, CELLS // max(n_rows, 1)))
    for first in range(0, width, step):
        yield first, min(width, first + step)


def column_counts(
    bucket: Bucket, plan: TracedPlan, spec: ReplicateSpec
) -> Iterator[tuple[int, int, np.ndarray, np.ndarray, np.ndarray]]:
    """``(first, stop, scores, pos, neg)`` per block of columns, tie groups in descending order."""
    distinct, pos, neg = _layout(bucket, plan, keyed=spec.n_bootstraps > 0)
    n = len(distinct)
    for first, stop in chunks(spec, int(pos.starts[-1] + neg.starts[-1])):
        columns = []
        for part in (pos, neg):
            replicates = np.arange(max(first, 1) - 1, stop - 1)
            counts = _group_counts(
                part, replicate_keys(spec.seed, replicates), n, spec.weighted, plan.compiled
            )
            if first == 0:
                counts = np.column_stack([_identity(part, n, spec.weighted), counts])
            columns.append(counts[::-1])
        yield first, stop, distinct[::-1], columns[0], columns[1]


#: a bucket of more rows than this could overflow int64 pair counts of 20-fold counts
_INT64_ROWS = 1 << 26


def exact_dtype(bucket: Bucket, spec: ReplicateSpec) -> Any:
    if spec.weighted:
        return np.float64
    rows = len(bucket.pos.scores) + len(bucket.neg.scores)
    return np.int64 if rows < _INT64_ROWS else object


def walkable(bucket: Bucket, plan: TracedPlan, spec: ReplicateSpec) -> bool:
    """Whether the bucket's replicates may take a compiled walk (else: the NumPy path)."""
    return bool(plan.compiled and spec.n_bootstraps and not spec.weighted) and (
        exact_dtype(bucket, spec) is not object
    )


def walk_keys(bucket: Bucket, plan: TracedPlan, spec: ReplicateSpec) -> _compiled.Walk | None:
    """The bucket's rows and replicates, keyed for a compiled walk, or None: the NumPy path."""
    if not walkable(bucket, plan, spec):
        return None
    keys = replicate_keys(spec.seed, np.arange(spec.n_bootstraps))
    pos, neg = bucket.pos, bucket.neg
    return _compiled.Walk(
        pos.scores, row_keys(pos, plan), neg.scores, row_keys(neg, plan), keys, POISSON_THRESHOLDS
    )
