"""The plans of the ROC's queries: each question's tasks on one input's sort, ending in its finish.

A plan is ``plan(sort, query, **checked)``: the :class:`~.sort.CurveSort` of
one input, the query's :class:`~.declarations.BinaryQuery` (its kernel, its
label rule, its name) and its parameters, checked once by the caller
(:func:`.registry.ask`), which passes every one of its table's: a plan names
them (typed) but keeps no default of its own for them (the signatures of the
public function and the ``ROC`` method hold those).  It returns the lazy answer
(:class:`~dask_auc.LazyScore`); nothing here computes.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from .._engine import LazyScore, split_every_default
from .._kernels.binary.curve_context import CurveContext
from .._kernels.binary.curves import ROC as ROC_CURVE
from .._kernels.binary.curves import CurveKind, bucket_curve
from .._kernels.binary.delong import bucket_contexts, total_square_sums
from .._kernels.binary.operating_point import RATE_TARGETS, Target
from .._kernels.core.validation import BinaryTarget
from .._kernels.sort.labels import LabelChoice
from .declarations import BinaryQuery
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
from .labels import TargetLabels, curve_labels
from .sort import CurveSort

WEIGHTS_MESSAGE = (
    "sample_weight is not supported for DeLong's variance: it is defined for "
    "unweighted rows only (pass sample_weight=None)"
)


def auc_plan(
    sort: CurveSort,
    query: BinaryQuery,
    *,
    max_fpr: float | None,
    split_every: int | None,
    multi_class: str,
) -> LazyScore:
    """The exact ROC AUC; McClish's partial AUC with ``max_fpr``.

    ``multi_class`` words the error of a target of more than two classes, as
    scikit-learn's errors for a 1-D ``y_score`` depend on it.
    """
    target = BinaryTarget(query.function, multi_class=multi_class, max_fpr=max_fpr)
    finish: Callable[..., float]
    if max_fpr is None or max_fpr == 1.0:
        key, finish = sort.area(split_every), auc_of
    else:
        bounds = (0.0, max_fpr)
        key, finish = sort.partial_area(bounds), PartialFinish(bounds)
    return sort.query([key], QueryFinish(finish, TargetLabels(target)), query.function)


def partial_auc_plan(
    sort: CurveSort,
    query: BinaryQuery,
    *,
    fpr_range: tuple[float, float] | None,
    tpr_range: tuple[float, float] | None,
    standardized: bool,
) -> LazyScore:
    """The partial AUC over an FPR or a TPR range."""
    bounds, swap = one_range(query.function, fpr_range, tpr_range)
    target = TargetLabels(BinaryTarget(query.function))
    finish: Callable[..., float]
    if bounds == (0.0, 1.0):  # the whole curve on either axis, standardised or not: the AUC
        key, finish = sort.area(None), auc_of
    else:
        key = sort.partial_area(bounds, swap)
        finish = PartialFinish(bounds, swap=swap, standardized=standardized)
    return sort.query([key], QueryFinish(finish, target), query.function)


def one_range(
    name: str, fpr_range: tuple[float, float] | None, tpr_range: tuple[float, float] | None
) -> tuple[tuple[float, float], bool]:
    """The one range given and whether it is on the TPR axis (``swap``)."""
    if (fpr_range is None) == (tpr_range is None):
        given = "both" if fpr_range is not None else "neither"
        raise ValueError(
            f"{name} needs exactly one of fpr_range and tpr_range, got {given}: "
            "fpr_range=(low, high) integrates the ROC curve over false positive rates, "
            "tpr_range=(low, high) over true positive rates."
        )
    if tpr_range is not None:
        return tpr_range, True
    assert fpr_range is not None
    return fpr_range, False


def average_precision_plan(sort: CurveSort, query: BinaryQuery) -> LazyScore:
    """Average precision of the class ``average_precision_score`` asks about."""
    assert query.labels is not None
    finish = QueryFinish(average_precision_of, query.labels)
    return sort.query([sort.contexts, sort.precision_sum()], finish, query.function)


def curve_query(
    sort: CurveSort,
    curve: CurveKind,
    *,
    drop_intermediate: bool,
    max_points: int | None,
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


def points_plan(curve: CurveKind) -> Callable[..., LazyScore]:
    """The plan of the points of ``curve``: ``roc_curve``, ``precision_recall_curve``, ..."""

    def plan(
        sort: CurveSort,
        query: BinaryQuery,
        *,
        drop_intermediate: bool = False,  # confusion_matrix_at_thresholds takes none: every point
        max_points: int | None,
    ) -> LazyScore:
        return curve_query(sort, curve, drop_intermediate=drop_intermediate, max_points=max_points)

    plan.__name__ = plan.__qualname__ = f"{curve.name}_points_plan"
    return plan


def det_curve_plan(
    sort: CurveSort, query: BinaryQuery, *, drop_intermediate: bool, max_points: int | None
) -> LazyScore:
    """``fpr, fnr, thresholds`` of the DET curve."""
    return _each_bucket(sort, query, DetFinish(max_points), drop_intermediate, max_points)


def ks_plan(sort: CurveSort, query: BinaryQuery) -> LazyScore:
    """The Kolmogorov-Smirnov statistic: the largest of the buckets' largest gaps."""
    return _each_bucket(sort, query, ks_of)


def operating_point_plan(sort: CurveSort, query: BinaryQuery, **targets: Any) -> LazyScore:
    """The threshold meeting the one target given (``fpr=``, ..., ``criterion=``, ``cost=``)."""
    target = _one_target(targets)
    return _each_bucket(sort, query, OperatingPointFinish(target), target)


def gains_table_plan(sort: CurveSort, query: BinaryQuery, *, n_bins: int) -> LazyScore:
    """The gains (lift) table of ``n_bins`` bins of equal row counts."""
    return _each_bucket(sort, query, GainsFinish(n_bins), n_bins)


def _each_bucket(
    sort: CurveSort, query: BinaryQuery, finish: Callable[..., Any], *args: Any
) -> LazyScore:
    """``query.kernel(bucket, its context, *args)`` per bucket, then ``finish`` of them all."""
    assert query.kernel is not None and query.labels is not None
    kind = query.kernel.__name__.replace("_", "-")
    return sort.each_bucket(
        kind, query.kernel, *args, finish=QueryFinish(finish, query.labels), label=query.function
    )


def delong_plan(
    sort: CurveSort, query: BinaryQuery, *, confidence_level: float, split_every: int | None
) -> LazyScore:
    """DeLong's interval of the AUC: the placements' square sums over the buckets."""
    if sort.weighted:
        raise ValueError(WEIGHTS_MESSAGE)
    graph = sort.graph
    contexts = graph.task("auc-delong-context", bucket_contexts, sort.summaries)
    assert query.kernel is not None  # placement_square_sums: each bucket's part of the sums
    squares = sort.per_bucket("auc-delong-squares", query.kernel, each=contexts)
    sums = graph.tree_reduce(
        squares, split_every or split_every_default(), "auc-delong-sum", combine=total_square_sums
    )
    finish = QueryFinish(
        DeLongIntervalFinish(confidence_level), TargetLabels(BinaryTarget(query.function))
    )
    return sort.query([sums, contexts], finish, query.function)


def labels_query(sort: CurveSort) -> LazyScore:
    """The distinct labels of ``y_true``, sorted (pROC's ``levels``), zero weights included."""
    return sort.graph.lazy([sort.choice], _labels_of, "labels")


def _labels_of(choice: LabelChoice) -> tuple[Any, ...]:
    return choice.classes


def totals_query(sort: CurveSort) -> LazyScore:
    """``(positives, negatives)``: rows, or summed weights (the curves' totals)."""
    return sort.query([sort.contexts], _totals_of, "totals")


def _totals_of(choice: LabelChoice, contexts: list[CurveContext]) -> tuple[Any, Any]:
    """Python numbers: ints of rows (exact), floats of summed weights."""
    positives, negatives = contexts[0].total
    return tuple(v.item() if hasattr(v, "item") else v for v in (positives, negatives))  # type: ignore[return-value]


def _one_target(checked: dict[str, Any]) -> Target:
    names = (*RATE_TARGETS, "threshold", "criterion", "cost")
    given = [name for name in names if checked.get(name) is not None]
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
