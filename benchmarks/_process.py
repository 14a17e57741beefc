"""How a benchmark script measures one row: in a fresh process (by default) or in its own.

A benchmark measures each row (a method, a size, a kind) in a fresh Python
process, so that every row starts from the same clean state: its peak memory
is its own and its first calls are first calls.  The script runs itself as the
child (with a hidden ``--measure`` flag, or a ``-c`` program); the child
prints its result as one tagged JSON line (:func:`emit`) and
:func:`run_child` reads it back:

- the child gets this folder on ``PYTHONPATH`` (ahead of the caller's, which
  it inherits: ``PYTHONPATH=<other checkout>/src`` measures another version);
- it runs in a new session, so that a timeout kills its whole process group
  (a ``LocalCluster``'s worker processes with it);
- a row that fails or times out gives an ``{"error": ...}`` result: the
  child's exit code and the last line of its standard error (the exception),
  which the scripts print in the row's cell; its whole standard error is
  copied to the script's.

``--in-process`` (:func:`add_in_process_flag`) measures every row in the
script's own process instead, by the same function the child would run:
one Python start for the whole run, which is what the test suite's smoke runs
want.  Those numbers come from one warm process (imports done, thread pools
and numba loops ready, memory freed by earlier rows counted in the baseline),
so they are not the published kind: every report made so says it
(:data:`IN_PROCESS_NOTE`).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: the prefix of the child's result line on its standard output
TAG = "@@bench-result "
#: how long an error cell may be
_CELL = 160
IN_PROCESS_NOTE = (
    "in-process (--in-process): every row was measured in this one warm Python process, "
    "not in a fresh one: a smoke run, not numbers to publish"
)


# -- the child ----------------------------------------------------------------------


def emit(result: Mapping[str, Any]) -> None:
    """Print ``result`` as the child's tagged result line (the last such line counts)."""
    print(TAG + json.dumps(result), flush=True)


# -- the parent ---------------------------------------------------------------------


def script_command(script: str | Path, *args: Any) -> list[str]:
    """``python <script> args...`` with this interpreter (arguments made strings)."""
    return [sys.executable, str(Path(script).resolve()), *map(str, args)]


def run_child(
    command: Sequence[str],
    *,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Run one measuring process; its result (:func:`emit`), or ``{"error": cell}``.

    ``env`` adds to (or overrides) this process's environment.  A child still
    running after ``timeout`` seconds is killed with its process group.
    """
    environment = {**os.environ, **(env or {})}
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(HERE), environment.get("PYTHONPATH")])
    )
    process = subprocess.Popen(
        list(command),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the process and any workers it started
        process.communicate()
        return {"error": f"timed out after {timeout:g} s"}
    for line in reversed(stdout.splitlines()):
        if line.startswith(TAG):  # measured, whatever its exit (a cluster's teardown) says
            return json.loads(line[len(TAG) :])
    sys.stderr.write(stderr)
    tail = (stderr.strip().splitlines() or ["no result line"])[-1]
    return {"error": f"exit {process.returncode}: {tail[:_CELL]}"}


def run_here(measure: Callable[..., Mapping[str, Any]], *args: Any) -> dict[str, Any]:
    """``measure(*args)`` in this process, its result as the child's would read.

    The result goes through JSON as a child's does (tuples become lists, keys
    strings); an exception becomes the error cell a child's would.
    """
    try:
        result = measure(*args)
    except Exception as error:  # a row's failure is a cell of the table, as in a child
        return {"error": f"raised {type(error).__name__}: {error}"[:_CELL]}
    return json.loads(json.dumps(result))


def measure_row(
    measure: Callable[[argparse.Namespace], Mapping[str, Any]],
    args: argparse.Namespace,
    command: Sequence[str],
    /,
    *,
    timeout: float | None = None,
    **row: Any,
) -> dict[str, Any]:
    """One row: ``command`` in a fresh process, or with ``--in-process`` ``measure`` here.

    For the scripts whose ``measure`` takes the parsed arguments: here it gets
    them with the row's own values (``row``), as the child parses them from
    ``command``.
    """
    if args.in_process:
        return run_here(measure, argparse.Namespace(**{**vars(args), **row}))
    return run_child(command, timeout=timeout)


def method_row(
    script: str | Path,
    measure: Callable[..., Mapping[str, Any]],
    method: str,
    rows: int,
    kind: str,
    args: argparse.Namespace,
) -> dict[str, Any]:
    """One (method, rows, kind) row of a script whose ``measure`` takes those and the repeats
    and seed: in a fresh process running ``script --measure ...``, or here with ``--in-process``.
    """
    if args.in_process:
        return run_here(measure, method, rows, kind, args.repeats, args.seed)
    command = script_command(
        script, "--measure", method, "--rows", rows, "--kinds", kind,
        "--repeats", args.repeats, "--seed", args.seed,
    )  # fmt: skip
    return run_child(command, timeout=args.timeout)


def add_in_process_flag(parser: argparse.ArgumentParser) -> None:
    """The ``--in-process`` flag (see the module's docstring)."""
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="measure every row in this process instead of a fresh one each (a smoke run: "
        "the report says so; its numbers are not the published kind)",
    )


# -- the report ---------------------------------------------------------------------


def write_report(
    *,
    command: str,
    started: datetime.datetime,
    env_line: str,
    table: str,
    notes: Sequence[str],
    in_process: bool,
    output: Path | None,
) -> str:
    """Print the report (command, machine, table, notes) and write it to ``output`` too."""
    notes = [*notes, IN_PROCESS_NOTE] if in_process else list(notes)
    report = "\n".join(
        [
            f"`{command}`",
            "",
            f"{started:%Y-%m-%d %H:%M %Z}; {env_line}",
            "",
            table,
            "",
            *[f"- {note}" for note in notes],
        ]
    )
    print(report)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(report + "\n")
    return report
