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


#: rows a sum of :func:`_row_sums` adds at most: 1023 mantissas (< 2**53) stay below 2**63
_FLUSH = 1023


@_compile
def _term(scores, logs, term, k):  # pragma: no cover - compiled
    """Row ``k``'s term (0: a positive's Brier, 1: a negative's, 2: the log term, 3: s)."""
    if term == 2:
        return -logs[k]
    s = np.float64(scores[k]) + 0.0
    if term == 0:
        up = 1 - s
        return up * up
    return s * s if term == 1 else s


@_compile
def _bits_sum(scores, logs, term, start, stop, biased):  # pragma: no cover - compiled
    """The wrapping sum of the terms' bits but their signs, rows ``[start, stop)``, and whether
    a term's exponent is not ``biased``: a branch-free loop a term, vectorized."""
    total = np.uint64(0)
    other = np.uint64(0)  # nonzero: some exponent differs
    magnitude = np.uint64(9223372036854775807)  # 2**63 - 1: a float's bits but its sign
    expected = np.uint64(biased)
    for r in range(start, stop):
        if term == 2:
            bits = np.float64(logs[r]).view(np.uint64) & magnitude
        elif term == 3:
            bits = np.float64(np.float64(scores[r]) + 0.0).view(np.uint64) & magnitude
        elif term == 1:
            s = np.float64(scores[r]) + 0.0
            bits = np.float64(s * s).view(np.uint64) & magnitude
        else:
            up = 1 - (np.float64(scores[r]) + 0.0)
            bits = np.float64(up * up).view(np.uint64) & magnitude
        total += bits
        other |= (bits >> np.uint64(52)) ^ expected
    return total, other != 0


@_compile
def _exponent_end(scores, logs, term, start, stop):  # pragma: no cover - compiled
    """The first row past ``start`` whose term has another exponent, by bisection: the scores
    ascend, so each term's magnitude is monotone (not past [0, 1]: the sums are not used)."""
    biased = (np.float64(_term(scores, logs, term, start)).view(np.int64) >> 52) & 2047
    low, high = start + 1, stop
    while low < high:
        middle = (low + high) // 2
        other = (np.float64(_term(scores, logs, term, middle)).view(np.int64) >> 52) & 2047
        if other == biased:
            low = middle + 1
        else:
            high = middle
    return low, biased


@_compile
def _row_sums(scores, logs, positive, start, stop, bins_high, bins_low):  # pragma: no cover
    """Add the terms of ``scores[start:stop]``, one class's rows each its own tie group, exactly.

    :func:`_term`'s; of each run of one exponent (:func:`_exponent_end`) the mantissas'
    sum, :data:`_FLUSH` rows at a time, is the wrapping sum of the bits (vectorized)
    less the exponent's, added to the bins (:func:`_add_exact`'s); exponent 2047 is
    inf.  Returns ``(infinite, outside)``.
    """
    infinite = False
    outside = stop > start and (scores[start] < 0 or scores[stop - 1] > 1)
    for term, row in ((0 if positive else 1, 0), (2, 1), (3, 2)):
        k = start
        while k < stop:
            end, biased = _exponent_end(scores, logs, term, k, stop)
            field = (biased << 52) - (4503599627370496 if biased else 0)  # less the implicit bit
            while k < end:
                last = min(end, k + _FLUSH)
                total, other = _bits_sum(scores, logs, term, k, last, biased)
                if other or biased == 2047:  # not monotone (NumPy's log need not be), or inf
                    for r in range(k, last):
                        value = _term(scores, logs, term, r)
                        if term != 2 or np.isfinite(value):
                            _add_exact(value, bins_high, bins_low, row)
                        else:
                            infinite = True
                else:
                    mantissas = np.int64(total - np.uint64(last - k) * np.uint64(field))
                    bins_high[row, biased] += mantissas >> 26
                    bins_low[row, biased] += mantissas & 67108863  # 2**26 - 1
                k = last
    return infinite, outside


@_compile
def _lone_rows(values):  # pragma: no cover - compiled
    """Whether ascending ``values`` are strictly increasing: every row its own score."""
    for first in range(1, len(values), 1024):
        repeats = False
        for k in range(first, min(first + 1024, len(values))):
            repeats |= not values[k - 1] < values[k]  # NaN too
        if repeats:
            return False
    return True


@_compile
def _lone_run(
    pos, neg, pos_logs, neg_log1ps, i, j, top, low, high, out_pos, out_neg, bins
):  # pragma: no cover - compiled
    """:func:`bucket_pav`'s loop for counted rows where no class repeats a score.

    From ``pos[i]``, ``neg[j]`` (``top + 1`` blocks) while each class keeps a row
    past the score: a score is one row, or one of each class (a cross tie).  A
    branch-free merge, the PAV's top block in registers; the terms summed after it
    by class (:func:`_row_sums`).  Returns ``(i, j, top, groups, infinite, outside)``.
    """
    bins_high, bins_low = bins
    n_pos, n_neg = len(pos), len(neg)
    start_pos, start_neg = i, j
    groups = 0
    if top >= 0:  # the stack's top block, in registers
        block_pos, block_neg = out_pos[top], out_neg[top]
        block_low, block_high = low[top], high[top]
        below = top
    else:  # no block yet: the first score is the top block
        x, y = pos[i], neg[j]
        p, q = np.int64(x <= y), np.int64(y <= x)
        block_low = block_high = np.float64(x if p else y) + 0.0
        block_pos, block_neg = p, q
        if p and q:
            _tie_terms(block_low, pos_logs[i], neg_log1ps[j], bins_high, bins_low)
        i, j = i + p, j + q
        groups += 1
        below = 0
    while i + 1 < n_pos and j + 1 < n_neg:
        x, y = pos[i], neg[j]
        taken_pos, taken_neg = x <= y, y <= x
        s = np.float64(x if taken_pos else y) + 0.0
        p, q = np.int64(taken_pos), np.int64(taken_neg)
        if taken_pos and taken_neg:  # a tie across the classes: rare
            _tie_terms(s, pos_logs[i], neg_log1ps[j], bins_high, bins_low)
        i, j = i + p, j + q
        groups += 1
        push = block_pos * q < p * block_neg  # the top's mean is below the score's
        low[below], high[below] = block_low, block_high  # branch-free: stored, kept if pushed
        out_pos[below], out_neg[below] = block_pos, block_neg
        below += np.int64(push)
        block_pos, block_neg = p + (0 if push else block_pos), q + (0 if push else block_neg)
        block_low = s if push else block_low
        while below > 0 and out_pos[below - 1] * block_neg >= block_pos * out_neg[below - 1]:
            below -= 1
            block_pos += out_pos[below]
            block_neg += out_neg[below]
            block_low = low[below]
        block_high = s
    low[below], high[below] = block_low, block_high
    out_pos[below], out_neg[below] = block_pos, block_neg
    infinite, outside = _row_sums(pos, pos_logs, True, start_pos, i, bins_high, bins_low)
    infinite_neg, outside_neg = _row_sums(neg, neg_log1ps, False, start_neg, j, bins_high, bins_low)
    return i, j, below, groups, infinite or infinite_neg, outside or outside_neg


@_compile
def _tie_terms(s, log_p, log_q, bins_high, bins_low):  # pragma: no cover - compiled
    """A cross tie's group terms in the bins in place of its two rows' (:func:`_row_sums`): its
    Brier and finite log term at counts 1 and 1 (``2 * s`` is its rows' sum exactly)."""
    up = 1 - s
    one = np.float64(1.0)
    _add_exact(one * (up * up) + one * (s * s), bins_high, bins_low, 0)
    _add_exact(-(up * up), bins_high, bins_low, 0)
    _add_exact(-(s * s), bins_high, bins_low, 0)
    group = -(one * log_p) + -(one * log_q)
    if np.isfinite(group):
        _add_exact(group, bins_high, bins_low, 1)
    for row_term in (-log_p, -log_q):
        if np.isfinite(row_term):
            _add_exact(-row_term, bins_high, bins_low, 1)


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

    Counted rows of which no class repeats a score (continuous scores) take
    :func:`_lone_run` between the ends: the same blocks and sums at about half the cost.
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
    lone = pav and pos_kind == 0 and neg_kind == 0 and _lone_rows(pos) and _lone_rows(neg)
    while i < n_pos or j < n_neg:
        if lone and groups > 0 and i + 1 < n_pos and j + 1 < n_neg:  # the common continuous case
            bins = (bins_high, bins_low)
            i, j, top, added, inf_run, out_run = _lone_run(
                pos, neg, pos_logs, neg_log1ps, i, j, top, low, high, out_pos, out_neg, bins
            )
            groups += added
            infinite = infinite or inf_run
            outside = outside or out_run
            continue
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
