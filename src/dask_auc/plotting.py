"""ROC, precision-recall, DET, gains and reliability plots with matplotlib (the ``plot`` extra).

Each model's curve is computed with ``max_points`` (2000 by default: a 1e8-row
curve does not travel to the caller), and the score in the legend -- AUC or
average precision -- is the exact one, from the same sort.  All models of a
call are one graph, computed at once.  matplotlib is imported when a plot is
drawn, not when :mod:`dask_auc` is.  The CORP reliability diagram,
:func:`plot_reliability`, is drawn by :mod:`dask_auc._plot_reliability`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import partial
from operator import methodcaller
from statistics import NormalDist
from typing import Any, cast

import numpy as np

from ._docstrings import fill, shared_docs
from ._engine import LazyScore
from ._kernels.binary.curves import PRECISION_RECALL, ROC, CurveKind
from ._params import AtLeast, Boolean, Label, Options, check_params
from ._plot_drawing import PLOT_EXTRA_MESSAGE, axes, drawn, given_roc, pyplot
from ._plot_reliability import plot_reliability
from ._roc import ROC as RocObject
from ._roc import roc

__all__ = [
    "PLOT_EXTRA_MESSAGE",
    "plot_det",
    "plot_gains",
    "plot_precision_recall",
    "plot_reliability",
    "plot_roc",
]

_PARAMETERS = {
    "max_points": AtLeast(2, why=" (a curve has two end points)"),
    "chance_level": Boolean(),
    "compute": Boolean(),
    "pos_label": Label(),
}


def _curve_plot(curve: CurveKind, doc: str) -> Callable[..., Any]:
    """The public plot of ``curve`` (``plot_roc``, ``plot_precision_recall``): one signature."""

    def plot(
        y_true: Any,
        y_score: Any = None,
        *,
        sample_weight: Any = None,
        name: str | None = None,
        ax: Any = None,
        max_points: int | None = 2000,
        chance_level: bool = True,
        compute: bool = True,
        pos_label: Any = None,
    ) -> Any:
        checked = check_params(
            f"plot_{curve.name}",
            _PARAMETERS,
            max_points=max_points,
            chance_level=chance_level,
            compute=compute,
            pos_label=pos_label,
        )
        max_points, pos_label = checked["max_points"], checked["pos_label"]
        ask = methodcaller(
            "curve", curve, drop_intermediate=curve == ROC, max_points=max_points, with_score=True
        )
        models, lazies = _asked(y_true, y_score, name, pos_label, sample_weight, ask)
        if pos_label is None:  # ROC objects given: the axes name their positive class
            pos_label = next(iter(models.values())).pos_label
        draw = partial(_draw_curves, curve, list(models), ax, chance_level, pos_label)
        return drawn(f"plot_{curve.name}", lazies, draw, compute)

    plot.__name__ = plot.__qualname__ = f"plot_{curve.name}"
    plot.__doc__ = fill(doc)
    return plot


plot_roc = _curve_plot(
    ROC,
    """Draw ROC curves, the exact AUC of each model in the legend.

    Parameters
    ----------
    y_true : dask Series or Array, pandas Series, ndarray or list, or ROC
        Binary labels, as in :func:`dask_auc.roc_curve`; or a
        :class:`~dask_auc.ROC` (or a mapping ``{model name: ROC}``), which
        holds its scores, ``pos_label`` and weights: ``y_score`` is not given.
    y_score : same kinds as ``y_true``, or a mapping ``{model name: scores}``
        One model's scores, or several models' scores to draw on one axes.
    sample_weight : same kinds as ``y_true``, optional
        Row weights.
    name : str, optional
        Legend name of a single model (the mapping's keys name several).
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    max_points : int >= 2 or None, default=2000
        Points drawn per curve (``None``: all of them); the AUC stays exact.
    chance_level : bool, default=True
        Draw the diagonal of a random classifier.
    compute : bool, default=True
        If False, return a :class:`~dask_auc.LazyScore` whose ``compute()``
        draws and returns the Axes.
    pos_label : int, float, bool or str, optional
        The positive class, as in :func:`dask_auc.roc_curve`.

    %(plot_returns)s
    >>> y = np.array([0, 0, 1, 1])
    >>> ax = dask_auc.plot_roc(y, {"a": np.array([0.1, 0.4, 0.35, 0.8]),
    ...                            "b": np.array([0.2, 0.1, 0.7, 0.9])})
    >>> [text.get_text() for text in ax.get_legend().get_texts()]
    ['a (AUC = 0.750)', 'b (AUC = 1.000)', 'Chance level (AUC = 0.5)']
    """,
)
plot_precision_recall = _curve_plot(
    PRECISION_RECALL,
    """Draw precision-recall curves, the exact average precision of each model in the legend.

    Parameters are those of :func:`plot_roc`; the chance level is the
    horizontal line at the prevalence of the positive class (the precision
    of a random classifier).

    %(plot_returns)s
    >>> ax = dask_auc.plot_precision_recall(np.array([0, 0, 1, 1]),
    ...                                     np.array([0.1, 0.4, 0.35, 0.8]), name="m")
    >>> [text.get_text() for text in ax.get_legend().get_texts()]
    ['m (AP = 0.833)', 'Chance level (AP = 0.500)']
    """,
)


def _asked(
    y_true: Any,
    y_score: Any,
    name: str | None,
    pos_label: Any,
    sample_weight: Any,
    ask: Callable[[RocObject], Any],
) -> tuple[dict[str, RocObject], list[LazyScore]]:
    """The models to draw (:func:`_models`) and ``ask(model)``'s lazy result of each.

    matplotlib is imported first, so that a missing one fails before any
    graph is built.
    """
    pyplot()
    models = _models(y_true, y_score, name, pos_label, sample_weight)
    return models, [cast(LazyScore, ask(source)) for source in models.values()]


def _models(
    y_true: Any, y_score: Any, name: str | None, pos_label: Any, sample_weight: Any
) -> dict[str, RocObject]:
    """``{legend name: ROC}`` of the models to draw: ROC objects, or made from arrays.

    ``y_true`` may be a :class:`~dask_auc.ROC` (or a mapping of names to
    them): its labels, ``pos_label`` and weights are its own, and
    ``y_score`` is not given.
    """
    if given_roc(
        y_true, {"y_score": y_score, "pos_label": pos_label, "sample_weight": sample_weight}
    ):
        if isinstance(y_true, Mapping):
            if name is not None:
                raise ValueError("name names a single model; with a mapping its keys do")
            return {str(key): r for key, r in y_true.items()}
        return {"Classifier" if name is None else name: y_true}
    return {
        model: roc(y_true, scores, pos_label=pos_label, sample_weight=sample_weight)
        for model, scores in _named_models(y_score, name).items()
    }


def _named_models(y_score: Any, name: str | None) -> dict[str, Any]:
    """``{legend name: scores}`` of one model or of a mapping of several."""
    if isinstance(y_score, Mapping):
        if name is not None:
            raise ValueError("name names a single model; with a mapping of scores its keys do")
        models = {str(key): scores for key, scores in y_score.items()}
        if not models:
            raise ValueError("y_score is an empty mapping: give at least one model's scores")
        return models
    return {"Classifier" if name is None else name: y_score}


def _draw_curves(
    curve: CurveKind, names: list[str], ax: Any, chance_level: bool, pos_label: Any, *curves: Any
) -> Any:
    """ROC or precision-recall curves, each model's exact score in the legend."""
    ax = axes(ax)
    for model, ((first, second, _), score, _) in zip(names, curves, strict=True):
        if curve == ROC:
            ax.plot(first, second, label=f"{model} (AUC = {score:.3f})")
        else:
            ax.plot(second, first, drawstyle="steps-post", label=f"{model} (AP = {score:.3f})")
    suffix = "" if pos_label is None else f" (Positive label: {pos_label})"
    if curve == ROC:
        if chance_level:
            ax.plot([0, 1], [0, 1], "k--", lw=1, label="Chance level (AUC = 0.5)")
        ax.set_xlabel("False positive rate" + suffix)
        ax.set_ylabel("True positive rate" + suffix)
        ax.set_aspect("equal")
        ax.legend(loc="lower right")
    else:
        if chance_level:
            prevalence = curves[-1][2] if curves else 0.0  # the last model's
            ax.axhline(
                prevalence,
                color="k",
                ls="--",
                lw=1,
                label=f"Chance level (AP = {prevalence:.3f})",
            )
        ax.set_xlabel("Recall" + suffix)
        ax.set_ylabel("Precision" + suffix)
        ax.legend(loc="lower left")
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.01)
    return ax


# -- DET and gains charts ----------------------------------------------------------------------

_DET_TICKS = (0.001, 0.01, 0.05, 0.2, 0.5, 0.8, 0.95, 0.99, 0.999)
_GAINS_KINDS = ("gains", "lift")


@shared_docs
def plot_det(
    y_true: Any,
    y_score: Any = None,
    *,
    sample_weight: Any = None,
    name: str | None = None,
    ax: Any = None,
    max_points: int | None = 2000,
    compute: bool = True,
    pos_label: Any = None,
) -> Any:
    """Draw detection error tradeoff curves, as :class:`sklearn.metrics.DetCurveDisplay` does.

    False negative rate against false positive rate, both on normal deviate
    (probit) scales, from :func:`dask_auc.det_curve`; rates of 0 or 1 lie at
    infinity and are not drawn.  Parameters are those of :func:`plot_roc`
    (no chance level).

    %(plot_returns)s
    >>> ax = dask_auc.plot_det(np.array([0, 0, 1, 1, 0, 1]),
    ...                        np.array([0.1, 0.4, 0.35, 0.8, 0.6, 0.7]), name="m")
    >>> ax.get_xlabel(), [text.get_text() for text in ax.get_legend().get_texts()]
    ('False Positive Rate', ['m'])
    """
    checked = check_params(
        "plot_det",
        {key: _PARAMETERS[key] for key in ("max_points", "compute", "pos_label")},
        max_points=max_points,
        compute=compute,
        pos_label=pos_label,
    )
    ask = methodcaller("det_curve", max_points=checked["max_points"], compute=False)
    models, lazies = _asked(y_true, y_score, name, checked["pos_label"], sample_weight, ask)
    draw = partial(_draw_det, list(models), ax, checked["pos_label"])
    return drawn("plot_det", lazies, draw, checked["compute"])


def _probit(rates: np.ndarray) -> np.ndarray:
    """The standard normal quantile of each rate; 0 and 1 at -inf and inf."""
    normal = NormalDist()
    return np.array(
        [-math.inf if p <= 0 else math.inf if p >= 1 else normal.inv_cdf(p) for p in rates],
        dtype=float,
    )


def _draw_det(names: list[str], ax: Any, pos_label: Any, *curves: Any) -> Any:
    ax = axes(ax)
    for model, (fpr, fnr, _) in zip(names, curves, strict=True):
        ax.plot(_probit(fpr), _probit(fnr), label=model)
    suffix = "" if pos_label is None else f" (Positive label: {pos_label})"
    ax.set_xlabel("False Positive Rate" + suffix)
    ax.set_ylabel("False Negative Rate" + suffix)
    ticks = _probit(np.array(_DET_TICKS))
    labels = [f"{t:.0%}" if (100 * t).is_integer() else f"{t:.1%}" for t in _DET_TICKS]
    ax.set_xticks(ticks, labels)
    ax.set_yticks(ticks, labels)
    ax.set_xlim(-3, 3)
    ax.set_ylim(-3, 3)
    ax.legend(loc="upper right")
    return ax


@shared_docs
def plot_gains(
    y_true: Any,
    y_score: Any = None,
    *,
    kind: str = "gains",
    n_bins: int = 10,
    sample_weight: Any = None,
    name: str | None = None,
    ax: Any = None,
    baseline: bool = True,
    compute: bool = True,
    pos_label: Any = None,
) -> Any:
    """Draw a cumulative gains chart or a lift chart, from :func:`dask_auc.gains_table`.

    ``kind="gains"``: the share of all positives found (``cumulative_capture_rate``)
    against the share of rows targeted from the top score
    (``cumulative_data_fraction``), from (0, 0); the baseline of a random
    ordering is the diagonal.  ``kind="lift"``: the cumulative lift against
    the same shares; the baseline is 1.  One point per bin of the exact
    table (ties never split).

    Parameters
    ----------
    kind : {'gains', 'lift'}, default='gains'
        The chart.
    n_bins : int >= 1, default=10
        Bins of the gains table (10: deciles; 100 for a smooth chart).
    baseline : bool, default=True
        Draw the random ordering's line.
    y_true, y_score, sample_weight, name, ax, compute, pos_label
        As in :func:`plot_roc`.

    %(plot_returns)s
    >>> y, s = np.array([1, 1, 0, 1, 0, 0, 0, 0]), np.arange(8.0)[::-1]
    >>> ax = dask_auc.plot_gains(y, s, n_bins=4, name="m")
    >>> ax.get_lines()[0].get_ydata().tolist()
    [0.0, 0.6666666666666666, 1.0, 1.0, 1.0]
    """
    checked = check_params(
        "plot_gains",
        {
            "kind": Options(_GAINS_KINDS),
            "n_bins": AtLeast(1, none=False),
            "baseline": Boolean(),
            "compute": Boolean(),
            "pos_label": Label(),
        },
        kind=kind,
        n_bins=n_bins,
        baseline=baseline,
        compute=compute,
        pos_label=pos_label,
    )
    ask = methodcaller("gains_table", n_bins=checked["n_bins"], compute=False)
    models, lazies = _asked(y_true, y_score, name, checked["pos_label"], sample_weight, ask)
    draw = partial(_draw_gains, checked["kind"], list(models), ax, checked["baseline"])
    return drawn("plot_gains", lazies, draw, checked["compute"])


def _draw_gains(kind: str, names: list[str], ax: Any, baseline: bool, *tables: Any) -> Any:
    ax = axes(ax)
    for model, table in zip(names, tables, strict=True):
        share = table["cumulative_data_fraction"].to_numpy()
        if kind == "gains":
            found = table["cumulative_capture_rate"].to_numpy()
            ax.plot(
                np.concatenate(([0.0], share)),
                np.concatenate(([0.0], found)),
                marker=".",
                label=model,
            )
        else:
            ax.plot(share, table["cumulative_lift"].to_numpy(), marker=".", label=model)
    if kind == "gains":
        if baseline:
            ax.plot([0, 1], [0, 1], "k--", lw=1, label="Baseline (random order)")
        ax.set_ylabel("Share of positives found (cumulative gain)")
        ax.set_ylim(-0.01, 1.01)
        ax.legend(loc="lower right")
    else:
        if baseline:
            ax.axhline(1.0, color="k", ls="--", lw=1, label="Baseline (lift 1)")
        ax.set_ylabel("Cumulative lift")
        ax.legend(loc="upper right")
    ax.set_xlabel("Share of rows targeted, from the top score")
    ax.set_xlim(-0.01, 1.01)
    return ax
