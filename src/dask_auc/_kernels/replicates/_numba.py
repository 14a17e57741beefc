"""The bootstrap's compiled loops (the optional ``numba`` extra).

Loaded only through :mod:`dask_auc._kernels.sort.compiled` (in their own background
compile, on a process's first bootstrap), which falls back to NumPy when numba
is missing.  Each loop draws the rows' Poisson(1) counts
(:func:`_add_row`, the counter-based draw of
:mod:`dask_auc._kernels.replicates.counts`) for every replicate at once and
reduces them as it goes: per tie group (:func:`replicate_counts`), into a
bucket's replicate summary (:func:`replicate_summary_walk`), into one query's
parts (:func:`replicate_points_walk`), into a weighted mean over groups
(:func:`replicate_weighted_sums`).  Never a ``rows x replicates`` matrix.

``nogil``, so that the threaded scheduler runs them on all cores; the
NumPy path's numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

#: nogil: the threaded scheduler runs the loops on all cores at once
_compile = njit(nogil=True, cache=True, boundscheck=False)


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
    as :func:`dask_auc._kernels.replicates.counts.counts_for` draws them in NumPy."""  # noqa
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
    :func:`dask_auc._kernels.replicates.queries.replicate_parts`): kinds 0 average
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


def warm_up(loaded: Callable[[Any], None]) -> None:
    """Run every loop once, through its door, on tiny inputs: numba compiles (or loads) them.

    :mod:`~dask_auc._kernels.sort.compiled` calls this in the bootstrap's background
    compile; ``loaded`` is given the first loop, to revise the compile's estimate.
    """
    from . import compiled

    keys = np.arange(8, dtype=np.uint64)
    compiled.replicate_group_counts(keys, np.array([0, 3, 8]), keys[:2], keys[1:4], None)
    loaded(replicate_counts)
    compiled.replicate_weighted_sums(keys[:3], np.ones(3), np.ones(3), keys[:2], keys[1:4])
    for dtype in (np.float64, np.int64):
        scores = np.arange(8, dtype=dtype)
        walk = compiled.Walk(scores, keys, scores, keys, keys[:2], keys[1:4])
        compiled.replicate_summary(walk)
        context = tuple(np.ones(2, np.int64) for _ in range(6))
        for kind in range(6):
            compiled.replicate_points(walk, context, False, kind, 0.5, np.ones((4, 2), np.int64))
