"""Chunk kernels of the grouped AUC: hash rows to buckets, then every group's AUC at once.

The grouped AUC never sorts globally.  Rows are routed by a hash of their
group key, so that every row of a group lands in the same bucket whatever the
input partition it came from; each bucket then computes the exact AUC of all
of its groups in one vectorized pass:

1. :func:`split_group_block` validates one input block (labels, scores,
   weights), drops the rows whose key is missing, hashes the keys
   (``pandas.util.hash_pandas_object``: equal keys hash alike in every block)
   and cuts the rows into one :class:`GroupRows` piece per bucket.
2. :func:`plan_groups` picks the positive class from every block's classes
   (scikit-learn's rule for the whole frame: two classes, the greater one is
   positive).
3. :func:`bucket_table` concatenates one bucket's pieces, numbers its groups
   (``pandas.factorize``) and reduces them with :func:`group_pair_sums`.

:func:`group_pair_sums` is the heart, pure NumPy with no loop over groups:
``np.lexsort`` by (group, score); runs of equal (group, score) are the tie
groups; ``np.add.reduceat`` gives each run's positive and negative totals, an
exclusive prefix sum restarted at every group start gives the negatives
ranked below each run, and a run contributes ``pos * (2 * below + neg)`` to
its group's twice-area (a tie counts one half).  Unweighted, everything is an
int64 count and the AUC is one correctly rounded division.  Weighted, the
prefix sum is compensated (:func:`compensated_cumsum`) so that a small group
late in a big bucket does not lose digits to the bucket's running total.

pandas is used for the keys (hashing, factorizing, the result's index); the
arithmetic is NumPy.  Nothing here imports dask.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._footprint import SizedByArrays
from ._validation import (
    _check_finite,
    as_score_array,
    as_weight_array,
    label_classes,
    to_numpy,
    union_of_classes,
)

#: the exact-integer range of float64: counts below it divide with one rounding
_EXACT_FLOAT = 2**53
#: name of the per-group sum of a ``gauc_weight`` column in bucket tables
GAUC_WEIGHT_COLUMN = "_gauc_weight"


@dataclass(frozen=True)
class GroupSpec:
    """Which columns of the frame play which part."""

    by: tuple[str, ...]
    label: str
    score: str
    sample_weight: str | None = None
    gauc_column: str | None = None

    @property
    def columns(self) -> list[str]:
        """Every column the computation reads, each once, keys first."""
        names = [*self.by, self.label, self.score, self.sample_weight, self.gauc_column]
        return list(dict.fromkeys(n for n in names if n is not None))


@dataclass(frozen=True)
class GroupRows(SizedByArrays):
    """Rows of one bucket (or one block's piece of it)."""

    keys: pd.DataFrame
    label: np.ndarray
    score: np.ndarray
    weight: np.ndarray | None = None
    gauc_weight: np.ndarray | None = None


@dataclass(frozen=True)
class GroupPlan:
    """The global decision made from all blocks: which label is the positive class."""

    classes: tuple[Any, ...]

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
    """Per-group totals of one bucket, indexed by group code."""

    pos: np.ndarray  # positive count (int64) or weight (float64)
    neg: np.ndarray
    twice_area: np.ndarray  # 2 * (pairs pos > neg) + (pairs pos == neg), weighted if weights

    def auc(self) -> np.ndarray:
        """``twice_area / (2 pos neg)``, NaN where a class is missing; exact if unweighted."""
        return exact_ratio(self.twice_area, 2 * self.pos * self.neg)


def split_group_block(
    frame: pd.DataFrame, spec: GroupSpec, n_buckets: int
) -> tuple[tuple[Any, ...], list[GroupRows]]:
    """Validate one block and cut it into one piece per bucket by the hash of its keys.

    Rows whose key has a missing value (NaN, None, NA) in any ``by`` column are
    dropped, as ``pandas.DataFrame.groupby`` does with ``dropna=True``.

    Returns
    -------
    classes : tuple
        The block's distinct labels (checked binary here, over all blocks later).
    pieces : list of GroupRows
        ``n_buckets`` pieces; piece ``b`` holds the rows whose key hash is ``b``
        modulo ``n_buckets``.

    Examples
    --------
    >>> frame = pd.DataFrame({"user": ["a", "b", "a"], "y": [0, 1, 1], "s": [0.2, 0.4, 0.9]})
    >>> classes, pieces = split_group_block(frame, GroupSpec(("user",), "y", "s"), 2)
    >>> classes, sum(len(p.score) for p in pieces)
    ((0, 1), 3)
    """
    label = to_numpy(frame[spec.label])
    classes = label_classes(label)
    score = as_score_array(frame[spec.score])
    weight = None
    if spec.sample_weight is not None:
        weight = as_weight_array(frame[spec.sample_weight])
    gauc_weight = None
    if spec.gauc_column is not None:
        gauc_weight = as_gauc_weight_array(frame[spec.gauc_column], spec.gauc_column)
    keys = frame[list(spec.by)].reset_index(drop=True)
    present = keys.notna().all(axis=1).to_numpy()
    if not present.all():
        keys = keys[present].reset_index(drop=True)
        label, score = label[present], score[present]
        weight = None if weight is None else weight[present]
        gauc_weight = None if gauc_weight is None else gauc_weight[present]
    rows = GroupRows(keys, label, score, weight, gauc_weight)
    if n_buckets == 1:
        return classes, [rows]
    bucket = pd.util.hash_pandas_object(keys, index=False).to_numpy() % np.uint64(n_buckets)
    if n_buckets <= 1 << 16:
        bucket = bucket.astype(np.uint16)  # NumPy's stable sort of 16-bit ints is a radix sort
    order = np.argsort(bucket, kind="stable")
    cuts = np.searchsorted(bucket[order], np.arange(n_buckets + 1))
    ordered = _take(rows, order)
    return classes, [_slice(ordered, cuts[b], cuts[b + 1]) for b in range(n_buckets)]


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


def _take(rows: GroupRows, order: np.ndarray) -> GroupRows:
    def pick(values: np.ndarray | None) -> np.ndarray | None:
        return None if values is None else values[order]

    keys = rows.keys.take(order).reset_index(drop=True)
    score = rows.score[order]
    return GroupRows(keys, rows.label[order], score, pick(rows.weight), pick(rows.gauc_weight))


def _slice(rows: GroupRows, start: int, stop: int) -> GroupRows:
    def cut(values: np.ndarray | None) -> np.ndarray | None:
        return None if values is None else values[start:stop]

    return GroupRows(
        rows.keys.iloc[start:stop],
        rows.label[start:stop],
        rows.score[start:stop],
        cut(rows.weight),
        cut(rows.gauc_weight),
    )


def plan_groups(block_classes: list[tuple[Any, ...]]) -> GroupPlan:
    """The classes of the whole frame: at most two, raising scikit-learn's error otherwise."""
    return GroupPlan(union_of_classes(block_classes))


def bucket_table(plan: GroupPlan, spec: GroupSpec, *pieces: GroupRows) -> pd.DataFrame:
    """The per-group table of one bucket (its groups in order of first appearance).

    Columns: ``auc``, ``n_pos``, ``n_neg`` (rows of nonzero weight), and when
    weighted ``weight_pos``, ``weight_neg``; plus :data:`GAUC_WEIGHT_COLUMN`
    when ``spec.gauc_column`` is set.
    """
    rows = _concat(pieces)
    codes, index = _group_codes(rows.keys, spec.by)
    n_groups = len(index)
    positive = rows.label == plan.positive_label
    if not isinstance(positive, np.ndarray):  # a comparison NumPy could not broadcast
        positive = np.zeros(len(rows.label), dtype=bool)
    sums = group_pair_sums(codes, n_groups, rows.score, positive, rows.weight)
    table = {"auc": sums.auc()}
    if rows.weight is None:
        table["n_pos"], table["n_neg"] = sums.pos, sums.neg
    else:
        counted = rows.weight != 0
        table["n_pos"] = np.bincount(codes[positive & counted], minlength=n_groups)
        table["n_neg"] = np.bincount(codes[~positive & counted], minlength=n_groups)
        table["weight_pos"], table["weight_neg"] = sums.pos, sums.neg
    if rows.gauc_weight is not None:
        table[GAUC_WEIGHT_COLUMN] = np.bincount(codes, weights=rows.gauc_weight, minlength=n_groups)
    frame = pd.DataFrame(table, index=index)
    return frame.astype({"n_pos": np.int64, "n_neg": np.int64})


def _concat(pieces: tuple[GroupRows, ...]) -> GroupRows:
    def join(values: list[np.ndarray | None]) -> np.ndarray | None:
        return None if values[0] is None else np.concatenate(values)  # type: ignore[arg-type]

    keys = pd.concat([p.keys for p in pieces], ignore_index=True)
    return GroupRows(
        keys,
        np.concatenate([p.label for p in pieces]),
        np.concatenate([p.score for p in pieces]),
        join([p.weight for p in pieces]),
        join([p.gauc_weight for p in pieces]),
    )


def _group_codes(keys: pd.DataFrame, by: tuple[str, ...]) -> tuple[np.ndarray, pd.Index]:
    """Dense group codes (0..G-1) of the rows, and the index of the G keys."""
    if len(by) == 1:
        codes, uniques = pd.factorize(keys[by[0]])
        return codes.astype(np.int64, copy=False), pd.Index(uniques, name=by[0])
    codes, uniques = pd.MultiIndex.from_frame(keys).factorize()
    return codes.astype(np.int64, copy=False), uniques.set_names(list(by))


def group_pair_sums(
    codes: np.ndarray,
    n_groups: int,
    scores: np.ndarray,
    positive: np.ndarray,
    weights: np.ndarray | None = None,
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
    tie_key, n_scores = _group_score_key(codes, n_groups, scores)
    if weights is None:
        # one np.sort of (group, score rank, class) packed in an int64: no permutation needed
        packed = np.sort(tie_key * 2 + positive)
        tie_key = packed >> 1
        pos_row = packed & 1
        neg_row = 1 - pos_row
    else:
        order = np.argsort(tie_key)
        tie_key, positive, weights = tie_key[order], positive[order], weights[order]
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
    return GroupSums(pos_total, neg_total, twice_area)


def _group_score_key(
    codes: np.ndarray, n_groups: int, scores: np.ndarray
) -> tuple[np.ndarray, int]:
    """``code * n_scores + dense rank of the score``: sorting it sorts by (group, score).

    One ``argsort`` of the scores and one sort of an int64 key are several
    times faster than ``np.lexsort((scores, codes))``.
    """
    order = np.argsort(scores)
    ranked = scores[order]
    step = np.empty(len(ranked), dtype=np.int64)
    step[0] = 0
    np.not_equal(ranked[1:], ranked[:-1], out=step[1:])  # -0.0 == 0.0: one rank
    rank = np.empty(len(ranked), dtype=np.int64)
    rank[order] = np.cumsum(step)
    n_scores = int(rank.max()) + 1
    if n_groups * n_scores >= 2**62:  # beyond any bucket that fits in memory
        raise OverflowError(f"{n_groups} groups x {n_scores} distinct scores in one bucket")
    return codes * n_scores + rank, n_scores


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
