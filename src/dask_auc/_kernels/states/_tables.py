"""The compiled tables of a part's bins, for :mod:`._numba` (the optional ``numba`` extra).

A part's bins are counted either *directly* (one entry per prefix value of
its span: packed class counts, lowest and highest key; read out ascending
with no sort) or in an open-addressing *hash* table (one row of four uint64
a slot: prefix, packed counts, lowest and highest key; read out by a radix
sort of its bins).  Read-outs are five-column uint64 rows (prefix,
positives, negatives, lowest key, highest key), which :func:`coarsened`
joins into shorter prefixes and :func:`appended` adds to a block's bins.
Every loop is ``nogil``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

#: every loop: numpy's error model (no ZeroDivisionError paths: no divisor here is zero) and
#: no wrapper for C callers (numba builds one for every function unless told)
_OPTIONS: dict[str, Any] = {
    "nogil": True,
    "cache": True,
    "boundscheck": False,
    "error_model": "numpy",
    "no_cfunc_wrapper": True,
}
#: the loops called only from other loops: no wrapper for Python callers either
compiled = njit(**{**_OPTIONS, "no_cpython_wrapper": True})
#: the loops called from Python (:mod:`.bins`, :func:`._numba.block_bins`)
entry = njit(**_OPTIONS)

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
SIGN = np.uint64(1 << 63)
ZERO = np.uint64(0)
MAX = np.uint64(0xFFFFFFFFFFFFFFFF)
#: a slot's class counts share one uint64: positives low, negatives high (a part < 2**32 rows)
ONE_POS, ONE_NEG, LOW32 = np.uint64(1), np.uint64(1 << 32), np.uint64(0xFFFFFFFF)
#: the hash table's columns: the bin's prefix, its packed counts (0: empty), lowest, highest key
PREFIX, COUNTS, LOW, HIGH = 0, 1, 2, 3


@compiled
def score_bits(key):  # pragma: no cover - compiled
    """A key's float64 bits (:func:`order_key` inverted; -0.0's key gives 0.0's bits)."""
    return key ^ SIGN if key & SIGN else ~key


@compiled
def shifted_key(value, drop):  # pragma: no cover - compiled
    """``value`` without its ``drop`` low bits (all 64: 0)."""
    return ZERO if drop >= 64 else value >> np.uint64(drop)


@compiled
def bit_length(value):  # pragma: no cover - compiled
    """A uint64's bit length (0 for 0), in six halving steps."""
    length = 0
    for step in (32, 16, 8, 4, 2, 1):
        if value >> np.uint64(step):
            length += step
            value = value >> np.uint64(step)
    return length + (1 if value else 0)


@compiled
def slot_of(table, prefix, mask, hash_shift):  # pragma: no cover - compiled
    """The slot of ``prefix``: its bin's, or the empty one where it goes."""
    slot = np.int64((prefix * GOLDEN) >> hash_shift)
    while table[slot, COUNTS] != 0 and table[slot, PREFIX] != prefix:
        slot = (slot + 1) & mask
    return slot


@compiled
def new_bin(table, used, count, slot, prefix, packed, low, high):  # pragma: no cover - compiled
    """The hash table's ``count``-th bin put in the empty ``slot`` (listed in ``used``); the
    bins' new count."""
    table[slot, PREFIX], table[slot, COUNTS] = prefix, packed
    table[slot, LOW], table[slot, HIGH] = low, high
    used[count] = slot
    return count + 1


@compiled
def fitting_level(history, last, bits, max_bins):  # pragma: no cover - compiled
    """The most bits (at most ``bits``) at which the sorted prefixes ``history`` then ``last``
    make at most ``max_bins`` bins: ``bins.fitting_bits``, by one histogram of the neighbours'
    xor lengths (two neighbours part at ``level`` bits when their xor is longer than
    ``bits - level``).
    """
    lengths = np.zeros(66, np.int64)
    previous, first = ZERO, True
    for values in (history, last):
        for value in values:
            if not first:
                lengths[bit_length(previous ^ value)] += 1
            previous, first = value, False
    longer = np.zeros(67, np.int64)  # longer[j]: neighbours whose xor is at least j bits long
    for j in range(65, -1, -1):
        longer[j] = longer[j + 1] + lengths[j]
    for level in range(bits, -1, -1):
        if 1 + longer[bits - level + 1] <= max_bins:
            return level
    return 0


@compiled
def radix_order(values):  # pragma: no cover - compiled
    """The order that sorts uint64 ``values``: LSD radix, a byte a pass, on the bits that vary."""
    n = len(values)
    if n < 64:  # an insertion sort (stable; numba's np.argsort costs a second of compiling)
        order = np.arange(n)
        for e in range(1, n):
            moved, k = order[e], e
            while k > 0 and values[order[k - 1]] > values[moved]:
                order[k] = order[k - 1]
                k -= 1
            order[k] = moved
        return order
    low, high = values[0], values[0]
    for value in values:
        low, high = min(low, value), max(high, value)
    order, spare = np.arange(n), np.empty(n, np.int64)
    digits = np.empty(n, np.int64)
    for shift in range(0, bit_length(high - low), 8):
        starts = np.zeros(257, np.int64)
        for e in range(n):
            digits[e] = np.int64(((values[order[e]] - low) >> np.uint64(shift)) & np.uint64(255))
            starts[digits[e] + 1] += 1
        for d in range(256):
            starts[d + 1] += starts[d]
        for e in range(n):
            spare[starts[digits[e]]] = order[e]
            starts[digits[e]] += 1
        order, spare = spare, order
    return order


@compiled
def coarsened(fin, n_fin, drop):  # pragma: no cover - compiled
    """The sorted bins ``fin[:n_fin]`` joined into prefixes ``drop`` bits shorter; their count."""
    k = -1
    for e in range(n_fin):
        prefix = shifted_key(fin[e, PREFIX], drop)
        if k >= 0 and fin[k, PREFIX] == prefix:
            fin[k, 1] += fin[e, 1]
            fin[k, 2] += fin[e, 2]
            fin[k, 3] = min(fin[k, 3], fin[e, 3])
            fin[k, 4] = max(fin[k, 4], fin[e, 4])
        else:
            k += 1
            for c in range(1, 5):  # (not a slice: its shape check compiles number formatting)
                fin[k, c] = fin[e, c]
            fin[k, PREFIX] = prefix
    return k + 1


@compiled
def appended(found, fin, n_fin):  # pragma: no cover - compiled
    """A part's sorted bins (none below ``fin``'s) added to ``fin``; its new count."""
    for e in range(len(found)):
        if n_fin and fin[n_fin - 1, PREFIX] == found[e, PREFIX]:  # a bin across parts
            k = n_fin - 1
            fin[k, 1] += found[e, 1]
            fin[k, 2] += found[e, 2]
            fin[k, 3] = min(fin[k, 3], found[e, 3])
            fin[k, 4] = max(fin[k, 4], found[e, 4])
        else:
            for c in range(5):
                fin[n_fin, c] = found[e, c]
            n_fin += 1
    return n_fin


@compiled
def hash_rows(
    keys, sflags, j, end, table, used, count, room, shift, hash_shift
):  # pragma: no cover
    """Rows ``j:end`` into the hash table until it holds more than ``room`` bins: ``(j, count)``."""
    mask = len(table) - 1
    for i in range(j, end):
        key = keys[i]
        prefix = shifted_key(key, shift)
        slot = slot_of(table, prefix, mask, hash_shift)
        add = ONE_POS if sflags[i] else ONE_NEG
        if table[slot, COUNTS] == 0:
            count = new_bin(table, used, count, slot, prefix, add, key, key)
            if count > room:
                return i + 1, count
        else:
            table[slot, COUNTS] += add
            table[slot, LOW] = min(table[slot, LOW], key)
            table[slot, HIGH] = max(table[slot, HIGH], key)
    return end, count


@compiled
def hash_bins(table, used, count):  # pragma: no cover - compiled
    """The hash table's bins, ascending (prefix, positives, negatives, low, high); it is emptied."""
    prefixes = np.empty(count, np.uint64)
    for e in range(count):
        prefixes[e] = table[used[e], PREFIX]
    order = radix_order(prefixes)
    found = np.empty((count, 5), np.uint64)
    for e in range(count):
        slot = used[order[e]]
        found[e, 0] = table[slot, PREFIX]
        found[e, 1] = table[slot, COUNTS] & LOW32
        found[e, 2] = table[slot, COUNTS] >> np.uint64(32)
        found[e, 3], found[e, 4] = table[slot, LOW], table[slot, HIGH]
    for e in range(count):
        table[used[e], COUNTS] = 0
    return found


@compiled
def hash_filled(table, used, found, hash_shift):  # pragma: no cover - compiled
    """The (empty) hash table filled with ``found``'s bins (distinct prefixes); their count."""
    mask = len(table) - 1
    count = 0
    for e in range(len(found)):
        prefix = found[e, PREFIX]
        slot = slot_of(table, prefix, mask, hash_shift)
        packed = found[e, 1] | (found[e, 2] << np.uint64(32))
        count = new_bin(table, used, count, slot, prefix, packed, found[e, 3], found[e, 4])
    return count


@compiled
def direct_rows(keys, sflags, j, end, direct, origin, count, room, shift):  # pragma: no cover
    """Rows ``j:end`` counted at ``(key >> shift) - origin``, until more than ``room`` bins."""
    for i in range(j, end):
        key = keys[i]
        e = np.int64(shifted_key(key, shift) - origin)
        if direct[e, 0] == 0:
            count += 1
        direct[e, 0] += ONE_POS if sflags[i] else ONE_NEG
        direct[e, 1] = min(direct[e, 1], key)
        direct[e, 2] = max(direct[e, 2], key)
        if count > room:
            return i + 1, count
    return end, count


@compiled
def direct_bins(direct, origin, span, count):  # pragma: no cover - compiled
    """The direct table's ``count`` bins, ascending as it holds them; it is emptied."""
    found = np.empty((count, 5), np.uint64)
    k = 0
    for e in range(span):
        if direct[e, 0] != 0:
            found[k, 0] = origin + np.uint64(e)
            found[k, 1] = direct[e, 0] & LOW32
            found[k, 2] = direct[e, 0] >> np.uint64(32)
            found[k, 3], found[k, 4] = direct[e, 1], direct[e, 2]
            direct[e, 0], direct[e, 1], direct[e, 2] = ZERO, MAX, ZERO
            k += 1
    return found


@compiled
def direct_filled(direct, origin, found):  # pragma: no cover - compiled
    """The (empty) direct table filled with ``found``'s bins; their count."""
    for e in range(len(found)):
        k = np.int64(found[e, PREFIX] - origin)
        direct[k, 0] = found[e, 1] | (found[e, 2] << np.uint64(32))
        direct[k, 1], direct[k, 2] = found[e, 3], found[e, 4]
    return len(found)


@compiled
def empty_direct(size):  # pragma: no cover - compiled
    """A direct table of ``size`` bins: packed counts 0, lowest key the most, highest 0."""
    direct = np.zeros((size, 3), np.uint64)
    direct[:, 1] = MAX
    return direct
