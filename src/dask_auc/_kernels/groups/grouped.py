"""Chunk kernels of the grouped AUC: hash rows to buckets, then every group's AUC at once.

The grouped AUC never sorts globally.  Rows are routed by a hash of their
group key, so that every row of a group lands in the same bucket whatever the
input partition it came from; each bucket then computes the exact AUC of all
of its groups in one vectorized pass:

1. :func:`split_group_block` validates one input block (labels, scores,
   weights), drops the rows whose key is missing, puts every key column in
   the one representation of its values (:func:`canonical_key_column`: the
   blocks of one frame may carry int64 here and float64 there), hashes the
   keys by value (:func:`key_hash`) and cuts the rows into one
   :class:`GroupRows` piece per bucket.  Each row carries an integer code into
   its piece's key table: string and object keys are factorized once per
   block, so each distinct key is hashed, shipped and matched once; numeric
   keys, cheap to hash and ship, stay one per row.
2. :func:`plan_groups` picks the positive class from every block's classes
   (scikit-learn's rule for the whole frame: two classes, the greater one is
   positive).
3. :func:`bucket_table` concatenates one bucket's key tables in a dtype that
   holds every key exactly (:func:`concat_key_columns`), numbers its groups
   (``pandas.factorize`` of the keys, the rows follow through their codes)
   and reduces them with :func:`group_pair_sums`;
   :func:`concat_group_tables` joins the buckets' tables the same way.

:func:`group_pair_sums` is the heart, pure NumPy with no loop over groups:
a stable radix sort by (group, dense score rank) (:func:`radix_order`:
tied rows are summed in their own order on every CPU); runs of equal (group, score) are the tie
groups; ``np.add.reduceat`` gives each run's positive and negative totals, an
exclusive prefix sum restarted at every group start gives the negatives
ranked below each run, and a run contributes ``pos * (2 * below + neg)`` to
its group's twice-area (a tie counts one half).  Unweighted, everything is an
int64 count and the AUC is one correctly rounded division.  Weighted, the
prefix sum is compensated (:func:`compensated_cumsum`) so that a small group
late in a big bucket does not lose digits to the bucket's running total.
Extreme weights (beyond ``2**±256``, or groups whose weights differ by more
than ``2**32``) are first scaled per group and class by a power of two
(:func:`class_exponents`), which changes no AUC: no product of two weights
overflows or underflows, and no group is far lighter than the ones before it.

pandas is used for the keys (hashing, factorizing, the result's index); the
arithmetic is NumPy.  Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..core.calibration import EPS64, GROUP_SUM_COLUMNS, clip_eps, group_calibration_sums
from ..core.footprint import SizedByArrays
from ..core.group_keys import (
    NUMBER_KINDS,
    canonical_keys,
    concat_key_columns,
    key_hash,
    present_keys,
)
from ..core.validation import (
    BinaryTarget,
    _check_finite,
    as_score_array,
    as_weight_array,
    distinct_labels,
    sorted_labels,
    to_numpy,
    union_of_classes,
)
from ..sort import compiled as _compiled
from .heavy_groups import (
    NO_PIECE,
    HeavyBlockInfo,
    HeavyPiece,
    HeavyPlan,
    HeavySlot,
    heavy_group_of,
    heavy_pieces,
    joined_infos,
    joined_pieces,
    merge_group_slots,
    summarize_slot,
)

#: the exact-integer range of float64: counts below it divide with one rounding
_EXACT_FLOAT = 2**53
#: name of the per-group sum of a ``gauc_weight`` column in bucket tables
GAUC_WEIGHT_COLUMN = "_gauc_weight"
#: weights whose largest per group and class lies in ``[2**-256, 2**256]`` are
#: used as they are: a pair product stays in [2**-1024, 2**1024] times the row counts
SAFE_EXPONENT = 256
#: ... and whose groups' largest negative weights are within 2**32 of each other:
#: the negatives' running sum crosses group borders, and a group 2**56 times lighter
#: than 2e6 rows before it loses 3e-10 of its AUC (2**32: 1e-16)
SPREAD_EXPONENT = 32
#: the function a target of more than two classes is told it does not fit
_TARGET = BinaryTarget("grouped_roc_auc_score")


@dataclass(frozen=True)
class GroupSpec:
    """Which columns of the frame play which part."""

    by: tuple[str, ...]
    label: str
    score: str
    sample_weight: str | None = None
    gauc_column: str | None = None
    #: calibration metrics to add per group (``score`` is then a probability)
    metrics: tuple[str, ...] = ()
    #: the ``dask-auc.numba`` setting where the graph was built: compiled loops allowed
    compiled: bool = True

    @property
    def columns(self) -> list[str]:
        """Every column the computation reads, each once, keys first."""
        names = [*self.by, self.label, self.score, self.sample_weight, self.gauc_column]
        return list(dict.fromkeys(n for n in names if n is not None))


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
    score: np.ndarray
    weight: np.ndarray | None = None
    gauc_weight: np.ndarray | None = None

    @property
    def row_keys(self) -> pd.DataFrame:
        """Every row's key (for inspection; the kernels use the codes)."""
        if self.codes is None:
            return self.keys.reset_index(drop=True)
        return self.keys.take(self.codes).reset_index(drop=True)


@dataclass(frozen=True)
class GroupBlockInfo(SizedByArrays):
    """What the plan needs to know of one block."""

    classes: tuple[Any, ...]  # the block's distinct labels, all rows'
    rows: int = 0
    missing_keys: int = 0  # rows left out: a key column holds a missing value
    low: float = np.inf  # the smallest and largest score (the probability range check)
    high: float = -np.inf
    heavy: HeavyBlockInfo | None = None  # its rows of heavy groups, when some are cut
    #: the log loss's clip of the block's probabilities: its score dtype's (float16's,
    #: float32's, else float64's), read before the scores are widened; inf: no rows
    eps: float = EPS64


@dataclass(frozen=True)
class GroupPlan(SizedByArrays):
    """The global decision made from all blocks: which label is the positive class.

    Also the rows of the frame, and how many of them had a missing key (so
    that the caller can say it left them out).
    """

    classes: tuple[Any, ...]
    rows: int = 0
    missing_keys: int = 0
    low: float = np.inf
    high: float = -np.inf
    #: per heavy group (cut over slots), row 0 its negatives and row 1 its positives:
    #: rows of nonzero weight, and the power of two its weights are scaled by (None: 1)
    heavy_counts: np.ndarray | None = None
    heavy_exponents: np.ndarray | None = None
    heavy_gauc_weight: np.ndarray | None = None  # the sum of its gauc_weight column
    #: the log loss's clip: the smallest of the blocks' (their dtypes joined, as
    #: scikit-learn would see the whole column)
    eps: float = EPS64

    @property
    def positive_label(self) -> Any:
        """The greater of two classes; a lone class is positive only if it is 1 (or True).

        The lone-class rule is ``sklearn.metrics.roc_curve``'s default
        ``pos_label=1``: an all-zero frame is all negatives.
        """
        if len(self.classes) == 2:
            return self.classes[1]
        if len(self.classes) == 1 and _is_one(self.classes[0]):
            return self.classes[0]
        return _NO_POSITIVE


class _NoPositive:
    """Compares unequal to every label."""

    def __repr__(self) -> str:
        return "<no positive class>"


_NO_POSITIVE = _NoPositive()


def _is_one(value: Any) -> bool:
    try:
        return bool(value == 1) and not isinstance(value, str)
    except (TypeError, ValueError):
        return False


@dataclass(frozen=True)
class GroupSums(SizedByArrays):
    """Per-group totals of one bucket, indexed by group code.

    When :func:`class_exponents` scaled extreme weights, the weighted totals
    are of the scaled weights: the true totals are ``pos * 2**pos_exponent``
    and ``neg * 2**neg_exponent`` (:meth:`totals`).
    """

    pos: np.ndarray  # positive count (int64) or weight (float64)
    neg: np.ndarray
    twice_area: np.ndarray  # 2 * (pairs pos > neg) + (pairs pos == neg), weighted if weights
    pos_exponent: np.ndarray | None = None  # int per group; None: not scaled
    neg_exponent: np.ndarray | None = None

    def auc(self) -> np.ndarray:
        """``twice_area / (2 pos neg)``, NaN where a class is missing; exact if unweighted.

        A scale of the positives' (or the negatives') weights cancels out.
        """
        return exact_ratio(self.twice_area, 2 * self.pos * self.neg)

    def totals(self) -> tuple[np.ndarray, np.ndarray]:
        """The positive and negative totals of every group, unscaled."""
        if self.pos_exponent is None or self.neg_exponent is None:
            return self.pos, self.neg
        # exact: a power of two, unless the true total overflows (inf) or is subnormal
        return np.ldexp(self.pos, self.pos_exponent), np.ldexp(self.neg, self.neg_exponent)


def split_group_block(
    frame: pd.DataFrame, spec: GroupSpec, n_buckets: int, heavy: HeavyPlan | None = None
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
    score = as_score_array(frame[spec.score])
    # an empty partition's dtype does not vote (often float64 beside float16 ones)
    eps = clip_eps(frame[spec.score].dtype) if len(frame) else np.inf
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
        label, score = label[present], score[present]
        weight = None if weight is None else weight[present]
        gauc_weight = None if gauc_weight is None else gauc_weight[present]
    low, high = (float(score.min()), float(score.max())) if len(score) else (np.inf, -np.inf)
    keys = canonical_keys(keys)
    # numbers (and bools) hash and travel cheaply: one key per row, as they are;
    # strings and objects are matched once per distinct key of the block
    per_row = all(keys[name].dtype.kind in NUMBER_KINDS for name in spec.by)
    codes = None
    if not per_row:
        codes, distinct = _group_codes(keys, spec.by)
        keys = _key_table(distinct, spec.by)
    hashes = key_hash(keys) if n_buckets > 1 or (heavy is not None and heavy.n_groups) else None
    slots: list[HeavyPiece] = []
    heavy_info = None
    key_group = None  # each key's heavy group, -1 for ordinary ones; None: no heavy key here
    if heavy is not None and heavy.n_groups:
        assert hashes is not None
        key_group = heavy_group_of(keys, hashes, heavy)
        row_group = key_group if codes is None else key_group[codes]
        slots, heavy_info = heavy_pieces(
            row_group, classes, label, score, weight, gauc_weight, heavy
        )
        del row_group
        if (key_group < 0).all():
            key_group = None
    elif heavy is not None:
        slots = [NO_PIECE] * heavy.n_slots
    info = GroupBlockInfo(
        classes, len(present), int(len(present) - present.sum()), low, high, heavy_info, eps
    )
    if n_buckets == 1 and key_group is None:
        return info, [GroupRows(keys, codes, label, score, weight, gauc_weight)], slots
    assert hashes is not None
    key_bucket = bucket_of(hashes, n_buckets)
    if n_buckets < 1 << 16:
        key_bucket = key_bucket.astype(np.uint16)  # NumPy's stable sort of 16-bit ints: radix
    if key_group is not None:
        # the heavy groups' keys (and rows) sort after every bucket's and are left out:
        # no copy of the block without them
        key_bucket[key_group >= 0] = n_buckets
    n_sorted = n_buckets + (key_group is not None)
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
    label, score = label[order], score[order]
    weight = None if weight is None else weight[order]
    gauc_weight = None if gauc_weight is None else gauc_weight[order]
    key_pieces = _key_pieces(keys, key_order[: key_cuts[n_buckets]], key_cuts[: n_buckets + 1])
    pieces = []
    for b in range(n_buckets):
        rows = slice(cuts[b], cuts[b + 1])
        pieces.append(
            GroupRows(
                key_pieces[b],
                None if codes is None else codes[rows],
                label[rows],
                score[rows],
                None if weight is None else weight[rows],
                None if gauc_weight is None else gauc_weight[rows],
            )
        )
    return info, pieces, slots


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


def _key_pieces(keys: pd.DataFrame, order: np.ndarray, cuts: np.ndarray) -> list[pd.DataFrame]:
    """The rows ``order[cuts[b]:cuts[b + 1]]`` of ``keys``, one table per bucket ``b``.

    One ``take`` of every row, then a positional slice (a view) per bucket: a
    table built or taken per bucket costs more than its rows for small pieces.
    """
    if all(isinstance(dtype, np.dtype) for dtype in keys.dtypes):  # NumPy columns: gathered
        columns = {name: keys[name].to_numpy()[order] for name in keys.columns}
        ordered = pd.DataFrame(columns, columns=keys.columns, copy=False)
    else:
        ordered = keys.take(order)
    return [ordered.iloc[cuts[b] : cuts[b + 1]] for b in range(len(cuts) - 1)]


def _key_table(distinct: pd.Index, by: tuple[str, ...]) -> pd.DataFrame:
    """The distinct keys of :func:`_group_codes` as a DataFrame, one column per ``by``."""
    columns = {name: distinct.get_level_values(i) for i, name in enumerate(by)}
    return pd.DataFrame(
        {name: pd.Series(v, copy=False) for name, v in columns.items()}, columns=list(by)
    )


def split_group_blocks(
    partitions: Sequence[pd.DataFrame],
    spec: GroupSpec,
    n_buckets: int,
    heavy: HeavyPlan | None = None,
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
    )
    pieces = [_concat(tuple(pieces[b] for _, pieces, _ in splits)) for b in range(n_buckets)]
    n_slots = 0 if heavy is None else heavy.n_slots
    slots = [joined_pieces([slots[s] for _, _, slots in splits]) for s in range(n_slots)]
    return info, pieces, slots


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


def concat_group_tables(tables: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The bucket tables as one, sorted by an index holding every key exactly.

    Bucket tables may disagree on the key dtype (one bucket's keys all
    integers, another's holding 0.5); ``pandas.concat`` would round their
    union to float64, merging 2**53 + 1 into 2**53.  Each index level is
    joined by :func:`concat_key_columns` instead.
    """
    first = tables[0].index
    levels = [
        concat_key_columns([t.index.get_level_values(level) for t in tables])
        for level in range(first.nlevels)
    ]
    columns = tables[0].columns
    if first.nlevels == 1 and _numeric(levels[0]) and all(_numeric(tables[0][c]) for c in columns):
        # the common case, without pandas' concat and sort_index: the keys are distinct
        # (a group is whole in its bucket), so their one ascending order is the index's
        keys = levels[0].to_numpy()
        order = _ascending_order(keys)
        body = {c: np.concatenate([t[c].to_numpy() for t in tables])[order] for c in columns}
        index = pd.Index(keys[order], name=first.name)
        return pd.DataFrame(body, index=index, columns=columns, copy=False)
    body = pd.concat([t.reset_index(drop=True) for t in tables], ignore_index=True)
    if first.nlevels == 1:
        body.index = pd.Index(levels[0], name=first.name)
    else:
        body.index = pd.MultiIndex.from_arrays(levels, names=first.names)
    return body.sort_index()


def _ascending_order(keys: np.ndarray) -> np.ndarray:
    """The ascending order of distinct numeric keys (radix passes for integers of narrow range)."""
    if keys.dtype.kind not in "iu" or not len(keys):
        return np.argsort(keys, kind="stable")
    wide = keys.astype(np.uint64, copy=False) if keys.dtype.kind == "u" else keys.view(np.uint64)
    offset = wide - wide[np.argmin(keys)]  # modulo 2**64: each key's distance above the least
    return radix_order(offset, int(offset.max()) + 1)


def _numeric(values: Any) -> bool:
    """Whether a column or index holds NumPy numbers (not an extension or object dtype)."""
    return isinstance(values.dtype, np.dtype) and values.dtype.kind in NUMBER_KINDS


def plan_groups(infos: Sequence[GroupBlockInfo]) -> GroupPlan:
    """The classes of the whole frame (at most two), its rows and those without a key.

    With heavy groups (cut over slots), also their rows per class and the
    powers of two that tame their extreme weights, from every block's info.
    """
    rows = sum(info.rows for info in infos)
    classes = union_of_classes([info.classes for info in infos], _TARGET, rows)
    missing = sum(info.missing_keys for info in infos)
    low = min((info.low for info in infos), default=np.inf)
    high = max((info.high for info in infos), default=-np.inf)
    eps = min((info.eps for info in infos), default=np.inf)
    plan = GroupPlan(classes, rows, missing, low, high, eps=eps if eps < 1 else EPS64)
    heavy = [info.heavy for info in infos if info.heavy is not None]
    return _with_heavy_groups(plan, heavy) if heavy else plan


def _with_heavy_groups(plan: GroupPlan, infos: list[HeavyBlockInfo]) -> GroupPlan:
    n_groups = infos[0].counted.shape[0]
    counts = np.zeros((2, n_groups), np.int64)
    largest = np.zeros((2, n_groups))
    gauc = None if infos[0].gauc_weight is None else np.zeros(n_groups)
    for info in infos:
        for j, value in enumerate(info.labels):
            positive = int(bool(value == plan.positive_label))
            counts[positive] += info.counted[:, j]
            if info.max_weight is not None:
                np.maximum(largest[positive], info.max_weight[:, j], out=largest[positive])
        if gauc is not None and info.gauc_weight is not None:
            gauc += info.gauc_weight  # in block order: the same sum every time
    exponents = None
    if not (_ordinary(largest[0], spread=False) and _ordinary(largest[1], spread=False)):
        exponents = np.frexp(largest)[1]  # as class_exponents scales an ordinary group's
    return replace(plan, heavy_counts=counts, heavy_exponents=exponents, heavy_gauc_weight=gauc)


def slot_summary(plan: GroupPlan, spec: GroupSpec, *pieces: HeavyPiece) -> HeavySlot:
    """One slot of a heavy group, summarized (its pieces from every block)."""
    return summarize_slot(
        pieces,
        plan.positive_label,
        plan.heavy_exponents,
        calibration=bool(spec.metrics),
        compiled=spec.compiled,
        eps=plan.eps,
    )


def heavy_group_table(
    plan: GroupPlan, heavy: HeavyPlan, spec: GroupSpec, slots: Sequence[HeavySlot]
) -> pd.DataFrame | None:
    """The heavy groups' table, with :func:`bucket_table`'s columns; None if no group is heavy.

    Each group's slots are merged in score order
    (:func:`~dask_auc._kernels.groups.heavy_groups.merge_group_slots`); unweighted,
    its counts and area are Python ints and its AUC one correctly rounded
    division, the same bits as :func:`bucket_table` gives a whole group.
    """
    if not heavy.n_groups:
        return None
    summaries = merge_group_slots(slots, heavy)
    counts = plan.heavy_counts
    if counts is None:
        counts = np.zeros((2, heavy.n_groups), np.int64)
    table: dict[str, np.ndarray] = {
        "auc": np.array([summary.auc() for summary in summaries], dtype=np.float64),
        "n_pos": counts[1].astype(np.int64),
        "n_neg": counts[0].astype(np.int64),
    }
    if spec.sample_weight is not None:
        pos = np.array([float(summary.pos) for summary in summaries])
        neg = np.array([float(summary.neg) for summary in summaries])
        if plan.heavy_exponents is not None:  # exact: powers of two
            pos = np.ldexp(pos, plan.heavy_exponents[1])
            neg = np.ldexp(neg, plan.heavy_exponents[0])
        table["weight_pos"], table["weight_neg"] = pos, neg
    if spec.metrics:
        for name in GROUP_SUM_COLUMNS:
            sums = np.zeros(heavy.n_groups)
            for slot in slots:  # in slot order, so in score order within a group
                if slot.group >= 0 and slot.calibration is not None:
                    sums[slot.group] += slot.calibration[name][0]
            table[name] = sums
    if spec.gauc_column is not None:
        gauc = plan.heavy_gauc_weight
        table[GAUC_WEIGHT_COLUMN] = np.zeros(heavy.n_groups) if gauc is None else gauc
    if len(spec.by) == 1:
        index = pd.Index(heavy.keys[spec.by[0]], name=spec.by[0])
    else:
        index = pd.MultiIndex.from_frame(heavy.keys)
    return pd.DataFrame(table, index=index, copy=False)


def bucket_table(plan: GroupPlan, spec: GroupSpec, *pieces: GroupRows) -> pd.DataFrame:
    """The per-group table of one bucket (its groups in the order of :func:`_group_codes`).

    Columns: ``auc``, ``n_pos``, ``n_neg`` (rows of nonzero weight), and when
    weighted ``weight_pos``, ``weight_neg``; plus :data:`GAUC_WEIGHT_COLUMN`
    when ``spec.gauc_column`` is set.
    """
    rows = _concat(pieces)
    # the pieces' distinct keys, matched once each: a group sent by several blocks is one
    key_codes, index = _group_codes(rows.keys, spec.by)
    codes = key_codes if rows.codes is None else key_codes[rows.codes]
    n_groups = len(index)
    positive = rows.label == plan.positive_label
    if not isinstance(positive, np.ndarray):  # a comparison NumPy could not broadcast
        positive = np.zeros(len(rows.label), dtype=bool)
    sums = group_pair_sums(
        codes, n_groups, rows.score, positive, rows.weight, compiled=spec.compiled
    )
    table = {"auc": sums.auc()}
    if rows.weight is None:
        table["n_pos"], table["n_neg"] = sums.pos, sums.neg
    else:
        counted = rows.weight != 0
        table["n_pos"] = np.bincount(codes[positive & counted], minlength=n_groups)
        table["n_neg"] = np.bincount(codes[~positive & counted], minlength=n_groups)
        table["weight_pos"], table["weight_neg"] = sums.totals()
    if spec.metrics:
        table.update(
            group_calibration_sums(codes, n_groups, rows.score, positive, rows.weight, plan.eps)
        )
    if rows.gauc_weight is not None:
        table[GAUC_WEIGHT_COLUMN] = np.bincount(codes, weights=rows.gauc_weight, minlength=n_groups)
    for name in ("n_pos", "n_neg"):
        table[name] = table[name].astype(np.int64, copy=False)
    return pd.DataFrame(table, index=index, copy=False)


def _concat(pieces: tuple[GroupRows, ...]) -> GroupRows:
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
    )


def _group_codes(keys: pd.DataFrame, by: tuple[str, ...]) -> tuple[np.ndarray, pd.Index]:
    """Dense group codes (0..G-1) of the rows and the G keys.

    The codes follow the keys' order of appearance, or their ascending order
    for one integer column of narrow span (:func:`_narrow_integer_codes`).

    Several columns are factorized one at a time and their codes combined:
    ``MultiIndex.factorize`` goes through tuples, slow, and re-infers the
    levels from them (an object column of exact ints and floats would be
    turned to float64).
    """
    if len(by) == 1:
        column = keys[by[0]]
        if isinstance(column.dtype, np.dtype) and column.dtype.kind in NUMBER_KINDS:
            column = column.to_numpy()  # the same codes, without the Series machinery
            narrow = _narrow_integer_codes(column)
            if narrow is not None:
                return narrow[0], pd.Index(narrow[1], name=by[0])
        codes, uniques = pd.factorize(column)
        return codes.astype(np.int64, copy=False), pd.Index(uniques, name=by[0])
    combined = np.zeros(len(keys), dtype=np.int64)
    level_codes, levels = [], []
    for name in by:
        codes, uniques = pd.factorize(keys[name])
        level_codes.append(codes)
        levels.append(pd.Index(uniques))
        # re-factorized at each step, the codes stay dense: the product is below len(keys)**2
        combined = pd.factorize(combined * len(uniques) + codes)[0].astype(np.int64, copy=False)
    # factorize numbers groups in order of appearance: a group's first row is the
    # first row (row 0) or one whose code exceeds every code before it
    seen = np.maximum.accumulate(combined)
    first = np.flatnonzero(np.r_[len(combined) > 0, combined[1:] > seen[:-1]])
    index = pd.MultiIndex(
        levels=levels, codes=[c[first] for c in level_codes], names=list(by), verify_integrity=False
    )
    return combined, index


def _narrow_integer_codes(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Dense codes of integer keys spanning at most ``len(keys)`` values, in ascending key order.

    A table with one slot per value of the span marks the keys present; its
    running count is each key's code (several times faster than hashing, in
    memory of one byte and one int64 per row at most).  None for other keys.

    Examples
    --------
    >>> codes, uniques = _narrow_integer_codes(np.array([7, 3, 7, 5, 4]))
    >>> codes.tolist(), uniques.tolist()
    ([3, 0, 3, 2, 1], [3, 4, 5, 7])
    """
    if keys.dtype.kind not in "iu" or not len(keys):
        return None
    low = keys.min()
    if int(keys.max()) - int(low) >= len(keys):
        return None
    offset = (keys - low).astype(np.intp, copy=False)
    present = np.zeros(int(offset.max()) + 1, dtype=bool)
    present[offset] = True
    dense = np.cumsum(present, dtype=np.int64) - 1
    return dense[offset], np.flatnonzero(present).astype(keys.dtype) + low


def group_pair_sums(
    codes: np.ndarray,
    n_groups: int,
    scores: np.ndarray,
    positive: np.ndarray,
    weights: np.ndarray | None = None,
    *,
    compiled: bool = True,
) -> GroupSums:
    """Every group's positive and negative totals and twice its ROC area, in one pass.

    Parameters
    ----------
    codes : int array
        Group code of each row, in ``range(n_groups)``.
    scores : array
        Each row's score.
    positive : bool array
        Whether each row is of the positive class.
    weights : float array, optional
        Row weights; without them every row counts 1 and all sums are exact int64.
        Extreme weights are scaled by a power of two per group and class
        (:func:`class_exponents`) so that no pair product overflows or
        underflows; the sums are then of the scaled weights and carry the
        exponents (:meth:`GroupSums.totals` undoes them).
    compiled : bool, default True
        Unweighted, use the compiled loop where numba is installed
        (:func:`~dask_auc._kernels.sort.compiled.grouped_pair_counts`: a counting
        sort by group and a small sort per group instead of two sorts of the
        bucket); the same exact counts either way.

    Examples
    --------
    >>> codes = np.array([0, 0, 0, 1, 1, 0])
    >>> scores = np.array([0.1, 0.5, 0.5, 0.3, 0.2, 0.9])
    >>> positive = np.array([False, True, False, True, False, True])
    >>> sums = group_pair_sums(codes, 2, scores, positive)
    >>> sums.pos, sums.neg, sums.twice_area, sums.auc()
    (array([2, 1]), array([2, 1]), array([7, 2]), array([0.875, 1.   ]))
    """
    dtype = np.int64 if weights is None else np.float64
    pos_total = np.zeros(n_groups, dtype)
    neg_total, twice_area = np.zeros_like(pos_total), np.zeros_like(pos_total)
    if len(codes) == 0:
        return GroupSums(pos_total, neg_total, twice_area)
    if weights is None and compiled:
        counted = _compiled.grouped_pair_counts(codes, n_groups, scores, positive)
        if counted is not None:
            return GroupSums(*counted)
    exponents = None
    if weights is not None:
        exponents = class_exponents(codes, n_groups, positive, weights)
        if exponents is not None:
            weights = np.ldexp(weights, -exponents[positive.astype(np.intp), codes])
    tie_key, n_scores = _group_score_key(codes, n_groups, scores)
    if weights is None:
        # (group, score rank, class) packed in an int64, sorted by radix passes
        packed = tie_key * 2 + positive
        del tie_key  # freed before the sort's buffers are taken
        packed = packed[radix_order(packed, 2 * n_groups * n_scores)]
        tie_key = packed >> 1
        pos_row = packed & 1
        neg_row = 1 - pos_row
    else:
        # rows of one (group, score) keep their order: their weights are summed in
        # it, the same on every CPU and whatever other groups share the bucket
        order = radix_order(tie_key, n_groups * n_scores)
        tie_key = tie_key[order]
        positive, weights = positive[order], weights[order]
        pos_row = np.where(positive, weights, 0.0)
        neg_row = np.where(positive, 0.0, weights)
    # a run is a tie group: rows of equal (group, score), adjacent after the sort
    new_run = np.empty(len(tie_key), dtype=bool)
    new_run[0] = True
    np.not_equal(tie_key[1:], tie_key[:-1], out=new_run[1:])
    run_start = np.flatnonzero(new_run)
    run_pos = np.add.reduceat(pos_row, run_start)
    run_neg = np.add.reduceat(neg_row, run_start)
    run_group = tie_key[run_start] // n_scores
    group_start = np.flatnonzero(np.diff(run_group, prepend=-1))
    below = _prefix_within_groups(run_neg, group_start)
    run_twice = run_pos * (2 * below + run_neg)
    present = run_group[group_start]
    pos_total[present] = np.add.reduceat(run_pos, group_start)
    neg_total[present] = np.add.reduceat(run_neg, group_start)
    twice_area[present] = np.add.reduceat(run_twice, group_start)
    if exponents is None:
        return GroupSums(pos_total, neg_total, twice_area)
    return GroupSums(pos_total, neg_total, twice_area, exponents[1], exponents[0])


def class_exponents(
    codes: np.ndarray, n_groups: int, positive: np.ndarray, weights: np.ndarray
) -> np.ndarray | None:
    """Per class and group, the power of two that brings the largest weight to [0.5, 1).

    A group's AUC does not change when the weights of one class are all
    multiplied by one number, and a power of two multiplies exactly.  Scaled
    so, a group's pair products and its running sums stay within its row
    count, whatever its weights and those of the groups beside it.  Only
    products below ``2**-1074`` (the smallest float) of two scaled weights,
    each at most 1, are lost: far below the AUC's last digit.

    Returns
    -------
    exponents : int array of shape (2, n_groups), or None
        Row 0 for the negatives, row 1 for the positives (0 where a class has
        no weight).  None for ordinary weights, used as they are, bit for bit
        as without this function: every group's and class's largest weight
        lies in ``[2**-SAFE_EXPONENT, 2**SAFE_EXPONENT]``, and the groups'
        largest negative weights lie within ``2**SPREAD_EXPONENT`` of each
        other (the negatives' running sum, compensated, runs over the whole
        bucket: a group far lighter than those before it would lose digits).

    Examples
    --------
    >>> class_exponents(np.array([0, 0]), 1, np.array([True, False]), np.array([1e160, 3.0]))
    array([[  2],
           [532]], dtype=int32)
    """
    # the whole bucket first, cheap: the largest weights are as tame as all weights are
    if _ordinary(weights):
        return None
    largest = np.zeros((2, n_groups))
    np.maximum.at(largest, (positive.astype(np.intp), codes), weights)
    if _ordinary(largest[0]) and _ordinary(largest[1], spread=False):
        return None
    return np.frexp(largest)[1]


def _ordinary(weights: np.ndarray, spread: bool = True) -> bool:
    """Nonzero weights all in ``2**±SAFE_EXPONENT`` (and within ``2**SPREAD_EXPONENT``)."""
    top = weights.max()
    if top == 0:
        return True
    smallest = np.min(weights, where=weights > 0, initial=top)
    if smallest < np.ldexp(1.0, -SAFE_EXPONENT) or top > np.ldexp(1.0, SAFE_EXPONENT):
        return False
    return not spread or bool(top <= np.ldexp(smallest, SPREAD_EXPONENT))


def _group_score_key(
    codes: np.ndarray, n_groups: int, scores: np.ndarray
) -> tuple[np.ndarray, int]:
    """``code * n_scores + dense rank of the score``: sorting it sorts by (group, score).

    The dense ranks come from ``pandas.factorize(..., sort=True)``: a hash of
    the scores and a sort of the distinct ones only (``-0.0`` and ``0.0`` are
    one score), several times faster than an ``argsort`` of tied scores.
    """
    rank, distinct = pd.factorize(scores, sort=True)
    n_scores = max(1, len(distinct))
    if n_groups * n_scores >= 2**62:  # beyond any bucket that fits in memory
        raise OverflowError(f"{n_groups} groups x {n_scores} distinct scores in one bucket")
    return codes * n_scores + rank, n_scores


#: bits of one pass of :func:`radix_order` (NumPy's stable sort of 16-bit integers is a radix sort)
_RADIX_BITS = 16


def radix_order(keys: np.ndarray, bound: int) -> np.ndarray:
    """The stable ascending order of non-negative int64 (or uint64) ``keys`` below ``bound``.

    A least-significant-digit radix sort: one stable ``argsort`` of 16-bit
    digits per 16 bits of ``bound`` (a key of 30 bits takes two passes, each
    a counting sort in NumPy), rather than a comparison sort of the int64
    keys.  Rows of equal keys keep their order, as with ``kind="stable"``.

    Examples
    --------
    >>> radix_order(np.array([70000, 3, 70000, 1]), 70001).tolist()
    [3, 1, 0, 2]
    """
    passes = max(1, -(-max(1, int(bound - 1).bit_length()) // _RADIX_BITS))
    if passes > 3:  # wide keys: a comparison sort is as fast
        return np.argsort(keys, kind="stable")
    order = np.argsort(keys.astype(np.uint16), kind="stable")  # the low 16 bits
    for shift in range(_RADIX_BITS, passes * _RADIX_BITS, _RADIX_BITS):
        # the digit gathered as 16 bits, not the int64 keys: a quarter of the memory
        digit = (keys >> shift).astype(np.uint16)[order]
        order = order[np.argsort(digit, kind="stable")]
    return order


def _prefix_within_groups(values: np.ndarray, group_start: np.ndarray) -> np.ndarray:
    """Sum of the earlier ``values`` of the same group (exclusive prefix, restarted per group)."""
    before = np.concatenate((values[:0], [0], values[:-1])).astype(values.dtype, copy=False)
    runs_per_group = np.diff(np.append(group_start, len(values)))
    if values.dtype.kind != "f":
        total = np.cumsum(before)
        return total - np.repeat(total[group_start], runs_per_group)
    high, low = compensated_cumsum(before)
    return (high - np.repeat(high[group_start], runs_per_group)) + (
        low - np.repeat(low[group_start], runs_per_group)
    )


def compensated_cumsum(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.cumsum`` plus the running sum of its rounding errors: ``high + low`` is the prefix sum.

    ``np.cumsum`` adds one value at a time, so each step's rounding error is
    recovered exactly by Knuth's TwoSum from the step's inputs and output.  The
    difference of two prefix sums, ``(high[j] - high[i]) + (low[j] - low[i])``,
    is then accurate relative to the *difference*, however large the running
    total is.

    Examples
    --------
    >>> high, low = compensated_cumsum(np.array([1e16, 1.0, 1.0]))
    >>> float(high[2] - high[0]), float((high[2] - high[0]) + (low[2] - low[0]))
    (0.0, 2.0)
    """
    high = np.cumsum(values)
    previous = np.concatenate(([0.0], high[:-1]))
    added = high - previous  # the part of values[i] the step actually added
    kept = high - added
    error = (previous - kept) + (values - added)
    return high, np.cumsum(error)


def exact_ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` per element, NaN where the denominator is 0.

    Integer inputs are divided with a single rounding: in float64 while both
    fit its exact-integer range, with Python integers beyond it.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = numerator / denominator
    ratio = np.where(denominator == 0, np.nan, ratio)
    if numerator.dtype.kind in "iu" and len(ratio):
        large = np.flatnonzero((denominator >= _EXACT_FLOAT) | (numerator >= _EXACT_FLOAT))
        for i in large:  # only groups with more than ~1e8 rows get here
            ratio[i] = int(numerator[i]) / int(denominator[i])
    return ratio
