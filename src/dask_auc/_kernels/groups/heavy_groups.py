"""Heavy groups of the grouped AUC: one group too large for a bucket, cut by score over slots.

The grouped AUC routes rows by a hash of their group key, so every row of a
group lands in one bucket.  One user holding a tenth of a billion-row click
log would make its bucket a hundred million rows: more than a worker's
memory.  Such a group is cut the way the sort cuts its buckets -- by score --
and its pieces are summarised and merged like the binary AUC's buckets:

1. :func:`sample_group_keys` draws a regular sample of each block's rows:
   their canonical keys, key hashes and scores.
2. :func:`plan_heavy_groups` estimates every sampled key's rows and calls a
   group *heavy* when it holds at least a bucket's share of the rows
   (``rows / n_buckets``).  Each heavy group gets consecutive *slots* (extra
   buckets, a fixed number of them in the graph) in proportion to its rows,
   and the score splitters that cut it into them, from its sampled scores
   (:func:`~dask_auc._kernels.sort.plan.quantile_splitters`: a heavy tie is dealt
   over several slots, as the sort deals it over buckets).
3. :func:`heavy_group_of` finds the rows of heavy groups in a block -- by
   hash, then by value (:func:`~dask_auc._kernels.core.group_keys.same_keys`), so
   a key that merely shares a heavy key's hash stays an ordinary group -- and
   :func:`heavy_pieces` sorts them per class and cuts them at their group's
   splitters (:func:`~dask_auc._kernels.sort.buckets.cut_positions`), one
   :class:`HeavyPiece` per slot.
4. :func:`summarize_slot` merges a slot's pieces into sorted classes and
   reduces them to the binary AUC's :class:`~dask_auc._kernels.core.summary.PartialROC`
   (tie groups at its edges included);
   :func:`~dask_auc._kernels.core.summary.merge_run` then merges a group's slots in
   score order, neighbours only, correcting ties that straddle two slots.

The cut changes no result: unweighted counts and areas are exact integers
either way, so a heavy group's AUC is the same bits as if it had stayed whole.
Which groups are heavy depends on the sample, so on the partitioning; that
decides only where rows are computed, never what.

Nothing here imports dask.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..core.calibration import group_calibration_sums
from ..core.footprint import SizedByArrays
from ..core.group_keys import canonical_keys, concat_key_columns, key_hash, present_keys, same_keys
from ..core.summary import PartialROC, merge_run
from ..core.validation import as_score_array
from ..sort.buckets import Bucket, cut_positions, summarize_bucket
from ..sort.plan import quantile_splitters
from ..sort.rows import SortedScores, merged_parts, sort_owned


@dataclass(frozen=True)
class GroupSample(SizedByArrays):
    """A regular sample of one block's rows: canonical keys, their hashes, scores."""

    keys: pd.DataFrame
    hashes: np.ndarray  # uint64, :func:`~dask_auc._kernels.core.group_keys.key_hash`
    scores: np.ndarray
    rows: int  # rows of the block, each sampled row standing for rows / len(hashes)
    score_dtype: np.dtype | None = None  # None: the block has no row


def sample_group_keys(
    partitions: Sequence[pd.DataFrame], n_samples: int, *, by: tuple[str, ...], score: str
) -> GroupSample:
    """About ``n_samples`` rows at regular steps of a block (its consecutive partitions).

    Rows whose key has a missing value are left out of the sample (they
    belong to no group); scores are taken as the block's split will take
    them, their checks left to it.

    Examples
    --------
    >>> part = pd.DataFrame({"user": [7, 7, 8, 9], "s": [0.1, 0.2, 0.3, 0.4]})
    >>> sample = sample_group_keys([part], 2, by=("user",), score="s")
    >>> sample.keys["user"].tolist(), sample.rows
    ([7, 9], 4)
    """
    return sample_group_rows(partitions, n_samples, by=by, scores=(score,))[0]


def sample_group_rows(
    partitions: Sequence[pd.DataFrame],
    n_samples: int,
    *,
    by: tuple[str, ...],
    scores: tuple[str, ...],
) -> tuple[GroupSample, ...]:
    """:func:`sample_group_keys` of several score columns: one :class:`GroupSample` each.

    The rows are sampled, their keys made canonical and hashed once; the
    samples share ``keys`` and ``hashes`` and differ in ``scores``.

    Examples
    --------
    >>> part = pd.DataFrame({"user": [7, 7, 8, 9], "a": [0.1, 0.2, 0.3, 0.4], "b": [4, 3, 2, 1]})
    >>> a, b = sample_group_rows([part], 2, by=("user",), scores=("a", "b"))
    >>> a.hashes is b.hashes, a.scores.tolist(), b.scores.tolist()
    (True, [0.1, 0.4], [4, 1])
    """
    rows = sum(len(p) for p in partitions)
    columns = list(dict.fromkeys([*by, *scores]))
    # the block task joined partitions of one dtype (2,000 tiny ones make one sample,
    # not 2,000); those left apart are sampled one by one, as the split takes them
    present = [p for p in partitions if len(p)]
    if not present:
        nothing = GroupSample(_no_keys(by), np.empty(0, np.uint64), np.empty(0), rows)
        return (nothing,) * len(scores)
    samples = []
    for part in present:
        count = max(1, min(len(part), math.ceil(n_samples * len(part) / rows)))
        at = np.unique(np.linspace(0, len(part) - 1, count).round().astype(np.intp))
        samples.append(_sampled(part.iloc[at][columns].reset_index(drop=True), by, scores))
    keys = pd.DataFrame(
        {name: concat_key_columns([s[0][name] for s in samples]) for name in by}, columns=list(by)
    )
    hashes = np.concatenate([s[1] for s in samples])
    return tuple(
        GroupSample(
            keys,
            hashes,
            np.concatenate([s[2][i] for s in samples]),
            rows,
            np.result_type(*[s[2][i].dtype for s in samples]),
        )
        for i in range(len(scores))
    )


def _no_keys(by: tuple[str, ...]) -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series([], dtype=object) for name in by})


def _sampled(
    taken: pd.DataFrame, by: tuple[str, ...], scores: tuple[str, ...]
) -> tuple[pd.DataFrame, np.ndarray, list[np.ndarray]]:
    """Canonical keys, their hashes and each column's scores of sampled rows whose key is whole."""
    keys = taken[list(by)]
    present = present_keys(keys)
    columns = [as_score_array(taken[score], check_finite=False)[present] for score in scores]
    keys = canonical_keys(keys[present].reset_index(drop=True))
    return keys, key_hash(keys) if len(keys) else np.empty(0, np.uint64), columns


@dataclass(frozen=True)
class HeavyPlan(SizedByArrays):
    """Which groups are cut over slots, and where.

    Group ``g`` (row ``g`` of ``keys``) spans slots ``first_slot[g]`` to
    ``first_slot[g] + slots[g] - 1``, highest scores first; ``splitters[g]``
    holds its ``slots[g] - 1`` ascending score splitters.
    """

    keys: pd.DataFrame
    hashes: np.ndarray  # uint64, distinct
    first_slot: np.ndarray
    slots: np.ndarray
    splitters: tuple[np.ndarray, ...]
    n_slots: int  # the graph's slots, some perhaps unused
    score_dtype: np.dtype = np.dtype(np.float64)

    @property
    def n_groups(self) -> int:
        return len(self.hashes)

    @classmethod
    def nothing_heavy(cls, by: tuple[str, ...], n_slots: int) -> HeavyPlan:
        none = np.empty(0, np.int64)
        return cls(_no_keys(by), np.empty(0, np.uint64), none, none, (), n_slots)


def plan_heavy_groups(
    samples: Sequence[GroupSample], by: tuple[str, ...], n_buckets: int, n_slots: int
) -> HeavyPlan:
    """The heavy groups (a bucket's share of the rows or more), their slots and splitters.

    A group's estimated rows are its sampled rows, each standing for its
    block's rows over its block's sample.  It gets ``ceil(rows / share)``
    slots; when the groups want more than ``n_slots``, each gets its part of
    them (at least one), and the lightest that find none stay ordinary groups.

    Examples
    --------
    >>> keys = pd.DataFrame({"user": [1, 1, 1, 2]})
    >>> scores = np.array([0.1, 0.5, 0.9, 0.3])
    >>> sample = GroupSample(keys, key_hash(keys), scores, 4, scores.dtype)
    >>> plan = plan_heavy_groups([sample], ("user",), n_buckets=2, n_slots=2)
    >>> plan.keys["user"].tolist(), plan.slots.tolist(), plan.splitters[0].tolist()
    ([1], [2], [0.5])
    """
    rows = sum(s.rows for s in samples)
    filled = [s for s in samples if len(s.hashes)]
    if n_slots < 1 or n_buckets < 2 or not filled:
        return HeavyPlan.nothing_heavy(by, n_slots)
    stands_for = np.concatenate([np.full(len(s.hashes), s.rows / len(s.hashes)) for s in filled])
    hashes = np.concatenate([s.hashes for s in filled])
    distinct, first, inverse = np.unique(hashes, return_index=True, return_inverse=True)
    estimate = np.bincount(inverse, weights=stands_for, minlength=len(distinct))
    share = rows / n_buckets
    heavy = np.flatnonzero(estimate >= share)
    heavy = heavy[np.argsort(-estimate[heavy], kind="stable")]  # heaviest first
    slots = _allotted(np.ceil(estimate[heavy] / share).astype(np.int64), n_slots)
    heavy, slots = heavy[slots > 0], slots[slots > 0]
    if not len(heavy):
        return HeavyPlan.nothing_heavy(by, n_slots)
    dtypes = [s.score_dtype for s in samples if s.score_dtype is not None]
    dtype = np.result_type(*dtypes) if dtypes else np.dtype(np.float64)
    scores = np.concatenate([s.scores for s in filled]).astype(dtype)
    splitters = tuple(
        quantile_splitters(scores[inverse == h], stands_for[inverse == h], int(n))
        for h, n in zip(heavy, slots, strict=True)
    )
    keys = pd.DataFrame(
        {name: concat_key_columns([s.keys[name] for s in filled]) for name in by},
        columns=list(by),
    )
    first_slot = np.concatenate(([0], np.cumsum(slots)[:-1]))
    return HeavyPlan(
        keys.take(first[heavy]).reset_index(drop=True),
        distinct[heavy],
        first_slot,
        slots,
        splitters,
        n_slots,
        dtype,
    )


def _allotted(wanted: np.ndarray, n_slots: int) -> np.ndarray:
    """Slots per group (heaviest first): as wanted if they fit, else shares of ``n_slots``.

    Examples
    --------
    >>> _allotted(np.array([6, 2, 2]), 5).tolist()
    [3, 1, 1]
    >>> _allotted(np.array([2, 2, 2]), 2).tolist()
    [1, 1, 0]
    """
    if wanted.sum() <= n_slots:
        return wanted
    slots = np.maximum(1, wanted * n_slots // wanted.sum())
    slots[np.cumsum(slots) > n_slots] = 0  # the lightest find none left
    return slots


def heavy_group_of(keys: pd.DataFrame, hashes: np.ndarray, plan: HeavyPlan) -> np.ndarray:
    """The heavy group of each key (canonical, hashed), or -1 for an ordinary group.

    Matched by hash, then by value: a key sharing a heavy key's hash but not
    its value is ordinary.
    """
    group = np.full(len(hashes), -1, dtype=np.int32)  # a bucket's share of rows: few groups
    if not plan.n_groups or not len(hashes):
        return group
    order = np.argsort(plan.hashes)
    at = np.minimum(np.searchsorted(plan.hashes[order], hashes), plan.n_groups - 1)
    hit = np.flatnonzero(plan.hashes[order][at] == hashes)
    if not len(hit):
        return group
    candidate = order[at[hit]]
    same = same_keys(
        keys.iloc[hit].reset_index(drop=True), plan.keys.take(candidate).reset_index(drop=True)
    )
    group[hit[same]] = candidate[same]
    return group


@dataclass(frozen=True)
class HeavyPiece(SizedByArrays):
    """One block's rows of one heavy group within one slot: a sorted part per label value.

    The labels are the block's own (the positive class is known only once
    every block has been seen); ``group`` is -1 for a slot the block sends
    nothing.
    """

    group: int
    labels: tuple[Any, ...] = ()
    parts: tuple[SortedScores, ...] = ()


NO_PIECE = HeavyPiece(-1)


@dataclass(frozen=True)
class HeavyBlockInfo(SizedByArrays):
    """What one block tells the plan of its heavy rows, per heavy group and label value.

    ``counted[g, j]`` rows of group ``g`` and label ``labels[j]`` (rows of
    nonzero weight when weighted) and ``max_weight[g, j]`` their largest
    weight; ``gauc_weight[g]`` the sum of the group's ``gauc_weight`` column.
    """

    labels: tuple[Any, ...]
    counted: np.ndarray
    max_weight: np.ndarray | None = None
    gauc_weight: np.ndarray | None = None


def heavy_pieces(
    group: np.ndarray,
    labels: tuple[Any, ...],
    label: np.ndarray,
    score: np.ndarray,
    weight: np.ndarray | None,
    gauc_weight: np.ndarray | None,
    plan: HeavyPlan,
) -> tuple[list[HeavyPiece], HeavyBlockInfo]:
    """A block's rows of heavy groups (``group[i] >= 0``), cut into one piece per slot.

    ``labels`` are the block's distinct label values (its rows' ``label``).

    Each group's rows of one label are sorted (tied rows aggregated as the
    sort's blocks are: :func:`~dask_auc._kernels.sort.rows.sort_owned`) and cut
    at the group's splitters; a heavy tie is dealt over the slots its
    splitter repeats into.
    """
    n_groups = plan.n_groups
    counted = np.zeros((n_groups, len(labels)), np.int64)
    max_weight = None if weight is None else np.zeros((n_groups, len(labels)))
    gauc = None if gauc_weight is None else np.zeros(n_groups)
    slot_parts: list[dict[Any, SortedScores]] = [{} for _ in range(plan.n_slots)]
    slot_group = np.full(plan.n_slots, -1, np.int64)
    rows = np.flatnonzero(group >= 0)
    rows = rows[np.argsort(group[rows], kind="stable")]  # by group, each in row order
    starts = np.searchsorted(group[rows], np.arange(n_groups + 1))
    for g in range(n_groups):
        mine = rows[starts[g] : starts[g + 1]]
        if not len(mine):
            continue
        if gauc is not None and gauc_weight is not None:
            gauc[g] = float(np.sum(gauc_weight[mine]))
        for j, value in enumerate(labels):
            taken = mine[label[mine] == value]
            if not len(taken):
                continue
            scores = score[taken].astype(plan.score_dtype)
            weights = None if weight is None else weight[taken]
            counted[g, j] = len(taken) if weights is None else np.count_nonzero(weights)
            if max_weight is not None and weights is not None:
                max_weight[g, j] = weights.max()
            part = sort_owned(scores, weights)
            cuts = cut_positions(part.scores, plan.splitters[g])
            for ascending in range(plan.slots[g]):
                piece = part.slice(cuts[ascending], cuts[ascending + 1])
                if len(piece):
                    slot = plan.first_slot[g] + plan.slots[g] - 1 - ascending
                    slot_parts[slot][value] = piece
                    slot_group[slot] = g
    pieces = [
        HeavyPiece(int(slot_group[s]), tuple(slot_parts[s]), tuple(slot_parts[s].values()))
        if slot_parts[s]
        else NO_PIECE
        for s in range(plan.n_slots)
    ]
    return pieces, HeavyBlockInfo(labels, counted, max_weight, gauc)


def joined_pieces(pieces: Sequence[HeavyPiece]) -> HeavyPiece:
    """Pieces of one slot from consecutive partitions of one block, as one piece."""
    filled = [p for p in pieces if p.group >= 0]
    if len(filled) <= 1:
        return filled[0] if filled else NO_PIECE
    by_label: dict[Any, list[SortedScores]] = {}
    for piece in filled:
        for value, part in zip(piece.labels, piece.parts, strict=True):
            by_label.setdefault(value, []).append(part)
    merged = {value: merged_parts(parts) for value, parts in by_label.items()}
    return HeavyPiece(filled[0].group, tuple(merged), tuple(merged.values()))


def joined_infos(infos: Sequence[HeavyBlockInfo]) -> HeavyBlockInfo:
    """The heavy infos of consecutive partitions of one block, as one."""
    labels = tuple(dict.fromkeys(value for info in infos for value in info.labels))
    n_groups = infos[0].counted.shape[0]
    counted = np.zeros((n_groups, len(labels)), np.int64)
    weighted = infos[0].max_weight is not None
    max_weight = np.zeros((n_groups, len(labels))) if weighted else None
    gauc = None if infos[0].gauc_weight is None else np.zeros(n_groups)
    for info in infos:
        columns = [labels.index(value) for value in info.labels]
        counted[:, columns] += info.counted
        if max_weight is not None and info.max_weight is not None:
            max_weight[:, columns] = np.maximum(max_weight[:, columns], info.max_weight)
        if gauc is not None and info.gauc_weight is not None:
            gauc += info.gauc_weight
    return HeavyBlockInfo(labels, counted, max_weight, gauc)


@dataclass(frozen=True)
class HeavySlot(SizedByArrays):
    """A slot reduced: its group, its rows' :class:`PartialROC`, its calibration sums."""

    group: int
    summary: PartialROC
    calibration: dict[str, np.ndarray] | None = None


def summarize_slot(
    pieces: Sequence[HeavyPiece],
    positive_label: Any,
    exponents: np.ndarray | None,
    *,
    calibration: bool = False,
    compiled: bool = False,
    eps: float | None = None,
) -> HeavySlot:
    """Merge one slot's pieces into its sorted classes and summarize them.

    ``exponents[:, g]`` (negatives, positives) scale group ``g``'s weights by a
    power of two per class, as the ordinary groups' extreme weights are
    (:func:`~dask_auc._kernels.groups.pair_sums.class_exponents`): no pair product
    overflows, and no AUC changes.  The calibration sums are of the unscaled
    weights (aggregated tied rows count their summed weight); ``eps`` clips
    their log loss (the plan's: that of the input's dtype).
    """
    filled = [p for p in pieces if p.group >= 0]
    if not filled:
        return HeavySlot(-1, PartialROC.empty())
    classes: tuple[list[SortedScores], list[SortedScores]] = ([], [])
    for piece in filled:
        for value, part in zip(piece.labels, piece.parts, strict=True):
            classes[int(bool(value == positive_label))].append(part)
    like = filled[0].parts[0]
    neg, pos = (merged_parts(parts) if parts else like.empty() for parts in classes)
    sums = None
    if calibration:
        sums = _calibration_sums(pos, neg, eps)
    if exponents is not None:
        group = filled[0].group
        neg = _scaled(neg, int(exponents[0, group]))
        pos = _scaled(pos, int(exponents[1, group]))
    summary = summarize_bucket(Bucket.binary(pos, neg, 0, compiled))
    return HeavySlot(filled[0].group, summary, sums)


def _scaled(part: SortedScores, exponent: int) -> SortedScores:
    if exponent == 0 or part.weights is None or part.counted:
        return part
    return replace(part, weights=np.ldexp(part.weights, -exponent))


def _calibration_sums(
    pos: SortedScores, neg: SortedScores, eps: float | None
) -> dict[str, np.ndarray]:
    scores = np.concatenate((pos.scores, neg.scores))
    positive = np.repeat([True, False], (len(pos), len(neg)))
    weights = np.concatenate(
        [np.ones(len(p)) if p.weights is None else p.weights.astype(np.float64) for p in (pos, neg)]
    )
    codes = np.zeros(len(scores), np.int64)
    return group_calibration_sums(codes, 1, scores, positive, weights, eps)


def merge_group_slots(slots: Sequence[HeavySlot], plan: HeavyPlan) -> list[PartialROC]:
    """Each heavy group's summary: its slots merged in score order, neighbours only.

    ``slots`` are all the graph's slots, in order; a slot of another group
    among a group's own is an error of the plan, not data, and raises.
    """
    summaries = []
    for g in range(plan.n_groups):
        own = slots[plan.first_slot[g] : plan.first_slot[g] + plan.slots[g]]
        if any(s.group not in (-1, g) for s in own):
            raise RuntimeError(f"heavy group {g}: a slot of another group among its slots")
        summaries.append(merge_run([slot.summary for slot in own]))  # highest scores first
    return summaries
