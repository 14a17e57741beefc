"""DeLong et al. (1988): the AUC's confidence interval, the covariance of k AUCs, paired tests.

Both come from *placement values* computed on the same sorted buckets as the
AUC itself (:mod:`dask_auc._kernels.binary.delong`):

* :func:`roc_auc_ci` -- the AUC with its DeLong standard error and a normal
  confidence interval, clipped to ``[0, 1]``.  Each
  bucket sums its rows' squared centred placements given the counts of the
  buckets above it (one scan of the bucket summaries); no row is collected.
* :func:`delong_covariance` -- ``k`` models scored on the same rows: every
  model's AUC and DeLong's ``k x k`` covariance of them
  (:class:`DeLongCovariance`), from which any pair's test follows.  The
  covariance needs every model's placement of each row, so each model's
  scores are sorted *once* with a row id (``block << 32 | position``, the
  position among the block's rows of its class), and every bucket sends its
  rows' placements back to their input block (the reverse of the sort's
  split: one more all-to-all of an id and a float per row and model).  There
  all ``k`` placements of a row meet, each in its slot of the block's rows of
  its class, and the block sums their products, ``k x k`` over the positive
  rows and over the negative rows.
  Each model's sort is the ROC's, its rows carrying their ids
  (:class:`TracedModels`): a ROC on it answers every metric of the model, so
  :func:`dask_auc.compare` sorts each model once for its metrics and tests.
  Pairing by row id is exact and keeps to the sort's own shuffle pattern; the
  alternative, a cross term from rank counts alone, is a two-dimensional
  dominance count that no single sort order gives.
* :func:`delong_test` -- two models: the ``k = 2`` case, the test of the
  first against the second.  :func:`dask_auc.compare` asks the ``k``-model
  covariance once and tests every model against its baseline from it.

Sample weights are not supported: DeLong's estimator is a U-statistic of
unweighted rows, and there is no standard weighted version (pROC has none);
passing ``sample_weight`` raises a ``ValueError``.

Normal quantiles and p-values come from :class:`statistics.NormalDist` and
:func:`math.erfc` (no scipy at run time).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from .._engine import (
    FinishEach,
    LazyScore,
    SortedGraph,
    compiled_kernels,
    gather,
    lazy_of,
    map_blocks,
    map_indexed_blocks,
    prepared_blocks,
    sizes_of,
    zip_blocks,
)
from .._kernels.binary.delong import BucketContext, bucket_contexts
from .._kernels.binary.delong_paired import (
    PAIRED_INPUTS,
    CrossSums,
    block_probe,
    cross_sums,
    prepare_paired_block,
    routed_placements,
    total_cross_sums,
    traced_block,
)
from .._kernels.binary.delong_tables import tabled_models
from .._kernels.core.validation import BinaryTarget, defined_or_warn
from .._kernels.sort.labels import plan_labels
from .._kernels.sort.plan import SortPlan
from .finish import first_context, sample_variance
from .object import ROC, roc
from .params import check_query, checked_once
from .queries import WEIGHTS_MESSAGE
from .registry import interval_of
from .replicates import RocReplicates, replicate_sort
from .results import AUCInterval, DeLongTest
from .sort import BinarySort, CurveSort


def roc_auc_ci(
    y_true: Any,
    y_score: Any,
    *,
    confidence_level: float = 0.95,
    method: str = "delong",
    sample_weight: Any = None,
    compute: bool = True,
    split_every: int | None = None,
    n_bootstraps: int = 2000,
    random_state: Any = None,
) -> AUCInterval | LazyScore:
    """The ROC AUC of a binary target with its confidence interval: DeLong's, or the bootstrap's.

    Parameters
    ----------
    y_true, y_score : dask Series or Array, pandas Series, ndarray or list
        As in :func:`dask_auc.roc_auc_score` (binary target).
    confidence_level : float in (0, 1), default=0.95
        Coverage of the two-sided normal interval ``auc -/+ z * std_error``,
        clipped to ``[0, 1]``.
    method : {'delong', 'bootstrap'}, default='delong'
        ``'delong'``: DeLong, DeLong & Clarke-Pearson's (1988) variance and
        a normal interval.  ``'bootstrap'``: the percentile interval of
        ``n_bootstraps`` Poisson bootstrap replicates, all computed on one
        sort (:func:`dask_auc.bootstrap_ci`, whose ``replicates`` this result
        leaves out); its ``std_error`` is the replicates' standard deviation.
    sample_weight : same kinds as ``y_true``, optional
        Only with ``method='bootstrap'`` (DeLong's variance is of unweighted
        rows: anything but None raises ``ValueError`` there).
    compute : bool, default=True
        If False, return a :class:`~dask_auc.LazyScore`.
    split_every : int >= 2, optional
        Fan-in of the tree that sums the buckets' variance terms (default:
        ``dask.config`` key ``dask-auc.split-every``, 8).
    n_bootstraps : int, default=2000
        Replicates of ``method='bootstrap'``.
    random_state : int, numpy Generator or None
        The seed of ``method='bootstrap'`` (None: a fresh one).

    Returns
    -------
    AUCInterval or LazyScore
        ``(auc, low, high, std_error, confidence_level)``; NaNs with an
        :class:`~dask_auc.UndefinedMetricWarning` when ``y_true`` has one class.
        The standard error is NaN with fewer than two rows in a class.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> y = np.array([0, 0, 1, 1, 0, 1])
    >>> s = np.array([0.1, 0.4, 0.35, 0.8, 0.2, 0.9])
    >>> result = dask_auc.roc_auc_ci(y, s)
    >>> round(result.auc, 4), round(result.std_error, 4)
    (0.8889, 0.1571)
    >>> round(result.low, 4), result.high
    (0.5809, 1.0)
    """
    name = "roc_auc_ci"
    checked = check_query(
        name,
        confidence_level=confidence_level,
        method=method,
        compute=compute,
        split_every=split_every,
    )
    if method == "bootstrap":
        sort = replicate_sort(y_true, y_score, sample_weight, None, None)
        with checked_once(checked):
            lazy = interval_of(
                sort,
                name=name,
                metric="roc_auc",
                params={},
                n_bootstraps=n_bootstraps,
                confidence_level=confidence_level,
                random_state=random_state,
                interval="percentile",
                result=_auc_interval,
            )
        return lazy.compute() if checked["compute"] else lazy
    if sample_weight is not None:
        raise ValueError(WEIGHTS_MESSAGE)
    with checked_once(checked):
        return roc(y_true, y_score).ci(  # type: ignore[return-value]  # DeLong's: an AUCInterval
            confidence_level=confidence_level,
            method=method,
            split_every=split_every,
            compute=compute,
        )


def _auc_interval(
    estimate: float,
    low: float,
    high: float,
    std_error: float,
    confidence_level: float,
    n_bootstraps: int,
    replicates: Any,
) -> AUCInterval:
    return AUCInterval(estimate, low, high, std_error, confidence_level)


def delong_test(
    y_true: Any, score_a: Any, score_b: Any, *, compute: bool = True
) -> DeLongTest | LazyScore:
    """DeLong's test of two correlated AUCs: two models scored on the same rows.

    Parameters
    ----------
    y_true : dask Series or Array, pandas Series, ndarray or list
        Binary labels, as in :func:`dask_auc.roc_auc_score`.
    score_a, score_b : same kinds as ``y_true``
        The two models' scores of the same rows (paired by position).
    compute : bool, default=True
        If False, return a :class:`~dask_auc.LazyScore`.

    Returns
    -------
    DeLongTest or LazyScore
        ``(auc_a, auc_b, difference, std_error, z, p_value)`` with
        ``difference = auc_a - auc_b``, ``z = difference / std_error`` and the
        two-sided normal p-value.  ``z`` and ``p_value`` are NaN when the
        standard error is 0 (e.g. the same ranking twice), or too small to be
        told from 0 by float sums (then ``std_error`` is 0.0): two models
        whose placements differ by a constant have an exact variance of 0,
        and a z of 1e8 from rounding would be a wrong number.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> y = np.array([0, 0, 1, 1, 0, 1, 0, 1])
    >>> a = np.array([0.1, 0.4, 0.35, 0.8, 0.2, 0.9, 0.5, 0.6])
    >>> b = np.array([0.3, 0.2, 0.1, 0.6, 0.7, 0.8, 0.4, 0.5])
    >>> test = dask_auc.delong_test(y, a, b)
    >>> round(test.auc_a, 4), round(test.auc_b, 4), round(test.p_value, 4)
    (0.875, 0.625, 0.2207)
    """
    covariance = delong_covariance(y_true, (score_a, score_b), names=PAIRED_INPUTS)
    lazy = lazy_of([covariance], FinishEach([covariance], _PairTest(0, 1)), "delong_test")
    return lazy.compute() if compute else lazy


def delong_covariance(
    y_true: Any, scores: Sequence[Any], *, names: tuple[str, ...], function: str = "delong_test"
) -> LazyScore:
    """The lazy :class:`DeLongCovariance` of ``k >= 2`` models scored on the same rows.

    Each model's scores are sorted once with their row ids; every bucket sends
    its rows' placements back to their input block (the exchange run
    backwards), where all ``k`` placements of a row meet and the block sums
    their products.  ``names`` are ``y_true``'s and each model's names in the
    error messages; ``function`` the caller's, in the error of a target of more
    than two classes.  :func:`delong_test` is the case ``k = 2``;
    :class:`TracedModels` gives each model's ROC on the same sorts too.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0, 1, 1, 0, 1, 0, 1, 0])
    >>> a = np.array([0.2, 0.7, 0.6, 0.4, 0.9, 0.1, 0.3, 0.5])
    >>> b = np.array([0.3, 0.5, 0.8, 0.1, 0.5, 0.6, 0.7, 0.2])
    >>> c = np.array([0.5, 0.5, 0.9, 0.5, 0.2, 0.4, 0.8, 0.1])
    >>> k3 = delong_covariance(y, [a, b, c], names=("y", "a", "b", "c")).compute()
    >>> k3.aucs
    (0.875, 0.875, 0.75)
    >>> k3.matrix.round(4)
    array([[ 0.0208, -0.0104, -0.013 ],
           [-0.0104,  0.0208,  0.0104],
           [-0.013 ,  0.0104,  0.0391]])
    >>> round(k3.test(2, 0).p_value, 4)  # c against a
    0.6698
    """
    return TracedModels(y_true, scores, names=names, function=function).covariance()


class TracedModels:
    """``k >= 2`` models scored on the same rows, each sorted once, its rows carrying their ids.

    Each model's sort is the ROC's (:class:`~.sort.CurveSort`, one part per
    label, the positive class chosen after it) made of blocks whose rows carry
    their ids (``block << 32 | position in its class``): :attr:`rocs` holds each model's
    :class:`~dask_auc.ROC` on it, which answers every ROC query as
    :func:`dask_auc.roc` of the model does, to the bit (exact counts, whatever
    the buckets), and :meth:`covariance` DeLong's covariance from the same
    buckets.  So :func:`dask_auc.compare` sorts each model once for its
    metrics and its tests.  DeLong's placements are of the greater label's
    class whatever ``pos_label`` (the ROCs' positive class) is.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0, 1, 1, 0, 1, 0])
    >>> models = TracedModels(y, [y + 0.5, -y], names=("y", "a", "b"), pos_label=0)
    >>> models.rocs[1].auc(), models.covariance().compute().aucs
    (1.0, (1.0, 0.0))
    """

    def __init__(
        self,
        y_true: Any,
        scores: Sequence[Any],
        *,
        names: tuple[str, ...],
        function: str = "delong_test",
        pos_label: Any = None,
    ):
        if len(scores) < 2:
            raise ValueError(f"{function}: DeLong's covariance needs at least two models")
        self.function = function
        first, second, *rest = scores
        self.blocks = blocks = prepared_blocks(
            y_true, first, second, prepare=prepare_paired_block, names=tuple(names), extra=rest
        )
        sizes = sizes_of(blocks)
        rows = None if sizes is None or sizes.rows is None else sum(sizes.rows)
        self.sorts: list[CurveSort] = []
        self.rocs: list[ROC] = []
        compiled = compiled_kernels()  # the plain sort's setting: large blocks kept unsplit
        # which models are looked up by score (few distinct scores in every block), decided
        # before any sort from a probe of each block: the blocks are held to the end anyway.
        # Without the compiled loops none is (tabled_models): no probe, no wait for one
        tabled: Any = ()
        if compiled:
            tabled = gather(tabled_models, map_blocks(block_probe, blocks), compiled)
        for model, score in enumerate(scores):
            traced = map_indexed_blocks(traced_block, blocks, model, compiled, tabled)
            graph = SortedGraph(traced, plan=plan_labels)
            replicates = RocReplicates(y_true, score, None, pos_label)
            sort = CurveSort(None, pos_label, replicates, graph)
            self.sorts.append(sort)
            self.rocs.append(ROC._of_sort(sort, pos_label=pos_label, rows=rows))

    def covariance(self) -> LazyScore:
        """The lazy :class:`DeLongCovariance` of the models, from their sorts' buckets."""
        contexts, placements = [], []
        for sort in self.sorts:
            graph = sort.graph
            # the buckets as (other labels, greater label): the same tasks as the ROC's
            # when its pos_label is None
            greater = BinarySort(None, None, graph)
            context = graph.task("auc-delong-context", bucket_contexts, greater.summaries)
            routed = graph.per_bucket(
                "auc-delong-route", routed_placements, len(self.blocks), graph.plan_key,
                each=context, on=greater.buckets,
            )  # fmt: skip
            by_block = graph.to_blocks("auc-delong-back", routed)
            context_part, *per_block = graph.delayed([context, *by_block])
            contexts.append(context_part)
            placements.append(per_block)
        (plan,) = self.sorts[0].graph.delayed([self.sorts[0].graph.plan_key])
        sums = zip_blocks(cross_sums, self.blocks, *placements)
        total = gather(total_cross_sums, sums)
        finish = DeLongFinish(BinaryTarget(self.function))
        return lazy_of([total, plan, *contexts], finish, "delong_covariance")


class DeLongCovariance(NamedTuple):
    """``k`` models' AUCs and DeLong's covariance of them, from one pass over the rows.

    ``sums`` holds the ``k x k`` sums of centred placement products over the
    positive and over the negative rows
    (:class:`~dask_auc._kernels.binary.delong_paired.CrossSums`); ``positives`` and
    ``negatives`` count those rows.  ``aucs`` are NaN and ``sums`` None when
    the AUC is undefined (one class).  :attr:`matrix` is the covariance and
    :meth:`test` any pair's test, both from ``sums`` alone.
    """

    aucs: tuple[float, ...]
    sums: CrossSums | None
    positives: int
    negatives: int

    @property
    def matrix(self) -> np.ndarray:
        """DeLong's ``k x k`` covariance of the AUCs, ``S10 / m + S01 / n``.

        ``S10`` and ``S01`` are the sample covariance matrices of the models'
        placements of the positive and of the negative rows; NaN with fewer than
        two rows in a class.
        """
        k, m, n = len(self.aucs), self.positives, self.negatives
        if self.sums is None or m < 2 or n < 2:
            return np.full((k, k), np.nan)
        # as test()'s variance: each class's sample covariance, over its count
        return self.sums.pos / (m - 1) / m + self.sums.neg / (n - 1) / n

    def test(self, i: int, j: int) -> DeLongTest:
        """DeLong's paired test of model ``i``'s AUC against model ``j``'s (two-sided)."""
        nan = float("nan")
        if self.sums is None:
            return DeLongTest(nan, nan, nan, nan, nan, nan)
        m, n, pair, contrast = self.positives, self.negatives, (i, j), (1.0, -1.0)

        def quadratic(matrix: Any) -> float:
            return float(
                sum(
                    contrast[a] * matrix[pair[a]][pair[b]] * contrast[b]
                    for a in (0, 1)
                    for b in (0, 1)
                )
            )

        variance = (
            sample_variance(quadratic(self.sums.pos), m) / m
            + sample_variance(quadratic(self.sums.neg), n) / n
        )
        noise = (
            sample_variance(_contrast_noise(self.sums.pos, pair, m), m) / m
            + sample_variance(_contrast_noise(self.sums.neg, pair, n), n) / n
        )
        auc_a, auc_b = self.aucs[i], self.aucs[j]
        difference = auc_a - auc_b
        if not variance > noise:  # NaN (a class of one row), 0, or not told from 0: no z
            std_error = 0.0 if variance == variance else nan
            return DeLongTest(auc_a, auc_b, difference, std_error, nan, nan)
        std_error = math.sqrt(variance)
        z = difference / std_error
        return DeLongTest(auc_a, auc_b, difference, std_error, z, math.erfc(abs(z) / math.sqrt(2)))


def _contrast_noise(sums: np.ndarray, pair: tuple[int, int], rows: int) -> float:
    """A bound on the rounding of one class's ``sum((c_i - c_j) ** 2)`` taken from ``sums``.

    ``c`` are the centred placements of ``rows`` rows (each within ``4u`` of
    its exact value: the placement's division, the AUC's rounding, the
    subtraction), ``sums`` their products added in chains of at most
    ``rows`` terms.  The contrast ``S_ii - 2 S_ij + S_jj`` cancels: two
    models whose placements differ by a constant have an exact 0 there, and
    the float sums leave a few ulps of ``S_ii`` instead (a standard error
    of 1e-9, a z of 1e8).  What the sums do not resolve from 0 is 0.
    """
    i, j = pair
    unit = 2.0**-53
    terms = abs(sums[i][i]) + abs(sums[j][j]) + 2 * abs(sums[i][j])
    summed = (rows + 4) * unit * terms  # products, additions, and the contrast's three
    centred = 16 * unit * math.sqrt(2 * rows * terms) + 64 * rows * unit**2  # (c_i - c_j: 8u)
    return 2 * (summed + centred)  # (twice: the bound's own roundings, and room)


def _defined(plan: SortPlan, context: BucketContext | None, target: BinaryTarget) -> bool:
    target.check(plan.classes, plan.rows)
    if context is None:
        return defined_or_warn(1, 0, 0)
    return defined_or_warn(len(plan.classes), context.total_pos, context.total_neg)


class DeLongFinish:
    """Every model's AUC and the cross sums, from the sums and each model's bucket contexts."""

    def __init__(self, target: BinaryTarget):
        self.target = target

    def __call__(
        self, sums: CrossSums, plan: SortPlan, *contexts: Sequence[BucketContext | None]
    ) -> DeLongCovariance:
        # the models score the same rows: each has rows in a bucket, or none has
        placed = [c for c in map(first_context, contexts) if c is not None]
        if not _defined(plan, placed[0] if placed else None, self.target):
            return DeLongCovariance((float("nan"),) * len(contexts), None, 0, 0)
        assert len(placed) == len(contexts)
        aucs = tuple(c.auc for c in placed)
        return DeLongCovariance(aucs, sums, placed[0].total_pos, placed[0].total_neg)


class _PairTest:
    """Model ``i``'s test against model ``j``, of a :class:`DeLongCovariance`."""

    def __init__(self, i: int, j: int):
        self.i, self.j = i, j

    def __call__(self, covariance: DeLongCovariance) -> DeLongTest:
        return covariance.test(self.i, self.j)
