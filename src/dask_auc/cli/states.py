"""Certified-AUC states from the command line: ``--state-out`` and ``--states``.

A daily job runs ``dask-auc day.parquet ... --state-out day.state``: the
state (:class:`dask_auc.ROCState`) is made in the same computation as the
other metrics, saved, and its certified AUC reported.  Any window of days is
then ``dask-auc --states states/*.state --window 28``: the last 28 files, in
the order given (a shell's glob sorts the names), are loaded and merged --
no log is read again -- and the certified AUC of each and of their merge is
printed.  The order matters only for which files the window keeps: a merge
is the same in any order.

Examples
--------
>>> _bound_text(0.75), _width_text(0.0), _width_text(2.5e-06)
('0.7500000000', '0', '2.5e-06')
"""

from __future__ import annotations

import argparse
import errno
import math
import os
import warnings
from pathlib import Path
from typing import Any

import dask.dataframe as dd

from .. import LazyScore, ROCState, UndefinedMetricWarning, roc_state

#: the columns of the states table, and whether each is right-aligned (a number)
_COLUMNS = (
    ("state", False),
    ("bins", True),
    ("bytes", True),
    ("lower", True),
    ("estimate", True),
    ("upper", True),
    ("width", True),
    ("exact", False),
)


def lazy_state(frame: dd.DataFrame, args: argparse.Namespace, positive: Any) -> LazyScore:
    """The rows' :class:`~dask_auc.ROCState`, lazy, to compute with the other metrics.

    Without ``--pos-label`` the labels follow the library's default rule
    (the CLI has checked it), and the state is made as ``roc_state(y, s)``
    makes it -- ``pos_label`` None -- so that it merges with states a
    program made with the defaults.
    """
    weight = None if args.weight is None else frame[args.weight]
    pos_label = None if args.pos_label is None else positive
    lazy = roc_state(
        frame[args.label], frame[args.score], pos_label=pos_label, sample_weight=weight,
        compute=False,
    )  # fmt: skip
    assert isinstance(lazy, LazyScore)  # compute=False
    return lazy


def saved_state(state: ROCState, path: str) -> dict[str, Any]:
    """Write ``state`` to ``path``; its report: the file, its size, its certified AUC."""
    state.save(path)
    return _summary(path, state)


def window_report(paths: list[str], window: int | None) -> dict[str, Any]:
    """The certified AUC of each of the last ``window`` states of ``paths``, and of their merge.

    Only the files of the window are read.  A missing file, a file that
    :meth:`~dask_auc.ROCState.load` refuses, one file given twice, states
    that do not merge, or a merge holding one class only is a ``ValueError``
    (``FileNotFoundError``) that the command prints on one line.
    """
    chosen = paths[-window:] if window is not None else list(paths)
    seen: dict[str, int] = {}
    for index, path in enumerate(chosen):
        if not os.path.exists(path):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        earlier = seen.setdefault(os.path.realpath(path), index)
        if earlier != index:
            first = chosen[earlier]
            named = f"{path} is given twice" if first == path else f"{first} and {path} are one"
            raise ValueError(f"{named}: its rows would count twice in the window")
    states = [ROCState.load(path) for path in chosen]
    merged = _summary(None, ROCState.merge(states))
    if math.isnan(merged["lower"]):
        held = f"{len(chosen)} state" + ("s" if len(chosen) != 1 else "")
        raise ValueError(
            f"the window ({held}) holds no positive or no negative row: the ROC AUC is not defined"
        )
    return {
        "given": len(paths),
        "window": window,
        "states": [_summary(path, state) for path, state in zip(chosen, states, strict=True)],
        "merged": {"states": len(chosen), **merged},
    }


def window_text(report: dict[str, Any]) -> str:
    """``--states``' report as a title and a table: each state, then their merge."""
    merged, given, window = report["merged"], report["given"], report["window"]
    title = f"dask-auc: certified ROC AUC of {merged['states']} state"
    title += "s" if merged["states"] != 1 else ""
    if window is not None and window > given:
        title += f" (--window {window}: only {given} given)"
    elif merged["states"] < given:
        title += f" (the last {merged['states']} of {given} given)"
    rows = [*report["states"], {**merged, "path": f"merged ({merged['states']})"}]
    return f"{title}\n{_table(rows)}"


def with_state_text(text: str, report: dict[str, Any]) -> str:
    """The data report's text, and the ``--state-out`` state's certified AUC below it."""
    if "state" not in report:
        return text
    return f"{text}\n\ncertified ROC AUC of the state written (--state-out)\n" + _table(
        [report["state"]]
    )


def _summary(path: str | None, state: ROCState) -> dict[str, Any]:
    """A state's report fields: the file, its size, and its certified AUC."""
    with warnings.catch_warnings():
        # a state of one class: NaN bounds in the table (a window of one class is an error)
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        bounds = state.auc()
    return {
        "path": None if path is None else str(Path(path)),
        "bins": state.n_bins,
        "bytes": state.nbytes,
        "lower": bounds.lower,
        "estimate": bounds.estimate,
        "upper": bounds.upper,
        "width": bounds.width,
        "exact": bounds.exact,
    }


def _table(rows: list[dict[str, Any]]) -> str:
    """Aligned columns, indented as the report's lines; bounds with 10 decimals."""
    cells = [
        [
            row["path"],
            f"{row['bins']:,}",
            f"{row['bytes']:,}",
            _bound_text(row["lower"]),
            _bound_text(row["estimate"]),
            _bound_text(row["upper"]),
            _width_text(row["width"]),
            "yes" if row["exact"] else "no",
        ]
        for row in rows
    ]
    header = [name for name, _ in _COLUMNS]
    widths = [max(len(c) for c in column) for column in zip(header, *cells, strict=True)]
    lines = [
        "  ".join(
            c.rjust(w) if right else c.ljust(w)
            for c, w, (_, right) in zip(line, widths, _COLUMNS, strict=True)
        ).rstrip()
        for line in [header, *cells]
    ]
    return "\n".join(f"  {line}" for line in lines)


def _bound_text(value: float) -> str:
    return f"{value:.10f}"


def _width_text(value: float) -> str:
    """``0`` when exact, else two significant digits (a width spans orders of magnitude)."""
    return "0" if value == 0 else f"{value:.2g}"
