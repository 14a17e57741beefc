"""Bootstrap replicates of a binary metric, every replicate computed on the one sort.

**Replicate counts.**  Row ``i`` enters replicate ``b`` ``c(i, b)`` times, a
Poisson(1) draw made from a counter-based hash (the "Poisson bootstrap"):
nothing is drawn in sequence, so a row's counts depend only on the seed, on
``b`` and on the row's *key* -- its position in the whole input, or the hash of
its group's key value for the cluster bootstrap -- never on which block or
bucket holds it.  Every replicate is therefore the same, bit for bit, for any
partitioning, bucket count, scheduler or cluster.  With ``mix`` the
bijective 64-bit finaliser of SplitMix64 and ``G = 0x9E3779B97F4A7C15``
(all arithmetic modulo ``2**64``)::

    seed key        s   = mix(random_state)
    replicate key   k_b = mix(s + (b + 1) * G)
    row key         r_i = mix((i + 1) * G)          (i: the row's position)
                    r_g = mix(hash(group key))       (cluster bootstrap)
    draw            u   = mix(r ^ k_b)
    count           c   = #{k >= 0 : u >= T_k},  T_k = floor(2**64 * P(X <= k)), X ~ Poisson(1)

The thresholds ``T_k`` are integers computed once in 60-digit decimal
arithmetic, and the draw is compared with them as integers: no float enters
a count, so counts are the same on every CPU.

**One pass for all replicates.**  A bucket's rows are sorted by score with
their keys (the sort's ``ids`` payload).  For a block of replicates at a
time, the bucket adds up each tie group's counts (a ``groups x replicates``
matrix, never ``rows x replicates``: compiled where numba runs, else one
hash per row and replicate in NumPy) and reduces them at once:

* :func:`replicate_summary` -- each replicate's class totals, its edge tie
  groups and the (doubled) area inside the bucket: the AUC merges these
  summaries of neighbouring buckets only (:func:`replicate_contexts`), exact
  integers when unweighted;
* :func:`replicate_parts` -- with each bucket's context from that scan (the
  counts above it, the part of its top tie group held by buckets above, and
  whether its bottom tie group goes on below), every replicate's absolute
  curve points, and from them the bucket's part of the average precision,
  the KS statistic, a partial area or an operating point.

Column 0 of every array is the *estimate*: every row counted once (its
weight), so the estimate comes from the same kernels as the replicates.

Nothing here imports dask.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from ..core.footprint import SizedByArrays
from ..core.group_keys import column_hash
from ..core.validation import (
    RowCounts,
    as_score_array,
    as_weight_array,
    distinct_labels,
    to_numpy,
)
from ..sort import compiled as _compiled
from ..sort.buckets import Bucket
from ..sort.plan import SortPlan
from ..sort.prepare import PreparedBlock
from ..sort.rows import ID_BITS, SortedScores, block_row_ids, traced_by_label

_GOLDEN = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1
#: replicate columns per block of work: ``rows x columns`` hashes in NumPy at a time
_CELLS = 1 << 21


def mix64(x: Any) -> np.ndarray:
    """SplitMix64's finaliser: a bijection of 64-bit integers that mixes every bit.

    Examples
    --------
    >>> int(mix64(0)[0]), hex(int(mix64(1)[0]))
    (0, '0x5692161d100b05e5')
    """
    x = np.atleast_1d(np.asarray(x, dtype=np.uint64)).copy()
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return x


def _poisson_thresholds() -> np.ndarray:
    """``floor(2**64 * P(X <= k))`` for Poisson(1) ``X``, while below ``2**64``."""
    context = decimal.Context(prec=60)
    term = context.exp(decimal.Decimal(-1))
    cdf, thresholds = decimal.Decimal(0), []
    for k in range(64):
        cdf = context.add(cdf, term)
        threshold = int(context.multiply(cdf, decimal.Decimal(2**64)))  # floor: positive
        if threshold > _MASK64:
            break
        thresholds.append(threshold)
        term = context.divide(term, k + 1)
    return np.array(thresholds, dtype=np.uint64)


#: a draw ``u`` counts ``k`` times when ``T[k - 1] <= u < T[k]`` (``T`` these thresholds)
POISSON_THRESHOLDS = _poisson_thresholds()


def check_seed(random_state: Any) -> int:
    """The seed as an int in ``[0, 2**64)``: an int as it is, a NumPy generator draws one."""
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError(
            f"random_state must be None, an int or a NumPy generator, got {random_state!r}"
        )
    if isinstance(random_state, (int, np.integer)):
        seed = int(random_state)
        if not 0 <= seed <= _MASK64:
            raise ValueError(f"random_state must be between 0 and 2**64 - 1, got {seed}")
        return seed
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63, dtype=np.int64))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**63, dtype=np.int64))
    raise TypeError(
        "random_state must be None, an int or a NumPy Generator/RandomState, "
        f"got {type(random_state).__name__}"
    )


def replicate_keys(seed: int, replicates: Any) -> np.ndarray:
    """``k_b`` of replicates ``b`` (an int array) under ``seed``."""
    seed_key = int(mix64(seed)[0])
    b = np.asarray(replicates, dtype=np.uint64)
    return mix64(np.uint64(seed_key) + (b + np.uint64(1)) * np.uint64(_GOLDEN))


def position_keys(positions: Any) -> np.ndarray:
    """``r_i`` of rows at ``positions`` (0-based, in the whole input)."""
    i = np.asarray(positions, dtype=np.int64).astype(np.uint64)
    return mix64((i + np.uint64(1)) * np.uint64(_GOLDEN))


def group_keys(values: Any) -> np.ndarray:
    """``r_g`` of each row's group key: equal key values, equal ``r_g``, in any block.

    A key hashes by its value, in the one canonical form the grouped AUC
    groups by (:func:`~dask_auc._kernels.core.group_keys.column_hash`): ``7``,
    ``7.0``, a nullable or a categorical 7 are one key, whatever dtype one
    block happens to hold.  Missing keys are refused by the caller.
    """
    return mix64(np.asarray(column_hash(values), dtype=np.uint64))


def counts_for(row_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Each row's count in each replicate: ``(len(keys), len(row_keys))`` uint8."""
    draws = mix64(row_keys[np.newaxis, :] ^ keys[:, np.newaxis])
    return np.searchsorted(POISSON_THRESHOLDS, draws, side="right").astype(np.uint8)


# -- the sort's blocks: rows with their keys ---------------------------------------------------


@dataclass(frozen=True)
class TracedPlan(SortPlan):
    """A sort plan that also knows where each block starts in the whole input."""

    offsets: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    by_group: bool = False


def traced_plan(plan: SortPlan, metas: Sequence[Any], by_group: bool) -> TracedPlan:
    """``plan`` with each block's first row position (blocks are in input order)."""
    rows = np.array([meta.lengths.rows for meta in metas], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(rows)[:-1]]).astype(np.int64)
    values = {f.name: getattr(plan, f.name) for f in fields(SortPlan)}
    return TracedPlan(**values, offsets=offsets, by_group=by_group)


@dataclass(frozen=True)
class RowsBlock(SizedByArrays):
    """One validated block: its rows as given, with their group keys' hashes if any."""

    lengths: RowCounts
    classes: tuple[Any, ...]
    labels: np.ndarray
    scores: np.ndarray
    weights: np.ndarray | None
    keys: np.ndarray | None  # r_g of each row's group


def prepare_rows(
    label: Any, score: Any, *rest: Any, names: tuple[str, ...], weighted: bool
) -> RowsBlock:
    """Validate one block (the messages of every metric); ``rest``: weights, then group keys."""
    label, score = to_numpy(label), to_numpy(score)
    weight = rest[0] if weighted else None
    given_keys = rest[-1] if len(rest) > int(weighted) else None
    keys = None if given_keys is None else to_numpy(given_keys)
    lengths = RowCounts.of(names, label, score, *rest)
    if not lengths.aligned:
        return RowsBlock(lengths, (), label[:0], score[:0], None, None)
    classes = distinct_labels(label)
    score = as_score_array(score)
    weights = None if weight is None else as_weight_array(weight)
    if keys is not None:
        missing = pd.isna(keys)
        if missing.any():
            raise ValueError(
                f"{names[-1]} has {int(missing.sum()):,} missing key(s): every row must "
                "belong to a group to be resampled with it"
            )
        # hashed as given: to_numpy makes nullable integers floats, beyond 2**53 inexact
        keys = group_keys(given_keys)
    return RowsBlock(lengths, classes, label, score, weights, keys)


def traced_rows(block: RowsBlock, index: int) -> PreparedBlock:
    """Block ``index``'s rows sorted by score within each label, carrying their keys.

    Row ids are ``index << ID_BITS | position`` (the bucket makes them
    positions in the whole input), or the hashes of their group keys.  Rows
    of weight zero are dropped, as every metric does; the others keep their
    positions.
    """
    if block.keys is not None:
        ids = block.keys.view(np.int64)
    else:
        ids = block_row_ids(index, len(block.scores))
    labels, scores, weights = block.labels, block.scores, block.weights
    if weights is not None and not weights.all():
        keep = weights != 0
        labels, scores, weights, ids = labels[keep], scores[keep], weights[keep], ids[keep]
    by_label = traced_by_label(block.classes, labels, scores, ids, weights)
    return PreparedBlock(block.lengths, block.classes, by_label)


# -- the counts of a bucket's tie groups ---------------------------------------------------------


@dataclass(frozen=True)
class _Part:
    """One class of a bucket: its rows' keys and tie groups, placed among the bucket's."""

    keys: np.ndarray  # r of each row, uint64, rows in ascending score order
    weights: np.ndarray | None
    starts: np.ndarray  # first row of each of its tie groups, and len(rows)
    slots: np.ndarray  # each of its tie groups' index among the bucket's distinct scores


def _row_keys(part: SortedScores, plan: TracedPlan) -> np.ndarray:
    ids = part.ids if part.ids is not None else np.empty(0, np.int64)
    if plan.by_group:
        return ids.view(np.uint64)
    block = ids >> np.int64(ID_BITS)
    positions = plan.offsets[block] + (ids & np.int64((1 << ID_BITS) - 1))
    return position_keys(positions)


def _layout(bucket: Bucket, plan: TracedPlan) -> tuple[np.ndarray, _Part, _Part]:
    """The bucket's distinct scores (ascending) and its two classes laid out on them."""
    pos, neg = bucket.pos, bucket.neg
    distinct = np.unique(np.concatenate([pos.scores, neg.scores]))

    def part(rows: SortedScores) -> _Part:
        scores = rows.scores
        new = np.flatnonzero(np.diff(scores) != 0) + 1 if len(scores) else np.empty(0, np.intp)
        starts = np.concatenate([[0], new, [len(scores)]]).astype(np.int64)
        slots = np.searchsorted(distinct, scores[starts[:-1]]) if len(scores) else starts[:0]
        return _Part(_row_keys(rows, plan), rows.weights, starts, slots)

    return distinct, part(pos), part(neg)


def _group_counts(
    part: _Part, keys: np.ndarray, n_groups: int, weighted: bool, compiled: bool
) -> np.ndarray:
    """``(n_groups, len(keys))``: each tie group's summed counts (times weights) per replicate."""
    dtype = np.float64 if weighted else np.int64
    out = np.zeros((n_groups, len(keys)), dtype=dtype)
    if len(part.keys) == 0 or len(keys) == 0:
        return out
    own = _compiled.replicate_group_counts(
        part.keys, part.starts, keys, POISSON_THRESHOLDS, part.weights, compiled=compiled
    )
    if own is None:
        own = np.zeros((len(part.starts) - 1, len(keys)), dtype=dtype)
        group_of_row = np.repeat(np.arange(len(part.starts) - 1), np.diff(part.starts))
        step = max(1, _CELLS // len(keys))
        for first in range(0, len(part.keys), step):
            rows = slice(first, first + step)
            counts = counts_for(part.keys[rows], keys).T.astype(dtype)
            if part.weights is not None:
                counts *= part.weights[rows, np.newaxis]
            # rows of a tie group are contiguous: sum each group's run (one slice may
            # end, and the next begin, inside a group)
            groups = group_of_row[rows]
            runs = np.concatenate([[0], np.flatnonzero(np.diff(groups)) + 1])
            own[groups[runs]] += np.add.reduceat(counts, runs, axis=0)
    out[part.slots] = own
    return out


def _identity(part: _Part, n_groups: int, weighted: bool) -> np.ndarray:
    """The estimate's column: each tie group's rows (or weight)."""
    out = np.zeros(n_groups, dtype=np.float64 if weighted else np.int64)
    if len(part.keys):
        if part.weights is None:
            own = np.diff(part.starts)
        else:
            own = np.add.reduceat(part.weights, part.starts[:-1])
        out[part.slots] = own
    return out


@dataclass(frozen=True)
class ReplicateSpec:
    """What every bucket needs to make its replicates: they are in every task's key."""

    seed: int
    n_bootstraps: int
    weighted: bool


def chunks(spec: ReplicateSpec, n_rows: int) -> Iterator[tuple[int, int]]:
    """Columns ``[first, stop)`` of the replicate arrays, a block at a time (0: the estimate)."""
    width = spec.n_bootstraps + 1
    step = max(1, min(width, _CELLS // max(n_rows, 1)))
    for first in range(0, width, step):
        yield first, min(width, first + step)


def column_counts(
    bucket: Bucket, plan: TracedPlan, spec: ReplicateSpec
) -> Iterator[tuple[int, int, np.ndarray, np.ndarray, np.ndarray]]:
    """``(first, stop, scores, pos, neg)`` per block of columns, tie groups in descending order."""
    distinct, pos, neg = _layout(bucket, plan)
    n = len(distinct)
    for first, stop in chunks(spec, len(pos.keys) + len(neg.keys)):
        columns = []
        for part in (pos, neg):
            replicates = np.arange(max(first, 1) - 1, stop - 1)
            counts = _group_counts(
                part, replicate_keys(spec.seed, replicates), n, spec.weighted, plan.compiled
            )
            if first == 0:
                counts = np.column_stack([_identity(part, n, spec.weighted), counts])
            columns.append(counts[::-1])
        yield first, stop, distinct[::-1], columns[0], columns[1]


# -- pass 1: each replicate's summary of a bucket ------------------------------------------------


@dataclass(frozen=True)
class ReplicateSummary(SizedByArrays):
    """A bucket's part of every replicate (arrays over the columns, column 0 the estimate).

    ``area`` is the doubled area under the bucket's own stretch of the curve,
    its top as the origin: ``sum(neg_g * (2 * T_g - pos_g))`` over its tie groups
    ``g`` in descending score order, ``T_g`` the positives down to the end of ``g``.
    """

    top: Any  # the highest score, None for an empty bucket
    bottom: Any
    pos: np.ndarray
    neg: np.ndarray
    top_pos: np.ndarray
    top_neg: np.ndarray
    bottom_pos: np.ndarray
    bottom_neg: np.ndarray
    area: np.ndarray

    @property
    def is_empty(self) -> bool:
        return self.top is None


#: a bucket of more rows than this could overflow int64 pair counts of 20-fold counts
_INT64_ROWS = 1 << 26


def _exact_dtype(bucket: Bucket, spec: ReplicateSpec) -> Any:
    if spec.weighted:
        return np.float64
    rows = len(bucket.pos.scores) + len(bucket.neg.scores)
    return np.int64 if rows < _INT64_ROWS else object


def replicate_summary(bucket: Bucket, plan: TracedPlan, spec: ReplicateSpec) -> ReplicateSummary:
    """Every replicate's totals, edge tie groups and inner area of one bucket."""
    walked = _walk(bucket, plan, spec)
    if walked is not None:
        estimate = _summary(bucket, plan, replace(spec, n_bootstraps=0))
        pos_keys, neg_keys, rep_keys = walked
        out = _compiled.replicate_summary(
            bucket.pos.scores, pos_keys, bucket.neg.scores, neg_keys, rep_keys, POISSON_THRESHOLDS
        )
        if out is not None:
            if estimate.is_empty:
                return estimate
            arrays = {
                name: np.concatenate([getattr(estimate, name), row])
                for name, row in zip(_SUMMARY_ARRAYS, out, strict=True)
            }
            return ReplicateSummary(estimate.top, estimate.bottom, **arrays)
    return _summary(bucket, plan, spec)


def _walk(
    bucket: Bucket, plan: TracedPlan, spec: ReplicateSpec
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The rows' and replicates' keys for a compiled walk, or None to take the NumPy path."""
    if not (plan.compiled and spec.n_bootstraps) or spec.weighted:
        return None
    if _exact_dtype(bucket, spec) is object:
        return None
    keys = replicate_keys(spec.seed, np.arange(spec.n_bootstraps))
    return _row_keys(bucket.pos, plan), _row_keys(bucket.neg, plan), keys


def _summary(bucket: Bucket, plan: TracedPlan, spec: ReplicateSpec) -> ReplicateSummary:
    dtype = _exact_dtype(bucket, spec)
    width = spec.n_bootstraps + 1
    arrays = {name: np.zeros(width, dtype=dtype) for name in _SUMMARY_ARRAYS}
    scores = None
    for first, stop, scores, pos, neg in column_counts(bucket, plan, spec):
        if len(scores) == 0:
            break
        pos, neg = pos.astype(dtype), neg.astype(dtype)
        cols = slice(first, stop)
        arrays["pos"][cols], arrays["neg"][cols] = pos.sum(0), neg.sum(0)
        arrays["top_pos"][cols], arrays["top_neg"][cols] = pos[0], neg[0]
        arrays["bottom_pos"][cols], arrays["bottom_neg"][cols] = pos[-1], neg[-1]
        arrays["area"][cols] = (neg * (2 * np.cumsum(pos, axis=0) - pos)).sum(0)
    if scores is None or len(scores) == 0:
        return ReplicateSummary(None, None, **arrays)
    return ReplicateSummary(scores[0].item(), scores[-1].item(), **arrays)


_SUMMARY_ARRAYS = ("pos", "neg", "top_pos", "top_neg", "bottom_pos", "bottom_neg", "area")


@dataclass(frozen=True)
class ReplicateContext:
    """What a bucket needs of the others to place its tie groups on every replicate's curve."""

    pos_above: np.ndarray  # rows (counts) in the buckets above
    neg_above: np.ndarray
    tied_pos: np.ndarray  # of those, the ones in this bucket's top tie group
    tied_neg: np.ndarray
    continues: bool  # its bottom tie group goes on in the bucket below
    pos_total: np.ndarray
    neg_total: np.ndarray


@dataclass(frozen=True)
class ReplicateScan:
    """The ordered scan of the summaries: each bucket's context, the totals and the area."""

    contexts: list[ReplicateContext | None]
    pos: np.ndarray  # each column's positives (Python ints when unweighted)
    neg: np.ndarray
    area: np.ndarray  # each column's doubled area under the whole curve


def replicate_scan(summaries: Sequence[ReplicateSummary]) -> ReplicateScan:
    """Merge the summaries in score order, neighbours only; place every bucket.

    The doubled area is each bucket's own area, plus its negatives times twice
    the positives above it, plus, where a tie group straddles the edge
    between the rows above ``(p1, n1)`` and the bucket's top group
    ``(p2, n2)``, ``n1 * p2 - n2 * p1``: the straight segment through the
    whole group instead of the two pieces' corner.
    """
    filled = [s for s in summaries if not s.is_empty]
    width = len(filled[0].pos) if filled else 1
    zero = np.zeros(width, dtype=object if not filled else _scan_dtype(filled[0]))
    pos_above, neg_above, area = zero.copy(), zero.copy(), zero.copy()
    carried: tuple[Any, np.ndarray, np.ndarray] | None = None
    placed: list[dict[str, Any] | None] = []
    previous: dict[str, Any] | None = None
    for summary in summaries:
        if summary.is_empty:
            placed.append(None)
            continue
        s = {name: _scan_values(getattr(summary, name)) for name in _SUMMARY_ARRAYS}
        tied = carried is not None and carried[0] == summary.top
        tied_pos, tied_neg = (carried[1], carried[2]) if tied else (zero, zero)  # type: ignore[index]
        if tied and previous is not None:
            previous["continues"] = True
        area = area + s["area"] + 2 * s["neg"] * pos_above
        area = area + tied_neg * s["top_pos"] - s["top_neg"] * tied_pos
        entry = {
            "pos_above": pos_above,
            "neg_above": neg_above,
            "tied_pos": tied_pos,
            "tied_neg": tied_neg,
            "continues": False,
        }
        placed.append(entry)
        previous = entry
        if summary.top == summary.bottom:  # one tie group: it goes on from above
            carried = (summary.bottom, tied_pos + s["pos"], tied_neg + s["neg"])
        else:
            carried = (summary.bottom, s["bottom_pos"], s["bottom_neg"])
        pos_above, neg_above = pos_above + s["pos"], neg_above + s["neg"]
    contexts = [
        None
        if entry is None
        else ReplicateContext(**entry, pos_total=pos_above, neg_total=neg_above)
        for entry in placed
    ]
    return ReplicateScan(contexts, pos_above, neg_above, area)


def _scan_dtype(summary: ReplicateSummary) -> Any:
    return np.float64 if summary.pos.dtype.kind == "f" else object


def _scan_values(values: np.ndarray) -> np.ndarray:
    """Counts as Python ints (sums over buckets never overflow), weights as floats."""
    return values if values.dtype.kind == "f" else values.astype(object)


def scan_contexts(scan: ReplicateScan) -> list[ReplicateContext | None]:
    return scan.contexts


# -- pass 2: each replicate's part of a metric that needs the curve's absolute points -----------


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
    dtype = _exact_dtype(bucket, spec)
    walked = _walk(bucket, plan, spec)
    if walked is not None and _walked_parts(bucket, context, walked, query, out):
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
    bucket: Bucket,
    context: ReplicateContext,
    walked: tuple[np.ndarray, np.ndarray, np.ndarray],
    query: ReplicateQuery,
    out: np.ndarray,
) -> bool:
    """The replicates' parts (``out[1:]``) by the compiled walk; False when it cannot run."""
    pos_keys, neg_keys, rep_keys = walked

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
        bucket.pos.scores, pos_keys, bucket.neg.scores, neg_keys, rep_keys, POISSON_THRESHOLDS,
        (*start, *tied, *totals), context.continues, kind, query.target, bounds,
    )  # fmt: skip
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


# -- the cluster bootstrap of a weighted mean over groups (GAUC) ---------------------------------


def weighted_mean_replicates(
    keys: np.ndarray,
    values: np.ndarray,
    weights: np.ndarray,
    seed: int,
    n_bootstraps: int,
    compiled: bool,
) -> np.ndarray:
    """``sum(c * w * v) / sum(c * w)`` over the groups in every replicate (NaN where 0 / 0).

    ``keys`` are the groups' ``r_g`` (:func:`group_keys`), in a fixed order
    (the sorted group keys): the sums run in that order, the same in the
    compiled loop and in NumPy (a running sum down the groups).
    """
    rep_keys = replicate_keys(seed, np.arange(n_bootstraps))
    weighted = weights * values
    found = _compiled.replicate_weighted_sums(
        keys, weighted, weights, rep_keys, POISSON_THRESHOLDS, compiled=compiled
    )
    if found is None:
        num, den = np.zeros(n_bootstraps), np.zeros(n_bootstraps)
        step = max(1, _CELLS // max(len(keys), 1))
        for first in range(0, n_bootstraps, step):
            cols = slice(first, first + step)
            counts = counts_for(keys, rep_keys[cols]).T.astype(np.float64)
            if len(keys):
                num[cols] = np.cumsum(counts * weighted[:, np.newaxis], axis=0)[-1]
                den[cols] = np.cumsum(counts * weights[:, np.newaxis], axis=0)[-1]
        found = num, den
    num, den = found
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
