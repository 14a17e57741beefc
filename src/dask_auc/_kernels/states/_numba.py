"""The states' compiled loops (the optional ``numba`` extra): a block's bins by parts, no sort.

Loaded through :mod:`dask_auc._kernels.sort.compiled` (``usable(..., "states")``)
and driven by :func:`~dask_auc._kernels.states.bins.binned_rows`, whose NumPy
path (one sort of the keys) they equal bit for bit.

A block of at most ``max_bins`` rows (every key a bin) is counted by
:func:`few_keys` (a small table) or a sort (:mod:`._sorted`), from
``bins._hashed``. :func:`block_bins`, for larger blocks, reads the rows in
order.  Scores of few distinct values (rounded, quantised): one hash table of
whole keys holds them all while they are at most ``max_bins`` and 2**14
(cache-resident), in one pass; on others it stops as soon as they are more (a
few thousand rows). Else their range (the keys' common prefix), then a bitmap
of the prefixes 24 bits below it (2 MiB at most), which counts the bins at
every level down to those and so, on continuous scores, gives the bits
themselves (:func:`._levels.block_level`). Bits known and their prefixes few
(at most 2**20): one dense table counts every row's bin in one more pass
(:mod:`._dense`; measured, its misses beyond L2 cost less than a scatter).
Else a histogram of the 16 key bits below the prefix (65,536 *cells*) lays out
*parts*, runs of consecutive cells of about ``n / 256`` rows, and a stable
scatter puts (key, class[, weight]) into them: contiguous key ranges,
ascending.  Each part's bins live in a small table (:mod:`._tables`): counted
directly where their prefixes span few values, else hashed; read out ascending
and appended to the block's bins.  Bits not known (more distinct keys than the
bitmap resolves, and than ``max_bins``): the parts start with whole keys and,
when the bins held make more than ``limit``, drop low bits to the most at
which the bins read make at most ``max_bins``; the last drop is made at the
end.  A level is dropped only when rows of the block make too many bins there,
so the bits are the most that fit the whole block: the NumPy path's.
Weighted, each row's weight is added to its bin in row order
(``np.bincount``'s): by the dense table, or :func:`weight_sums` per part or
over the rows in order.

``nogil``, so that the threaded scheduler runs them on all cores.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ..sort._numba import first_not_below, order_key
from ._dense import dense_bins, dense_span
from ._levels import block_level
from ._merged import dense_merged as dense_merged  # (bins.merge_states)
from ._merged import merged_bins as merged_bins  # (bins.merge_states)
from ._sorted import sorted_bins as sorted_bins  # (bins.py: a block of few rows)
from ._tables import (
    COUNTS,
    GOLDEN,
    ONE_NEG,
    ONE_POS,
    PREFIX,
    ZERO,
    appended,
    coarsened,
    direct_bins,
    direct_filled,
    direct_rows,
    empty_direct,
    entry,
    fitting_level,
    hash_bins,
    hash_filled,
    hash_rows,
    new_bin,
    score_bits,
    shifted_key,
    slot_of,
)

_CELLS = 1 << 16
_CELL_MASK = np.uint64(_CELLS - 1)
#: the most bins a direct table spans (24 bytes each): beyond, a part's bins are hashed
_DIRECT_MOST = 1 << 18
#: the most distinct scores counted in one table of the rows, without parts (a block of more
#: scores than its bitmap resolves: their table, 32 bytes a slot, in the caches)
_ONE_TABLE = 1 << 14


@entry
def _one_table(bits, flags, most):  # pragma: no cover - compiled
    """``(done, bins)``: all the rows' bins at 64 bits in one hash table, ascending, if at most
    ``most`` (``done``); else it stops there.

    For scores of few distinct values (rounded, quantised): their table stays
    in the caches, and the rows need no scatter.
    """
    table_bits = 2
    while (1 << table_bits) * 3 < 4 * (most + 1):
        table_bits += 1
    table, used = np.zeros((1 << table_bits, 4), np.uint64), np.empty(most + 1, np.int64)
    hash_shift = np.uint64(64 - table_bits)
    count = np.int64(0)  # (not a literal 0: one compiled signature a callee)
    for i in range(len(bits)):
        key = order_key(bits[i])
        slot = slot_of(table, key, len(table) - 1, hash_shift)
        add = ONE_POS if flags[i] else ONE_NEG
        if table[slot, COUNTS] == 0:
            count = new_bin(table, used, count, slot, key, add, key, key)
            if count > most:
                return False, np.empty((0, 5), np.uint64)
        else:
            table[slot, COUNTS] += add
    return True, hash_bins(table, used, count)


@entry
def _layout(bits, cell_shift, low, part_rows):  # pragma: no cover - compiled
    """Each cell's part, the parts' first rows and key bounds: a histogram of the cells.

    A part is a run of consecutive cells of at most ``part_rows`` rows (or
    one cell of more).
    """
    n = len(bits)
    span = cell_shift + np.uint64(16)
    base = ZERO if span >= np.uint64(64) else (low >> span) << span
    inside = (np.uint64(1) << cell_shift) - np.uint64(1)  # cell c: base | c << shift | inside
    counts = np.zeros(_CELLS, np.int64)
    for i in range(n):
        counts[(order_key(bits[i]) >> cell_shift) & _CELL_MASK] += 1
    part_of = np.zeros(_CELLS, np.int32)
    starts = np.zeros(_CELLS + 1, np.int64)
    bounds = np.zeros((_CELLS, 2), np.uint64)  # each part's lowest and highest possible key
    part, filled = 0, 0
    for cell in range(_CELLS):
        if counts[cell] == 0:
            continue
        first = base | (np.uint64(cell) << cell_shift)
        if filled and filled + counts[cell] > part_rows:
            part += 1
            starts[part] = starts[part - 1] + filled
            filled = 0
        if filled == 0:
            bounds[part, 0] = first
        bounds[part, 1] = first | inside
        part_of[cell] = part
        filled += counts[cell]
    starts[part + 1] = n
    return part_of, starts[: part + 2].copy(), bounds[: part + 1].copy()


def few_keys(
    bits: np.ndarray, flags: np.ndarray, weights: np.ndarray, most: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """``(bins, sums)`` at 64 bits, as :func:`block_bins` gives them, if the rows hold at most
    ``most`` distinct keys (one hash table of them, of at most 2**14: cache-resident); else
    None, having stopped there."""
    done, found = _one_table(bits, flags, min(most, _ONE_TABLE))
    if not done:
        return None
    if len(weights) == 0:
        return found, np.zeros((0, 2), np.float64)
    empty = (np.empty(0, np.uint64), np.empty(0, np.uint8), weights[:0])
    scattered = (*empty, np.zeros(2, np.int64), np.zeros(2, np.uint64))
    return found, weight_sums(bits, flags, weights, 0, found[:, 0].copy(), scattered)


def block_bins(
    bits: np.ndarray,
    flags: np.ndarray,
    weights: np.ndarray,
    max_bins: int,
    limit: int,
    part_rows: int,
) -> tuple[int, np.ndarray, np.ndarray]:
    """``(shift, bins, sums)`` of a block's rows (at least one).

    ``bits``: the scores' float64 bits; ``flags``: uint8, 1 for a positive;
    ``weights``: float64, or empty (unweighted); parts of about ``part_rows``
    rows (whole cells: more where one cell holds more).  ``bins``: a row per
    bin, ascending: prefix (``key >> shift``), positives, negatives, lowest
    and highest key, at the most bits whose bins are at most ``max_bins``;
    ``sums``: each bin's weight per class, added in row order (unweighted:
    none).  Bits known and few prefixes: one dense table (:mod:`._dense`).
    Python calls the loops in turn (a few calls a block): one loop of them
    all would compile them all again, inlined.
    """
    weighted, no_sums = len(weights) > 0, np.zeros((0, 2), np.float64)
    few = few_keys(bits, flags, weights, max_bins)  # (others: stops early)
    if few is not None:  # few distinct scores, all of them at 64 bits
        return 0, *few
    cell_shift, low, high, start = (int(v) for v in block_level(bits, max_bins))
    if start < 64:
        shift = 64 - start
        span = dense_span(low, high, shift, len(bits))
        if span:
            origin = np.uint64(low >> shift if shift < 64 else 0)
            return shift, *dense_bins(bits, flags, weights, shift, origin, span)
    cells = np.array([cell_shift, low], np.uint64)
    part_of, starts, bounds = _layout(bits, cells[0], cells[1], part_rows)
    keys, sflags, sweights = _scattered(bits, flags, weights, cells[0], part_of, starts)
    shift, found = _parts(keys, sflags, starts, bounds, 64 - start, limit, max_bins)
    if not weighted:
        return shift, found, no_sums
    scattered = (keys, sflags, sweights, starts, cells)
    return shift, found, weight_sums(bits, flags, weights, shift, found[:, 0].copy(), scattered)


@entry
def _scattered(bits, flags, weights, cell_shift, part_of, starts):  # pragma: no cover - compiled
    """The rows' keys, flags (and weights) by part, each part's in row order: a stable scatter."""
    n = len(bits)
    weighted = len(weights) == n
    keys, sflags = np.empty(n, np.uint64), np.empty(n, np.uint8)
    sweights = np.empty(n if weighted else 0, np.float64)
    cursor = starts[:-1].copy()
    for i in range(n):
        key = order_key(bits[i])
        part = part_of[(key >> cell_shift) & _CELL_MASK]
        j = cursor[part]
        cursor[part] = j + 1
        keys[j], sflags[j] = key, flags[i]
        if weighted:
            sweights[j] = weights[i]
    return keys, sflags, sweights


@entry
def _parts(keys, sflags, starts, bounds, shift, limit, max_bins):  # pragma: no cover - compiled
    """``(shift, bins)`` of the scattered rows: each part's bins counted and appended in turn,
    then coarsened to ``max_bins``.

    A part is counted directly where its prefixes (``bounds``: its lowest and
    highest possible key) span few values, else hashed.  When its bins and
    those before are more than ``limit``, bits are dropped (both coarsened)
    and it goes on.  (One loop: a loop a part, called from here, compiled the
    tables' loops once more.)
    """
    widest = 0
    for part in range(len(starts) - 1):
        widest = max(widest, starts[part + 1] - starts[part])
    cap = min(widest, limit + 2)  # the most bins a hash table holds
    table_bits = 2
    while (1 << table_bits) * 3 < 4 * (cap + 1):
        table_bits += 1
    table, used = np.zeros((1 << table_bits, 4), np.uint64), np.empty(cap + 2, np.int64)
    hash_shift = np.uint64(64 - table_bits)
    direct = empty_direct(np.int64(0))
    fin = np.empty((limit + cap + 2, 5), np.uint64)
    n_fin = np.int64(0)  # (not a literal: one compiled signature a callee)
    for part in range(len(starts) - 1):
        j, end = starts[part], starts[part + 1]
        found = np.empty((0, 5), np.uint64)
        stopped = True
        while stopped:
            origin = shifted_key(bounds[part, 0], shift)
            span = np.int64(shifted_key(bounds[part, 1], shift) - origin) + 1  # (<= 0: wrapped)
            if 0 < span <= min(max(2 * (end - j) + len(found), 4096), _DIRECT_MOST):
                if len(direct) < span:
                    direct = empty_direct(max(span, 2 * len(direct)))
                count = direct_filled(direct, origin, found)
                j, count = direct_rows(
                    keys, sflags, j, end, direct, origin, count, limit - n_fin, shift
                )
                found = direct_bins(direct, origin, span, count)
            else:
                count = hash_filled(table, used, found, hash_shift)
                j, count = hash_rows(
                    keys, sflags, j, end, table, used, count, limit - n_fin, shift, hash_shift
                )
                found = hash_bins(table, used, count)
            stopped = count + n_fin > limit
            if stopped:  # too many bins: drop bits, to fit max_bins
                bits_now = 64 - shift
                history, last = fin[:n_fin, PREFIX].copy(), found[:, PREFIX].copy()
                new = fitting_level(history, last, bits_now, max_bins)
                n_fin = coarsened(fin, n_fin, bits_now - new)
                found = found[: coarsened(found, len(found), bits_now - new)]
                shift = 64 - new
                stopped = j < end
        n_fin = appended(found, fin, n_fin)
    if n_fin > max_bins:
        prefixes = fin[:n_fin, PREFIX].copy()  # (contiguous: one signature of fitting_level)
        new = fitting_level(prefixes, prefixes[:0], 64 - shift, max_bins)
        n_fin = coarsened(fin, n_fin, 64 - shift - new)
        shift = 64 - new
    return shift, fin[:n_fin]


@entry
def weight_sums(bits, flags, weights, shift, bins, scattered):  # pragma: no cover - compiled
    """Each bin's weight per class (``bins``: the sorted prefixes), added in row order."""
    keys, sflags, sweights, starts, cells = scattered
    cell_shift, low = cells[0], cells[1]  # (a uint64 array: Python ints would not stay uint64)
    sums = np.zeros((len(bins), 2), np.float64)
    if len(keys) < len(bits):  # one table, no scatter: the rows in order, each bin's place hashed
        table_bits = 2
        while (1 << table_bits) < 2 * (len(bins) + 1):
            table_bits += 1
        table = np.zeros((1 << table_bits, 4), np.uint64)
        hash_shift = np.uint64(64 - table_bits)
        for e in range(len(bins)):
            slot = slot_of(table, bins[e], len(table) - 1, hash_shift)
            table[slot, PREFIX], table[slot, COUNTS] = bins[e], np.uint64(e + 1)
        for i in range(len(bits)):
            slot = slot_of(table, order_key(bits[i]), len(table) - 1, hash_shift)
            sums[np.int64(table[slot, COUNTS]) - 1, 0 if flags[i] else 1] += weights[i]
        return sums
    if shift <= np.int64(cell_shift):  # bins inside cells, so inside parts: rows in order in each
        widest = 0
        for part in range(len(starts) - 1):
            widest = max(widest, starts[part + 1] - starts[part])
        table_bits = 2
        while (1 << table_bits) < 2 * (min(widest, len(bins)) + 1):
            table_bits += 1
        mask, hash_shift = (1 << table_bits) - 1, np.uint64(64 - table_bits)
        index = np.zeros(1 << table_bits, np.int64)  # a slot's bin + 1 (0: empty)
        prefixes = np.empty(1 << table_bits, np.uint64)
        used = np.empty(min(widest, len(bins)) + 1, np.int64)
        for part in range(len(starts) - 1):
            count = 0
            for j in range(starts[part], starts[part + 1]):
                prefix = shifted_key(keys[j], shift)
                slot = np.int64((prefix * GOLDEN) >> hash_shift)
                while index[slot] and prefixes[slot] != prefix:
                    slot = (slot + 1) & mask
                if not index[slot]:  # the part's next bin: its place among all
                    place = first_not_below(bins, 0, len(bins), prefix)
                    index[slot], prefixes[slot] = place + 1, prefix
                    used[count] = slot
                    count += 1
                sums[index[slot] - 1, 0 if sflags[j] else 1] += sweights[j]
            for e in range(count):
                index[used[e]] = 0
        return sums
    # bins wider than cells: each cell's bin, then the rows in their order
    span = cell_shift + np.uint64(16)
    base = ZERO if span >= np.uint64(64) else (low >> span) << span
    of_cell = np.empty(_CELLS, np.int64)
    for cell in range(_CELLS):
        prefix = shifted_key(base | (np.uint64(cell) << cell_shift), shift)
        of_cell[cell] = min(first_not_below(bins, 0, len(bins), prefix), len(bins) - 1)
    for i in range(len(bits)):
        cell = (order_key(bits[i]) >> cell_shift) & _CELL_MASK
        sums[of_cell[cell], 0 if flags[i] else 1] += weights[i]
    return sums


@entry
def columns(found):  # pragma: no cover - compiled
    """Bins' rows as ``(bins, pos, neg, low, high)``: counts int64, keys back to the scores'
    float64 bits."""
    n = len(found)
    bins, pos, neg = np.empty(n, np.uint64), np.empty(n, np.int64), np.empty(n, np.int64)
    low, high = np.empty(n, np.uint64), np.empty(n, np.uint64)  # (viewed as float64 by Python)
    for e in range(n):
        bins[e], pos[e], neg[e] = found[e, PREFIX], np.int64(found[e, 1]), np.int64(found[e, 2])
        low[e], high[e] = score_bits(found[e, 3]), score_bits(found[e, 4])
    return bins, pos, neg, low, high


def warm_up(loaded: Callable[[Any], None]) -> None:
    """Run the loops once, through their door, on tiny inputs: numba compiles (or loads) them."""
    from .bins import binned_rows, block_state, merge_states

    scores = np.linspace(0.0, 1.0, 300)
    positive = (np.arange(300) % 2).astype(bool)
    clusters = (1 + np.arange(300) % 3) * (1 + np.arange(300) * 2.0**-50)  # bits dropped by parts
    few = np.round(scores, 1)
    for weights in (None, np.ones(300)):
        # bitmap and dense table, parts, one table, and a small block sorted or of few keys
        for s, max_bins in ((scores, 7), (clusters, 7), (few, 20), (scores, 1000), (few, 1000)):
            binned_rows(s, positive, weights, max_bins=max_bins, loops=sys.modules[__name__])
    halves = [
        block_state(positive[i::2], scores[i::2], max_bins=60, compiled=False) for i in (0, 1)
    ]
    merge_states(halves, loops=sys.modules[__name__])
    quarters = [  # states of every key, more than twice max_bins together: the union's path
        block_state(positive[i::4], scores[i::4], max_bins=100, compiled=False) for i in range(4)
    ]
    merge_states(quarters, loops=sys.modules[__name__])
    loaded(columns)
