"""The binary queries' compiled loops (the optional ``numba`` extra).

Loaded only through :mod:`dask_auc._kernels.sort.compiled`, which falls back to
NumPy when numba is missing:

* :func:`merged_pair_counts`: the pair counts of two sorted arrays by one
  merge, instead of two binary searches per positive;
* :func:`merged_points`: a bucket's own curve points by the same merge;
* :func:`bucket_pav`, :func:`pooled_rounds`: the CORP reliability diagram's tie
  pooling, PAV and exact sums of its terms in one merge (:mod:`.reliability_compiled`
  holds their door).

``nogil``, so that the threaded scheduler runs them on all cores; exact
integers, the NumPy path's numbers.  Float sums take the NumPy path's order
(:func:`_reduceat_sum` is ``np.add.reduceat``'s), so weighted results are its
bits too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

#: nogil: the threaded scheduler runs the loops on all cores at once
_compile = njit(nogil=True, cache=True, boundscheck=False)


@_compile
def merged_pair_counts(pos, neg):  # pragma: no cover - compiled
    """(pairs pos > neg, pairs pos == neg) of two ascending arrays, by one merge.

    The caller makes sure ``len(pos) * len(neg)`` fits in int64.
    """
    n_neg = len(neg)
    below = 0  # negatives strictly below the current positive
    through = 0  # negatives at or below it
    strict = 0
    tied = 0
    for k in range(len(pos)):
        value = pos[k]
        while below < n_neg and neg[below] < value:
            below += 1
        if through < below:
            through = below
        while through < n_neg and neg[through] <= value:
            through += 1
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
        values[m], i, j = _next_run(pos, neg, i, j)
        m += 1
    return m


@_compile
def _next_run(pos, neg, i, j):  # pragma: no cover - compiled
    """The next distinct score of two ascending arrays from ``pos[i]``, ``neg[j]``, and its ends.

    ``(value, i, j)``: the lowest score left, and the index past its run in
    each array.  Of equal scores (``-0.0`` and ``0.0``) ``value`` is the first
    of ``pos`` holding it, else the first of ``neg``.  The merge walk of
    :func:`merged_points` and :func:`bucket_pav`; call it while either array
    has rows left.
    """
    n_pos, n_neg = len(pos), len(neg)
    if j == n_neg or (i < n_pos and pos[i] <= neg[j]):
        value = pos[i]
    else:
        value = neg[j]
    while i < n_pos and pos[i] == value:
        i += 1
    while j < n_neg and neg[j] == value:
        j += 1
    return value, i, j


@_compile
def _pairwise(values, start, n):  # pragma: no cover - compiled
    """NumPy's pairwise sum of ``values[start:start + n]`` (float64), in its order of additions.

    Eight running sums up to 128 values, halves (cut at a multiple of 8) above,
    and ``-0.0 + v`` one at a time below 8 values: the inner loop of
    ``np.add.reduce`` and ``np.add.reduceat`` on contiguous float64.
    """
    if n < 8:
        res = -0.0
        for i in range(n):
            res += values[start + i]
        return res
    if n <= 128:
        r0, r1, r2, r3 = values[start], values[start + 1], values[start + 2], values[start + 3]
        r4, r5, r6, r7 = values[start + 4], values[start + 5], values[start + 6], values[start + 7]
        i = 8
        limit = n - n % 8
        while i < limit:
            k = start + i
            r0 += values[k]
            r1 += values[k + 1]
            r2 += values[k + 2]
            r3 += values[k + 3]
            r4 += values[k + 4]
            r5 += values[k + 5]
            r6 += values[k + 6]
            r7 += values[k + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += values[start + i]
            i += 1
        return res
    half = n // 2
    half -= half % 8
    return _pairwise(values, start, half) + _pairwise(values, start + half, n - half)


@_compile
def _reduceat_sum(values, start, stop):  # pragma: no cover - compiled
    """``np.add.reduceat``'s sum of a float64 segment: its first value plus the pairwise rest."""
    if stop - start == 1:
        return values[start]
    return values[start] + _pairwise(values, start + 1, stop - start - 1)


@_compile
def _run_total(out, weights, kind, start, stop):  # pragma: no cover - compiled
    """Rows (``kind`` 0), multiplicities (1, exact) or weights (2) of ``[start, stop)``.

    Written to ``out[0]`` (its dtype): ``np.add.reduceat``'s sum of the run for weights.
    """
    if stop == start:
        out[0] = 0
    elif kind == 0:
        out[0] = stop - start
    elif kind == 1:
        total = weights[start]
        for k in range(start + 1, stop):
            total += weights[k]
        out[0] = total
    else:
        out[0] = _reduceat_sum(weights, start, stop)


@_compile
def _split(value):  # pragma: no cover - compiled
    """A finite float as ``(e, m)``: ``value = m * 2**(max(e, 1) - 1075)``, ``m`` a signed
    53-bit integer, ``e`` its biased exponent."""
    pattern = np.float64(value).view(np.int64)
    biased = (pattern >> 52) & 2047
    mantissa = pattern & 4503599627370495  # 2**52 - 1
    if biased:
        mantissa |= 4503599627370496  # the implicit bit
    if pattern < 0:
        mantissa = -mantissa
    return biased, mantissa


@_compile
def _add_exact(value, high, low, row):  # pragma: no cover - compiled
    """Add a finite float to integer bins by biased exponent ``e``, exactly.

    ``m`` (:func:`_split`) is summed in halves of 26 bits either side, signed, in
    ``high[row, e]`` and ``low[row, e]`` (``m = (high << 26) + low``).
    """
    biased, mantissa = _split(value)
    high[row, biased] += mantissa >> 26
    low[row, biased] += mantissa & 67108863  # 2**26 - 1


@_compile
def bucket_pav(
    pos, pos_weights, pos_kind, pos_logs,
    neg, neg_weights, neg_kind, neg_log1ps, pav,
    low, high, out_pos, out_neg, bins_high, bins_low, edge_scores, edge_pos, edge_neg,
):  # pragma: no cover - compiled  # fmt: skip
    """A bucket's PAV blocks and exact term sums in one merge of its two classes' sorted rows.

    Each distinct score (ascending) pools its tie: its rows (``kind`` 0),
    multiplicities (1) or weights (2, ``np.add.reduceat``'s order) of each class.
    The lowest and the highest score are set aside (``edge_*``: they may continue into
    the neighbouring buckets); each score between them adds its Brier, finite log and
    probability terms to row 0, 1, 2 of the exact bins (:func:`_add_exact`) --
    ``pos_logs`` (``neg_log1ps``) are NumPy's ``log(s)`` (``log1p(-s)``) of each
    positive's (negative's) score -- and, with ``pav`` (integer counts), is pushed on a
    stack of blocks and pooled with the blocks below while their means do not increase;
    without, every score is one block.  Returns ``(blocks, infinite, outside, edges)``:
    a log term was inf; a score lay outside [0, 1] (its terms are then meaningless);
    the number of scores set aside (0, 1 or 2).
    """
    n_pos, n_neg = len(pos), len(neg)
    run_pos, run_neg = np.zeros(1, out_pos.dtype), np.zeros(1, out_neg.dtype)
    zero = run_pos[0]  # 0 of the counts' dtype
    infinite = False
    outside = False
    groups = 0
    top = -1
    i = 0
    j = 0
    while i < n_pos or j < n_neg:
        start_pos, start_neg = i, j
        value, i, j = _next_run(pos, neg, i, j)
        if pos_kind == 0:  # rows: the common case, counted here (a call would cost more)
            p_count = zero + (i - start_pos)
        else:
            _run_total(run_pos, pos_weights, pos_kind, start_pos, i)
            p_count = run_pos[0]
        if neg_kind == 0:
            q_count = zero + (j - start_neg)
        else:
            _run_total(run_neg, neg_weights, neg_kind, start_neg, j)
            q_count = run_neg[0]
        s = np.float64(value) + 0.0  # float64; -0.0 is 0.0
        if groups == 0 or (i == n_pos and j == n_neg):  # the bucket's lowest or highest score
            edge = min(groups, 1)
            edge_scores[edge], edge_pos[edge], edge_neg[edge] = s, p_count, q_count
            groups += 1
            continue
        groups += 1
        outside = outside or s < 0 or s > 1
        p = np.float64(p_count)
        q = np.float64(q_count)
        up = 1 - s
        _add_exact(p * (up * up) + q * (s * s), bins_high, bins_low, 0)
        log_p = pos_logs[start_pos] if i > start_pos else 0.0
        log_q = neg_log1ps[start_neg] if j > start_neg else 0.0
        log_term = (0.0 if p_count == 0 else -(p * log_p)) + (0.0 if q_count == 0 else -(q * log_q))
        if np.isfinite(log_term):
            _add_exact(log_term, bins_high, bins_low, 1)
        else:
            infinite = True
        _add_exact(np.float64(p_count + q_count) * s, bins_high, bins_low, 2)
        top += 1
        low[top], high[top], out_pos[top], out_neg[top] = s, s, p_count, q_count
        while (
            pav and top > 0 and out_pos[top - 1] * out_neg[top] >= out_pos[top] * out_neg[top - 1]
        ):
            out_pos[top - 1] += out_pos[top]
            out_neg[top - 1] += out_neg[top]
            high[top - 1] = high[top]
            top -= 1
    return top + 1, infinite, outside, min(groups, 2)


@_compile
def pooled_rounds(low, high, pos, neg, factor):  # pragma: no cover - compiled
    """The NumPy rounds of PAV on float weights, in place: the same pools, the same sums.

    Each round pools every maximal run of ``pos[i] * neg[i + 1] >= pos[i + 1] * neg[i]
    * factor`` (sums in ``np.add.reduceat``'s order) until none is left; returns
    the number of blocks.
    """
    n = len(pos)
    while n > 1:
        joined = False
        write = 0
        i = 0
        while i < n:
            j = i
            while j + 1 < n and pos[j] * neg[j + 1] >= pos[j + 1] * neg[j] * factor:
                j += 1
            if j > i:
                joined = True
                total_pos = _reduceat_sum(pos, i, j + 1)
                total_neg = _reduceat_sum(neg, i, j + 1)
            else:
                total_pos, total_neg = pos[i], neg[i]
            low[write], high[write] = low[i], high[j]
            pos[write], neg[write] = total_pos, total_neg
            write += 1
            i = j + 1
        n = write
        if not joined:
            break
    return n


def warm_up(loaded: Callable[[Any], None]) -> None:
    """Run :func:`merged_points` and the reliability loops once, through their doors.

    :mod:`~dask_auc._kernels.sort.compiled` calls this in the background compile
    (:func:`merged_pair_counts` is the sort's, warmed with its loops); ``loaded`` is
    given the first loop, to revise the compile's estimate.
    """
    from .curve_points import merged_points as points_door
    from .reliability_compiled import warm_up as reliability_warm_up

    for dtype in (np.float64, np.int64):
        ascending = np.arange(300, dtype=dtype)
        points_door(ascending[::2].copy(), ascending[1::2].copy())
    loaded(merged_points)
    reliability_warm_up()
