"""The grouped AUC's plan: which columns play which part, and which label is positive.

:func:`plan_groups` picks the positive class from every block's classes
(scikit-learn's rule for the whole frame: two classes, the greater one is
positive), counts the rows and those left out for a missing key, and, with
heavy groups cut over slots, their rows per class and the powers of two that
tame their extreme weights.

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..core.calibration import EPS64
from ..core.footprint import SizedByArrays
from ..core.validation import (
    BinaryTarget,
    union_of_classes,
)
from .heavy_groups import (
    HeavyBlockInfo,
)
from .pair_sums import ordinary_weights

#: the function a target of more than two classes is told it does not fit
_TARGET = BinaryTarget("grouped_roc_auc_score")


@dataclass(frozen=True)
class GroupSpec:
    """Which columns of the frame play which part."""

    by: tuple[str, ...]
    label: str
    score: str
    sample_weight: str | None = None
    gauc_column: str | None = None
    #: calibration metrics to add per group (``score`` is then a probability)
    metrics: tuple[str, ...] = ()
    #: the ``dask-auc.numba`` setting where the graph was built: compiled loops allowed
    compiled: bool = True
    #: more models' score columns, after ``score``: the rows carry them all through one
    #: exchange (their ``score`` is then 2-D, a column per model) and each gets its table
    more_scores: tuple[str, ...] = ()

    @property
    def scores(self) -> tuple[str, ...]:
        """Every score column, ``score`` first."""
        return (self.score, *self.more_scores)

    @property
    def columns(self) -> list[str]:
        """Every column the computation reads, each once, keys first."""
        names = [*self.by, self.label, *self.scores, self.sample_weight, self.gauc_column]
        return list(dict.fromkeys(n for n in names if n is not None))

    def for_score(self, i: int) -> GroupSpec:
        """The spec of score column ``i`` alone."""
        return replace(self, score=self.scores[i], more_scores=())


@dataclass(frozen=True)
class GroupBlockInfo(SizedByArrays):
    """What the plan needs to know of one block."""

    classes: tuple[Any, ...]  # the block's distinct labels, all rows'
    rows: int = 0
    missing_keys: int = 0  # rows left out: a key column holds a missing value
    low: float = np.inf  # the smallest and largest score (the probability range check)
    high: float = -np.inf
    heavy: HeavyBlockInfo | None = None  # its rows of heavy groups, when some are cut
    #: the log loss's clip of the block's probabilities: its score dtype's (float16's,
    #: float32's, else float64's), read before the scores are widened; inf: no rows
    eps: float = EPS64
    #: with several score columns, ``(low, high, eps)`` of each (the fields above: of all)
    per_score: tuple[tuple[float, float, float], ...] = ()


@dataclass(frozen=True)
class GroupPlan(SizedByArrays):
    """The global decision made from all blocks: which label is the positive class.

    Also the rows of the frame, and how many of them had a missing key (so
    that the caller can say it left them out).
    """

    classes: tuple[Any, ...]
    rows: int = 0
    missing_keys: int = 0
    low: float = np.inf
    high: float = -np.inf
    #: per heavy group (cut over slots), row 0 its negatives and row 1 its positives:
    #: rows of nonzero weight, and the power of two its weights are scaled by (None: 1)
    heavy_counts: np.ndarray | None = None
    heavy_exponents: np.ndarray | None = None
    heavy_gauc_weight: np.ndarray | None = None  # the sum of its gauc_weight column
    #: the log loss's clip: the smallest of the blocks' (their dtypes joined, as
    #: scikit-learn would see the whole column)
    eps: float = EPS64
    #: with several score columns, ``(low, high, eps)`` of each
    per_score: tuple[tuple[float, float, float], ...] = ()

    def for_score(self, i: int) -> GroupPlan:
        """The plan of score column ``i`` alone (its range and clip); itself with one column."""
        if not self.per_score:
            return self
        low, high, eps = self.per_score[i]
        return replace(self, low=low, high=high, eps=eps if eps < 1 else EPS64, per_score=())

    @property
    def positive_label(self) -> Any:
        """The greater of two classes; a lone class is positive only if it is 1 (or True).

        The lone-class rule is ``sklearn.metrics.roc_curve``'s default
        ``pos_label=1``: an all-zero frame is all negatives.
        """
        if len(self.classes) == 2:
            return self.classes[1]
        if len(self.classes) == 1 and _is_one(self.classes[0]):
            return self.classes[0]
        return _NO_POSITIVE


class _NoPositive:
    """Compares unequal to every label."""

    def __repr__(self) -> str:
        return "<no positive class>"


_NO_POSITIVE = _NoPositive()


def _is_one(value: Any) -> bool:
    try:
        return bool(value == 1) and not isinstance(value, str)
    except (TypeError, ValueError):
        return False


def plan_groups(infos: Sequence[GroupBlockInfo]) -> GroupPlan:
    """The classes of the whole frame (at most two), its rows and those without a key.

    With heavy groups (cut over slots), also their rows per class and the
    powers of two that tame their extreme weights, from every block's info.
    """
    rows = sum(info.rows for info in infos)
    classes = union_of_classes([info.classes for info in infos], _TARGET, rows)
    missing = sum(info.missing_keys for info in infos)
    low = min((info.low for info in infos), default=np.inf)
    high = max((info.high for info in infos), default=-np.inf)
    eps = min((info.eps for info in infos), default=np.inf)
    per_score = joined_ranges([info.per_score for info in infos])
    plan = GroupPlan(
        classes, rows, missing, low, high, eps=eps if eps < 1 else EPS64, per_score=per_score
    )
    heavy = [info.heavy for info in infos if info.heavy is not None]
    return _with_heavy_groups(plan, heavy) if heavy else plan


def joined_ranges(
    ranges: Sequence[tuple[tuple[float, float, float], ...]],
) -> tuple[tuple[float, float, float], ...]:
    """Each score column's ``(low, high, eps)`` over blocks: least, greatest, least.

    Examples
    --------
    >>> joined_ranges([((0.1, 0.5, 1e-16),), ((0.0, 0.4, 1e-7),), ()])
    ((0.0, 0.5, 1e-16),)
    """
    filled = [r for r in ranges if r]
    if not filled:
        return ()
    return tuple(
        (min(r[i][0] for r in filled), max(r[i][1] for r in filled), min(r[i][2] for r in filled))
        for i in range(len(filled[0]))
    )


def _with_heavy_groups(plan: GroupPlan, infos: list[HeavyBlockInfo]) -> GroupPlan:
    n_groups = infos[0].counted.shape[0]
    counts = np.zeros((2, n_groups), np.int64)
    largest = np.zeros((2, n_groups))
    gauc = None if infos[0].gauc_weight is None else np.zeros(n_groups)
    for info in infos:
        for j, value in enumerate(info.labels):
            positive = int(bool(value == plan.positive_label))
            counts[positive] += info.counted[:, j]
            if info.max_weight is not None:
                np.maximum(largest[positive], info.max_weight[:, j], out=largest[positive])
        if gauc is not None and info.gauc_weight is not None:
            gauc += info.gauc_weight  # in block order: the same sum every time
    exponents = None
    if not (
        ordinary_weights(largest[0], spread=False) and ordinary_weights(largest[1], spread=False)
    ):
        exponents = np.frexp(largest)[1]  # as class_exponents scales an ordinary group's
    return replace(plan, heavy_counts=counts, heavy_exponents=exponents, heavy_gauc_weight=gauc)
