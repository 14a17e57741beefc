"""Pass 2 of the bootstrap: every replicate's part of a metric read from its curve points.

With each bucket's context from the scan, :func:`replicate_parts` places
every replicate's tie groups on its absolute curve and reads the bucket's
part of the average precision, the KS statistic, a partial area or an
operating point (:class:`ReplicateQuery`); :func:`combine` joins the
buckets' parts in bucket order.  Unweighted parts are exact (ints,
Fractions); the compiled walk gives the same numbers.

Nothing here imports dask.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..sort.buckets import Bucket
from . import compiled as _compiled
from .scan import ReplicateContext
from .tie_groups import ReplicateSpec, column_counts, exact_dtype, walk_keys
from .traced import TracedPlan


@dataclass(frozen=True)
class ReplicateQuery:
    """One metric read from every replicate's curve points: its kind and its parameters.

    Kinds: ``"average_precision"`` (sum), ``"ks"`` (max), ``"tpr_at_fpr"``
    (max), ``"fpr_at_tpr"`` (min), ``"partial"`` (sum; ``bounds`` on the FPR
    axis, or with ``swap`` on the TPR axis).
    """

    kind: str
    target: float = 0.0
    bounds: tuple[float, float] = (0.0, 1.0)
    swap: bool = False


def replicate_parts(
    bucket: Bucket,
    context: ReplicateContext | None,
    plan: TracedPlan,
    spec: ReplicateSpec,
    query: ReplicateQuery,
) -> np.ndarray:
    """The bucket's part of ``query`` in every column (combined over buckets by :func:`combine`)."""
    width = spec.n_bootstraps + 1
    out = np.full(width, _IDENTITY[query.kind], dtype=object)
    if context is None:
        return out
    check_pair_range(context)
    dtype = exact_dtype(bucket, spec)
    walked = walk_keys(bucket, plan, spec)
    done = walked is not None and _walked_parts(context, walked, query, out)
    del walked  # the rows' keys: the estimate's column below draws no count
    if done:
        # the estimate's column, by the NumPy path
        out[:1] = replicate_parts(
            bucket, _first_column(context), plan, replace(spec, n_bootstraps=0), query
        )
        return out
    for first, stop, _, pos, neg in column_counts(bucket, plan, spec):
        cols = slice(first, stop)

        def column(values: np.ndarray, cols: slice = cols) -> np.ndarray:
            return np.asarray(values[cols], dtype=dtype)

        pos, neg = pos.astype(dtype), neg.astype(dtype)
        pos[0] += column(context.tied_pos)
        neg[0] += column(context.tied_neg)
        if context.continues:  # the bucket below holds the end of the bottom group
            pos, neg = pos[:-1], neg[:-1]
        if len(pos) == 0:
            continue
        t_end = column(context.pos_above) - column(context.tied_pos) + np.cumsum(pos, axis=0)
        f_end = column(context.neg_above) - column(context.tied_neg) + np.cumsum(neg, axis=0)
        totals = (column(context.pos_total), column(context.neg_total))
        out[cols] = _QUERIES[query.kind](query, pos, neg, t_end, f_end, totals)
    return out


#: pair counts of the points (``T * N``, doubled areas) are int64: a replicate of more pairs
#: than this could overflow them
_MAX_PAIRS = 1 << 61


def check_pair_range(context: ReplicateContext) -> None:
    """Refuse what int64 pair counts could not hold exactly (beyond ~1.5e9 rows per class)."""
    if context.pos_total.dtype.kind == "f":
        return
    pairs = max(context.pos_total.tolist()) * max(context.neg_total.tolist())
    if pairs >= _MAX_PAIRS:
        raise ValueError(
            f"bootstrap_ci: a replicate holds {pairs:.3g} (positive, negative) pairs, more than "
            "the 2**61 its int64 pair counts hold exactly; the AUC (metric='roc_auc' without "
            "max_fpr) has no such limit"
        )


def _precision_sum(query, pos, neg, t_end, f_end, totals) -> np.ndarray:  # type: ignore[no-untyped-def]
    predicted = t_end + f_end
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = np.where(pos > 0, pos * (t_end / np.where(predicted > 0, predicted, 1)), 0.0)
    # added in score order, one group after the other, whatever the number of columns
    # (a sum along a single column would be pairwise): the compiled walk's order
    return np.cumsum(terms.astype(np.float64), axis=0)[-1]


def _largest_gap(query, pos, neg, t_end, f_end, totals) -> np.ndarray:  # type: ignore[no-untyped-def]
    total_pos, total_neg = totals
    return np.abs(t_end * total_neg - f_end * total_pos).max(axis=0)


def _tpr_at_fpr(query, pos, neg, t_end, f_end, totals) -> np.ndarray:  # type: ignore[no-untyped-def]
    with np.errstate(invalid="ignore", divide="ignore"):
        reached = f_end.astype(np.float64) / totals[1].astype(np.float64) <= query.target
    return np.where(reached, t_end, 0).max(axis=0)


def _fpr_at_tpr(query, pos, neg, t_end, f_end, totals) -> np.ndarray:  # type: ignore[no-untyped-def]
    with np.errstate(invalid="ignore", divide="ignore"):
        reached = t_end.astype(np.float64) / totals[0].astype(np.float64) >= query.target
    big = np.asarray(totals[1]).max() + 1 if len(totals[1]) else 1
    found = np.where(reached, f_end, big).min(axis=0)
    return np.where(found == big, np.inf, found).astype(object)


def _clipped_area(query, pos, neg, t_end, f_end, totals) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Doubled area over the interval: exact (ints, Fractions) unweighted."""
    total_pos, total_neg = totals
    if query.swap:  # area between the curve and fpr = 1, integrated along the TPR axis
        x1, y1 = t_end, total_neg - f_end
        x0, y0 = t_end - pos, total_neg - (f_end - neg)
        scale = total_pos
    else:
        x1, y1, x0, y0 = f_end, t_end, f_end - neg, t_end - pos
        scale = total_neg
    exact = pos.dtype.kind != "f"
    ends, (first_in, last_in, after, before) = _interval_ends(query.bounds, scale, exact, pos.dtype)
    inside = (x0 >= first_in) & (x1 <= last_in)
    out = np.where(inside, (x1 - x0) * (y0 + y1), 0).sum(axis=0).astype(object)
    # the few segments that cross an end of the interval: the piece inside, exactly
    crossing = (x0 < x1) & ~inside & (x1 > after) & (x0 < before)
    for g, c in zip(*np.nonzero(crossing), strict=True):
        segment = (x0[g, c], x1[g, c], y0[g, c], y1[g, c])
        out[c] += _piece_inside(segment, ends[c], exact)
    return out


def _interval_ends(
    bounds: tuple[float, float], scale: np.ndarray, exact: bool, dtype: Any
) -> tuple[list[tuple[Any, Any]], tuple[np.ndarray, ...]]:
    """The interval's ends in counts per replicate, and the integer tests of a segment end.

    Returns ``(a, b)`` per replicate, and the arrays ``first_in`` (``x >= a``
    iff ``x >= first_in``), ``last_in`` (``x <= b``), ``after`` (``x > a``
    iff ``x > after``) and ``before`` (``x < b`` iff ``x < before``) for
    integer ``x``; for float counts the ends themselves.
    """
    low, high = bounds
    if not exact:
        ends = [(low * n, high * n) for n in scale]
        a, b = low * np.asarray(scale, np.float64), high * np.asarray(scale, np.float64)
        return ends, (a, b, a, b)
    ends = [(Fraction(low) * int(n), Fraction(high) * int(n)) for n in scale]
    tests = (
        [math.ceil(a) for a, _ in ends],
        [math.floor(b) for _, b in ends],
        [math.floor(a) for a, _ in ends],
        [math.ceil(b) for _, b in ends],
    )
    return ends, tuple(np.array(t, dtype=dtype) for t in tests)


def _piece_inside(segment: tuple[Any, ...], ends: tuple[Any, Any], exact: bool) -> Any:
    """Doubled area under the part of a straight segment inside ``[a, b]``: exact for counts."""
    left, right, bottom, top = segment
    a, b = ends
    if exact:
        left, right, bottom, top = int(left), int(right), int(bottom), int(top)
        slope: Any = Fraction(top - bottom, right - left)
    else:
        slope = (top - bottom) / (right - left)
    lo, hi = max(left, a), min(right, b)
    return (hi - lo) * (2 * bottom + slope * (lo - left + hi - left))


_WALKED_KINDS = {"average_precision": 0, "ks": 1, "tpr_at_fpr": 2, "fpr_at_tpr": 3}


def _walked_parts(
    context: ReplicateContext,
    walk: _compiled.Walk,
    query: ReplicateQuery,
    out: np.ndarray,
) -> bool:
    """The replicates' parts (``out[1:]``) by the compiled walk; False when it cannot run."""
    rep_keys = walk.replicate_keys

    def replicates(values: np.ndarray) -> np.ndarray:
        return np.asarray(values[1:], dtype=np.int64)

    tied = (replicates(context.tied_pos), replicates(context.tied_neg))
    totals = (replicates(context.pos_total), replicates(context.neg_total))
    start = (replicates(context.pos_above) - tied[0], replicates(context.neg_above) - tied[1])
    if query.kind == "partial":
        kind = 5 if query.swap else 4
        scale = totals[0] if query.swap else totals[1]
        ends, tests = _interval_ends(query.bounds, scale, True, np.int64)
        bounds = np.stack(tests)
    else:
        kind, ends, bounds = _WALKED_KINDS[query.kind], [], np.zeros((4, len(rep_keys)), np.int64)
    found = _compiled.replicate_points(
        walk, (*start, *tied, *totals), context.continues, kind, query.target, bounds
    )
    if found is None:
        return False
    acc_int, acc_float, crossings, n_crossings = found
    if query.kind == "average_precision":
        out[1:] = acc_float.tolist()
    elif query.kind == "fpr_at_tpr":
        out[1:] = [
            math.inf if f > n else f
            for f, n in zip(acc_int.tolist(), totals[1].tolist(), strict=True)
        ]
    else:
        out[1:] = acc_int.tolist()
    for c in np.flatnonzero(n_crossings):
        for k in range(n_crossings[c]):
            out[1 + c] += _piece_inside(tuple(crossings[c, k]), ends[c], True)
    return True


def _first_column(context: ReplicateContext) -> ReplicateContext:
    """The context of the estimate's column alone."""
    return ReplicateContext(
        **{
            name: value if name == "continues" else value[:1]
            for name, value in vars(context).items()
        }
    )


_QUERIES = {
    "average_precision": _precision_sum,
    "ks": _largest_gap,
    "tpr_at_fpr": _tpr_at_fpr,
    "fpr_at_tpr": _fpr_at_tpr,
    "partial": _clipped_area,
}


_IDENTITY: dict[str, Any] = {
    "average_precision": 0.0,
    "ks": 0,
    "tpr_at_fpr": 0,
    "fpr_at_tpr": math.inf,
    "partial": 0,
}


def combine(kind: str, parts: Sequence[np.ndarray]) -> np.ndarray:
    """The buckets' parts of one query, in bucket order: summed, or the extreme taken."""
    if not parts:
        return np.zeros(0, dtype=object)
    stacked = np.stack(parts)
    if kind in ("ks", "tpr_at_fpr"):
        return np.array([max(column) for column in stacked.T], dtype=object)
    if kind == "fpr_at_tpr":
        return np.array([min(column) for column in stacked.T], dtype=object)
    total = stacked[0].copy()
    for part in stacked[1:]:
        total = total + part
    return total
