"""scikit-learn's ``auc``: the trapezoidal area under a curve's points, in memory.

It takes a curve's points, not rows, so it is no per-row kernel: it sits
with the per-sample family because both are scikit-learn ``_ranking``
functions with no sort.  Nothing here imports dask.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .inputs import column_or_1d


def trapezoid_area(x: Any, y: Any) -> float:
    """scikit-learn's ``auc``: the trapezoidal area under the points ``(x, y)``.

    Same checks, messages and arithmetic (``scipy.integrate.trapezoid``'s).

    Examples
    --------
    >>> trapezoid_area([0, 0.5, 1], [0, 0.75, 1])
    0.625
    """
    x_values, y_values = np.asarray(x), np.asarray(y)
    lengths = [len(v) if v.ndim else 0 for v in (x_values, y_values)]
    if lengths[0] != lengths[1]:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: {lengths}")
    x_values, y_values = column_or_1d(x_values), column_or_1d(y_values)
    if x_values.shape[0] < 2:
        raise ValueError(
            "At least 2 points are needed to compute area under curve, but x.shape = "
            f"{x_values.shape[0]}"
        )
    direction = 1
    dx = np.diff(x_values)
    if np.any(dx < 0):
        if np.all(dx <= 0):
            direction = -1
        else:
            raise ValueError(f"x is neither increasing nor decreasing : {x_values}.")
    dtype = y_values.dtype if y_values.dtype.kind == "f" else np.float64
    d = x_values[1:] - x_values[:-1]
    area = np.sum(d * (y_values[1:] + y_values[:-1]) / 2.0, dtype=dtype)
    return float(direction * area)
