"""Every binary query of dask-auc, declared once: the registry of the binary wing.

One :class:`~.declarations.BinaryQuery` per metric of one binary input: its
public function and :class:`~dask_auc.ROC` method, its parameters, its plan,
its bucket kernel, its label rule, its result, and the metrics of its
bootstrap replicates (:class:`~.declarations.Replicated`).  Everything else
takes its names from here: the ROC's methods and the public functions ask
:func:`ask`, ``bootstrap_ci(metric=...)`` looks its metric up in
:data:`BOOTSTRAP_METRICS`, and the tests check every entry (its method's
signature, its result type, its place in the tests' metric registry).
A new binary query is one entry here plus its kernel and plan.

Examples
--------
>>> QUERIES["ks_statistic"].method, [r.metric for r in QUERIES["ks_statistic"].bootstrap]
('ks', ['ks'])
>>> BY_METHOD["ks"].function
'ks_statistic'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from .._engine import LazyScore, lazy_of
from .._kernels.binary.curves import CONFUSION_MATRIX, PRECISION_RECALL, bucket_curve
from .._kernels.binary.curves import ROC as ROC_CURVE
from .._kernels.binary.delong import placement_square_sums
from .._kernels.binary.det import bucket_det
from .._kernels.binary.gains import bucket_gains_cuts
from .._kernels.binary.ks import bucket_ks
from .._kernels.binary.operating_point import CRITERIA, bucket_operating_point
from .._kernels.binary.reliability import bucket_blocks
from .._kernels.replicates.counts import check_seed
from .._kernels.replicates.tie_groups import ReplicateSpec
from .._params import (
    AtLeast,
    Boolean,
    Interval,
    Label,
    NonNegativePair,
    Options,
    Range,
    check_params,
)
from .declarations import BinaryQuery, Replicated
from .labels import average_precision_labels, curve_labels, det_labels
from .params import (
    COMPUTE,
    CONFIDENCE_LEVEL,
    CURVE,
    INTERVALS,
    MAX_FPR,
    MAX_POINTS,
    POS_LABEL,
    RATE,
    check_query,
    register,
)
from .queries import (
    auc_plan,
    average_precision_plan,
    delong_plan,
    det_curve_plan,
    gains_table_plan,
    ks_plan,
    operating_point_plan,
    partial_auc_plan,
    points_plan,
)
from .reliability import reliability_plan
from .replicate_metrics import (
    BootstrapIntervalFinish,
    replicate_auc,
    replicate_kind,
    replicate_partial,
)
from .replicates import ReplicateSort
from .results import (
    AUCInterval,
    BootstrapInterval,
    KSStatistic,
    OperatingPoint,
    ReliabilityDiagram,
)
from .sort import CurveSort

_ROC_AUC = BinaryQuery(
    function="roc_auc_score",
    method="auc",
    parameters={
        "average": Options(("micro", "macro", "samples", "weighted", None)),
        "max_fpr": MAX_FPR,
        "multi_class": Options(("raise", "ovr", "ovo")),
        "compute": COMPUTE,
        "split_every": AtLeast(2),
    },
    plan=auc_plan,
    kernel=None,
    labels=None,
    result=float,
    bootstrap=(Replicated("roc_auc", ("max_fpr",), replicate_auc),),
)
_PARTIAL_AUC = BinaryQuery(
    function="partial_roc_auc_score",
    method="partial_auc",
    parameters={
        "fpr_range": Range(),
        "tpr_range": Range(),
        "standardized": Boolean(),
        "compute": COMPUTE,
    },
    plan=partial_auc_plan,
    kernel=None,
    labels=None,
    result=float,
    bootstrap=(
        Replicated("partial_auc", ("fpr_range", "tpr_range", "standardized"), replicate_partial),
    ),
)
_AVERAGE_PRECISION = BinaryQuery(
    function="average_precision_score",
    method="average_precision",
    parameters={
        "average": Options(("micro", "samples", "weighted", "macro", None)),
        "pos_label": Label(none=False),
        "compute": COMPUTE,
    },
    plan=average_precision_plan,
    kernel=None,
    labels=average_precision_labels,
    result=float,
    bootstrap=(Replicated("average_precision", (), replicate_kind("average_precision")),),
)


def _points(function: str, curve: Any, parameters: Mapping[str, Any]) -> BinaryQuery:
    """The entry of a curve's points: ``fpr, tpr, thresholds`` and their kin."""
    return BinaryQuery(
        function, function, parameters, points_plan(curve), bucket_curve, curve_labels, tuple
    )


_OPERATING_POINT = BinaryQuery(
    function="operating_point",
    method="operating_point",
    parameters={
        "fpr": RATE,
        "tpr": RATE,
        "precision": RATE,
        "recall": RATE,
        "threshold": Interval(-np.inf, np.inf, none=True),
        "criterion": Options((*CRITERIA, None)),
        "cost": NonNegativePair(names="(cost_fp, cost_fn)"),
        "pos_label": POS_LABEL,
        "compute": COMPUTE,
    },
    plan=operating_point_plan,
    kernel=bucket_operating_point,
    labels=curve_labels,
    result=OperatingPoint,
    bootstrap=(
        Replicated("tpr_at_fpr", ("fpr",), replicate_kind("tpr_at_fpr", "fpr")),
        Replicated("fpr_at_tpr", ("tpr",), replicate_kind("fpr_at_tpr", "tpr")),
    ),
)
_KS = BinaryQuery(
    function="ks_statistic",
    method="ks",
    parameters={"pos_label": POS_LABEL, "compute": COMPUTE},
    plan=ks_plan,
    kernel=bucket_ks,
    labels=curve_labels,
    result=KSStatistic,
    bootstrap=(Replicated("ks", (), replicate_kind("ks")),),
)


def _confidence_interval(
    sort: CurveSort,
    query: BinaryQuery,
    *,
    confidence_level: float,
    method: str,
    split_every: int | None,
    metric: str,
    n_bootstraps: int,
    interval: str,
    random_state: Any,
    groups: Any,
    **params: Any,
) -> LazyScore:
    """``ROC.ci``: DeLong's interval of the AUC, or any replicated metric's by the bootstrap.

    ``ROC.ci`` passes every parameter (the bootstrap's unchecked, in ``passed``).
    """
    if method == "bootstrap":  # checked and worded as bootstrap_ci's
        return interval_of(
            sort.replicates.sort(groups),
            name="bootstrap_ci",
            metric=metric,
            params=params,
            n_bootstraps=n_bootstraps,
            confidence_level=confidence_level,
            random_state=random_state,
            interval=interval,
        )
    if metric != "roc_auc" or params or groups is not None:
        raise ValueError(
            "DeLong's interval is of the AUC only: pass method='bootstrap' for "
            f"metric={metric!r}, groups or {sorted(params)}"
        )
    return delong_plan(sort, query, confidence_level=confidence_level, split_every=split_every)


#: the metrics of the bootstrap's replicates, by their name in ``bootstrap_ci(metric=...)``
BOOTSTRAP_METRICS: dict[str, Replicated] = {
    replicate.metric: replicate
    for query in (_ROC_AUC, _PARTIAL_AUC, _AVERAGE_PRECISION, _KS, _OPERATING_POINT)
    for replicate in query.bootstrap
}
_BOOTSTRAP = {
    "metric": Options(tuple(BOOTSTRAP_METRICS)),
    "n_bootstraps": AtLeast(1, none=False),
    "confidence_level": CONFIDENCE_LEVEL,
    "interval": Options(INTERVALS),
    "pos_label": POS_LABEL,
    "compute": COMPUTE,
}
_CONFIDENCE_INTERVAL = BinaryQuery(
    function="roc_auc_ci",
    method="ci",
    parameters={
        "confidence_level": CONFIDENCE_LEVEL,
        "method": Options(("delong", "bootstrap")),
        "compute": COMPUTE,
        "split_every": AtLeast(2),
        # the bootstrap's, checked by the interval of method="bootstrap"
        **{name: _BOOTSTRAP[name] for name in ("metric", "n_bootstraps", "interval")},
    },
    plan=_confidence_interval,
    kernel=placement_square_sums,
    labels=None,
    result=(AUCInterval, BootstrapInterval),
)

#: every binary query, by its public function's name
QUERIES: dict[str, BinaryQuery] = {
    query.function: query
    for query in (
        _ROC_AUC,
        _PARTIAL_AUC,
        _AVERAGE_PRECISION,
        _points("roc_curve", ROC_CURVE, CURVE),
        _points("precision_recall_curve", PRECISION_RECALL, CURVE),
        _points(
            "confusion_matrix_at_thresholds",
            CONFUSION_MATRIX,
            {"pos_label": POS_LABEL, "compute": COMPUTE, "max_points": MAX_POINTS},
        ),
        BinaryQuery("det_curve", "det_curve", CURVE, det_curve_plan, bucket_det, det_labels, tuple),
        _KS,
        _OPERATING_POINT,
        BinaryQuery(
            function="gains_table",
            method="gains_table",
            parameters={
                "n_bins": AtLeast(1, none=False),
                "pos_label": POS_LABEL,
                "compute": COMPUTE,
            },
            plan=gains_table_plan,
            kernel=bucket_gains_cuts,
            labels=curve_labels,
            result=pd.DataFrame,
        ),
        _CONFIDENCE_INTERVAL,
        BinaryQuery(
            function="reliability_diagram",
            method="reliability",
            parameters={"max_points": MAX_POINTS, "compute": COMPUTE},
            plan=reliability_plan,
            kernel=bucket_blocks,
            labels=None,  # the binary target's rule (more than two labels raise)
            result=ReliabilityDiagram,
        ),
    )
}
#: every binary query, by its ROC method's name
BY_METHOD: dict[str, BinaryQuery] = {query.method: query for query in QUERIES.values()}
assert set(BOOTSTRAP_METRICS) == {r.metric for q in QUERIES.values() for r in q.bootstrap}
#: the constraint of each bootstrap metric's parameter: its query's
_METRIC_PARAMETERS = {
    name: query.parameters[name]
    for query in QUERIES.values()
    for replicate in query.bootstrap
    for name in replicate.parameters
}
register(
    {
        **{name: query.parameters for name, query in QUERIES.items()},
        "bootstrap_ci": _BOOTSTRAP,
        "bootstrap_test": _BOOTSTRAP,
    }
)


def ask(
    sort: CurveSort, method: str, /, *, passed: Mapping[str, Any] | None = None, **values: Any
) -> Any:
    """``ROC.<method>(**values)`` of ``sort``: checked once, planned, computed unless asked not.

    ``values`` are checked against the query's table (so the messages name its
    function), but those its caller checked already (:func:`.params.checked_once`);
    ``passed`` go to the plan unchecked (the bootstrap's own, checked by it).
    """
    query = BY_METHOD[method]
    checked = check_query(query.function, **values)
    compute = checked.pop("compute")
    lazy = query.plan(sort, query, **checked, **(passed or {}))
    return lazy.compute() if compute else lazy


def replicated(name: str, metric: str, params: dict[str, Any]) -> tuple[Any, Any]:
    """The replicate query and finish of the bootstrap ``metric`` with its ``params``."""
    allowed = BOOTSTRAP_METRICS[metric].parameters
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        takes = f"takes {', '.join(allowed)}" if allowed else "takes no parameter"
        raise TypeError(f"{name}: metric={metric!r} {takes}; got {', '.join(unknown)}")
    given = check_params(name, {k: _METRIC_PARAMETERS[k] for k in params}, **params)
    return BOOTSTRAP_METRICS[metric].plan(name, given)


def interval_of(
    sort: ReplicateSort,
    *,
    name: str,
    metric: str,
    params: dict[str, Any],
    n_bootstraps: int,
    confidence_level: float,
    random_state: Any,
    interval: str,
    replicate: tuple[Any, Any] | None = None,
    result: Callable[..., Any] = BootstrapInterval,
) -> LazyScore:
    """The lazy bootstrap interval of ``metric`` (and its ``params``) of a :class:`ReplicateSort`.

    The bootstrap's parameters are checked under ``name``'s table, but those
    its caller checked (:func:`.params.checked_once`); ``replicate``, the
    metric's replicate query and finish if the caller looked them up
    already; ``result(*fields of a BootstrapInterval)`` makes what is returned.
    """
    check_query(
        name,
        metric=metric,
        n_bootstraps=n_bootstraps,
        confidence_level=confidence_level,
        interval=interval,
    )
    query, finish_metric = replicate or replicated(name, metric, params)
    spec = ReplicateSpec(check_seed(random_state), n_bootstraps, sort.weighted)
    finish = BootstrapIntervalFinish(
        name, finish_metric, confidence_level, interval, n_bootstraps, result
    )
    return lazy_of(sort.parts(spec, query), finish, name)
