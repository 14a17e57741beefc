"""Per-row values of the multilabel ranking metrics and DCG, and a block's exact sums of them.

Each row's value is computed from that row alone, with sums along a row
taken sequentially (``np.cumsum``), never by BLAS or pairwise reductions
whose association may depend on the block's shape: a row's value is the
same bits in any block.  Ties are scikit-learn's: coverage and LRAP give
tied labels the worst ("max") rank, the ranking loss counts a tied
(relevant, irrelevant) pair as misordered, DCG with ``ignore_ties=False``
gives each tie group its mean gain times the sum of its positions'
discounts (scikit-learn's ``_tie_averaged_dcg``, McSherry & Najork 2008),
summing the gains of a group in column order as scikit-learn does.  A row's
tie runs come from :func:`~dask_auc._kernels.core.row_ties.row_ties`.

Nothing here imports dask.
"""

from __future__ import annotations

import numpy as np

from ..core.row_ties import RowTies, row_ties
from .ranking_target import COVERAGE_ERROR, DCG, LRAP, RANKING_LOSS, RankingBlock, RankingPlan
from .row_sums import RowSums, row_sums


def _row_total(values: np.ndarray) -> np.ndarray:
    """Each row's sum, added left to right (the same bits whatever the block holds)."""
    if values.shape[1] == 0:
        return np.zeros(len(values))
    return np.cumsum(values, axis=1)[:, -1]


def coverage_values(truth: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Per row: how many labels score at least its lowest-scored relevant label (0 if none).

    Examples
    --------
    >>> coverage_values(np.array([[1, 0, 0], [0, 0, 0]]), np.array([[0.2, 0.5, 0.2], [1, 2, 3]]))
    array([3, 0])
    """
    relevant = truth != 0
    # the dtype's largest value, not a float inf: integer scores stay exact
    fill = np.inf if scores.dtype.kind == "f" else np.iinfo(scores.dtype).max
    lowest = np.where(relevant, scores, fill).min(axis=1, initial=fill)
    coverage = (scores >= lowest[:, None]).sum(axis=1)
    return np.where(relevant.any(axis=1), coverage, 0)


def lrap_values(truth: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Per row: mean over relevant labels of (relevant labels ranked at or above) / (rank).

    A label's rank counts the labels scoring at least as high (ties take the
    worst rank).  Rows with no relevant label, or only relevant labels, score 1.
    The ratios are summed in column order, as scikit-learn does.

    Examples
    --------
    >>> lrap_values(np.array([[1, 0, 0], [0, 0, 1]]), np.array([[0.75, 0.5, 1], [1, 0.2, 0.1]]))
    array([0.5       , 0.33333333])
    """
    n, k = scores.shape
    if n == 0:
        return np.empty(0)
    n_relevant, ties, sorted_relevant = _ranked_relevance(truth, scores)
    before = np.zeros((n, k + 1), dtype=np.int64)
    np.cumsum(sorted_relevant, axis=1, out=before[:, 1:])
    rank = k - ties.first  # labels scoring at least as high
    at_least = n_relevant[:, None] - np.take_along_axis(before, ties.first, axis=1)
    ratio_sorted = np.where(sorted_relevant, at_least / rank, 0.0)
    ratio = np.empty_like(ratio_sorted)
    np.put_along_axis(ratio, ties.order, ratio_sorted, axis=1)
    return _ratio_unless_one_kind(_row_total(ratio), n_relevant, n_relevant, k, otherwise=1.0)


def ranking_loss_values(truth: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Per row: misordered (relevant, irrelevant) pairs -- a tie is one -- over all such pairs.

    0 for rows with no relevant or no irrelevant label; each value is one
    division of two exact integers, as in scikit-learn.

    Examples
    --------
    >>> ranking_loss_values(np.array([[1, 0, 0], [0, 0, 1]]),
    ...                     np.array([[0.75, 0.5, 1], [1, 0.2, 0.1]]))
    array([0.5, 1. ])
    """
    n, k = scores.shape
    if n == 0:
        return np.empty(0)
    n_relevant, ties, sorted_relevant = _ranked_relevance(truth, scores)
    up_to = np.cumsum(sorted_relevant, axis=1)
    # an irrelevant label is misordered with every relevant one scored at most as high
    pairs = np.where(sorted_relevant, 0, np.take_along_axis(up_to, ties.last, axis=1)).sum(axis=1)
    all_pairs = (k - n_relevant) * n_relevant
    return _ratio_unless_one_kind(pairs, all_pairs, n_relevant, k, otherwise=0.0)


def _ranked_relevance(
    truth: np.ndarray, scores: np.ndarray
) -> tuple[np.ndarray, RowTies, np.ndarray]:
    """Each row's number of relevant labels, its tie runs, and its relevance in score order.

    The relevance (``truth != 0``) is ordered as :func:`~dask_auc._kernels.core.row_ties.row_ties`
    orders the scores: ascending, stably.
    """
    relevant = truth != 0
    ties = row_ties(scores)
    return relevant.sum(axis=1), ties, np.take_along_axis(relevant, ties.order, axis=1)


def _ratio_unless_one_kind(
    numerator: np.ndarray, denominator: np.ndarray, n_relevant: np.ndarray, k: int, otherwise: float
) -> np.ndarray:
    """Per row ``numerator / denominator``; ``otherwise`` where all ``k`` labels are of one kind.

    A row with no relevant label, or only relevant labels, has no pair to rank:
    scikit-learn gives it a fixed value (1 for LRAP, 0 for the ranking loss), and
    its 0 / 0 is not computed as an error.
    """
    one_kind = (n_relevant == 0) | (n_relevant == k)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(one_kind, otherwise, numerator / denominator)


def discounts(n_columns: int, k: int | None, log_base: float) -> np.ndarray:
    """scikit-learn's DCG discount of each position (0 past ``k``).

    Examples
    --------
    >>> discounts(3, 2, 2)
    array([1.        , 0.63092975, 0.        ])
    """
    discount = 1 / (np.log(np.arange(n_columns) + 2) / np.log(log_base))
    if k is not None:
        discount[k:] = 0
    return discount


def dcg_values(
    truth: np.ndarray, scores: np.ndarray, discount: np.ndarray, ignore_ties: bool
) -> np.ndarray:
    """Per row: the discounted cumulative gain of ``truth`` ranked by ``scores``.

    ``ignore_ties=True`` ranks by ``np.argsort`` reversed, as scikit-learn does
    (tied scores then fall in the order NumPy's sort leaves them).  Otherwise
    each tie group contributes its mean gain times the sum of its positions'
    discounts; a group's gains are summed in column order, as scikit-learn's
    ``np.add.at`` does.

    Examples
    --------
    >>> truth, scores = np.array([[10, 0, 0, 1, 5]]), np.array([[1, 0, 0, 0, 1]])
    >>> dcg_values(truth, scores, discounts(5, 1, 2), ignore_ties=False)
    array([7.5])
    """
    n, k = scores.shape
    if n == 0:
        return np.empty(0)
    if ignore_ties:
        ranking = np.argsort(scores)[:, ::-1]
        ranked = np.take_along_axis(truth, ranking, axis=1)
        return _row_total(ranked * discount)
    order, _, first, last = row_ties(scores)
    gains = np.take_along_axis(truth, order, axis=1).astype(np.float64)
    # each tie group's sum of gains, added in column order (the stable sort keeps it)
    group_sum = np.empty((n, k))
    running = np.zeros(n)
    for j in range(k):
        running = np.where(first[:, j] == j, 0.0, running) + gains[:, j]
        group_sum[:, j] = running
    is_last = last == np.arange(k)
    counts = last - first + 1
    mean_gain = group_sum / counts
    # a group's positions in the descending ranking run up to ``k - 1 - first``
    cumulative = np.cumsum(discount)
    top = k - 1 - first
    below = top - counts  # the last position of the next higher group (-1: none)
    above = cumulative[np.maximum(below, 0)]
    discount_sum = np.where(below >= 0, cumulative[top] - above, cumulative[top])
    terms = np.where(is_last, mean_gain * discount_sum, 0.0)
    # groups summed from the highest scores down, as scikit-learn sums them
    return _row_total(terms[:, ::-1])


def ideal_dcg_values(truth: np.ndarray, discount: np.ndarray) -> np.ndarray:
    """Per row: the DCG of ``truth`` ranked by itself (ties cannot change it)."""
    return _row_total(np.sort(truth, axis=1)[:, ::-1] * discount)


def ndcg_values(
    truth: np.ndarray, scores: np.ndarray, discount: np.ndarray, ignore_ties: bool
) -> np.ndarray:
    """Per row: the DCG over the ideal DCG, 0 where every gain is 0.

    Examples
    --------
    >>> truth, scores = np.array([[10, 0, 0, 1, 5]]), np.array([[.1, .2, .3, 4, 70]])
    >>> ndcg_values(truth, scores, discounts(5, None, 2), ignore_ties=False)
    array([0.69569404])
    """
    gain = dcg_values(truth, scores, discount, ignore_ties)
    ideal = ideal_dcg_values(truth, discount)
    irrelevant = ideal == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(irrelevant, 0.0, gain / np.where(irrelevant, 1.0, ideal))


def ranking_sums(
    block: RankingBlock,
    plan: RankingPlan,
    metric: str,
    discount: np.ndarray | None = None,
    ignore_ties: bool = False,
) -> RowSums:
    """A block's exact sums of ``metric``'s per-row values (``plan``: the checked target).

    ``discount`` and ``ignore_ties`` are DCG's and NDCG's.

    Examples
    --------
    >>> from dask_auc._kernels.core.summary import as_float
    >>> from dask_auc._kernels.per_row.ranking_target import prepare_ranking_block
    >>> block = prepare_ranking_block(None, [[1, 0, 0, 0.25, 0.5, 0.75]], n_labels=3)
    >>> sums = ranking_sums(block, RankingPlan(1, "multilabel-indicator"), "coverage_error")
    >>> as_float(sums.totals[0])
    3.0
    """
    truth, scores = block.truth, block.scores
    if metric == COVERAGE_ERROR:
        values = coverage_values(truth, scores)
    elif metric == LRAP:
        values = lrap_values(truth, scores)
    elif metric == RANKING_LOSS:
        values = ranking_loss_values(truth, scores)
    else:
        assert discount is not None
        kernel = dcg_values if metric == DCG else ndcg_values
        values = kernel(truth, scores, discount, ignore_ties)
    return row_sums([values], block.weights)
