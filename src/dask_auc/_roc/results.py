"""The result types of the binary wing's queries: small named tuples, one per kind of answer."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._kernels.core.summary import Number


class KSStatistic(NamedTuple):
    """The Kolmogorov-Smirnov statistic of a scorer and the threshold where it is reached."""

    statistic: float  # the largest |tpr - fpr| over the ROC points
    threshold: Any  # the score of that point (the highest one, if several reach it)


class OperatingPoint(NamedTuple):
    """A threshold and the confusion matrix and rates of predicting ``score >= threshold``."""

    threshold: Any  # a score, inf (nothing predicted positive), or the threshold asked for
    tp: Number
    fp: Number
    tn: Number
    fn: Number
    tpr: float
    fpr: float
    precision: float  # NaN where nothing is predicted positive
    recall: float
    f1: float


class AUCInterval(NamedTuple):
    """The AUC with its DeLong standard error and confidence interval."""

    auc: float
    low: float
    high: float
    std_error: float
    confidence_level: float


class DeLongTest(NamedTuple):
    """DeLong's paired test of ``auc_a == auc_b`` (two-sided)."""

    auc_a: float
    auc_b: float
    difference: float  # auc_a - auc_b
    std_error: float
    z: float
    p_value: float


class BootstrapInterval(NamedTuple):
    """A metric with its bootstrap interval.

    ``replicates`` holds the metric of every replicate, in replicate order
    (NaN for a replicate that drew no row of a class: those are left out of
    the interval and the standard error).
    """

    estimate: float
    low: float
    high: float
    std_error: float
    confidence_level: float
    n_bootstraps: int
    replicates: np.ndarray

    def __repr__(self) -> str:
        return _short_repr(self)


class BootstrapTest(NamedTuple):
    """The paired bootstrap test of two models' metric on the same rows (two-sided).

    ``difference = estimate_a - estimate_b``; ``low``/``high`` its interval;
    ``std_error`` the replicate differences' standard deviation, ``z =
    difference / std_error`` and ``p_value`` its two-sided normal p-value, as
    pROC's ``roc.test(method="bootstrap")``; ``replicates`` the differences.
    """

    estimate_a: float
    estimate_b: float
    difference: float
    low: float
    high: float
    std_error: float
    z: float
    p_value: float
    confidence_level: float
    n_bootstraps: int
    replicates: np.ndarray

    def __repr__(self) -> str:
        return _short_repr(self)


class MannwhitneyuResult(NamedTuple):
    """scipy's result of the Mann-Whitney U test."""

    statistic: float  # U1, the statistic of x: pairs with x > y, plus half the tied pairs
    pvalue: float


class ScoreDecomposition(NamedTuple):
    """A score split as ``score = miscalibration - discrimination + uncertainty`` (CORP).

    ``miscalibration`` (MCB) is what recalibrating the scores by the isotonic
    fit gains, ``discrimination`` (DSC) what the recalibrated scores gain over
    the constant forecast of the mean outcome, ``uncertainty`` (UNC) that
    constant forecast's score; all three are non-negative up to rounding.
    """

    score: float
    miscalibration: float
    discrimination: float
    uncertainty: float


class ReliabilityDiagram(NamedTuple):
    """The CORP reliability diagram: the isotonic (PAV) fit of the outcomes on the scores.

    One entry of ``low``, ``high``, ``recalibrated`` and ``weight`` per step
    of the fit (a block of adjacent distinct scores with one fitted value),
    in ascending score order, thinned for drawing with ``max_points``; the
    decompositions always come from every step.
    """

    low: np.ndarray  # the lowest score of each step
    high: np.ndarray  # its highest score
    recalibrated: np.ndarray  # its fitted probability: the (weighted) share of positives
    weight: np.ndarray  # its rows (int) or weight (float)
    brier: ScoreDecomposition  # of the Brier score, the mean of (score - outcome)**2
    log_score: ScoreDecomposition  # of the log score, the mean of -log(probability of outcome)
    mean_score: float
    mean_outcome: float

    def __repr__(self) -> str:
        steps = f"<{len(self.recalibrated)} steps>"
        return (
            f"ReliabilityDiagram(steps={steps}, brier={self.brier!r}, "
            f"log_score={self.log_score!r}, mean_score={self.mean_score!r}, "
            f"mean_outcome={self.mean_outcome!r})"
        )


def _short_repr(result: Any) -> str:
    """One line: every field as it is but the replicates, counted (and their NaNs)."""
    shown = []
    for name, value in zip(result._fields, result, strict=True):
        if name == "replicates":
            values = np.asarray(value, dtype=float)
            nan = int(np.isnan(values).sum())
            text = f"<{len(values)} values" + (f", {nan} NaN>" if nan else ">")
        else:
            text = repr(float(value) if isinstance(value, np.floating) else value)
        shown.append(f"{name}={text}")
    return f"{type(result).__name__}({', '.join(shown)})"
