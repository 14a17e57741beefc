"""The ROC object: one input sorted once, then asked any binary question (R pROC's ``roc()``).

``roc(y_true, y_score)`` builds, lazily, the sorted buckets of one input and
their summaries (:class:`~.sort.BinarySort`); every binary metric of dask-auc
is a query on it -- a few small tasks per bucket and an ordered scan of the
summaries -- and every public function of one binary input is a thin wrapper:
``roc_auc_score(y, s)`` is ``roc(y, s).auc()``.  Computed together
(:func:`dask_auc.compute`), the queries of one input share its sort, and
:meth:`ROC.persist` keeps the sorted buckets in memory (on the workers under
a ``distributed`` client) so that later queries cost O(buckets) tasks.

scikit-learn's label errors, which differ between its functions, are raised
by each query's finish (:mod:`.finish`, with the rules of :mod:`.labels`):
before any number is returned, but after the sort ran.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from .._engine import LazyScore, prepared_blocks, sizes_of
from .._kernels.binary.curves import CurveKind
from .._kernels.sort.prepare import prepare_block
from .params import check_query, checked_once
from .queries import curve_query, labels_query, totals_query
from .registry import QUERIES, ask
from .replicates import RocReplicates
from .results import (
    AUCInterval,
    BootstrapInterval,
    KSStatistic,
    OperatingPoint,
    ReliabilityDiagram,
)
from .sort import CurveSort

#: the one prepare of every ROC: any labels, one sorted part per label
_PREPARE = partial(prepare_block, any_labels=True)
#: the names of a public function's scores: :func:`answer` takes either
_SCORES = ("y_score", "y_proba")


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
        The lazy sort of the input (nothing read yet), whose methods are the
        binary metrics.

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
        pos_label = check_query("roc", pos_label=pos_label)["pos_label"]
        self._pos_label = pos_label
        blocks = prepared_blocks(y_true, y_score, sample_weight, prepare=_PREPARE)
        sizes = sizes_of(blocks)
        self._rows = None if sizes is None or sizes.rows is None else sum(sizes.rows)
        # with the bootstrap's own sort (rows with their positions), made on its first query
        replicates = RocReplicates(y_true, y_score, sample_weight, pos_label)
        self._sort = CurveSort(blocks, pos_label, replicates)

    @classmethod
    def _of_sort(cls, sort: CurveSort, *, pos_label: Any, rows: int | None) -> ROC:
        """The ROC of a sort made elsewhere: DeLong's, its rows with their ids (:mod:`.delong`)."""
        curve = cls.__new__(cls)
        curve._pos_label, curve._rows, curve._sort = pos_label, rows, sort
        return curve

    def _ask(self, method: str, arguments: dict[str, Any]) -> Any:
        """This ROC's query ``method``; ``arguments``: the method's ``locals()``."""
        return ask(self._sort, method, **{k: v for k, v in arguments.items() if k != "self"})

    def curve(self, curve: CurveKind, **options: Any) -> LazyScore:
        """The lazy curve of ``curve`` kind, for the plots (``queries.curve_query``).

        ``options``: ``drop_intermediate``, ``max_points``, ``with_score``
        (then its ``compute()`` returns ``(arrays, score, prevalence)``: a thinned
        curve with the exact AUC or AP from one sort) and ``rule`` (the label rule).
        """
        return curve_query(self._sort, curve, **options)

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
        return self._ask("partial_auc", locals())

    def average_precision(self, *, compute: bool = True) -> float | LazyScore:
        """Average precision, as :func:`dask_auc.average_precision_score` with this ``pos_label``.

        Its class is the ROC's ``pos_label``, or 1 by default (scikit-learn's
        default), also where the ROC's positive class is another label (a
        target in {1, 2}): the same points answer it.
        """
        return self._ask("average_precision", locals())

    def roc_curve(
        self, *, drop_intermediate: bool = True, max_points: int | None = None, compute: bool = True
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | LazyScore:
        """``fpr, tpr, thresholds`` as :func:`dask_auc.roc_curve`."""
        return self._ask("roc_curve", locals())

    def precision_recall_curve(
        self,
        *,
        drop_intermediate: bool = False,
        max_points: int | None = None,
        compute: bool = True,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | LazyScore:
        """``precision, recall, thresholds`` as :func:`dask_auc.precision_recall_curve`."""
        return self._ask("precision_recall_curve", locals())

    def confusion_matrix_at_thresholds(
        self, *, max_points: int | None = None, compute: bool = True
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | LazyScore:
        """``tns, fps, fns, tps, thresholds`` as :func:`dask_auc.confusion_matrix_at_thresholds`."""
        return self._ask("confusion_matrix_at_thresholds", locals())

    def det_curve(
        self,
        *,
        drop_intermediate: bool = False,
        max_points: int | None = None,
        compute: bool = True,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | LazyScore:
        """``fpr, fnr, thresholds`` as :func:`dask_auc.det_curve`."""
        return self._ask("det_curve", locals())

    def ks(self, *, compute: bool = True) -> KSStatistic | LazyScore:
        """The Kolmogorov-Smirnov statistic, as :func:`dask_auc.ks_statistic`."""
        return self._ask("ks", locals())

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
        return self._ask("operating_point", locals())

    def gains_table(self, *, n_bins: int = 10, compute: bool = True) -> pd.DataFrame | LazyScore:
        """The gains (lift) table, as :func:`dask_auc.gains_table`."""
        return self._ask("gains_table", locals())

    def reliability(
        self, *, max_points: int | None = None, compute: bool = True
    ) -> ReliabilityDiagram | LazyScore:
        """The CORP reliability diagram and decomposition, as :func:`dask_auc.reliability_diagram`.

        The scores must be probabilities of the ROC's positive class; on a
        persisted ROC, one task per bucket over the rows it keeps (no sort,
        but a pass over the rows: the buckets keep no PAV stack).
        """
        return self._ask("reliability", locals())

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
        # the bootstrap's parameters are checked by its interval, as bootstrap_ci's
        bootstrap = dict(metric=metric, n_bootstraps=n_bootstraps, interval=interval)
        return ask(
            self._sort, "ci",
            confidence_level=confidence_level, method=method, split_every=split_every,
            compute=compute,
            passed={**bootstrap, "random_state": random_state, "groups": groups, **params},
        )  # fmt: skip

    def labels(self, *, compute: bool = True) -> tuple[Any, ...] | LazyScore:
        """The distinct labels of ``y_true``, sorted (pROC's ``levels``), zero weights included.

        Examples
        --------
        >>> import numpy as np, dask_auc
        >>> dask_auc.roc(np.array(["b", "a", "b"]), np.array([0.1, 0.4, 0.35])).labels()
        ('a', 'b')
        """
        compute = check_query("roc", compute=compute)["compute"]
        lazy = labels_query(self._sort)
        return lazy.compute() if compute else lazy

    def totals(self, *, compute: bool = True) -> tuple[Any, Any] | LazyScore:
        """``(positives, negatives)``: the rows of each class, or with weights their summed weights.

        The positive class is :attr:`pos_label` (by default scikit-learn's
        rule, as :meth:`auc` chooses it); rows of weight zero count for
        nothing.  Read from the bucket summaries every query shares: computed
        beside another query of the ROC (``compute=False`` and
        :func:`dask_auc.compute`), it costs no pass of its own.

        Examples
        --------
        >>> import numpy as np, dask_auc
        >>> dask_auc.roc(np.array([0, 1, 1, 0, 1]), np.array([0.1, 0.4, 0.35, 0.8, 0.9])).totals()
        (3, 2)
        """
        compute = check_query("roc", compute=compute)["compute"]
        lazy = totals_query(self._sort)
        return lazy.compute() if compute else lazy

    def persist(self) -> ROC:
        """Sort now and keep the sorted buckets and their summaries in memory; returns ``self``.

        Each bucket is kept with its curve points placed among all buckets'
        (the rows, or weight, of each class at or above each distinct score)
        and its answers to the questions that take no parameter (its part of
        the average precision, its KS statistic, ``roc_curve``'s corners):
        about 13 bytes a row on continuous scores (the sorted score, and 4
        bytes per distinct score, 8 with ties: the bucket's positives and rows
        at or above it as int32, from which its counts and threshold follow
        exactly; 40 weighted), far less on tied ones.  Under a ``distributed``
        client they stay on the workers (a lost worker's buckets are
        recomputed from the input, as for any persisted collection); on the
        threaded scheduler, in this process.  Every query after it reads
        them: O(buckets) small tasks that look up the points they need by
        bisection, no sort and no scan of the points.  The input's validated
        rows are kept too, from the same read (the score, and the label as its
        class's index in one byte: 9 bytes a row, 17 weighted), for the
        bootstrap, whose replicates need each row's position (:meth:`ci`):
        every answer of a persisted ROC describes the rows it read then,
        whatever its source holds later.

        Examples
        --------
        >>> import numpy as np, dask_auc
        >>> r = dask_auc.roc(np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8])).persist()
        >>> r
        ROC(rows=4, positives=2, buckets=1, persisted=True)
        >>> r.auc()
        0.75
        """
        if not self._sort.persisted:
            self._sort.persist()
        return self

    @property
    def pos_label(self) -> Any:
        """The ``pos_label`` given to :func:`dask_auc.roc` (None: the default rule)."""
        return self._pos_label

    @property
    def persisted(self) -> bool:
        """Whether the sorted buckets are kept in memory (:meth:`persist`)."""
        return self._sort.persisted

    def __repr__(self) -> str:
        """Rows, positives, buckets and whether persisted; what is not known yet is ``?``.

        Never computes: the rows are known before the sort where the input's
        partition lengths are, and both numbers once the summaries are kept
        (and, on a cluster, finished).
        """
        rows = "?" if self._rows is None else str(self._rows)
        positives = "?"
        choice, contexts = self._sort.kept()
        if choice is not None:
            rows = str(choice.n_rows)
        if contexts is not None:
            total_pos = contexts[0].total[0]
            positives = str(int(total_pos) if not self._sort.weighted else total_pos)
        return (
            f"ROC(rows={rows}, positives={positives}, buckets={self._sort.graph.n_buckets}, "
            f"persisted={self._sort.persisted})"
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
    return ask(
        curve._sort, "auc",
        max_fpr=max_fpr, split_every=split_every, compute=compute, multi_class=multi_class,
    )  # fmt: skip


def answer(name: str, /, **arguments: Any) -> Any:
    """The public function ``name`` of one binary input: its registry entry's ROC method.

    ``arguments`` are the function's own, by name: its ``locals()`` when this
    is its first statement, so that each parameter of its signature reaches
    the query, none forgotten.  ``y_true``, the scores (``y_score``, or
    ``y_proba`` for probabilities) and ``sample_weight`` make the ROC; the
    rest are checked once, against ``name``'s table (so the messages name the
    function; a parameter the table does not declare raises ``KeyError``);
    ``pos_label``, where the function takes one, chooses the ROC's positive
    class, and the rest go to the method.

    Examples
    --------
    >>> import numpy as np
    >>> answer("ks_statistic", y_true=np.array([0, 1, 1]), y_score=np.array([0.2, 0.9, 0.4]),
    ...        sample_weight=None, pos_label=None, compute=True).statistic
    1.0
    """
    y_true, sample_weight = arguments.pop("y_true"), arguments.pop("sample_weight")
    scores = [arguments.pop(key) for key in _SCORES if key in arguments]
    if len(scores) != 1:  # a programming error: a face's scores under another name
        raise TypeError(f"{name} passes {len(scores)} of {_SCORES}")
    checked = check_query(name, **arguments)
    with checked_once(checked):  # the ROC and its query do not check them again
        curve = roc(
            y_true, scores[0], pos_label=checked.pop("pos_label", None), sample_weight=sample_weight
        )
        return getattr(curve, QUERIES[name].method)(**checked)
