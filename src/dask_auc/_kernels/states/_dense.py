"""A block's bins counted straight into one dense table, when its bits are known and few (numba).

Where the bitmap of :func:`._levels.block_level` fixes the bits (continuous
scores: the level at which the block makes at most ``max_bins`` bins) and
the prefixes between the block's lowest and highest key span at most
:data:`DENSE_MOST` values, one table with an entry per prefix value (packed
class counts, lowest and highest key: 24 bytes) holds every bin: one pass
over the rows in order, no scatter, no parts, no hash; read out ascending
(the parts' direct table, :func:`._tables.empty_direct`, and its read-out,
:func:`._tables.direct_bins`).
Its bits are those the bitmap gave, so the bins are the NumPy path's
(:func:`~.bins.binned_rows`) bit for bit; weights are added to each bin in
row order, as ``np.bincount`` adds them, in the same pass.
"""

from __future__ import annotations

import numpy as np

from ..sort._numba import order_key
from ._tables import ONE_NEG, direct_bins, empty_direct, entry, shifted_key

#: the most prefix values a dense table spans (24 bytes each, 16 more weighted): ~24 MiB
DENSE_MOST = 1 << 20


def dense_span(low: int, high: int, shift: int, rows: int) -> int:
    """The dense table's entries for keys ``low..high`` at ``shift``, or 0 when too many.

    Too many: more than :data:`DENSE_MOST`, or than twice the rows (and
    4,096): a table that costs more to clear and read than the rows to
    scatter.

    Examples
    --------
    >>> dense_span(0x100, 0x2FF, 8, 10)
    2
    >>> dense_span(0, 1 << 40, 8, 10)
    0
    """
    span = 1 if shift >= 64 else (int(high) >> shift) - (int(low) >> shift) + 1
    return span if span <= min(DENSE_MOST, 2 * rows + 4096) else 0


@entry
def dense_bins(bits, flags, weights, shift, origin, span):  # pragma: no cover - compiled
    """``(bins, sums)``: the rows' bins at ``shift`` (prefixes ``origin .. origin + span - 1``),
    ascending, as ``block_bins`` gives them (prefix, positives, negatives, lowest and highest
    key); ``sums``: each bin's weight per class (``weights`` empty: none, shape ``(0, 2)``).
    """
    n = len(bits)
    weighted = len(weights) == n
    table = empty_direct(span)  # packed counts (0: empty), lowest, highest key
    totals = np.zeros((span if weighted else 0, 2), np.float64)
    five = np.uint64(5)
    for i in range(n):
        key = order_key(bits[i])
        e = np.int64(shifted_key(key, shift) - origin)
        flag = np.uint64(flags[i])
        table[e, 0] += ONE_NEG >> (flag << five)  # a positive adds 1, a negative 1 << 32
        table[e, 1] = min(table[e, 1], key)
        table[e, 2] = max(table[e, 2], key)
        if weighted:
            totals[e, 1 - np.int64(flag)] += weights[i]
    count = 0
    for e in range(span):
        if table[e, 0] != 0:
            count += 1
    found = direct_bins(table, origin, span, count)  # (it empties the table read: dropped here)
    sums = np.empty((count if weighted else 0, 2), np.float64)
    if weighted:
        for k in range(count):
            e = np.int64(found[k, 0] - origin)
            sums[k, 0], sums[k, 1] = totals[e, 0], totals[e, 1]
    return found, sums
