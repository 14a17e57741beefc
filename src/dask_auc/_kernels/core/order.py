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

Nothing here imports dask.
"""

from __future__ import annotations

import numpy as np

#: (run, row) is packed in one int64 below this many rows (more: NumPy's stable sort)
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
