"""The cluster bootstrap of a weighted mean over groups (GAUC's interval).

Each group is one unit of the resample: its replicate counts are drawn from
its key's hash (:mod:`dask_auc._kernels.replicates.counts`), the same in every
block, and every replicate's weighted mean is summed in the groups' order.

Nothing here imports dask.
"""

from __future__ import annotations

import numpy as np

from . import compiled as _compiled
from .counts import CELLS, POISSON_THRESHOLDS, counts_for, replicate_keys


def weighted_mean_replicates(
    keys: np.ndarray,
    values: np.ndarray,
    weights: np.ndarray,
    seed: int,
    n_bootstraps: int,
    compiled: bool,
) -> np.ndarray:
    """``sum(c * w * v) / sum(c * w)`` over the groups in every replicate (NaN where 0 / 0).

    ``keys`` are the groups' ``r_g``
    (:func:`~dask_auc._kernels.replicates.counts.group_keys`), in a fixed order
    (the sorted group keys): the sums run in that order, the same in the
    compiled loop and in NumPy (a running sum down the groups).
    """
    rep_keys = replicate_keys(seed, np.arange(n_bootstraps))
    weighted = weights * values
    found = _compiled.replicate_weighted_sums(
        keys, weighted, weights, rep_keys, POISSON_THRESHOLDS, compiled=compiled
    )
    if found is None:
        num, den = np.zeros(n_bootstraps), np.zeros(n_bootstraps)
        step = max(1, CELLS // max(len(keys), 1))
        for first in range(0, n_bootstraps, step):
            cols = slice(first, first + step)
            counts = counts_for(keys, rep_keys[cols]).T.astype(np.float64)
            if len(keys):
                num[cols] = np.cumsum(counts * weighted[:, np.newaxis], axis=0)[-1]
                den[cols] = np.cumsum(counts * weights[:, np.newaxis], axis=0)[-1]
        found = num, den
    num, den = found
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
