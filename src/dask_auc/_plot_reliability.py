"""The CORP reliability diagram, drawn: :func:`plot_reliability` (public: :mod:`dask_auc.plotting`).

One query, :func:`dask_auc.reliability_diagram` (or a ROC's ``reliability``),
gives everything drawn: the steps of the isotonic fit for the curve, their
weights for the score histogram beneath, the Brier score's decomposition for
the legend.  Every step travels to the caller: the PAV fit pools rows into
few steps (about 250 for 1e6 well-calibrated rows; their number grows like
the cube root of the rows), and the histogram needs every step's weight.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any, cast

import numpy as np

from ._docstrings import shared_docs
from ._engine import LazyScore
from ._params import AtLeast, Boolean, check_params
from ._plot_drawing import axes, drawn, given_roc, pyplot
from ._reliability import reliability_diagram
from ._roc import ReliabilityDiagram

_PARAMETERS = {"bins": AtLeast(1, none=False), "compute": Boolean()}
#: the tallest bar of the histogram reaches this height of the unit square (as R's
#: reliabilitydiag draws it: beneath the curve, its scale left out)
_HISTOGRAM_HEIGHT = 0.2


@shared_docs
def plot_reliability(
    y_true: Any,
    y_proba: Any = None,
    *,
    sample_weight: Any = None,
    name: str | None = None,
    ax: Any = None,
    bins: int = 20,
    compute: bool = True,
) -> Any:
    """Draw the CORP reliability diagram, the score histogram beneath, the decomposition named.

    The recalibrated probability (the isotonic fit of the outcomes on the
    scores, :func:`dask_auc.reliability_diagram`) against the score, flat
    over each step's scores and straight between steps; the diagonal of a
    calibrated model; a histogram of the scores beneath, its tallest bar a
    fifth of the height, as R's ``reliabilitydiag`` draws them; in the
    legend the Brier score and its miscalibration (MCB), discrimination
    (DSC) and uncertainty (UNC), ``Brier = MCB - DSC + UNC``.  One model
    per call: its histogram is drawn with it.

    Parameters
    ----------
    y_true : dask Series or Array, pandas Series, ndarray or list, or ROC
        True labels, as in :func:`dask_auc.reliability_diagram`; or a
        :class:`~dask_auc.ROC` of probabilities, which holds its scores,
        ``pos_label`` and weights: ``y_proba`` is not given.
    y_proba : same kinds as ``y_true``
        Probability of the positive class, in [0, 1].
    sample_weight : same kinds as ``y_true``, optional
        Row weights.
    name : str, optional
        The model's name in the legend (default ``"Classifier"``).
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    bins : int >= 1, default=20
        Bins of the histogram, of equal width over [0, 1].  It is drawn from
        the steps of the fit (the one computation of the diagram): each
        step's rows (or weight) are spread evenly over its scores' range, so
        a bin's bar is exact unless a step straddles its edge.
    compute : bool, default=True
        If False, return a :class:`~dask_auc.LazyScore` whose ``compute()``
        draws and returns the Axes.

    %(plot_returns)s
    >>> y = np.array([0, 0, 1, 0, 1, 1])
    >>> p = np.array([0.1, 0.3, 0.3, 0.6, 0.7, 0.9])
    >>> ax = dask_auc.plot_reliability(y, p, name="m")
    >>> for text in ax.get_legend().get_texts():
    ...     print(text.get_text())
    m
    Brier 0.1750: MCB 0.0639, DSC 0.1389, UNC 0.2500
    Perfectly calibrated
    Score histogram
    >>> ax.get_lines()[0].get_xydata().round(4)  # the steps: each flat over its scores
    array([[0.1   , 0.    ],
           [0.1   , 0.    ],
           [0.3   , 0.3333],
           [0.6   , 0.3333],
           [0.7   , 1.    ],
           [0.9   , 1.    ]])
    """
    checked = check_params("plot_reliability", _PARAMETERS, bins=bins, compute=compute)
    pyplot()  # fail before any graph is built
    if isinstance(y_true, Mapping) or isinstance(y_proba, Mapping):
        raise TypeError(
            "plot_reliability draws one model (with its score histogram): "
            "call it once per model, with the same ax"
        )
    pos_label = None
    if given_roc(y_true, {"y_proba": y_proba, "sample_weight": sample_weight}):
        lazy = cast(LazyScore, y_true.reliability(compute=False))
        pos_label = y_true.pos_label
    else:
        lazy = cast(
            LazyScore,
            reliability_diagram(y_true, y_proba, sample_weight=sample_weight, compute=False),
        )
    model = "Classifier" if name is None else name
    draw = partial(_draw_reliability, model, ax, checked["bins"], pos_label)
    return drawn("plot_reliability", [lazy], draw, checked["compute"])


def step_histogram(diagram: ReliabilityDiagram, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """``(edges, shares)``: the share of the rows (or weight) in each of ``bins`` bins of [0, 1].

    Each step's weight is spread evenly over ``[low, high]``; a step of one
    score falls in its bin (the right one at an edge, the last bin holding 1).

    Examples
    --------
    >>> diagram = ReliabilityDiagram(
    ...     low=np.array([0.1, 0.25]), high=np.array([0.1, 0.75]), recalibrated=np.array([0, 1.0]),
    ...     weight=np.array([1, 3]), brier=None, log_score=None, mean_score=0.0, mean_outcome=0.0)
    >>> step_histogram(diagram, 4)[1].tolist()  # 0.1 in the first bin, [0.25, 0.75] spread
    [0.25, 0.375, 0.375, 0.0]
    """
    edges = np.linspace(0.0, 1.0, bins + 1)
    low, high = diagram.low[:, None], diagram.high[:, None]
    width = high - low
    # the share of each step's rows below each edge
    spread = np.clip((edges - low) / np.where(width > 0, width, 1.0), 0.0, 1.0)
    below = np.where(width > 0, spread, low < edges)
    below[:, -1] = 1.0  # the last bin is closed: it holds the scores of 1
    weight = np.asarray(diagram.weight, dtype=float)
    cumulative = weight @ below
    return edges, np.diff(cumulative) / weight.sum()


def _draw_reliability(
    model: str, ax: Any, bins: int, pos_label: Any, diagram: ReliabilityDiagram
) -> Any:
    ax = axes(ax)
    brier = diagram.brier
    # two lines: one would be wider than a small axes
    label = (
        f"{model}\nBrier {brier.score:.4f}: MCB {brier.miscalibration:.4f}, "
        f"DSC {brier.discrimination:.4f}, UNC {brier.uncertainty:.4f}"
    )
    # each step flat from its lowest to its highest score, straight lines between steps
    ax.plot(
        np.column_stack((diagram.low, diagram.high)).ravel(),
        np.repeat(diagram.recalibrated, 2),
        label=label,
    )
    ax.plot([0, 1], [0, 1], "k--", lw=1, label="Perfectly calibrated")
    edges, shares = step_histogram(diagram, bins)
    tallest = shares.max()
    heights = shares * (_HISTOGRAM_HEIGHT / tallest) if tallest > 0 else shares
    ax.bar(
        edges[:-1],
        heights,
        width=np.diff(edges),
        align="edge",
        color="0.75",
        edgecolor="0.5",
        lw=0.5,
        zorder=0.5,  # beneath the curve and the diagonal
        label="Score histogram",
    )
    suffix = "" if pos_label is None else f" (Positive label: {pos_label})"
    ax.set_xlabel("Predicted probability" + suffix)
    ax.set_ylabel("Recalibrated probability (isotonic fit)" + suffix)
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.01)
    ax.set_aspect("equal")
    ax.legend(loc="best")
    return ax
