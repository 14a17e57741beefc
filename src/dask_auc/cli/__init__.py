"""``dask-auc``: ROC AUC and related metrics of scored rows in Parquet or CSV files.

This package is about the command line only: it parses the options
(:mod:`.parser`), reads the files into a dask DataFrame (:mod:`.files`),
finds the positive class (:mod:`.labels`), asks the library for the metrics
(:mod:`.metrics`, all of them in one computation, so that the rows are read
and sorted once) where the options say (:mod:`.cluster`) and prints them
(:mod:`.report`); several ``--score``s give one report per model and their
paired comparison (:func:`dask_auc.compare`).  ``--state-out`` adds the
certified-AUC state of the rows to that computation and saves it; ``--states``
reports from saved states instead of data (:mod:`.states`).  It uses the library's public names.

Exit status: 0 on success; 2 for a usage error (an unknown or malformed
option, a ``--max-fpr`` outside ``(0, 1]``, an option that takes one value
given twice); 1 for a data error (a missing
file, a missing column, a label column that is not binary or holds one class
only, labels without a default positive class and no ``--pos-label``, a
``--pos-label`` the labels do not hold, NaN, infinite or text scores,
unreadable files; with ``--states``, a missing or foreign state file, states
that do not merge).  Errors are one line on stderr, ``dask-auc: error: ...``,
never a traceback, also when the local cluster's worker processes hit them
(:mod:`.errors`).  A closed stdout (``dask-auc ... | head -1``) ends the run
with status 1 and no message, as Python's signal documentation advises.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
import warnings
from collections.abc import Sequence
from typing import Any

import dask

from .. import LazyScore, UndefinedMetricWarning
from .._engine import frozen_heap
from .._grouped import MISSING_KEYS_PATTERN
from .._local_cluster import Where
from .cluster import quiet_distributed_logs, scheduler
from .errors import CLOSED_STDOUT, DATA_ERROR, INTERRUPTED, explain
from .files import read_columns
from .labels import classes, label_rows, lazy_counts, positive_last
from .metrics import (
    curves_figure,
    grouped_of,
    lazy_comparison,
    lazy_grouped,
    lazy_metrics,
    read_once,
)
from .parser import PROG, parse_args
from .report import build_report, comparison_report, models_text, text_report
from .states import lazy_state, saved_state, window_report, window_text, with_state_text

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``dask-auc`` with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    args = parse_args(argv)
    try:
        if args.states is not None:  # saved states only: no data, no cluster
            report = window_report(args.states, args.window)
        else:
            with quiet_distributed_logs(), scheduler(args.scheduler, args.workers) as where:
                report = _evaluate(args, where)
    except (ValueError, TypeError, KeyError, OSError, ImportError) as error:
        print(f"{PROG}: error: {explain(error, args)}", file=sys.stderr)
        return DATA_ERROR
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return INTERRUPTED
    if args.json:
        return _write(json.dumps(report, indent=2))
    if args.states is not None:
        return _write(window_text(report))
    if "models" in report:
        return _write(models_text(report))
    return _write(with_state_text(text_report(report), report))


def _evaluate(args: argparse.Namespace, where: Where) -> dict[str, Any]:
    """The label counts (which check the labels and find the positive class) and every
    metric (and ``--state-out``'s state): one computation, or two (:func:`_one_pass`).

    Several ``--score``s: every model's metrics, and their paired comparison
    (:func:`dask_auc.compare`), in one graph, the files read once.
    """
    frame, kind = read_columns(args.paths, _columns(args))
    start = time.perf_counter()
    one_pass = _one_pass(args)
    counts: dict[str, Any] = {}
    found: list[Any] = [None]  # one pass: the ROC's own rule picks the positive class
    if not one_pass:
        counts, found = _label_pass(frame, args, where)
    figure = curves_figure() if args.curve else None
    several = len(args.scores) > 1
    if several:
        frame = read_once(frame)
    models = [argparse.Namespace(**{**vars(args), "score": score}) for score in args.scores]
    # several models' grouped AUCs come from one exchange of the rows, below
    asked = [argparse.Namespace(**{**vars(m), "by": None}) if several else m for m in models]
    per_model = [
        lazy_metrics(frame, model, positive=found[-1], figure=figure, counted=one_pass)
        for model in asked
    ]
    lazy = {f"{i}:{name}": value for i, m in enumerate(per_model) for name, value in m.items()}
    if several:
        lazy["comparison"] = lazy_comparison(frame, args, positive=found[-1])
        if args.by is not None:
            lazy["grouped"] = lazy_grouped(frame, args, found[-1], list(args.scores))
    if args.state_out is not None:
        lazy["state"] = lazy_state(frame, args, positive=found[-1])
    if one_pass:
        metrics, warned = _counted_with(lazy, frame, args, where)
        counts = {"rows": label_rows(metrics.pop("0:labels"), metrics.pop("0:totals"))}
        per_model[0] = {n: v for n, v in per_model[0].items() if n not in ("labels", "totals")}
        found = _positive_class(counts, args)
        for caught in warned:  # the labels are good: the metrics' warnings are the run's
            warnings.warn_explicit(caught.message, caught.category, caught.filename, caught.lineno)
    else:
        metrics = _compute(lazy, where, args.quiet)
    seconds = time.perf_counter() - start
    reports = [
        build_report(
            counts,
            _model_metrics(metrics, per_model[i], i, score),
            found,
            model,
            kind,
            frame.npartitions,
            where.description,
            seconds,
        )
        for i, (score, model) in enumerate(zip(args.scores, models, strict=True))
    ]
    if figure is not None:
        figure.suptitle(f"{' '.join(args.paths)}: {reports[0]['rows']:,} rows")
        figure.savefig(args.curve, dpi=100)
    if several:
        return {"models": reports, "comparison": comparison_report(metrics["comparison"])}
    report = reports[0]
    if args.state_out is not None:
        report["state"] = saved_state(metrics["state"], args.state_out)
    if args.per_group:
        metrics["0:grouped"].per_group.to_csv(args.per_group)
    return report


def _one_pass(args: argparse.Namespace) -> bool:
    """Whether the labels are counted by the metrics' own sort, not in a pass before it.

    Without ``--pos-label`` the positive class is the greater label (of 0/1,
    -1/1 or booleans; other labels are a data error), which is the ROC's own
    rule: one unweighted score's ROC queries need not wait for the label
    counts, which the ROC gives beside them (its labels and class totals), so
    the files are read once.  The grouped AUC, the calibration metrics, the
    state, the plots' axes, the weights per label and several models'
    comparison are built on the positive class, or need a count of their own.
    """
    return (
        args.pos_label is None
        and args.weight is None
        and len(args.scores) == 1
        and not (args.calibration or args.curve)
        and args.by is None
        and args.state_out is None
    )


def _counted_with(
    lazy: dict[str, Any], frame: Any, args: argparse.Namespace, where: Where
) -> tuple[dict[str, Any], list[warnings.WarningMessage]]:
    """The metrics of ``lazy`` (with the ROC's labels and totals), computed in one pass,
    and the warnings their finishes raised, held until the labels are known to be good
    (one class: the command's error alone, as after a count pass, not the metrics' warnings).

    Labels that break a metric (more than two, missing, mixed types) are then
    counted alone, so that the error names the label column as the count
    pass of the two-pass run does (:func:`~.labels.classes`); an error the
    labels do not explain is raised as it came.
    """
    try:
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            return _compute(lazy, where, args.quiet), warned
    except (ValueError, TypeError, KeyError):
        _label_pass(frame, args, where)
        raise


def _label_pass(
    frame: Any, args: argparse.Namespace, where: Where
) -> tuple[dict[str, Any], list[Any]]:
    """The pass over the label column: its counts and ``[negative, positive]``, or a data error."""
    counts = _compute(lazy_counts(frame, args.label, args.weight), where, args.quiet)
    return counts, _positive_class(counts, args)


def _positive_class(counts: dict[str, Any], args: argparse.Namespace) -> list[Any]:
    """``[negative, positive]`` of the label counts, checked (:func:`~.labels.classes`)."""
    return positive_last(classes(counts["rows"], args.label), args.label, args.pos_label)


def _model_metrics(
    metrics: dict[str, Any], asked: dict[str, Any], i: int, score: str
) -> dict[str, Any]:
    """Model ``i``'s computed metrics (``asked`` its lazy ones), its grouped AUC included."""
    found = {name: metrics[f"{i}:{name}"] for name in asked}
    if "grouped" in metrics:  # several models' grouped AUCs, from one exchange
        found["grouped"] = grouped_of(metrics["grouped"], score)
    return found


def _columns(args: argparse.Namespace) -> dict[str, str]:
    """Role -> column name, for the columns the options name (``score``, ``score_1``, ...)."""
    scores = {f"score_{i}" if i else "score": s for i, s in enumerate(args.scores)}
    roles = {"label": args.label, **scores, "weight": args.weight, "by": args.by}
    return {role: column for role, column in roles.items() if column is not None}


def _compute(lazy: dict[str, Any], where: Where, quiet: bool) -> dict[str, Any]:
    """Compute dask objects of one kind together (progress bar on a terminal).

    A :class:`~dask_auc.LazyScore` is computed in two steps, as its own
    ``compute()`` does: its parts on the scheduler, its finalize step here, so
    plots are drawn and warnings raised in this process.
    """
    names = list(lazy)
    collections = [lazy[n].parts() if isinstance(lazy[n], LazyScore) else lazy[n] for n in names]
    show = not quiet and sys.stderr.isatty()
    if where.client is None:
        from dask.diagnostics import ProgressBar

        with ProgressBar(out=sys.stderr) if show else contextlib.nullcontext(), frozen_heap():
            results = dask.compute(*collections)
    else:
        futures = where.client.compute(collections)
        if show:
            from distributed import progress

            with contextlib.redirect_stdout(sys.stderr):
                progress(futures, multi=False)
        results = where.client.gather(futures)
    with warnings.catch_warnings():
        # one-class labels were reported from the counts; groups lacking a class are
        # NaN in the per-group table, as documented, and need no warning here
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        # rows without a group are counted in the report instead
        warnings.filterwarnings("ignore", MISSING_KEYS_PATTERN, UserWarning)
        return {
            n: lazy[n].finish(result) if isinstance(lazy[n], LazyScore) else result
            for n, result in zip(names, results, strict=True)
        }


def _write(text: str) -> int:
    """Print the report; if stdout's reader has gone (``dask-auc ... | head -1``), end quietly."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        # the signal module's "Note on SIGPIPE": stdout onto devnull, so that the flush
        # at exit cannot fail again; SIGPIPE's default action would also end us on a
        # closed scheduler socket, so it stays ignored
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return CLOSED_STDOUT
    return 0
