"""The binary queries' compiled loops (the optional ``numba`` extra).

Loaded only through :mod:`dask_auc._kernels.sort.compiled`, which falls back to
NumPy when numba is missing:

* :func:`merged_pair_counts`: the pair counts of two sorted arrays by one
  merge, instead of two binary searches per positive;
* :func:`merged_points`: a bucket's own curve points by the same merge;
* :func:`placed_points`: an unweighted bucket's curve points, placed, by one
  walk down its two classes; :func:`largest_gap`: the KS statistic's scan of them;
  :func:`roc_corners`: ``roc_curve``'s ``drop_intermediate`` of them;
* :func:`precision_sum`: average precision's exact sum over a bucket's
  points, in one pass;
* :func:`looked_up`: each row's value by its score, from a hash of a small
  table (DeLong's placements of a model of few distinct scores);
  :func:`pair_lanes`: the sums of every pair of rows' products, in four lanes;
* :func:`bucket_pav`, :func:`distinct_scores`, :func:`distinct_totals`,
  :func:`pooled_rounds`: the CORP
  reliability diagram's loops, in :mod:`._pav_numba` and taken from there
  (:mod:`.reliability_compiled` holds their door).

``nogil``, so that the threaded scheduler runs them on all cores; exact
integers, the NumPy path's numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from ..core.summary import EXPONENTS, MIN_EXPONENT, SPLITTER
from ..sort._numba import GOLDEN_64, walked_below, walked_through

# the reliability loops, offered with these (the door takes them from this module)
from ._pav_numba import (  # noqa: F401
    bucket_pav,
    distinct_scores,
    distinct_totals,
    next_run,
    pooled_rounds,
)

#: nogil: the threaded scheduler runs the loops on all cores at once
_compile = njit(nogil=True, cache=True, boundscheck=False)
#: the same, inlined by numba into its callers
_inlined = njit(nogil=True, cache=True, boundscheck=False, inline="always")


@_compile
def merged_pair_counts(pos, neg):  # pragma: no cover - compiled
    """(pairs pos > neg, pairs pos == neg) of two ascending arrays, by one merge.

    The caller makes sure ``len(pos) * len(neg)`` fits in int64.
    """
    n = len(neg)
    below = 0  # negatives strictly below the current positive
    through = 0  # negatives at or below it
    strict = 0
    tied = 0
    for k in range(len(pos)):
        x = pos[k]
        if k == 0 or x != pos[k - 1]:  # a positive tied with the last has its counts
            below = walked_below(neg, below, n, x)
            if through < below:
                through = below
            if through < n and neg[through] <= x:  # negatives tied with it (rare): walked once
                through = walked_through(neg, through, n, x)
        strict += below
        tied += through - below
    return strict, tied


@_compile
def merged_points(pos, neg, values, below_neg, below_pos):  # pragma: no cover - compiled
    """The distinct scores of two ascending arrays, ascending, and each array's rows below each.

    Writes them to the first ``m`` entries of the outputs and returns ``m``.
    Of equal scores (``-0.0`` and ``0.0``) the value written is the first
    of ``pos`` holding it, else the first of ``neg``: the first in a stable
    sort of ``pos`` then ``neg``.
    """
    n_pos, n_neg = len(pos), len(neg)
    i = 0
    j = 0
    m = 0
    while i < n_pos or j < n_neg:
        below_neg[m] = j
        below_pos[m] = i
        values[m], i, j = next_run(pos, neg, i, j)
        m += 1
    return m


@_compile
def placed_points(pos, neg, above_pos, above_neg, tps, fps, thresholds):  # pragma: no cover
    """An unweighted bucket's distinct scores, descending, with the rows at or above each.

    One walk down the two ascending arrays; ``tps[m]`` (``fps[m]``) is
    ``above_pos`` (``above_neg``) plus the positives (negatives) scoring at
    least ``thresholds[m]``.  Writes the first ``m`` entries and returns ``m``.
    Of equal scores (``-0.0`` and ``0.0``) the value written is the first of
    ``pos`` holding it, else the first of ``neg``: :func:`merged_points`'s.
    """
    n_pos, n_neg = len(pos), len(neg)
    i = n_pos - 1
    j = n_neg - 1
    m = 0
    while i >= 0 or j >= 0:
        if j < 0 or (i >= 0 and pos[i] >= neg[j]):
            value = pos[i]
        else:
            value = neg[j]
        while i >= 0 and pos[i] == value:
            i -= 1
        while j >= 0 and neg[j] == value:
            j -= 1
        if i + 1 < n_pos and pos[i + 1] == value:  # the run's first row, as the merge keeps it
            thresholds[m] = pos[i + 1]
        else:
            thresholds[m] = neg[j + 1]
        tps[m] = above_pos + (n_pos - 1 - i)
        fps[m] = above_neg + (n_neg - 1 - j)
        m += 1
    return m


@_compile
def largest_gap(tps, fps, total_pos, total_neg):  # pragma: no cover - compiled
    """``(index, gap)`` of the first largest ``|tps * total_neg - fps * total_pos|`` (int64).

    The caller makes sure ``total_pos * total_neg`` fits in int64: every gap is exact.
    """
    best = 0
    largest = -1
    for k in range(len(tps)):
        gap = abs(tps[k] * total_neg - fps[k] * total_pos)
        if gap > largest:
            best, largest = k, gap
    return best, largest


@njit(inline="always", cache=True)
def _two_product(a, b):  # pragma: no cover - compiled
    """``(p, e)``: ``p = fl(a * b)`` and ``p + e == a * b`` exactly (Dekker)."""
    product = a * b
    scaled = SPLITTER * a
    a_high = scaled - (scaled - a)
    a_low = a - a_high
    scaled = SPLITTER * b
    b_high = scaled - (scaled - b)
    b_low = b - b_high
    error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    return product, error


@njit(inline="always", cache=True)
def _split(value, bits, words):  # pragma: no cover - compiled
    """``(index, integer)``: ``value = integer * 2**(index + MIN_EXPONENT - 53)``, ``|integer| <
    2**53``: ``np.frexp``'s decomposition (``exponent - 1`` for a subnormal, whose integer lacks
    the implicit bit: the same product), read from the bits (``bits``: a one-float scratch,
    ``words`` its int64 view) rather than by a libm call."""
    bits[0] = value
    word = words[0]
    field = (word >> 52) & 2047
    integer = word & 4503599627370495  # the 52 fraction bits
    if field == 0:
        field = 1  # a subnormal (or zero): units of 2**-1074, as the smallest normal exponent's
    else:
        integer |= 4503599627370496  # the implicit bit, 2**52
    if word < 0:
        integer = -integer
    return field - 1022 - MIN_EXPONENT, integer  # np.frexp's exponent is field - 1022


@njit(inline="always", cache=True)
def _add_exact(value, bits, words, high, low):  # pragma: no cover - compiled
    """Add ``value`` exactly: its mantissa's upper and lower 26 bits to its exponent's sums."""
    index, integer = _split(value, bits, words)
    high[index] += integer >> 26
    low[index] += integer & 67108863  # 2**26 - 1


#: points :func:`precision_sum` lists before it sums their terms (a buffer in the L1 cache)
_GAINED = 2048


@_compile
def precision_sum(asked, other, before, high, low):  # pragma: no cover - compiled
    """Average precision's terms of a bucket's points, added exactly to ``high``/``low``.

    ``asked`` and ``other``: each point's (int64) rows of the class asked for
    and of the other at ``score >= threshold``, descending scores; ``before``:
    the asked class's count at the point before the first.  Each term ``g * a
    / b`` (gained, asked, predicted) is split into the floats of
    :func:`~dask_auc._kernels.core.summary.ratio_terms`, whose exact sum is
    the same; ``high[e]``/``low[e]`` sum the upper and lower 26 bits of the
    mantissas of exponent ``e + MIN_EXPONENT`` (int64: exact).  The leading
    floats (the precisions, mostly of one exponent in a row) are summed in
    registers while their exponent repeats: a chain through memory for each
    would cost 2-3x the loop.  The points that gain rows of the class are
    listed first, :data:`_GAINED` at a time, branch-free: on continuous scores
    a point gains a positive or a negative at random, and a branch on it cost
    ~15% of the loop.
    """
    bits = np.empty(1, np.float64)
    words = bits.view(np.int64)
    gained = np.empty(_GAINED, np.int64)  # (in the L1 cache)
    previous = before
    last = -1  # the exponent whose leading floats are being summed, and their two halves
    last_high = 0
    last_low = 0
    n = len(asked)
    for start in range(0, n, _GAINED):
        count = 0
        for k in range(start, min(n, start + _GAINED)):
            a = asked[k]
            gained[count] = k
            count += (a != previous) & (a + other[k] > 0)
            previous = a
        for t in range(count):
            k = gained[t]
            a = asked[k]
            b = a + other[k]
            g = a - (asked[k - 1] if k > 0 else before)
            fa, fb, fg = float(a), float(b), float(g)
            ratio = fa / fb
            product, error = _two_product(ratio, fb)
            remainder = (fa - product) - error  # a - ratio * b, exactly
            head, tail = _two_product(fg, ratio)
            index, integer = _split(head, bits, words)
            if index != last:
                if last >= 0:
                    high[last] += last_high
                    low[last] += last_low
                last, last_high, last_low = index, 0, 0
            last_high += integer >> 26  # < 2**27 a point: no overflow below 2**36 points
            last_low += integer & 67108863
            if tail != 0.0:
                _add_exact(tail, bits, words, high, low)
            third = fg * remainder / fb
            if third != 0.0:
                _add_exact(third, bits, words, high, low)
    if last >= 0:
        high[last] += last_high
        low[last] += last_low


@_compile
def roc_corners(tps, fps, before, after, edges, kept):  # pragma: no cover - compiled
    """The indices of the ROC's corners among a run of points, into ``kept``; returns how many.

    A point stays where ``fps`` or ``tps`` bends: its second difference with
    its neighbours, ``(next - this) - (this - previous)``, is not zero.  The
    run's neighbours are ``before`` and ``after`` (``(tp, fp)``), present as
    ``edges``' bits 1 and 2 say; without one, the run starts (or ends) the
    curve, whose end points always stay.  Integer counts: exact.
    """
    n = len(tps)
    m = _kept_end(tps, fps, 0, before, after, edges, kept, 0)  # the run's ends: neighbours
    for i in range(1, n - 1):  # the points between, branch-free (a corner at ~40% of them)
        bends = ((fps[i + 1] - fps[i]) != (fps[i] - fps[i - 1])) | (
            (tps[i + 1] - tps[i]) != (tps[i] - tps[i - 1])
        )
        kept[m] = i
        m += bends
    if n > 1:
        m = _kept_end(tps, fps, n - 1, before, after, edges, kept, m)
    return m


@_inlined
def _kept_end(tps, fps, i, before, after, edges, kept, m):  # pragma: no cover - compiled
    """:func:`roc_corners` of a run's end point ``i`` (if the run has one): kept at an end
    of the curve, or where it bends against the run's neighbour; the new count."""
    n = len(tps)
    if i >= n:
        return m
    first, last = i == 0, i == n - 1
    keep = (first and not edges & 1) or (last and not edges & 2)  # an end of the curve
    if not keep:
        p_tp, p_fp = (before[0], before[1]) if first else (tps[i - 1], fps[i - 1])
        f_tp, f_fp = (after[0], after[1]) if last else (tps[i + 1], fps[i + 1])
        keep = (f_fp - fps[i]) - (fps[i] - p_fp) != 0 or (f_tp - tps[i]) - (tps[i] - p_tp) != 0
    if keep:
        kept[m] = i
        m += 1
    return m


@_compile
def _hashed(keys, zero):  # pragma: no cover - compiled
    """An open-addressing table of ``keys`` (patterns; ``zero`` read as 0), at most half full,
    and its log size.

    Linear probing (Fibonacci hashing) in one array of (pattern, ``i + 1``)
    slots, 0 marking an empty one: one cache line a probe.  Of equal keys the
    first is kept.
    """
    log_capacity = 4
    while (1 << log_capacity) < 2 * len(keys):
        log_capacity += 1
    mask = (1 << log_capacity) - 1
    shift = np.uint64(64 - log_capacity)
    golden = np.uint64(GOLDEN_64)
    table = np.zeros(2 << log_capacity, np.uint64)
    for i in range(len(keys)):
        pattern = np.uint64(keys[i])
        pattern = np.uint64(0) if pattern == zero else pattern
        slot = np.int64((pattern * golden) >> shift)
        while table[2 * slot + 1] != 0 and table[2 * slot] != pattern:
            slot = (slot + 1) & mask
        if table[2 * slot + 1] == 0:
            table[2 * slot] = pattern
            table[2 * slot + 1] = np.uint64(i + 1)
    return table, log_capacity


@njit(inline="always", cache=True)
def _found(table, log_capacity, pattern):  # pragma: no cover - compiled
    """The index of ``pattern`` among the keys of :func:`_hashed`'s ``table``, or -1."""
    mask = (1 << log_capacity) - 1
    slot = np.int64((pattern * np.uint64(GOLDEN_64)) >> np.uint64(64 - log_capacity))
    while True:
        index = table[2 * slot + 1]
        if index == 0:
            return -1
        if table[2 * slot] == pattern:
            return np.int64(index) - 1
        slot = (slot + 1) & mask


@_compile
def looked_up(
    pos_keys, pos_values, neg_keys, neg_values, queries, positive, zero, out_pos, out_neg
):  # pragma: no cover - compiled
    """Each row's value by its pattern in its class's table, written in row order per class.

    ``queries`` are the rows' patterns (an unsigned view of the scores: equal
    scores, equal patterns, but ``-0.0``'s, ``zero``, read as ``0.0``'s, 0)
    and ``positive`` (uint8) their classes; a positive row's value is
    ``pos_values[i]`` for the ``i`` with ``pos_keys[i]`` its pattern, written
    to the next slot of ``out_pos`` (a negative's likewise, to ``out_neg``).
    Stops at the first row whose pattern its class's keys lack and returns
    its row; else returns the rows.
    """
    pos_table, pos_log = _hashed(pos_keys, zero)
    neg_table, neg_log = _hashed(neg_keys, zero)
    p = 0
    q = 0
    for r in range(len(queries)):
        pattern = np.uint64(queries[r])
        pattern = np.uint64(0) if pattern == zero else pattern
        if positive[r]:
            i = _found(pos_table, pos_log, pattern)
            if i < 0:
                return r
            out_pos[p] = pos_values[i]
            p += 1
        else:
            i = _found(neg_table, neg_log, pattern)
            if i < 0:
                return r
            out_neg[q] = neg_values[i]
            q += 1
    return len(queries)


#: rows of every pair summed at a time: the ``k`` rows' run stays in the cache for all pairs
_PAIR_RUN = 2048


@_compile
def pair_lanes(rows, sums):  # pragma: no cover - compiled
    """``sums[i, j]``: the products of rows ``i`` and ``j`` summed in four lanes (row ``r`` in lane
    ``r % 4``, each from 0.0 in row order; then ``(l0 + l1) + (l2 + l3)``): the NumPy path's
    ``cumsum`` lanes (:func:`~dask_auc._kernels.binary.delong_paired.pair_products`), bit for bit.
    A run of rows at a time for every pair, so the run stays in the cache.
    """
    k, n = rows.shape
    lanes = np.zeros((k, k, 4))
    for start in range(0, n, _PAIR_RUN):
        stop = min(start + _PAIR_RUN, n)
        for i in range(k):
            x = rows[i]
            for j in range(i, k):
                y = rows[j]
                a0, a1, a2, a3 = lanes[i, j, 0], lanes[i, j, 1], lanes[i, j, 2], lanes[i, j, 3]
                r = start
                while r + 4 <= stop:
                    a0 += x[r] * y[r]
                    a1 += x[r + 1] * y[r + 1]
                    a2 += x[r + 2] * y[r + 2]
                    a3 += x[r + 3] * y[r + 3]
                    r += 4
                while r < stop:  # the last rows: each to the lane of its row number
                    term = x[r] * y[r]
                    lane = r & 3
                    if lane == 0:
                        a0 += term
                    elif lane == 1:
                        a1 += term
                    elif lane == 2:
                        a2 += term
                    else:
                        a3 += term
                    r += 1
                lanes[i, j, 0], lanes[i, j, 1], lanes[i, j, 2], lanes[i, j, 3] = a0, a1, a2, a3
    for i in range(k):
        for j in range(i, k):
            total = (lanes[i, j, 0] + lanes[i, j, 1]) + (lanes[i, j, 2] + lanes[i, j, 3])
            sums[i, j] = total
            sums[j, i] = total


def warm_up(loaded: Callable[[Any], None]) -> None:
    """Run the loops once each (the reliability loops too), on tiny inputs: numba compiles them.

    :mod:`~dask_auc._kernels.sort.compiled` calls this in the background compile
    (:func:`merged_pair_counts` is the sort's, warmed with its loops); ``loaded`` is
    given the first loop, to revise the compile's estimate.
    """
    from .curve_points import merged_points as points_door
    from .reliability_compiled import warm_up as reliability_warm_up

    high, low = np.zeros(EXPONENTS, np.int64), np.zeros(EXPONENTS, np.int64)
    for dtype in (np.float64, np.int64):
        ascending = np.arange(300, dtype=dtype)
        points_door(ascending[::2].copy(), ascending[1::2].copy())
        tps, fps = np.empty(300, np.int64), np.empty(300, np.int64)
        placed_points(
            ascending[::2].copy(), ascending[1::2].copy(), 0, 0, tps, fps, ascending.copy()
        )
    largest_gap(tps, fps, 150, 150)
    roc_corners(tps, fps, np.zeros(2, np.int64), np.zeros(2, np.int64), 3, np.empty(300, np.int64))
    counts = np.arange(1, 301, dtype=np.int64)
    precision_sum(counts, counts.copy(), 0, high, low)
    patterns, half = counts.view(np.uint64), (np.arange(300) % 2).astype(np.uint8)
    ones, out, zero = np.ones(300), np.empty(300), np.uint64(1 << 63)  # -0.0's pattern
    looked_up(patterns, ones, patterns, ones, patterns[::-1].copy(), half, zero, out, out)
    pair_lanes(np.ones((3, 9)), np.zeros((3, 3)))
    loaded(merged_points)
    reliability_warm_up()
