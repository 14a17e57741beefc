"""The grouped AUC's first pass: validate a block and cut it by the hash of its group keys.

Rows are routed by a hash of their group key, so that every row of a group
lands in the same bucket whatever the input partition it came from.
:func:`split_group_block` validates one input block (labels, scores,
weights), drops the rows whose key is missing, puts every key column in the
one representation of its values
(:func:`~dask_auc._kernels.core.group_keys.canonical_key_column`: the blocks of
one frame may carry int64 here and float64 there), hashes the keys by value
(:func:`~dask_auc._kernels.core.group_keys.key_hash`) and cuts the rows into
one :class:`GroupRows` piece per bucket (:func:`bucket_of`).  Each row
carries an integer code into its piece's key table: string and object keys
are factorized once per block (:func:`~dask_auc._kernels.groups.codes.group_codes`),
so each distinct key is hashed, shipped and matched once; numeric keys,
cheap to hash and ship, stay one per row.  The rows of heavy groups go to
their slots instead (:mod:`dask_auc._kernels.groups.heavy_groups`).

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.calibration import clip_eps
from ..core.footprint import SizedByArrays
from ..core.group_keys import (
    NUMBER_KINDS,
    canonical_keys,
    concat_key_columns,
    key_hash,
    present_keys,
)
from ..core.validation import (
    _check_finite,
    as_score_array,
    as_weight_array,
    distinct_labels,
    sorted_labels,
    to_numpy,
)
from .bucketed import bucketed_columns
from .codes import group_codes, key_table
from .heavy_groups import (
    NO_PIECE,
    HeavyPiece,
    HeavyPlan,
    heavy_group_of,
    heavy_pieces,
    joined_infos,
    joined_pieces,
)
from .plan import GroupBlockInfo, GroupSpec, joined_ranges
from .scores import HeavyPlans, heavy_score_pieces, stacked_scores


@dataclass(frozen=True)
class GroupRows(SizedByArrays):
    """Rows of one block's piece of a bucket, each row's group key as an integer code.

    ``keys`` holds the piece's distinct keys (canonical, one row each) and
    ``codes[i]`` is the row of ``keys`` that row ``i`` belongs to: the keys
    are hashed, shipped and matched once per distinct key, not per row.
    ``codes`` None: one key per row, row ``i``'s is ``keys`` row ``i`` (numeric
    keys, which cost less to ship than codes would).
    """

    keys: pd.DataFrame
    codes: np.ndarray | None
    label: np.ndarray
    score: np.ndarray  # 2-D with several score columns: a column per model
    weight: np.ndarray | None = None
    gauc_weight: np.ndarray | None = None
    #: with several score columns, the dtype each had before they were stacked (a
    #: column is computed in it, as alone: float32 probabilities' log loss in float32)
    score_dtypes: tuple[np.dtype, ...] = ()

    def score_column(self, i: int) -> np.ndarray:
        """Score column ``i`` in its own dtype (the stack holds every value exactly)."""
        if self.score.ndim == 1:
            return self.score
        return self.score[:, i].astype(self.score_dtypes[i], copy=False)

    @property
    def row_keys(self) -> pd.DataFrame:
        """Every row's key (for inspection; the kernels use the codes)."""
        if self.codes is None:
            return self.keys.reset_index(drop=True)
        return self.keys.take(self.codes).reset_index(drop=True)


def split_group_block(
    frame: pd.DataFrame,
    spec: GroupSpec,
    n_buckets: int,
    heavy: HeavyPlan | HeavyPlans | None = None,
) -> tuple[GroupBlockInfo, list[GroupRows], list[HeavyPiece]]:
    """Validate one block and cut it into one piece per bucket by the hash of its keys.

    Rows whose key has a missing value (NaN, None, NA) in any ``by`` column are
    dropped, as ``pandas.DataFrame.groupby`` does with ``dropna=True``; the
    other keys are put in the representation of their values
    (:func:`~dask_auc._kernels.core.group_keys.canonical_key_column`), so that a key
    hashes, and later groups, by value whatever dtype this block gives its column.
    Rows of the groups ``heavy`` cuts over slots go to those instead
    (:func:`~dask_auc._kernels.groups.heavy_groups.heavy_pieces`).

    Returns
    -------
    info : GroupBlockInfo
        The block's distinct labels (checked binary over all blocks by the
        plan), its rows and how many of them were dropped for a missing key.
    pieces : list of GroupRows
        ``n_buckets`` pieces; piece ``b`` holds the rows whose key hash maps to
        ``b`` (:func:`bucket_of`).
    slots : list of HeavyPiece
        ``heavy.n_slots`` pieces (none without ``heavy``).

    Examples
    --------
    >>> frame = pd.DataFrame({"user": ["a", "b", "a"], "y": [0, 1, 1], "s": [0.2, 0.4, 0.9]})
    >>> info, pieces, slots = split_group_block(frame, GroupSpec(("user",), "y", "s"), 2)
    >>> info.classes, sum(len(p.score) for p in pieces), slots
    ((0, 1), 3, [])
    """
    label = to_numpy(frame[spec.label])
    classes = distinct_labels(label)
    columns = [as_score_array(frame[name]) for name in spec.scores]
    score = columns[0] if len(columns) == 1 else stacked_scores(columns, spec.scores)
    dtypes = tuple(c.dtype for c in columns) if len(columns) > 1 else ()
    # an empty partition's dtype does not vote (often float64 beside float16 ones)
    clips = [clip_eps(frame[name].dtype) if len(frame) else np.inf for name in spec.scores]
    eps = min(clips)
    weight = None
    if spec.sample_weight is not None:
        weight = as_weight_array(frame[spec.sample_weight])
    gauc_weight = None
    if spec.gauc_column is not None:
        gauc_weight = as_gauc_weight_array(frame[spec.gauc_column], spec.gauc_column)
    keys = frame[list(spec.by)].reset_index(drop=True)
    present = present_keys(keys)
    if not present.all():
        keys = keys[present].reset_index(drop=True)
        label, score = label[present], _rows(score, present)
        weight = None if weight is None else weight[present]
        gauc_weight = None if gauc_weight is None else gauc_weight[present]
        columns = [c[present] for c in columns]
    # each column's range and clip, for its own checks and log loss: read from the
    # columns as they came (contiguous), not from the stack's strided columns
    ranges = [
        (float(c.min()), float(c.max()), e) if len(c) else (np.inf, -np.inf, e)
        for c, e in zip(columns, clips, strict=True)
    ]
    del columns
    low, high = min(r[0] for r in ranges), max(r[1] for r in ranges)
    per_score = tuple(ranges) if spec.more_scores else ()
    keys = canonical_keys(keys)
    # numbers (and bools) hash and travel cheaply: one key per row, as they are;
    # strings and objects are matched once per distinct key of the block
    per_row = all(keys[name].dtype.kind in NUMBER_KINDS for name in spec.by)
    codes = None
    if not per_row:
        codes, distinct = group_codes(keys, spec.by)
        keys = key_table(distinct, spec.by)
    hashes = key_hash(keys) if n_buckets > 1 or (heavy is not None and heavy.n_groups) else None
    slots: list[HeavyPiece] = []
    heavy_info = None
    key_group = None  # each key's heavy group, -1 for ordinary ones; None: no heavy key here
    if heavy is not None and heavy.n_groups:
        assert hashes is not None
        # every score column's plan holds the same heavy groups
        key_group = heavy_group_of(
            keys, hashes, heavy.plans[0] if isinstance(heavy, HeavyPlans) else heavy
        )
        row_group = key_group if codes is None else key_group[codes]
        slots, heavy_info = heavy_score_pieces(
            score,
            heavy,
            lambda column, one: heavy_pieces(
                row_group, classes, label, column, weight, gauc_weight, one
            ),
        )
        del row_group
        if (key_group < 0).all():
            key_group = None
    elif heavy is not None:
        slots = [NO_PIECE] * heavy.n_slots
    info = GroupBlockInfo(
        classes,
        len(present),
        int(len(present) - present.sum()),
        low,
        high,
        heavy_info,
        eps,
        per_score,
    )
    if n_buckets == 1 and key_group is None:
        return info, [GroupRows(keys, codes, label, score, weight, gauc_weight, dtypes)], slots
    assert hashes is not None
    key_bucket = bucket_of(hashes, n_buckets)
    if n_buckets < 1 << 16:
        key_bucket = key_bucket.astype(np.uint16)  # NumPy's stable sort of 16-bit ints: radix
    if key_group is not None:
        # the heavy groups' keys (and rows) sort after every bucket's and are left out:
        # no copy of the block without them
        key_bucket[key_group >= 0] = n_buckets
    n_sorted = n_buckets + (key_group is not None)
    # unweighted, one numeric key column: one counting sort (keys of strings or of several
    # columns are hashed per distinct key, and the string work dominates: measured no faster)
    counted = weight is None and gauc_weight is None and spec.compiled
    if counted and codes is None and len(keys.columns) == 1 and _numpy_dtypes(keys):
        key = keys.iloc[:, 0].to_numpy()
        found = bucketed_columns(key_bucket, n_buckets, label, score, key)
        if found is not None:  # the rows are the keys: one counting sort, the same pieces
            label, score, key, cuts = found
            key_pieces = _sliced(pd.DataFrame({keys.columns[0]: key}, copy=False), cuts)
            return info, _pieces(key_pieces, None, label, score, None, None, dtypes, cuts), slots
    key_order = np.argsort(key_bucket, kind="stable")
    key_cuts = _cuts(key_bucket, n_sorted)
    if codes is None:  # the rows are the keys: a piece's rows are its keys, in order
        order, cuts = key_order, key_cuts
    else:
        # each key's code within its bucket's piece: its place among that bucket's keys
        piece_code = np.empty(len(key_order), np.int64)
        piece_code[key_order] = np.arange(len(key_order)) - np.repeat(
            key_cuts[:-1], np.diff(key_cuts)
        )
        row_bucket = key_bucket[codes]
        order = np.argsort(row_bucket, kind="stable")
        cuts = _cuts(row_bucket, n_sorted)
        codes = piece_code[codes[order[: cuts[n_buckets]]]]
    order = order[: cuts[n_buckets]]
    # every column gathered once in bucket order; the pieces are slices of it
    label, score = label[order], _rows(score, order)
    weight = None if weight is None else weight[order]
    gauc_weight = None if gauc_weight is None else gauc_weight[order]
    key_pieces = _key_pieces(keys, key_order[: key_cuts[n_buckets]], key_cuts[: n_buckets + 1])
    pieces = _pieces(key_pieces, codes, label, score, weight, gauc_weight, dtypes, cuts)
    return info, pieces, slots


def _pieces(
    key_pieces: list[pd.DataFrame],
    codes: np.ndarray | None,
    label: np.ndarray,
    score: np.ndarray,
    weight: np.ndarray | None,
    gauc_weight: np.ndarray | None,
    dtypes: tuple[np.dtype, ...],
    cuts: np.ndarray,
) -> list[GroupRows]:
    """One :class:`GroupRows` a bucket: slices of the columns in bucket order at ``cuts``."""
    pieces = []
    for b, keys in enumerate(key_pieces):
        rows = slice(cuts[b], cuts[b + 1])
        pieces.append(
            GroupRows(
                keys,
                None if codes is None else codes[rows],
                label[rows],
                score[rows],
                None if weight is None else weight[rows],
                None if gauc_weight is None else gauc_weight[rows],
                dtypes,
            )
        )
    return pieces


def _rows(score: np.ndarray, taken: np.ndarray) -> np.ndarray:
    """The rows ``taken`` (positions or a mask) of one score column or of a 2-D stack.

    A stack's rows are gathered whole by ``np.take``/``np.compress`` (each row's
    values in one cache line), several times faster than fancy indexing.
    """
    if score.ndim == 1:
        return score[taken]
    if taken.dtype == bool:
        return np.compress(taken, score, axis=0)
    return np.take(score, taken, axis=0)


def bucket_of(hashes: np.ndarray, n_buckets: int) -> np.ndarray:
    """The bucket of each uint64 hash: its top 32 bits scaled to ``range(n_buckets)``.

    A multiply and two shifts (Lemire's "fast range"), not a 64-bit division.

    Examples
    --------
    >>> bucket_of(np.array([0, 2**63, 2**64 - 1], dtype=np.uint64), 4).tolist()
    [0, 2, 3]
    """
    return ((hashes >> np.uint64(32)) * np.uint64(n_buckets)) >> np.uint64(32)


def _cuts(bucket: np.ndarray, n_buckets: int) -> np.ndarray:
    """Where each bucket starts among rows sorted by ``bucket`` (and where the last ends)."""
    cuts = np.zeros(n_buckets + 1, np.int64)
    np.cumsum(np.bincount(bucket, minlength=n_buckets), out=cuts[1:])
    return cuts


def _numpy_dtypes(keys: pd.DataFrame) -> bool:
    """Whether every key column has a NumPy dtype (not an extension type's)."""
    return all(isinstance(dtype, np.dtype) for dtype in keys.dtypes)


def _key_pieces(keys: pd.DataFrame, order: np.ndarray, cuts: np.ndarray) -> list[pd.DataFrame]:
    """The rows ``order[cuts[b]:cuts[b + 1]]`` of ``keys``, one table per bucket ``b``.

    One ``take`` of every row, then a positional slice (a view) per bucket: a
    table built or taken per bucket costs more than its rows for small pieces.
    """
    if _numpy_dtypes(keys):  # NumPy columns: gathered
        columns = {name: keys[name].to_numpy()[order] for name in keys.columns}
        ordered = pd.DataFrame(columns, columns=keys.columns, copy=False)
    else:
        ordered = keys.take(order)
    return _sliced(ordered, cuts)


def _sliced(ordered: pd.DataFrame, cuts: np.ndarray) -> list[pd.DataFrame]:
    """Rows ``cuts[b]:cuts[b + 1]`` of a table in bucket order, one slice (a view) per bucket."""
    return [ordered.iloc[cuts[b] : cuts[b + 1]] for b in range(len(cuts) - 1)]


def split_group_blocks(
    partitions: Sequence[pd.DataFrame],
    spec: GroupSpec,
    n_buckets: int,
    heavy: HeavyPlan | HeavyPlans | None = None,
) -> tuple[GroupBlockInfo, list[GroupRows], list[HeavyPiece]]:
    """:func:`split_group_block` of consecutive partitions taken as one block.

    Joined by ``pandas.concat`` when their non-empty partitions agree on
    every column's dtype; otherwise (an int64 key here, float64 there, which
    ``concat`` would round to one float) each is split on its own and the
    pieces of a bucket are stacked, their keys joined exactly.

    Examples
    --------
    >>> parts = [pd.DataFrame({"user": [1, 2], "y": [0, 1], "s": [0.2, 0.4]}),
    ...          pd.DataFrame({"user": [2.5], "y": [1], "s": [0.9]})]
    >>> info, pieces, _ = split_group_blocks(parts, GroupSpec(("user",), "y", "s"), 1)
    >>> info.rows, pieces[0].row_keys["user"].tolist()
    (3, [1.0, 2.0, 2.5])
    """
    present = joined_partitions(partitions)
    if len(present) == 1:
        return split_group_block(present[0], spec, n_buckets, heavy)
    splits = [split_group_block(p, spec, n_buckets, heavy) for p in present]
    infos = [info for info, _, _ in splits]
    heavy_infos = [info.heavy for info in infos if info.heavy is not None]
    info = GroupBlockInfo(
        sorted_labels(info.classes for info in infos),
        sum(info.rows for info in infos),
        sum(info.missing_keys for info in infos),
        min(info.low for info in infos),
        max(info.high for info in infos),
        joined_infos(heavy_infos) if heavy_infos else None,
        min(info.eps for info in infos),
        joined_ranges([info.per_score for info in infos]),
    )
    pieces = [concat_rows(tuple(pieces[b] for _, pieces, _ in splits)) for b in range(n_buckets)]
    n_slots = 0 if heavy is None else heavy.n_slots
    slots = [joined_pieces([slots[s] for _, _, slots in splits]) for s in range(n_slots)]
    return info, pieces, slots


def split_score_blocks(
    partitions: Sequence[pd.DataFrame],
    spec: GroupSpec,
    n_buckets: int,
    heavy: HeavyPlans | None = None,
) -> tuple[Any, ...]:
    """:func:`split_group_blocks` of several score columns: ``(info, pieces, *slots)``.

    The pieces carry every column (a 2-D ``score``); ``slots`` is one list
    per column, its heavy groups cut by that column's splitters.

    Examples
    --------
    >>> part = pd.DataFrame({"user": [1, 2], "y": [0, 1], "a": [0.2, 0.4], "b": [0.9, 0.1]})
    >>> spec = GroupSpec(("user",), "y", "a", more_scores=("b",))
    >>> info, pieces, *slots = split_score_blocks([part], spec, 1)
    >>> pieces[0].score.tolist(), [r[:2] for r in info.per_score], slots
    ([[0.2, 0.9], [0.4, 0.1]], [(0.2, 0.4), (0.1, 0.9)], [[], []])
    """
    info, pieces, slots = split_group_blocks(partitions, spec, n_buckets, heavy)
    each = 0 if heavy is None else heavy.plans[0].n_slots
    return (info, pieces, *(slots[i * each : (i + 1) * each] for i in range(len(spec.scores))))


def joined_partitions(partitions: Sequence[pd.DataFrame]) -> list[pd.DataFrame]:
    """A block's non-empty partitions (or its first), joined into one if their dtypes agree.

    The block task joins them once (:func:`~dask_auc._engine.hashed_blocks`'s
    ``join``), so that every pass over the block -- the heavy groups' sample,
    the split -- reads one frame.  Partitions whose columns differ in dtype
    (int64 keys here, float64 there, which ``concat`` would round to one
    float) stay apart.

    Examples
    --------
    >>> parts = [pd.DataFrame({"k": [1]}), pd.DataFrame({"k": [2]}), pd.DataFrame({"k": [0.5]})]
    >>> [len(p) for p in joined_partitions(parts[:2])], len(joined_partitions(parts))
    ([2], 3)
    """
    present = [p for p in partitions if len(p)] or list(partitions[:1])
    if len(present) > 1 and len({tuple(p.dtypes) for p in present}) == 1:
        return [pd.concat(present, ignore_index=True)]
    return present


def as_gauc_weight_array(values: Any, name: str) -> np.ndarray:
    """A ``gauc_weight`` column as float64, finite and non-negative."""
    weights = to_numpy(values)
    if weights.dtype.kind not in "biuf":
        raise TypeError(f"gauc_weight column {name!r} must be numeric, got dtype {weights.dtype}")
    weights = weights.astype(np.float64, copy=False)
    _check_finite(weights, f"gauc_weight column {name!r}")
    if (weights < 0).any():
        raise ValueError(f"Negative values in the gauc_weight column {name!r}")
    return weights


def concat_rows(pieces: tuple[GroupRows, ...]) -> GroupRows:
    """One bucket's pieces as one: key tables stacked, each piece's codes shifted to match."""

    def join(values: list[np.ndarray | None]) -> np.ndarray | None:
        return None if values[0] is None else np.concatenate(values)  # type: ignore[arg-type]

    names = pieces[0].keys.columns
    columns = {name: concat_key_columns([p.keys[name] for p in pieces]) for name in names}
    keys = pd.DataFrame(columns, columns=names, copy=False)
    codes = None
    if any(p.codes is not None for p in pieces):
        offsets = np.cumsum([0] + [len(p.keys) for p in pieces[:-1]])
        codes = np.concatenate(
            [
                (np.arange(len(p.label)) if p.codes is None else p.codes) + offset
                for p, offset in zip(pieces, offsets, strict=True)
            ]
        )
    return GroupRows(
        keys,
        codes,
        np.concatenate([p.label for p in pieces]),
        np.concatenate([p.score for p in pieces]),
        join([p.weight for p in pieces]),
        join([p.gauc_weight for p in pieces]),
        tuple(
            np.result_type(*column)
            for column in zip(*(p.score_dtypes for p in pieces), strict=True)
        ),
    )
