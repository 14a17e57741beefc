"""The dask graph of the curves: the sort of :mod:`dask_auc._engine.graph`, then a scan.

For ``K`` sorted buckets (bucket 0 = highest scores)::

    summary_(0..K-1) -> context               (one ordered exclusive scan)
    bucket_b + context -> points_b            (curve points, corners, thinning)
    bucket_b + context -> precision_sum_b     (average precision)

The scan task reads only the ``K`` small summaries; each bucket then makes its
own points.  Graph building for the curves lives here only.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from functools import partial
from typing import Any

from dask.base import tokenize
from dask.delayed import Delayed

from .._kernels.curves import (
    LabelRule,
    bucket_curve,
    bucket_precision_sum,
    curve_contexts,
    plan_curve,
    prepare_curve_block,
)
from .graph import SortedGraph
from .inputs import prepared_blocks


def curve_blocks(y_true: Any, y_score: Any, sample_weight: Any, rule: LabelRule) -> list[Delayed]:
    """One lazy block per input block, split on ``label == rule.positive``."""
    return prepared_blocks(
        y_true, y_score, sample_weight, prepare=partial(prepare_curve_block, rule=rule)
    )


class CurveSortedGraph(SortedGraph):
    """The sorted buckets of a binary target given by a :class:`LabelRule`.

    The planning task checks the labels as scikit-learn does before it plans
    the sort, so a bad ``pos_label`` fails before the data are sorted.
    """

    def __init__(self, blocks: Sequence[Delayed], rule: LabelRule):
        self.plan_kernel = partial(plan_curve, rule=rule)  # type: ignore[assignment]
        super().__init__(blocks)
        self.context_key = self.add(("curve-contexts", 0), curve_contexts, self.summary_keys)
        self.bucket_context_keys = [
            self.add(("curve-context", b), operator.getitem, self.context_key, b)
            for b in range(self.n_buckets)
        ]

    def curve_keys(
        self, curve: str, drop_intermediate: bool, max_points: int | None
    ) -> list[tuple]:
        """Keys of each bucket's :class:`~dask_auc._kernels.curves.CurvePoints`."""
        kind = f"curve-points-{tokenize(curve, drop_intermediate, max_points)}"
        return [
            self.add((kind, b), bucket_curve, key, context, curve, drop_intermediate, max_points)
            for b, (key, context) in enumerate(
                zip(self.bucket_keys, self.bucket_context_keys, strict=True)
            )
        ]

    def precision_sum_key(self) -> tuple:
        """Key of ``sum(dtps * precision)`` over the whole curve."""
        parts = [
            self.add(("curve-precision", b), bucket_precision_sum, key, context)
            for b, (key, context) in enumerate(
                zip(self.bucket_keys, self.bucket_context_keys, strict=True)
            )
        ]
        return self.add(("curve-precision-sum", 0), _total, parts)

    def area_key(self, split_every: int) -> tuple:
        """Key of the merged :class:`~dask_auc._kernels.summary.PartialROC` (the exact AUC)."""
        return self.tree_reduce(self.summary_keys, split_every)


def _total(parts: list[float]) -> float:
    return float(sum(parts))
