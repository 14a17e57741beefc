"""The parameters of the binary wing's functions, and one check of them per public call.

``PARAMETERS[name]`` is the table of the public function ``name`` (a binary
query's is declared in its :mod:`.registry` entry, which adds it here); the
:class:`~dask_auc.ROC` method answering the same question checks the entries
of the same table that it takes, under the same name, so that the messages
are the function's.  A public function that checked its parameters calls the
wing inside :func:`checked_once`: the queries it calls do not check those
values again (scikit-learn's ``validate_params(prefer_skip_nested_validation=True)``).

Examples
--------
>>> check_query("roc", compute=True)
{'compute': True}
>>> with checked_once({"compute": "yes"}):  # checked (and refused) by the caller: not again
...     check_query("roc", compute="yes")
{'compute': 'yes'}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from .._params import (
    AtLeast,
    Boolean,
    Constraint,
    Interval,
    Label,
    Options,
    check_params,
)

INTERVALS = ("percentile", "basic", "normal")

MAX_POINTS = AtLeast(2, why=" (a curve has two end points)")
RATE = Interval(0, 1, closed="both", none=True)
MAX_FPR = Interval(0, 1, closed="right", none=True)
CONFIDENCE_LEVEL = Interval(0, 1, closed="neither")
COMPUTE = Boolean()
POS_LABEL = Label()
CURVE = {
    "pos_label": POS_LABEL,
    "drop_intermediate": Boolean(),
    "compute": COMPUTE,
    "max_points": MAX_POINTS,
}

#: every public function of one binary input: its parameters in the order they are checked.
#: The binary queries' tables are their entries' (:mod:`.registry` adds them), the
#: bootstrap's name its metrics; the rest are here.
PARAMETERS: dict[str, Mapping[str, Constraint]] = {
    # ``compute`` is ROC.labels': its messages name ``roc``
    "roc": {"pos_label": POS_LABEL, "compute": COMPUTE},
    "mannwhitneyu": {
        "use_continuity": Boolean(),
        "alternative": Options(("two-sided", "less", "greater")),
        "method": Options(("auto", "asymptotic", "exact")),
        "nan_policy": Options(("propagate", "omit", "raise")),
        "compute": COMPUTE,
    },
}


def register(tables: Mapping[str, Mapping[str, Constraint]]) -> None:
    """Add the tables of ``tables``' functions (:mod:`.registry`'s entries); each name once."""
    twice = sorted(set(tables) & set(PARAMETERS))
    if twice:
        raise RuntimeError(f"parameters of {twice} declared twice")
    PARAMETERS.update(tables)


#: the values a caller up the stack has checked already, by parameter name
_CHECKED: ContextVar[Mapping[str, Any] | None] = ContextVar("dask_auc_checked", default=None)


@contextmanager
def checked_once(checked: Mapping[str, Any]) -> Iterator[None]:
    """The queries called inside do not check again these values, checked by their caller.

    A value is skipped only where it is the very object that was checked: a
    query given another value of the same name checks it.
    """
    token = _CHECKED.set({**(_CHECKED.get() or {}), **checked})
    try:
        yield
    finally:
        _CHECKED.reset(token)


def check_query(name: str, **values: Any) -> dict[str, Any]:
    """Check ``values`` against ``PARAMETERS[name]`` (in its order), but those checked already.

    Returns the values, converted by their constraints.
    """
    table, checked = PARAMETERS[name], _CHECKED.get() or {}
    asked = {key: table[key] for key in table if key in values}
    if len(asked) != len(values):  # a programming error: a parameter with no constraint
        raise KeyError(f"{name} declares no {sorted(set(values) - set(asked))}")
    unchecked = {
        key: constraint
        for key, constraint in asked.items()
        if key not in checked or checked[key] is not values[key]
    }
    return {**values, **check_params(name, unchecked, **values)}
