"""The grouped AUC's compiled loops (the optional ``numba`` extra).

Loaded only through :mod:`dask_auc._kernels.sort.compiled`, which falls back to
NumPy when numba is missing: :func:`grouped_pair_counts`, every group's class
counts and twice its area by a counting sort and, per group, a comparison of
every pair or a small sort, for one or several models' score columns at once:
the exact counts of :func:`~dask_auc._kernels.groups.pair_sums.group_pair_sums`.

``nogil``, so that the threaded scheduler runs it on all cores.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from ..sort._numba import first_not_below

#: nogil: the threaded scheduler runs the loops on all cores at once
_compile = njit(nogil=True, cache=True, boundscheck=False)
#: the same, inlined by numba into the callers: a call with arrays costs ~20-50 ns (their
#: reference counts), as much as a group's pairs
_inlined = njit(nogil=True, cache=True, boundscheck=False, inline="always")


#: a class of a group of up to this many rows is sorted by insertion (no call, no recursion)
_INSERTION_ROWS = 16


@_compile
def _sorted_in_place(values, first, stop):  # pragma: no cover - compiled
    if stop - first > _INSERTION_ROWS:
        values[first:stop].sort()
        return
    for k in range(first + 1, stop):
        value = values[k]
        j = k - 1
        while j >= first and values[j] > value:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = value


@_compile
def _first_above(values, first, stop, value):  # pragma: no cover - compiled
    """The first index in ``[first, stop)`` of ascending ``values`` holding ``> value``."""
    while first < stop:
        middle = (first + stop) >> 1
        if values[middle] <= value:
            first = middle + 1
        else:
            stop = middle
    return first


@_compile
def _pairs_against_sorted(values, first, stop, sorted_first, sorted_stop):  # pragma: no cover
    """For the rows ``[first, stop)``: (sorted rows below them, sorted rows tied), summed.

    ``values[sorted_first:sorted_stop]`` is ascending; each row is placed by a
    binary search, a second one only when it ties (so heavy ties cost no scan).
    """
    below = 0
    tied = 0
    for k in range(first, stop):
        value = values[k]
        low = first_not_below(values, sorted_first, sorted_stop, value)
        high = low
        if low < sorted_stop and values[low] == value:
            high = _first_above(values, low, sorted_stop, value)
        below += low - sorted_first
        tied += high - low
    return below, tied


#: a group with at most this many (positive, negative) pairs compares every pair, each
#: model's at once: no sort, no branch (at ~20 rows a group, twice as fast as the sort)
_ALL_PAIRS = 128


@_compile
def grouped_pair_counts(
    codes, n_groups, scores, positive, pos, neg, twice, largest, values
):  # pragma: no cover - compiled
    """Every group's class counts and twice its ROC area (unweighted), for every score column.

    ``scores`` is 2-D, rows x models (one model: a column).  A counting sort of
    the rows by (group code, class) -- codes dense in ``range(n_groups)`` --
    made once for every column: one pass reads a row's scores (one cache line)
    and writes them to its place.  Then per group: with few pairs, every
    (positive, negative) pair of each column is compared (:func:`_all_pairs`,
    on the group laid out column by column); otherwise, per column (copied
    alone: one layout for both measured 1-4% slower on groups of ~500 rows),
    the smaller class's scores are
    sorted (by insertion when few) and every row of the larger class is placed
    among them by a binary search: with 10% clicks, 90% of the rows are never
    sorted.  Twice the area is ``2 * (pairs pos > neg) + (pairs pos == neg)``,
    a tie counting one half.  Exact int64 counts, the NumPy path's numbers.
    Writes ``pos``, ``neg`` and ``twice[i]`` for column ``i``, but not the
    ``twice`` of a group of more than ``largest`` rows: the rows sorted are left
    in ``values`` (``scores``' shape, from the caller: NumPy's allocation of a
    large array asks the kernel for huge pages, numba's does not, and the
    scattered writes then cost twice as much in TLB misses: 32 against 14 ns a
    row of five columns, 2.5e6 rows in 125,000 groups) and ``starts`` is
    returned (group ``g``'s negatives are rows ``starts[2 * g]`` to
    ``starts[2 * g + 1]``, its positives the rows up to ``starts[2 * g + 2]``)
    for the caller to count those with NumPy's sort, which is several times
    faster there than a binary search a row (heavy users' clicks: 42 against
    9 ns a row).
    """
    n, m = scores.shape
    starts = np.zeros(2 * n_groups + 1, np.int64)
    for k in range(n):
        starts[2 * codes[k] + positive[k] + 1] += 1
    for g in range(2 * n_groups):
        starts[g + 1] += starts[g]
    widest = 0
    for g in range(n_groups):
        widest = max(widest, starts[2 * g + 2] - starts[2 * g])
    cursor = starts[:-1].copy()
    # rows kept whole (one cache line each) through the sort: one scattered write a row
    for k in range(n):
        part = 2 * codes[k] + positive[k]
        at = cursor[part]
        for i in range(m):
            values[at, i] = scores[k, i]
        cursor[part] = at + 1
    column = np.empty(widest, scores.dtype)  # one group's column, contiguous
    block = np.empty((m, widest), scores.dtype)  # one group's columns, each contiguous
    for g in range(n_groups):
        first, middle, stop = starts[2 * g], starts[2 * g + 1], starts[2 * g + 2]
        n_neg, n_pos = middle - first, stop - middle
        neg[g] = n_neg
        pos[g] = n_pos
        if n_neg == 0 or n_pos == 0 or n_neg + n_pos > largest:
            continue
        if n_neg * n_pos <= _ALL_PAIRS:
            _all_pairs(values, first, middle, stop, block, twice, g)
            continue
        for i in range(m):
            for k in range(first, stop):
                column[k - first] = values[k, i]
            if n_pos <= n_neg:  # each negative among the sorted positives
                _sorted_in_place(column, n_neg, n_neg + n_pos)
                below, ties = _pairs_against_sorted(column, 0, n_neg, n_neg, n_neg + n_pos)
                # positives above a negative: all but those below or tied with it
                twice[i, g] = 2 * (n_pos * n_neg - below - ties) + ties
            else:  # each positive among the sorted negatives
                _sorted_in_place(column, 0, n_neg)
                below, ties = _pairs_against_sorted(column, n_neg, n_neg + n_pos, 0, n_neg)
                twice[i, g] = 2 * below + ties
    return starts


@_inlined
def _all_pairs(values, first, middle, stop, block, twice, g):  # pragma: no cover - compiled
    """``twice[i, g]`` of column ``i`` from every pair of a positive (rows ``[middle, stop)`` of
    ``values``) and a negative (rows ``[first, middle)``), each column alone.

    The group's rows are laid out column by column in ``block`` first, so that each
    positive is compared with a contiguous run of negatives, counted in registers
    (vectorized): measured 2.3x faster on five columns than every pair's columns at once
    with the counts in arrays (20 rows a group).
    """
    n_neg = middle - first
    for k in range(first, stop):
        for i in range(values.shape[1]):
            block[i, k - first] = values[k, i]
    for i in range(values.shape[1]):
        above = 0
        tied = 0
        for p in range(n_neg, stop - first):
            x = block[i, p]
            for q in range(n_neg):
                above += x > block[i, q]
                tied += x == block[i, q]
        twice[i, g] = 2 * above + tied


@_compile
def bucketed_rows(
    buckets, n_buckets, label, score, key, out_label, out_score, out_key
):  # pragma: no cover - compiled
    """The rows of ``buckets`` below ``n_buckets`` (others left out), stably by bucket.

    A counting sort: one pass counts, one scatters each row's label, scores
    (``score``: columns x rows, each column contiguous, as the input's columns
    come; ``out_score``: rows x columns, each row's values in one cache line)
    and key into its bucket's run of ``out_*`` -- a write stream a bucket, where NumPy's
    stable ``argsort`` and a gather of each column read every column at
    random.  The outputs come from the caller: NumPy's allocation of a large
    array asks the kernel for huge pages, numba's does not, and the scatter
    then costs twice as much in TLB misses (9.0 against 4.5 ns a row, 2.5e6
    rows into 8 buckets).  Returns ``cuts``: bucket ``b``'s rows are
    ``cuts[b]:cuts[b + 1]``, in input order.
    """
    m, n = score.shape
    cuts = np.zeros(n_buckets + 2, np.int64)
    for k in range(n):
        cuts[buckets[k] + 1] += 1
    for b in range(n_buckets + 1):
        cuts[b + 1] += cuts[b]
    cursor = cuts[:n_buckets].copy()
    for k in range(n):
        b = buckets[k]
        if b >= n_buckets:
            continue
        at = cursor[b]
        cursor[b] = at + 1
        out_label[at], out_key[at] = label[k], key[k]
        for i in range(m):
            out_score[at, i] = score[i, k]
    return cuts[: n_buckets + 1].copy()


def warm_up(loaded: Callable[[Any], None]) -> None:
    """Run the loop once, through its door, on tiny inputs: numba compiles (or loads) it.

    :mod:`~dask_auc._kernels.sort.compiled` calls this in the background compile;
    ``loaded`` is given the loop, to revise the compile's estimate.
    """
    from . import pair_sums

    for dtype in (np.float64, np.int64):
        scores = np.arange(300, dtype=dtype)[::-1].copy()
        positive = (np.arange(300) % 2).astype(bool)
        pair_sums.grouped_pair_counts(np.arange(300) % 3, 3, scores, positive)
        pair_sums.grouped_pair_counts(np.zeros(300, np.int64), 1, scores, positive)
        # several models' scores, stacked (rows x models), as the split gathers them
        stack = np.column_stack((scores, scores[::-1]))
        pair_sums.grouped_pair_counts_many(np.arange(300) % 100, 100, stack, positive)
    # (the split moves each column as unsigned integers of its width: 1-byte labels, 8-byte
    # scores and keys here; the buckets uint16, as below 65,536 buckets)
    buckets = np.arange(300, dtype=np.int64) % 5
    keys = buckets.view(np.uint64)
    outputs = (np.empty(300, np.uint8), np.empty((300, 2), np.uint64), np.empty(300, np.uint64))
    by_column = np.ascontiguousarray(stack.T).view(np.uint64)  # the split's columns x rows
    bucketed_rows(buckets.astype(np.uint16), 4, positive.view(np.uint8), by_column, keys, *outputs)
    loaded(grouped_pair_counts)
