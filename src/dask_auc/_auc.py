"""``auc(x, y)``: scikit-learn's trapezoidal area under given curve points, in NumPy.

scikit-learn's ``_ranking`` module also has ``auc``, the trapezoidal area
under given curve points.  It takes a curve's points, not rows -- a few
thousand numbers that :func:`roc_curve` and friends already return in
memory -- so it needs no dask: :func:`auc` is scikit-learn's computation in
NumPy (same checks, messages and arithmetic), provided so that every public
function of scikit-learn's ``_ranking`` exists here with its signature; dask
arrays given to it are computed first.
"""

from __future__ import annotations

from typing import Any

from ._kernels.per_row.trapezoid import trapezoid_area


def auc(x: Any, y: Any) -> float:
    """Area under the curve through the points ``(x, y)`` by the trapezoidal rule.

    :func:`sklearn.metrics.auc` in NumPy: the same checks, messages and
    result.  It takes a curve's points (already small, in memory), not rows:
    for the area under the ROC curve of data, use :func:`roc_auc_score`.
    Dask arrays are computed first.

    Parameters
    ----------
    x : array-like of shape (n,)
        Increasing or decreasing x coordinates.
    y : array-like of shape (n,)
        y coordinates.

    Returns
    -------
    float
        The sum of the trapezoids between consecutive points, taken along
        ``x`` in its own direction (decreasing ``x`` gives the same area as
        the points reversed); ``x`` that is neither raises ``ValueError``.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> fpr, tpr, _ = dask_auc.roc_curve(np.array([1, 1, 2, 2]),
    ...                                  np.array([0.1, 0.4, 0.35, 0.8]), pos_label=2)
    >>> dask_auc.auc(fpr, tpr)
    0.75
    """
    return trapezoid_area(x, y)
