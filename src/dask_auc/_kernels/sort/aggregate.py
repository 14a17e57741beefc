"""A block of few distinct scores as one entry per (score, class): a hash, or Arrow's group_by.

Unweighted rows on the compiled path are hashed by
:func:`~dask_auc._kernels.sort.compiled.aggregate` (where it beat Arrow on this
CPU); every other block is grouped by Arrow.  Both give the same counted
entries (:attr:`~dask_auc._kernels.sort.rows.SortedScores.counted`).

Nothing here imports dask.
"""

from __future__ import annotations

import numpy as np

from . import compiled as _compiled
from .arrow_groups import arrow_group_totals
from .rows import RUN_RATIO, SortedScores, distinct_entries


def aggregated_rows(
    scores: np.ndarray,
    weights: np.ndarray | None = None,
    positive: np.ndarray | None = None,
    *,
    compiled: bool = False,
) -> list[SortedScores]:
    """The rows as one entry per distinct score: its row count, or its summed weight.

    A hash aggregation (Arrow's ``group_by``, one thread: the scheduler runs
    blocks in parallel already; or, unweighted and ``compiled``, the compiled
    hash of :func:`~dask_auc._kernels.sort.compiled.aggregate`, about 2x faster),
    then a sort of the distinct scores only.
    Row counts are int64 multiplicities (:attr:`SortedScores.counted`): every
    count made of them is exact, as it is of rows.  With ``positive`` (a
    boolean per row), returns ``[rows where not positive, rows where positive]``,
    else ``[all rows]``.

    Examples
    --------
    >>> part, = aggregated_rows(np.array([0.5, 0.1, 0.5, 0.5]))
    >>> part.scores, part.weights
    (array([0.1, 0.5]), array([1, 3]))
    """
    kinds = (0, 1) if positive is not None else (0,)
    if weights is None:
        found = _compiled.aggregate(scores, positive, len(scores) // RUN_RATIO, compiled=compiled)
        if found is not None:
            values, counts = found
            return [distinct_entries(*_of_class(values, counts, k)) for k in kinds]
    values, totals, codes = arrow_group_totals(scores, weights, positive)
    return [distinct_entries(values[codes == k], totals[codes == k]) for k in kinds]


def _of_class(values: np.ndarray, counts: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The scores that class ``k`` holds, and its row count of each."""
    held = counts[:, k] > 0
    return values[held], counts[held, k]
