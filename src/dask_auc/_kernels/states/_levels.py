"""The bits a block's state keeps, from a bitmap of its key prefixes (numba), before counting.

:func:`block_level` reads the rows twice, in order: their range (the keys' common
prefix), then a bitmap of the prefixes 24 bits below it (2 MiB at most; at
most 16 bits a row, so that a small block does not clear and count 2 MiB).
The bitmap counts the distinct prefixes at every level down to those, so
where the block makes more than ``max_bins`` bins there (continuous scores)
it gives the most bits that fit: the NumPy path's (``bins.fitting_bits``).
Else the bits are not known here (64): :mod:`._numba` finds them by parts.
"""

from __future__ import annotations

import numpy as np

from ..sort._numba import order_key
from ._tables import MAX, ZERO, bit_length, compiled, entry

#: the bitmap of prefixes is this many bits finer than the cells (16 bits below the prefix)
_FINER = 8
#: ... and of at most 2**_PER_ROW bits a row (16: 2 bytes): its cost, to clear and to count
#: at each level, follows the block's rows (a few rows' block: not 2 MiB)
_PER_ROW = 4


@compiled
def _popcount(word):  # pragma: no cover - compiled
    """The set bits of a uint64 (SWAR)."""
    word = word - ((word >> np.uint64(1)) & np.uint64(0x5555555555555555))
    word = (word & np.uint64(0x3333333333333333)) + (
        (word >> np.uint64(2)) & np.uint64(0x3333333333333333)
    )
    word = (word + (word >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((word * np.uint64(0x0101010101010101)) >> np.uint64(56))


@compiled
def _distinct(bitmap, groups):  # pragma: no cover - compiled
    """The nonzero runs of ``groups`` bits (a power of two) in ``bitmap`` (uint64 words)."""
    total = 0
    if groups >= 64:
        words = groups // 64
        for w in range(0, len(bitmap), words):
            for v in range(w, w + words):
                if bitmap[v]:
                    total += 1
                    break
        return total
    every = ZERO  # a bit at the start of each run of ``groups`` bits
    for b in range(0, 64, groups):
        every |= np.uint64(1) << np.uint64(b)
    for word in bitmap:
        step = 1
        while step < groups:
            word |= word >> np.uint64(step)
            step *= 2
        total += _popcount(word & every)
    return total


@compiled
def _known_level(bitmap, index_bits, level, max_bins):  # pragma: no cover - compiled
    """The most bits fitting ``max_bins`` if fewer than ``level``, else 64 (not known here).

    ``bitmap``: bit ``i`` set where a key's prefix of ``level`` bits ends
    with the ``index_bits`` bits of ``i`` (the bits above are common).  The
    bins only merge as bits drop: a bisection for the fewest dropped that fit.
    """
    if _distinct(bitmap, 1) <= max_bins:
        return 64
    fewest, most = 1, index_bits  # (at the common prefix, one bin: it fits)
    while fewest < most:
        drop = (fewest + most) // 2
        if _distinct(bitmap, 1 << drop) <= max_bins:
            most = drop
        else:
            fewest = drop + 1
    return level - fewest


@entry
def block_level(bits, max_bins):  # pragma: no cover - compiled
    """The cells' shift, the lowest and highest key, and the bits if known (else 64): two passes.

    A cell is the 16 key bits below the keys' common prefix.  A bitmap of the
    prefixes 8 bits longer than the cells' (or of 16 bits a row, if fewer)
    counts the bins at every level up to it: when they are more than
    ``max_bins`` there, the bits are known (fewer) and no bits are dropped
    later; else they start at 64.
    """
    n = len(bits)
    low, high = MAX, ZERO
    for i in range(n):  # (no branch: vectorised)
        key = order_key(bits[i])
        low, high = min(low, key), max(high, key)
    common = 64 - bit_length(low ^ high)
    cell_shift = np.uint64(max(48 - common, 0))
    span = cell_shift + np.uint64(16)
    bitmap_shift = cell_shift - np.uint64(min(np.int64(cell_shift), _FINER))
    index_bits = min(np.int64(span - bitmap_shift), bit_length(np.uint64(n)) + _PER_ROW)
    bitmap_shift = span - np.uint64(index_bits)  # (a block of few rows: a coarser bitmap)
    index_mask = (np.uint64(1) << np.uint64(index_bits)) - np.uint64(1)
    bitmap = np.zeros(max((1 << index_bits) // 64, 1), np.uint64)
    for i in range(n):
        index = (order_key(bits[i]) >> bitmap_shift) & index_mask
        bitmap[index >> np.uint64(6)] |= np.uint64(1) << (index & np.uint64(63))
    start = _known_level(bitmap, index_bits, 64 - np.int64(bitmap_shift), max_bins)
    return cell_shift, low, high, start
