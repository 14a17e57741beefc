"""Scorers for model selection (scikit-learn, dask-ml): metrics of scores, never of labels.

A scorer is what ``GridSearchCV(scoring=...)``, ``cross_val_score`` and
dask-ml's ``ParallelPostFit(scoring=...).score`` call: ``scorer(estimator,
X, y)``.  Those of dask-auc ask the estimator for its scores --
``predict_proba`` (the positive class's column) or ``decision_function`` --
and pass them to the metric as they come: NumPy folds stay NumPy, dask
collections stay lazy until the metric computes.  dask-ml's
``ParallelPostFit.score`` on dask collections wraps any ``scoring``
callable as a metric of ``predict``'s hard labels (a bare
``dask_auc.roc_auc_score`` there scores the labels, silently): call the
scorer itself, ``get_scorer("roc_auc")(model, X, y)``, which a dask-auc
scorer given there says.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from ._calibration import brier_score_loss, log_loss
from ._curves import average_precision_score
from ._ranking import roc_auc_score

__all__ = ["get_scorer", "make_scorer"]

_SCORES = ("decision_function", "predict_proba")
_PROBABILITIES = ("predict_proba",)


class Scorer:
    """``scorer(estimator, X, y_true, sample_weight=None)``: the metric of the estimator's scores.

    Make one with :func:`make_scorer` or :func:`get_scorer`.
    """

    def __init__(
        self,
        metric: Callable[..., Any],
        sign: int,
        response_method: Sequence[str],
        pos_label: Any,
        kwargs: dict[str, Any],
    ):
        self._metric, self._sign = metric, sign
        self._response_method, self._pos_label, self._kwargs = response_method, pos_label, kwargs
        self._takes_pos_label = "pos_label" in inspect.signature(metric).parameters

    def __call__(
        self, estimator: Any, X: Any, y_true: Any = None, sample_weight: Any = None, **kwargs: Any
    ) -> float:
        if not any(hasattr(estimator, m) for m in ("fit", "predict", *_SCORES)) or kwargs:
            # dask-ml's ParallelPostFit.score(X, y) on dask collections wraps any scoring
            # callable as a metric of predict()'s labels: scorer(y_true, labels, compute=...)
            raise TypeError(
                "a scorer is called as scorer(estimator, X, y_true); it was called as a "
                "metric of labels (dask-ml's ParallelPostFit.score wraps a scoring callable "
                "so, and scores predict()'s labels): call the scorer itself instead, "
                "dask_auc.get_scorer('roc_auc')(model, X, y)"
            )
        scores, positive = self._scores(estimator, X)
        options = dict(self._kwargs)
        if self._takes_pos_label and positive is not None:
            options.setdefault("pos_label", positive)
        if sample_weight is not None:
            options["sample_weight"] = sample_weight
        return self._sign * float(self._metric(y_true, scores, **options))

    def _scores(self, estimator: Any, X: Any) -> tuple[Any, Any]:
        """The estimator's scores of the positive class, and that class (None if unknown)."""
        method = next((m for m in self._response_method if hasattr(estimator, m)), None)
        if method is None:
            raise TypeError(
                f"{type(estimator).__name__} has none of {', '.join(self._response_method)}: "
                f"{self._metric.__name__} needs scores, not predicted labels"
            )
        classes = getattr(estimator, "classes_", None)
        positive = self._pos_label
        if positive is None and classes is not None and len(classes) == 2:
            positive = classes[1]
        scores = getattr(estimator, method)(X)
        if method == "predict_proba" and scores.ndim == 2 and scores.shape[1] == 2:
            column = 1 if classes is None else _index(classes, positive)
            return scores[:, column], positive
        if method == "decision_function" and classes is not None and len(classes) == 2:
            # scikit-learn's decision_function scores classes_[1]
            return (scores if _index(classes, positive) == 1 else -scores), positive
        return scores, positive

    def __repr__(self) -> str:
        options = "".join(f", {k}={v!r}" for k, v in self._kwargs.items())
        sign = "" if self._sign > 0 else ", greater_is_better=False"
        return (
            f"make_scorer({self._metric.__name__}{sign}, "
            f"response_method={tuple(self._response_method)!r}{options})"
        )


def make_scorer(
    metric: Callable[..., Any],
    *,
    response_method: str | Sequence[str] = _SCORES,
    greater_is_better: bool = True,
    pos_label: Any = None,
    **kwargs: Any,
) -> Scorer:
    """A scorer of ``metric`` for scikit-learn's and dask-ml's model selection.

    Parameters
    ----------
    metric : callable
        ``metric(y_true, y_score, **kwargs)``: a dask-auc metric (or any
        function of labels and scores).
    response_method : str or sequence of str, default ("decision_function", "predict_proba")
        The estimator's methods to ask for scores, the first it has.  Of
        ``predict_proba``'s two columns the positive class's is taken.
    greater_is_better : bool, default True
        If False, the scorer returns the metric negated (a loss).
    pos_label : label, optional
        The positive class; default the estimator's ``classes_[1]``.  Passed
        to ``metric`` when it takes ``pos_label``.
    **kwargs
        More keywords of ``metric``.

    Returns
    -------
    Scorer
        ``scorer(estimator, X, y_true, sample_weight=None) -> float``.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> from sklearn.linear_model import LogisticRegression
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [1.5], [0.5]])
    >>> y = np.array([0, 0, 1, 1, 1, 0])
    >>> model = LogisticRegression().fit(X, y)
    >>> dask_auc.make_scorer(dask_auc.roc_auc_score)(model, X, y)
    1.0
    """
    methods = (response_method,) if isinstance(response_method, str) else tuple(response_method)
    unknown = set(methods) - set(_SCORES)
    if unknown or not methods:
        raise ValueError(
            f"response_method must be among {_SCORES}, got {response_method!r}: scores, "
            "not the labels of predict"
        )
    return Scorer(metric, 1 if greater_is_better else -1, methods, pos_label, kwargs)


def get_scorer(name: str) -> Scorer:
    """The scorer named as scikit-learn names it: ``roc_auc``, ``average_precision``, ...

    ``"roc_auc"``, ``"average_precision"``, ``"neg_log_loss"``, ``"neg_brier_score"``:
    dask-auc's metrics of the estimator's scores (probabilities for the losses).

    Examples
    --------
    >>> import dask_auc
    >>> dask_auc.get_scorer("neg_log_loss")
    make_scorer(log_loss, greater_is_better=False, response_method=('predict_proba',))
    """
    makers = {
        "roc_auc": lambda: make_scorer(roc_auc_score),
        "average_precision": lambda: make_scorer(average_precision_score),
        "neg_log_loss": lambda: make_scorer(
            log_loss, response_method=_PROBABILITIES, greater_is_better=False
        ),
        "neg_brier_score": lambda: make_scorer(
            brier_score_loss, response_method=_PROBABILITIES, greater_is_better=False
        ),
    }
    if name not in makers:
        raise ValueError(f"{name!r} is not a scorer of dask-auc; use one of {sorted(makers)}")
    return makers[name]()


def _index(classes: Any, label: Any) -> int:
    matches = [i for i, c in enumerate(list(classes)) if c == label]
    if not matches:
        raise ValueError(f"pos_label={label!r} is not one of the estimator's classes {classes!r}")
    return matches[0]
