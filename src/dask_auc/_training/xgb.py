"""The AUC of the whole eval set as an xgboost.dask evaluation metric, every round.

xgboost.dask trains one booster per worker inside xgboost's collective; a
custom metric runs in each worker's training thread with the worker's own
rows, *inside* that collective, so ``xgboost.collective.allreduce`` reaches
every worker from it.  :class:`XGBoostAUC` sums the workers' states there
(:mod:`.dense`) and every worker returns the same certified AUC.

xgboost keeps a custom metric's value in the evaluation history as printed
with six decimals (``"%f"``) and averages it over the workers; the callback
of :meth:`XGBoostAUC.history_callback` puts the metric's full value back, so
that the history -- and early stopping, listed after it -- see the exact AUC.
"""

from __future__ import annotations

import collections
import uuid
from typing import Any

import numpy as np

from .._params import AtLeast, Interval, check_params
from .._states import AUCBounds
from .dense import collective_bounds

__all__ = ["XGBoostAUC"]

#: the bounds of the latest evaluations of each metric (by token) in this process, oldest first
_RECENT: dict[str, collections.deque] = collections.defaultdict(
    lambda: collections.deque(maxlen=64)
)
_PARAMETERS = {
    "resolution": AtLeast(2, none=False),
    "max_width": Interval(0, 1, closed="both"),
    "refinements": AtLeast(0, none=False),
}


class XGBoostAUC:
    """The exact (or certified) AUC of a whole eval set, as an xgboost(.dask) metric.

    Each worker bins its own rows' predictions, the workers' bins are summed
    with ``xgboost.collective.allreduce``, and every worker reports the same
    AUC of all the rows: exact (equal to :func:`dask_auc.roc_auc_score` of the
    round's predictions, bit for bit unweighted) when every bin holds one
    distinct score, else the estimate of certified bounds, whose widest bins
    are cut again (up to ``refinements`` times, each two allreduces) while
    their width is above ``max_width``.  xgboost's own ``"auc"`` on
    xgboost.dask is the mean of the workers' AUCs, weighted by their pairs:
    pairs of rows on different workers are never counted.

    Pass it as ``custom_metric=`` to ``xgboost.dask.train`` (or
    ``xgboost.train``), or as ``eval_metric=`` to
    ``xgboost.dask.DaskXGBClassifier``; add :meth:`history_callback` to the
    callbacks to keep its full value in the history and in early stopping.

    Parameters
    ----------
    resolution : int, default 2**16
        Bins of the dense grid, a power of two; each allreduce moves
        ``32 * resolution`` bytes (2 MiB by default).
    max_width : float in [0, 1], default 1e-4
        The certified width below which no bin is cut again (the default of
        :func:`dask_auc.roc_auc_bounds`); 0 cuts until exact or out of
        ``refinements``.  Each cut costs about one more pass over the rows.
    refinements : int, default 2
        The most cuts of the widest bins after the first binning.
    name : str, default "auc_exact"
        The metric's name in xgboost's history (a name starting with "auc"
        makes early stopping maximise it).

    Examples
    --------
    >>> import numpy as np, xgboost, dask_auc
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 3))
    >>> y = (X[:, 0] + rng.normal(size=500) > 0).astype(int)
    >>> data, metric, log = xgboost.DMatrix(X, label=y), dask_auc.XGBoostAUC(), {}
    >>> booster = xgboost.train(
    ...     {"objective": "binary:logistic", "max_depth": 2}, data, num_boost_round=3,
    ...     evals=[(data, "train")], custom_metric=metric, evals_result=log,
    ...     callbacks=[metric.history_callback()], verbose_eval=False)
    >>> log["train"]["auc_exact"][-1] == dask_auc.roc_auc_score(y, booster.predict(data))
    True
    """

    def __init__(
        self,
        *,
        resolution: int = 1 << 16,
        max_width: float = 1e-4,
        refinements: int = 2,
        name: str = "auc_exact",
    ):
        checked = check_params(
            "XGBoostAUC", _PARAMETERS, resolution=resolution, max_width=max_width,
            refinements=refinements,
        )  # fmt: skip
        if checked["resolution"] & (checked["resolution"] - 1):
            raise ValueError(
                f"The 'resolution' parameter of XGBoostAUC must be a power of two (the dense "
                f"grid is cut by halves). Got {resolution!r} instead."
            )
        if not isinstance(name, str) or not name or "-" in name:
            raise ValueError(f"name must be a non-empty str without '-' (xgboost splits "
                             f"'<data>-<metric>' at it), got {name!r}")  # fmt: skip
        self.resolution = int(checked["resolution"])
        self.max_width = float(checked["max_width"])
        self.refinements = int(checked["refinements"])
        self.__name__ = name  # the name xgboost's scikit-learn estimators give a callable metric
        self._token = uuid.uuid4().hex

    def __call__(self, first: Any, second: Any, sample_weight: Any = None) -> Any:
        """As xgboost calls a metric: ``(predt, dmatrix) -> (name, auc)`` or ``(y, predt) -> auc``.

        ``xgboost.train``'s ``custom_metric`` gets the predictions and the
        ``DMatrix``; the scikit-learn estimators' ``eval_metric`` gets the
        labels, the predictions and ``sample_weight``.  Both run in every
        worker at once: this is a collective call.
        """
        import xgboost

        if isinstance(second, xgboost.DMatrix):
            weights = second.get_weight()
            bounds = self.bounds(second.get_label(), first, weights if weights.size else None)
            return self.__name__, bounds.estimate
        return self.bounds(first, second, sample_weight).estimate

    def bounds(self, y_true: Any, y_score: Any, sample_weight: Any = None) -> AUCBounds:
        """The certified AUC of the rows of every worker of xgboost's collective.

        Every worker must call it at the same time, with its own rows; all get
        the same :class:`~dask_auc.AUCBounds`.  Outside a collective, the AUC
        of the rows given.
        """
        scores = np.asarray(y_score)
        if scores.ndim != 1 and not (scores.ndim == 2 and scores.shape[1] == 1):
            raise ValueError(
                f"XGBoostAUC is a binary metric: the predictions have shape {scores.shape}, "
                "one column per class (use a binary objective such as binary:logistic)"
            )
        bounds, _ = collective_bounds(
            y_true, scores, sample_weight, allreduce=_allreduce(),
            resolution=self.resolution, max_width=self.max_width, refinements=self.refinements,
        )  # fmt: skip
        _RECENT[self._token].append(bounds)
        return bounds

    def history_callback(self) -> Any:
        """An ``xgboost.callback.TrainingCallback`` keeping this metric's full value in the history.

        List it before ``xgboost.callback.EarlyStopping``, so that early
        stopping compares the exact AUCs rather than their six decimals.
        """
        return _history_callback(self.__name__, self._token)

    def __repr__(self) -> str:
        return (
            f"XGBoostAUC(resolution={self.resolution}, max_width={self.max_width}, "
            f"refinements={self.refinements}, name={self.__name__!r})"
        )


def _allreduce() -> Any:
    """xgboost's allreduce as the dense module's ``allreduce(array, op)``; none outside one."""
    from xgboost import collective

    if not collective.is_distributed():
        return _alone
    ops = {"sum": collective.Op.SUM, "max": collective.Op.MAX}

    def allreduce(array: np.ndarray, op: str) -> np.ndarray:
        return collective.allreduce(array, ops[op])

    return allreduce


def _alone(array: np.ndarray, op: str) -> np.ndarray:
    return array


def _history_callback(name: str, token: str) -> Any:
    from xgboost.callback import TrainingCallback

    class ExactHistory(TrainingCallback):
        """Replaces the six-decimal values of the metric ``name`` by its full values."""

        def after_iteration(self, model: Any, epoch: int, evals_log: Any) -> bool:
            _restore(evals_log, name, token)
            return False

    return ExactHistory()


def _restore(evals_log: Any, name: str, token: str) -> None:
    """The last value of ``name`` in each data set's log: the metric's full value of the round.

    A module-level function, so that a callback pickled by value to a worker
    (its class is local) reads this process's records, not a copy of them.
    """
    recent = _RECENT[token]
    logs = [log[name] for log in evals_log.values() if name in log]
    if logs and len(recent) >= len(logs):  # this round's: one per data set, in order
        for log, bounds in zip(logs, list(recent)[-len(logs) :], strict=True):
            log[-1] = bounds.estimate
    recent.clear()
