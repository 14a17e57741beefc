"""Pass 1 of the bootstrap: each replicate's summary of one bucket.

:func:`replicate_summary` gives each replicate's class totals, its edge tie
groups and the (doubled) area inside the bucket, by the compiled walk down
the tie groups where numba runs, else from the tie groups' counts
(:func:`~dask_auc._kernels.replicates.tie_groups.column_counts`): the AUC
merges these summaries of neighbouring buckets only
(:mod:`dask_auc._kernels.replicates.scan`), exact integers when unweighted.

Nothing here imports dask.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..sort import compiled as _sort_loops
from ..sort.buckets import Bucket, summarize_bucket
from . import compiled as _compiled
from .tie_groups import ReplicateSpec, column_counts, exact_dtype, walk_keys, walkable
from .traced import TracedPlan


@dataclass(frozen=True)
class ReplicateSummary(SizedByArrays):
    """A bucket's part of every replicate (arrays over the columns, column 0 the estimate).

    ``area`` is the doubled area under the bucket's own stretch of the curve,
    its top as the origin: ``sum(neg_g * (2 * T_g - pos_g))`` over its tie groups
    ``g`` in descending score order, ``T_g`` the positives down to the end of ``g``.
    """

    top: Any  # the highest score, None for an empty bucket
    bottom: Any
    pos: np.ndarray
    neg: np.ndarray
    top_pos: np.ndarray
    top_neg: np.ndarray
    bottom_pos: np.ndarray
    bottom_neg: np.ndarray
    area: np.ndarray

    @property
    def is_empty(self) -> bool:
        return self.top is None


SUMMARY_ARRAYS = ("pos", "neg", "top_pos", "top_neg", "bottom_pos", "bottom_neg", "area")


def replicate_summary(bucket: Bucket, plan: TracedPlan, spec: ReplicateSpec) -> ReplicateSummary:
    """Every replicate's totals, edge tie groups and inner area of one bucket."""
    if walkable(bucket, plan, spec):
        estimate = _own_summary(bucket)
        walked = walk_keys(bucket, plan, spec)
        assert walked is not None
        out = _compiled.replicate_summary(walked)
        del walked
        if out is not None:
            if estimate.is_empty:
                return estimate
            arrays = {
                name: np.concatenate([getattr(estimate, name), row])
                for name, row in zip(SUMMARY_ARRAYS, out, strict=True)
            }
            return ReplicateSummary(estimate.top, estimate.bottom, **arrays)
    return _summary(bucket, plan, spec)


def _own_summary(bucket: Bucket) -> ReplicateSummary:
    """The estimate's column of an unweighted bucket: its own :class:`PartialROC`'s integers.

    The numbers :func:`_summary` gives the column (the rows counted once),
    from the sort's summary (one merge of the two classes), without laying
    out the tie groups: a few bytes, not ~64, a row of the bucket.
    """
    # the sort's compiled merge only if its loops are loaded already: asking would start
    # their compile (~90 s of CPU cold), which a bootstrap of small buckets need not pay
    own = summarize_bucket(
        bucket if _sort_loops.loaded("binary") else replace(bucket, compiled=False)
    )
    if own.top is None or own.bottom is None:
        return ReplicateSummary(
            None, None, **{name: np.zeros(1, np.int64) for name in SUMMARY_ARRAYS}
        )
    values = (
        own.pos, own.neg, own.top.pos, own.top.neg, own.bottom.pos, own.bottom.neg,
        2 * own.strict + own.tied,
    )  # fmt: skip
    pairs = zip(SUMMARY_ARRAYS, values, strict=True)
    arrays = {name: np.array([value], np.int64) for name, value in pairs}
    return ReplicateSummary(own.top.score, own.bottom.score, **arrays)


def _summary(bucket: Bucket, plan: TracedPlan, spec: ReplicateSpec) -> ReplicateSummary:
    dtype = exact_dtype(bucket, spec)
    width = spec.n_bootstraps + 1
    arrays = {name: np.zeros(width, dtype=dtype) for name in SUMMARY_ARRAYS}
    scores = None
    for first, stop, scores, pos, neg in column_counts(bucket, plan, spec):
        if len(scores) == 0:
            break
        pos, neg = pos.astype(dtype), neg.astype(dtype)
        cols = slice(first, stop)
        arrays["pos"][cols], arrays["neg"][cols] = pos.sum(0), neg.sum(0)
        arrays["top_pos"][cols], arrays["top_neg"][cols] = pos[0], neg[0]
        arrays["bottom_pos"][cols], arrays["bottom_neg"][cols] = pos[-1], neg[-1]
        arrays["area"][cols] = (neg * (2 * np.cumsum(pos, axis=0) - pos)).sum(0)
    if scores is None or len(scores) == 0:
        return ReplicateSummary(None, None, **arrays)
    return ReplicateSummary(scores[0].item(), scores[-1].item(), **arrays)
