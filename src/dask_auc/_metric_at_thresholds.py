"""``metric_at_thresholds``: a classification metric at every threshold, from confusion counts.

scikit-learn 1.9's :func:`sklearn.metrics.metric_at_thresholds` calls
``metric_func(y_true, y_score >= threshold, **metric_params)`` once per
distinct score, on every row: ``n_thresholds`` passes over the data, which
cannot scale.  Here the counts ``tp, fp, tn, fn`` at every threshold come
from one sort (:func:`dask_auc.confusion_matrix_at_thresholds`, computed with
``compute=False`` and finished here), and the metric is evaluated on them
for all thresholds at once (:mod:`dask_auc._kernels.binary.confusion_metrics`).
That is exact for the metrics that are functions of the binary confusion
counts:

* scikit-learn's ``accuracy_score``, ``zero_one_loss``, ``hamming_loss``,
  ``precision_score``, ``recall_score``, ``f1_score``, ``fbeta_score``,
  ``jaccard_score`` (``average='binary'``, ``pos_label`` 0 or 1,
  ``zero_division`` as scikit-learn), ``balanced_accuracy_score``,
  ``matthews_corrcoef`` and ``cohen_kappa_score`` (without ``labels``),
  recognised by identity (also through ``functools.partial``), with their
  values, warnings and parameter errors: ``metric_params`` are first checked
  by calling the function once on four rows (scikit-learn's own parameter
  validation: an invalid value raises scikit-learn's error, where its
  ``metric_at_thresholds``, which skips nested validation, may not);
* a user's metric of the counts, wrapped by :func:`confusion_metric`.

Any other callable raises a ``TypeError`` that says why: calling it once per
threshold on every row is what this function exists to avoid.

``y_true`` must hold 0/1 labels (or bools): scikit-learn passes ``y_true``
unchanged to the metric beside 0/1 predictions, so other labels are not a
function of the binary counts (checked in each block, before the sort).
Thresholds are the distinct scores of the rows of nonzero weight, decreasing,
as scikit-learn's; rows of weight zero are dropped, as it does.  Unweighted,
the values are the same bits as scikit-learn's; weighted, within a few ulps
(the counts are float sums in another order).  NumPy's ``RuntimeWarning`` of
scikit-learn's scalar arithmetic (``balanced_accuracy_score(adjusted=True)``
of one class) is not repeated.
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ._engine import LazyScore, lazy_of
from ._kernels.binary.confusion_metrics import (
    SUPPORTED_PARAMETERS,
    Counts,
    binary_target,
    evaluate,
)
from ._kernels.core.validation import warn_undefined
from ._params import Boolean, Satisfies, check_params
from ._roc import roc


def _dict_or_none(value: Any) -> bool:
    return value is None or isinstance(value, dict)


_PARAMETERS = {
    "metric_func": Satisfies("a callable", callable),
    "metric_params": Satisfies("an instance of 'dict' or None", _dict_or_none),
    "compute": Boolean(),
}


class ConfusionMetric:
    """A metric of the binary confusion counts, for dask-auc and scikit-learn alike.

    Made by :func:`confusion_metric`.  Called as a scikit-learn metric,
    ``metric(y_true, y_pred, *, sample_weight=None, **params)``, it counts
    ``tp, fp, tn, fn`` (label 1 positive, weighted when weights are given) and
    returns ``func(tp, fp, tn, fn, **params)`` -- so scikit-learn's
    ``metric_at_thresholds`` accepts it too, and gives the same arrays.
    dask-auc's :func:`metric_at_thresholds` calls ``func`` once, on the counts
    at every threshold.

    Parameters
    ----------
    func : callable
        ``func(tp, fp, tn, fn, **params)``: float64 arrays of equal shape, one
        element per threshold; returns an array of that shape, or a tuple of
        such arrays (then each threshold's value is a tuple, as in
        scikit-learn).  It must work elementwise (NumPy operations).
    """

    def __init__(self, func: Callable[..., Any]):
        if not callable(func):
            raise TypeError(f"confusion_metric needs a callable, got {func!r}")
        self.func = func
        functools.update_wrapper(self, func)

    def __call__(
        self, y_true: Any, y_pred: Any, *, sample_weight: Any = None, **params: Any
    ) -> Any:
        truth = np.asarray(y_true) == 1
        predicted = np.asarray(y_pred) == 1
        weights = np.ones(len(truth)) if sample_weight is None else np.asarray(sample_weight)
        counts = [
            np.array([float(weights[a & b].sum())])
            for a, b in ((truth, predicted), (~truth, predicted), (~truth, ~predicted))
        ]
        counts.append(np.array([float(weights[truth & ~predicted].sum())]))
        result = self.func(*counts, **params)
        if isinstance(result, tuple):
            return tuple(np.asarray(r).reshape(-1)[0].item() for r in result)
        return np.asarray(result).reshape(-1)[0].item()

    def __repr__(self) -> str:
        return f"confusion_metric({self.func!r})"


def confusion_metric(func: Callable[..., Any]) -> ConfusionMetric:
    """Mark ``func(tp, fp, tn, fn, **params)`` as a metric of the confusion counts.

    The result is a :class:`ConfusionMetric`: :func:`metric_at_thresholds`
    evaluates it on the counts at every threshold at once, and it remains a
    scikit-learn metric ``(y_true, y_pred, *, sample_weight=None)``.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> @dask_auc.confusion_metric
    ... def net_benefit(tp, fp, tn, fn, *, odds=1.0):
    ...     return (tp - odds * fp) / (tp + fp + tn + fn)
    >>> values, thresholds = dask_auc.metric_at_thresholds(
    ...     np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]), net_benefit,
    ...     metric_params={"odds": 0.5})
    >>> values
    array([0.25 , 0.125, 0.375, 0.25 ])
    >>> net_benefit([0, 0, 1, 1], [0, 1, 1, 1], odds=0.5)    # a scikit-learn metric too
    0.375
    """
    return ConfusionMetric(func)


def metric_at_thresholds(
    y_true: Any,
    y_score: Any,
    metric_func: Callable[..., Any],
    *,
    sample_weight: Any = None,
    metric_params: dict[str, Any] | None = None,
    compute: bool = True,
) -> tuple[np.ndarray, np.ndarray] | LazyScore:
    """A metric's value at every threshold of a binary target, computed with dask.

    The same arrays as :func:`sklearn.metrics.metric_at_thresholds`
    (scikit-learn >= 1.9) for the metrics of the binary confusion counts (see
    :doc:`/user-guide/thresholds`), from one sort of the data rather
    than one pass per threshold.

    Parameters
    ----------
    y_true : dask Series or Array, pandas Series, ndarray or list
        Labels in {0, 1} (or bools).
    y_score : same kinds as ``y_true``
        Scores; ``y_pred = y_score >= threshold``.  Rows pair by position.
    metric_func : callable
        One of scikit-learn's metrics listed in the module notes (or a
        ``functools.partial`` of one), or a :func:`confusion_metric`.
    sample_weight : same kinds as ``y_true``, optional
        Non-negative row weights, passed to the metric as scikit-learn does.
    metric_params : dict, optional
        Keyword arguments of ``metric_func`` (not ``sample_weight``).
    compute : bool, default=True
        If False, return a :class:`~dask_auc.LazyScore`.

    Returns
    -------
    metric_values : ndarray of shape (n_thresholds,) or (n_thresholds, n_outputs)
        The metric at each threshold (``y_pred = y_score >= threshold``); a
        column per output for a :func:`confusion_metric` returning a tuple.
    thresholds : ndarray of shape (n_thresholds,)
        The distinct scores of rows of nonzero weight, decreasing.

    Raises
    ------
    TypeError
        For a ``metric_func`` that is not a function of the confusion counts.
    ValueError
        For parameters it cannot map (``average`` other than ``'binary'``...),
        or ``y_true`` outside {0, 1}.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> from sklearn.metrics import accuracy_score
    >>> values, thresholds = dask_auc.metric_at_thresholds(
    ...     np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]), accuracy_score)
    >>> thresholds
    array([0.8 , 0.4 , 0.35, 0.1 ])
    >>> values
    array([0.75, 0.5 , 0.75, 0.5 ])
    """
    checked = check_params(
        "metric_at_thresholds",
        _PARAMETERS,
        metric_func=metric_func,
        metric_params=metric_params,
        compute=compute,
    )
    formula = _formula(metric_func, metric_params or {})
    # the binary metrics' one sort of this input; its labels are checked when it finishes
    curve = roc(y_true, y_score, pos_label=1, sample_weight=sample_weight)
    counts = curve.confusion_matrix_at_thresholds(compute=False)
    labels = curve.labels(compute=False)
    assert isinstance(counts, LazyScore) and isinstance(labels, LazyScore)
    lazy = lazy_of(
        [labels, counts], _MetricAtThresholdsFinish(labels, counts, formula), "metric_at_thresholds"
    )
    return lazy.compute() if checked["compute"] else lazy


class _MetricAtThresholdsFinish:
    """The computed counts -> ``(metric_values, thresholds)``, warning in the caller."""

    def __init__(
        self, labels: LazyScore, counts: LazyScore, formula: Callable[[Counts], tuple[Any, list]]
    ):
        self.labels, self.counts, self.formula = labels, counts, formula

    def __call__(self, *parts: Any) -> tuple[np.ndarray, np.ndarray]:
        n_labels = len(self.labels.__dask_keys__())
        binary_target(np.asarray(self.labels.finish(parts[:n_labels])))
        tns, fps, fns, tps, thresholds = self.counts.finish(parts[n_labels:])
        values, emitted = self.formula(Counts.of(tns, fps, fns, tps))
        for message, undefined in emitted:
            warn_undefined(message, None if undefined else UserWarning)
        return values, thresholds


# -- which metrics, with which parameters -------------------------------------------------------


def _formula(metric_func: Any, metric_params: dict[str, Any]) -> Any:
    """The evaluation of ``metric_func`` on the counts, or an error saying why there is none."""
    func, params = metric_func, dict(metric_params)
    if isinstance(func, functools.partial):
        if func.args:
            raise TypeError(
                "metric_at_thresholds of dask-auc cannot map a functools.partial with "
                "positional arguments: bind its parameters by keyword, or pass them in "
                "metric_params."
            )
        params = {**func.keywords, **params}
        func = func.func
    if "sample_weight" in params:
        raise ValueError(
            "Pass sample_weight to metric_at_thresholds, not in metric_params: it is given "
            "to the metric with the rows of weight zero dropped, as scikit-learn does."
        )
    if isinstance(func, ConfusionMetric):
        formula = _UserFormula(func.func, params)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            ones = np.ones(2)
            formula(Counts(ones, ones, ones, ones, 2.0, 2.0))  # its parameters' errors, now
        return formula
    name = _sklearn_name(func)
    if name is None:
        shown = getattr(func, "__name__", repr(func))
        raise TypeError(
            f"metric_at_thresholds of dask-auc cannot compute {shown} at scale: it computes a "
            "metric from the confusion counts (tp, fp, tn, fn) at every threshold, and "
            f"{shown} is neither one of scikit-learn's metrics of those counts "
            f"({', '.join(SUPPORTED_PARAMETERS)}) nor wrapped by dask_auc.confusion_metric. "
            "Calling an arbitrary metric once per threshold on every row, as scikit-learn "
            "does, would read the data once per distinct score."
        )
    _validate_like_sklearn(func, params)
    _check_supported(name, params)
    return functools.partial(evaluate, name, params)


def _sklearn_name(func: Any) -> str | None:
    """The name of ``func`` among scikit-learn's supported metrics (by identity), or None."""
    module = sys.modules.get("sklearn.metrics")  # not imported: not one of its functions
    if module is None:
        return None
    for name in SUPPORTED_PARAMETERS:
        if getattr(module, name, None) is func:
            return name
    return None


def _validate_like_sklearn(func: Any, params: dict[str, Any]) -> None:
    """Raise scikit-learn's own error for bad ``params``: one call on four rows."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        func(np.array([0, 1, 1, 0]), np.array([0, 1, 0, 1]), **params)


def _check_supported(name: str, params: dict[str, Any]) -> None:
    """Reject the parameters that accepted values cannot be mapped to the binary counts."""
    unknown = set(params) - set(SUPPORTED_PARAMETERS[name])
    if unknown:
        raise ValueError(
            f"metric_at_thresholds of dask-auc does not map {sorted(unknown)} of {name}."
        )
    average = params.get("average", "binary")
    if average != "binary":
        raise ValueError(
            f"metric_at_thresholds of dask-auc computes {name} with average='binary' only "
            f"(the metric of the positive label), got average={average!r}."
        )
    if params.get("pos_label", 1) not in (0, 1):
        raise ValueError(
            f"pos_label={params['pos_label']!r} is not a valid label. It should be one of [0 1]"
        )
    if name == "cohen_kappa_score" and params.get("labels") is not None:
        raise ValueError(
            "metric_at_thresholds of dask-auc computes cohen_kappa_score without labels "
            "(both labels, 0 and 1) only."
        )


class _UserFormula:
    """A :func:`confusion_metric`'s function on the counts at every threshold, checked."""

    def __init__(self, func: Callable[..., Any], params: dict[str, Any]):
        self.func, self.params = func, params

    def __call__(self, counts: Counts) -> tuple[np.ndarray, list]:
        result = self.func(counts.tp, counts.fp, counts.tn, counts.fn, **self.params)
        n = len(counts.tp)
        outputs = result if isinstance(result, tuple) else (result,)
        arrays = []
        for output in outputs:
            array = np.asarray(output)
            if array.shape != (n,):
                name = getattr(self.func, "__name__", repr(self.func))
                raise ValueError(
                    f"The confusion_metric {name} returned an array of shape {array.shape} for "
                    f"counts of shape ({n},): it must work elementwise and return one value "
                    "per threshold (or a tuple of such arrays)."
                )
            arrays.append(array)
        values = np.stack(arrays, axis=1) if isinstance(result, tuple) else arrays[0]
        return values, []
