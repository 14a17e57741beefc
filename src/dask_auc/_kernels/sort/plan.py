"""The plan of the sort: its global decisions, made once from all block samples.

:func:`plan_sort` (one task, step 2 of the sort described in
:mod:`~dask_auc._kernels.sort.prepare`) checks that the blocks agree, picks the
classes, one score dtype that holds every block's scores exactly
(:func:`common_score_dtype`), a power-of-two weight scale
(:func:`weight_exponent`), the order of a bucket's parts
(:func:`binary_group_keys`, :data:`ABSENT` for a missing class) and the
``n_buckets - 1`` score splitters, and returns them as a :class:`SortPlan`.
:data:`SHARED_BINARY_PLAN` is the plan of the binary metrics that share one
sort.  Its input, one small :class:`BlockMeta` per block, is defined here
(:func:`~dask_auc._kernels.sort.prepare.block_meta` makes it).

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.validation import (
    BinaryTarget,
    RowCounts,
    check_rows,
    sorted_labels,
    union_of_classes,
)


@dataclass(frozen=True)
class BlockMeta(SizedByArrays):
    """What the planning task needs to know of a block: small by design."""

    lengths: RowCounts
    classes: tuple[Any, ...]
    sample: np.ndarray
    sample_rows: np.ndarray  # how many rows each sampled score stands for
    score_dtype: np.dtype | None = None  # None: the block holds no row
    score_range: tuple[Any, Any] = (None, None)  # lowest and highest score, Python values
    max_weight: float | None = None  # None: unweighted, or no row


@dataclass(frozen=True)
class SortPlan(SizedByArrays):
    """The global decisions of the sort, made once from all block samples."""

    classes: tuple[Any, ...]
    splitters: np.ndarray  # ascending, n_buckets - 1 values, in the common score dtype
    #: weights enter pair counts times ``2 ** weight_exponent`` (exact), so that
    #: no product of weights overflows or underflows
    #: (:func:`~dask_auc._kernels.core.summary.pair_product`)
    weight_exponent: int = 0
    #: which part of a block goes to which group of a bucket, in order: for a
    #: binary target (negative label, positive label), a missing one ``ABSENT``
    group_keys: tuple[Any, ...] = ()
    #: whether bucket kernels may use the compiled loops (``dask-auc.numba``)
    compiled: bool = False
    #: rows of the input, for the errors of a target of more than two classes
    rows: int = 0
    #: every weight is zero (:func:`~dask_auc._kernels.sort.labels.plan_labels` defers the error)
    weights_all_zero: bool = False

    @property
    def n_buckets(self) -> int:
        return len(self.splitters) + 1

    @property
    def positive_label(self) -> Any:
        return self.classes[-1] if self.classes else None


class _Absent:
    """The key of a class no block holds: compares unequal to every label."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()


def binary_group_keys(classes: tuple[Any, ...]) -> tuple[Any, Any]:
    """(negative label, positive label) of a binary target: the greater one is positive."""
    padded = (ABSENT, ABSENT, *classes)
    return padded[-2], padded[-1]


def plan_sort(
    metas: Sequence[BlockMeta],
    n_buckets: int,
    *,
    group_keys: tuple[Any, ...] | None = None,
    finish_checks_classes: bool = False,
) -> SortPlan:
    """Check the blocks agree, pick the classes and ``n_buckets - 1`` splitters.

    Splitters sit at equal steps of the sampled row count, so buckets hold
    about the same number of rows; a heavy tie value shows up several times.
    ``group_keys`` orders a bucket's parts (default: a binary target's
    negatives, then positives).

    A target of more than two classes raises here, unless
    ``finish_checks_classes``: then the plan holds every class and no row is
    sorted (:func:`~dask_auc._kernels.sort.buckets.split_block` sends none), and
    each metric's finish step raises its own error
    (:class:`~dask_auc._kernels.core.validation.BinaryTarget`).
    Metrics that share one sort (``roc_auc_score``, ``partial_roc_auc_score``,
    ``roc_auc_ci`` of one input) share this task, so it cannot word their errors.
    """
    n_rows = check_rows([meta.lengths for meta in metas]) if metas else 0
    if finish_checks_classes:
        classes = sorted_labels(meta.classes for meta in metas)
        if len(classes) > 2:
            splitters = np.zeros(max(n_buckets - 1, 0))
            return SortPlan(classes, splitters, 0, binary_group_keys(()), rows=n_rows)
    else:
        classes = union_of_classes([meta.classes for meta in metas], BinaryTarget(), n_rows)
    exponent = weight_exponent([meta.max_weight for meta in metas])
    dtype = common_score_dtype(metas)
    filled = [meta for meta in metas if meta.score_dtype is not None]
    sample = np.concatenate([m.sample.astype(dtype, copy=False) for m in filled] or [np.empty(0)])
    rows = np.concatenate([m.sample_rows for m in filled] or [np.empty(0)])
    splitters = quantile_splitters(sample.astype(dtype), rows, n_buckets)
    keys = binary_group_keys(classes) if group_keys is None else tuple(group_keys)
    return SortPlan(classes, splitters, exponent, keys, rows=n_rows)


#: the plan of the binary metrics that may share the sort of one input (the ROC AUC,
#: partial AUC and its interval); each raises its own error for a multi-class target
#: when it finishes (see :func:`plan_sort`)
SHARED_BINARY_PLAN = partial(plan_sort, finish_checks_classes=True)


#: weights whose largest lies in this range are used as they are
_SAFE_WEIGHT = (2.0**-256, 2.0**256)


ZERO_WEIGHTS_MESSAGE = "Sample weights must contain at least one non-zero number."


def weight_exponent(max_weights: Sequence[float | None]) -> int:
    """The power of two that brings the largest weight near 1, or 0 when no scaling is needed.

    The AUC is a ratio of sums of products of weights: scaling every weight by
    one power of two changes no result and is exact, while weights near
    ``1e160`` would overflow their products and weights near ``1e-170``
    underflow them.  Raises scikit-learn's error when every weight is zero.

    Examples
    --------
    >>> weight_exponent([None, 1.0, 3.0]), weight_exponent([1e160]), weight_exponent([None])
    (0, -532, 0)
    """
    given = [w for w in max_weights if w is not None]
    if not given:
        return 0
    largest = max(given)
    if largest == 0:
        raise ValueError(ZERO_WEIGHTS_MESSAGE)
    if _SAFE_WEIGHT[0] <= largest <= _SAFE_WEIGHT[1]:
        return 0
    return -int(np.frexp(largest)[1])


_INT64_MAX = int(np.iinfo(np.int64).max)
_FLOAT_EXACT = 2**53


def common_score_dtype(metas: Sequence[BlockMeta]) -> np.dtype:
    """One score dtype that holds every block's scores exactly, so that all order alike.

    Blocks of one dtype keep it.  Integer blocks of different types meet in
    int64 or uint64; integers meet floats in the floats' type only while
    every integer is within float64's exact range (``2**53``).  Anything else
    cannot be ordered exactly in one NumPy type and raises.
    """
    filled = [m for m in metas if m.score_dtype is not None]
    dtypes = {m.score_dtype for m in filled}
    if len(dtypes) <= 1:
        (dtype,) = dtypes or {np.dtype(np.float64)}
        return dtype  # type: ignore[return-value]
    integers = [m for m in filled if m.score_dtype.kind in "iu"]  # type: ignore[union-attr]
    low = min(m.score_range[0] for m in integers) if integers else 0
    high = max(m.score_range[1] for m in integers) if integers else 0
    if len(integers) == len(filled):
        if high <= _INT64_MAX:
            return np.dtype(np.int64)
        if low >= 0:
            return np.dtype(np.uint64)
        raise ValueError(
            f"y_score holds integers from {low} to {high} in partitions of different dtypes "
            f"({', '.join(sorted(map(str, dtypes)))}): no 64-bit type orders them all "
            "exactly; cast y_score to one dtype first."
        )
    if max(-low, high) > _FLOAT_EXACT:
        raise ValueError(
            f"y_score mixes float partitions with integer scores beyond 2**53 (from {low} "
            f"to {high}; dtypes {', '.join(sorted(map(str, dtypes)))}): they cannot be "
            "ordered exactly as floats; cast y_score to one dtype first."
        )
    return np.result_type(*dtypes)


def quantile_splitters(sample: np.ndarray, rows: np.ndarray, n_buckets: int) -> np.ndarray:
    """``n_buckets - 1`` ascending splitters at equal steps of the rows the sample stands for.

    ``rows[i]`` is how many rows sampled value ``i`` stands for; a value
    holding several steps' worth of rows (a heavy tie) is picked several
    times, which :func:`~dask_auc._kernels.sort.buckets.cut_positions` reads as
    "deal this tie over that many buckets".

    Examples
    --------
    >>> quantile_splitters(np.array([1.0, 2.0, 2.0, 2.0]), np.ones(4), 4).tolist()
    [1.0, 2.0, 2.0]
    """
    if n_buckets <= 1 or sample.size == 0:
        # no sample: every row is in no block, any splitter value will do
        return sample[:0].copy() if n_buckets <= 1 else np.zeros(n_buckets - 1, sample.dtype)
    order = np.argsort(sample, kind="stable")
    cumulative = np.cumsum(rows[order])
    targets = cumulative[-1] * np.arange(1, n_buckets) / n_buckets
    picks = np.minimum(np.searchsorted(cumulative, targets), len(order) - 1)
    return sample[order][picks]
