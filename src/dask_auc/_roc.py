"""The ROC object: one input sorted once, then asked any binary question (R pROC's ``roc()``).

``roc(y_true, y_score)`` builds, lazily, the sorted buckets of one input and
their summaries; every binary metric of dask-auc is a query on it -- a few
small tasks per bucket and an ordered scan of the summaries -- and every
public function of one binary input is a thin wrapper:
``roc_auc_score(y, s)`` is ``roc(y, s).auc()``.  Computed together
(:func:`dask_auc.compute`), the queries of one input share its sort, and
:meth:`ROC.persist` keeps the sorted buckets in memory (on the workers under
a ``distributed`` client) so that later queries cost O(buckets) tasks.

The sort is by label value (every label, any number of them): the positive
label is chosen after it by one small task (:mod:`dask_auc._kernels.sort.labels`),
so ``pos_label`` and the metrics' label rules never change the sort.
scikit-learn's label errors, which differ between its functions, are raised
by each query's finish: before any number is returned, but after the sort ran.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from functools import partial
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ._bootstrap import BootstrapInterval, RocReplicates, interval_of
from ._engine import LazyScore, SortedGraph, prepared_blocks, split_every_default
from ._engine.inputs import sizes_of
from ._kernels.binary.curves import (
    NO_POSITIVE_CLASS_MESSAGE,
    PRECISION_RECALL,
    CurveContext,
    CurveKind,
    CurvePoints,
    LabelRule,
    average_precision,
    bucket_curve,
    bucket_ks,
    bucket_precision_sum,
    concatenated,
    curve_contexts,
    grid_step,
    thin_on_grid,
    with_answers,
    with_placed_points,
)
from ._kernels.binary.curves import (
    ROC as ROC_CURVE,
)
from ._kernels.binary.delong import (
    BucketContext,
    SquareSums,
    bucket_contexts,
    placement_square_sums,
    total_square_sums,
)
from ._kernels.binary.partial import cut_bucket_at, interval_area, locate_crossings, mcclish
from ._kernels.binary.thresholds import (
    CONFUSION_MATRIX,
    CRITERIA,
    RATE_TARGETS,
    Candidate,
    DetLabelRule,
    Target,
    best_candidate,
    bucket_det,
    bucket_gains_cuts,
    bucket_operating_point,
    det_arrays,
    gains_columns,
)
from ._kernels.core.summary import Number, PartialROC
from ._kernels.core.validation import BinaryTarget, defined_or_warn, warn_undefined
from ._kernels.sort.buckets import summarize_bucket
from ._kernels.sort.labels import LabelChoice, binary_bucket, choose_positive, plan_labels
from ._kernels.sort.plan import ZERO_WEIGHTS_MESSAGE
from ._kernels.sort.prepare import prepare_block
from ._params import (
    AtLeast,
    Boolean,
    Interval,
    Label,
    NonNegativePair,
    Options,
    Range,
    check_params,
)

#: the one prepare of every ROC: any labels, one sorted part per label
_PREPARE = partial(prepare_block, any_labels=True)

_MAX_POINTS = AtLeast(2, why=" (a curve has two end points)")
_RATE = Interval(0, 1, closed="both", none=True)
_AUC_PARAMETERS = {
    "max_fpr": Interval(0, 1, closed="right", none=True),
    "split_every": AtLeast(2),
    "compute": Boolean(),
}
_PARTIAL_PARAMETERS = {
    "fpr_range": Range(),
    "tpr_range": Range(),
    "standardized": Boolean(),
    "compute": Boolean(),
}
_CURVE_PARAMETERS = {
    "drop_intermediate": Boolean(),
    "max_points": _MAX_POINTS,
    "compute": Boolean(),
}
_POINTS_PARAMETERS = {"max_points": _MAX_POINTS, "compute": Boolean()}
_COMPUTE_PARAMETERS = {"compute": Boolean()}
_OPERATING_POINT_PARAMETERS = {
    "fpr": _RATE,
    "tpr": _RATE,
    "precision": _RATE,
    "recall": _RATE,
    "threshold": Interval(-np.inf, np.inf, none=True),
    "criterion": Options((*CRITERIA, None)),
    "cost": NonNegativePair(names="(cost_fp, cost_fn)"),
    "compute": Boolean(),
}
_GAINS_PARAMETERS = {"n_bins": AtLeast(1, none=False), "compute": Boolean()}
_INTERVAL_PARAMETERS = {
    "confidence_level": Interval(0, 1, closed="neither"),
    "method": Options(("delong", "bootstrap")),
    "split_every": AtLeast(2),
    "compute": Boolean(),
}

WEIGHTS_MESSAGE = (
    "sample_weight is not supported for DeLong's variance: it is defined for "
    "unweighted rows only (pass sample_weight=None)"
)


# -- results ---------------------------------------------------------------------------------


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


# -- the object ------------------------------------------------------------------------------


def roc(y_true: Any, y_score: Any, *, pos_label: Any = None, sample_weight: Any = None) -> ROC:
    """The ROC of one binary input, sorted once, for every binary metric of dask-auc.

    Building it reads no data: it is a lazy graph, as ``compute=False``
    results are.  Each method computes one metric from it (or returns a
    :class:`~dask_auc.LazyScore` with ``compute=False``), with the keywords,
    defaults, result -- bit for bit -- and errors of the function of the same
    meaning; lazy results of one ``ROC`` computed together with
    :func:`dask_auc.compute` sort the input once, and after
    :meth:`ROC.persist` no query sorts it again.

    Parameters
    ----------
    y_true : dask Series or Array, pandas Series, ndarray or list
        Labels: two classes, or more with ``pos_label`` (every other label
        is then negative, as scikit-learn's curves do).
    y_score : same kinds as ``y_true``
        Scores; higher means more positive.  Rows pair with ``y_true`` by position.
    pos_label : int, float, bool or str, optional
        The positive class.  By default 1 for {0, 1} and {-1, 1} targets, and
        the greater label for any other two (``roc_auc_score``'s rule; the
        curves then raise scikit-learn's error asking for ``pos_label``).
    sample_weight : same kinds as ``y_true``, optional
        Non-negative row weights; rows of weight zero are ignored.

    Returns
    -------
    ROC

    Notes
    -----
    scikit-learn's label errors (``pos_label`` needed, more than two
    classes, ...) depend on the metric asked, so each query raises its own
    after the sort has run -- before any number is returned.  Errors of the
    inputs themselves (lengths, NaN, bytes labels, mixed label types,
    negative weights) are raised by the sort, for every query alike.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> r = dask_auc.roc(np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]))
    >>> r.auc(), r.average_precision(), r.ks().statistic
    (0.75, 0.8333333333333334, 0.5)
    >>> r.operating_point(fpr=0.5).threshold
    0.35
    """
    return ROC(y_true, y_score, pos_label=pos_label, sample_weight=sample_weight)


class ROC:
    """One binary input's sorted buckets and their summaries; every binary metric is a query.

    Make it with :func:`dask_auc.roc`.  See there for the parameters.
    """

    def __init__(
        self, y_true: Any, y_score: Any, *, pos_label: Any = None, sample_weight: Any = None
    ):
        pos_label = check_params("roc", {"pos_label": Label()}, pos_label=pos_label)["pos_label"]
        self._pos_label = pos_label
        self._weighted = sample_weight is not None
        blocks = prepared_blocks(y_true, y_score, sample_weight, prepare=_PREPARE)
        sizes = sizes_of(blocks)
        self._rows = None if sizes is None or sizes.rows is None else sum(sizes.rows)
        graph = SortedGraph(blocks, plan=plan_labels)
        self._graph = graph
        self._choice = graph.task("auc-positive", choose_positive, graph.plan_key, pos_label)
        self._buckets = graph.per_bucket("auc-binary", binary_bucket, self._choice)
        self._summaries = self._per_bucket("auc-summary", summarize_bucket)
        self._contexts = graph.task("curve-contexts", curve_contexts, self._summaries)
        # the buckets with their curve points, made and placed once for every curve query
        self._placed = self._per_bucket(
            "curve-placed-points", with_placed_points, each=self._contexts
        )
        self._persisted = False
        # the bootstrap's own sort (rows with their positions), made on its first query
        self._replicates = RocReplicates(y_true, y_score, sample_weight, pos_label)

    # -- building blocks of the queries -----------------------------------------------------

    def _per_bucket(
        self, kind: str, func: Callable, *args: Any, each: Hashable | None = None, points=False
    ) -> list[tuple]:
        """``func(binary bucket, [each[b]], *args)`` per bucket (``points``: with its points)."""
        on = self._placed if points else self._buckets
        return self._graph.per_bucket(kind, func, *args, each=each, on=on)

    def _area(self, split_every: int | None) -> Hashable:
        """Key of the merged :class:`~dask_auc.PartialROC` (the exact AUC)."""
        return self._graph.tree_reduce(self._summaries, split_every or split_every_default())

    def _partial_area(self, bounds: tuple[float, float], swap: bool = False) -> Hashable:
        return partial_area_key(self._graph, self._summaries, bounds, swap=swap, on=self._buckets)

    def _precision_sum(self) -> Hashable:
        """Key of ``sum(dtps * precision)`` of average precision's class.

        ``average_precision_score``'s class is its ``pos_label``, 1 by default,
        while this ROC's positive class follows ``roc_auc_score``'s rule: the
        two differ only for targets like {1, 2}, where AP's class is then the
        ROC's negative one, and the same points answer it with their counts
        exchanged -- so that the AP of one input shares its sort and bucket
        summaries with every other metric, whichever class the data make
        positive.  (The precision-recall curve's label rule admits only a
        positive class of 1 or its ``pos_label``: the same class.)
        """
        parts = self._per_bucket(
            "curve-precision", _asked_precision_sum, self._choice, each=self._contexts, points=True
        )
        return self._graph.task("curve-precision-sum", _total, parts)

    def _query(self, keys: Sequence[Hashable], finish: _Finish, label: str) -> LazyScore:
        return self._graph.lazy([self._choice, *keys], finish, label)

    def _each_bucket(
        self, kind: str, func: Callable, *args: Any, finish: _Finish, label: str
    ) -> LazyScore:
        """``func(bucket, its context, *args)`` per bucket; ``finish(contexts, *results)``."""
        parts = self._per_bucket(kind, func, *args, each=self._contexts, points=True)
        return self._query([self._contexts, *parts], finish, label)

    def curve(
        self,
        curve: CurveKind,
        *,
        drop_intermediate: bool = False,
        max_points: int | None = None,
        with_score: bool = False,
        rule: str = "curve",
    ) -> LazyScore:
        """The lazy curve of ``curve`` kind; with ``with_score`` its exact AUC or AP beside it.

        Its ``compute()`` then returns ``(arrays, score, prevalence)``: the
        plots draw a thinned curve and report the exact score from one sort.
        """
        parts = self._per_bucket(
            "curve-points",
            bucket_curve,
            curve,
            drop_intermediate,
            max_points,
            each=self._contexts,
            points=True,
        )
        keys: list[Hashable] = [self._contexts]
        if with_score:
            keys.append(self._area(None) if curve is ROC_CURVE else self._precision_sum())
        finish = _Finish(_CurveFinish(curve, max_points, with_score), rule)
        return self._query(keys + parts, finish, f"{curve.name}_curve")

    # -- the queries --------------------------------------------------------------------------

    def auc(
        self,
        *,
        max_fpr: float | None = None,
        split_every: int | None = None,
        compute: bool = True,
    ) -> float | LazyScore:
        """The exact ROC AUC (McClish-standardised partial AUC with ``max_fpr``).

        As :func:`dask_auc.roc_auc_score` of a binary target.

        Examples
        --------
        >>> import numpy as np, dask_auc
        >>> dask_auc.roc(np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8])).auc(max_fpr=0.5)
        0.6666666666666666
        """
        return roc_auc(self, max_fpr=max_fpr, split_every=split_every, compute=compute)

    def partial_auc(
        self,
        *,
        fpr_range: tuple[float, float] | None = None,
        tpr_range: tuple[float, float] | None = None,
        standardized: bool = True,
        compute: bool = True,
    ) -> float | LazyScore:
        """The partial AUC over an FPR or a TPR range, as :func:`dask_auc.partial_roc_auc_score`."""
        name = "partial_roc_auc_score"
        checked = check_params(
            name,
            _PARTIAL_PARAMETERS,
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
            key, finish = self._area(None), _Finish(_auc_of, target)
        else:
            key = self._partial_area(bounds, swap)
            partial = _PartialFinish(bounds, swap=swap, standardized=checked["standardized"])
            finish = _Finish(partial, target)
        return _returned(self._query([key], finish, name), checked["compute"])

    def average_precision(self, *, compute: bool = True) -> float | LazyScore:
        """Average precision, as :func:`dask_auc.average_precision_score` with this ``pos_label``.

        Its class is the ROC's ``pos_label``, or 1 by default (scikit-learn's
        default), also where the ROC's positive class is another label (a
        target in {1, 2}): the same points answer it.
        """
        compute = check_params("average_precision_score", _COMPUTE_PARAMETERS, compute=compute)[
            "compute"
        ]
        keys = [self._contexts, self._precision_sum()]
        finish = _Finish(_average_precision_of, "average_precision")
        return _returned(self._query(keys, finish, "average_precision_score"), compute)

    def roc_curve(
        self, *, drop_intermediate: bool = True, max_points: int | None = None, compute: bool = True
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | LazyScore:
        """``fpr, tpr, thresholds`` as :func:`dask_auc.roc_curve`."""
        checked = check_params(
            "roc_curve",
            _CURVE_PARAMETERS,
            drop_intermediate=drop_intermediate,
            max_points=max_points,
            compute=compute,
        )
        compute = checked.pop("compute")
        return _returned(self.curve(ROC_CURVE, **checked), compute)

    def precision_recall_curve(
        self,
        *,
        drop_intermediate: bool = False,
        max_points: int | None = None,
        compute: bool = True,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | LazyScore:
        """``precision, recall, thresholds`` as :func:`dask_auc.precision_recall_curve`."""
        checked = check_params(
            "precision_recall_curve",
            _CURVE_PARAMETERS,
            drop_intermediate=drop_intermediate,
            max_points=max_points,
            compute=compute,
        )
        compute = checked.pop("compute")
        return _returned(self.curve(PRECISION_RECALL, **checked), compute)

    def confusion_matrix_at_thresholds(
        self, *, max_points: int | None = None, compute: bool = True
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | LazyScore:
        """``tns, fps, fns, tps, thresholds`` as :func:`dask_auc.confusion_matrix_at_thresholds`."""
        checked = check_params(
            "confusion_matrix_at_thresholds",
            _POINTS_PARAMETERS,
            max_points=max_points,
            compute=compute,
        )
        lazy = self.curve(CONFUSION_MATRIX, max_points=checked["max_points"])
        return _returned(lazy, checked["compute"])

    def det_curve(
        self,
        *,
        drop_intermediate: bool = False,
        max_points: int | None = None,
        compute: bool = True,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | LazyScore:
        """``fpr, fnr, thresholds`` as :func:`dask_auc.det_curve`."""
        checked = check_params(
            "det_curve",
            _CURVE_PARAMETERS,
            drop_intermediate=drop_intermediate,
            max_points=max_points,
            compute=compute,
        )
        drop_intermediate, max_points = checked["drop_intermediate"], checked["max_points"]
        lazy = self._each_bucket(
            "det-points",
            bucket_det,
            drop_intermediate,
            max_points,
            finish=_Finish(_DetFinish(max_points), "det"),
            label="det_curve",
        )
        return _returned(lazy, checked["compute"])

    def ks(self, *, compute: bool = True) -> KSStatistic | LazyScore:
        """The Kolmogorov-Smirnov statistic, as :func:`dask_auc.ks_statistic`."""
        compute = check_params("ks_statistic", _COMPUTE_PARAMETERS, compute=compute)["compute"]
        lazy = self._each_bucket(
            "curve-ks", bucket_ks, finish=_Finish(_ks_of, "curve"), label="ks_statistic"
        )
        return _returned(lazy, compute)

    def operating_point(
        self,
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
        checked = check_params(
            "operating_point",
            _OPERATING_POINT_PARAMETERS,
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
        lazy = self._each_bucket(
            "operating-point",
            bucket_operating_point,
            target,
            finish=_Finish(_OperatingPointFinish(target), "curve"),
            label="operating_point",
        )
        return _returned(lazy, checked["compute"])

    def gains_table(self, *, n_bins: int = 10, compute: bool = True) -> pd.DataFrame | LazyScore:
        """The gains (lift) table, as :func:`dask_auc.gains_table`."""
        checked = check_params("gains_table", _GAINS_PARAMETERS, n_bins=n_bins, compute=compute)
        n_bins = checked["n_bins"]
        lazy = self._each_bucket(
            "gains-cuts",
            bucket_gains_cuts,
            n_bins,
            finish=_Finish(_GainsFinish(n_bins), "curve"),
            label="gains_table",
        )
        return _returned(lazy, checked["compute"])

    def ci(
        self,
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
        """A confidence interval: the AUC's by DeLong, or any metric's by the bootstrap.

        ``method="delong"`` (the default) gives :func:`dask_auc.roc_auc_ci`'s
        :class:`~dask_auc.AUCInterval` of the AUC from this ROC's sort.
        ``method="bootstrap"`` gives :func:`dask_auc.bootstrap_ci`'s
        :class:`~dask_auc.BootstrapInterval` of ``metric`` (with its
        ``**params``, ``n_bootstraps``, ``random_state``, ``groups`` and
        ``interval``).  The bootstrap needs each row's position, which the
        ROC's buckets do not keep (they hold distinct scores): its first
        query sorts the rows once more, with their positions, for all its
        replicates.  A persisted ROC sorts the rows it kept at
        :meth:`persist` (never its source again) and keeps that sort, so
        that later bootstrap queries, of any metric or seed, sort nothing;
        ``groups`` pair with the rows by position, so they are taken by a
        lazy ROC only (a persisted one raises ``ValueError``).

        Examples
        --------
        >>> import numpy as np, dask_auc
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 500)
        >>> r = dask_auc.roc(y, y + rng.normal(size=500))
        >>> round(r.ci().high, 4)
        0.7712
        >>> ci = r.ci(method="bootstrap", metric="ks", n_bootstraps=100, random_state=1)
        >>> round(ci.estimate, 4), round(ci.low, 4)
        (0.3572, 0.3018)
        """
        checked = check_params(
            "roc_auc_ci",
            _INTERVAL_PARAMETERS,
            confidence_level=confidence_level,
            method=method,
            split_every=split_every,
            compute=compute,
        )
        if method == "bootstrap":
            return interval_of(
                self._replicates.sort(groups),
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
        if self._weighted:
            raise ValueError(WEIGHTS_MESSAGE)
        graph = self._graph
        contexts = graph.task("auc-delong-context", bucket_contexts, self._summaries)
        squares = self._per_bucket("auc-delong-squares", placement_square_sums, each=contexts)
        sums = graph.tree_reduce(
            squares,
            checked["split_every"] or split_every_default(),
            "auc-delong-sum",
            combine=total_square_sums,
        )
        finish = _Finish(_IntervalFinish(checked["confidence_level"]), BinaryTarget("roc_auc_ci"))
        return _returned(self._query([sums, contexts], finish, "roc_auc_ci"), checked["compute"])

    def labels(self, *, compute: bool = True) -> tuple[Any, ...] | LazyScore:
        """The distinct labels of ``y_true``, sorted (pROC's ``levels``), zero weights included.

        Examples
        --------
        >>> import numpy as np, dask_auc
        >>> dask_auc.roc(np.array(["b", "a", "b"]), np.array([0.1, 0.4, 0.35])).labels()
        ('a', 'b')
        """
        compute = check_params("roc", _COMPUTE_PARAMETERS, compute=compute)["compute"]
        return _returned(self._graph.lazy([self._choice], _labels_of, "labels"), compute)

    # -- keeping it -------------------------------------------------------------------------

    def persist(self) -> ROC:
        """Sort now and keep the sorted buckets and their summaries in memory; returns ``self``.

        Each bucket is kept with its curve points placed among all buckets'
        (its distinct scores and the rows, or weight, of each class at or
        above and below each) and its answers to the questions that take no
        parameter (its part of the average precision, its KS statistic,
        ``roc_curve``'s corners): about 50 bytes a row on continuous scores
        (the sorted score, and 40 bytes per distinct score), far less on tied
        ones.  Under a ``distributed`` client they stay on the workers (a lost
        worker's buckets are recomputed from the input, as for any persisted
        collection); on the threaded scheduler, in this process.  Every
        query after it reads them: O(buckets) small tasks that look up the
        points they need by bisection, no sort and no scan of the points.
        The input's validated rows are kept too, from the same read (16
        bytes a row, 24 weighted), for the bootstrap, whose replicates need
        each row's position (:meth:`ci`): every answer of a persisted ROC
        describes the rows it read then, whatever its source holds later.

        Examples
        --------
        >>> import numpy as np, dask_auc
        >>> r = dask_auc.roc(np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8])).persist()
        >>> r
        ROC(rows=4, positives=2, buckets=1, persisted=True)
        >>> r.auc()
        0.75
        """
        if not self._persisted:
            # the buckets are kept with their curve points (a bucket's points hold its
            # distinct scores and two counts each): every query reads them, none re-merges
            # each bucket with its placed points and its answers to the questions that take
            # no parameter (average precision, KS, roc_curve's corners): queries look up
            answered = self._graph.per_bucket(
                "curve-answers", with_answers, each=self._contexts, on=self._placed
            )
            keys = [self._choice, *answered, *self._summaries, self._contexts]
            # the bootstrap's rows are kept from the same pass: one read of the input
            self._replicates.persist_with(partial(self._graph.persist, keys))
            self._buckets = self._placed = answered
            self._persisted = True
        return self

    @property
    def pos_label(self) -> Any:
        """The ``pos_label`` given to :func:`dask_auc.roc` (None: the default rule)."""
        return self._pos_label

    @property
    def persisted(self) -> bool:
        """Whether the sorted buckets are kept in memory (:meth:`persist`)."""
        return self._persisted

    def __repr__(self) -> str:
        """Rows, positives, buckets and whether persisted; what is not known yet is ``?``.

        Never computes: the rows are known before the sort where the input's
        partition lengths are, and both numbers once the summaries are kept
        (and, on a cluster, finished).
        """
        rows = "?" if self._rows is None else str(self._rows)
        positives = "?"
        if self._persisted:
            kept = dict(self._graph.graph())
            choice, contexts = _ready(kept.get(self._choice)), _ready(kept.get(self._contexts))
            if choice is not None:
                rows = str(choice.n_rows)
            if contexts is not None:
                total_pos = contexts[0].total[0]
                positives = str(int(total_pos) if not self._weighted else total_pos)
        return (
            f"ROC(rows={rows}, positives={positives}, buckets={self._graph.n_buckets}, "
            f"persisted={self._persisted})"
        )


def roc_auc(
    curve: ROC,
    *,
    max_fpr: float | None = None,
    split_every: int | None = None,
    compute: bool = True,
    multi_class: str = "raise",
) -> float | LazyScore:
    """:meth:`ROC.auc`; ``multi_class`` words the error of a target of more than two classes.

    :func:`dask_auc.roc_auc_score` passes its own ``multi_class``, as
    scikit-learn's errors for a 1-D ``y_score`` depend on it.
    """
    checked = check_params(
        "roc_auc_score",
        _AUC_PARAMETERS,
        max_fpr=max_fpr,
        split_every=split_every,
        compute=compute,
    )
    max_fpr = checked["max_fpr"]
    target = BinaryTarget("roc_auc_score", multi_class=multi_class, max_fpr=max_fpr)
    if max_fpr is None or max_fpr == 1.0:
        key, finish = curve._area(checked["split_every"]), _Finish(_auc_of, target)
    else:
        bounds = (0.0, max_fpr)
        key, finish = curve._partial_area(bounds), _Finish(_PartialFinish(bounds), target)
    return _returned(curve._query([key], finish, "roc_auc_score"), checked["compute"])


def _ready(value: Any) -> Any:
    """A kept result, or None if it is a future not finished yet (never waits)."""
    if hasattr(value, "done") and hasattr(value, "result"):
        return value.result() if value.done() else None
    return value


def _labels_of(choice: LabelChoice) -> tuple[Any, ...]:
    return choice.classes


def _returned(lazy: LazyScore, compute: bool) -> Any:
    return lazy.compute() if compute else lazy


def partial_area_key(
    graph: SortedGraph,
    summaries: list,
    bounds: tuple[float, float],
    *,
    swap: bool = False,
    on: Sequence[Hashable] | None = None,
) -> Hashable:
    """Key of ``(raw partial AUC, P, N)`` over ``bounds`` (:mod:`.._kernels.binary.partial`).

    A scan of the summaries finds the buckets where the false (or, with
    ``swap``, true) positive rate passes each bound; only those buckets look at
    their rows again (``on``: the buckets the summaries are of).
    """
    crossings = graph.task("auc-crossing", locate_crossings, summaries, bounds, swap)
    cuts = graph.per_bucket("auc-cut", cut_bucket_at, swap, each=crossings, on=on)
    return graph.task("auc-partial", interval_area, summaries, crossings, cuts, bounds, swap)


# -- finishing: scikit-learn's label checks, then the answer -----------------------------------


def _check_labels(rule: str | BinaryTarget, choice: LabelChoice) -> None:
    """Raise the error scikit-learn's function of this kind raises for these labels.

    A :class:`~dask_auc._kernels.core.validation.BinaryTarget`: more than two
    labels without a ``pos_label`` (``roc_auc_score``'s multi-class errors;
    the binary-only functions name themselves and the classes);
    ``"curve"``, ``"det"``: the curves' ``pos_label`` rules;
    ``"average_precision"``: its ``pos_label`` must be one of two labels.
    """
    classes, rows = choice.classes, choice.n_rows
    if isinstance(rule, BinaryTarget):
        if choice.pos_label is None:
            rule.check(classes, rows)
    elif rule == "average_precision":
        # average_precision_score's default is pos_label=1, not roc_auc_score's greater label
        LabelRule("average_precision", _asked_class(choice)).check(classes, rows)
    elif rule == "det":
        DetLabelRule("curve", choice.pos_label).check(classes, rows)
    else:
        LabelRule("curve", choice.pos_label).check(classes, rows)


def _same_positive(a: Any, b: Any) -> bool:
    return isinstance(a, str) == isinstance(b, str) and bool(a == b)


def _asked_class(choice: LabelChoice) -> Any:
    """The class ``average_precision_score`` asks about: its ``pos_label``, 1 by default."""
    return 1 if choice.pos_label is None else choice.pos_label


def _asks_the_other_class(choice: LabelChoice) -> bool:
    """Whether AP's class is not this ROC's positive one (then it is the negative one).

    AP's label checks (:func:`_check_labels`) leave at most two labels, one of
    them AP's class if both are present: so the ROC's negatives are AP's class.
    """
    return not _same_positive(choice.positive, _asked_class(choice))


def _asked_precision_sum(bucket: Any, context: CurveContext, choice: LabelChoice) -> int:
    return bucket_precision_sum(bucket, context, swap=_asks_the_other_class(choice))


class _Finish:
    """A query's finish: the label checks of ``rule``, then ``finish(choice, *parts)``."""

    def __init__(self, finish: Callable[..., Any], rule: str | BinaryTarget):
        self.finish, self.rule = finish, rule

    def __call__(self, choice: LabelChoice, *parts: Any) -> Any:
        _check_labels(self.rule, choice)
        if choice.weights_all_zero:
            raise ValueError(ZERO_WEIGHTS_MESSAGE)
        return self.finish(choice, *parts)


def _auc_of(choice: LabelChoice, summary: PartialROC) -> float:
    if not defined_or_warn(choice.n_classes, summary.pos, summary.neg):
        return float("nan")
    return summary.auc()


class _PartialFinish:
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


def _total(parts: list[int]) -> int:
    return sum(parts)  # the buckets' exact precision sums (bucket_precision_sum): no rounding


def _average_precision_of(
    choice: LabelChoice, contexts: list[CurveContext], precision_sum: int
) -> float:
    total_pos = contexts[0].total[int(_asks_the_other_class(choice))]
    if total_pos == 0:
        warn_undefined(NO_POSITIVE_CLASS_MESSAGE, UserWarning)
    return average_precision(precision_sum, total_pos)


class _CurveFinish:
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


def _ks_of(choice: LabelChoice, contexts: list[CurveContext], *gaps: Any) -> KSStatistic:
    total_pos, total_neg = contexts[0].total
    if not defined_or_warn(2, total_pos, total_neg):
        return KSStatistic(float("nan"), None)
    gap, threshold = max(gaps, key=lambda found: found[0])  # the first of equal gaps
    if isinstance(gap, int):  # exact: in units of 1 / (P * N)
        return KSStatistic(float(Fraction(gap, int(total_pos) * int(total_neg))), threshold)
    return KSStatistic(float(gap), threshold)


class _DetFinish:
    def __init__(self, max_points: int | None):
        self.max_points = max_points

    def __call__(self, choice: LabelChoice, contexts: list[CurveContext], *parts: Any) -> Any:
        with np.errstate(divide="ignore", invalid="ignore"):  # one class of zero weight: NaN
            return det_arrays(contexts[0].total, parts, self.max_points)


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


class _OperatingPointFinish:
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


class _GainsFinish:
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


class _IntervalFinish:
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
        z = _normal_quantile(0.5 + self.confidence_level / 2)
        low = max(0.0, context.auc - z * std_error)
        high = min(1.0, context.auc + z * std_error)
        return AUCInterval(context.auc, low, high, std_error, self.confidence_level)


def _normal_quantile(p: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(p)
