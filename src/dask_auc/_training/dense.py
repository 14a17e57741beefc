"""The state of an eval set spread over the workers of a collective, summed by allreduce.

A :class:`~dask_auc.ROCState` has data-dependent bins: two workers' states
have different lengths, and a collective's ``allreduce`` only adds (or takes
the maximum of) arrays of one fixed size.  So every worker bins its rows on
the same dense grid: the global range of the scores' 64-bit keys (one small
``MAX`` allreduce, which also carries every worker's validation verdict, so
that all raise together or none does) cut into ``resolution`` bins of equal
key width.  Per bin, the class counts are summed (``SUM``: int64 rows, or
float64 weights) and the lowest and highest key taken (one ``MAX`` of
``[~low, high]``); a bin whose lowest and highest key are equal holds one
score, and the AUC from these bins is exact when every occupied bin does.

Else the bins holding most of the unknown pairs are cut again, each on the
range of its own scores, in one more pair of allreduces of the same size --
as often as ``refinements`` allows, while the certified width is above
``max_width``.  Every worker sees the same sums, so every worker makes the
same choices and reports the same bounds.

Nothing here imports dask or xgboost: the collective is a function
``allreduce(array, op)`` with ``op`` "sum" or "max".

Examples
--------
>>> import numpy as np
>>> lonely = lambda array, op: array  # a collective of one worker
>>> bounds, _ = collective_bounds(
...     np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]), None,
...     allreduce=lonely, resolution=4, max_width=0.0, refinements=2)
>>> bounds
AUCBounds(lower=0.75, estimate=0.75, upper=0.75, exact=True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._kernels.states.bins import StateBins, key_scores, score_keys
from .._kernels.states.bounds import pair_counts
from .._states import AUCBounds, ROCState

__all__ = ["Allreduce", "collective_bounds"]

#: ``allreduce(array, op)``: the elementwise "sum" or "max" of ``array`` over all workers
Allreduce = Callable[[np.ndarray, str], np.ndarray]

_ALL_ONES = np.uint64(np.iinfo(np.uint64).max)
#: every chosen bin is cut in at least this many (so a refinement always gains)
_MIN_CUTS = 4
#: the verdicts of the local validation, as the first allreduce carries them (largest wins)
_ERRORS = {
    1: "y_true of an AUC metric must hold the labels 0 and 1 only (binary:logistic's labels)",
    2: "the predictions hold NaN: the AUC of NaN scores is undefined",
    3: "sample_weight must be finite and non-negative",
    4: "the labels, predictions and weights of a worker have different lengths",
}


def collective_bounds(
    labels: Any,
    scores: Any,
    weights: Any,
    *,
    allreduce: Allreduce,
    resolution: int,
    max_width: float,
    refinements: int,
) -> tuple[AUCBounds, ROCState]:
    """The certified AUC of every worker's rows, and the state it is read from.

    Every worker of the collective calls this with its own rows; all return
    the same.  ``resolution`` is the dense grid's size (a power of two: each
    allreduce moves ``4 * resolution`` numbers of 8 bytes); ``max_width`` the
    width below which no refinement is made; ``refinements`` the most cuts of
    the widest bins after the first binning.
    """
    labels = np.asarray(labels).ravel()
    scores = np.asarray(scores).ravel()
    error = _local_error(labels, scores, weights)
    weighted = weights is not None and np.size(weights) > 0
    if error == 0 and weighted:
        kept = np.asarray(weights, dtype=np.float64).ravel() != 0
        labels, scores = labels[kept], scores[kept]
        w = np.asarray(weights, dtype=np.float64).ravel()[kept]
    else:
        w = None
    keys = score_keys(scores) if error == 0 else np.zeros(0, np.uint64)
    local = [~keys.min(), keys.max()] if len(keys) else [np.uint64(0), np.uint64(0)]
    first = allreduce(np.array([*local, error, int(weighted)], dtype=np.uint64), "max")
    if int(first[2]):
        raise ValueError(_ERRORS[int(first[2])])
    weighted = bool(first[3])
    low, high = ~first[0], first[1]
    positive = labels == 1
    counts_dtype = np.float64 if weighted else np.int64
    if w is None and weighted:  # another worker is weighted: this one's rows weigh 1
        w = np.ones(len(keys))
    if low > high:  # no row anywhere
        return _read(_empty(counts_dtype, resolution))
    grid = _Grid(low=np.array([low]), high=np.array([high]), pos=None, neg=None)
    row_bin = None  # every row in the one bin of the whole range
    chosen = np.array([0])
    for refinement in range(refinements + 1):
        if refinement:
            bins = grid.bins(counts_dtype, resolution)
            bounds, state = _read(bins)
            chosen = _widest(bins, bounds, max_width, resolution // _MIN_CUTS)
            if len(chosen) == 0:
                return bounds, state
        grid, row_bin = _cut(
            grid, chosen, keys, positive, w, row_bin,
            allreduce=allreduce, resolution=resolution, dtype=counts_dtype,
            last=refinement == refinements,
        )  # fmt: skip
    return _read(grid.bins(counts_dtype, resolution))


class _Grid:
    """The current bins, ascending: their lowest and highest keys and class counts."""

    def __init__(self, low: np.ndarray, high: np.ndarray, pos: Any, neg: Any):
        self.low, self.high, self.pos, self.neg = low, high, pos, neg

    def bins(self, dtype: Any, resolution: int) -> StateBins:
        return StateBins(
            bits=64,
            bins=np.arange(len(self.low), dtype=np.uint64),
            pos=self.pos.astype(dtype),
            neg=self.neg.astype(dtype),
            low=key_scores(self.low),
            high=key_scores(self.high),
            max_bins=resolution,
            pos_label=1,
            classes=(),
        )


def _cut(
    grid: _Grid,
    chosen: np.ndarray,
    keys: np.ndarray,
    positive: np.ndarray,
    weights: np.ndarray | None,
    row_bin: np.ndarray | None,
    *,
    allreduce: Allreduce,
    resolution: int,
    dtype: Any,
    last: bool,
) -> tuple[_Grid, np.ndarray | None]:
    """``grid`` with each ``chosen`` bin cut on its key range: two allreduces of the counts.

    ``row_bin`` is each row's bin in ``grid`` (None: the first cut, of the one bin
    holding every row); the rows' bins in the new grid are returned unless ``last``.
    """
    per_bin = 1 << ((resolution // len(chosen)).bit_length() - 1)  # a power of two
    size = len(chosen) * per_bin
    base = grid.low[chosen]
    shifts = np.maximum(_bit_length(grid.high[chosen] - base) - (per_bin.bit_length() - 1), 0)
    slot = np.full(len(grid.low), -1, np.intp)
    slot[chosen] = np.arange(len(chosen))
    if row_bin is None:  # every row: no selection to copy
        inside: Any = slice(None)
        cell = ((keys - base[0]) >> shifts[0].astype(np.uint64)).astype(np.intp)
    else:
        which = slot[row_bin]
        inside = np.flatnonzero(which >= 0)
        j = which[inside]
        offset = (keys[inside] - base[j]) >> shifts[j].astype(np.uint64)
        cell = j * per_bin + offset.astype(np.intp)
    is_pos = positive[inside]
    if weights is None:
        pos = np.bincount(cell[is_pos], minlength=size).astype(np.int64)
        counts = np.concatenate([pos, np.bincount(cell, minlength=size) - pos])
    else:
        w = weights[inside]
        counts = np.concatenate([
            np.bincount(cell, np.where(is_pos, w, 0.0), minlength=size),
            np.bincount(cell, np.where(is_pos, 0.0, w), minlength=size),
        ])  # fmt: skip
    extremes = np.zeros(2 * size, np.uint64)  # ~lowest and highest key; empty: 0 and 0
    np.maximum.at(extremes, cell, ~keys[inside])
    np.maximum.at(extremes, cell + size, keys[inside])
    counts = allreduce(counts.astype(dtype), "sum")
    extremes = allreduce(extremes, "max")
    pos, neg = counts[:size], counts[size:]
    occupied = extremes[size:] >= ~extremes[:size]  # a bin with a row has low <= high
    # the new bins in order: each bin kept, or the occupied cells of its cuts
    taken = np.ones(len(grid.low), np.intp)
    per_chosen = np.add.reduceat(occupied.astype(np.intp), np.arange(0, size, per_bin))
    taken[chosen] = per_chosen
    start = np.cumsum(taken) - taken
    kept = np.flatnonzero(slot < 0)
    rank: np.ndarray = np.cumsum(occupied) - occupied  # occupied cells before each cell
    first_rank: np.ndarray = rank[np.arange(0, size, per_bin)]
    cell_index = start[chosen].repeat(per_bin) + rank - first_rank.repeat(per_bin)
    total = int(taken.sum())
    out_low, out_high = np.empty(total, np.uint64), np.empty(total, np.uint64)
    out_pos, out_neg = np.zeros(total, counts.dtype), np.zeros(total, counts.dtype)
    out_low[start[kept]], out_high[start[kept]] = grid.low[kept], grid.high[kept]
    if grid.pos is not None:
        out_pos[start[kept]], out_neg[start[kept]] = grid.pos[kept], grid.neg[kept]
    where = cell_index[occupied]
    out_low[where], out_high[where] = ~extremes[:size][occupied], extremes[size:][occupied]
    out_pos[where], out_neg[where] = pos[occupied], neg[occupied]
    grid = _Grid(out_low, out_high, out_pos, out_neg)
    if last:
        return grid, None
    new_bin = cell_index[cell] if row_bin is None else start[row_bin]
    if row_bin is not None:
        new_bin[inside] = cell_index[cell]
    return grid, new_bin


def _widest(bins: StateBins, bounds: AUCBounds, max_width: float, most: int) -> np.ndarray:
    """The bins to cut again (ascending): most unknown pairs first, until within ``max_width``."""
    if bounds.exact or not bounds.width > max_width:  # NaN bounds: nothing to refine
        return np.zeros(0, np.intp)
    counts = pair_counts(bins)
    unknown = counts.unknown.astype(np.float64)
    order = np.argsort(-unknown, kind="stable")
    left = np.cumsum(unknown[order][::-1])[::-1]  # unknown pairs from each bin on
    take = min(int(np.count_nonzero(left > max_width * float(counts.pairs))), most)
    return np.sort(order[:take])


def _read(bins: StateBins) -> tuple[AUCBounds, ROCState]:
    state = ROCState(bins)
    return state.auc(), state


def _empty(dtype: Any, resolution: int) -> StateBins:
    nothing = np.zeros(0, np.uint64)
    return _Grid(nothing, nothing, np.zeros(0, dtype), np.zeros(0, dtype)).bins(dtype, resolution)


def _bit_length(values: np.ndarray) -> np.ndarray:
    """The bit length of each uint64 (0 for 0)."""
    length = np.zeros(len(values), np.int64)
    for bit in range(64):
        length += (values >> np.uint64(bit)) != 0
    return length


def _local_error(labels: np.ndarray, scores: np.ndarray, weights: Any) -> int:
    """This worker's verdict on its rows (0: fine), so that every worker raises the same."""
    n_weights = np.size(weights) if weights is not None else 0
    if len(labels) != len(scores) or (n_weights and n_weights != len(labels)):
        return 4
    if n_weights:
        w = np.asarray(weights, dtype=np.float64).ravel()
        if not (np.isfinite(w).all() and (w >= 0).all()):
            return 3
    if np.isnan(np.asarray(scores, dtype=np.float64)).any():
        return 2
    if not np.isin(labels, (0, 1)).all():
        return 1
    return 0
