"""The compiled merge of unweighted states (numba), for :func:`~.bins.merge_states`.

It equals the NumPy path (a stable sort of all the bins, sums per bin) bit
for bit: counts are integers and lowest and highest scores a minimum and a
maximum.  A few bins (at most twice ``max_bins``): a merge of the runs'
heads, then coarsened.  Many more (states of small blocks keep every key,
so eight of them hold eight times ``max_bins``), where comparing every
run's head at each bin cost most of a one-pass state: NumPy's SIMD sort of
the bins alone, whose neighbours' xor lengths give the union's bits
(``fitting_level``) and whose prefixes there its bins; then each run walks
those once, adding its counts to its prefixes' -- no comparison of heads.

First, :func:`dense_merged`: where the states' bins, at the fewest bits
among them, span few prefix values (states of the same scores' blocks or
days: their bins interleave densely), one table with an entry per prefix
value takes every run's bins in one ascending sweep each, shortened on the
way (no coarsening first, no sort, any number of states), and is read out
ascending. Measured on eight states of 2**18 bins (5e7 continuous rows), and
28 daily ones, where the sort of all the bins or the NumPy merge cost most
of a window's time.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._tables import ZERO, compiled, entry, fitting_level, shifted_key

#: the most prefix values a dense merge spans (32 bytes each: 64 MiB); also at most four
#: times ``max_bins`` and twice the bins merged (and 4,096), so that its table costs no more
#: to clear and read than the bins to merge
DENSE_MERGE_MOST = 1 << 21


def dense_merged(
    columns: Sequence[np.ndarray], starts: np.ndarray, drops: np.ndarray, bits: int, max_bins: int
) -> tuple | None:
    """:func:`merged_bins`'s result for runs of different bits, or None where their prefixes
    at ``bits`` span too many values for one table.

    ``columns``: ``(bins, pos, neg, low, high)`` as :func:`merged_bins` takes
    them, but run ``r`` (``bins[starts[r]:starts[r + 1]]``, ascending) holds
    ``bits + drops[r]``-bit prefixes; they are shortened to ``bits`` on the way in.

    Examples
    --------
    >>> bits, b, p, n, lo, hi = dense_merged(
    ...     (np.array([4, 5, 9, 2], np.uint64), np.array([1, 0, 2, 1]), np.array([0, 1, 0, 1]),
    ...      np.array([.1, .2, .5, .1]), np.array([.1, .3, .5, .2])),
    ...     np.array([0, 3, 4]), np.array([1, 0]), 3, 8)
    >>> bits, b.tolist(), p.tolist(), n.tolist(), lo.tolist(), hi.tolist()
    (3, [2, 4], [2, 2], [2, 0], [0.1, 0.5], [0.3, 0.5])
    """  # fmt: skip
    bins = columns[0]
    runs = np.flatnonzero(starts[1:] > starts[:-1])
    if len(runs) == 0:
        return None
    firsts = bins[starts[runs]] >> drops[runs].astype(np.uint64)
    lasts = bins[starts[runs + 1] - 1] >> drops[runs].astype(np.uint64)
    origin, span = int(firsts.min()), int(lasts.max()) - int(firsts.min()) + 1
    if span > min(DENSE_MERGE_MOST, 4 * max_bins, 2 * len(bins) + 4096):
        return None
    return _dense_into(*columns, starts, drops, np.uint64(origin), span, bits, max_bins)


def merged_bins(
    bins: np.ndarray,
    pos: np.ndarray,
    neg: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    starts: np.ndarray,
    bits: int,
    max_bins: int,
) -> tuple:
    """``(bits, bins, pos, neg, low, high)``: the bins of several states joined, at the most
    bits that fit ``max_bins``.

    State ``r``'s bins are ``bins[starts[r]:starts[r + 1]]`` (ascending and
    distinct, at ``bits`` bits), its counts (int64) and lowest and highest
    scores beside them.  Integer counts only: the order in which they are
    added does not matter.
    """
    if len(bins) <= 2 * max_bins or len(starts) <= 2:
        return _heads_merged(bins, pos, neg, low, high, starts, bits, max_bins)
    level, union = _union_prefixes(np.sort(bins), bits, max_bins)  # (NumPy's SIMD sort)
    return level, *_runs_into(bins, pos, neg, low, high, starts, bits - level, union)


@entry
def _union_prefixes(ordered, bits, max_bins):  # pragma: no cover - compiled
    """``(level, prefixes)``: the most bits (at most ``bits``) at which the sorted bins
    ``ordered`` (repeats allowed) make at most ``max_bins`` bins, and those bins' prefixes."""
    level = fitting_level(ordered, ordered[:0], bits, max_bins)
    drop = bits - level
    union = np.empty(min(len(ordered), max_bins + 1), np.uint64)
    k = 0
    for e in range(len(ordered)):
        prefix = shifted_key(ordered[e], drop)
        if k == 0 or union[k - 1] != prefix:
            union[k] = prefix
            k += 1
    return level, union[:k].copy()


@entry
def _runs_into(bins, pos, neg, low, high, starts, drop, union):  # pragma: no cover - compiled
    """``(bins, pos, neg, low, high)`` of the union: each run's bins, ``drop`` bits shorter,
    added to their prefix among ``union`` (ascending: each run walks it once)."""
    n = len(union)
    out_pos, out_neg = np.zeros(n, np.int64), np.zeros(n, np.int64)
    out_low, out_high = np.full(n, np.inf), np.full(n, -np.inf)
    for r in range(len(starts) - 1):
        j = 0
        for e in range(starts[r], starts[r + 1]):
            prefix = shifted_key(bins[e], drop)
            while union[j] < prefix:
                j += 1
            out_pos[j] += pos[e]
            out_neg[j] += neg[e]
            out_low[j] = min(out_low[j], low[e])
            out_high[j] = max(out_high[j], high[e])
    return union, out_pos, out_neg, out_low, out_high


@entry
def _heads_merged(bins, pos, neg, low, high, starts, bits, max_bins):  # pragma: no cover - compiled
    """:func:`merged_bins` by a merge of the runs' heads (each bin compares every run's head),
    then coarsened to the most bits that fit ``max_bins``."""
    heads = starts[:-1].copy()
    out_bins, out_pos, out_neg, out_low, out_high = _columns(len(bins))
    n = 0
    while True:
        least, any_left = ZERO, False
        for r in range(len(heads)):
            if heads[r] < starts[r + 1] and (not any_left or bins[heads[r]] < least):
                least, any_left = bins[heads[r]], True
        if not any_left:
            break
        out_bins[n], out_low[n], out_high[n] = least, np.inf, -np.inf
        for r in range(len(heads)):
            h = heads[r]
            if h < starts[r + 1] and bins[h] == least:
                out_pos[n] += pos[h]
                out_neg[n] += neg[h]
                out_low[n] = min(out_low[n], low[h])
                out_high[n] = max(out_high[n], high[h])
                heads[r] = h + 1
        n += 1
    return _fitted(out_bins, out_pos, out_neg, out_low, out_high, n, bits, max_bins)


@entry
def _dense_into(
    bins, pos, neg, low, high, starts, drops, origin, span, bits, max_bins
):  # pragma: no cover - compiled
    """:func:`dense_merged`'s table: every run swept once into it, in run order (so each
    bin's lowest and highest score are taken in the order the other merges take them)."""
    seen = np.zeros(span, np.uint8)
    counts = np.zeros((span, 2), np.int64)
    scores = np.empty((span, 2), np.float64)
    scores[:, 0], scores[:, 1] = np.inf, -np.inf  # (as the head merge starts each bin)
    for r in range(len(starts) - 1):
        for e in range(starts[r], starts[r + 1]):
            k = np.int64(shifted_key(bins[e], drops[r]) - origin)
            seen[k] = 1
            counts[k, 0] += pos[e]
            counts[k, 1] += neg[e]
            scores[k, 0] = min(scores[k, 0], low[e])
            scores[k, 1] = max(scores[k, 1], high[e])
    n = 0
    for k in range(span):
        n += np.int64(seen[k])
    out_bins, out_pos, out_neg, out_low, out_high = _columns(n)
    j = 0
    for k in range(span):
        if seen[k]:
            out_bins[j] = origin + np.uint64(k)
            out_pos[j], out_neg[j] = counts[k, 0], counts[k, 1]
            out_low[j], out_high[j] = scores[k, 0], scores[k, 1]
            j += 1
    return _fitted(out_bins, out_pos, out_neg, out_low, out_high, n, bits, max_bins)


@compiled
def _columns(size):  # pragma: no cover - compiled
    """A merge's five columns of ``size`` bins: prefixes, the classes' counts (zero), lowest
    and highest scores."""
    return (
        np.empty(size, np.uint64),
        np.zeros(size, np.int64),
        np.zeros(size, np.int64),
        np.empty(size, np.float64),
        np.empty(size, np.float64),
    )


@compiled
def _fitted(
    out_bins, out_pos, out_neg, out_low, out_high, n, bits, max_bins
):  # pragma: no cover - compiled
    """The ``n`` merged bins (ascending, at ``bits``), joined to the most bits that fit
    ``max_bins`` when they are more: ``(bits, bins, pos, neg, low, high)``."""
    if n > max_bins:
        new = fitting_level(out_bins[:n], out_bins[:0], bits, max_bins)
        k = -1
        for e in range(n):
            prefix = shifted_key(out_bins[e], bits - new)
            if k >= 0 and out_bins[k] == prefix:
                out_pos[k] += out_pos[e]
                out_neg[k] += out_neg[e]
                out_low[k] = min(out_low[k], out_low[e])
                out_high[k] = max(out_high[k], out_high[e])
            else:
                k += 1
                out_bins[k], out_pos[k], out_neg[k] = prefix, out_pos[e], out_neg[e]
                out_low[k], out_high[k] = out_low[e], out_high[e]
        n, bits = k + 1, new
    return bits, out_bins[:n], out_pos[:n], out_neg[:n], out_low[:n], out_high[:n]
