"""The metric of every bootstrap replicate and the interval they give: the bootstrap's finishes.

The replicate scan (:mod:`dask_auc._kernels.replicates.scan`) gives, per
column (the estimate, then each replicate), the classes' weights and the
metric's exact total; here each column becomes its metric, and the columns
an interval (``"percentile"``, ``"basic"`` or ``"normal"``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from statistics import NormalDist
from typing import Any

import numpy as np

from .._kernels.binary.partial import mcclish
from .._kernels.core.validation import BinaryTarget, UndefinedMetricWarning, defined_or_warn
from .._kernels.replicates.queries import ReplicateQuery
from .._kernels.replicates.scan import ReplicateScan
from .._kernels.sort.labels import LabelChoice
from .._kernels.sort.plan import ZERO_WEIGHTS_MESSAGE
from .queries import one_range
from .results import BootstrapInterval, BootstrapTest


def replicate_auc(name: str, given: dict[str, Any]) -> tuple[ReplicateQuery | None, Any]:
    """The AUC (from the scan alone); McClish's partial AUC with ``max_fpr``."""
    max_fpr = given.get("max_fpr")
    if max_fpr is None or max_fpr == 1.0:
        return None, _auc
    bounds = (0.0, max_fpr)
    finish = partial(_partial, bounds=bounds, swap=False, standardized=True)
    return ReplicateQuery("partial", bounds=bounds), finish


def replicate_partial(name: str, given: dict[str, Any]) -> tuple[ReplicateQuery, Any]:
    """The partial AUC over ``fpr_range`` or ``tpr_range``, standardised or not."""
    # the one-range rule of partial_roc_auc_score, worded for the bootstrap's metric
    bounds, swap = one_range(
        f"{name}: metric='partial_auc'", given.get("fpr_range"), given.get("tpr_range")
    )
    standardized = given.get("standardized", True)
    finish = partial(_partial, bounds=bounds, swap=swap, standardized=standardized)
    return ReplicateQuery("partial", bounds=bounds, swap=swap), finish


def replicate_kind(kind: str, target: str | None = None) -> Any:
    """The plan of the replicate kernels' ``kind``, read at the parameter ``target`` if any."""

    def plan(name: str, given: dict[str, Any]) -> tuple[ReplicateQuery, Any]:
        if target is None:
            return ReplicateQuery(kind), _VALUES[kind]
        if given.get(target) is None:
            raise ValueError(f"{name}: metric={kind!r} needs {target}=")
        return ReplicateQuery(kind, target=given[target]), _VALUES[kind]

    return plan


def _auc(scan: ReplicateScan, total: Any = None) -> np.ndarray:
    return _each(scan, lambda area, p, n: area / (2 * p * n), both=True, area=scan.area)


def _partial(
    scan: ReplicateScan, total: Any, *, bounds: tuple[float, float], swap: bool, standardized: bool
) -> np.ndarray:
    def value(area: Any, p: Any, n: Any) -> float:
        fraction = Fraction(area) / (2 * Fraction(p) * Fraction(n))
        if isinstance(area, float):
            fraction = area / (2 * p * n)
        if not standardized:
            return float(fraction)
        return mcclish(fraction, bounds[1], bounds[0], swap=swap)

    return _each(scan, value, both=True, area=total)


def _average_precision(scan: ReplicateScan, total: Any) -> np.ndarray:
    return _each(scan, lambda s, p, n: s / p, both=False, area=total)


def _ks(scan: ReplicateScan, total: Any) -> np.ndarray:
    return _each(scan, lambda gap, p, n: gap / (p * n), both=True, area=total)


def _tpr(scan: ReplicateScan, total: Any) -> np.ndarray:
    return _each(scan, lambda t, p, n: float(t) / float(p), both=True, area=total)


def _fpr(scan: ReplicateScan, total: Any) -> np.ndarray:
    return _each(scan, lambda f, p, n: float(f) / float(n), both=True, area=total)


#: each column's value from the total of a replicate kernel's kind
_VALUES = {
    "average_precision": _average_precision,
    "ks": _ks,
    "tpr_at_fpr": _tpr,
    "fpr_at_tpr": _fpr,
}


def _each(scan: ReplicateScan, value: Any, *, both: bool, area: Any) -> np.ndarray:
    """``value(area, P, N)`` of every column; NaN where a class drew nothing."""
    out = np.full(len(scan.pos), np.nan)
    for c, (a, p, n) in enumerate(zip(area, scan.pos, scan.neg, strict=True)):
        if p > 0 and (n > 0 or not both):
            out[c] = value(a, p, n)
    return out


@dataclass(frozen=True)
class BootstrapIntervalFinish:
    name: str
    metric: Any
    confidence_level: float
    interval: str
    n_bootstraps: int
    result: Callable[..., Any] = BootstrapInterval

    def __call__(self, choice: LabelChoice, scan: ReplicateScan, total: Any = None) -> Any:
        values = _values(self.name, self.metric, choice, scan, total)
        low, high, std_error = replicate_interval(
            values, self.confidence_level, self.interval, self.name
        )
        return self.result(
            float(values[0]),
            low,
            high,
            std_error,
            self.confidence_level,
            self.n_bootstraps,
            values[1:],
        )


@dataclass(frozen=True)
class BootstrapTestFinish(BootstrapIntervalFinish):
    def __call__(self, *parts: Any) -> BootstrapTest:  # type: ignore[override]
        half = len(parts) // 2
        a = _values(self.name, self.metric, *parts[:half])
        b = _values(self.name, self.metric, *parts[half:])
        difference = a - b
        low, high, std_error = replicate_interval(
            difference, self.confidence_level, self.interval, self.name
        )
        nan = float("nan")
        z = float(difference[0]) / std_error if std_error > 0 else nan
        if z == z and _rounding_only(difference, parts[0], parts[1], self.metric):
            warnings.warn(
                f"{self.name}: the two models' values differ by no more than the "
                "rounding of their weighted sums, in every replicate: they cannot be told "
                "apart, and z and p_value are NaN",
                UndefinedMetricWarning,
                stacklevel=3,
            )
            z = nan
        p_value = math.erfc(abs(z) / math.sqrt(2)) if z == z else nan
        return BootstrapTest(
            float(a[0]),
            float(b[0]),
            float(difference[0]),
            low,
            high,
            std_error,
            z,
            p_value,
            self.confidence_level,
            self.n_bootstraps,
            difference[1:],
        )


#: float64's unit roundoff
_UNIT_ROUNDOFF = 2.0**-53


def _rounding_only(
    difference: np.ndarray, choice: LabelChoice, scan: ReplicateScan, metric: Any
) -> bool:
    """Whether float weights' rounding alone can explain every replicate's difference.

    Unweighted (or with integer weights) the replicates' totals are exact, each
    metric correctly rounded, so two models that rank every pair alike give
    the same bits and a standard error of 0.  Float weights are summed in
    float64, in an order that depends on each model's ties: each value is
    then off by at most about ``4 n + 6`` unit roundoffs of its unit scale (a
    running sum of ``n`` weights times counts, products of such sums, their
    sum, a ratio), so differences all within ``16 (n + 2)`` (twice that with a
    margin, times McClish's magnification) are no evidence of a difference,
    and their spread is no standard error: a z from it is noise (two perfect
    models gave z = 2.5 on five rows).  A larger bound only calls a difference
    of ~1e-15 a row "not told apart"; a smaller one lets noise through.
    """
    if np.asarray(scan.pos).dtype.kind != "f":
        return False
    bound = 16 * (choice.n_rows + 2) * _UNIT_ROUNDOFF * _magnification(metric)
    defined = difference[~np.isnan(difference)]
    return bool(np.all(np.abs(defined) <= bound))


def _magnification(metric: Any) -> float:
    """How much a metric's finish magnifies an error of its total on the unit scale: McClish's
    standardisation divides by the width of its range, ``0.5 / (max - min)``; others 1."""
    if isinstance(metric, partial) and metric.func is _partial and metric.keywords["standardized"]:
        low, high = metric.keywords["bounds"]
        width = (high - low) - (high**2 - low**2) / 2  # the largest partial area less the least
        return 0.5 / width if width > 0 else math.inf
    return 1.0


def _values(
    name: str, metric: Any, choice: LabelChoice, scan: ReplicateScan, total: Any = None
) -> np.ndarray:
    """The estimate (index 0) and every replicate's value; all NaN when a class is missing."""
    if choice.pos_label is None:  # with a pos_label, every other label is negative
        BinaryTarget(name).check(choice.classes, choice.n_rows)
    if choice.weights_all_zero:
        raise ValueError(ZERO_WEIGHTS_MESSAGE)
    pos, neg = (scan.pos[0], scan.neg[0]) if len(scan.pos) else (0, 0)
    if not defined_or_warn(choice.n_classes, pos, neg):
        return np.full(len(scan.pos), np.nan)
    return metric(scan, total)


def replicate_interval(
    values: np.ndarray, confidence_level: float, kind: str, name: str
) -> tuple[float, float, float]:
    estimate, replicates = values[0], values[1:]
    defined = replicates[~np.isnan(replicates)]
    nan = float("nan")
    if estimate != estimate:
        return nan, nan, nan
    if len(defined) < len(replicates):
        warnings.warn(
            f"{name}: {len(replicates) - len(defined)} of {len(replicates)} bootstrap "
            "replicates drew no row of a class; they are left out of the interval",
            UndefinedMetricWarning,
            stacklevel=4,
        )
    if len(defined) < 2:
        return nan, nan, nan
    # replicates that do not vary have a standard deviation of exactly 0 (np.std of 200
    # copies of 0.3 gives 5.6e-17: its mean is rounded), so that a test's z is NaN, not 1e16
    std_error = 0.0 if np.all(defined == defined[0]) else float(np.std(defined, ddof=1))
    alpha = 1 - confidence_level
    if kind == "normal":
        z = NormalDist().inv_cdf(1 - alpha / 2)
        return float(estimate - z * std_error), float(estimate + z * std_error), std_error
    low, high = (float(q) for q in np.quantile(defined, [alpha / 2, 1 - alpha / 2]))
    if kind == "basic":
        low, high = 2 * float(estimate) - high, 2 * float(estimate) - low
    return low, high, std_error
