"""Arrow's ``group_by`` of scores and classes: the aggregation every block can take.

:mod:`.aggregate` takes it unless the compiled hash of :mod:`.compiled` runs
(unweighted, and measured faster on this CPU); :func:`.preferences.prefer_hash`'s
calibration times the two against each other.  It imports neither, so both
can import it.

Nothing here imports dask.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def arrow_group_totals(
    scores: np.ndarray, weights: np.ndarray | None, positive: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(values, totals, codes)``: each distinct (score, class) once, with its rows or weight.

    ``totals`` are int64 row counts (unweighted) or float64 weight sums;
    ``codes`` the class (1 for ``positive`` rows, else 0). One Arrow thread:
    the scheduler runs blocks in parallel already. Values come in no
    particular order.

    Examples
    --------
    >>> values, totals, codes = arrow_group_totals(np.array([0.5, 0.1, 0.5]), None, None)
    >>> sorted(zip(values.tolist(), totals.tolist()))
    [(0.1, 1), (0.5, 2)]
    """
    import pyarrow as pa  # a dependency; imported here, on the workers that aggregate

    # the class as an int8 key; a constant one without classes (Arrow's grouper
    # of a float key and an int8 key measured ~3x faster than of the float alone)
    code = np.zeros(len(scores), np.int8) if positive is None else positive.view(np.int8)
    columns: dict[str, Any] = {"score": scores, "code": code}
    if weights is None:
        aggregation: list[Any] = [([], "count_all")]
    else:
        columns["weight"], aggregation = weights, [("weight", "sum")]
    table = pa.table(columns)
    grouped = table.group_by(["score", "code"], use_threads=False).aggregate(aggregation)
    values = grouped["score"].to_numpy()
    totals = grouped["count_all" if weights is None else "weight_sum"].to_numpy()
    totals = totals.astype(np.int64 if weights is None else np.float64, copy=False)
    return values, totals, grouped["code"].to_numpy()
