"""The bootstrap's compiled loops behind their doors: each returns ``None`` when it cannot run.

The loops are in :mod:`dask_auc._kernels.replicates._numba`, loaded (and
compiled, in their own background family) by the sort's
:func:`~dask_auc._kernels.sort.compiled.usable`; a ``None`` sends the caller
to its NumPy path, which gives the same numbers.  A task waits for the
compile when its rows times replicates would take longer on the NumPy path
than the compile has left (:func:`~dask_auc._kernels.sort.loading.waits_for_compile`).

Nothing here imports dask.
"""

from __future__ import annotations

from types import ModuleType
from typing import NamedTuple

import numpy as np

from ..sort.compiled import usable


def replicate_group_counts(
    keys: np.ndarray,
    starts: np.ndarray,
    replicate_keys: np.ndarray,
    thresholds: np.ndarray,
    weights: np.ndarray | None,
    *,
    compiled: bool = True,
) -> np.ndarray | None:
    """Each tie group's Poisson counts per replicate, ``(groups, replicates)`` int64, or None.

    Rows ``starts[g]:starts[g + 1]`` (by their uint64 ``keys``) form group
    ``g``.  Weighted rows take the NumPy path, whose float sums keep their order.
    """
    kernel = usable(compiled, "replicates", keys, work=len(keys) * len(replicate_keys))
    if kernel is None or weights is not None:
        return None
    out = np.zeros((len(starts) - 1, len(replicate_keys)), np.int64)
    kernel.replicate_counts(keys, starts.astype(np.int64), replicate_keys, thresholds, out)
    return out


class Walk(NamedTuple):
    """What a compiled walk down a bucket's tie groups reads, in the loops' argument order.

    ``pos`` and ``neg``: the bucket's two classes' ascending scores, each row
    with its uint64 key (``pos_keys``, ``neg_keys``); ``replicate_keys`` and
    the Poisson ``thresholds`` draw the rows' counts.
    """

    pos: np.ndarray
    pos_keys: np.ndarray
    neg: np.ndarray
    neg_keys: np.ndarray
    replicate_keys: np.ndarray
    thresholds: np.ndarray


def _walk_loops(walk: Walk, compiled: bool) -> ModuleType | None:
    """The loops of a walk down a bucket's two classes in every replicate, or None."""
    pos, neg = walk.pos, walk.neg
    work = (len(pos) + len(neg)) * len(walk.replicate_keys)
    kernel = usable(compiled, "replicates", pos, neg, work=work)
    return None if kernel is None or pos.dtype != neg.dtype else kernel


def replicate_summary(walk: Walk, *, compiled: bool = True) -> np.ndarray | None:
    """A bucket's replicate summary by one walk down its tie groups, ``(7, replicates)``, or None.

    Rows of the result: positives, negatives, top group's positives and
    negatives, bottom group's, doubled area (see
    :class:`~dask_auc._kernels.replicates.summary.ReplicateSummary`).
    """
    kernel = _walk_loops(walk, compiled)
    if kernel is None:
        return None
    out = np.zeros((7, len(walk.replicate_keys)), np.int64)
    kernel.replicate_summary_walk(*walk, out)
    return out


def replicate_points(
    walk: Walk,
    context: tuple[np.ndarray, ...],
    continues: bool,
    kind: int,
    target: float,
    bounds: np.ndarray,
    *,
    compiled: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Every replicate's part of one query, by one walk down the bucket's tie groups, or None.

    ``context``: (positives and negatives above the bucket's top group, the
    top group's part above, totals), int64 per replicate.  Returns
    ``(integer parts, float parts, crossing segments, their counts)``.
    """
    kernel = _walk_loops(walk, compiled)
    if kernel is None:
        return None
    width = len(walk.replicate_keys)
    start_pos, start_neg, tied_pos, tied_neg, total_pos, total_neg = context
    acc_int = np.zeros(width, np.int64)
    if kind == 3:
        acc_int[:] = total_neg.max(initial=0) + 1
    acc_float = np.zeros(width, np.float64)
    crossings = np.zeros((width, 2, 4), np.int64)
    n_crossings = np.zeros(width, np.int64)
    kernel.replicate_points_walk(
        *walk, start_pos, start_neg, tied_pos, tied_neg, total_pos, total_neg, continues,
        kind, float(target), bounds, acc_int, acc_float, crossings, n_crossings,
    )  # fmt: skip
    return acc_int, acc_float, crossings, n_crossings


def replicate_weighted_sums(
    keys: np.ndarray,
    values: np.ndarray,
    weights: np.ndarray,
    replicate_keys: np.ndarray,
    thresholds: np.ndarray,
    *,
    compiled: bool = True,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Every replicate's ``sum(c * values)`` and ``sum(c * weights)``, in group order, or None."""
    kernel = usable(compiled, "replicates", keys, work=len(keys) * len(replicate_keys))
    if kernel is None:
        return None
    num = np.zeros(len(replicate_keys))
    den = np.zeros(len(replicate_keys))
    kernel.replicate_weighted_sums(
        keys, values.astype(np.float64), weights.astype(np.float64), replicate_keys, thresholds,
        num, den,
    )  # fmt: skip
    return num, den
