"""Bootstrap intervals and paired bootstrap tests of binary metrics, every replicate on one sort.

The rows are sorted once, by score, with each row's key (its position in the
input, or its group's key for the cluster bootstrap); each sorted bucket
then computes every replicate at once from counter-based Poisson(1) counts
(:mod:`dask_auc._kernels.replicates.bootstrap`), and the neighbour-only scan of the
buckets' summaries merges the replicates side by side.  A replicate's counts
depend on ``random_state``, the replicate's number and the row's key only:
the replicates -- and so the interval -- are the same, bit for bit, for any
partitioning, bucket count, scheduler or cluster.

Kinds of interval: ``"percentile"`` (the default, pROC's: quantiles of the
replicates, R's type 7 as :func:`numpy.quantile`), ``"basic"`` (the
percentile interval reflected about the estimate) and ``"normal"`` (the
estimate -/+ a normal quantile times the replicates' standard deviation).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from statistics import NormalDist
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ._engine import LazyScore, SortedGraph, lazy_of, map_indexed_blocks, prepared_blocks
from ._engine.inputs import Blocks, sizes_of
from ._kernels.binary.partial import mcclish
from ._kernels.core.validation import BinaryTarget, UndefinedMetricWarning, defined_or_warn
from ._kernels.replicates.bootstrap import (
    ReplicateQuery,
    ReplicateScan,
    ReplicateSpec,
    check_seed,
    combine,
    group_keys,
    mix64,
    position_keys,
    prepare_rows,
    replicate_keys,
    replicate_parts,
    replicate_scan,
    replicate_summary,
    scan_contexts,
    traced_plan,
    traced_rows,
    weighted_mean_replicates,
)
from ._kernels.replicates.bootstrap import counts_for as _counts_for
from ._kernels.sort.labels import LabelChoice, binary_bucket, choose_positive, plan_labels
from ._kernels.sort.plan import ZERO_WEIGHTS_MESSAGE
from ._params import AtLeast, Boolean, Interval, Label, Options, Range, check_params

#: the metrics a bootstrap interval is available for, and the parameters each takes
METRICS: dict[str, tuple[str, ...]] = {
    "roc_auc": ("max_fpr",),
    "partial_auc": ("fpr_range", "tpr_range", "standardized"),
    "average_precision": (),
    "ks": (),
    "tpr_at_fpr": ("fpr",),
    "fpr_at_tpr": ("tpr",),
}
INTERVALS = ("percentile", "basic", "normal")
_NAMES = ("y_true", "y_score", "sample_weight", "groups")
_PARAMETERS = {
    "metric": Options(tuple(METRICS)),
    "n_bootstraps": AtLeast(1, none=False),
    "confidence_level": Interval(0, 1, closed="neither"),
    "interval": Options(INTERVALS),
    "pos_label": Label(),
    "compute": Boolean(),
}
_METRIC_PARAMETERS = {
    "max_fpr": Interval(0, 1, closed="right", none=True),
    "fpr_range": Range(),
    "tpr_range": Range(),
    "standardized": Boolean(),
    "fpr": Interval(0, 1, closed="both", none=True),
    "tpr": Interval(0, 1, closed="both", none=True),
}


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


def bootstrap_counts(
    n_rows: int | None = None,
    *,
    n_bootstraps: int,
    random_state: int,
    positions: Any = None,
    groups: Any = None,
) -> np.ndarray:
    """The replicate counts every bootstrap of dask-auc applies: ``(n_bootstraps, rows)``.

    Row ``i`` of the input enters replicate ``b`` ``counts[b, i]`` times (a
    Poisson(1) draw from a hash of ``random_state``, ``b`` and the row's
    position; :doc:`/user-guide/confidence-intervals` gives the exact
    scheme).  With ``groups``, every row of one group key gets its group's
    count (the cluster bootstrap).  This is what :func:`bootstrap_ci` does
    inside each sorted bucket, for checking it with any other tool.

    Parameters
    ----------
    n_rows : int, optional
        The rows at positions ``0 .. n_rows - 1``.
    n_bootstraps : int
        Replicates ``0 .. n_bootstraps - 1``.
    random_state : int
        The seed, in ``[0, 2**64)``.
    positions : array-like of int, optional
        The rows' positions in the whole input instead of ``n_rows``.
    groups : array-like, optional
        The rows' group keys instead (any dtype; integers hash by their value).

    Returns
    -------
    ndarray of uint8, shape (n_bootstraps, rows)

    Examples
    --------
    >>> import dask_auc
    >>> dask_auc.bootstrap_counts(6, n_bootstraps=2, random_state=0)
    array([[0, 1, 1, 0, 1, 0],
           [1, 0, 0, 0, 1, 0]], dtype=uint8)
    """
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(
        random_state, (int, np.integer)
    ):
        raise TypeError("bootstrap_counts needs an int random_state, to be reproduced")
    seed = check_seed(random_state)
    given = [x is not None for x in (n_rows, positions, groups)]
    if sum(given) != 1:
        raise ValueError("bootstrap_counts needs exactly one of n_rows, positions and groups")
    if groups is not None:
        keys = group_keys(np.asarray(groups))
    else:
        keys = position_keys(np.arange(n_rows) if n_rows is not None else np.asarray(positions))
    return _counts_for(keys, replicate_keys(seed, np.arange(n_bootstraps)))


def bootstrap_ci(
    y_true: Any,
    y_score: Any,
    *,
    metric: str = "roc_auc",
    n_bootstraps: int = 2000,
    confidence_level: float = 0.95,
    random_state: Any = None,
    sample_weight: Any = None,
    groups: Any = None,
    pos_label: Any = None,
    interval: str = "percentile",
    compute: bool = True,
    **params: Any,
) -> BootstrapInterval | LazyScore:
    """A binary metric with its bootstrap interval, all replicates computed on one sort.

    The Poisson bootstrap: every row enters replicate ``b`` a Poisson(1)
    number of times, drawn from a hash of ``random_state``, ``b`` and the
    row's position in the input (:func:`bootstrap_counts`), so the result is
    the same, bit for bit, whatever the partitioning, the scheduler or the
    cluster, and reproducible from ``random_state``.  The rows are sorted
    once; each sorted bucket computes every replicate side by side.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`dask_auc.roc` (a replicate's weight is its count times
        the row's weight).
    metric : {'roc_auc', 'partial_auc', 'average_precision', 'ks', \
'tpr_at_fpr', 'fpr_at_tpr'}, default='roc_auc'
        ``roc_auc`` (with ``max_fpr``) as :func:`dask_auc.roc_auc_score`;
        ``partial_auc`` (``fpr_range`` or ``tpr_range``, ``standardized``) as
        :func:`dask_auc.partial_roc_auc_score`; ``average_precision``;
        ``ks`` (the statistic of :func:`dask_auc.ks_statistic`);
        ``tpr_at_fpr`` (``fpr=``: the highest TPR with ``FPR <= fpr``) and
        ``fpr_at_tpr`` (``tpr=``: the lowest FPR with ``TPR >= tpr``), as
        :func:`dask_auc.operating_point` chooses them.
    n_bootstraps : int, default=2000
        Replicates.
    confidence_level : float in (0, 1), default=0.95
    random_state : int, numpy Generator or None
        The seed (None: a fresh one, so the result is not reproducible).
    groups : same kinds as ``y_true``, optional
        A key per row: rows of one key are resampled together (the cluster
        bootstrap, e.g. all impressions of a user).  Missing keys raise.
    interval : {'percentile', 'basic', 'normal'}, default='percentile'
        The kind of interval (see the module notes); pROC's default is the
        percentile interval.
    compute : bool, default=True
        If False, return a :class:`~dask_auc.LazyScore`.
    **params
        The metric's parameters (above).

    Returns
    -------
    BootstrapInterval or LazyScore
        ``(estimate, low, high, std_error, confidence_level, n_bootstraps,
        replicates)``.  The estimate is the metric of the data (equal to the
        metric's function's result); unweighted, every AUC, KS, partial AUC
        and operating-point replicate is exact (one rounding of an exact
        rational), average precision's a float sum.  NaN with an
        :class:`~dask_auc.UndefinedMetricWarning` when ``y_true`` holds one
        class.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 1000)
    >>> s = y + rng.normal(size=1000)
    >>> ci = dask_auc.bootstrap_ci(y, s, n_bootstraps=200, random_state=7)
    >>> round(ci.estimate, 4), round(ci.low, 4), round(ci.high, 4)
    (0.7901, 0.7609, 0.8169)
    """
    name = "bootstrap_ci"
    _checked(name, metric, n_bootstraps, confidence_level, interval, pos_label, compute)
    query = _metric_of(name, metric, params)  # before the sort is built: errors first
    sort = replicate_sort(y_true, y_score, sample_weight, groups, pos_label)
    return interval_of(
        sort,
        name=name,
        metric=metric,
        n_bootstraps=n_bootstraps,
        confidence_level=confidence_level,
        random_state=random_state,
        interval=interval,
        compute=compute,
        params=params,
        query=query,
    )


def interval_of(
    sort: ReplicateSort,
    *,
    name: str,
    metric: str,
    n_bootstraps: int,
    confidence_level: float,
    random_state: Any,
    interval: str,
    compute: bool,
    params: dict[str, Any],
    query: Any = None,
    result: Callable[..., Any] = BootstrapInterval,
) -> Any:
    """The bootstrap interval of ``metric`` from a :class:`ReplicateSort`.

    ``result(*fields of a BootstrapInterval)`` makes what is returned.
    """
    _checked(name, metric, n_bootstraps, confidence_level, interval, None, compute)
    query, finish_metric = query or _metric_of(name, metric, params)
    spec = ReplicateSpec(check_seed(random_state), n_bootstraps, sort.weighted)
    finish = _IntervalFinish(name, finish_metric, confidence_level, interval, n_bootstraps, result)
    lazy = lazy_of(sort.parts(spec, query), finish, name)
    return lazy.compute() if compute else lazy


def bootstrap_test(
    y_true: Any,
    score_a: Any,
    score_b: Any,
    *,
    metric: str = "roc_auc",
    n_bootstraps: int = 2000,
    confidence_level: float = 0.95,
    random_state: Any = None,
    sample_weight: Any = None,
    groups: Any = None,
    pos_label: Any = None,
    interval: str = "percentile",
    compute: bool = True,
    **params: Any,
) -> BootstrapTest | LazyScore:
    """The paired bootstrap test of two models scored on the same rows.

    Both models' replicates use the *same* counts (each row's count depends
    on its position, not on the model), so each replicate difference is
    paired, as in pROC's ``roc.test(method="bootstrap", paired=TRUE)``.
    Each model's scores are sorted once.

    Parameters
    ----------
    y_true, sample_weight, groups, pos_label, metric, n_bootstraps, \
confidence_level, random_state, interval, compute, **params
        As in :func:`bootstrap_ci`.
    score_a, score_b : same kinds as ``y_true``
        The two models' scores of the same rows (paired by position).

    Returns
    -------
    BootstrapTest or LazyScore
        ``(estimate_a, estimate_b, difference, low, high, std_error, z,
        p_value, confidence_level, n_bootstraps, replicates)``; ``z`` and
        ``p_value`` are NaN when the replicate differences do not vary.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 1000)
    >>> a, b = y + rng.normal(size=1000), y + 2 * rng.normal(size=1000)
    >>> test = dask_auc.bootstrap_test(y, a, b, n_bootstraps=200, random_state=7)
    >>> round(test.difference, 4), test.p_value < 0.001
    (0.1307, True)
    """
    name = "bootstrap_test"
    checked = _checked(name, metric, n_bootstraps, confidence_level, interval, pos_label, compute)
    query, finish_metric = _metric_of(name, metric, params)
    # one seed for both models: each row's counts are the same in both
    spec = ReplicateSpec(check_seed(random_state), n_bootstraps, sample_weight is not None)
    parts = [
        part
        for scores in (score_a, score_b)
        for part in replicate_sort(y_true, scores, sample_weight, groups, pos_label).parts(
            spec, query
        )
    ]
    finish = _TestFinish(name, finish_metric, confidence_level, interval, n_bootstraps)
    lazy = lazy_of(parts, finish, name)
    return lazy.compute() if checked["compute"] else lazy


def _checked(
    name: str,
    metric: str,
    n_bootstraps: int,
    confidence_level: float,
    interval: str,
    pos_label: Any,
    compute: bool,
) -> dict[str, Any]:
    return check_params(
        name,
        _PARAMETERS,
        metric=metric,
        n_bootstraps=n_bootstraps,
        confidence_level=confidence_level,
        interval=interval,
        pos_label=pos_label,
        compute=compute,
    )


def _metric_of(name: str, metric: str, params: dict[str, Any]) -> tuple[ReplicateQuery | None, Any]:
    """The per-bucket query of ``metric`` (None: the AUC, from the scan alone) and its finish."""
    allowed = METRICS[metric]
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        takes = f"takes {', '.join(allowed)}" if allowed else "takes no parameter"
        raise TypeError(f"{name}: metric={metric!r} {takes}; got {', '.join(unknown)}")
    given = check_params(name, {k: _METRIC_PARAMETERS[k] for k in params}, **params)
    if metric == "roc_auc":
        max_fpr = given.get("max_fpr")
        if max_fpr is None or max_fpr == 1.0:
            return None, _auc
        return ReplicateQuery("partial", bounds=(0.0, max_fpr)), partial(
            _partial, bounds=(0.0, max_fpr), swap=False, standardized=True
        )
    if metric == "partial_auc":
        fpr_range, tpr_range = given.get("fpr_range"), given.get("tpr_range")
        if (fpr_range is None) == (tpr_range is None):
            raise ValueError(
                f"{name}: metric='partial_auc' needs exactly one of fpr_range and tpr_range"
            )
        swap = tpr_range is not None
        bounds: tuple[float, float] = tpr_range if swap else fpr_range  # type: ignore[assignment]
        standardized = given.get("standardized", True)
        finish = partial(_partial, bounds=bounds, swap=swap, standardized=standardized)
        return ReplicateQuery("partial", bounds=bounds, swap=swap), finish
    if metric in ("tpr_at_fpr", "fpr_at_tpr"):
        target = given.get(allowed[0])
        if target is None:
            raise ValueError(f"{name}: metric={metric!r} needs {allowed[0]}=")
        return ReplicateQuery(metric, target=target), _RATES[metric]
    return ReplicateQuery(metric), _PLAIN[metric]


def replicate_rows(y_true: Any, y_score: Any, sample_weight: Any, groups: Any = None) -> Any:
    """The validated rows of one input, with their group keys: a block each, to be sorted."""
    prepare = partial(prepare_rows, weighted=sample_weight is not None)
    extra = () if groups is None else (groups,)
    return prepared_blocks(
        y_true, y_score, sample_weight, prepare=prepare, names=_NAMES, extra=extra
    )


def replicate_sort(
    y_true: Any, y_score: Any, sample_weight: Any, groups: Any, pos_label: Any
) -> ReplicateSort:
    """The :class:`ReplicateSort` of an input (``groups``: the cluster bootstrap's keys)."""
    rows = replicate_rows(y_true, y_score, sample_weight, groups)
    return ReplicateSort(rows, sample_weight is not None, groups is not None, pos_label)


class ReplicateSort:
    """Validated rows sorted once with their keys: the graph every replicate query reads.

    ``rows`` are :func:`replicate_rows`' blocks.  ``persist`` keeps the
    sorted buckets (the scores, row keys and weights: 16 or 24 bytes a row),
    so that later queries, of any metric, seed or number of replicates, sort
    nothing.
    """

    def __init__(self, rows: Any, weighted: bool, by_group: bool, pos_label: Any):
        self.weighted = weighted
        traced = map_indexed_blocks(traced_rows, rows)
        plan = partial(_traced_plan, by_group=by_group)
        self.graph = graph = SortedGraph(traced, plan=plan)
        self.choice = graph.task("bootstrap-positive", choose_positive, graph.plan_key, pos_label)
        self.buckets = graph.per_bucket("bootstrap-binary", binary_bucket, self.choice)
        self.persisted = False

    def persist(self) -> ReplicateSort:
        if not self.persisted:
            self.graph.persist([self.choice, self.graph.plan_key, *self.buckets])
            self.persisted = True
        return self

    def parts(self, spec: ReplicateSpec, query: ReplicateQuery | None) -> list[Any]:
        """Delayed ``[label choice, scan, (query totals)]`` of every replicate."""
        graph, plan = self.graph, self.graph.plan_key
        summaries = graph.per_bucket(
            "bootstrap-summary", replicate_summary, plan, spec, on=self.buckets
        )
        scan = graph.task("bootstrap-scan", replicate_scan, summaries)
        keys: list[Hashable] = [self.choice, scan]
        if query is not None:
            contexts = graph.task("bootstrap-contexts", scan_contexts, scan)
            parts = graph.per_bucket(
                "bootstrap-parts",
                replicate_parts,
                plan,
                spec,
                query,
                each=contexts,
                on=self.buckets,
            )
            keys.append(graph.task("bootstrap-total", combine, query.kind, parts))
        return graph.delayed(keys)


class RocReplicates:
    """The bootstrap's sort of a ROC's rows: of its source while lazy, of kept rows once persisted.

    A ROC's buckets hold distinct scores, not rows, and a row's replicate
    counts depend on its position: the bootstrap sorts the rows once more,
    with their positions.  :meth:`persist_with` keeps the input's validated
    rows (16 bytes a row, 24 weighted), read in the one pass that also makes
    the ROC's buckets, so every answer of a persisted ROC describes the same
    rows, whatever its source holds later.  The first bootstrap query sorts
    those rows and keeps that sort in their place.
    """

    def __init__(self, y_true: Any, y_score: Any, sample_weight: Any, pos_label: Any):
        self.inputs, self.pos_label = (y_true, y_score, sample_weight), pos_label
        self.kept: Any = None  # the persisted rows, until their sort is kept
        self.sorted: ReplicateSort | None = None
        self.persisted = False

    def persist_with(self, persist: Callable[..., tuple[Any, ...]]) -> None:
        """Keep the rows, persisted by ``persist(*blocks)`` with the ROC's buckets."""
        rows = replicate_rows(*self.inputs)
        self.kept = Blocks(list(persist(*rows)), sizes_of(rows))
        self.sorted, self.persisted = None, True

    def sort(self, groups: Any) -> ReplicateSort:
        """The sort of the rows (with ``groups``' keys: on a lazy ROC only)."""
        if groups is not None and self.persisted:
            raise ValueError(
                "ci(method='bootstrap', groups=...) of a persisted ROC: the groups would pair "
                "by position with its persisted rows, read from a source that may hold other "
                "rows by now; call ci(groups=...) before persist(), or "
                "dask_auc.bootstrap_ci(y_true, y_score, groups=...)"
            )
        if groups is not None:
            return replicate_sort(*self.inputs, groups, self.pos_label)
        if self.sorted is None:
            rows = self.kept if self.persisted else replicate_rows(*self.inputs)
            self.sorted = ReplicateSort(rows, self.inputs[2] is not None, False, self.pos_label)
        if self.persisted and not self.sorted.persisted:
            self.sorted.persist()
            self.kept = None  # the kept sort holds them now
        return self.sorted


def _traced_plan(metas: Any, n_buckets: int, *, by_group: bool) -> Any:
    return traced_plan(plan_labels(metas, n_buckets), metas, by_group)


# -- each column's metric ----------------------------------------------------------------------


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


_PLAIN = {"average_precision": _average_precision, "ks": _ks}
_RATES = {"tpr_at_fpr": _tpr, "fpr_at_tpr": _fpr}


def _each(scan: ReplicateScan, value: Any, *, both: bool, area: Any) -> np.ndarray:
    """``value(area, P, N)`` of every column; NaN where a class drew nothing."""
    out = np.full(len(scan.pos), np.nan)
    for c, (a, p, n) in enumerate(zip(area, scan.pos, scan.neg, strict=True)):
        if p > 0 and (n > 0 or not both):
            out[c] = value(a, p, n)
    return out


@dataclass(frozen=True)
class _IntervalFinish:
    name: str
    metric: Any
    confidence_level: float
    interval: str
    n_bootstraps: int
    result: Callable[..., Any] = BootstrapInterval

    def __call__(self, choice: LabelChoice, scan: ReplicateScan, total: Any = None) -> Any:
        values = _values(self.name, self.metric, choice, scan, total)
        low, high, std_error = _interval(values, self.confidence_level, self.interval, self.name)
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
class _TestFinish(_IntervalFinish):
    def __call__(self, *parts: Any) -> BootstrapTest:  # type: ignore[override]
        half = len(parts) // 2
        a = _values(self.name, self.metric, *parts[:half])
        b = _values(self.name, self.metric, *parts[half:])
        difference = a - b
        low, high, std_error = _interval(
            difference, self.confidence_level, self.interval, self.name
        )
        nan = float("nan")
        z = float(difference[0]) / std_error if std_error > 0 else nan
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


def _interval(
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
    std_error = float(np.std(defined, ddof=1))
    alpha = 1 - confidence_level
    if kind == "normal":
        z = NormalDist().inv_cdf(1 - alpha / 2)
        return float(estimate - z * std_error), float(estimate + z * std_error), std_error
    low, high = (float(q) for q in np.quantile(defined, [alpha / 2, 1 - alpha / 2]))
    if kind == "basic":
        low, high = 2 * float(estimate) - high, 2 * float(estimate) - low
    return low, high, std_error


# -- the GAUC's interval: users resampled whole, from the per-group table -----------------------


def grouped_interval(
    index: Any,
    auc: np.ndarray,
    weights: np.ndarray,
    *,
    estimate: float,
    n_bootstraps: int,
    confidence_level: float,
    random_state: Any,
    compiled: bool,
) -> BootstrapInterval:
    """The cluster bootstrap interval of a weighted mean of group AUCs (GAUC).

    Group ``g`` enters replicate ``b`` ``c(g, b)`` times (:func:`bootstrap_counts`
    with ``groups=``: the hash of its key), all its rows with it, so its AUC is
    unchanged and the replicate's GAUC is ``sum(c w auc) / sum(c w)`` over the
    groups holding both classes: O(groups x replicates), no pass over the rows.
    ``index`` holds the groups' keys (a MultiIndex: its levels' hashes combined).
    """
    seed = check_seed(random_state)
    if isinstance(index, pd.MultiIndex):
        keys = np.zeros(len(index), np.uint64)
        for level in range(index.nlevels):
            keys = mix64(keys ^ group_keys(index.get_level_values(level).to_numpy()))
    else:
        keys = group_keys(np.asarray(index))
    values = weighted_mean_replicates(keys, auc, weights, seed, n_bootstraps, compiled)
    values = np.concatenate([[estimate], values])
    low, high, std_error = _interval(values, confidence_level, "percentile", "GAUC interval")
    return BootstrapInterval(
        float(estimate), low, high, std_error, confidence_level, n_bootstraps, values[1:]
    )
