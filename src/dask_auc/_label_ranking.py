"""scikit-learn's multilabel ranking metrics and DCG on dask collections.

``coverage_error``, ``label_ranking_average_precision_score``,
``label_ranking_loss``, ``dcg_score`` and ``ndcg_score``: each row's value
from that row alone, summed exactly (:mod:`dask_auc._per_row` builds the graph).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._docstrings import shared_docs
from ._engine import LazyScore
from ._kernels.per_row.ranking_target import COVERAGE_ERROR, DCG, LRAP, NDCG, RANKING_LOSS
from ._params import Boolean, Interval
from ._per_row import ROW_PARAMETERS, IntegerAtLeast, sample_metric

_NDCG_PARAMETERS = {"k": IntegerAtLeast(1, none=True), "ignore_ties": Boolean(), **ROW_PARAMETERS}
_DCG_PARAMETERS = {
    "k": IntegerAtLeast(1, none=True),
    "log_base": Interval(0, np.inf, closed="neither"),
    "ignore_ties": Boolean(),
    **ROW_PARAMETERS,
}


@shared_docs
def coverage_error(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    compute: bool = True,
    split_every: int | None = None,
) -> float | LazyScore:
    """Coverage error of a multilabel ranking: how deep the ranking must go, with dask.

    Same as :func:`sklearn.metrics.coverage_error`: per row, the number of
    labels scoring at least as high as its lowest-scored relevant label (ties
    take the worst rank; 0 for a row with no relevant label), averaged over
    the rows (weighted).

    Parameters
    ----------
    y_true : 2-D dask Array or DataFrame, ndarray, ... of shape (n_samples, n_labels)
        Label indicator matrix: a label is relevant where it is nonzero.
    y_score : same kinds and shape as ``y_true``
        Scores; higher ranks first.  Rows pair with ``y_true`` by position
        (two dask DataFrames: partition by partition, of equal lengths).
    sample_weight : 1-D dask Array or Series, ndarray, ..., optional
        Non-negative row weights.
    %(compute_split_every)s

    %(returns_same_bits)s

    Examples
    --------
    >>> import numpy as np, dask.array as da, dask_auc
    >>> y = da.from_array(np.array([[1, 0, 0], [0, 1, 1]]), chunks=(1, 3))
    >>> s = da.from_array(np.array([[1, 0, 0], [0, 1, 1]]), chunks=(1, 3))
    >>> dask_auc.coverage_error(y, s)
    1.5
    """
    return sample_metric(COVERAGE_ERROR, ROW_PARAMETERS, **locals())


@shared_docs
def label_ranking_average_precision_score(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    compute: bool = True,
    split_every: int | None = None,
) -> float | LazyScore:
    """Label ranking average precision (LRAP) of a multilabel ranking, with dask.

    Same as :func:`sklearn.metrics.label_ranking_average_precision_score`:
    per row, the mean over its relevant labels of the fraction of relevant
    labels among those scoring at least as high (ties take the worst rank);
    1 for a row with no relevant label or only relevant labels.

    Parameters
    ----------
    y_true, y_score, sample_weight, compute, split_every
        As in :func:`coverage_error`.  A one-column ``y_true`` of two classes is
        accepted (every row then scores 1), as in scikit-learn; so is a SciPy
        sparse ``y_true`` (made dense: it is in memory already).

    %(returns_same_bits)s
        Weights summing to 0 give NaN with NumPy's ``RuntimeWarning``, as in
        scikit-learn.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> y_true = np.array([[1, 0, 0], [0, 0, 1]])
    >>> y_score = np.array([[0.75, 0.5, 1], [1, 0.2, 0.1]])
    >>> dask_auc.label_ranking_average_precision_score(y_true, y_score)
    0.41666666666666663
    """
    return sample_metric(LRAP, ROW_PARAMETERS, **locals())


@shared_docs
def label_ranking_loss(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    compute: bool = True,
    split_every: int | None = None,
) -> float | LazyScore:
    """Ranking loss of a multilabel ranking: the share of misordered label pairs, with dask.

    Same as :func:`sklearn.metrics.label_ranking_loss`: per row, the
    (relevant, irrelevant) label pairs where the relevant one scores no
    higher (a tie counts), over all such pairs; 0 for a row with no relevant
    or no irrelevant label.

    Parameters
    ----------
    y_true, y_score, sample_weight, compute, split_every
        As in :func:`coverage_error`; a SciPy sparse ``y_true`` is accepted, as
        in scikit-learn (made dense: it is in memory already).

    %(returns_same_bits)s

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> dask_auc.label_ranking_loss([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]])
    0.75
    """
    return sample_metric(RANKING_LOSS, ROW_PARAMETERS, **locals())


@shared_docs
def dcg_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int | None = None,
    log_base: float = 2,
    sample_weight: Any = None,
    ignore_ties: bool = False,
    compute: bool = True,
    split_every: int | None = None,
) -> float | LazyScore:
    """Discounted cumulative gain of each row's ranking, averaged, with dask.

    Same as :func:`sklearn.metrics.dcg_score`: the gains ``y_true`` of a row,
    ranked by ``y_score`` and discounted by ``1 / log_base(position + 1)``,
    summed (the top ``k`` positions only, when given).  With
    ``ignore_ties=False`` tied scores share their positions: each tie group
    counts its mean gain times the sum of its positions' discounts, exactly as
    scikit-learn's tie averaging does.

    Parameters
    ----------
    y_true : 2-D dask Array or DataFrame, ndarray, ... of shape (n_samples, n_labels)
        Gains (relevances) of each row's items; any finite numbers.
    y_score : same kinds and shape as ``y_true``
        Scores ranking each row's items.
    k : int >= 1, optional
        Only the ``k`` best-ranked positions count.
    log_base : float > 0, default=2
        Base of the logarithm of the discount.
    sample_weight, compute, split_every
        As in :func:`coverage_error`.
    ignore_ties : bool, default=False
        Rank by NumPy's sort alone (tied scores in the order it leaves them),
        as scikit-learn does: faster, and right only without ties.

    %(returns_same_bits)s

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> true_relevance = np.asarray([[10, 0, 0, 1, 5]])
    >>> dask_auc.dcg_score(true_relevance, np.asarray([[.1, .2, .3, 4, 70]]))
    9.499457825916874
    >>> dask_auc.dcg_score(true_relevance, np.asarray([[1, 0, 0, 0, 1]]), k=1)
    7.5
    """
    return sample_metric(DCG, _DCG_PARAMETERS, **locals())


@shared_docs
def ndcg_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int | None = None,
    sample_weight: Any = None,
    ignore_ties: bool = False,
    compute: bool = True,
    split_every: int | None = None,
) -> float | LazyScore:
    """Normalized discounted cumulative gain of each row's ranking, averaged, with dask.

    Same as :func:`sklearn.metrics.ndcg_score`: each row's :func:`dcg_score`
    over the DCG of its ideal ranking (0 for a row whose gains are all 0).

    Parameters
    ----------
    y_true : 2-D dask Array or DataFrame, ndarray, ... of shape (n_samples, n_labels)
        Non-negative gains of each row's items (two items or more).
    y_score, k, sample_weight, ignore_ties, compute, split_every
        As in :func:`dcg_score` (base-2 discount).

    %(returns_same_bits)s

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> true_relevance = np.asarray([[10, 0, 0, 1, 5]])
    >>> scores = np.asarray([[1, 0, 0, 0, 1]])  # items 0 and 4 tie at the top
    >>> dask_auc.ndcg_score(true_relevance, scores, k=1)  # the tie shares its gains: 7.5 / 10
    0.75
    >>> dask_auc.ndcg_score(true_relevance, scores, k=1, ignore_ties=True)  # NumPy's order: 5 / 10
    0.5
    """
    return sample_metric(NDCG, _NDCG_PARAMETERS, **locals())
