"""A stable sort order at the cost of NumPy's fastest one.

Rows of equal key are summed in the order a sort leaves them, and a float sum
depends on its order.  ``np.argsort``'s default (introsort) leaves equal keys
in an order that depends on the SIMD code NumPy picked for the running CPU
(AVX-512, AVX2 or none), and on the other rows of the array: the same
weights would add up to different last bits on another machine, or when
other groups share the bucket.  ``kind="stable"`` fixes the order (the rows'
own) but is a scalar merge sort, several times slower on random keys.

:func:`stable_argsort` returns exactly ``np.argsort(values, kind="stable")``:
the fast sort first, then only the rows that have an equal neighbour are put
back in row order, one run of equal keys at a time (one more sort, of unique
int64 keys, over the tied rows only; nothing when the keys are distinct).
:func:`stable_order` gives the same order of scores, ranked, by one sort of
keys that pack each score's order-preserving bits with its position: the
traced sort's and the merge of weighted or traced runs.

Nothing here imports dask.
"""

from __future__ import annotations

from typing import cast

import numpy as np

#: a row's position is packed in 64 bits with its run (or key) below this many rows (more:
#: NumPy's stable sort)
_PACKED_LIMIT = 1 << 31


def stable_argsort(values: np.ndarray) -> np.ndarray:
    """``np.argsort(values, kind="stable")`` of a 1-D array, from the faster default sort.

    Equal keys (``-0.0`` and ``0.0`` among them; NaNs, last, as one run) keep
    their rows' order, whatever CPU runs it.

    Examples
    --------
    >>> stable_argsort(np.array([0.5, 0.1, 0.5, -0.0, 0.0, 0.5]))
    array([3, 4, 1, 0, 2, 5])
    """
    return stable_sort(values)[0]


def stable_sort(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`stable_argsort`, and ``values`` in that order (one gather: the sort reads them)."""
    n = len(values)
    if n >= _PACKED_LIMIT:
        order = np.argsort(values, kind="stable")
        return order, values[order]
    order = np.argsort(values)
    ranked = values[order]
    if n < 2:
        return order, ranked
    equal = ranked[1:] == ranked[:-1]
    if ranked.dtype.kind in "fc" and np.isnan(ranked[-1]):  # NaNs sort last, unequal to all
        nan = np.isnan(ranked)
        equal |= nan[1:] & nan[:-1]
    if not equal.any():
        return order, ranked
    tied = np.zeros(n, dtype=bool)
    tied[1:] = equal
    tied[:-1] |= equal
    positions = np.flatnonzero(tied)
    # a run's number, ascending along the sorted keys; within a run, the rows' own order
    run = np.cumsum(np.concatenate(([True], ~equal)))[positions]
    key = run.astype(np.int64) * n + order[positions]  # unique, and below n * n < 2**62
    key.sort()
    order[positions] = key % n
    ranked[positions] = values[order[positions]]  # equal, but -0.0 and 0.0 (or NaNs) may differ
    return order, ranked


_SIGN = np.int64(-(1 << 63))


def stable_order(
    scores: np.ndarray, *, runs: bool = False, groups: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``np.argsort(scores, kind="stable")`` and the ranked scores, by one ``np.sort`` of keys.

    Each row's key is its score's order-preserving 64-bit pattern (``-0.0`` as
    ``0.0``) less the lowest one, shifted up to make room for the row's
    position in the low bits (and cut to its high bits when the scores' span
    is too wide for that): sorting the keys (NumPy's fastest sort, which moves
    8 bytes a row and no payload) sorts by score, equal scores in row order.
    Two different scores that agree on the kept high bits come out in row
    order, maybe the wrong one; one pass over the ranked scores finds them,
    and only the runs of keys they share are put in order again (a stable
    sort of those rows by score).  Exact whatever the scores, the CPU or its
    SIMD sort; NaNs, or dtypes without such keys, take NumPy's stable sort.
    The payloads (ids, weights) follow in one gather each.

    ``runs``: the scores are concatenated sorted runs, whose fallback is
    NumPy's stable sort (a merge of the runs); else it is
    :func:`stable_sort`.  ``groups`` (booleans):
    the rows of ``False`` first, then those of ``True``, each in that order
    (the group is the keys' top bit).

    Examples
    --------
    >>> order, ranked = stable_order(np.array([0.5, 0.1, 0.5, -0.0, 0.0, 0.5]))
    >>> order.tolist(), ranked.tolist()
    ([3, 4, 1, 0, 2, 5], [-0.0, 0.0, 0.1, 0.5, 0.5, 0.5])
    >>> stable_order(np.array([0.5, 0.1, 0.5, 0.2]), groups=np.array([1, 0, 0, 1], bool))[0]
    array([1, 2, 3, 0])
    """
    n = len(scores)
    keys = _order_keys(scores) if 2 <= n < _PACKED_LIMIT else None
    if keys is not None:
        bits = np.uint64((n - 1).bit_length())
        low, high = keys.min(), keys.max()
        room = 64 - int(bits) - (groups is not None)
        cut = np.uint64(max(0, int(high - low).bit_length() - room))
        keys -= low
        keys >>= cut
        keys <<= bits
        _or_rows(keys, groups)
        keys.sort()
        keys &= (np.uint64(1) << bits) - np.uint64(1)  # in place: no second 8 bytes a row
        order = keys.view(np.int64)
        ranked = scores[order]
        ordered = ranked[1:] >= ranked[:-1]
        first = n if groups is None else n - int(np.count_nonzero(groups))
        if 0 < first < n:
            ordered[first - 1] = True  # the groups' boundary
        unordered = np.flatnonzero(~ordered)
        if not len(unordered):
            return order, ranked
        if scores.dtype.kind != "f" or not (
            np.isnan(ranked[unordered]).any() or np.isnan(ranked[unordered + 1]).any()
        ):
            # the sorted keys' high bits, made again from the ranked scores (rare: two
            # scores that share the kept bits): the group's bit above them
            shared = cast(np.ndarray, _order_keys(ranked))
            shared -= low
            shared >>= cut
            shared[first:] |= np.uint64(1) << (np.uint64(63) - bits)
            _reorder_shared(shared, unordered, order, ranked)
            return order, ranked
    if groups is not None:  # each group's stable order, the first group's rows first
        rows = [np.flatnonzero(~groups), np.flatnonzero(groups)]
        order = np.concatenate([r[stable_order(scores[r], runs=runs)[0]] for r in rows])
        return order, scores[order]
    if runs:
        order = np.argsort(scores, kind="stable")
        return order, scores[order]
    return stable_sort(scores)


#: rows whose position (and group) bits are set at a time: no temporary of 8 bytes a row
_OR_ROWS = 1 << 16


def _or_rows(keys: np.ndarray, groups: np.ndarray | None) -> None:
    """Each key's row position into its low bits, and its group (if any) into its top bit,
    a run of rows at a time."""
    top = np.uint64(63)
    for first in range(0, len(keys), _OR_ROWS):
        run = keys[first : first + _OR_ROWS]
        run |= np.arange(first, first + len(run), dtype=np.uint64)
        if groups is not None:
            flags = groups[first : first + _OR_ROWS].view(np.uint8).astype(np.uint64)
            flags <<= top
            run |= flags


def _reorder_shared(
    shared: np.ndarray, unordered: np.ndarray, order: np.ndarray, ranked: np.ndarray
) -> None:
    """Sort, in place and stably by score, the runs of equal ``shared`` holding an unordered pair.

    ``shared`` (ascending) are the kept high bits of the sorted keys: rows of
    one run are in row order, and different runs in score order.
    """
    values = np.unique(shared[unordered])
    starts = np.searchsorted(shared, values, "left")
    lengths = np.searchsorted(shared, values, "right") - starts
    run = np.repeat(np.arange(len(values)), lengths)
    rows = np.arange(len(run)) + np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    resorted = rows[np.lexsort((ranked[rows], run))]
    order[rows], ranked[rows] = order[resorted], ranked[resorted]


def _order_keys(scores: np.ndarray) -> np.ndarray | None:
    """Fresh uint64 keys in the scores' order (equal scores, equal keys), or None."""
    kind, size = scores.dtype.kind, scores.dtype.itemsize
    if kind == "f" and size <= 8:
        keys = (scores.astype(np.float64, copy=False) + 0.0).view(np.int64)  # -0.0 + 0.0 is 0.0
        flip = keys >> 63  # all ones for a negative float: its magnitude bits reversed
        flip |= _SIGN
        keys ^= flip
    elif kind in "iu" and size < 8 or kind == "i" and size == 8:
        keys = scores.astype(np.int64)
        keys ^= _SIGN
    elif kind == "u" and size == 8:
        return scores.copy()
    else:
        return None
    return keys.view(np.uint64)
