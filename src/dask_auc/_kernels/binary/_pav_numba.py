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


#: cuts :func:`_lone_run` finds before it pools the stretches between them: its buffer of cuts
#: stays in the L1 cache, and a bucket of any size costs no more memory
_CUTS = 1024


@_compile
def _lone_run(
    pos, neg, pos_logs, neg_log1ps, i, j, top, low, high, out_pos, out_neg, bins
):  # pragma: no cover - compiled
    """:func:`bucket_pav`'s loop for counted rows where no class repeats a score.

    From ``pos[i]``, ``neg[j]`` (``top + 1`` blocks) while each class keeps a row
    past the score: a score is one row, or one of each class (a cross tie).  PAV
    pools a run of scores whose means do not increase whole, so only where the
    mean rises -- a positive (or a cross tie) after negatives, a positive after a
    cross tie -- can a block end: the walk, positive by positive with a loop over
    the negatives below it (as the AUC's pair counts walk), writes each positive's
    place and moves on a cut only where a block may end (no branch on the data),
    and the PAV pools the stretches between cuts, about one in seven rows on
    continuous scores (:func:`_pooled_stretches`): the same blocks as pooling every
    score (the PAV's blocks do not depend on the order of its pooling), the walk and
    the PAV at ~4 ns a row against ~5.3 for a branch-free merge pooling each score
    (one bucket of 1.25e6 rows).  The terms are summed after
    it by class (:func:`row_sums`), the cross ties' group terms by a second walk of
    the merge up to its last tie (none: no walk).  Returns
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
    # cuts[2 * c], cuts[2 * c + 1]: the rows of each class before cut c; cut 0 where the
    # walk starts (the top block may go on past it: pooling tells)
    cuts = np.empty(2 * _CUTS + 2, np.int64)
    cuts[0], cuts[1] = i, j
    k = 1
    tied = False  # the last score was a cross tie
    while i + 1 < n_pos and j + 1 < n_neg:
        x = pos[_U(i)]
        run = j
        while j + 1 < n_neg and neg[_U(j)] < x:  # the negatives below the positive
            j += 1
        if j + 1 == n_neg:  # the last negative is the caller's
            break
        tie = neg[_U(j)] == x
        cuts[_U(2 * k)], cuts[_U(2 * k + 1)] = i, j  # kept if a block may end here
        k += np.int64(j > run) | (np.int64(tied) & np.int64(not tie))
        tied = tie
        ties += np.int64(tie)
        i += 1
        j += np.int64(tie)
        if k == _CUTS:  # pool the stretches up to the last cut; it opens the next
            block_pos, block_neg, block_low, block_high, below = _pooled_stretches(
                pos, neg, cuts, k - 1, block_pos, block_neg, block_low, block_high, below,
                low, high, out_pos, out_neg,
            )  # fmt: skip
            cuts[0], cuts[1] = cuts[2 * k - 2], cuts[2 * k - 1]
            k = 1
    cuts[2 * k], cuts[2 * k + 1] = i, j
    block_pos, block_neg, block_low, block_high, below = _pooled_stretches(
        pos, neg, cuts, k, block_pos, block_neg, block_low, block_high, below,
        low, high, out_pos, out_neg,
    )  # fmt: skip
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


@_inlined
def _pooled_stretches(
    pos, neg, cuts, stretches, block_pos, block_neg, block_low, block_high, below,
    low, high, out_pos, out_neg,
):  # pragma: no cover - compiled  # fmt: skip
    """PAV over the stretches of rows between :func:`_lone_run`'s cuts ``0..stretches``.

    Each stretch is pushed on the stack as one block, or added to the top block
    (in registers: ``block_*``, ``below`` blocks under it) where its mean is no
    higher, and the top pooled with the blocks below while their means do not
    increase.  Returns the top block and ``below``.
    """
    for c in range(stretches):
        a, b = cuts[2 * c], cuts[2 * c + 1]
        e, f = cuts[2 * c + 2], cuts[2 * c + 3]
        p, q = e - a, f - b
        if p + q == 0:  # the walk ended where it began
            continue
        # its lowest score and its highest: each the first (last) of a class's rows in it
        if a < e and (b == f or pos[a] <= neg[b]):
            first = np.float64(pos[a]) + 0.0
        else:
            first = np.float64(neg[b]) + 0.0
        if e > a and (f == b or pos[e - 1] >= neg[f - 1]):
            last = np.float64(pos[e - 1]) + 0.0
        else:
            last = np.float64(neg[f - 1]) + 0.0
        if block_pos * q < p * block_neg:  # the top's mean is below the stretch's
            low[below], high[below] = block_low, block_high
            out_pos[below], out_neg[below] = block_pos, block_neg
            below += 1
            block_pos, block_neg, block_low = p, q, first
        else:
            block_pos += p
            block_neg += q
        while below > 0 and out_pos[below - 1] * block_neg >= block_pos * out_neg[below - 1]:
            below -= 1
            block_pos += out_pos[below]
            block_neg += out_neg[below]
            block_low = low[below]
        block_high = last
    return block_pos, block_neg, block_low, block_high, below


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
