"""Each row of a matrix sorted on its own, with the tie runs of its sorted scores.

The per-row metrics rank the columns of every row apart from the other rows
(the ranking metrics of :mod:`dask_auc._kernels.per_row`, the ``samples``
average of :mod:`dask_auc._kernels.columns.multilabel`); they read ties
from the bounds of each position's run of equal scores.  Nothing here imports dask.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class RowTies(NamedTuple):
    """Each row sorted ascending (stable), and each sorted position's tie run.

    ``first[i, j]`` and ``last[i, j]``: the first and last sorted position of
    row ``i`` holding the same score as position ``j``.
    """

    order: np.ndarray  # the stable argsort of each row
    ranked: np.ndarray  # the sorted scores
    first: np.ndarray
    last: np.ndarray


def row_ties(scores: np.ndarray) -> RowTies:
    """Sort each row of ``scores`` (``(n, k)``) ascending, stably, and bound its tie runs.

    Examples
    --------
    >>> ties = row_ties(np.array([[0.5, 0.2, 0.5]]))
    >>> ties.order, ties.first, ties.last
    (array([[1, 0, 2]]), array([[0, 1, 1]]), array([[0, 2, 2]]))
    """
    n, k = scores.shape
    order = np.argsort(scores, axis=1, kind="stable")
    ranked = np.take_along_axis(scores, order, axis=1)
    columns = np.broadcast_to(np.arange(k), (n, k))
    starts = np.ones((n, k), dtype=bool)
    starts[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
    ends = np.ones((n, k), dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    first = np.maximum.accumulate(np.where(starts, columns, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, columns, k - 1)[:, ::-1], axis=1)[:, ::-1]
    return RowTies(order, ranked, first, last)
