"""The exact AUC of a trained model's first k iterations, for several k, on a Dask collection.

lightgbm.dask trains with ``lightgbm.train`` on every worker, joined by
LightGBM's own sockets; its metrics, built in or custom, see the worker's
rows only, and LightGBM's Python package offers no collective call a metric
could sum a state with.  So the exact AUC of an iteration is computed after
training: each block of the eval set is predicted with the model cut at
every iteration asked (one column each), and each column's AUC is
:func:`dask_auc.roc_auc_score` -- all in one compute, the eval set read once.
xgboost's boosters take the same road (``iteration_range``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._engine import compute
from .._ranking import roc_auc_score

__all__ = ["roc_auc_by_iteration"]


def roc_auc_by_iteration(
    model: Any,
    X: Any,
    y_true: Any,
    *,
    iterations: Any = None,
    sample_weight: Any = None,
) -> dict[int, float]:
    """The exact AUC of a boosted model's first ``k`` iterations, for each ``k``, in one pass.

    Parameters
    ----------
    model : lightgbm or xgboost binary classifier, or its booster
        ``lightgbm.dask.DaskLGBMClassifier``, ``lightgbm.LGBMClassifier``,
        ``lightgbm.Booster``, ``xgboost.dask.DaskXGBClassifier``,
        ``xgboost.XGBClassifier`` or ``xgboost.Booster``, trained.
    X : dask Array or DataFrame, NumPy array or pandas DataFrame
        The eval set's features; a dask Array chunked by rows only.
    y_true : dask Series or Array, pandas Series, ndarray or list
        Binary labels of the rows of ``X`` (as :func:`dask_auc.roc_auc_score`
        takes them), in the same order: inputs pair by position.
    iterations : iterable of int, optional
        The ``k`` to evaluate (each at least 1); default every iteration.
        ``range(10, n + 1, 10)`` evaluates every tenth.
    sample_weight : same kinds as ``y_true``, optional
        Row weights.

    Returns
    -------
    dict
        ``{k: AUC of the predictions of the first k iterations}``, in the
        order of ``iterations``.

    Examples
    --------
    >>> import numpy as np, lightgbm, dask_auc
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3))
    >>> y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    >>> model = lightgbm.LGBMClassifier(n_estimators=4, verbose=-1).fit(X, y)
    >>> by_k = dask_auc.roc_auc_by_iteration(model, X, y, iterations=[2, 4])
    >>> list(by_k), by_k[4] == dask_auc.roc_auc_score(y, model.predict_proba(X)[:, 1])
    ([2, 4], True)
    """
    predict, last = _predictor(model)
    ks = _iterations(iterations, last)
    scores = _scores(X, predict, ks)
    lazy = [roc_auc_score(y_true, s, sample_weight=sample_weight, compute=False) for s in scores]
    return dict(zip(ks, compute(*lazy), strict=True))


def _predictor(model: Any) -> tuple[Any, int]:
    """``predict(block, k)`` of the first k iterations, and the model's number of iterations."""
    booster = model
    if hasattr(model, "booster_"):  # lightgbm's estimators
        booster = model.booster_
    elif hasattr(model, "get_booster"):  # xgboost's
        booster = model.get_booster()
    family = type(booster).__module__.split(".")[0]
    if family == "lightgbm" and hasattr(booster, "current_iteration"):
        return _LightGBM(booster), int(booster.current_iteration())
    if family == "xgboost" and hasattr(booster, "num_boosted_rounds"):
        return _XGBoost(booster), int(booster.num_boosted_rounds())
    raise TypeError(
        f"roc_auc_by_iteration takes a lightgbm or xgboost binary classifier or booster, "
        f"got {type(model).__name__}"
    )


class _LightGBM:
    def __init__(self, booster: Any):
        self.booster = booster

    def __call__(self, block: Any, k: int) -> np.ndarray:
        return self.booster.predict(block, num_iteration=k)


class _XGBoost:
    def __init__(self, booster: Any):
        self.booster = booster

    def __call__(self, block: Any, k: int) -> np.ndarray:
        return self.booster.inplace_predict(block, iteration_range=(0, k))


def _iterations(iterations: Any, last: int) -> list[int]:
    ks = list(range(1, last + 1)) if iterations is None else list(iterations)
    bad = [k for k in ks if not isinstance(k, (int, np.integer)) or not 1 <= k <= last]
    if bad or not ks or len(set(ks)) != len(ks):
        raise ValueError(
            f"iterations must be distinct integers in [1, {last}] (the model's iterations), "
            f"at least one; got {ks if not bad else bad}"
        )
    return [int(k) for k in ks]


def _columns(block: Any, predict: Any, ks: list[int]) -> np.ndarray:
    """One block's predictions, a column per ``k``; a binary model gives one score a row."""
    columns = []
    for k in ks:
        score = np.asarray(predict(block, k))
        if score.ndim != 1:
            raise ValueError(
                f"roc_auc_by_iteration is binary: the model predicts {score.shape[1]} columns "
                "a row (a multi-class model)"
            )
        columns.append(score.astype(np.float64, copy=False))
    return np.stack(columns, axis=1) if columns else np.zeros((0, len(ks)))


def _frame_columns(block: pd.DataFrame, predict: Any, ks: list[int]) -> pd.DataFrame:
    return pd.DataFrame(_columns(block, predict, ks), index=block.index, columns=_names(ks))


def _names(ks: list[int]) -> list[str]:
    return [f"k{k}" for k in ks]


def _scores(X: Any, predict: Any, ks: list[int]) -> list[Any]:
    """The score column of each ``k``: lazy where ``X`` is a dask collection."""
    if hasattr(X, "map_partitions") and hasattr(X, "columns"):  # a dask DataFrame
        meta = pd.DataFrame({name: np.zeros(0) for name in _names(ks)})
        frame = X.map_partitions(_frame_columns, predict, ks, meta=meta)
        return [frame[name] for name in _names(ks)]
    if hasattr(X, "map_blocks") and hasattr(X, "chunks"):  # a dask Array
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-D dask array of rows and features, got {X.ndim}-D")
        if X.numblocks[1] != 1:
            X = X.rechunk({1: -1})
        table = X.map_blocks(
            _columns, predict, ks, chunks=(X.chunks[0], (len(ks),)), dtype=np.float64,
        )  # fmt: skip
        return [table[:, j] for j in range(len(ks))]
    table = _columns(X, predict, ks)
    return [table[:, j] for j in range(len(ks))]
