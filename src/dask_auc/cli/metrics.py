"""What ``dask-auc`` computes: every requested metric and plot, lazy, to compute in one pass.

Every number and plot of the one input comes from one :func:`dask_auc.roc`
with the chosen positive class: one sort, whatever is asked.  The options
choose the entries: ``--max-fpr`` a partial AUC, ``--threshold-at`` and
``--best`` operating points, ``--gains`` the gains table, ``--calibration``
the calibration metrics (and the CORP decomposition, a query of the same
sort), ``--by`` the grouped AUC, ``--curve`` the plots.  Several ``--score``s:
these per model, and their comparison (:func:`lazy_comparison`).
"""

from __future__ import annotations

import argparse
from typing import Any

import dask.dataframe as dd

from .. import (
    GroupedAUC,
    LazyScore,
    brier_score_loss,
    compare,
    grouped_roc_auc_score,
    log_loss,
    normalized_entropy,
    plot_precision_recall,
    plot_roc,
    roc,
)
from ..plotting import PLOT_EXTRA_MESSAGE

#: the calibration columns ``--calibration`` adds to the grouped AUC's table
GROUP_CALIBRATION = ("log_loss", "brier", "normalized_entropy", "calibration")


def lazy_metrics(
    frame: dd.DataFrame,
    args: argparse.Namespace,
    positive: Any,
    figure: Any,
    counted: bool = False,
) -> dict[str, LazyScore]:
    """Every requested metric (and plot) as a lazy :class:`~dask_auc.LazyScore`, by name.

    The grouped AUC (its own hash exchange) sees a boolean target,
    ``label == positive``.  ``counted``: also the ROC's labels and class
    totals (``labels``, ``totals``), the label counts of a run in one pass.
    """
    score = frame[args.score]
    weight = None if args.weight is None else frame[args.weight]
    curve = roc(frame[args.label], score, pos_label=positive, sample_weight=weight)
    lazy: dict[str, Any] = {
        "roc_auc": curve.auc(compute=False),
        "average_precision": curve.average_precision(compute=False),
        "ks": curve.ks(compute=False),
    }
    if counted:
        lazy["labels"] = curve.labels(compute=False)
        lazy["totals"] = curve.totals(compute=False)
    for name, rate in args.threshold_at:
        lazy[f"threshold_at:{name}={rate:g}"] = curve.operating_point(compute=False, **{name: rate})
    for criterion in args.best:
        lazy[f"best:{criterion}"] = curve.operating_point(criterion=criterion, compute=False)
    if args.gains is not None:
        lazy["gains"] = curve.gains_table(n_bins=args.gains, compute=False)
    if args.max_fpr is not None:
        lazy["partial_auc"] = curve.auc(max_fpr=args.max_fpr, compute=False)
    if args.calibration:
        hit = frame[args.label] == positive
        both = [False, True]  # a file of one class still has a log loss
        lazy["log_loss"] = log_loss(hit, score, sample_weight=weight, labels=both, compute=False)
        lazy["brier_score"] = brier_score_loss(
            hit, score, sample_weight=weight, pos_label=True, compute=False
        )
        lazy["normalized_entropy"] = normalized_entropy(
            hit, score, sample_weight=weight, labels=both, compute=False
        )
        # after the three above: probabilities outside [0, 1] keep their messages
        lazy["reliability"] = curve.reliability(compute=False)
    if args.by is not None:
        lazy["grouped"] = lazy_grouped(frame, args, positive, args.score)
    if figure is not None:  # the ROC's pos_label names the class on the axes
        roc_axes, precision_recall_axes = figure.axes
        for name, plot, ax in (
            ("roc_plot", plot_roc, roc_axes),
            ("precision_recall_plot", plot_precision_recall, precision_recall_axes),
        ):
            lazy[name] = plot(curve, name=args.score, ax=ax, compute=False)
    return lazy


def lazy_grouped(
    frame: dd.DataFrame, args: argparse.Namespace, positive: Any, score: str | list[str]
) -> LazyScore:
    """The grouped AUC of ``score`` (a list: every model's, from one hash exchange).

    It sees a boolean target, ``label == positive``.
    """
    hits = _unused_name(frame.columns, "positive")
    frame = frame.assign(**{hits: frame[args.label] == positive})
    return grouped_roc_auc_score(  # type: ignore[return-value]  # compute=False: a LazyScore
        frame,
        by=args.by,
        label=hits,
        score=score,
        sample_weight=args.weight,
        metrics=GROUP_CALIBRATION if args.calibration else (),
        compute=False,
    )


def grouped_of(grouped: GroupedAUC, score: str) -> GroupedAUC:
    """One model's grouped AUC from the result of several score columns."""
    return GroupedAUC(
        grouped.per_group[score],
        float(grouped.gauc[score]),  # type: ignore[index]  # several scores: a Series
        grouped.rows_without_group,
        grouped.overall[score],
    )


def lazy_comparison(frame: dd.DataFrame, args: argparse.Namespace, positive: Any) -> LazyScore:
    """The models' paired comparison against the first ``--score``: DeLong's test of the AUC.

    With ``--weight``, the paired bootstrap's (DeLong's is of unweighted rows):
    2000 replicates, seed 0, so that a run repeats its numbers.
    """
    weight = None if args.weight is None else frame[args.weight]
    return compare(  # type: ignore[return-value]  # compute=False: a LazyScore
        frame[args.label],
        {score: frame[score] for score in args.scores},
        pos_label=positive,
        sample_weight=weight,
        test="delong" if weight is None else "bootstrap",
        random_state=0,
        compute=False,
    )


def read_once(frame: dd.DataFrame) -> dd.DataFrame:
    """``frame`` with each partition read by one task, whatever reads its columns.

    Each model's sort maps over its columns; dask fuses the read of a file into
    the task that maps it, which would read the files once per model.
    """
    return dd.from_delayed(frame.to_delayed(), meta=frame._meta, verify_meta=False)


def _unused_name(columns: Any, name: str) -> str:
    """``name``, with underscores added until no column of the frame has it."""
    while name in columns:
        name = f"_{name}_"
    return name


def curves_figure() -> Any:
    """The two-panel matplotlib Figure of ``--curve`` (no pyplot: no GUI backend is needed)."""
    try:
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError(PLOT_EXTRA_MESSAGE) from error
    figure = Figure(figsize=(12, 6), layout="constrained")
    figure.subplots(1, 2)
    return figure
