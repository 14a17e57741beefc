"""Independent references for the tests: nothing here calls dask-auc."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

#: dask's Parquet reader calls a pandas method pandas 3.1 deprecates.  A CLI test whose
#: compute fails leaves the threaded scheduler's other reads running, and their warning can
#: land in a later test's ``catch_warnings(record=True)`` (process-wide): tests that compare
#: warning sets ignore this one message, which is neither dask-auc's nor scikit-learn's.
DASK_READER_NOTICE = "The inplace keyword in DataFrame.reset_index is deprecated"


def record_all_warnings() -> None:
    """Inside ``catch_warnings(record=True)``: record every warning but dask's reader notice."""
    import warnings

    warnings.simplefilter("always")
    warnings.filterwarnings("ignore", message=DASK_READER_NOTICE)


def run_and_record(call, *, errors=(ValueError, TypeError), ignore=()):
    """``(call()'s result or its error as "Type: message", the set of warning messages)``.

    Errors of the ``errors`` types are the outcome, any other propagates;
    warnings of the ``ignore`` categories are left out.
    """
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        record_all_warnings()
        try:
            result = call()
        except errors as error:
            result = f"{type(error).__name__}: {error}"
    return result, {str(w.message) for w in caught if not issubclass(w.category, ignore)}


def pairwise_auc(y_true, y_score, sample_weight=None) -> float:
    """Brute-force AUC: every (positive, negative) pair, ties scoring one half.

    O(P * N); exact rational arithmetic for unweighted input.
    """
    y_true, y_score = np.asarray(y_true), np.asarray(y_score)
    positive = y_true == np.unique(y_true)[-1]
    weight = np.ones(len(y_true)) if sample_weight is None else np.asarray(sample_weight, float)
    pos_s, pos_w = y_score[positive], weight[positive]
    neg_s, neg_w = y_score[~positive], weight[~positive]
    above = (pos_s[:, None] > neg_s[None, :]).astype(float)
    tie = (pos_s[:, None] == neg_s[None, :]).astype(float)
    pair_w = pos_w[:, None] * neg_w[None, :]
    if sample_weight is None:
        twice = int(2 * above.sum() + tie.sum())
        return float(Fraction(twice, 2 * len(pos_s) * len(neg_s)))
    return float(((above + tie / 2) * pair_w).sum() / pair_w.sum())


def counting_auc(y_true, y_score) -> float:
    """Exact unweighted AUC in O(n log n), correctly rounded: :func:`exact_auc` as a float."""
    return float(exact_auc(y_true, y_score))


def exact_average_precision(y_true, y_score, pos_label=1) -> Fraction:
    """Unweighted average precision as an exact rational (round it once with ``float``).

    scikit-learn's step sum ``sum_k (R_k - R_{k-1}) P_k`` over the distinct
    scores, highest first, with ``P_k = tp_k / (tp_k + fp_k)``: every count an
    integer, every term a ``Fraction``.  0 when no row is positive.
    """
    y_true, y_score = np.asarray(y_true), np.asarray(y_score)
    positive = y_true == pos_label
    total_pos = int(positive.sum())
    if total_pos == 0:
        return Fraction(0)
    order = np.argsort(-y_score, kind="stable")
    scores, hits = y_score[order], positive[order]
    last = np.flatnonzero(np.concatenate((scores[1:] != scores[:-1], [True])))  # end of each tie
    tps = np.cumsum(hits)[last].tolist()
    predicted = (last + 1).tolist()
    total, before = Fraction(0), 0
    for tp, rows in zip(tps, predicted, strict=True):
        total += Fraction((tp - before) * tp, rows)
        before = tp
    return total / total_pos


def exact_auc(y_true, y_score) -> Fraction:
    """Unweighted ROC AUC as an exact rational, in O(n log n), for inputs too large for pairs.

    Each positive counts the negatives scored below it (``searchsorted`` left)
    and up to it (right); their sum is twice the pair count with ties as one
    half.  The greater of the two labels is positive (``roc_auc_score``'s rule).
    """
    y_true, y_score = np.asarray(y_true), np.asarray(y_score)
    positive = y_true == np.unique(y_true)[-1]
    negatives = np.sort(y_score[~positive])
    below = np.searchsorted(negatives, y_score[positive], side="left")
    up_to = np.searchsorted(negatives, y_score[positive], side="right")
    return Fraction(int(below.sum()) + int(up_to.sum()), 2 * len(below) * len(negatives))
