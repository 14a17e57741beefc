"""The CORP reliability diagram's compiled loops (the optional ``numba`` extra).

Loaded only through :mod:`dask_auc._kernels.sort.compiled`, with the binary
queries' loops (:mod:`._numba` takes :func:`bucket_pav`, :func:`distinct_scores`
and :func:`pooled_rounds` from here; :mod:`.reliability_compiled` holds their door):
a bucket's tie pooling, PAV and exact sums of its terms in one merge of its two
classes, and the float pooling rounds of weights.  ``nogil``; exact integers,
the NumPy path's numbers; the sums are :mod:`._sums_numba`'s, exact or in the
NumPy path's order of float additions, so weighted results are its bits too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._sums_numba import add_exact, pairwise_rest, row_sums, tie_terms

#: nogil: the threaded scheduler runs the loops on all cores at once
_compile = njit(nogil=True, cache=True, boundscheck=False)
#: the same, inlined by numba into the callers
_inlined = njit(nogil=True, cache=True, boundscheck=False, inline="always")
#: an index as unsigned: numba wraps no negative index around (a shift, a mask and an add
#: a load or store less); for indices known to be in bounds
_U = np.uint64


@_compile
def next_run(pos, neg, i, j):  # pragma: no cover - compiled
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


@_inlined
def _run_end(values, i, value):  # pragma: no cover - compiled
    """The first index from ``i`` of ascending ``values`` not holding ``value`` (``values[i]``
    holds it or ``i`` is past them): by galloping, so that a tie of ``r`` rows costs
    ``log r`` compares, and a lone row two."""
    n = len(values)
    if i >= n or values[i] != value:
        return i
    low, step = i, 1  # values[low] == value
    while low + step < n and values[low + step] == value:
        low += step
        step *= 2
    high = min(low + step, n)  # past the run
    while high - low > 1:
        middle = (low + high) // 2
        if values[middle] == value:
            low = middle
        else:
            high = middle
    return high


@_inlined
def _next_group(pos, neg, i, j):  # pragma: no cover - compiled
    """:func:`next_run`, the runs found by :func:`_run_end` (tied scores: log of their rows)."""
    if j == len(neg) or (i < len(pos) and pos[i] <= neg[j]):
        value = pos[i]
    else:
        value = neg[j]
    return value, _run_end(pos, i, value), _run_end(neg, j, value)


@_compile
def distinct_scores(values, out):  # pragma: no cover - compiled
    """The number of distinct scores of ascending ``values``; given a non-empty ``out``,
    also the first row of each run of one score, written to ``out`` (float64), as
    :func:`next_run` walks them: so that NumPy's logarithms are taken of each distinct
    score once (:func:`bucket_pav`'s ``pos_logs``), not of every row.

    Counted by a branch-free pass where few of 64 rows spread over ``values`` tie
    with their next (continuous scores), else run by run (:func:`_run_end`)."""
    n = len(values)
    if n == 0:
        return 0
    m = 1
    ties = 0
    for probe in range(64):
        k = probe * (n - 1) // 64
        ties += k + 1 < n and values[k] == values[k + 1]
    if len(out) == 0 and ties < 8:  # count only: branch-free, vectorized
        for k in range(1, n):
            m += values[k - 1] != values[k]
        return m
    m = 0
    k = 0
    while k < n:
        value = values[k]
        if len(out):
            out[m] = value
        m += 1
        k = _run_end(values, k, value)
    return m


@_compile
def distinct_totals(scores, weights, kind, out):  # pragma: no cover - compiled
    """Each run of one score's multiplicities (``kind`` 1) or weights (2), in ``out``'s dtype.

    Ascending, one a distinct score as :func:`distinct_scores` gives them: a pass of its
    own: summed in the merge of :func:`bucket_pav`, they cost it ~60 ns a row more.
    """
    n = len(scores)
    m = 0
    start = 0
    while start < n:
        stop = _run_end(scores, start, scores[start])
        if stop - start == 1:
            out[m] = weights[start]
        elif kind == 1:  # exact, in int64
            total = weights[start]
            for k in range(start + 1, stop):
                total += weights[k]
            out[m] = total
        else:  # np.add.reduceat's sum
            out[m] = weights[start] + pairwise_rest(weights, start, stop)
        m += 1
        start = stop
    return m


@_compile
def _lone_run(
    pos, neg, pos_logs, neg_log1ps, i, j, top, low, high, out_pos, out_neg, bins
):  # pragma: no cover - compiled
    """:func:`bucket_pav`'s loop for counted rows where no class repeats a score.

    From ``pos[i]``, ``neg[j]`` (``top + 1`` blocks) while each class keeps a row
    past the score: a score is one row, or one of each class (a cross tie).  A
    branch-free merge, the PAV's top block in registers; the terms summed after it
    by class (:func:`row_sums`), the cross ties' group terms by a second walk of the
    merge up to its last tie (none: no walk).  Indexed by unsigned integers (:data:`_U`):
    numba then adds no wraparound of negative indices to each load and store, and the
    loop holds no call (``tie_terms``'s arguments kept registers on the stack): ~2 ns
    a row of ~10; each class's row after the next is loaded a step ahead, so that the
    merge's next compare waits on a select, not a load: ~0.6 ns more.  Returns
    ``(i, j, top, groups, infinite, outside)``.
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
            tie_terms(block_low, pos_logs[i], neg_log1ps[j], bins_high, bins_low)
        i, j = i + p, j + q
        groups += 1
        below = 0
    first_pos, first_neg = i, j
    ties = 0
    x, y = pos[_U(i)], neg[_U(j)]  # each class's next row, and the one after it: the merge
    x1, y1 = pos[_U(min(i + 1, n_pos - 1))], neg[_U(min(j + 1, n_neg - 1))]  # waits on no load
    while i + 1 < n_pos and j + 1 < n_neg:
        taken_pos, taken_neg = x <= y, y <= x
        s = np.float64(x if taken_pos else y) + 0.0
        p, q = np.int64(taken_pos), np.int64(taken_neg)
        ties += p & q  # a tie across the classes: rare; its terms after the loop
        i, j = i + p, j + q
        x = x1 if taken_pos else x
        y = y1 if taken_neg else y
        x1, y1 = pos[_U(min(i + 1, n_pos - 1))], neg[_U(min(j + 1, n_neg - 1))]
        push = block_pos * q < p * block_neg  # the top's mean is below the score's
        at = _U(below)  # branch-free: stored, kept if pushed
        low[at], high[at], out_pos[at], out_neg[at] = block_low, block_high, block_pos, block_neg
        below += np.int64(push)
        block_pos, block_neg = p + (0 if push else block_pos), q + (0 if push else block_neg)
        block_low = s if push else block_low
        while below > 0 and (
            out_pos[_U(below - 1)] * block_neg >= block_pos * out_neg[_U(below - 1)]
        ):
            below -= 1
            block_pos += out_pos[_U(below)]
            block_neg += out_neg[_U(below)]
            block_low = low[_U(below)]
        block_high = s
    low[below], high[below] = block_low, block_high
    out_pos[below], out_neg[below] = block_pos, block_neg
    groups += (i - first_pos) + (j - first_neg) - ties
    k, m = first_pos, first_neg
    while ties > 0:  # the cross ties in the merge's order: their group terms
        x, y = pos[k], neg[m]
        if x == y:
            tie_terms(np.float64(x) + 0.0, pos_logs[k], neg_log1ps[m], bins_high, bins_low)
            ties -= 1
        k += np.int64(x <= y)
        m += np.int64(y <= x)
    infinite, outside = row_sums(pos, pos_logs, True, start_pos, i, bins_high, bins_low)
    infinite_neg, outside_neg = row_sums(neg, neg_log1ps, False, start_neg, j, bins_high, bins_low)
    return i, j, below, groups, infinite or infinite_neg, outside or outside_neg


@_compile
def bucket_pav(
    pos, pos_totals, pos_kind, pos_logs,
    neg, neg_totals, neg_kind, neg_log1ps, pav, lone,
    low, high, out_pos, out_neg, bins_high, bins_low, edge_scores, edge_pos, edge_neg,
):  # pragma: no cover - compiled  # fmt: skip
    """A bucket's PAV blocks and exact term sums in one merge of its two classes' sorted rows.

    Each distinct score (ascending) pools its tie: its rows (``kind`` 0), counted
    here, or its multiplicities (1) or weights (2) of each class, ``*_totals``
    (:func:`distinct_totals`, in the counts' dtype).
    The lowest and the highest score are set aside (``edge_*``: they may continue into
    the neighbouring buckets); each score between them adds its Brier, finite log and
    probability terms to row 0, 1, 2 of the exact bins (:func:`add_exact`) --
    ``pos_logs`` (``neg_log1ps``) are NumPy's ``log(s)`` (``log1p(-s)``) of each
    distinct score of the positives (negatives), ascending (:func:`distinct_scores`) --
    and, with ``pav`` (integer counts), is pushed on a
    stack of blocks and pooled with the blocks below while their means do not increase;
    without, every score is one block.  Returns ``(blocks, infinite, outside, edges)``:
    a log term was inf; a score lay outside [0, 1] (its terms are then meaningless);
    the number of scores set aside (0, 1 or 2).

    Counted rows of which no class repeats a score (``lone``: continuous scores; the
    logs are then every row's) take :func:`_lone_run` between the ends: the same blocks
    and sums at about half the cost.
    """
    n_pos, n_neg = len(pos), len(neg)
    zero = np.zeros(1, out_pos.dtype)[0]  # 0 of the counts' dtype
    infinite = False
    outside = False
    groups = 0
    top = -1
    i = 0
    j = 0
    log_i = 0  # the distinct scores of each class met so far: the index of its next log
    log_j = 0
    lone = lone and pav and pos_kind == 0 and neg_kind == 0
    while i < n_pos or j < n_neg:
        if lone and groups > 0 and i + 1 < n_pos and j + 1 < n_neg:  # the common continuous case
            bins = (bins_high, bins_low)
            i, j, top, added, inf_run, out_run = _lone_run(
                pos, neg, pos_logs, neg_log1ps, i, j, top, low, high, out_pos, out_neg, bins
            )
            groups += added
            log_i, log_j = i, j  # every row its own score
            infinite = infinite or inf_run
            outside = outside or out_run
            continue
        start_pos, start_neg = i, j
        value, i, j = _next_group(pos, neg, i, j)
        p_count = zero + (i - start_pos)  # rows: the common case, counted here
        if pos_kind != 0:
            p_count = pos_totals[log_i] if i > start_pos else zero
        q_count = zero + (j - start_neg)
        if neg_kind != 0:
            q_count = neg_totals[log_j] if j > start_neg else zero
        s = np.float64(value) + 0.0  # float64; -0.0 is 0.0
        log_p = pos_logs[log_i] if i > start_pos else 0.0
        log_q = neg_log1ps[log_j] if j > start_neg else 0.0
        log_i += i > start_pos
        log_j += j > start_neg
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
        add_exact(p * (up * up) + q * (s * s), bins_high, bins_low, 0)
        log_term = (0.0 if p_count == 0 else -(p * log_p)) + (0.0 if q_count == 0 else -(q * log_q))
        if np.isfinite(log_term):
            add_exact(log_term, bins_high, bins_low, 1)
        else:
            infinite = True
        add_exact(np.float64(p_count + q_count) * s, bins_high, bins_low, 2)
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
                total_pos = pos[i] + pairwise_rest(pos, i, j + 1)  # np.add.reduceat's sums
                total_neg = neg[i] + pairwise_rest(neg, i, j + 1)
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
