"""How ``dask-auc`` fails: its exit statuses, and the one line that explains a data error.

The library's messages name its parameters (``y_score``, ``sample_weight``);
the command's name the columns the options gave, and pandas' and pyarrow's
(which name neither) get the column added.
"""

from __future__ import annotations

import argparse

from .._kernels.core.validation import MULTICLASS_MESSAGE

#: a data error: a file, a column or the values in it (usage errors are argparse's 2)
DATA_ERROR = 1
CLOSED_STDOUT = 1  # as the signal module docs' recipe for a reader that has gone
INTERRUPTED = 130  # a shell's status for SIGINT


def explain(error: BaseException, args: argparse.Namespace) -> str:
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
