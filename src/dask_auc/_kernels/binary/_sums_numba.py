"""The reliability loops' sums (the optional ``numba`` extra): exact, or in NumPy's order.

:mod:`._pav_numba`'s merge adds each distinct score's Brier, log and probability
terms to integer bins by exponent, exactly (:func:`add_exact`; a class's rows of
unit count by runs of one exponent, :func:`row_sums`), and sums weights in
``np.add.reduceat``'s order of float additions (:func:`pairwise_rest`), so that
weighted results are the NumPy path's bits.  ``nogil``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: nogil: the threaded scheduler runs the loops on all cores at once
_compile = njit(nogil=True, cache=True, boundscheck=False)
#: the same, inlined into the callers by numba (not left to LLVM): a call that LLVM does not
#: inline costs ~20-50 ns (its arrays' reference counts), more than a short sum
_inlined = njit(nogil=True, cache=True, boundscheck=False, inline="always")


@_inlined
def _pairwise_block(values, start, n):  # pragma: no cover - compiled
    """NumPy's pairwise sum of ``values[start:start + n]`` (float64, ``n <= 128``), in its order.

    Eight running sums, and ``-0.0 + v`` one at a time below 8 values: the inner
    loop of ``np.add.reduce`` and ``np.add.reduceat`` on contiguous float64.  Not
    recursive, so that numba inlines it into its callers (a call through the
    recursive :func:`_pairwise_halves` costs ~50 ns).
    """
    if n < 8:
        res = -0.0
        for i in range(n):
            res += values[start + i]
        return res
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


@_inlined
def _half(n):  # pragma: no cover - compiled
    """Where NumPy's pairwise sum cuts ``n`` values: the half, down to a multiple of 8."""
    half = n // 2
    return half - half % 8


@_inlined
def _pairwise_halves(values, start, n):  # pragma: no cover - compiled
    """NumPy's pairwise sum of any ``n`` values: halves (cut by :func:`_half`) above 128.

    ``sum(a) + sum(b)`` of the two halves, each the same way down to
    :func:`_pairwise_block`; walked with a stack of its own, not recursively: a call
    into a recursive numba function is never inlined and costs its caller ~20-50 ns
    (its arrays' reference counts), even where the recursion is not taken.
    """
    if n <= 128:
        return _pairwise_block(values, start, n)
    depth = 64  # halves: at most log2(n) levels
    starts, sizes = np.empty(depth, np.int64), np.empty(depth, np.int64)
    lefts = np.empty(depth, np.float64)  # the left half's sum, once known
    has_left = np.zeros(depth, np.bool_)
    top = 0
    starts[0], sizes[0] = start, n
    while True:
        size = sizes[top]
        if size > 128:  # descend into its left half
            has_left[top + 1] = False
            starts[top + 1], sizes[top + 1] = starts[top], _half(size)
            top += 1
            continue
        result = _pairwise_block(values, starts[top], size)
        top -= 1
        while top >= 0 and has_left[top]:  # both halves known: the frame's sum
            result = lefts[top] + result
            top -= 1
        if top < 0:
            return result
        lefts[top], has_left[top] = result, True  # then its right half
        half = _half(sizes[top])
        has_left[top + 1] = False
        starts[top + 1], sizes[top + 1] = starts[top] + half, sizes[top] - half
        top += 1


@_inlined
def pairwise_rest(values, start, stop):  # pragma: no cover - compiled
    """``np.add.reduceat``'s sum of ``values[start:stop]`` (float64) but its first value: the
    pairwise sum of the rest.  The segment's sum is ``values[start] + pairwise_rest(...)``
    for two values or more; written out at the caller, as a call of a function that
    writes to an array costs numba ~30 ns (its reference counts), even inlined."""
    return _pairwise_halves(values, start + 1, stop - start - 1)


@_inlined
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


@_inlined
def add_exact(value, high, low, row):  # pragma: no cover - compiled
    """Add a finite float to integer bins by biased exponent ``e``, exactly.

    ``m`` (:func:`_split`) is summed in halves of 26 bits either side, signed, in
    ``high[row, e]`` and ``low[row, e]`` (``m = (high << 26) + low``).
    """
    biased, mantissa = _split(value)
    high[row, biased] += mantissa >> 26
    low[row, biased] += mantissa & 67108863  # 2**26 - 1


#: rows a sum of :func:`row_sums` adds at most: 1023 mantissas (< 2**53) stay below 2**63
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
    a term's exponent is not ``biased``: a branch-free loop a term, vectorized (its index
    unsigned: numba adds no wraparound of a negative index to each load)."""
    total = np.uint64(0)
    other = np.uint64(0)  # nonzero: some exponent differs
    magnitude = np.uint64(9223372036854775807)  # 2**63 - 1: a float's bits but its sign
    expected = np.uint64(biased)
    for r in range(np.uint64(start), np.uint64(stop)):  # unsigned: no wraparound, ~2x faster
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
def row_sums(scores, logs, positive, start, stop, bins_high, bins_low):  # pragma: no cover
    """Add the terms of ``scores[start:stop]``, one class's rows each its own tie group, exactly.

    :func:`_term`'s; of each run of one exponent (:func:`_exponent_end`) the mantissas'
    sum, :data:`_FLUSH` rows at a time, is the wrapping sum of the bits (vectorized)
    less the exponent's, added to the bins (:func:`add_exact`'s); exponent 2047 is
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
                            add_exact(value, bins_high, bins_low, row)
                        else:
                            infinite = True
                else:
                    mantissas = np.int64(total - np.uint64(last - k) * np.uint64(field))
                    bins_high[row, biased] += mantissas >> 26
                    bins_low[row, biased] += mantissas & 67108863  # 2**26 - 1
                k = last
    return infinite, outside


@_compile
def tie_terms(s, log_p, log_q, bins_high, bins_low):  # pragma: no cover - compiled
    """A cross tie's group terms in the bins in place of its two rows' (:func:`row_sums`): its
    Brier and finite log term at counts 1 and 1 (``2 * s`` is its rows' sum exactly)."""
    up = 1 - s
    one = np.float64(1.0)
    add_exact(one * (up * up) + one * (s * s), bins_high, bins_low, 0)
    add_exact(-(up * up), bins_high, bins_low, 0)
    add_exact(-(s * s), bins_high, bins_low, 0)
    group = -(one * log_p) + -(one * log_q)
    if np.isfinite(group):
        add_exact(group, bins_high, bins_low, 1)
    for row_term in (-log_p, -log_q):
        if np.isfinite(row_term):
            add_exact(-row_term, bins_high, bins_low, 1)
