"""A block of no more rows than its state's bins, by a sort of its keys (numba, after NumPy's sort).

A block of at most ``max_bins`` rows keeps every key (64 bits: its distinct
keys are at most its rows), so its state is its distinct keys with their
class counts; no level to find, no bitmap, no table that outgrows the caches.
Unweighted, each class's keys are sorted by NumPy (its SIMD sort of uint64)
and one merge of the two sorted runs counts them (:func:`class_runs`).
Weighted, the keys' order (NumPy's SIMD argsort) gives each row's bin, and
each weight is added to its bin in row order from 0.0: ``np.bincount``'s
sums bit for bit (:func:`ordered_sums`).  Read-outs
are :func:`._numba.block_bins`' rows (prefix, positives, negatives, lowest
and highest key), so the block's bins are the NumPy path's.
"""

from __future__ import annotations

import numpy as np

from ..sort._numba import order_key
from ._tables import MAX, entry, score_bits


@entry
def class_keys(bits, flags):  # pragma: no cover - compiled
    """``(keys, p)``: the positives' keys at ``keys[:p]``, the negatives' at ``keys[p + 1:-1]``,
    each followed by the greatest key (no score's but a NaN's, refused before), in row order."""
    n = len(bits)
    p = 0
    for i in range(n):
        p += flags[i] != 0
    keys = np.empty(n + 2, np.uint64)
    keys[p], keys[n + 1] = MAX, MAX
    i_pos, i_neg = 0, p + 1
    for i in range(n):
        key = order_key(bits[i])
        if flags[i]:
            keys[i_pos] = key
            i_pos += 1
        else:
            keys[i_neg] = key
            i_neg += 1
    return keys, p


@entry
def row_keys(bits):  # pragma: no cover - compiled
    """Every row's key (``bins.score_keys`` of the scores' float64 bits)."""
    keys = np.empty(len(bits), np.uint64)
    for i in range(len(bits)):
        keys[i] = order_key(bits[i])
    return keys


@entry
def class_runs(keys, p):  # pragma: no cover - compiled
    """``(bins, pos, neg, scores)`` of :func:`class_keys`' two runs, each sorted: the distinct
    keys, ascending, each class's rows of each, and each key's score (float64 bits).

    One merge of the two runs without a branch on the keys (their
    interleaving is random: a branch would be mispredicted at every other
    row): the greatest key ends each run, so neither is read past its end.
    """
    n = len(keys) - 2
    bins = np.empty(n, np.uint64)
    pos, neg = np.zeros(n, np.int64), np.zeros(n, np.int64)
    i, j, k, last = 0, p + 1, -1, MAX
    for _ in range(n):
        a, b = keys[i], keys[j]
        positive = np.int64(a <= b)
        key = a if positive else b
        i += positive
        j += 1 - positive
        k += np.int64(key != last)
        bins[k] = key
        pos[k] += positive
        neg[k] += 1 - positive
        last = key
    k += 1
    scores = np.empty(k, np.uint64)
    for e in range(k):
        scores[e] = score_bits(bins[e])
    return bins[:k], pos[:k], neg[:k], scores


@entry
def ordered_sums(keys, order, flags, weights):  # pragma: no cover - compiled
    """``(bins, pos, neg, scores)``: the bins of the rows (``order`` sorts ``keys``; it need
    not be stable), each bin's weight per class, and its score.

    Each row's bin is found along ``order``, then the weights are added over
    the rows in row order, from 0.0: ``np.bincount``'s sums, bit for bit.
    """
    n = len(keys)
    bins, scores = np.empty(n, np.uint64), np.empty(n, np.uint64)
    row_bin = np.empty(n, np.int64)
    k = -1
    for e in range(n):
        r = order[e]
        key = keys[r]
        if k < 0 or bins[k] != key:
            k += 1
            bins[k], scores[k] = key, score_bits(key)
        row_bin[r] = k
    sums = np.zeros((k + 1, 2), np.float64)
    for i in range(n):
        sums[row_bin[i], 0 if flags[i] else 1] += weights[i]
    return bins[: k + 1], sums[:, 0].copy(), sums[:, 1].copy(), scores[: k + 1]


def sorted_bins(
    bits: np.ndarray, flags: np.ndarray, weights: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(bins, pos, neg, low, high)`` of a block of at most ``max_bins`` rows (its bits: 64),
    as :func:`.bins.binned_rows` gives them: ``bits`` the scores' float64 bits, ``flags``
    uint8 (1: positive); ``weights`` None: unweighted (int64 counts)."""
    if weights is None:
        keys, p = class_keys(bits, flags)
        keys[:p].sort()  # (NumPy's SIMD sort, in place: views of one array)
        keys[p + 1 : -1].sort()
        bins, pos, neg, scores = class_runs(keys, p)
    else:
        keys = row_keys(bits)
        bins, pos, neg, scores = ordered_sums(keys, np.argsort(keys), flags, weights)
    low = scores.view(np.float64)
    return bins, pos, neg, low, low.copy()
