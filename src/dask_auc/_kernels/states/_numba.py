"""The states' compiled loops (the optional ``numba`` extra): a block's bins by hashing, no sort.

Loaded through :mod:`dask_auc._kernels.sort.compiled` (``usable(..., "states")``)
and driven by :func:`~dask_auc._kernels.states.bins.binned_rows`, whose NumPy
path (one sort of the keys) they equal bit for bit.

The bins live in an open-addressing table (one row of five uint64 per slot:
the bin's key prefix, its rows per class, its lowest and highest score's
key).  :func:`inserted_rows` reads the rows in their order into it and stops
when the table holds more bins than the caller's limit; the caller then
drops low bits of the prefixes (:func:`occupied`, :func:`rebinned`) and goes
on.  Weighted, :func:`weight_sums` adds each row's weight to its bin in row
order (``np.bincount``'s order), so that the sums do not depend on when bins
were joined.

``nogil``, so that the threaded scheduler runs them on all cores.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

_compile = njit(nogil=True, cache=True, boundscheck=False)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


#: the table's columns: the bin's prefix, its rows per class, its lowest and highest score's key
_PREFIX, _POS, _NEG, _LOW, _HIGH = 0, 1, 2, 3, 4


@_compile
def _slot(cells, prefix, table_bits):  # pragma: no cover - compiled
    """The slot of ``prefix`` in the table: its bin's, or the empty one where it goes."""
    mask = (1 << table_bits) - 1
    slot = np.int64((prefix * _GOLDEN) >> np.uint64(64 - table_bits))
    while cells[slot, _POS] + cells[slot, _NEG] != 0 and cells[slot, _PREFIX] != prefix:
        slot = (slot + 1) & mask
    return slot


@_compile
def occupied(cells):  # pragma: no cover - compiled
    """The occupied slots' indices and cells (the bins, in the table's order)."""
    count = 0
    for slot in range(len(cells)):
        if cells[slot, _POS] + cells[slot, _NEG] != 0:
            count += 1
    slots = np.empty(count, np.int64)
    k = 0
    for slot in range(len(cells)):
        if cells[slot, _POS] + cells[slot, _NEG] != 0:
            slots[k] = slot
            k += 1
    found = np.empty((count, 5), np.uint64)
    for k in range(count):
        found[k, :] = cells[slots[k], :]
    return slots, found


@_compile
def rebinned(cells, found, drop, table_bits):  # pragma: no cover - compiled
    """The table refilled with the bins ``found`` joined into their prefixes ``drop`` bits shorter.

    Returns the count of bins.
    """
    cells[:, :] = 0
    count = 0
    for e in range(len(found)):
        prefix = np.uint64(0) if drop >= 64 else found[e, _PREFIX] >> np.uint64(drop)
        slot = _slot(cells, prefix, table_bits)
        if cells[slot, _POS] + cells[slot, _NEG] == 0:
            count += 1
            cells[slot, :] = found[e, :]
            cells[slot, _PREFIX] = prefix
        else:
            cells[slot, _POS] += found[e, _POS]
            cells[slot, _NEG] += found[e, _NEG]
            cells[slot, _LOW] = min(cells[slot, _LOW], found[e, _LOW])
            cells[slot, _HIGH] = max(cells[slot, _HIGH], found[e, _HIGH])
    return count


@_compile
def inserted_rows(  # pragma: no cover - compiled
    keys, positive, start, cells, table_bits, shift, count, limit
):
    """Add the rows from ``start`` on to their bins (``key >> shift``) until more than ``limit``.

    ``keys``: the rows' order-preserving keys; ``positive``: uint8 flags.
    The table (``2 ** table_bits`` rows of :data:`_PREFIX` ... :data:`_HIGH`,
    empty where both counts are 0) holds ``count`` bins.  Returns ``(stop,
    count)``: the row after the last one added, and the bins now held (more
    than ``limit`` if it stopped early: the caller drops bits and goes on).
    """
    n = len(keys)
    for i in range(start, n):
        key = keys[i]
        prefix = np.uint64(0) if shift >= 64 else key >> np.uint64(shift)
        slot = _slot(cells, prefix, table_bits)
        if cells[slot, _POS] + cells[slot, _NEG] == 0:
            count += 1
            cells[slot, _PREFIX] = prefix
            cells[slot, _LOW] = key
            cells[slot, _HIGH] = key
        elif key < cells[slot, _LOW]:
            cells[slot, _LOW] = key
        elif key > cells[slot, _HIGH]:
            cells[slot, _HIGH] = key
        if positive[i]:
            cells[slot, _POS] += np.uint64(1)
        else:
            cells[slot, _NEG] += np.uint64(1)
        if count > limit:
            return i + 1, count
    return n, count


@_compile
def weight_sums(keys, positive, weights, shift, cells, table_bits):  # pragma: no cover
    """Each slot's weight per class, added in row order (as ``np.bincount``)."""
    sums = np.zeros((len(cells), 2), np.float64)
    for i in range(len(keys)):
        prefix = np.uint64(0) if shift >= 64 else keys[i] >> np.uint64(shift)
        sums[_slot(cells, prefix, table_bits), 0 if positive[i] else 1] += weights[i]
    return sums


def warm_up(loaded: Callable[[Any], None]) -> None:
    """Run the loops once, through their door, on tiny inputs: numba compiles (or loads) them."""
    from .bins import binned_rows

    scores = np.linspace(0.0, 1.0, 300)
    positive = (np.arange(300) % 2).astype(bool)
    for weights in (None, np.ones(300)):
        binned_rows(scores, positive, weights, max_bins=7, loops=sys.modules[__name__])
    loaded(inserted_rows)
