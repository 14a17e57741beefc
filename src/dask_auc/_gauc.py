"""GAUC from the per-group table: group weights, their weighted mean, its interval.

Runs in the calling process, on the table the grouped AUC's buckets made (one
row per group): each group's weight in GAUC, the weighted mean over the
groups holding both classes (weights of any magnitude scaled exactly), GAUC's
cluster-bootstrap interval, and the calibration metrics over all rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._kernels.core.calibration import calibration_values
from ._kernels.core.validation import warn_undefined
from ._kernels.groups.pair_sums import SAFE_EXPONENT
from ._kernels.groups.plan import GroupPlan
from ._roc import BootstrapInterval, grouped_interval


@dataclass(frozen=True)
class GaucBootstrap:
    """The GAUC interval asked for: replicates, level, seed, whether numba may run."""

    n_bootstraps: int
    confidence_level: float
    seed: int
    compiled: bool


def gauc_interval(
    per_group: pd.DataFrame, weights: np.ndarray, gauc: float, bootstrap: GaucBootstrap
) -> BootstrapInterval:
    """GAUC's cluster bootstrap over the groups holding both classes (as ``gauc`` counts them)."""
    both = ((per_group["n_pos"] > 0) & (per_group["n_neg"] > 0)).to_numpy()
    return grouped_interval(
        per_group.index[both],
        per_group["auc"].to_numpy()[both],
        scaled_to_sum(weights[both]) if both.any() else weights[both],
        estimate=gauc,
        n_bootstraps=bootstrap.n_bootstraps,
        confidence_level=bootstrap.confidence_level,
        random_state=bootstrap.seed,
        compiled=bootstrap.compiled,
    )


def check_probabilities(plan: GroupPlan) -> None:
    """scikit-learn's errors for probabilities outside [0, 1] (the calibration metrics)."""
    if plan.high > 1:
        raise ValueError(f"y_prob contains values greater than 1: {plan.high}")
    if plan.low < 0:
        raise ValueError(f"y_prob contains values lower than 0: {plan.low}")


def overall_calibration(
    totals: dict[str, np.ndarray], metrics: tuple[str, ...]
) -> dict[str, float]:
    values = {name: float(v[0]) for name, v in calibration_values(totals, metrics).items()}
    if "normalized_entropy" in values and math.isnan(values["normalized_entropy"]):
        warn_undefined(
            "Normalized entropy is not defined when every row (of nonzero weight) is of one "
            "class: the base rate's entropy is 0; overall normalized_entropy is NaN."
        )
    return values


def group_weights(per_group: pd.DataFrame, gauc_weight: str) -> np.ndarray:
    weighted = "weight_pos" in per_group
    pos = per_group["weight_pos" if weighted else "n_pos"].to_numpy(np.float64)
    neg = per_group["weight_neg" if weighted else "n_neg"].to_numpy(np.float64)
    if gauc_weight == "rows":
        return pos + neg
    if gauc_weight == "positives":
        return pos
    return np.ones(len(per_group))


def weighted_mean(per_group: pd.DataFrame, weights: np.ndarray) -> float:
    both = ((per_group["n_pos"] > 0) & (per_group["n_neg"] > 0)).to_numpy()
    weights = scaled_to_sum(weights[both])
    total = float(weights.sum())
    if not both.any() or total == 0:
        reason = "their weights sum to 0"
        if not both.any():
            reason = "no group holds both classes"
            if "weight_pos" in per_group:  # every weight zero lands here: say so
                reason += " with nonzero sample_weight"
        warn_undefined(f"GAUC is not defined: {reason}; gauc is NaN.")
        return float("nan")
    auc = per_group["auc"].to_numpy()[both]
    return float(np.dot(weights, auc) / total)


def scaled_to_sum(weights: np.ndarray) -> np.ndarray:
    """Group weights beyond ``2**±SAFE_EXPONENT`` times a power of two that leaves their mean.

    Weights of 1e300 would overflow their sum; the power of two brings the
    largest to [0.5, 1), exactly.  Ordinary weights are left bit for bit.
    """
    largest = float(weights.max()) if len(weights) else 0.0
    if largest == 0 or 2.0**-SAFE_EXPONENT <= largest <= 2.0**SAFE_EXPONENT:
        return weights
    return np.ldexp(weights, -np.frexp(largest)[1])
