"""The CORP reliability diagram and score decomposition: a query of the ROC's one sort.

Each sorted bucket pools its distinct scores into its PAV block stack
(:func:`~dask_auc._kernels.binary.reliability.bucket_blocks`), as soon as it is
sorted and knowing nothing of the others (its end groups kept aside): no task
waits for the scan of all buckets' summaries, so a bucket is reduced and let go
as it comes -- the AUC's memory, and beside a ROC computed anyway one more
pass over each bucket while it is at hand.  A tree of contiguous runs merges
neighbouring stacks (:func:`~dask_auc._kernels.binary.reliability.merged_blocks`),
joining the tie groups cut at bucket edges, so the fit of all rows is made
without any row leaving its bucket; the finish checks the probabilities and
splits the scores (:class:`ReliabilityFinish`).
"""

from __future__ import annotations

import numpy as np

from .._engine import LazyScore, split_every_default
from .._kernels.binary.reliability import (
    BlockStack,
    completed,
    decomposition,
    merged_blocks,
    recalibrated,
    thinned,
)
from .._kernels.core.validation import BinaryTarget
from .._kernels.sort.labels import LabelChoice
from .declarations import BinaryQuery
from .finish import QueryFinish
from .labels import TargetLabels
from .results import ReliabilityDiagram, ScoreDecomposition
from .sort import CurveSort


def reliability_plan(sort: CurveSort, query: BinaryQuery, *, max_points: int | None) -> LazyScore:
    """Each bucket's PAV stack, merged by neighbours in a tree, then :class:`ReliabilityFinish`."""
    assert query.kernel is not None
    stacks = sort.per_bucket("reliability-blocks", query.kernel)
    merged = sort.graph.tree_reduce(
        stacks, split_every_default(), "reliability-merge", combine=merged_blocks
    )
    finish = QueryFinish(ReliabilityFinish(max_points), TargetLabels(BinaryTarget(query.function)))
    return sort.query([merged], finish, query.function)


class ReliabilityFinish:
    """The probabilities' check, the decomposition of the whole stack, the thinned steps."""

    def __init__(self, max_points: int | None):
        self.max_points = max_points

    def __call__(self, choice: LabelChoice, stack: BlockStack) -> ReliabilityDiagram:
        stack = completed(stack)  # the lowest and the highest score's groups are whole now
        if len(stack):  # brier_score_loss's messages, in its order
            if stack.high[-1] > 1:
                raise ValueError(f"y_prob contains values greater than 1: {stack.high[-1]}")
            if stack.low[0] < 0:
                raise ValueError(f"y_prob contains values less than 0: {stack.low[0]}")
        parts = decomposition(stack)
        values = recalibrated(stack)
        keep = thinned(stack, values, self.max_points)
        return ReliabilityDiagram(
            low=stack.low[keep],
            high=stack.high[keep],
            recalibrated=values[keep],
            weight=np.asarray(stack.pos + stack.neg)[keep],
            brier=ScoreDecomposition(*parts.brier),
            log_score=ScoreDecomposition(*parts.log),
            mean_score=parts.mean_score,
            mean_outcome=parts.mean_outcome,
        )
