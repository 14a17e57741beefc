"""The finishes of the ROC's queries: the query's label rule, then its answer from the parts.

A query's graph ends in one task per part (bucket results, scans, merged
summaries); its :class:`QueryFinish` runs in the caller with the label
choice first: the label rule of the scikit-learn function asked
(:mod:`.labels`), the all-zero-weights error, then the query's own finish.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from .._kernels.binary.average_precision import average_precision
from .._kernels.binary.curve_context import CurveContext
from .._kernels.binary.curve_points import CurvePoints, concatenated
from .._kernels.binary.curves import NO_POSITIVE_CLASS_MESSAGE, CurveKind
from .._kernels.binary.delong import BucketContext, SquareSums
from .._kernels.binary.det import det_arrays
from .._kernels.binary.gains import gains_columns
from .._kernels.binary.operating_point import Candidate, Target, best_candidate
from .._kernels.binary.partial import mcclish
from .._kernels.binary.thinning import grid_step, thin_on_grid
from .._kernels.core.summary import PartialROC
from .._kernels.core.validation import defined_or_warn, warn_undefined
from .._kernels.sort.labels import LabelChoice
from .._kernels.sort.plan import ZERO_WEIGHTS_MESSAGE
from .labels import asks_the_other_class
from .results import AUCInterval, KSStatistic, OperatingPoint


class QueryFinish:
    """A query's finish: ``rule(choice)`` (the label checks), then ``finish(choice, *parts)``."""

    def __init__(self, finish: Callable[..., Any], rule: Callable[[LabelChoice], None]):
        self.finish, self.rule = finish, rule

    def __call__(self, choice: LabelChoice, *parts: Any) -> Any:
        self.rule(choice)
        if choice.weights_all_zero:
            raise ValueError(ZERO_WEIGHTS_MESSAGE)
        return self.finish(choice, *parts)


def defined_auc(n_classes: int, summary: PartialROC) -> float:
    """The AUC of ``summary``; NaN after scikit-learn's warning where it is undefined.

    ``n_classes``: the distinct labels of ``y_true`` (of the column, for the
    multi-class and multilabel targets).
    """
    if not defined_or_warn(n_classes, summary.pos, summary.neg):
        return float("nan")
    return summary.auc()


def auc_of(choice: LabelChoice, summary: PartialROC) -> float:
    return defined_auc(choice.n_classes, summary)


class PartialFinish:
    """The partial AUC over ``bounds``, McClish-standardised if ``standardized``."""

    def __init__(
        self, bounds: tuple[float, float], *, swap: bool = False, standardized: bool = True
    ):
        self.bounds, self.swap, self.standardized = bounds, swap, standardized

    def __call__(self, choice: LabelChoice, partial: tuple[float, Any, Any]) -> float:
        fraction, pos, neg = partial
        if not self.swap and choice.n_classes == 2 and neg == 0:
            # Both labels are present but every negative weighs 0: scikit-learn's
            # false positive rates are all NaN, its cut keeps a single point, and
            # its ``auc`` raises this.
            raise ValueError(
                "At least 2 points are needed to compute area under curve, but x.shape = 1"
            )
        if not defined_or_warn(choice.n_classes, pos, neg):
            return float("nan")
        if not self.standardized:
            return float(fraction)
        low, high = self.bounds
        return mcclish(fraction, high, low, swap=self.swap)


def average_precision_of(
    choice: LabelChoice, contexts: list[CurveContext], precision_sum: int
) -> float:
    total_pos = contexts[0].total[int(asks_the_other_class(choice))]
    if total_pos == 0:
        warn_undefined(NO_POSITIVE_CLASS_MESSAGE, UserWarning)
    return average_precision(precision_sum, total_pos)


class CurveFinish:
    """Join the buckets' points, thin once more, and make scikit-learn's arrays."""

    def __init__(self, curve: CurveKind, max_points: int | None, with_score: bool):
        self.curve, self.max_points, self.with_score = curve, max_points, with_score

    def __call__(self, choice: LabelChoice, contexts: list[CurveContext], *results: Any) -> Any:
        total = contexts[0].total
        score, shipped = (results[0], results[1:]) if self.with_score else (None, results)
        points = concatenated([part for part, _ in shipped])
        exact = sum(count for _, count in shipped)
        # the curve starts at (0, 0): ROC's first point, precision-recall's last
        start = CurvePoints(
            np.concatenate(([0], points.tps)),
            np.concatenate(([0], points.fps)),
            np.concatenate(([np.inf], points.thresholds.astype(np.float64))),
        )
        if self.max_points is not None and exact + 1 > self.max_points:
            keep = thin_on_grid(start, total, grid_step(self.max_points))
            # ``keep`` holds index 0, the opening point: ``points`` are ``start`` shifted by one
            start, points = start.take(keep), points.take(keep[1:] - 1)
        arrays = self.curve.arrays(start, points)
        if score is None:
            return arrays
        if isinstance(score, PartialROC):
            value = score.auc()
        else:
            value = average_precision(score, total[0])
        prevalence = total[0] / (total[0] + total[1])
        return arrays, value, prevalence


def ks_of(choice: LabelChoice, contexts: list[CurveContext], *gaps: Any) -> KSStatistic:
    total_pos, total_neg = contexts[0].total
    if not defined_or_warn(2, total_pos, total_neg):
        return KSStatistic(float("nan"), None)
    gap, threshold = max(gaps, key=lambda found: found[0])  # the first of equal gaps
    if isinstance(gap, int):  # exact: in units of 1 / (P * N)
        return KSStatistic(float(Fraction(gap, int(total_pos) * int(total_neg))), threshold)
    return KSStatistic(float(gap), threshold)  # an exact Fraction, rounded once


class DetFinish:
    def __init__(self, max_points: int | None):
        self.max_points = max_points

    def __call__(self, choice: LabelChoice, contexts: list[CurveContext], *parts: Any) -> Any:
        with np.errstate(divide="ignore", invalid="ignore"):  # one class of zero weight: NaN
            return det_arrays(contexts[0].total, parts, self.max_points)


class OperatingPointFinish:
    def __init__(self, target: Target):
        self.target = target

    def __call__(
        self, choice: LabelChoice, contexts: list[CurveContext], *candidates: Candidate | None
    ) -> OperatingPoint:
        target = self.target
        total = contexts[0].total
        total_pos, total_neg = total
        if not defined_or_warn(2, total_pos, total_neg):
            nan = float("nan")
            return OperatingPoint(None, nan, nan, nan, nan, nan, nan, nan, nan, nan)
        best = best_candidate(total, candidates, target)
        if best is None:
            warn_undefined(
                f"No threshold reaches precision >= {target.value}: the operating point is "
                "the threshold inf, where nothing is predicted positive."
            )
            best = Candidate(
                (0, 0), 0 * total_pos, 0 * total_neg, float("inf"), total_pos, total_neg
            )
        tp, fp = best.tp, best.fp
        predicted = tp + fp
        return OperatingPoint(
            threshold=target.value if target.kind == "threshold" else best.threshold,
            tp=tp,
            fp=fp,
            tn=best.tn,  # the rows below the threshold, summed: 0 where none is left
            fn=best.fn,
            tpr=tp / total_pos,
            fpr=fp / total_neg,
            precision=tp / predicted if predicted else float("nan"),
            recall=tp / total_pos,
            f1=2 * tp / (predicted + total_pos),
        )


class GainsFinish:
    def __init__(self, n_bins: int):
        self.n_bins = n_bins

    def __call__(
        self, choice: LabelChoice, contexts: list[CurveContext], *cuts: Any
    ) -> pd.DataFrame:
        total = contexts[0].total
        defined_or_warn(2, *total)
        columns = gains_columns(total, cuts, self.n_bins)
        return pd.DataFrame(columns).set_index("group")


def first_context(contexts: Sequence[BucketContext | None]) -> BucketContext | None:
    """The first non-empty bucket's DeLong context (it carries the totals and the AUC)."""
    return next((c for c in contexts if c is not None), None)


def sample_variance(square_sum: float, rows: int) -> float:
    return square_sum / (rows - 1) if rows > 1 else float("nan")


class DeLongIntervalFinish:
    """The AUC's normal interval from DeLong's variance (``roc_auc_ci``)."""

    def __init__(self, confidence_level: float):
        self.confidence_level = confidence_level

    def __call__(
        self, choice: LabelChoice, sums: SquareSums, contexts: Sequence[BucketContext | None]
    ) -> AUCInterval:
        context = first_context(contexts)
        nan = float("nan")
        n_classes = choice.n_classes if context is not None else 1
        pos, neg = (context.total_pos, context.total_neg) if context is not None else (0, 0)
        if not defined_or_warn(n_classes, pos, neg):
            return AUCInterval(nan, nan, nan, nan, self.confidence_level)
        assert context is not None
        m, n = context.total_pos, context.total_neg
        variance = sample_variance(sums.pos, m) / m + sample_variance(sums.neg, n) / n
        std_error = math.sqrt(variance)
        z = NormalDist().inv_cdf(0.5 + self.confidence_level / 2)
        low = max(0.0, context.auc - z * std_error)
        high = min(1.0, context.auc + z * std_error)
        return AUCInterval(context.auc, low, high, std_error, self.confidence_level)
