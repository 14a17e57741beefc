"""Pure-NumPy kernels of the calibration metrics: log loss, Brier score, normalized entropy.

These metrics need no sort: each row's loss depends on its own label and
probability only.  One task per block (:func:`calibration_sums`) validates
the block with scikit-learn's messages and reduces it to exact sums
(:func:`~dask_auc._kernels.core.summary.exact_total`) kept *per label*: the
positive class is known only once every block's labels are (``labels``,
``pos_label`` and the greater-label rule need the union), so each label's rows
are summed both as positives and as negatives, and the caller picks.  Exact
sums make the result the same bits for any partitioning.

The per-row values are scikit-learn 1.9's, operation for operation
(:func:`row_terms`), so a sum rounded once agrees with its ``np.average`` to a
few ulps.

Nothing here imports dask.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .summary import UNIT_BITS, exact_total
from .validation import (
    ROW_INPUTS,
    RowCounts,
    as_score_array,
    as_weight_array,
    distinct_labels,
    sorted_labels,
    to_numpy,
)

#: the per-label sums, in the order of :attr:`CalibrationSums.per_label`'s tuples
TERMS = ("weight", "log_pos", "log_neg", "brier_pos", "brier_neg", "proba")
WEIGHT, LOG_POS, LOG_NEG, BRIER_POS, BRIER_NEG, PROBA = range(len(TERMS))

#: the clip of probabilities in float64 (and of any dtype scikit-learn widens to it)
EPS64 = float(np.finfo(np.float64).eps)

#: more distinct labels than this in one block is an error whatever the options
#: (1-D probabilities are binary), so their sums are not made
_MAX_LABELS = 2


def row_terms(proba: np.ndarray, eps: float | None = None) -> tuple[np.ndarray, ...]:
    """Each row's log loss and Brier term as a positive and as a negative, as scikit-learn has them.

    scikit-learn stacks ``[1 - p, p]``, clips both columns to ``[eps, 1 - eps]``
    (``eps`` of the probabilities' float dtype, as the caller read it:
    :func:`as_probabilities`; default that of ``proba``) for the log loss, and sums
    ``(onehot - [1 - p, p])**2`` over the two columns for the Brier score: a
    positive row scores ``2 * (1 - p)**2``, a negative one ``(1 - (1 - p))**2 + p**2``,
    which is not ``2 * p**2`` in floats when ``p`` is tiny.

    Returns
    -------
    log_pos, log_neg, brier_pos, brier_neg : ndarray
        In the order of :data:`TERMS` after ``weight``.

    Examples
    --------
    >>> [float(t[0]) for t in row_terms(np.array([0.25]))]
    [1.3862943611198906, 0.2876820724517809, 1.125, 0.125]
    """
    if eps is None:
        eps = float(np.finfo(proba.dtype).eps)
    complement = 1 - proba
    log_pos = -np.log(np.clip(proba, eps, 1 - eps))
    log_neg = -np.log(np.clip(complement, eps, 1 - eps))
    brier_pos = complement**2 + complement**2
    brier_neg = (1 - complement) ** 2 + proba**2
    return log_pos, log_neg, brier_pos, brier_neg


def clip_eps(dtype: Any) -> float:
    """The ``eps`` scikit-learn clips probabilities of ``dtype`` with.

    scikit-learn keeps float16 and float32 probabilities in their dtype and
    clips with its machine precision; anything else becomes float64.

    Examples
    --------
    >>> clip_eps(np.float16) == 2**-10, clip_eps(np.float32) == 2**-23, clip_eps(np.int64) == 2**-52
    (True, True, True)
    """
    dtype = np.dtype(dtype) if isinstance(dtype, type) else dtype
    if isinstance(dtype, np.dtype) and dtype in (np.float16, np.float32):
        return float(np.finfo(dtype).eps)
    return EPS64  # pandas' extension dtypes become float64 too


def as_probabilities(values: Any, eps: float | None = None) -> tuple[np.ndarray, float]:
    """Probabilities as a finite float array, and the ``eps`` they are clipped with.

    ``eps`` is that of the values' own dtype (:func:`clip_eps`), read before
    the score check widens float16 to float32; a caller that knows the dtype
    of every block passes it (the grouped kernels: rows of several blocks
    meet in a bucket).  float32 is kept, as scikit-learn keeps it; float16 is
    computed in float64 (its values and clip bounds are exact there), where
    scikit-learn's float16 arithmetic rounds every term to 11 bits.

    Examples
    --------
    >>> proba, eps = as_probabilities(np.array([0.0, 0.5], np.float16))
    >>> proba.dtype, eps == 2**-10
    (dtype('float64'), True)
    """
    raw = to_numpy(values)
    if eps is None:
        eps = clip_eps(raw.dtype)
    proba = as_score_array(raw)
    if not (proba.dtype == np.float32 and eps == clip_eps(np.float32)):
        proba = proba.astype(np.float64, copy=False)
    return proba, eps


@dataclass(frozen=True)
class CalibrationSums:
    """The exact sums of one block (or of consecutive blocks), per label.

    Attributes
    ----------
    blocks : tuple of RowCounts
        The row counts of each input in each block, in order (the alignment check).
    classes : tuple
        The sorted distinct labels of these rows.
    per_label : dict
        ``label -> tuple of exact totals`` in the order of :data:`TERMS`
        (``weight``: the row count, or the summed weight; every other term
        times the row's weight).  Empty when more than two labels were found.
    low, high : float
        The smallest and largest probability (the range check reads them).
    weighted : bool
        Rows carry weights.
    """

    blocks: tuple[RowCounts, ...]
    classes: tuple[Any, ...]
    per_label: dict[Any, tuple[int, ...]]
    low: float = math.inf
    high: float = -math.inf
    weighted: bool = False

    def total(self, term: int, labels: Sequence[Any]) -> int:
        """The exact total of ``term`` over the rows of ``labels``."""
        return sum(self.per_label[c][term] for c in labels if c in self.per_label)


def calibration_sums(
    label: Any, proba: Any, weight: Any = None, *, names: tuple[str, ...] = ROW_INPUTS
) -> CalibrationSums:
    """Validate one block with scikit-learn's messages and reduce it to per-label exact sums.

    Examples
    --------
    >>> sums = calibration_sums([0, 1, 1], [0.5, 0.5, 1.0])
    >>> sums.classes, sums.per_label[1][0] >> UNIT_BITS, sums.high
    ((0, 1), 2, 1.0)
    """
    labels, probabilities = to_numpy(label), to_numpy(proba)
    lengths = RowCounts.of(names, labels, probabilities, weight)
    weighted = weight is not None
    if not lengths.aligned:  # the alignment check raises, naming the inputs
        return CalibrationSums((lengths,), (), {}, weighted=weighted)
    probabilities, eps = as_probabilities(probabilities)
    weights = None if weight is None else as_weight_array(weight)
    classes = distinct_labels(labels)
    low = float(probabilities.min()) if len(probabilities) else math.inf
    high = float(probabilities.max()) if len(probabilities) else -math.inf
    per_label: dict[Any, tuple[int, ...]] = {}
    if len(classes) <= _MAX_LABELS:
        terms = (*row_terms(probabilities, eps), probabilities)
        for c in classes:
            rows = labels == c if len(classes) > 1 else np.ones(len(labels), bool)
            per_label[c] = _label_totals([t[rows] for t in terms], weights, rows)
    return CalibrationSums((lengths,), classes, per_label, low, high, weighted)


def _label_totals(
    terms: list[np.ndarray], weights: np.ndarray | None, rows: np.ndarray
) -> tuple[int, ...]:
    """The exact totals of one label's rows: their weight, then each term times its weight."""
    if weights is None:
        return (int(np.count_nonzero(rows)) << UNIT_BITS, *(exact_total(t) for t in terms))
    w = weights[rows]
    return (exact_total(w), *(exact_total(t.astype(np.float64) * w) for t in terms))


def merge_calibration_sums(parts: Sequence[CalibrationSums]) -> CalibrationSums:
    """The sums of consecutive blocks (exact: any grouping gives the same totals).

    Examples
    --------
    >>> merged = merge_calibration_sums([calibration_sums([0], [0.2]), calibration_sums([], [])])
    >>> merged.classes, len(merged.blocks)
    ((0,), 2)
    """
    classes = sorted_labels(p.classes for p in parts)
    per_label: dict[Any, tuple[int, ...]] = {}
    if len(classes) <= _MAX_LABELS:
        for c in classes:
            held = [p.per_label[c] for p in parts if c in p.per_label]
            per_label[c] = tuple(sum(t[i] for t in held) for i in range(len(TERMS)))
    return CalibrationSums(
        tuple(b for p in parts for b in p.blocks),
        classes,
        per_label,
        min((p.low for p in parts), default=math.inf),
        max((p.high for p in parts), default=-math.inf),
        any(p.weighted for p in parts),
    )


# -- per group: the grouped AUC's calibration columns ------------------------------------------

#: the calibration metrics a grouped AUC can add, by their column name
GROUPED_METRICS = ("log_loss", "brier", "normalized_entropy", "calibration")
#: the per-group sums they are made from (bucket tables carry them; the finalize divides)
GROUP_SUM_COLUMNS = ("_cal_weight", "_cal_log_loss", "_cal_brier", "_cal_proba", "_cal_label")


def group_calibration_sums(
    codes: np.ndarray,
    n_groups: int,
    proba: Any,
    positive: np.ndarray,
    weights: np.ndarray | None,
    eps: float | None = None,
) -> dict[str, np.ndarray]:
    """Per group: the weight, and the weighted sums of log loss, Brier term, probability, label.

    ``eps`` clips the log loss (:func:`row_terms`): that of the dtype of the
    input's probabilities (:class:`~dask_auc._kernels.groups.grouped.GroupPlan`'s
    ``clip_eps``); the rows here were widened from it.  Default: that of ``proba``.

    ``np.bincount`` adds each group's rows in their order in the bucket,
    which is the frame's row order (pieces arrive in block order): the sums
    are the same bits for any partitioning.  Unweighted, every row weighs 1.

    Examples
    --------
    >>> sums = group_calibration_sums(
    ...     np.array([0, 0, 1]), 2, np.array([0.5, 0.25, 1.0]), np.array([True, False, True]), None)
    >>> [float(v) for v in sums["_cal_proba"]], [float(v) for v in sums["_cal_label"]]
    ([0.75, 1.0], [1.0, 1.0])
    """
    probabilities, eps = as_probabilities(proba, eps)
    log_pos, log_neg, brier_pos, brier_neg = row_terms(probabilities, eps)
    terms = (
        np.where(positive, log_pos, log_neg),
        np.where(positive, brier_pos, brier_neg),
        probabilities,
        positive,
    )
    w = np.ones(len(codes)) if weights is None else weights
    sums = [np.bincount(codes, weights=w, minlength=n_groups)]
    for term in terms:
        sums.append(np.bincount(codes, weights=term.astype(np.float64) * w, minlength=n_groups))
    return dict(zip(GROUP_SUM_COLUMNS, sums, strict=True))


def calibration_values(
    sums: dict[str, np.ndarray], metrics: Sequence[str]
) -> dict[str, np.ndarray]:
    """The calibration metrics from the sums of :func:`group_calibration_sums` (or their totals).

    ``log_loss`` and ``brier`` (halved, scikit-learn's binary ``scale_by_half``)
    are weighted means; ``normalized_entropy`` the log loss over the entropy
    of the weighted share of positives; ``calibration`` the summed
    probabilities over the summed labels.  NaN where undefined: no weight,
    one class only (normalized entropy), no positive weight (calibration).
    """
    weight, label = sums["_cal_weight"], sums["_cal_label"]
    with np.errstate(divide="ignore", invalid="ignore"):
        log_loss = np.where(weight > 0, sums["_cal_log_loss"] / weight, np.nan)
        rate = label / weight
        inside = (weight > 0) & (rate > 0) & (rate < 1)
        safe = np.where(inside, rate, 0.5)
        entropy = -(safe * np.log(safe) + (1 - safe) * np.log1p(-safe))
        values = {
            "log_loss": log_loss,
            "brier": np.where(weight > 0, sums["_cal_brier"] / weight, np.nan) * 0.5,
            "normalized_entropy": np.where(inside, log_loss / entropy, np.nan),
            "calibration": np.where(label > 0, sums["_cal_proba"] / label, np.nan),
        }
    return {name: values[name] for name in metrics}
