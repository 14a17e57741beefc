"""Independent reference of the partial AUC over an FPR or a TPR interval (no dask-auc here).

The ROC curve is the polygon through ``(0, 0)`` and one point per distinct
score (rows of nonzero weight), each point holding its whole tie group, built
in exact rational arithmetic (every float is an exact rational).  Its partial
areas are integrated segment by segment, and standardised with pROC's
``partial.auc.correct`` formula, written as pROC states it: on the focus axis
(specificity ``1 - fpr``, or sensitivity ``tpr``) with ``partial.auc = (hi, lo)``,
``min = ((1 - hi) + (1 - lo)) * (hi - lo) / 2``, ``max = hi - lo``, and
``(1 + (auc - min) / (max - min)) / 2``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

Point = tuple[Fraction, Fraction]


def roc_polygon(y_true, y_score, sample_weight=None) -> list[Point]:
    """The exact ROC vertices ``(fpr, tpr)``, from ``(0, 0)`` to ``(1, 1)``.

    The greater label is positive.  Requires both classes with nonzero weight.
    """
    y, s = np.asarray(y_true), np.asarray(y_score)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    positive = y == np.unique(y)[-1]
    counted = w != 0
    total_pos = sum(map(Fraction, w[positive]), Fraction(0))
    total_neg = sum(map(Fraction, w[~positive]), Fraction(0))
    points: list[Point] = [(Fraction(0), Fraction(0))]
    tp = fp = Fraction(0)
    for threshold in np.unique(s[counted])[::-1]:
        here = s == threshold
        tp += sum(map(Fraction, w[here & positive]), Fraction(0))
        fp += sum(map(Fraction, w[here & ~positive]), Fraction(0))
        points.append((fp / total_neg, tp / total_pos))
    return points


def area_over(points: list[Point], low: Fraction, high: Fraction) -> Fraction:
    """The area under the polyline ``points`` (x non-decreasing) over ``low <= x <= high``.

    Each segment is clipped to the interval and integrated as a trapezoid;
    vertical segments (equal x) have no width.
    """
    area = Fraction(0)
    for (x0, y0), (x1, y1) in zip(points[:-1], points[1:], strict=True):
        if x1 == x0:
            continue
        a, b = max(x0, low), min(x1, high)
        if a >= b:
            continue

        def at(x: Fraction, x0=x0, y0=y0, x1=x1, y1=y1) -> Fraction:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)

        area += (b - a) * (at(a) + at(b)) / 2
    return area


def partial_auc_reference(
    y_true,
    y_score,
    sample_weight=None,
    *,
    fpr_range=None,
    tpr_range=None,
    standardized: bool = True,
) -> Fraction:
    """pROC's ``auc(partial.auc=..., partial.auc.focus=..., partial.auc.correct=...)``, exactly.

    ``fpr_range=(a, b)`` is pROC's specificity focus over ``(1 - a, 1 - b)``:
    the area under the curve over ``a <= fpr <= b``.  ``tpr_range=(c, d)`` is
    its sensitivity focus over ``(d, c)``: the curve seen with sensitivity on
    the x axis and specificity on the y axis, integrated over ``c <= tpr <= d``.
    """
    points = roc_polygon(y_true, y_score, sample_weight)
    if fpr_range is not None:
        a, b = map(Fraction, fpr_range)
        raw = area_over(points, a, b)
        hi, lo = 1 - a, 1 - b  # specificity bounds
    else:
        c, d = map(Fraction, tpr_range)
        turned = [(tpr, 1 - fpr) for fpr, tpr in points]  # x = sensitivity, y = specificity
        raw = area_over(turned, c, d)
        hi, lo = d, c
    if not standardized:
        return raw
    min_area = ((1 - hi) + (1 - lo)) * (hi - lo) / 2
    max_area = hi - lo
    return (1 + (raw - min_area) / (max_area - min_area)) / 2
