"""``dask-auc``: ROC AUC and related metrics of scored rows in Parquet or CSV files.

This module is about the command line only: it parses the options, reads the
files into a dask DataFrame, asks the library for the metrics (all of them in
one computation, so that the rows are read and sorted once) and prints them.

The positive class is ``--pos-label`` (read as the label column's type:
``1``, ``clicked``, ``true``), or without it the greater label when the labels
are 0/1, -1/1 or booleans, scikit-learn's default for its curves; other labels
are a data error rather than a silent guess.

Exit status: 0 on success; 2 for a usage error (an unknown or malformed
option, a ``--max-fpr`` outside ``(0, 1]``, an option that takes one value
given twice); 1 for a data error (a missing
file, a missing column, a label column that is not binary or holds one class
only, labels without a default positive class and no ``--pos-label``, a
``--pos-label`` the labels do not hold, NaN, infinite or text scores,
unreadable files).  Errors are one line on stderr, ``dask-auc: error: ...``,
never a traceback, also when the local cluster's worker processes hit them.
A closed stdout (``dask-auc ... | head -1``) ends the run with status 1 and
no message, as Python's signal documentation advises.

Examples
--------
>>> _parser().parse_args(["scores/", "--label", "y", "--score", "p"]).max_fpr is None
True
>>> _positive_last(["clicked", "not"], "y", "clicked")
['not', 'clicked']
>>> _names_label("True", True), _names_label("1.0", 1), _names_label("1", "1.0")
(True, True, False)
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import logging
import math
import numbers
import os
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import dask
import dask.dataframe as dd
import pandas as pd

from . import __version__
from ._calibration import brier_score_loss, log_loss, normalized_entropy
from ._engine import LazyScore
from ._grouped import MISSING_KEYS_PATTERN, GroupedAUC, grouped_roc_auc_score
from ._kernels.core.validation import MULTICLASS_MESSAGE, UndefinedMetricWarning
from ._params import Interval, check_params
from ._roc import OperatingPoint, roc
from .plotting import PLOT_EXTRA_MESSAGE, plot_precision_recall, plot_roc

PROG = "dask-auc"
USAGE_ERROR = 2
DATA_ERROR = 1
CLOSED_STDOUT = 1  # as the signal module docs' recipe for a reader that has gone
_LOCAL_SCHEDULERS = ("threads", "synchronous")
_GLOB_CHARACTERS = "*?["
#: the files of a directory dask reads as Parquet (its default ``parquet_file_extension``;
#: names starting with "." or "_" are skipped, as pyarrow's dataset discovery does)
_PARQUET_EXTENSIONS = (".parq", ".parquet", ".pq")
_HIDDEN = (".", "_")
#: how many column names an error message lists
_COLUMNS_SHOWN = 20
_RATES = ("fpr", "tpr", "precision", "recall")
_CRITERIA = ("youden", "f1", "closest_topleft")
#: how the summary names each rate target
_RATE_RULES = {"fpr": "FPR <=", "tpr": "TPR >=", "precision": "precision >=", "recall": "recall >="}
#: the gains table's columns the text summary prints (--json has them all)
_GAINS_SHOWN = (
    "lower_threshold",
    "rows",
    "positives",
    "response_rate",
    "lift",
    "cumulative_lift",
    "cumulative_capture_rate",
    "cumulative_gain",
    "kolmogorov_smirnov",
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``dask-auc`` with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.per_group and not args.by:
        parser.error("--per-group needs --by")
    try:
        with _quiet_distributed_logs(), _scheduler(args) as where:
            report = _evaluate(args, where)
    except (ValueError, TypeError, KeyError, OSError, ImportError) as error:
        print(f"{PROG}: error: {_explain(error, args)}", file=sys.stderr)
        return DATA_ERROR
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    return _write(json.dumps(report, indent=2) if args.json else _table(report))


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


class _Once(argparse.Action):
    """Store an option's one value; a second is a usage error (``store`` keeps the last)."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        # every such option's default is None, and no given value converts to None
        earlier = getattr(namespace, self.dest, None)
        if earlier is not None:
            hint = _ONCE_HINTS.get(self.dest, "it takes one value")
            message = f"given more than once ({earlier!r}, then {values!r}): {hint}"
            raise argparse.ArgumentError(self, message)
        setattr(namespace, self.dest, values)


_ONCE_HINTS = {
    "score": "models are evaluated one at a time for now; run dask-auc once per score column"
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Exact ROC AUC, partial AUC, average precision (and grouped AUC) "
        "of scored rows in Parquet or CSV files, computed in parallel with Dask.",
        epilog="Exit status: 0 success, 1 data error (missing file or column, labels "
        "not binary or without --pos-label, NaN scores) or closed stdout, 2 usage error.",
    )
    # every option without an action of its own stores one value and refuses a second
    parser.register("action", None, _Once)
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="Parquet or CSV files, directories or globs (the format comes from the "
        "extension; a directory holding .csv files is read as CSV, otherwise as "
        "Parquet); fsspec URLs such as s3://bucket/scores/ are passed to dask",
    )
    parser.add_argument("--label", required=True, metavar="COL", help="binary label column")
    parser.add_argument(
        "--pos-label",
        metavar="VALUE",
        help="the label value of the positive class, read as the label column's type "
        "(1, clicked, true); needed unless the labels are 0/1, -1/1 or booleans",
    )
    parser.add_argument("--score", required=True, metavar="COL", help="score column (one model)")
    parser.add_argument("--weight", metavar="COL", help="sample weight column (optional)")
    parser.add_argument("--by", metavar="COL", help="group column: also report grouped AUC (GAUC)")
    parser.add_argument(
        "--per-group", metavar="OUT.csv", help="with --by: write the per-group table as CSV"
    )
    parser.add_argument(
        "--max-fpr",
        type=_max_fpr,
        metavar="X",
        help="also report the McClish-standardised partial AUC over FPR <= X, X in (0, 1]",
    )
    parser.add_argument(
        "--threshold-at",
        type=_rate_target,
        action="append",
        default=[],
        metavar="NAME=X",
        help="also report the best threshold for a target rate: fpr=X (the highest TPR "
        "with FPR <= X), tpr=X (the lowest FPR with TPR >= X), precision=X (the highest "
        "recall with precision >= X) or recall=X (the highest precision with recall >= X); "
        "repeatable",
    )
    parser.add_argument(
        "--best",
        choices=_CRITERIA,
        action="append",
        default=[],
        help="also report the threshold that maximises Youden's J (TPR - FPR), F1, or is "
        "closest to the top-left corner of the ROC plot; repeatable",
    )
    parser.add_argument(
        "--gains",
        type=_positive_int,
        metavar="N",
        help="also print the gains (lift) table of N score quantile bins (10: deciles)",
    )
    parser.add_argument(
        "--calibration",
        action="store_true",
        help="also report log loss, Brier score and normalized entropy, the score read as "
        "the positive class's probability (in [0, 1]); with --by also per group (their "
        "quantiles, the --per-group table's columns) and the calibration sum(p) / sum(y)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--curve", metavar="OUT.png", help="write the ROC and precision-recall curves"
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="address of a running dask scheduler (e.g. tcp://10.0.0.5:8786), or "
        "'threads' to run in this process; default: a local cluster of worker "
        "processes sized to the machine",
    )
    parser.add_argument(
        "--workers",
        type=_positive_int,
        metavar="N",
        help="worker processes of the local cluster (default: sized to the machine)",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress bar (shown only on a terminal)"
    )
    return parser


def _max_fpr(text: str) -> float:
    try:
        limits = {"max_fpr": Interval(0, 1, closed="right")}
        return check_params(PROG, limits, max_fpr=float(text))["max_fpr"]
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], got {text!r}") from None


def _rate_target(text: str) -> tuple[str, float]:
    """``NAME=X`` of ``--threshold-at``: a rate name and a number in [0, 1]."""
    name, _, value = text.partition("=")
    try:
        rate = float(value)
    except ValueError:
        rate = math.nan
    if name not in _RATES or not 0 <= rate <= 1:
        raise argparse.ArgumentTypeError(
            f"must be NAME=X with NAME one of {', '.join(_RATES)} and X in [0, 1], got {text!r}"
        )
    return name, rate


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


@dataclass(frozen=True)
class _Where:
    """Where the computation runs: a distributed client, or dask's threads."""

    client: Any
    description: str


@contextlib.contextmanager
def _scheduler(args: argparse.Namespace) -> Iterator[_Where]:
    if args.scheduler in _LOCAL_SCHEDULERS:
        with dask.config.set(scheduler=args.scheduler):
            yield _Where(None, f"this process ({args.scheduler})")
    elif args.scheduler is not None:
        from distributed import Client

        with Client(args.scheduler) as client:
            yield _Where(client, f"the cluster at {args.scheduler}")
    else:
        with local_cluster(args.workers) as where:
            yield where


@contextlib.contextmanager
def local_cluster(workers: int | None = None) -> Iterator[_Where]:
    """A client of a new local cluster of worker processes (default: sized to the machine)."""
    from distributed import Client, LocalCluster

    sizing: dict[str, int] = {}
    if workers is not None:
        cpus = os.cpu_count() or 1
        sizing = {"n_workers": workers, "threads_per_worker": max(1, cpus // workers)}
    # ":0": any free port for the scheduler's web server; 8787 may be taken.
    # silence_logs: each worker process logs a failed task ("Compute Failed" and its
    # traceback) to this terminal, before the client re-raises it as our one-line error
    with (
        LocalCluster(
            processes=True, dashboard_address=":0", silence_logs=logging.CRITICAL, **sizing
        ) as cluster,
        Client(cluster) as client,
    ):
        found = client.scheduler_info()["workers"].values()
        threads = sum(w["nthreads"] for w in found)
        yield _Where(client, f"a local cluster (workers: {len(found)}, threads: {threads})")


@contextlib.contextmanager
def _quiet_distributed_logs() -> Iterator[None]:
    """Keep distributed's start-up and shutdown chatter off the user's terminal."""
    with dask.config.set({"logging.distributed": "error"}):
        logger = logging.getLogger("distributed")
        level = logger.level
        logger.setLevel(logging.ERROR)
        try:
            yield
        finally:
            logger.setLevel(level)


def _evaluate(args: argparse.Namespace, where: _Where) -> dict[str, Any]:
    """Two computations: the label counts (a pass over the label column, which also
    finds the positive class), then every metric in one graph."""
    frame, kind = _read(args.paths, _columns(args))
    start = time.perf_counter()
    counts = _compute(_lazy_counts(frame, args), where, args.quiet)
    classes = _positive_last(_classes(counts["rows"], args.label), args.label, args.pos_label)
    figure = _figure() if args.curve else None
    lazy = _lazy_metrics(frame, args, positive=classes[-1], figure=figure)
    metrics = _compute(lazy, where, args.quiet)
    seconds = time.perf_counter() - start
    report = _report(counts, metrics, classes, args, kind, frame.npartitions, where, seconds)
    if args.per_group:
        metrics["grouped"].per_group.to_csv(args.per_group)
    if figure is not None:
        figure.suptitle(f"{' '.join(args.paths)}: {report['rows']:,} rows")
        figure.savefig(args.curve, dpi=100)
    return report


def _columns(args: argparse.Namespace) -> dict[str, str]:
    """Role -> column name, for the columns the options name."""
    roles = {"label": args.label, "score": args.score, "weight": args.weight, "by": args.by}
    return {role: column for role, column in roles.items() if column is not None}


def _read(paths: Sequence[str], columns: dict[str, str]) -> tuple[dd.DataFrame, str]:
    """The named columns of the files, and their format ('csv' or 'parquet')."""
    kinds = {_file_kind(path) for path in paths}
    if len(kinds) > 1:
        raise ValueError(f"cannot mix Parquet and CSV inputs: {' '.join(paths)}")
    (kind,) = kinds
    targets = [_existing(path, kind) for path in paths]
    _check_file_columns(targets, kind, list(dict.fromkeys(columns.values())), paths)
    if kind == "csv":
        numeric = {columns[r]: "float64" for r in ("score", "weight") if r in columns}
        frame = dd.read_csv(targets, dtype=numeric)
    else:
        frame = dd.read_parquet(targets)
    missing = [c for c in dict.fromkeys(columns.values()) if c not in frame.columns]
    if missing:
        available = ", ".join(map(str, frame.columns))
        raise ValueError(
            f"column {missing[0]!r} not found in {' '.join(paths)}; available columns: {available}"
        )
    frame = frame[list(dict.fromkeys(columns.values()))]
    return frame, kind


def _file_kind(path: str) -> str:
    """'csv' or 'parquet', from the extension (or a local directory's files)."""
    name = path.rstrip("/").lower()
    for suffix in (".gz", ".bz2", ".xz", ".zst"):
        name = name.removesuffix(suffix)
    if name.endswith((".csv", ".tsv", ".txt")):
        return "csv"
    if os.path.isdir(path) and glob.glob(os.path.join(path, "*.csv*")):
        return "csv"
    return "parquet"


def _existing(path: str, kind: str) -> str:
    """``path`` as dask should read it; FileNotFoundError for a missing local path."""
    if "://" in path:  # fsspec URL: the filesystem package checks it
        return path
    if any(c in path for c in _GLOB_CHARACTERS):
        if not glob.glob(path):
            raise FileNotFoundError(f"no files match {path!r}")
        return path
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file or directory: {path!r}")
    if kind == "csv" and os.path.isdir(path):
        return os.path.join(path, "*.csv*")
    if os.path.isdir(path) and not _parquet_files(path)[0]:
        raise FileNotFoundError(
            f"no Parquet or CSV files found in {path!r} (Parquet files end in "
            f"{', '.join(_PARQUET_EXTENSIONS)}; CSV files in .csv)"
        )
    return path


def _parquet_files(directory: str) -> tuple[list[str], set[str]]:
    """The Parquet files dask reads in a local directory, and its hive partition columns.

    A ``key=value`` directory level is a column of its files' rows that the
    files themselves do not hold.
    """
    files: list[str] = []
    partitions: set[str] = set()
    for root, directories, names in os.walk(directory):
        directories[:] = sorted(d for d in directories if not d.startswith(_HIDDEN))
        partitions.update(d.partition("=")[0] for d in directories if "=" in d)
        files.extend(
            os.path.join(root, name)
            for name in sorted(names)
            if not name.startswith(_HIDDEN) and name.endswith(_PARQUET_EXTENSIONS)
        )
    return files, partitions


def _local_files(targets: Sequence[str], kind: str) -> tuple[list[str], set[str]]:
    """The local files behind ``targets`` (fsspec URLs left out), and partition columns."""
    files: list[str] = []
    partitions: set[str] = set()
    for target in targets:
        if "://" in target:
            continue
        matched = (
            sorted(glob.glob(target)) if any(c in target for c in _GLOB_CHARACTERS) else [target]
        )
        for path in matched:
            if kind == "parquet" and os.path.isdir(path):
                found, levels = _parquet_files(path)
                files.extend(found)
                partitions |= levels
            elif os.path.isfile(path):
                files.append(path)
    return files, partitions


def _file_columns(path: str, kind: str) -> list[str]:
    """The column names of one file: a Parquet footer's schema, or a CSV header line."""
    try:
        if kind == "csv":
            # the header only, read with dd.read_csv's defaults (compression from the name)
            return [str(name) for name in pd.read_csv(path, nrows=0).columns]
        import pyarrow.parquet as pq

        return list(pq.read_schema(path).names)
    except (ValueError, OSError) as error:  # pyarrow's ArrowInvalid is a ValueError
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(f"cannot read the columns of {path}: {reason}") from error


def _check_file_columns(
    targets: Sequence[str], kind: str, wanted: list[str], paths: Sequence[str]
) -> None:
    """Check every local file holds the wanted columns, from its schema or header alone.

    dask reads the columns of the first file only; a later file lacking one
    would fail in a task, mid-computation.  A column no file holds is left to
    :func:`_read`'s message on the whole input (a typo in an option).
    """
    files, partitions = _local_files(targets, kind)
    lacking: dict[str, tuple[str, list[str]]] = {}  # column -> first file without it
    holding: dict[str, int] = dict.fromkeys(wanted, 0)
    for path in files:
        names = _file_columns(path, kind)
        for column in wanted:
            if column in names or column in partitions:
                holding[column] += 1
            else:
                lacking.setdefault(column, (path, names))
    for column, (path, names) in lacking.items():
        if holding[column]:
            shown = ", ".join(names[:_COLUMNS_SHOWN]) + (
                ", ..." if len(names) > _COLUMNS_SHOWN else ""
            )
            raise ValueError(
                f"column {column!r} not found in {path} ({holding[column]:,} of "
                f"{len(files):,} files in {' '.join(paths)} have it); its columns: {shown}"
            )


def _lazy_counts(frame: dd.DataFrame, args: argparse.Namespace) -> dict[str, Any]:
    """Rows per label value (missing labels included), and weight per label value."""
    lazy = {"rows": frame[args.label].value_counts(dropna=False)}
    if args.weight is not None:
        lazy["weights"] = frame.groupby(args.label)[args.weight].sum()
    return lazy


def _classes(rows: Any, label: str) -> list[Any]:
    """The two label values, ascending, or a data error."""
    values = rows.index.tolist()
    missing = [v for v in values if v is None or v != v]
    if missing:
        raise ValueError(
            f"label column {label!r} has {int(rows[rows.index.isna()].sum()):,} missing values"
        )
    try:
        classes = sorted(values)
    except TypeError:
        raise ValueError(f"label column {label!r} mixes strings and numbers") from None
    if len(classes) > 2:
        shown = ", ".join(map(repr, map(_plain, classes[:5]))) + (
            ", ..." if len(classes) > 5 else ""
        )
        raise ValueError(
            f"label column {label!r} is not binary: it holds {len(classes):,} values ({shown})"
        )
    if len(classes) < 2:
        found = f"one class only ({_plain(classes[0])!r})" if classes else "no rows"
        raise ValueError(f"label column {label!r} holds {found}: the ROC AUC is not defined")
    return classes


def _positive_last(classes: list[Any], label: str, pos_label: str | None) -> list[Any]:
    """``[negative, positive]``: the value ``--pos-label`` names, or without it the
    greater label where scikit-learn's curves have a default (0/1, -1/1, booleans).

    Other labels (strings, 1/2) need ``--pos-label``: taking the greater one, as
    ``roc_auc_score`` does, would silently turn "clicked"/"not" into ``1 - AUC``.
    """
    held = " and ".join(repr(_plain(value)) for value in classes)
    if pos_label is None:
        if set(classes) in ({0, 1}, {-1, 1}):  # False == 0 and True == 1: booleans too
            return classes
        raise ValueError(
            f"label column {label!r} holds {held}: pass --pos-label with the positive one "
            "(only 0/1, -1/1 and boolean labels have a default)"
        )
    for index, value in enumerate(classes):
        if _names_label(pos_label, value):
            return [classes[1 - index], value]
    raise ValueError(
        f"--pos-label {pos_label!r} is not a value of label column {label!r}, which holds {held}"
    )


def _names_label(text: str, value: Any) -> bool:
    """Whether the command-line text ``text`` is the label ``value``, read as its type."""
    value = _plain(value)
    if isinstance(value, bool):  # before numbers: bool is an int
        return text.lower() in (("true", "1") if value else ("false", "0"))
    if isinstance(value, numbers.Real):  # "1" and "1.0" both name 1 (and 1.0)
        try:
            return _number(text) == value
        except ValueError:
            return False
    return text == str(value)


def _number(text: str) -> float:
    """``text`` as an int when it is one (exact for int64 labels), else as a float."""
    try:
        return int(text)
    except ValueError:
        return float(text)


def _lazy_metrics(
    frame: dd.DataFrame, args: argparse.Namespace, positive: Any, figure: Any
) -> dict[str, LazyScore]:
    """Every requested metric (and plot) as a lazy :class:`LazyScore`, to compute together.

    Every number and plot of the one input comes from one :func:`dask_auc.roc`
    with ``pos_label=positive``: one sort, whatever is asked.  The grouped AUC
    (its own hash exchange) sees a boolean target, ``label == positive``.
    """
    score = frame[args.score]
    weight = None if args.weight is None else frame[args.weight]
    curve = roc(frame[args.label], score, pos_label=positive, sample_weight=weight)
    lazy: dict[str, Any] = {
        "roc_auc": curve.auc(compute=False),
        "average_precision": curve.average_precision(compute=False),
        "ks": curve.ks(compute=False),
    }
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
    if args.by is not None:
        hits = _unused_name(frame.columns, "positive")
        frame = frame.assign(**{hits: frame[args.label] == positive})
        lazy["grouped"] = grouped_roc_auc_score(
            frame,
            by=args.by,
            label=hits,
            score=args.score,
            sample_weight=args.weight,
            metrics=_GROUP_CALIBRATION if args.calibration else (),
            compute=False,
        )
    if figure is not None:  # the ROC's pos_label names the class on the axes
        roc_axes, precision_recall_axes = figure.axes
        for name, plot, ax in (
            ("roc_plot", plot_roc, roc_axes),
            ("precision_recall_plot", plot_precision_recall, precision_recall_axes),
        ):
            lazy[name] = plot(curve, name=args.score, ax=ax, compute=False)
    return lazy


#: the calibration columns ``--calibration`` adds to the grouped AUC's table
_GROUP_CALIBRATION = ("log_loss", "brier", "normalized_entropy", "calibration")


def _unused_name(columns: Any, name: str) -> str:
    """``name``, with underscores added until no column of the frame has it."""
    while name in columns:
        name = f"_{name}_"
    return name


def _figure() -> Any:
    """A two-panel matplotlib Figure (no pyplot: no GUI backend is needed)."""
    try:
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError(PLOT_EXTRA_MESSAGE) from error
    figure = Figure(figsize=(12, 6), layout="constrained")
    figure.subplots(1, 2)
    return figure


def _compute(lazy: dict[str, Any], where: _Where, quiet: bool) -> dict[str, Any]:
    """Compute dask objects of one kind together (progress bar on a terminal).

    A :class:`LazyScore` is computed in two steps, as its own ``compute()``
    does: its parts on the scheduler, its finalize step here, so plots are
    drawn and warnings raised in this process.
    """
    names = list(lazy)
    collections = [lazy[n].parts() if isinstance(lazy[n], LazyScore) else lazy[n] for n in names]
    show = not quiet and sys.stderr.isatty()
    if where.client is None:
        from dask.diagnostics import ProgressBar

        with ProgressBar(out=sys.stderr) if show else contextlib.nullcontext():
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


def _report(
    counts: dict[str, Any],
    metrics: dict[str, Any],
    classes: list[Any],
    args: argparse.Namespace,
    kind: str,
    partitions: int,
    where: _Where,
    seconds: float,
) -> dict[str, Any]:
    negative, positive = classes
    rows = counts["rows"]
    report: dict[str, Any] = {
        "paths": list(args.paths),
        "format": kind,
        "partitions": partitions,
        "label": args.label,
        "score": args.score,
        "weight": args.weight,
        "pos_label": args.pos_label,
        "positive_class": _plain(positive),
        "negative_class": _plain(negative),
        "rows": int(rows.sum()),
        "positives": int(rows[positive]),
        "negatives": int(rows[negative]),
    }
    if "weights" in counts:
        report["positive_weight"] = float(counts["weights"][positive])
        report["negative_weight"] = float(counts["weights"][negative])
    report["roc_auc"] = metrics["roc_auc"]
    if args.max_fpr is not None:
        report["max_fpr"] = args.max_fpr
        report["partial_auc"] = metrics["partial_auc"]
    report["average_precision"] = metrics["average_precision"]
    report["gini"] = 2 * metrics["roc_auc"] - 1
    report["ks"] = metrics["ks"].statistic
    report["ks_threshold"] = _plain(metrics["ks"].threshold)
    points = [
        _point_report(name, point)
        for name, point in metrics.items()
        if name.startswith(("threshold_at:", "best:"))
    ]
    if points:
        report["operating_points"] = points
    if args.calibration:
        for name in ("log_loss", "brier_score", "normalized_entropy"):
            report[name] = metrics[name]
    if "gains" in metrics:
        table = metrics["gains"].reset_index()
        report["gains"] = [
            {column: _plain(value) for column, value in row.items()}
            for row in table.to_dict(orient="records")
        ]
    if args.by is not None:
        report.update(_group_summary(metrics["grouped"], args.by, args.weight))
    report["seconds"] = round(seconds, 3)
    report["ran_on"] = where.description
    return report


def _point_report(name: str, point: OperatingPoint) -> dict[str, Any]:
    """One operating point: its target (``fpr=0.01``, ``best=youden``) and its fields."""
    kind, _, target = name.partition(":")
    shown = f"best={target}" if kind == "best" else target
    return {"target": shown, **{field: _plain(value) for field, value in point._asdict().items()}}


def _quantiles(values: pd.Series) -> dict[str, float]:
    return {
        name: float(values.quantile(q)) if len(values) else float("nan")
        for name, q in (("min", 0.0), ("25%", 0.25), ("median", 0.5), ("75%", 0.75), ("max", 1.0))
    }


def _group_calibration(grouped: GroupedAUC) -> dict[str, Any]:
    """The calibration of the rows with a group, and quantiles of the per-group columns."""
    table = grouped.per_group
    return {
        "calibration": grouped.overall["calibration"],
        "group_quantiles": {
            name: _quantiles(table[name].dropna()) for name in _GROUP_CALIBRATION if name in table
        },
    }


def _group_summary(grouped: GroupedAUC, by: str, weight: str | None) -> dict[str, Any]:
    auc = grouped.per_group["auc"].dropna()
    calibration = {"group_calibration": _group_calibration(grouped)} if grouped.overall else {}
    return {
        "by": by,
        "gauc": grouped.gauc,
        # gauc_weight="rows" weighs a group by its rows, or with sample weights by their sum
        "gauc_weight": "rows" if weight is None else "sample_weight",
        "groups": len(grouped.per_group),
        "groups_with_both_classes": len(auc),
        # left out of every group: a missing (NaN, empty) key
        "rows_without_group": grouped.rows_without_group,
        "group_auc_quantiles": {
            name: float(auc.quantile(q)) if len(auc) else float("nan")
            for name, q in (
                ("min", 0.0),
                ("25%", 0.25),
                ("median", 0.5),
                ("75%", 0.75),
                ("max", 1.0),
            )
        },
        **calibration,
    }


def _plain(value: Any) -> Any:
    """A NumPy scalar as the Python value JSON can hold."""
    return value.item() if hasattr(value, "item") else value


def _table(report: dict[str, Any]) -> str:
    """The report as aligned ``name  value`` lines."""
    rows = [
        ("rows", f"{report['rows']:,}"),
        (f"positives (label {report['positive_class']!r})", f"{report['positives']:,}"),
        (f"negatives (label {report['negative_class']!r})", f"{report['negatives']:,}"),
    ]
    if "positive_weight" in report:
        rows.append(("positive weight", f"{report['positive_weight']:,.6g}"))
        rows.append(("negative weight", f"{report['negative_weight']:,.6g}"))
    rows.append(("ROC AUC", f"{report['roc_auc']:.10f}"))
    if "partial_auc" in report:
        name = f"partial AUC (max_fpr={report['max_fpr']:g})"
        rows.append((name, f"{report['partial_auc']:.10f}"))
    rows.append(("average precision", f"{report['average_precision']:.10f}"))
    rows.append(("Gini (2 AUC - 1)", f"{report['gini']:.10f}"))
    ks_at = _score_text(report["ks_threshold"])
    rows.append(("KS statistic", f"{report['ks']:.10f} (at score >= {ks_at})"))
    for point in report.get("operating_points", []):
        rows.append(_point_line(point))
    if "log_loss" in report:
        rows.append(("log loss", f"{report['log_loss']:.10f}"))
        rows.append(("Brier score", f"{report['brier_score']:.10f}"))
        rows.append(("normalized entropy", f"{report['normalized_entropy']:.10f}"))
    if "gauc" in report:
        rows.append((f"groups ({report['by']})", f"{report['groups']:,}"))
        rows.append(("  with both classes", f"{report['groups_with_both_classes']:,}"))
        rows.append(("  rows without a group (no key)", f"{report['rows_without_group']:,}"))
        weighting = "rows" if report["gauc_weight"] == "rows" else f"summed {report['weight']!r}"
        rows.append((f"  GAUC (groups weighted by {weighting})", f"{report['gauc']:.10f}"))
        quantiles = report["group_auc_quantiles"]
        shown = "  ".join(f"{name} {value:.4f}" for name, value in quantiles.items())
        rows.append(("  group AUC", shown))
        if "group_calibration" in report:
            calibration = report["group_calibration"]
            rows.append(("  calibration (sum p / sum y)", f"{calibration['calibration']:.10f}"))
            for name, quantiles in calibration["group_quantiles"].items():
                shown = "  ".join(f"{q} {value:.4f}" for q, value in quantiles.items())
                rows.append((f"  group {name.replace('_', ' ')}", shown))
    rows.append(("time", f"{report['seconds']:.2f} s on {report['ran_on']}"))
    width = max(len(name) for name, _ in rows) + 2
    title = f"{PROG}: {' '.join(report['paths'])}"
    title += f" ({report['format']}, {report['partitions']} partitions)"
    text = "\n".join([title] + [f"  {n:<{width}}{v}" for n, v in rows])
    if "gains" in report:
        table = pd.DataFrame(report["gains"]).set_index("group")[list(_GAINS_SHOWN)]
        text += f"\n\ngains table ({len(table)} bins, ties never split)\n"
        text += table.to_string(float_format=lambda v: f"{v:.4f}")
    return text


def _point_line(point: dict[str, Any]) -> tuple[str, str]:
    """``threshold at FPR <= 0.01    0.8123  (TPR 0.41, FPR 0.0099, precision 0.62, F1 0.5)``."""
    target = point["target"]
    if target.startswith("best="):
        name = f"best threshold ({target.removeprefix('best=')})"
    else:
        rate, _, value = target.partition("=")
        name = f"threshold at {_RATE_RULES[rate]} {value}"
    rates = (
        f"TPR {point['tpr']:.4f}, FPR {point['fpr']:.4f}, "
        f"precision {point['precision']:.4f}, F1 {point['f1']:.4f}"
    )
    return name, f"{_score_text(point['threshold'])}  ({rates})"


def _score_text(score: Any) -> str:
    """A threshold as the text report shows it: 10 significant digits (integers whole)."""
    return str(score) if isinstance(score, numbers.Integral) else f"{score:.10g}"


def _explain(error: BaseException, args: argparse.Namespace) -> str:
    """One line saying what went wrong, naming the column when the library could not."""
    message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if isinstance(error, KeyError):
        # pandas selecting a column a file lacks, in a task: the local files were
        # checked before reading, so this is a remote (fsspec) dataset's
        return f"a file lacks a column the options name: {error.args[0] if error.args else ''}"
    if isinstance(error, FileNotFoundError) and error.filename and not str(error).startswith("no "):
        return f"no such file or directory: {error.filename!r}"
    if message == MULTICLASS_MESSAGE:
        return f"label column {args.label!r} is not binary (it holds more than two values)"
    label, score = f"label column {args.label!r}", f"score column {args.score!r}"
    weight = f"weight column {args.weight!r}"
    # a CSV cell that is not a number: pandas parses the score and weight columns as
    # floats in one read, and its message names neither
    unparsed = score if args.weight is None else f"{score} or {weight}"
    columns_named = {
        "Input contains": score,
        "dtype='numeric' is not compatible": score,  # text scores, named at the call
        "Complex data not supported": score,
        "y_score must be numeric": score,
        "Input y_true contains": label,
        "continuous format is not supported": label,
        "Input sample_weight contains": weight,
        "Negative values in data passed to `sample_weight`": weight,
        "sample_weight must be numeric": weight,
        "could not convert string to float": unparsed,
    }
    for prefix, columns in columns_named.items():
        if message.startswith(prefix):
            return f"{columns}: {message}"
    return message
