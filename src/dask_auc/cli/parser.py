"""The options of ``dask-auc`` and their usage errors (exit status 2, argparse's).

The command has two modes: the metrics of data files (:func:`build_parser`),
and, when ``--states`` is among the arguments, the certified AUC of saved
states (:func:`build_states_parser`), which takes none of the data's options.
Every option that takes one value refuses a second (argparse's ``store``
would keep the last silently), and the values are checked as they are read:
``--max-fpr`` in ``(0, 1]``, ``--threshold-at NAME=X``, positive counts.

Examples
--------
>>> parse_args(["scores/", "--label", "y", "--score", "p"]).max_fpr is None
True
>>> _rate_target("fpr=0.01")
('fpr', 0.01)
>>> parse_args(["--states", "day1.state", "day2.state", "--window", "2"]).window
2
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from typing import Any

from .. import __version__

PROG = "dask-auc"
#: the rates ``--threshold-at`` can target
RATES = ("fpr", "tpr", "precision", "recall")
#: the criteria of ``--best``
CRITERIA = ("youden", "f1", "closest_topleft")
#: the option that switches to reporting from saved states (:mod:`.states`)
STATES_OPTION = "--states"
#: why an option refuses a second value, where there is more to say than the default
ONCE_HINTS = {
    "states": "give every file after one --states",
}


class StoreOnce(argparse.Action):
    """Store an option's one value; a second is a usage error (``store`` keeps the last)."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        # every such option's default is None, and no given value converts to None
        earlier = getattr(namespace, self.dest, None)
        if earlier is not None:
            hint = ONCE_HINTS.get(self.dest, "it takes one value")
            message = f"given more than once ({earlier!r}, then {values!r}): {hint}"
            raise argparse.ArgumentError(self, message)
        setattr(namespace, self.dest, values)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The options of ``argv`` (default ``sys.argv[1:]``); a usage error exits with status 2.

    With ``--states``, the options of reporting from saved states
    (:func:`build_states_parser`); ``args.states`` is None otherwise.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if _asks_for_states(argv):
        parser = build_states_parser()
        args = parser.parse_args(argv)
        if not args.states:  # "*", not "+", so that `--states -h` is help, not an error
            parser.error(f"argument {STATES_OPTION}: expected at least one argument")
        return args
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.per_group and not args.by:
        parser.error("--per-group needs --by")
    repeated = sorted({s for s in args.scores if args.scores.count(s) > 1})
    if repeated:
        parser.error(
            f"argument --score: given more than once ({repeated[0]!r}): each model is one "
            "score column, named once"
        )
    several = [
        o for o, v in (("--per-group", args.per_group), ("--state-out", args.state_out)) if v
    ]
    if len(args.scores) > 1 and several:
        parser.error(f"{several[0]} takes one --score (it writes one model's file)")
    args.score = args.scores[0]  # the first model: the baseline of the comparison
    return args


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``dask-auc``."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Exact ROC AUC, partial AUC, average precision (and grouped AUC) "
        "of scored rows in Parquet or CSV files, computed in parallel with Dask.",
        epilog="Exit status: 0 success, 1 data error (missing file or column, labels "
        "not binary or without --pos-label, NaN scores) or closed stdout, 2 usage error. "
        f"Saved states: {PROG} {STATES_OPTION} FILE [FILE ...] [--window N] reports their "
        f"certified AUC ({PROG} {STATES_OPTION} -h).",
    )
    # the other mode's option: its namespace has the list of files instead
    parser.set_defaults(states=None)
    # every option without an action of its own stores one value and refuses a second
    parser.register("action", None, StoreOnce)
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
    parser.add_argument(
        "--score",
        action="append",
        dest="scores",
        required=True,
        metavar="COL",
        help="score column; repeat it to compare models on the same rows (--score a "
        "--score b): one report per model, then each model's AUC tested against the first's "
        "(DeLong's paired test; with --weight the paired bootstrap's, 2000 replicates, seed 0)",
    )
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
        choices=CRITERIA,
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
        "the positive class's probability (in [0, 1]), and the CORP decomposition of the "
        "Brier and log scores (MCB, DSC, UNC); with --by also per group (their "
        "quantiles, the --per-group table's columns) and the calibration sum(p) / sum(y)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--curve", metavar="OUT.png", help="write the ROC and precision-recall curves"
    )
    parser.add_argument(
        "--state-out",
        metavar="OUT.state",
        help="also write the certified-AUC state of the rows (dask_auc.ROCState, a small "
        f"file: a day's, say) and report its bounds; {STATES_OPTION} reports any window "
        "of such files",
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


def build_states_parser() -> argparse.ArgumentParser:
    """The argument parser of ``dask-auc --states``: no data, only saved state files."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        usage=f"%(prog)s {STATES_OPTION} FILE [FILE ...] [--window N] [--json]",
        description="The certified ROC AUC (lower <= exact <= upper) of states saved by "
        "--state-out or ROCState.save: of each state, and of their merge.",
        epilog="Exit status: 0 success, 1 a missing or foreign file, states that do not "
        "merge (other resolution or positive class) or one class only, 2 usage error.",
    )
    parser.register("action", None, StoreOnce)
    parser.add_argument(
        STATES_OPTION,
        nargs="*",
        required=True,
        metavar="FILE",
        help="state files, oldest first (a shell's glob sorts names: name them by date, "
        "as 2024-05-01.state)",
    )
    parser.add_argument(
        "--window",
        type=_positive_int,
        metavar="N",
        help="merge only the last N files given (default: all of them); fewer given "
        "are merged all, and the report says so",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    # the data mode's columns, absent here: the error messages (.errors) name none
    parser.set_defaults(label=None, score=None, scores=None, weight=None)
    return parser


def _asks_for_states(argv: Sequence[str]) -> bool:
    """Whether ``--states`` is an option of ``argv`` (before a ``--`` that ends the options)."""
    for item in argv:
        if item == "--":
            return False
        if item == STATES_OPTION or item.startswith(f"{STATES_OPTION}="):
            return True
    return False


def _max_fpr(text: str) -> float:
    """``--max-fpr``: a number in ``(0, 1]``, the range of ``roc_auc_score``'s ``max_fpr``."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= 1:  # NaN too
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], got {text!r}")
    return value


def _rate_target(text: str) -> tuple[str, float]:
    """``NAME=X`` of ``--threshold-at``: a rate name and a number in [0, 1]."""
    name, _, value = text.partition("=")
    try:
        rate = float(value)
    except ValueError:
        rate = math.nan
    if name not in RATES or not 0 <= rate <= 1:
        raise argparse.ArgumentTypeError(
            f"must be NAME=X with NAME one of {', '.join(RATES)} and X in [0, 1], got {text!r}"
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
