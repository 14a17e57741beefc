"""Pure-NumPy formulas of scikit-learn's binary classification metrics from confusion counts.

``metric_at_thresholds`` evaluates a metric at every threshold of the sorted
scores: scikit-learn calls the metric once per threshold on all rows; here
the metric is computed, for all thresholds at once, from the confusion
counts ``tp, fp, tn, fn`` at each threshold (:class:`Counts`).  Each formula
is scikit-learn 1.9's arithmetic on its confusion matrix, operation for
operation, so unweighted counts (exact integers) give the same bits; with
weights the counts are float sums in another order, and values agree to a
few ulps.

Which labels are "present" matters to some metrics (``confusion_matrix``
then drops a row and column): at every threshold ``y_pred`` holds a 1 (the
rows at the top score); it holds a 0 at every threshold but the last, and
``y_true`` holds a 0 when any row of nonzero weight is negative.

Nothing here imports dask.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.validation import to_numpy

SINGLE_LABEL_MESSAGE = (
    "A single label was found in 'y_true' and 'y_pred'. For the confusion matrix to have "
    "the correct shape, use the 'labels' parameter to pass all known labels."
)
CLASSES_NOT_IN_Y_TRUE = "y_pred contains classes not in y_true"

#: scikit-learn's metrics of the binary confusion counts, and the parameters each maps
SUPPORTED_PARAMETERS: dict[str, tuple[str, ...]] = {
    "accuracy_score": ("normalize",),
    "zero_one_loss": ("normalize",),
    "hamming_loss": (),
    "precision_score": ("labels", "pos_label", "average", "zero_division"),
    "recall_score": ("labels", "pos_label", "average", "zero_division"),
    "f1_score": ("labels", "pos_label", "average", "zero_division"),
    "fbeta_score": ("beta", "labels", "pos_label", "average", "zero_division"),
    "jaccard_score": ("labels", "pos_label", "average", "zero_division"),
    "balanced_accuracy_score": ("adjusted",),
    "matthews_corrcoef": (),
    "cohen_kappa_score": ("labels", "weights", "replace_undefined_by"),
}

#: a warning to emit in the caller: (message, True for UndefinedMetricWarning, else UserWarning)
Warning_ = tuple[str, bool]


@dataclass(frozen=True)
class Counts(SizedByArrays):
    """The confusion counts at each threshold (decreasing), weighted or not.

    ``positives`` and ``negatives`` are the totals (rows of nonzero weight).

    Examples
    --------
    >>> counts = Counts.of(np.array([1., 0.]), np.array([0., 1.]), np.array([1., 1.]),
    ...                    np.array([1., 2.]))
    >>> counts.tp, counts.n
    (array([1., 2.]), 4.0)
    """

    tp: np.ndarray
    fp: np.ndarray
    tn: np.ndarray
    fn: np.ndarray
    positives: float
    negatives: float

    @classmethod
    def of(cls, tns: np.ndarray, fps: np.ndarray, fns: np.ndarray, tps: np.ndarray) -> Counts:
        """From ``confusion_matrix_at_thresholds``'s arrays."""
        return cls(tps, fps, tns, fns, float(tps[-1] + fns[-1]), float(fps[-1] + tns[-1]))

    @property
    def n(self) -> float:
        return self.positives + self.negatives

    @property
    def zero_predicted(self) -> np.ndarray:
        """Whether ``y_pred`` holds a 0: at every threshold but the last."""
        held = np.ones(len(self.tp), dtype=bool)
        held[-1:] = False
        return held

    @property
    def zero_present(self) -> np.ndarray:
        """Whether label 0 is in ``y_true`` or ``y_pred`` (label 1 always is)."""
        return self.zero_predicted | (self.negatives > 0)


def _zero_division_value(zero_division: Any) -> float:
    """scikit-learn's ``_check_zero_division``."""
    if isinstance(zero_division, str) and zero_division == "warn":
        return 0.0
    if isinstance(zero_division, (int, float)) and zero_division in [0, 1]:
        return float(zero_division)
    return float("nan")


def _divide(
    numerator: np.ndarray,
    denominator: np.ndarray,
    zero_division: Any,
    warning: str | None,
    warnings: list[Warning_],
) -> np.ndarray:
    """scikit-learn's ``_prf_divide`` of one label: a zero denominator gives ``zero_division``.

    ``warning`` is the start of the message ("Precision is") when the metric
    warns for this ratio, and the modifier ("predicted").
    """
    mask = denominator == 0
    result = np.asarray(numerator, dtype=np.float64) / np.where(mask, 1.0, denominator)
    if not mask.any():
        return result
    result[mask] = _zero_division_value(zero_division)
    if warning is not None and isinstance(zero_division, str) and zero_division == "warn":
        warnings.append((warning, True))
    return result


def _prf_message(start: str, modifier: str) -> str:
    return (
        f"{start} ill-defined and being set to 0.0 due to no {modifier} samples. Use "
        "`zero_division` parameter to control this behavior."
    )


def _label_counts(counts: Counts, pos_label: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(tp_sum, pred_sum, true_sum)`` of label ``pos_label`` (scikit-learn's MCM sums)."""
    if pos_label == 1:
        return counts.tp, counts.tp + counts.fp, counts.tp + counts.fn
    return counts.tn, counts.tn + counts.fn, counts.tn + counts.fp


def evaluate(name: str, params: dict[str, Any], counts: Counts) -> tuple[Any, list[Warning_]]:
    """scikit-learn's ``name(y_true, y_pred, **params)`` at every threshold, and its warnings.

    ``params`` are checked by the caller (supported values only).

    Examples
    --------
    >>> counts = Counts.of(np.array([2., 1., 1., 0.]), np.array([0., 1., 1., 2.]),
    ...                    np.array([1., 1., 0., 0.]), np.array([1., 1., 2., 2.]))
    >>> evaluate("accuracy_score", {}, counts)
    (array([0.75, 0.5 , 0.75, 0.5 ]), [])
    """
    warnings: list[Warning_] = []
    with np.errstate(all="ignore"):
        values = _FORMULAS[name](counts, params, warnings)
    return values, list(dict.fromkeys(warnings))


def _accuracy(counts: Counts, params: dict[str, Any], warnings: list[Warning_]) -> np.ndarray:
    correct = counts.tp + counts.tn
    return correct / counts.n if params.get("normalize", True) else correct


def _zero_one_loss(counts: Counts, params: dict[str, Any], warnings: list[Warning_]) -> np.ndarray:
    if params.get("normalize", True):
        return 1 - _accuracy(counts, {"normalize": True}, warnings)
    return counts.n - (counts.tp + counts.tn)


def _hamming_loss(counts: Counts, params: dict[str, Any], warnings: list[Warning_]) -> np.ndarray:
    return (counts.fp + counts.fn) / counts.n


def _precision(counts: Counts, params: dict[str, Any], warnings: list[Warning_]) -> np.ndarray:
    tp_sum, pred_sum, _ = _label_counts(counts, params.get("pos_label", 1))
    message = _prf_message("Precision is", "predicted")
    return _divide(tp_sum, pred_sum, params.get("zero_division", "warn"), message, warnings)


def _recall(counts: Counts, params: dict[str, Any], warnings: list[Warning_]) -> np.ndarray:
    tp_sum, _, true_sum = _label_counts(counts, params.get("pos_label", 1))
    message = _prf_message("Recall is", "true")
    return _divide(tp_sum, true_sum, params.get("zero_division", "warn"), message, warnings)


def _fbeta(counts: Counts, params: dict[str, Any], warnings: list[Warning_]) -> np.ndarray:
    beta = params["beta"]
    zero_division = params.get("zero_division", "warn")
    tp_sum, pred_sum, true_sum = _label_counts(counts, params.get("pos_label", 1))
    if np.isposinf(beta):  # recall, which does not warn in fbeta_score
        return _divide(tp_sum, true_sum, zero_division, None, warnings)
    if beta == 0:
        return _divide(tp_sum, pred_sum, zero_division, None, warnings)
    beta2 = beta**2
    denominator = beta2 * true_sum + pred_sum
    message = _prf_message("F-score is", "true nor predicted")
    return _divide((1 + beta2) * tp_sum, denominator, zero_division, message, warnings)


def _f1(counts: Counts, params: dict[str, Any], warnings: list[Warning_]) -> np.ndarray:
    return _fbeta(counts, {**params, "beta": 1}, warnings)


def _jaccard(counts: Counts, params: dict[str, Any], warnings: list[Warning_]) -> np.ndarray:
    if params.get("pos_label", 1) == 1:
        tp_sum, false_positive, false_negative = counts.tp, counts.fp, counts.fn
    else:  # label 0's confusion: the roles of the classes swapped
        tp_sum, false_positive, false_negative = counts.tn, counts.fn, counts.fp
    denominator = tp_sum + false_positive + false_negative
    message = _prf_message("Jaccard is", "true or predicted")
    return _divide(tp_sum, denominator, params.get("zero_division", "warn"), message, warnings)


def _balanced_accuracy(
    counts: Counts, params: dict[str, Any], warnings: list[Warning_]
) -> np.ndarray:
    # per-class recall: the diagonal over the rows of [[tn, fp], [fn, tp]]
    negative_recall = counts.tn / (counts.tn + counts.fp)
    positive_recall = counts.tp / (counts.fn + counts.tp)
    both = counts.zero_present
    if not both.all():
        warnings.append((SINGLE_LABEL_MESSAGE, False))
    # label 0 absent: a 1x1 matrix, whose one class is in y_true (rows exist)
    undefined = both & (np.isnan(negative_recall) | np.isnan(positive_recall))
    if undefined.any():
        warnings.append((CLASSES_NOT_IN_Y_TRUE, False))
    two = both & ~undefined
    score = np.where(
        two,
        (negative_recall + positive_recall) / 2,
        np.where(both & np.isnan(positive_recall), negative_recall, positive_recall),
    )
    if params.get("adjusted", False):
        n_classes = np.where(two, 2, 1)
        chance = 1 / n_classes
        score = (score - chance) / (1 - chance)
    return score


def _matthews(counts: Counts, params: dict[str, Any], warnings: list[Warning_]) -> np.ndarray:
    if not counts.zero_present.all():
        warnings.append((SINGLE_LABEL_MESSAGE, False))
    tp, fp, tn, fn = counts.tp, counts.fp, counts.tn, counts.fn
    t_sum = (tn + fp, fn + tp)  # rows of the confusion matrix (true labels)
    p_sum = (tn + fn, fp + tp)  # its columns (predictions)
    n_correct = tn + tp
    n_samples = p_sum[0] + p_sum[1]
    cov_ytyp = n_correct * n_samples - (t_sum[0] * p_sum[0] + t_sum[1] * p_sum[1])
    cov_ypyp = n_samples**2 - (p_sum[0] * p_sum[0] + p_sum[1] * p_sum[1])
    cov_ytyt = n_samples**2 - (t_sum[0] * t_sum[0] + t_sum[1] * t_sum[1])
    product = cov_ypyp * cov_ytyt
    return np.where(product == 0, 0.0, cov_ytyp / np.sqrt(np.where(product == 0, 1, product)))


def _cohen_kappa(counts: Counts, params: dict[str, Any], warnings: list[Warning_]) -> np.ndarray:
    if not counts.zero_present.all():
        warnings.append((SINGLE_LABEL_MESSAGE, False))
    replace = params.get("replace_undefined_by", np.nan)
    tp, fp, tn, fn = counts.tp, counts.fp, counts.tn, counts.fn
    sum0 = (tn + fn, fp + tp)  # columns: y2 = y_pred
    sum1 = (tn + fp, fn + tp)  # rows: y1 = y_true
    total = sum0[0] + sum0[1]
    # every weighting of two classes ('linear', 'quadratic', None) weighs the off-diagonal by 1
    numerator = fp + fn
    denominator = sum0[0] * sum1[1] / total + sum0[1] * sum1[0] / total
    undefined = denominator == 0
    if undefined.any():
        warnings.append(
            (
                "`y1`, `y2` and `labels` have only one label in common. `cohen_kappa_score` "
                "is undefined and set to the value defined by the the `replace_undefined_by` "
                f"param, which is set to {replace}.",
                True,
            )
        )
    kappa = 1 - numerator / np.where(undefined, 1.0, denominator)
    return np.where(undefined, replace, kappa)


_FORMULAS: dict[str, Any] = {
    "accuracy_score": _accuracy,
    "zero_one_loss": _zero_one_loss,
    "hamming_loss": _hamming_loss,
    "precision_score": _precision,
    "recall_score": _recall,
    "f1_score": _f1,
    "fbeta_score": _fbeta,
    "jaccard_score": _jaccard,
    "balanced_accuracy_score": _balanced_accuracy,
    "matthews_corrcoef": _matthews,
    "cohen_kappa_score": _cohen_kappa,
}


def binary_target(values: Any) -> Any:
    """``values`` unchanged, after checking that they are {0, 1} (or bool) labels.

    scikit-learn's ``metric_at_thresholds`` hands ``y_true`` unchanged to the
    metric beside predictions in {0, 1}: the metric of other labels (-1, 2,
    strings) is not one of the binary confusion counts.

    Examples
    --------
    >>> binary_target(np.array([0, 1, 1]))
    array([0, 1, 1])
    >>> binary_target(np.array([-1, 1]))
    Traceback (most recent call last):
    ...
    ValueError: metric_at_thresholds of dask-auc needs y_true in {0, 1} (or bool): \
found -1. scikit-learn compares y_true with predictions (y_score >= threshold) coded 0/1, \
so other labels are not a function of the confusion counts; map y_true to 0/1 first, \
e.g. (y_true == positive_label).astype(int).
    """
    labels = to_numpy(values)
    if labels.dtype.kind == "b" or not labels.size:
        return values
    if labels.dtype.kind == "f":
        if np.isnan(labels).any():
            raise ValueError("Input contains NaN.")
        if np.isinf(labels).any():
            raise ValueError(
                f"Input contains infinity or a value too large for dtype({labels.dtype.name!r})."
            )
    if labels.dtype.kind in "iuf":
        wrong = labels[(labels != 0) & (labels != 1)]
    else:
        flat = labels.ravel().tolist()
        wrong = np.array(
            [v for v in flat if isinstance(v, (str, bytes)) or v not in (0, 1)], dtype=object
        )
    if wrong.size:
        shown = ", ".join(str(v) for v in dict.fromkeys(wrong.ravel().tolist()[:3]))
        raise ValueError(
            f"metric_at_thresholds of dask-auc needs y_true in {{0, 1}} (or bool): found "
            f"{shown}. scikit-learn compares y_true with predictions (y_score >= threshold) "
            "coded 0/1, so other labels are not a function of the confusion counts; map "
            "y_true to 0/1 first, e.g. (y_true == positive_label).astype(int)."
        )
    return values
