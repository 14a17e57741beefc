"""``top_k_accuracy_score``: a block validated, the checks of its target, its exact hits.

A class ranks after every class of higher score and, as scikit-learn breaks
ties, every tied class of higher index.  The checks that need every block
(the classes) run in one planning task (:func:`plan_top_k`) with
scikit-learn 1.9's messages.  Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core import validation
from ..core.footprint import SizedByArrays
from ..core.label_codes import label_codes
from .inputs import block_values, column_or_1d
from .row_sums import RowSums, row_sums


@dataclass(frozen=True)
class TopKBlock(SizedByArrays):
    """One validated block of ``top_k_accuracy_score``: labels, scores (1-D or 2-D), weights."""

    lengths: validation.RowCounts
    labels: np.ndarray
    scores: np.ndarray
    weights: np.ndarray | None
    classes: tuple[Any, ...] | None  # the block's distinct labels; None: continuous


def prepare_top_k_block(
    label: Any, score: Any, weight: Any = None, *, names: tuple[str, ...] = validation.ROW_INPUTS
) -> TopKBlock:
    """Validate one block with scikit-learn's messages; find its labels.

    Examples
    --------
    >>> prepare_top_k_block(["b", "a"], [[0.1, 0.9], [0.3, 0.7]]).classes
    ('a', 'b')
    >>> prepare_top_k_block([0.5, 1.0], [0.2, 0.4]).classes is None   # continuous
    True
    """
    labels, scores = validation.to_numpy(label), block_values(score)
    lengths = validation.RowCounts.of(names, labels, scores, weight)
    if not lengths.aligned:
        return TopKBlock(lengths, labels[:0], scores[:0], None, ())
    classes: tuple[Any, ...] | None
    if labels.dtype.kind == "f":
        if not np.isfinite(labels).all():
            if np.isnan(labels).any():
                raise ValueError("Input contains NaN.")
            raise ValueError(
                f"Input contains infinity or a value too large for dtype({labels.dtype.name!r})."
            )
        with np.errstate(invalid="ignore"):
            continuous = bool((labels != labels.astype(np.int64)).any())
        classes = None if continuous else validation.distinct_labels(labels)
    else:
        if labels.dtype.kind == "O" and any(
            v is None or (isinstance(v, float) and v != v) for v in labels.tolist()
        ):
            raise ValueError("Input contains NaN")
        classes = validation.distinct_labels(labels)
    scores = validation.as_score_array(scores)
    weights = None if weight is None else validation.as_weight_array(weight)
    return TopKBlock(lengths, labels, scores, weights, classes)


@dataclass(frozen=True)
class TopKMeta:
    lengths: validation.RowCounts
    classes: tuple[Any, ...] | None


def top_k_meta(block: TopKBlock) -> TopKMeta:
    return TopKMeta(block.lengths, block.classes)


@dataclass(frozen=True)
class TopKPlan:
    """The checked target: the classes indexing the score columns."""

    classes: tuple[Any, ...]
    binary: bool
    n_rows: int


def plan_top_k(
    metas: Sequence[TopKMeta],
    *,
    labels: np.ndarray | None,
    score_shape: tuple[int, ...],
) -> TopKPlan:
    """scikit-learn 1.9's checks of ``top_k_accuracy_score``'s target, in its order.

    ``score_shape`` is ``()`` for a 1-D ``y_score``, ``(n_columns,)`` for a 2-D one.

    Examples
    --------
    >>> block = prepare_top_k_block([0, 1, 2, 3], [[0.4, 0.3, 0.3]] * 4)
    >>> plan_top_k([top_k_meta(block)], labels=None, score_shape=(3,))
    Traceback (most recent call last):
    ...
    ValueError: Number of classes in 'y_true' (4) not equal to the number of classes in \
'y_score' (3).You can provide a list of all known classes by assigning it to the `labels` \
parameter.
    """
    n_rows = validation.check_rows([meta.lengths for meta in metas])
    if any(meta.classes is None for meta in metas):
        kind = "continuous"
        present: tuple[Any, ...] = ()
    else:
        present = validation.sorted_labels(meta.classes for meta in metas)
        kind = "binary" if len(present) <= 2 else "multiclass"
    if kind == "binary" and labels is not None and len(labels) > 2:
        kind = "multiclass"
    if kind not in ("binary", "multiclass"):
        raise ValueError(f"y type must be 'binary' or 'multiclass', got '{kind}' instead.")
    if kind == "binary":
        if score_shape and score_shape[0] != 1:
            raise ValueError(
                f"`y_true` is binary while y_score is 2d with {score_shape[0]} classes. If "
                "`y_true` does not contain all the labels, `labels` must be provided."
            )
        n_score_classes = 2
    else:
        if not score_shape:
            raise ValueError(
                "`y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` "
                f"contains multiple classes. Got `y_score.shape=({n_rows},)`."
            )
        n_score_classes = score_shape[0]
    if labels is None:
        if len(present) != n_score_classes:
            raise ValueError(
                f"Number of classes in 'y_true' ({len(present)}) not equal to the number of "
                f"classes in 'y_score' ({n_score_classes}).You can provide a list of all "
                "known classes by assigning it to the `labels` parameter."
            )
        classes = present
    else:
        given = column_or_1d(labels)
        unique = np.unique(given)
        if len(unique) != len(given):
            raise ValueError("Parameter 'labels' must be unique.")
        if not np.array_equal(unique, given):
            raise ValueError("Parameter 'labels' must be ordered.")
        if len(unique) != n_score_classes:
            raise ValueError(
                f"Number of given labels ({len(unique)}) not equal to the number of classes "
                f"in 'y_score' ({n_score_classes})."
            )
        if len(np.setdiff1d(np.asarray(present), unique)):
            raise ValueError("'y_true' contains labels not in parameter 'labels'.")
        classes = tuple(v.item() if hasattr(v, "item") else v for v in unique)
    return TopKPlan(classes, kind == "binary", n_rows)


def top_k_sums(block: TopKBlock, plan: TopKPlan, k: int) -> RowSums:
    """A block's exact count (or weight) of rows whose class is among its ``k`` best scored.

    Multi-class: a class ranks after every class of higher score and, as
    scikit-learn breaks ties, every tied class of higher index.  Binary with
    ``k == 1``: the prediction ``score > threshold`` is right, for both of
    scikit-learn's thresholds (0.5 for scores in [0, 1], else 0: the caller
    picks from the extremes); binary with ``k >= 2``: every row is a hit.

    Examples
    --------
    >>> from dask_auc._kernels.core.summary import as_float
    >>> block = prepare_top_k_block([0, 1, 2, 3], [[5, 5, 7, 0], [1, 5, 5, 5],
    ...                                             [0, 0, 3, 3], [1, 1, 1, 1]])
    >>> sums = top_k_sums(block, TopKPlan((0, 1, 2, 3), False, 4), 2)
    >>> as_float(sums.totals[0])
    2.0
    """
    codes = label_codes(block.labels, plan.classes)
    scores = block.scores
    if plan.binary:
        scores = scores.ravel()
        if k != 1:
            return row_sums([np.ones(len(codes))], block.weights)
        hits = [((scores > threshold).astype(np.int64) == codes) for threshold in (0.5, 0)]
        extremes = {}
        if len(scores):
            extremes = {"low": float(scores.min()), "high": float(scores.max())}
        return row_sums([h.astype(np.float64) for h in hits], block.weights, **extremes)
    rows = np.arange(len(codes))
    own = scores[rows, codes][:, None]
    columns = np.arange(scores.shape[1])
    ahead = (scores > own).sum(axis=1) + ((scores == own) & (columns > codes[:, None])).sum(axis=1)
    return row_sums([(ahead < k).astype(np.float64)], block.weights)


def binary_threshold_index(sums: RowSums) -> int:
    """Which of :func:`top_k_sums`'s binary totals scikit-learn's threshold rule picks."""
    return 0 if sums.low >= 0 and sums.high <= 1 else 1
