"""Independent references for the tests: nothing here calls dask-auc."""

from __future__ import annotations

from fractions import Fraction

import numpy as np


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
