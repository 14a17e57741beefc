"""A block of a per-sample ranking metric validated, and the checks of its whole target.

The checks that need the data (target type, empty input, negative gains)
run in one planning task (:func:`plan_ranking`) with scikit-learn 1.9's
messages, before any row is scored.  Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.validation import (
    ROW_INPUTS,
    RowCounts,
    as_score_array,
    as_weight_array,
    check_rows,
    to_numpy,
)
from .inputs import block_values

COVERAGE_ERROR = "coverage_error"
LRAP = "label_ranking_average_precision_score"
RANKING_LOSS = "label_ranking_loss"
DCG = "dcg_score"
NDCG = "ndcg_score"
METRICS = (COVERAGE_ERROR, LRAP, RANKING_LOSS, DCG, NDCG)

DCG_FORMATS = ("multilabel-indicator", "continuous-multioutput", "multiclass-multioutput")


@dataclass(frozen=True)
class RankingBlock(SizedByArrays):
    """One validated block: ``y_true`` and ``y_score`` (``(n, L)``, or 1-D), weights."""

    lengths: RowCounts
    truth: np.ndarray
    scores: np.ndarray
    weights: np.ndarray | None


def prepare_ranking_block(
    label: Any,
    matrix: Any,
    weight: Any = None,
    *,
    n_labels: int | None,
    names: tuple[str, ...] = ROW_INPUTS,
) -> RankingBlock:
    """Validate one block, with scikit-learn's messages (``check_array`` of both inputs).

    With ``n_labels``, ``matrix`` is ``[y_true | y_score]`` side by side
    (``label``, its first column, only aligns the blocks); without, ``label``
    is ``y_true`` and ``matrix`` is ``y_score``.

    Examples
    --------
    >>> block = prepare_ranking_block(None, [[1, 0, 0.2, 0.7]], n_labels=2)
    >>> block.truth, block.scores
    (array([[1., 0.]]), array([[0.2, 0.7]]))
    """
    if n_labels is None:
        truth, scores = to_numpy(label), block_values(matrix)
    else:
        values = block_values(matrix)
        truth, scores = values[:, :n_labels], values[:, n_labels:]
    lengths = RowCounts.of(names, truth, scores, weight)
    if not lengths.aligned:
        return RankingBlock(lengths, truth[:0], scores[:0], None)
    truth = as_score_array(truth)  # scikit-learn checks y_true as a numeric array first
    scores = as_score_array(scores)
    weights = None if weight is None else as_weight_array(weight)
    return RankingBlock(lengths, truth, scores, weights)


@dataclass(frozen=True)
class TargetMeta:
    """What the target checks need of a block's ``y_true``."""

    lengths: RowCounts
    values: tuple[float, ...]  # up to three of its distinct values, sorted
    fractional: bool  # a value is not a whole number (as type_of_target tells)
    minimum: float | None


def target_meta(block: RankingBlock) -> TargetMeta:
    """A block's :class:`TargetMeta`, in one pass (no sort).

    Examples
    --------
    >>> meta = target_meta(prepare_ranking_block(None, [[1, 0, 0.1, 0.2]], n_labels=2))
    >>> meta.values, meta.fractional, meta.minimum
    ((0.0, 1.0), False, 0.0)
    """
    truth = block.truth
    if not truth.size:
        return TargetMeta(block.lengths, (), False, None)
    low, high = truth.min(), truth.max()
    values = [low] if low == high else [low, high]
    if low != high:
        between = truth[(truth != low) & (truth != high)]
        if between.size:
            values = [low, between.flat[0], high]
    fractional = False
    if truth.dtype.kind == "f":
        with np.errstate(invalid="ignore"):  # as scikit-learn: casts past int64 are "fractional"
            fractional = bool((truth != truth.astype(np.int64)).any())
    return TargetMeta(
        block.lengths, tuple(sorted(float(v) for v in values)), fractional, float(low)
    )


def target_type(values: Sequence[float], fractional: bool, ndim: int, n_columns: int) -> str:
    """scikit-learn's ``type_of_target`` of a numeric ``y_true`` from its summary.

    ``values`` are its distinct values (three stand for "three or more").

    Examples
    --------
    >>> target_type((0.0, 1.0), False, 2, 3), target_type((0.0, 2.0, 5.0), False, 1, 1)
    ('multilabel-indicator', 'multiclass')
    """
    multioutput = ndim == 2 and n_columns > 1
    if multioutput and len(values) < 3 and not fractional:
        return "multilabel-indicator"
    suffix = "-multioutput" if multioutput else ""
    if fractional:
        return "continuous" + suffix
    if len(values) > 2 or multioutput:
        return "multiclass" + suffix
    return "binary"


@dataclass(frozen=True)
class RankingPlan:
    """The checked target."""

    n_rows: int
    target: str


def plan_ranking(
    metas: Sequence[TargetMeta], *, metric: str, ndim: int, n_columns: int
) -> RankingPlan:
    """scikit-learn 1.9's checks of ``y_true`` that need its values, in its order.

    ``ndim`` and ``n_columns`` describe ``y_true`` (known before any data is read).

    Examples
    --------
    >>> meta = target_meta(prepare_ranking_block(None, [[1, 2, 0.1, 0.2]], n_labels=2))
    >>> plan_ranking([meta], metric="label_ranking_loss", ndim=2, n_columns=2).target
    'multilabel-indicator'
    >>> plan_ranking([meta], metric="ndcg_score", ndim=2, n_columns=1)
    Traceback (most recent call last):
    ...
    ValueError: Computing NDCG is only meaningful when there is more than 1 document. Got 1 instead.
    """
    n_rows = check_rows(
        [meta.lengths for meta in metas], f"(0, {n_columns})" if ndim == 2 else "(0,)"
    )
    values = sorted({v for meta in metas for v in meta.values})
    fractional = any(meta.fractional for meta in metas)
    kind = target_type(values, fractional, ndim, n_columns)
    if metric in (COVERAGE_ERROR, RANKING_LOSS):
        if kind != "multilabel-indicator":
            raise ValueError(f"{kind} format is not supported")
    elif metric == LRAP:
        if kind != "multilabel-indicator" and not (kind == "binary" and ndim == 2):
            raise ValueError(f"{kind} format is not supported")
    else:
        if metric == NDCG:
            minimum = min(meta.minimum for meta in metas if meta.minimum is not None)
            if minimum < 0:
                raise ValueError("ndcg_score should not be used on negative y_true values.")
            if ndim > 1 and n_columns <= 1:
                raise ValueError(
                    "Computing NDCG is only meaningful when there is more than 1 document. "
                    f"Got {n_columns} instead."
                )
        if kind not in DCG_FORMATS:
            raise ValueError(f"Only {DCG_FORMATS} formats are supported. Got {kind} instead")
    return RankingPlan(n_rows, kind)
