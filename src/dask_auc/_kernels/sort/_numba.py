"""The compiled loops of the optional ``numba`` extra (``pip install dask-auc[numba]``).

Imported only through :mod:`dask_auc._kernels.sort.compiled`, which falls back to
NumPy when numba is missing.  Each loop does what NumPy has no single
primitive for and would otherwise cost a sort or several passes:

* :func:`group_of_rows` + :func:`scatter`: a counting partition of unsorted
  rows by class and score bucket (a sample sort's "split" without sorting
  the block, and without a separate pass per class);
* :func:`merged_pair_counts`: the pair counts of two sorted arrays by one
  merge, instead of two binary searches per positive;
* :func:`aggregate_codes`: an open-addressing hash aggregation of
  (score, class) keys, with their row counts.

Every function is ``nogil`` so that the threaded scheduler runs them on all
cores, and results are exact integers where the NumPy path's are.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: nogil: the threaded scheduler runs the loops on all cores at once
_compile = njit(nogil=True, cache=True, boundscheck=False)


#: up to this many splitters a row's bucket is a count of the splitters below
#: it, made one splitter at a time over a cache-sized run of rows (compiled to
#: vector compares); above, a branch-free binary search per row
_COUNTED_SPLITTERS = 32
_RUN = 4096
#: up to this many, a count per row; above, a binary search
_LINEAR_SPLITTERS = 128


@_compile
def group_of_rows(scores, codes, n_codes, splitters, spread, groups):  # pragma: no cover
    """Write every row's group ``bucket * n_codes + code`` into ``groups``; count each group.

    ``codes`` are 0 or 1 (``n_codes`` 1 or 2).  A row goes to ascending
    bucket ``j`` = the number of splitters below its score (a score equal to
    a splitter goes below it, as ``searchsorted(..., "right")`` cuts a sorted
    array).  ``spread[j]`` > 1 marks the first of ``spread[j]`` equal
    splitters (a heavy tie): rows of exactly that score are dealt in turn to
    the ``spread[j] + 1`` buckets from ``j`` on, so that the tie does not
    fill one bucket.
    """
    n_splitters = len(splitters)
    if n_splitters <= _COUNTED_SPLITTERS:
        counts = _counted_groups(scores, codes, n_codes, splitters, groups)
    else:
        _searched_groups(scores, codes, n_codes, splitters, groups)
        counts = np.zeros(0, np.int64)
    if n_splitters and spread.max() > 1:
        _deal_heavy_ties(scores, n_codes, splitters, spread, groups)
        counts = np.zeros(0, np.int64)
    if len(counts) == 0:
        counts = _histogram(groups, (n_splitters + 1) * n_codes)
    return counts


@_compile
def _counted_groups(scores, codes, n_codes, splitters, groups):  # pragma: no cover
    """Buckets as counts of the splitters below, one splitter at a time over runs of rows.

    The comparisons also give, per splitter, the rows of each code above it,
    and so the rows of every group without a histogram.
    """
    n = len(scores)
    n_splitters = len(splitters)
    above = np.zeros((n_splitters + 1, 2), np.int64)  # rows of code c above splitter j
    for start in range(0, n, _RUN):
        run = groups[start : start + _RUN]
        values = scores[start : start + _RUN]
        run_codes = codes[start : start + _RUN]
        for i in range(len(run)):
            run[i] = 0
        for j in range(n_splitters):
            splitter = splitters[j]
            total = 0
            coded = 0
            for i in range(len(run)):
                up = splitter < values[i]
                run[i] += up
                total += up
                coded += up & run_codes[i]
            above[j, 0] += total - coded
            above[j, 1] += coded
        for i in range(len(run)):
            run[i] = run[i] * n_codes + run_codes[i]
    coded_rows = 0
    for i in range(n):
        coded_rows += codes[i]
    counts = np.zeros((n_splitters + 1) * n_codes, np.int64)
    previous = (n - coded_rows, coded_rows)
    for j in range(n_splitters + 1):
        counts[j * n_codes] += previous[0] - above[j, 0]
        counts[j * n_codes + n_codes - 1] += previous[1] - above[j, 1]
        previous = (above[j, 0], above[j, 1])
    return counts


@_compile
def _searched_groups(scores, codes, n_codes, splitters, groups):  # pragma: no cover
    n_splitters = len(splitters)
    linear = n_splitters <= _LINEAR_SPLITTERS
    for k in range(len(scores)):
        value = scores[k]
        bucket = 0
        if linear:
            for j in range(n_splitters):
                bucket += splitters[j] < value
        else:
            size = n_splitters
            while size > 0:  # branch-free lower bound
                half = size >> 1
                below = splitters[bucket + half] < value
                bucket += (half + 1) * below
                size = half + (size - 2 * half - 1) * below
        groups[k] = bucket * n_codes + codes[k]


@_compile
def _deal_heavy_ties(scores, n_codes, splitters, spread, groups):  # pragma: no cover
    n_splitters = len(splitters)
    dealt = np.zeros(n_splitters + 1, np.int64)
    for k in range(len(scores)):
        bucket = np.int64(groups[k]) // n_codes
        if bucket < n_splitters and spread[bucket] > 1 and splitters[bucket] == scores[k]:
            turn = dealt[bucket]
            dealt[bucket] = turn + 1
            groups[k] += (turn % (spread[bucket] + 1)) * n_codes


@_compile
def _histogram(groups, n_groups):  # pragma: no cover
    # 4 interleaved histograms: consecutive rows of one group do not wait on
    # each other's increment
    counts = np.zeros(4 * n_groups, np.int64)
    for k in range(len(groups)):
        counts[(k & 3) * n_groups + groups[k]] += 1
    return counts.reshape(4, n_groups).sum(axis=0)


@_compile
def scatter(values, groups, starts, out):  # pragma: no cover - compiled
    """``values`` ordered by group into ``out`` (input order within a group).

    Group ``g`` starts at ``starts[g]``.

    ``out`` is allocated by NumPy, whose large arrays ask the kernel for huge
    pages: their first touch costs a third of numba's own allocation's.
    """
    cursor = starts[:-1].astype(np.uint64)
    for k in range(len(values)):
        g = np.uint64(groups[k])
        at = cursor[g]
        out[at] = values[k]
        cursor[g] = at + np.uint64(1)


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
        if j == n_neg or (i < n_pos and pos[i] <= neg[j]):
            value = pos[i]
        else:
            value = neg[j]
        values[m] = value
        below_neg[m] = j
        below_pos[m] = i
        m += 1
        while i < n_pos and pos[i] == value:
            i += 1
        while j < n_neg and neg[j] == value:
            j += 1
    return m


_GOLDEN_64 = 0x9E3779B97F4A7C15


@_compile
def _occupied(table_counts, slot):  # pragma: no cover - compiled
    return table_counts[2 * slot] + table_counts[2 * slot + 1] != 0


@_compile
def _insert_rows(bits, codes, start, negative_zero, table_bits, table_counts, shift, used):
    """Count rows from ``start`` into the table until it is half full; returns (row, used).

    A slot holds one score and a row count per code (``table_counts[2 * slot + code]``).
    """
    capacity = len(table_bits)
    mask = capacity - 1
    for k in range(start, len(bits)):
        if 2 * used >= capacity:
            return k, used
        pattern = np.uint64(bits[k])
        if pattern == negative_zero:  # -0.0 is the key 0.0
            pattern = np.uint64(0)
        slot = np.int64((pattern * np.uint64(_GOLDEN_64)) >> shift)
        while True:
            found = table_bits[slot]
            # an empty slot holds pattern 0: a nonzero match is a hit without
            # reading the counts (the common case, one load)
            if found == pattern and (pattern != 0 or _occupied(table_counts, slot)):
                break
            if found == 0 and not _occupied(table_counts, slot):
                table_bits[slot] = pattern
                used += 1
                break
            slot = (slot + 1) & mask
        table_counts[2 * slot + codes[k]] += 1
    return len(bits), used


@_compile
def _rehashed(table_bits, table_counts, shift):  # pragma: no cover - compiled
    """The table's keys in one twice its size (``shift`` one less)."""
    capacity = 2 * len(table_bits)
    mask = capacity - 1
    new_bits = np.zeros(capacity, np.uint64)
    new_counts = np.zeros(2 * capacity, np.int64)
    for s in range(len(table_bits)):
        if table_counts[2 * s] + table_counts[2 * s + 1] == 0:
            continue
        pattern = table_bits[s]
        slot = np.int64((pattern * np.uint64(_GOLDEN_64)) >> shift)
        while new_counts[2 * slot] + new_counts[2 * slot + 1] != 0:
            slot = (slot + 1) & mask
        new_bits[slot] = pattern
        new_counts[2 * slot] = table_counts[2 * s]
        new_counts[2 * slot + 1] = table_counts[2 * s + 1]
    return new_bits, new_counts


def aggregate_codes(bits, codes, negative_zero, limit):
    """The distinct scores of the rows and each one's row count per code (0 or 1).

    ``bits`` are the scores' bit patterns (an unsigned view of the same
    width); ``negative_zero`` is the pattern of ``-0.0``, counted as ``0.0``,
    which it equals (0 for integer scores).  Without NaN, equal scores are
    then equal patterns.  Open addressing with linear probing (Fibonacci
    hashing) in a table doubled whenever it is half full.

    Returns ``(patterns, counts)`` with ``counts[i, code]``, or None as soon
    as there are more than ``limit`` distinct scores (the rows are not
    few-valued after all: the caller sorts them instead).
    """
    log_capacity = 12
    table_bits = np.zeros(1 << log_capacity, np.uint64)
    table_counts = np.zeros(2 << log_capacity, np.int64)
    row, used = 0, 0
    while True:
        shift = np.uint64(64 - log_capacity)
        row, used = _insert_rows(
            bits, codes, row, negative_zero, table_bits, table_counts, shift, used
        )
        if used > limit:
            return None
        if row == len(bits):
            break
        log_capacity += 1
        table_bits, table_counts = _rehashed(table_bits, table_counts, np.uint64(64 - log_capacity))
    counts = table_counts.reshape(-1, 2)
    filled = np.flatnonzero(counts.sum(axis=1))
    return table_bits[filled], counts[filled]


_S1, _S2, _S3 = np.uint64(30), np.uint64(27), np.uint64(31)
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


@_compile
def _mixed(row, key):  # pragma: no cover - compiled
    """SplitMix64's finaliser of ``row ^ key``: the draw of a row in one replicate."""
    x = row ^ key
    x ^= x >> _S1
    x *= _M1
    x ^= x >> _S2
    x *= _M2
    x ^= x >> _S3
    return x


@_compile
def _add_row(row, replicate_keys, thresholds, acc):  # pragma: no cover - compiled
    """Add the Poisson(1) count of row key ``row`` in every replicate to ``acc``.

    A count is the number of thresholds its draw reaches.  The first eight are
    compared without a branch, so that the loop over replicates runs in
    vector registers; a draw past the eighth (probability 1e-5) is finished
    one threshold at a time, in a second loop over that row's replicates.
    """
    t0, t1, t2, t3 = thresholds[0], thresholds[1], thresholds[2], thresholds[3]
    t4, t5, t6, t7 = thresholds[4], thresholds[5], thresholds[6], thresholds[7]
    rare = 0
    for b in range(len(replicate_keys)):
        x = _mixed(row, replicate_keys[b])
        acc[b] += (
            np.int64(x >= t0) + np.int64(x >= t1) + np.int64(x >= t2) + np.int64(x >= t3)
            + np.int64(x >= t4) + np.int64(x >= t5) + np.int64(x >= t6) + np.int64(x >= t7)
        )  # fmt: skip
        rare += np.int64(x >= t7)
    if rare:
        for b in range(len(replicate_keys)):
            x = _mixed(row, replicate_keys[b])
            count = 8
            while count < len(thresholds) and x >= thresholds[count]:
                acc[b] += 1
                count += 1


@_compile
def replicate_counts(keys, starts, replicate_keys, thresholds, out):  # pragma: no cover
    """Add each row's Poisson(1) count in every replicate to its tie group's row of ``out``,
    as :func:`dask_auc._kernels.replicates.bootstrap.counts_for` draws them in NumPy."""  # noqa
    for g in range(len(starts) - 1):
        acc = out[g]
        for i in range(starts[g], starts[g + 1]):
            _add_row(keys[i], replicate_keys, thresholds, acc)


@_compile
def _next_group(pos_scores, neg_scores, i, j, keys_pos, keys_neg, rep_keys, thresholds, p, n):
    """Count the next tie group down (from ``i``, ``j``, exclusive ends) into ``p``, ``n``."""  # noqa
    if i > 0 and (j == 0 or pos_scores[i - 1] >= neg_scores[j - 1]):
        value = pos_scores[i - 1]
    else:
        value = neg_scores[j - 1]
    p[:] = 0
    n[:] = 0
    while i > 0 and pos_scores[i - 1] == value:
        i -= 1
        _add_row(keys_pos[i], rep_keys, thresholds, p)
    while j > 0 and neg_scores[j - 1] == value:
        j -= 1
        _add_row(keys_neg[j], rep_keys, thresholds, n)
    return i, j


@_compile
def replicate_summary_walk(pos_scores, pos_keys, neg_scores, neg_keys, rep_keys, thresholds, out):
    """A bucket's replicate summary, tie groups walked from the top: ``out`` rows are
    pos, neg, top_pos, top_neg, bottom_pos, bottom_neg, area (doubled), per replicate."""  # noqa
    width = len(rep_keys)
    p = np.zeros(width, np.int64)
    n = np.zeros(width, np.int64)
    i, j = len(pos_scores), len(neg_scores)
    first = True
    while i > 0 or j > 0:
        i, j = _next_group(
            pos_scores, neg_scores, i, j, pos_keys, neg_keys, rep_keys, thresholds, p, n
        )
        for b in range(width):
            out[6, b] += n[b] * (2 * out[0, b] + p[b])
            out[0, b] += p[b]
            out[1, b] += n[b]
            if first:
                out[2, b] = p[b]
                out[3, b] = n[b]
            out[4, b] = p[b]
            out[5, b] = n[b]
        first = False


@_compile
def replicate_points_walk(
    pos_scores,
    pos_keys,
    neg_scores,
    neg_keys,
    rep_keys,
    thresholds,
    start_pos,
    start_neg,
    tied_pos,
    tied_neg,
    total_pos,
    total_neg,
    continues,
    kind,
    target,
    bounds,
    acc_int,
    acc_float,
    crossings,
    n_crossings,
):  # pragma: no cover - compiled
    """Every replicate's part of one query from its absolute curve points (see
    :func:`dask_auc._kernels.replicates.bootstrap.replicate_parts`): kinds 0 average
    precision, 1 KS, 2 TPR at FPR, 3 FPR at TPR, 4 partial area (FPR axis),
    5 partial area (TPR axis); ``bounds`` rows: first inside, last inside,
    after, before (per replicate); crossing segments are written out."""  # noqa
    width = len(rep_keys)
    p = np.zeros(width, np.int64)
    n = np.zeros(width, np.int64)
    pending_p = np.zeros(width, np.int64)
    pending_n = np.zeros(width, np.int64)
    t = start_pos.copy()  # counts above the pending group
    f = start_neg.copy()
    i, j = len(pos_scores), len(neg_scores)
    has_pending = False
    first = True
    while True:
        more = i > 0 or j > 0
        if more:
            i, j = _next_group(
                pos_scores, neg_scores, i, j, pos_keys, neg_keys, rep_keys, thresholds, p, n
            )
            if first:
                for b in range(width):
                    p[b] += tied_pos[b]
                    n[b] += tied_neg[b]
                first = False
        if has_pending and (more or not continues):
            _visit(kind, target, bounds, t, f, pending_p, pending_n, total_pos, total_neg,
                   acc_int, acc_float, crossings, n_crossings)  # fmt: skip
            t += pending_p
            f += pending_n
        if not more:
            break
        pending_p[:] = p
        pending_n[:] = n
        has_pending = True


@_compile
def _visit(kind, target, bounds, t, f, dp, dn, tp, tn, acc_int, acc_float, crossings, n_crossings):
    """One tie group's segment, from ``(f, t)`` on, in every replicate: the query's update.

    One loop over the replicates per kind, so that each runs in vector registers."""  # noqa
    width = len(t)
    if kind == 0:
        for b in range(width):
            t1 = t[b] + dp[b]
            if dp[b] > 0:
                acc_float[b] += dp[b] * (t1 / (t1 + f[b] + dn[b]))
    elif kind == 1:
        for b in range(width):
            gap = abs((t[b] + dp[b]) * tn[b] - (f[b] + dn[b]) * tp[b])
            acc_int[b] = max(acc_int[b], gap)
    elif kind == 2:
        for b in range(width):
            if tn[b] > 0 and (f[b] + dn[b]) / tn[b] <= target:
                acc_int[b] = max(acc_int[b], t[b] + dp[b])
    elif kind == 3:
        for b in range(width):
            if tp[b] > 0 and (t[b] + dp[b]) / tp[b] >= target:
                acc_int[b] = min(acc_int[b], f[b] + dn[b])
    else:
        for b in range(width):
            if kind == 4:
                x0, x1, y0, y1 = f[b], f[b] + dn[b], t[b], t[b] + dp[b]
            else:
                x0, x1, y0, y1 = t[b], t[b] + dp[b], tn[b] - f[b], tn[b] - f[b] - dn[b]
            if x0 >= bounds[0, b] and x1 <= bounds[1, b]:
                acc_int[b] += (x1 - x0) * (y0 + y1)
            elif x0 < x1 and x1 > bounds[2, b] and x0 < bounds[3, b]:
                k = n_crossings[b]
                crossings[b, k, 0] = x0
                crossings[b, k, 1] = x1
                crossings[b, k, 2] = y0
                crossings[b, k, 3] = y1
                n_crossings[b] = k + 1


@_compile
def replicate_weighted_sums(keys, values, weights, replicate_keys, thresholds, num, den):
    """``num[b] += c * values[g]``, ``den[b] += c * weights[g]`` over groups ``g`` in order,
    ``c`` the Poisson(1) count of group key ``keys[g]`` in replicate ``b``."""  # noqa
    width = len(replicate_keys)
    counts = np.zeros(width, np.int64)
    for g in range(len(keys)):
        counts[:] = 0
        _add_row(keys[g], replicate_keys, thresholds, counts)
        for b in range(width):
            num[b] += counts[b] * values[g]
            den[b] += counts[b] * weights[g]


#: a class of a group of up to this many rows is sorted by insertion (no call, no recursion)
_INSERTION_ROWS = 16


@_compile
def _sorted_in_place(values, first, stop):  # pragma: no cover - compiled
    if stop - first > _INSERTION_ROWS:
        values[first:stop].sort()
        return
    for k in range(first + 1, stop):
        value = values[k]
        j = k - 1
        while j >= first and values[j] > value:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = value


@_compile
def _first_not_below(values, first, stop, value):  # pragma: no cover - compiled
    """The first index in ``[first, stop)`` of ascending ``values`` holding ``>= value``."""
    while first < stop:
        middle = (first + stop) >> 1
        if values[middle] < value:
            first = middle + 1
        else:
            stop = middle
    return first


@_compile
def _first_above(values, first, stop, value):  # pragma: no cover - compiled
    """The first index in ``[first, stop)`` of ascending ``values`` holding ``> value``."""
    while first < stop:
        middle = (first + stop) >> 1
        if values[middle] <= value:
            first = middle + 1
        else:
            stop = middle
    return first


@_compile
def _pairs_against_sorted(values, first, stop, sorted_first, sorted_stop):  # pragma: no cover
    """For the rows ``[first, stop)``: (sorted rows below them, sorted rows tied), summed.

    ``values[sorted_first:sorted_stop]`` is ascending; each row is placed by a
    binary search, a second one only when it ties (so heavy ties cost no scan).
    """
    below = 0
    tied = 0
    for k in range(first, stop):
        value = values[k]
        low = _first_not_below(values, sorted_first, sorted_stop, value)
        high = low
        if low < sorted_stop and values[low] == value:
            high = _first_above(values, low, sorted_stop, value)
        below += low - sorted_first
        tied += high - low
    return below, tied


@_compile
def grouped_pair_counts(codes, n_groups, scores, positive, pos, neg, twice):  # pragma: no cover
    """Every group's class counts and twice its ROC area (unweighted), without a global sort.

    A counting sort of the scores by (group code, class) -- codes dense in
    ``range(n_groups)`` -- then, per group, the smaller class's scores sorted
    (by insertion when few) and every row of the larger class placed among
    them by a binary search: with 10% clicks, 90% of the rows are never
    sorted.  Twice the area is ``2 * (pairs pos > neg) + (pairs pos == neg)``,
    a tie counting one half.  Exact int64 counts, the NumPy path's numbers.
    Writes ``pos``, ``neg`` and ``twice``.
    """
    n = len(codes)
    starts = np.zeros(2 * n_groups + 1, np.int64)
    for k in range(n):
        starts[2 * codes[k] + positive[k] + 1] += 1
    for g in range(2 * n_groups):
        starts[g + 1] += starts[g]
    cursor = starts[:-1].copy()
    values = np.empty(n, scores.dtype)
    for k in range(n):
        part = 2 * codes[k] + positive[k]
        at = cursor[part]
        values[at] = scores[k]
        cursor[part] = at + 1
    for g in range(n_groups):
        first, middle, stop = starts[2 * g], starts[2 * g + 1], starts[2 * g + 2]
        n_neg, n_pos = middle - first, stop - middle
        neg[g] = n_neg
        pos[g] = n_pos
        if n_neg == 0 or n_pos == 0:
            continue
        if n_pos <= n_neg:  # each negative among the sorted positives
            _sorted_in_place(values, middle, stop)
            below, tied = _pairs_against_sorted(values, first, middle, middle, stop)
            # positives above a negative: all but those below or tied with it
            twice[g] = 2 * (n_pos * n_neg - below - tied) + tied
        else:  # each positive among the sorted negatives
            _sorted_in_place(values, first, middle)
            below, tied = _pairs_against_sorted(values, middle, stop, first, middle)
            twice[g] = 2 * below + tied
