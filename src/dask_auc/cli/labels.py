"""The label column of ``dask-auc``: its two classes, and which one is positive.

The first of the command's two computations counts the rows (and weights) of
each label value; from the counts the labels are checked to be binary and the
positive class is chosen: ``--pos-label`` (read as the label column's type:
``1``, ``clicked``, ``true``), or without it the greater label when the
labels are 0/1, -1/1 or booleans, scikit-learn's default for its curves;
other labels are a data error rather than a silent guess.

Examples
--------
>>> positive_last(["clicked", "not"], "y", "clicked")
['not', 'clicked']
>>> _names_label("True", True), _names_label("1.0", 1), _names_label("1", "1.0")
(True, True, False)
"""

from __future__ import annotations

import numbers
from typing import Any

import dask.dataframe as dd
import pandas as pd

from .report import plain


def lazy_counts(frame: dd.DataFrame, label: str, weight: str | None) -> dict[str, Any]:
    """Rows per label value (missing labels included), and weight per label value."""
    lazy = {"rows": frame[label].value_counts(dropna=False)}
    if weight is not None:
        lazy["weights"] = frame.groupby(label)[weight].sum()
    return lazy


def label_rows(labels: tuple[Any, ...], totals: tuple[int, int]) -> pd.Series:
    """Rows per label value, as :func:`lazy_counts` gives them, from a ROC's labels and totals.

    The ROC's positive class is its default rule's, the greater of two labels.

    Examples
    --------
    >>> label_rows((0, 1), (3, 5)).to_dict()
    {0: 5, 1: 3}
    """
    positives, negatives = totals
    if len(labels) == 1:
        return pd.Series({labels[0]: positives + negatives})
    return pd.Series(dict(zip(labels, (negatives, positives), strict=True)))


def classes(rows: Any, label: str) -> list[Any]:
    """The two label values of the counts ``rows``, ascending, or a data error."""
    values = rows.index.tolist()
    missing = [v for v in values if v is None or v != v]
    if missing:
        raise ValueError(
            f"label column {label!r} has {int(rows[rows.index.isna()].sum()):,} missing values"
        )
    try:
        found = sorted(values)
    except TypeError:
        raise ValueError(f"label column {label!r} mixes strings and numbers") from None
    if len(found) > 2:
        shown = ", ".join(map(repr, map(plain, found[:5]))) + (", ..." if len(found) > 5 else "")
        raise ValueError(
            f"label column {label!r} is not binary: it holds {len(found):,} values ({shown})"
        )
    if len(found) < 2:
        held = f"one class only ({plain(found[0])!r})" if found else "no rows"
        raise ValueError(f"label column {label!r} holds {held}: the ROC AUC is not defined")
    return found


def positive_last(classes: list[Any], label: str, pos_label: str | None) -> list[Any]:
    """``[negative, positive]``: the value ``--pos-label`` names, or without it the
    greater label where scikit-learn's curves have a default (0/1, -1/1, booleans).

    Other labels (strings, 1/2) need ``--pos-label``: taking the greater one, as
    ``roc_auc_score`` does, would silently turn "clicked"/"not" into ``1 - AUC``.
    """
    held = " and ".join(repr(plain(value)) for value in classes)
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
    value = plain(value)
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
