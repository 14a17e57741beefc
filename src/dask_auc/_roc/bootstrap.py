"""Bootstrap intervals and paired bootstrap tests of binary metrics, every replicate on one sort.

The rows are sorted once, by score, with each row's key (its position in the
input, or its group's key for the cluster bootstrap); each sorted bucket
then computes every replicate at once from counter-based Poisson(1) counts
(:mod:`dask_auc._kernels.replicates.counts`), and the neighbour-only scan of the
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

from typing import Any

import numpy as np
import pandas as pd

from .._engine import LazyScore, lazy_of
from .._kernels.replicates.counts import (
    check_seed,
    group_keys,
    mix64,
    position_keys,
    replicate_keys,
)
from .._kernels.replicates.counts import counts_for as _counts_for
from .._kernels.replicates.tie_groups import ReplicateSpec
from .._kernels.replicates.weighted_mean import weighted_mean_replicates
from .object import roc
from .params import check_query, checked_once
from .registry import replicated
from .replicate_metrics import BootstrapTestFinish, replicate_interval
from .replicates import replicate_sort
from .results import BootstrapInterval, BootstrapTest


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
        ``counts[b, i]``: how many times row ``i`` enters replicate ``b``.

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
    checked = _checked(name, metric, n_bootstraps, confidence_level, interval, pos_label, compute)
    replicated(name, metric, params)  # its errors before any graph is built
    with checked_once(checked):  # the ROC's interval: the one bootstrap of a binary input
        curve = roc(y_true, y_score, pos_label=pos_label, sample_weight=sample_weight)
        return curve.ci(  # type: ignore[return-value]  # the bootstrap's: a BootstrapInterval
            method="bootstrap",
            metric=metric,
            n_bootstraps=n_bootstraps,
            confidence_level=confidence_level,
            random_state=random_state,
            groups=groups,
            interval=interval,
            compute=compute,
            **params,
        )


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
        ``p_value`` are NaN when the replicate differences do not vary, and,
        with float weights, when every one of them is within the rounding of
        the weighted sums (two models that rank every pair alike: an
        :class:`~dask_auc.UndefinedMetricWarning` says so).

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
    query, finish_metric = replicated(name, metric, params)
    # one seed for both models: each row's counts are the same in both
    spec = ReplicateSpec(check_seed(random_state), n_bootstraps, sample_weight is not None)
    parts = [
        part
        for scores in (score_a, score_b)
        for part in replicate_sort(y_true, scores, sample_weight, groups, pos_label).parts(
            spec, query
        )
    ]
    finish = BootstrapTestFinish(name, finish_metric, confidence_level, interval, n_bootstraps)
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
    return check_query(
        name,
        metric=metric,
        n_bootstraps=n_bootstraps,
        confidence_level=confidence_level,
        interval=interval,
        pos_label=pos_label,
        compute=compute,
    )


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
    low, high, std_error = replicate_interval(
        values, confidence_level, "percentile", "GAUC interval"
    )
    return BootstrapInterval(
        float(estimate), low, high, std_error, confidence_level, n_bootstraps, values[1:]
    )
