"""Calibration metrics of binary probabilities: log loss, Brier score, normalized entropy.

scikit-learn's :func:`~sklearn.metrics.log_loss` and
:func:`~sklearn.metrics.brier_score_loss` (1.9) on dask collections, and
normalized entropy (the log loss over the entropy of the base rate).  No sort:
each block is validated and reduced to exact per-label sums in one task
(:func:`~dask_auc._kernels.core.calibration.calibration_sums`), the sums of
consecutive blocks merge in a tree, and a finalize applies scikit-learn's
label rules once every label is known.  The result is the same bits for any
partitioning, and agrees with scikit-learn to a few ulps (it sums exactly
where scikit-learn sums pairwise in floats).

Only 1-D probabilities of the positive class (a binary target) are taken;
2-D per-class probabilities raise rather than being read some other way.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ._docstrings import shared_docs
from ._engine import LazyScore, lazy_of, merge_tree, prepared_blocks
from ._kernels.core.calibration import (
    BRIER_NEG,
    BRIER_POS,
    LOG_NEG,
    LOG_POS,
    WEIGHT,
    CalibrationSums,
    calibration_sums,
    merge_calibration_sums,
)
from ._kernels.core.summary import as_float
from ._kernels.core.validation import check_rows, warn, warn_undefined
from ._params import Boolean, Constraint, Label, Satisfies, check_every_param
from ._per_row import ROW_PARAMETERS

_NAMES = ("y_true", "y_proba", "sample_weight")


def _bool_or_auto(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_)) or (isinstance(value, str) and value == "auto")


_SCALE_BY_HALF = Satisfies(
    "an instance of 'bool', an instance of 'numpy.bool' or a str among {'auto'}", _bool_or_auto
)


@shared_docs
def log_loss(
    y_true: Any,
    y_proba: Any,
    *,
    normalize: bool = True,
    sample_weight: Any = None,
    labels: Any = None,
    compute: bool = True,
    split_every: int | None = None,
) -> float | LazyScore:
    """Log loss (logistic loss, cross-entropy) of binary probabilities, with dask.

    Same result, arguments and errors as :func:`sklearn.metrics.log_loss` (1.9)
    for a 1-D ``y_proba``: the probability of the greater of the two classes
    (or of ``labels[1]`` after sorting), clipped to ``[eps, 1 - eps]`` with
    ``eps`` the machine precision of its float dtype.

    Parameters
    ----------
    y_true : dask Series or Array, pandas Series, ndarray or list
        True labels: two classes (numbers, strings, bools), one per row.
    y_proba : same kinds as ``y_true``, 1-D
        Probability of the positive class, in [0, 1].  2-D per-class
        probabilities are not supported (a ``ValueError`` says so).
    normalize : bool, default=True
        Return the mean loss per row (weighted); False: the sum.
    sample_weight : same kinds as ``y_true``, optional
        Finite, non-negative row weights, not all zero.
    labels : array-like, optional
        The two classes, when ``y_true`` may hold only one of them.
    %(compute_split_every)s

    Returns
    -------
    float or LazyScore
        The (weighted) mean loss per row, or with ``normalize=False`` the
        (weighted) sum of the rows' losses.

    Examples
    --------
    >>> import numpy as np, dask.array as da, dask_auc
    >>> y = da.from_array(np.array([0, 1, 1, 0]), chunks=2)
    >>> p = da.from_array(np.array([0.1, 0.9, 0.8, 0.35]), chunks=2)
    >>> round(dask_auc.log_loss(y, p), 6)
    0.216162
    """
    return _calibration_score("log_loss", **locals())


def brier_score_loss(
    y_true: Any,
    y_proba: Any,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    labels: Any = None,
    scale_by_half: bool | str = "auto",
    compute: bool = True,
    split_every: int | None = None,
) -> float | LazyScore:
    """Brier score of binary probabilities, with dask.

    Same result, arguments and errors as
    :func:`sklearn.metrics.brier_score_loss` (1.9) for a 1-D ``y_proba``: the
    (weighted) mean of ``(1 - p)**2`` over positives and ``p**2`` over
    negatives (as scikit-learn computes them on ``[1 - p, p]``, halved by
    ``scale_by_half``).

    Parameters
    ----------
    y_true : dask Series or Array, pandas Series, ndarray or list
        True labels, at most two classes.
    y_proba : same kinds as ``y_true``, 1-D
        Probability of the positive class, in [0, 1].  2-D per-class
        probabilities (multiclass) are not supported.
    pos_label : int, float, bool or str, optional
        The positive class.  Default: 1 when the classes are among {0, 1} or
        {-1, 1}, else the greater class; string classes need it.
    labels : array-like, optional
        Accepted as scikit-learn does; unused for 1-D probabilities.
    scale_by_half : bool or "auto", default="auto"
        Halve the sum of the two classes' squared errors ("auto": yes, binary).
    sample_weight, compute, split_every
        As in :func:`log_loss`.

    Returns
    -------
    float or LazyScore
        The (weighted) mean over the rows of their squared errors, halved
        per ``scale_by_half``.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> y = np.array(["no", "yes", "yes", "no"])  # string classes: name the positive one
    >>> p = np.array([0.1, 0.9, 0.8, 0.3])  # the probabilities of "yes"
    >>> round(dask_auc.brier_score_loss(y, p, pos_label="yes"), 6)
    0.0375
    >>> round(dask_auc.brier_score_loss(y, p, pos_label="yes", scale_by_half=False), 6)
    0.075
    """
    return _calibration_score("brier_score_loss", **locals())


def normalized_entropy(
    y_true: Any,
    y_proba: Any,
    *,
    sample_weight: Any = None,
    labels: Any = None,
    compute: bool = True,
    split_every: int | None = None,
) -> float | LazyScore:
    """Normalized entropy: the log loss over the entropy of the (weighted) base rate.

    ``log_loss(y_true, y_proba) / H(r)`` with ``r`` the (weighted) share of
    positives and ``H(r) = -r log r - (1 - r) log(1 - r)`` (He et al. 2014,
    "Practical Lessons from Predicting Clicks on Ads at Facebook"): 1 for a
    model no better than always predicting the base rate, lower is better.
    The positive class, ``labels`` and every check are :func:`log_loss`'s.

    Parameters
    ----------
    y_true, y_proba, sample_weight, labels, compute, split_every
        As in :func:`log_loss`.

    Returns
    -------
    float or LazyScore
        NaN with an :class:`~dask_auc.UndefinedMetricWarning` when every row
        (of nonzero weight) is of one class: the base rate's entropy is 0.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> y, p = np.array([0, 1, 1, 0]), np.array([0.5, 0.5, 0.5, 0.5])
    >>> dask_auc.normalized_entropy(y, p)  # the base rate itself: no information
    1.0
    """
    return _calibration_score("normalized_entropy", **locals())


# -- the graph: one task per block, a tree of exact merges, one finalize --------------------


#: each metric's parameters, in the order they are checked; its finalize, of the checked
#: values and the ``labels`` given; and scikit-learn's word in its message of a probability
#: below 0 ("values lower than 0", "values less than 0")
_METRICS: dict[str, tuple[Mapping[str, Constraint], Callable[[dict[str, Any], Any], Any], str]] = {
    "log_loss": (
        {"normalize": Boolean(), **ROW_PARAMETERS},
        lambda checked, labels: _LogLossFinish(checked["normalize"], _given_labels(labels)),
        "lower",
    ),
    "brier_score_loss": (
        {"pos_label": Label(), "scale_by_half": _SCALE_BY_HALF, **ROW_PARAMETERS},
        lambda checked, labels: _BrierFinish(
            checked["pos_label"], checked["scale_by_half"] is not False
        ),
        "less",
    ),
    "normalized_entropy": (
        ROW_PARAMETERS,
        lambda checked, labels: _EntropyFinish(_given_labels(labels)),
        "lower",
    ),
}


def _calibration_score(
    name: str,
    /,
    y_true: Any,
    y_proba: Any,
    sample_weight: Any,
    labels: Any,
    **options: Any,
) -> float | LazyScore:
    """The calibration metric ``name`` of the public function's arguments (its ``locals()``).

    ``options`` are exactly the metric's parameters in :data:`_METRICS`, checked once, here.
    """
    parameters, finalize_of, below = _METRICS[name]
    checked = check_every_param(name, parameters, **options)
    finalize = finalize_of(checked, labels)
    if _is_two_dimensional(y_proba):
        raise ValueError(
            f"{name} of dask-auc takes the 1-D probabilities of the positive class (a "
            f"binary target); got a 2-D y_proba of shape {getattr(y_proba, 'shape', '?')}. "
            "Multiclass probabilities are not supported: pass the positive class's column."
        )
    blocks = prepared_blocks(y_true, y_proba, sample_weight, prepare=calibration_sums, names=_NAMES)
    total = merge_tree(merge_calibration_sums, blocks, checked["split_every"])
    lazy = lazy_of([total], _Checked(finalize, below), name)
    return lazy.compute() if checked["compute"] else lazy


def _is_two_dimensional(y_proba: Any) -> bool:
    shape = getattr(y_proba, "shape", None)
    if shape is None:
        shape = np.shape(y_proba)
    columns = shape[1] if len(shape) == 2 else None
    return len(shape) > 2 or (columns is not None and columns != 1)


def _given_labels(labels: Any) -> tuple[Any, ...] | None:
    return None if labels is None else tuple(np.asarray(labels).tolist())


# -- finalize: scikit-learn's checks, in its order, and its arithmetic -----------------------


class _Checked:
    """The checks every calibration metric makes, then its own finalize."""

    def __init__(self, finalize: Any, below: str):
        self.finalize, self.below = finalize, below

    def __call__(self, sums: CalibrationSums) -> float:
        rows = check_rows(sums.blocks)
        if sums.high > 1:
            raise ValueError(f"y_prob contains values greater than 1: {sums.high}")
        if sums.low < 0:
            raise ValueError(f"y_prob contains values {self.below} than 0: {sums.low}")
        if sums.weighted and sums.total(WEIGHT, sums.classes) == 0:
            raise ValueError("Sample weights must contain at least one non-zero number.")
        return float(self.finalize(sums, rows))


def _binary_classes(classes: tuple[Any, ...], labels: tuple[Any, ...] | None) -> tuple[Any, Any]:
    """(negative, positive) classes of log loss: scikit-learn's ``LabelBinarizer`` rules."""
    if labels is None:
        if len(classes) == 1:
            raise ValueError(
                f"y_true contains only one label ({classes[0]}). Please provide the list of "
                "all expected class labels explicitly through the labels argument."
            )
        if len(classes) > 2:
            raise ValueError(
                f"y_true and y_prob contain different number of classes: {len(classes)} vs 2. "
                "Please provide the true labels explicitly through the labels argument. "
                f"Classes found in y_true: {np.array(classes)}"
            )
        return classes[0], classes[1]
    known = np.unique(np.array(labels))
    if len(known) != len(labels) or not all(k == g for k, g in zip(known, labels, strict=True)):
        warn(
            f"Labels passed were {list(labels)}. But this function assumes labels are ordered "
            f"lexicographically. Pass the ordered labels={known.tolist()} and ensure that the "
            "columns of y_prob correspond to this ordering."
        )
    # scikit-learn's set of NumPy scalars, shown as it shows them
    undeclared = set(np.array(classes)) - set(labels)
    if undeclared:
        raise ValueError(
            f"y_true contains values {undeclared} not belonging to the passed labels "
            f"{list(labels)}."
        )
    if len(known) == 1:
        raise ValueError(f"The labels array needs to contain at least two labels, got {known}.")
    if len(known) != 2:
        raise ValueError(
            "The number of classes in labels is different from that in y_prob. "
            f"Classes found in labels: {known}"
        )
    negative, positive = known.tolist()
    return negative, positive


def _mean(sums: CalibrationSums, total: int, rows: int) -> float:
    """``np.average`` of per-row values: the exact total rounded once, over rows or weights."""
    if not sums.weighted:
        return as_float(total) / rows
    return as_float(total) / as_float(sums.total(WEIGHT, sums.classes))


def _log_loss_total(sums: CalibrationSums, labels: tuple[Any, ...] | None) -> int:
    negative, positive = _binary_classes(sums.classes, labels)
    return sums.total(LOG_POS, [positive]) + sums.total(LOG_NEG, [negative])


class _LogLossFinish:
    def __init__(self, normalize: bool, labels: tuple[Any, ...] | None):
        self.normalize, self.labels = normalize, labels

    def __call__(self, sums: CalibrationSums, rows: int) -> float:
        total = _log_loss_total(sums, self.labels)
        return _mean(sums, total, rows) if self.normalize else as_float(total)


class _EntropyFinish:
    def __init__(self, labels: tuple[Any, ...] | None):
        self.labels = labels

    def __call__(self, sums: CalibrationSums, rows: int) -> float:
        loss = _mean(sums, _log_loss_total(sums, self.labels), rows)
        positive = _binary_classes(sums.classes, self.labels)[1]
        rate = as_float(sums.total(WEIGHT, [positive])) / as_float(sums.total(WEIGHT, sums.classes))
        entropy = base_rate_entropy(rate)
        if entropy == 0:
            warn_undefined(
                "Normalized entropy is not defined when every row (of nonzero weight) is "
                "of one class: the base rate's entropy is 0; returning NaN."
            )
            return math.nan
        return loss / entropy


def base_rate_entropy(rate: float) -> float:
    """``-r log r - (1 - r) log(1 - r)`` in nats, 0 at ``r`` of 0 or 1."""
    if rate <= 0 or rate >= 1:
        return 0.0
    return -(rate * math.log(rate) + (1 - rate) * math.log1p(-rate))


class _BrierFinish:
    def __init__(self, pos_label: Any, halve: bool):
        self.pos_label, self.halve = pos_label, halve

    def __call__(self, sums: CalibrationSums, rows: int) -> float:
        positive = _brier_positive(sums.classes, self.pos_label)
        positives = [c for c in sums.classes if c == positive]
        negatives = [c for c in sums.classes if c not in positives]
        total = sums.total(BRIER_POS, positives) + sums.total(BRIER_NEG, negatives)
        score = _mean(sums, total, rows)
        return score * 0.5 if self.halve else score


def _brier_positive(classes: Sequence[Any], pos_label: Any) -> Any:
    """scikit-learn's positive class of a binary Brier score."""
    if len(classes) > 2:
        raise ValueError(
            "The type of the target inferred from y_true is multiclass but should be binary "
            "according to the shape of y_prob."
        )
    if pos_label is not None:
        return pos_label
    strings = any(isinstance(c, str) for c in classes)
    if not strings and (set(classes) <= {0, 1} or set(classes) <= {-1, 1}):
        return 1
    if strings:
        shown = ", ".join(repr(c) for c in classes)
        raise ValueError(
            f"y_true takes value in {{{shown}}} and pos_label is not specified: either make "
            "y_true take value in {0, 1} or {-1, 1} or pass pos_label explicitly."
        )
    return classes[-1]
