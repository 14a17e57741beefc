"""``max_points``: a curve thinned on a global grid, with a bounded change of its area.

Each bucket thins its points on the grid of :func:`grid_step` before they are
shipped (:func:`thin_on_grid`), and the caller thins the concatenation once
more with the same grid, unless the whole curve has at most ``max_points``.

Nothing here imports dask.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.summary import Number
from .curve_points import Points, first_reaching


def grid_step(max_points: int) -> float:
    """Cell width of the thinning grid that leaves at most ``max_points`` points.

    Along a ROC curve ``fpr + tpr`` grows from 0 to 2.  Cutting that range
    into cells of width ``4 / (max_points - 2)`` gives at most
    ``max_points / 2`` cells, and :func:`thin_on_grid` keeps two points per cell.

    Examples
    --------
    >>> grid_step(6), grid_step(2)
    (1.0, inf)
    """
    return 4 / (max_points - 2) if max_points > 2 else math.inf


def grid_cells(tps: np.ndarray, fps: np.ndarray, total: tuple[Number, Number], step: float):
    """The grid cell of each point: ``floor((tpr + fpr) / step)``."""
    arc = np.zeros(len(tps))
    if total[0]:
        arc += tps / total[0]
    if total[1]:
        arc += fps / total[1]
    if math.isinf(step):
        return np.zeros(len(tps), np.int64)
    return np.floor(arc / step).astype(np.int64)


def thin_on_grid(
    points: Points,
    total: tuple[Number, Number],
    step: float,
    subset: np.ndarray | None = None,
) -> np.ndarray:
    """Indices (ascending) of the first and last point of each grid cell (and of the run).

    Every point dropped lies, with the curve between its kept neighbours, in
    one cell: a box with ``dfpr + dtpr < step``, where the curve's area moves
    by at most ``dfpr * dtpr / 2 <= step**2 / 8``.  Points that bend the curve
    by more than a cell are all kept.  With ``subset`` (ascending indices of
    ``points``: the corners ``drop_intermediate`` keeps) the run is those
    points, and the indices returned are positions in ``subset``.

    A point's cell (:func:`grid_cells`) never decreases along the curve
    (``tps`` and ``fps`` do not, and float division, addition and ``floor``
    are monotone), so the first point of each cell is found by bisection:
    O(cells * log(points)) work, the same indices as comparing every
    point's cell with its neighbour's.

    Examples
    --------
    >>> from dask_auc._kernels.binary.curve_points import CurvePoints
    >>> points = CurvePoints(np.arange(1, 7), np.zeros(6, int), np.zeros(6))
    >>> thin_on_grid(points, (6, 0), 0.5)  # cells 0 0 1 1 1 2
    array([0, 1, 2, 4, 5])
    >>> thin_on_grid(points, (6, 0), 0.5, subset=np.array([0, 2, 3, 5]))  # cells 0 1 1 2
    array([0, 1, 2, 3])
    """
    n = len(points) if subset is None else len(subset)
    if n == 0:
        return np.zeros(0, np.int64)

    def cells_at(i: np.ndarray) -> np.ndarray:
        return grid_cells(*points.counts(i if subset is None else subset[i]), total, step)

    ends = np.array([0, n - 1])
    low, high = cells_at(ends)
    if n <= 4 * (high - low) + 64:  # few points a cell: compare them all
        cells = cells_at(np.arange(n))
        change = cells[1:] != cells[:-1]
        keep = np.concatenate(([True], change)) | np.concatenate((change, [True]))
        return np.flatnonzero(keep)
    # the first point of each cell after the first: where a run of equal cells starts
    starts = first_reaching(n, cells_at, np.arange(low + 1, high + 1))
    return np.unique(np.concatenate((ends, starts, starts - 1)))
