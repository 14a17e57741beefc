"""Each question of the ROC made into tasks: its parameters checked, its parts, its finish.

Every function takes the :class:`~.sort.CurveSort` of one input and returns
the answer (or, with ``compute=False``, its :class:`~dask_auc.LazyScore`);
the :class:`~dask_auc.ROC` methods, documented for users, call them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import pandas as pd

from .._engine import LazyScore, split_every_default
from .._kernels.binary.curves import ROC as ROC_CURVE
from .._kernels.binary.curves import CurveKind, bucket_curve
from .._kernels.binary.delong import bucket_contexts, placement_square_sums, total_square_sums
from .._kernels.binary.det import bucket_det
from .._kernels.binary.gains import bucket_gains_cuts
from .._kernels.binary.ks import bucket_ks
from .._kernels.binary.operating_point import RATE_TARGETS, Target, bucket_operating_point
from .._kernels.core.validation import BinaryTarget
from .._kernels.sort.labels import LabelChoice
from .bootstrap import interval_of
from .finish import (
    CurveFinish,
    DeLongIntervalFinish,
    DetFinish,
    GainsFinish,
    OperatingPointFinish,
    PartialFinish,
    QueryFinish,
    auc_of,
    average_precision_of,
    ks_of,
)
from .labels import TargetLabels, average_precision_labels, curve_labels, det_labels
from .params import check_query, checked_once
from .replicates import RocReplicates
from .results import AUCInterval, BootstrapInterval, KSStatistic, OperatingPoint
from .sort import CurveSort

WEIGHTS_MESSAGE = (
    "sample_weight is not supported for DeLong's variance: it is defined for "
    "unweighted rows only (pass sample_weight=None)"
)


def auc_query(
    sort: CurveSort,
    *,
    max_fpr: float | None,
    split_every: int | None,
    compute: bool,
    multi_class: str,
) -> Any:
    """The exact ROC AUC; McClish's partial AUC with ``max_fpr``."""
    checked = check_query(
        "roc_auc_score",
        max_fpr=max_fpr,
        split_every=split_every,
        compute=compute,
    )
    max_fpr = checked["max_fpr"]
    target = BinaryTarget("roc_auc_score", multi_class=multi_class, max_fpr=max_fpr)
    if max_fpr is None or max_fpr == 1.0:
        key, finish = sort.area(checked["split_every"]), QueryFinish(auc_of, TargetLabels(target))
    else:
        bounds = (0.0, max_fpr)
        key, finish = (
            sort.partial_area(bounds),
            QueryFinish(PartialFinish(bounds), TargetLabels(target)),
        )
    return _returned(sort.query([key], finish, "roc_auc_score"), checked["compute"])


def curve_query(
    sort: CurveSort,
    curve: CurveKind,
    *,
    drop_intermediate: bool = False,
    max_points: int | None = None,
    with_score: bool = False,
    rule: Callable[[LabelChoice], None] = curve_labels,
) -> LazyScore:
    """The lazy curve of ``curve`` kind; with ``with_score`` its exact AUC or AP beside it."""
    parts = sort.per_bucket(
        "curve-points",
        bucket_curve,
        curve,
        drop_intermediate,
        max_points,
        each=sort.contexts,
        points=True,
    )
    keys: list[Hashable] = [sort.contexts]
    if with_score:
        keys.append(sort.area(None) if curve is ROC_CURVE else sort.precision_sum())
    finish = QueryFinish(CurveFinish(curve, max_points, with_score), rule)
    return sort.query(keys + parts, finish, f"{curve.name}_curve")


def partial_auc_query(
    sort: CurveSort,
    *,
    fpr_range: tuple[float, float] | None = None,
    tpr_range: tuple[float, float] | None = None,
    standardized: bool = True,
    compute: bool = True,
) -> float | LazyScore:
    """The partial AUC over an FPR or a TPR range, as :func:`dask_auc.partial_roc_auc_score`."""
    name = "partial_roc_auc_score"
    checked = check_query(
        name,
        fpr_range=fpr_range,
        tpr_range=tpr_range,
        standardized=standardized,
        compute=compute,
    )
    fpr_range, tpr_range = checked["fpr_range"], checked["tpr_range"]
    if (fpr_range is None) == (tpr_range is None):
        given = "both" if fpr_range is not None else "neither"
        raise ValueError(
            f"{name} needs exactly one of fpr_range and tpr_range, got {given}: "
            "fpr_range=(low, high) integrates the ROC curve over false positive rates, "
            "tpr_range=(low, high) over true positive rates."
        )
    swap = tpr_range is not None
    bounds = tpr_range if swap else fpr_range
    target = BinaryTarget(name)
    if bounds == (0.0, 1.0):  # the whole curve on either axis, standardised or not: the AUC
        key, finish = sort.area(None), QueryFinish(auc_of, TargetLabels(target))
    else:
        key = sort.partial_area(bounds, swap)
        partial = PartialFinish(bounds, swap=swap, standardized=checked["standardized"])
        finish = QueryFinish(partial, TargetLabels(target))
    return _returned(sort.query([key], finish, name), checked["compute"])


def average_precision_query(sort: CurveSort, *, compute: bool = True) -> float | LazyScore:
    """Average precision, as :func:`dask_auc.average_precision_score` with this ``pos_label``."""
    compute = check_query("average_precision_score", compute=compute)["compute"]
    keys = [sort.contexts, sort.precision_sum()]
    finish = QueryFinish(average_precision_of, average_precision_labels)
    return _returned(sort.query(keys, finish, "average_precision_score"), compute)


def points_query(
    sort: CurveSort, curve: CurveKind, name: str, *, compute: bool = True, **options: Any
) -> Any:  # the arrays of ``name`` (their number depends on it), or LazyScore
    """The points of ``curve`` as the public function ``name`` gives them.

    ``roc_curve`` (``ROC_CURVE``), ``precision_recall_curve``
    (``PRECISION_RECALL``) and ``confusion_matrix_at_thresholds``
    (``CONFUSION_MATRIX``): ``options`` (``drop_intermediate``, ``max_points``)
    are checked against ``name``'s table, so the messages name it.
    """
    checked = check_query(name, compute=compute, **options)
    compute = checked.pop("compute")
    return _returned(curve_query(sort, curve, **checked), compute)


def det_curve_query(
    sort: CurveSort,
    *,
    drop_intermediate: bool = False,
    max_points: int | None = None,
    compute: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | LazyScore:
    """``fpr, fnr, thresholds`` as :func:`dask_auc.det_curve`."""
    checked = check_query(
        "det_curve",
        drop_intermediate=drop_intermediate,
        max_points=max_points,
        compute=compute,
    )
    drop_intermediate, max_points = checked["drop_intermediate"], checked["max_points"]
    lazy = sort.each_bucket(
        "det-points",
        bucket_det,
        drop_intermediate,
        max_points,
        finish=QueryFinish(DetFinish(max_points), det_labels),
        label="det_curve",
    )
    return _returned(lazy, checked["compute"])


def ks_query(sort: CurveSort, *, compute: bool = True) -> KSStatistic | LazyScore:
    """The Kolmogorov-Smirnov statistic, as :func:`dask_auc.ks_statistic`."""
    compute = check_query("ks_statistic", compute=compute)["compute"]
    lazy = sort.each_bucket(
        "curve-ks", bucket_ks, finish=QueryFinish(ks_of, curve_labels), label="ks_statistic"
    )
    return _returned(lazy, compute)


def operating_point_query(
    sort: CurveSort,
    *,
    fpr: float | None = None,
    tpr: float | None = None,
    precision: float | None = None,
    recall: float | None = None,
    threshold: float | None = None,
    criterion: str | None = None,
    cost: tuple[float, float] | None = None,
    compute: bool = True,
) -> OperatingPoint | LazyScore:
    """The threshold meeting one target, as :func:`dask_auc.operating_point`."""
    checked = check_query(
        "operating_point",
        fpr=fpr,
        tpr=tpr,
        precision=precision,
        recall=recall,
        threshold=threshold,
        criterion=criterion,
        cost=cost,
        compute=compute,
    )
    target = _one_target(checked)
    lazy = sort.each_bucket(
        "operating-point",
        bucket_operating_point,
        target,
        finish=QueryFinish(OperatingPointFinish(target), curve_labels),
        label="operating_point",
    )
    return _returned(lazy, checked["compute"])


def gains_table_query(
    sort: CurveSort, *, n_bins: int = 10, compute: bool = True
) -> pd.DataFrame | LazyScore:
    """The gains (lift) table, as :func:`dask_auc.gains_table`."""
    checked = check_query("gains_table", n_bins=n_bins, compute=compute)
    n_bins = checked["n_bins"]
    lazy = sort.each_bucket(
        "gains-cuts",
        bucket_gains_cuts,
        n_bins,
        finish=QueryFinish(GainsFinish(n_bins), curve_labels),
        label="gains_table",
    )
    return _returned(lazy, checked["compute"])


def ci_query(
    sort: CurveSort,
    replicates: RocReplicates,
    weighted: bool,
    *,
    confidence_level: float = 0.95,
    method: str = "delong",
    split_every: int | None = None,
    compute: bool = True,
    metric: str = "roc_auc",
    n_bootstraps: int = 2000,
    random_state: Any = None,
    groups: Any = None,
    interval: str = "percentile",
    **params: Any,
) -> AUCInterval | BootstrapInterval | LazyScore:
    """A confidence interval: the AUC's by DeLong, or any metric's by the bootstrap."""
    checked = check_query(
        "roc_auc_ci",
        confidence_level=confidence_level,
        method=method,
        split_every=split_every,
        compute=compute,
    )
    if method == "bootstrap":
        with checked_once(checked):  # the level and compute: checked here, not again
            return interval_of(
                replicates.sort(groups),
                name="bootstrap_ci",
                metric=metric,
                n_bootstraps=n_bootstraps,
                confidence_level=confidence_level,
                random_state=random_state,
                interval=interval,
                compute=compute,
                params=params,
            )
    if metric != "roc_auc" or params or groups is not None:
        raise ValueError(
            "DeLong's interval is of the AUC only: pass method='bootstrap' for "
            f"metric={metric!r}, groups or {sorted(params)}"
        )
    if weighted:
        raise ValueError(WEIGHTS_MESSAGE)
    graph = sort.graph
    contexts = graph.task("auc-delong-context", bucket_contexts, sort.summaries)
    squares = sort.per_bucket("auc-delong-squares", placement_square_sums, each=contexts)
    sums = graph.tree_reduce(
        squares,
        checked["split_every"] or split_every_default(),
        "auc-delong-sum",
        combine=total_square_sums,
    )
    finish = QueryFinish(
        DeLongIntervalFinish(checked["confidence_level"]), TargetLabels(BinaryTarget("roc_auc_ci"))
    )
    return _returned(sort.query([sums, contexts], finish, "roc_auc_ci"), checked["compute"])


def labels_query(sort: CurveSort, *, compute: bool = True) -> tuple[Any, ...] | LazyScore:
    """The distinct labels of ``y_true``, sorted (pROC's ``levels``), zero weights included."""
    compute = check_query("roc", compute=compute)["compute"]
    return _returned(sort.graph.lazy([sort.choice], _labels_of, "labels"), compute)


def _labels_of(choice: LabelChoice) -> tuple[Any, ...]:
    return choice.classes


def _returned(lazy: LazyScore, compute: bool) -> Any:
    return lazy.compute() if compute else lazy


def _one_target(checked: dict[str, Any]) -> Target:
    names = (*RATE_TARGETS, "threshold", "criterion", "cost")
    given = [name for name in names if checked[name] is not None]
    if len(given) != 1:
        shown = ", ".join(f"{name}={checked[name]!r}" for name in given) or "none"
        raise ValueError(
            "operating_point needs exactly one of fpr, tpr, precision, recall, threshold, "
            f"criterion or cost; got {shown}."
        )
    (name,) = given
    if name == "criterion":
        return Target(checked["criterion"])
    return Target(name, checked[name])
